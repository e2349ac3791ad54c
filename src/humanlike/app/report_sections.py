"""The report page's sections, one per registered measure (then the cross-measure tools' sections), and the
headline table assembled from every measure's overall values.

Each measure builds its own section (``measures/<name>/report.py``, found through
:mod:`humanlike.measures.registry`); this module runs the measures the report asks for, collects their sections in
registry order and joins their headline columns. A measure whose analysis fails gets a section that says why; the
settings are never changed behind the user's back.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..measures.registry import measures, tools
from ..resampling.settings import with_own_interval
from ..measures.sections import (
    HUMAN_ROW, HeadlineMeasure, NotApplicable, ReportSection, ReportTable, SectionResult, not_computed_section,
)


def _headline_table(measures: list[HeadlineMeasure], sort_by: str | None = None) -> ReportTable | None:
    """Models ranked by the first measure, one "estimate [low, high]" cell per key measure; humans first.

    The measures a reader compares models by come first (the ranking's own, then each measure's); components
    of a ranking (``key=False``: the leaderboard's accuracy difference and observed consistency) stay in their
    sections' tables, so the table fits a screen.
    """
    if not measures:
        return None
    key = sort_by or measures[0].name
    shown = [m for m in measures if m.key or m.name == key]
    left_out = [m.name for m in measures if m not in shown]
    table: pd.DataFrame | None = None
    for m in shown:
        part = m.values[["observer", "estimate", "ci_low", "ci_high"]].rename(columns={
            "estimate": m.name, "ci_low": f"{m.name} low", "ci_high": f"{m.name} high"})
        table = part if table is None else table.merge(part, on="observer", how="outer")
    ascending = not next((m.higher_is_better for m in measures if m.name == key), True)
    is_human = table["observer"] == HUMAN_ROW
    ordered = pd.concat([table[is_human], table[~is_human].sort_values(key, ascending=ascending,
                                                                       na_position="last")])
    ordered = ordered.reset_index(drop=True)
    ranks = (ordered["observer"] != HUMAN_ROW).to_numpy()
    rank = pd.array([pd.NA] * len(ordered), dtype="Int64")
    rank[ranks] = np.arange(1, ranks.sum() + 1)
    ordered.insert(1, "rank", rank)
    order = "lower" if ascending else "higher"
    caption = (f"Models ranked by {key} ({order} first); humans: the human–human value (the ceiling); "
               "each cell: estimate [interval]")
    if left_out:
        caption += f"; {', '.join(left_out)}: in the sections below"
    return ReportTable("headline", "Headline: models ranked by " + key, ordered, caption=caption,
                       intervals={m.name: (f"{m.name} low", f"{m.name} high") for m in shown})


def build_sections(results: dict[str, object]) -> tuple[list[ReportSection], ReportTable | None]:
    """Sections (in registry order) and the headline table for the results given by measure name.

    Parameters
    ----------
    results : dict
        ``{measure name: result}`` (names of :func:`humanlike.measures.registry.measures`, e.g. ``ec``, ``dmc``,
        ``dvc``, ``ood``, ``mlds``, ``psychscore``); missing or None entries are left out; a string is the reason
        the measure could not be computed, shown in its section.

    Returns
    -------
    tuple
        ``(sections, headline)``: the list of ReportSection (the measures' in registry order, then the
        cross-measure tools', e.g. which differences are resolved), and the headline ReportTable (models ranked
        by the first measure, humans first) or None when no result has a headline measure.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.analysis import analyse_mlds
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
    >>> sections, headline = build_sections({"mlds": analyse_mlds(table), "dmc": None})
    >>> [s.key for s in sections], headline
    (['difference-scaling'], None)
    >>> sections, _ = build_sections({"ood": "the memory budget is too small"})
    >>> sections[0].summary
    'Not computed: the memory budget is too small'
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    sections, headline = [], []
    for measure in measures():
        result = results.get(measure.name)
        if result is None or measure.report_section is None:
            continue
        if isinstance(result, str):
            sections.append(not_computed_section(measure.name, measure.title, result))
            continue
        made = _drawn(measure.name, measure.title, lambda: measure.section(result))
        if measure.citation:   # the papers to cite, in the methods a reader copies into theirs
            made.section.methods.setdefault("cite", measure.citation)
        sections += [made.section, *made.more_sections]
        headline.extend(made.headline)
    for tool in tools():    # cross-measure sections (which differences are resolved) read the measures' results
        made = _drawn(tool.name, getattr(tool, "title", tool.name), lambda: tool.section(results))
        if made is not None:
            sections += [made.section, *made.more_sections]
            headline.extend(made.headline)
    return sections, _headline_table(headline)


def _drawn(name: str, title: str, build):
    """A section as its measure builds it; one that cannot be drawn from these data (a figure of no finite value,
    say) is left out with a note saying why, and the page is still written."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)   # all-NaN slices of a section without data
            return build()
    except ValueError as err:
        return SectionResult(not_computed_section(name, title, f"section left out, these data cannot draw it: "
                                                               f"{err}"))


def run_report_analyses(data: dict, analyses: list[str], settings, exclusions,
                        interval: str | None = None) -> tuple[dict, list[str]]:
    """Run the report's analyses, each on the input it takes, with one settings object.

    Parameters
    ----------
    data : dict
        The inputs by kind: ``{"trials": trial table, "judgements": judgement table}`` (either may be absent).
    analyses : list of str
        Names of registered measures (:func:`humanlike.app.cli_report.report_analyses`).
    settings : ResamplingSettings
        The one settings object of every analysis.
    exclusions : dict or None
        Conditions to drop per experiment (e.g. the benchmark's), or None.
    interval : str or None
        The interval method the user chose (``--interval``), or None: each measure's own
        (:attr:`humanlike.measures.contract.Measure.interval`) in place of the settings'.

    Returns
    -------
    tuple
        ``(results, notes)``: the results by measure name (for :func:`build_sections`; a string is why that
        measure could not be computed) and notes on measures that do not apply to these data (e.g. no decision
        margins for DMC) or failed.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> results, notes = run_report_analyses({"trials": trials.assign(decision_margin=np.nan)}, ["ec", "dmc"],
    ...                                      ResamplingSettings(n_resamples=0), None)
    >>> sorted(results), notes
    (['ec'], ['decision-margin consistency skipped: no model has decision margins'])
    """
    results: dict[str, object] = {}
    notes: list[str] = []
    for measure in measures():
        if measure.name not in analyses or measure.report_run is None or data.get(measure.report_input) is None:
            continue
        title = measure.title if measure.title[:2].isupper() else measure.title[0].lower() + measure.title[1:]
        try:
            own = settings if interval is not None else with_own_interval(settings, measure.interval)
            results[measure.name] = measure.run_for_report(data[measure.report_input], settings=own,
                                                           exclusions=exclusions)
        except NotApplicable as err:
            notes.append(f"{title} skipped: {err}")
        except ValueError as err:   # bad data for this measure, a memory budget too small, ...: shown, not hidden
            results[measure.name] = str(err)
            notes.append(f"{title} not computed: {err}")
    return results, notes
