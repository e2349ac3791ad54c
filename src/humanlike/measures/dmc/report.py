"""Decision-margin consistency on the report page: its section and what the report computes for it."""

from __future__ import annotations

import pandas as pd

from ..sections import (
    HUMAN_ROW, HeadlineMeasure, NotApplicable, ReportFigure, ReportSection, ReportTable, SectionResult, settings_text,
)


def dmc_section(result) -> SectionResult:
    """Decision-margin consistency as a report section.

    Parameters
    ----------
    result : DMCResult
        From :func:`humanlike.measures.dmc.analysis.decision_margin_consistency`.

    Returns
    -------
    SectionResult
        Tables ``dmc-overall`` and ``dmc-experiments``, the ranking figure, and the headline measure ``DMC``
        (models against the pooled human index; ``humans``: the split-half ceiling).

    Examples
    --------
    >>> from humanlike.measures.dmc.analysis import decision_margin_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> made = dmc_section(decision_margin_consistency(trials, experiments=["sim-blur"], settings=dmc_settings(n_resamples=20)))
    >>> made.section.key, list(made.headline[0].values["observer"])[:2]
    ('decision-margin-consistency', ['humans', 'model-alien'])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import dmc_ranking_figure

    overall = result.table("overall")
    shown = overall[["group", "kind", "estimate", "ci_low", "ci_high", "t_low", "t_high", "n", "undefined_share",
                     "reason"]].rename(columns={"group": "observer"})
    per_experiment = result.summary_table[(result.summary_table["scope"] != "overall") & (result.summary_table["condition"] == "")
                                    & (result.summary_table["metric"] == overall["metric"].iloc[0])]
    per_experiment = per_experiment.pivot_table(index="group", columns="scope", values="estimate",
                                                aggfunc="first").reset_index().rename(columns={"group": "observer"})
    section = ReportSection(
        "decision-margin-consistency", "Decision-margin consistency",
        "Correlation over items between each model's decision margin and the humans' item accuracy (Alvarez & "
        "Konkle); the human row is the split-half noise ceiling (Spearman–Brown corrected).",
        tables=[ReportTable("dmc-overall", "Decision-margin consistency, overall", shown,
                            caption="t_low/t_high: the published t-interval over splits (too narrow: splits share "
                                    "observers), shown for comparison"),
                ReportTable("dmc-experiments", "Decision-margin consistency per experiment (estimates)",
                            per_experiment)],
        figures=[ReportFigure("dmc-ranking", "Models ranked by decision-margin consistency",
                              dmc_ranking_figure(result),
                              alt="Models ranked by decision-margin consistency with humans, with intervals and "
                                  "the human split-half ceiling.")],
        methods=settings_text(result.settings), notes=list(result.notes)[:20])
    models = overall[overall["kind"] == "model-human"]
    models = models[~models["group"].str.contains("(mean)", regex=False)]
    humans = overall[overall["group"] == HUMAN_ROW]
    values = pd.concat([humans, models])[["group", "estimate", "ci_low", "ci_high"]].rename(columns={"group": "observer"})
    return SectionResult(section, [HeadlineMeasure("DMC", values)])


def report_analysis(trials, *, settings, exclusions=None):
    """What ``humanlike report`` computes for decision-margin consistency.

    DMC keeps its own observer level (the jackknife over human observers) unless one was chosen: the report
    says so in its settings (``observer_level``) and the section's methods list.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    settings : ResamplingSettings
        The report's one settings object.
    exclusions : dict or None
        Conditions to drop per experiment, or None.

    Returns
    -------
    DMCResult

    Raises
    ------
    NotApplicable
        When no model has decision margins (the report then leaves DMC out, with a note).

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=3, n_items=24)
    >>> report_analysis(trials.assign(decision_margin=np.nan), settings=ResamplingSettings(n_resamples=0))
    Traceback (most recent call last):
    ...
    humanlike.measures.sections.NotApplicable: no model has decision margins
    """
    from dataclasses import replace

    from .analysis import decision_margin_consistency
    from ...resampling.results import ITEM_JACKKNIFE_INTERVALS

    has_margins = "decision_margin" in trials and trials.loc[trials["observer_kind"] == "model",
                                                              "decision_margin"].notna().any()
    if not has_margins:
        raise NotApplicable("no model has decision margins")
    if settings.observer_level == "none":
        # DMC's own observer jackknife; an item-jackknife interval (EC's) cannot carry it: DMC keeps percentile
        interval = "percentile" if settings.interval in ITEM_JACKKNIFE_INTERVALS else settings.interval
        settings = replace(settings, observer_level="jackknife", interval=interval)
    return decision_margin_consistency(trials, exclusions=exclusions, settings=settings)
