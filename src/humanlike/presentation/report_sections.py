"""Report sections: each analysis result becomes a section of the report, and the headline table is
assembled from the models' overall values of every measure.

An adapter takes a result object and returns a :class:`~humanlike.presentation.report.ReportSection` plus its
headline columns (model -> estimate and interval of that measure, and the human–human row). Adapters only read
the results' public tables (``to_frame`` and the like); they compute nothing statistical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .report import ReportFigure, ReportSection, ReportTable

HUMAN_ROW = "humans"


@dataclass
class HeadlineMeasure:
    """One measure's column group in the headline table: per observer (models and ``humans``) the overall
    estimate with its interval."""

    name: str
    values: pd.DataFrame  # columns: observer, estimate, ci_low, ci_high


@dataclass
class SectionResult:
    section: ReportSection
    headline: list[HeadlineMeasure] = field(default_factory=list)


def headline_table(measures: list[HeadlineMeasure], sort_by: str | None = None) -> ReportTable | None:
    """Models ranked by the first measure, one estimate and interval column per measure; humans first."""
    if not measures:
        return None
    table: pd.DataFrame | None = None
    for m in measures:
        part = m.values[["observer", "estimate", "ci_low", "ci_high"]].rename(columns={
            "estimate": m.name, "ci_low": f"{m.name} low", "ci_high": f"{m.name} high"})
        table = part if table is None else table.merge(part, on="observer", how="outer")
    key = sort_by or measures[0].name
    is_human = table["observer"] == HUMAN_ROW
    ordered = pd.concat([table[is_human], table[~is_human].sort_values(key, ascending=False, na_position="last")])
    ordered = ordered.reset_index(drop=True)
    ranks = (ordered["observer"] != HUMAN_ROW).to_numpy()
    rank = pd.array([pd.NA] * len(ordered), dtype="Int64")
    rank[ranks] = np.arange(1, ranks.sum() + 1)
    ordered.insert(1, "rank", rank)
    return ReportTable("headline", "Headline: models ranked by " + key, ordered,
                       caption="humans: the human–human value (the ceiling); low/high: interval bounds")


def _settings_text(settings: dict) -> dict[str, object]:
    keep = ("n_resamples", "level", "interval", "observer_level", "seed", "policy", "exclusions", "experiments")
    return {k: settings[k] for k in keep if k in settings}


# --- error consistency ------------------------------------------------------------------------------------


def ec_section(benchmark) -> SectionResult:
    """The benchmark's error consistency (a :class:`~humanlike.analyses.benchmark.BenchmarkResult`)."""
    from .plots import benchmark_figure, ranking_figure

    rows = benchmark.rows
    ec_rows = rows[rows["metric"] == "error_consistency"]
    overall = ec_rows[ec_rows["scope"] == "overall"]
    per_experiment = ec_rows[ec_rows["scope"] != "overall"].pivot_table(
        index="observer", columns="scope", values="estimate", aggfunc="first").reset_index()
    figures = [ReportFigure("ec-benchmark", "Error consistency with humans", benchmark_figure(benchmark),
                            alt="Left: models ranked by error consistency with humans, with intervals and the "
                                "human–human band. Right: error consistency against OOD accuracy.",
                            caption="Intervals: bootstrap through the whole aggregation (items resampled within "
                                    "conditions, jointly for all observers).")]
    tables = [ReportTable("ec-overall", "Error consistency, overall",
                          overall[["observer", "estimate", "ci_low", "ci_high", "n_pairs", "undefined_share",
                                   "reason"]].sort_values("estimate", ascending=False)),
              ReportTable("ec-experiments", "Error consistency per experiment (estimates)", per_experiment)]
    if benchmark.ranking is not None:
        figures.append(ReportFigure("ec-ranking", "Rank stability", ranking_figure(benchmark.ranking),
                                    alt="Rank intervals of the models under resampling."))
        tables.append(ReportTable("ec-ranking", "Rank stability under resampling", benchmark.ranking.to_frame()))
    section = ReportSection(
        "error-consistency", "Error consistency",
        "Cohen's kappa of trial-by-trial correctness between each model and each human (and between humans), "
        "averaged over conditions, humans and experiments as the model-vs-human benchmark does.",
        tables=tables, figures=figures, methods=_settings_text(benchmark.details.settings))
    measure = HeadlineMeasure("EC", overall[["observer", "estimate", "ci_low", "ci_high"]])
    return SectionResult(section, [measure])


# Adapters by analysis name; other analyses register theirs here.
ADAPTERS: dict[str, Callable[[object], SectionResult]] = {"benchmark": ec_section}


def build_sections(results: dict[str, object]) -> tuple[list[ReportSection], ReportTable | None]:
    """Sections (in :data:`ADAPTERS` order) and the headline table for the results given by name."""
    sections, measures = [], []
    for name, adapter in ADAPTERS.items():
        if results.get(name) is None:
            continue
        made = adapter(results[name])
        sections.append(made.section)
        measures.extend(made.headline)
    return sections, headline_table(measures)
