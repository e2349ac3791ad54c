"""Psychometric fits on the report page: their section and what the report computes for them."""

from __future__ import annotations

import numpy as np

from ..sections import NotApplicable, ReportFigure, ReportSection, ReportTable, SectionResult, settings_text


def psychfit_section(result) -> SectionResult:
    """The psychometric fits as a report section: one table and one figure per experiment, and which observers'
    thresholds are resolved from the humans'.

    Parameters
    ----------
    result : PsychometricFitResult
        From :func:`humanlike.measures.psychfit.analysis.psychometric_fits`.

    Returns
    -------
    SectionResult
        No headline measure (thresholds are per experiment, in its own units).

    Examples
    --------
    >>> from humanlike.measures.psychfit.analysis import psychometric_fits
    >>> from humanlike.measures.psychfit.simulate import simulate_psychometric
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> made = psychfit_section(psychometric_fits(simulate_psychometric(seed=0),
    ...                                           settings=ResamplingSettings(n_resamples=20)))
    >>> [t.key for t in made.section.tables], made.headline
    (['psychfit-sim-contrast', 'psychfit-resolved'], [])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import psychometric_fit_figure

    tables, figures = [], []
    for experiment in result.experiments():
        table = result.table(experiment)
        tables.append(ReportTable(f"psychfit-{experiment}", f"{experiment}: threshold, slope and lapse",
                                  table.round(4)))
        figures.append(ReportFigure(f"psychfit-{experiment}", f"{experiment}: fitted psychometric functions",
                                    psychometric_fit_figure(result, experiment),
                                    alt=f"Proportion correct per level of {experiment} with the fitted functions of "
                                        "the pooled humans and every model."))
    resolved = result.resolved()
    if len(resolved):
        tables.append(ReportTable("psychfit-resolved", "Thresholds resolved from the humans'",
                                  resolved.round(4)))
    s = result.settings
    n_resolved = int(np.sum(resolved["resolved"] & (resolved["observer_kind"] == "model"))) if len(resolved) else 0
    n_models = int(np.sum(resolved["observer_kind"] == "model")) if len(resolved) else 0
    section = ReportSection(
        "psychfit", "Psychometric functions",
        f"A {s['sigmoid']} psychometric function fitted by maximum likelihood per observer and experiment (guess "
        f"rate fixed, lapse fitted); threshold where it reaches {s['performance']:g} "
        f"{'proportion correct' if s['level_of'] == 'accuracy' else 'of its sigmoid'}; bootstrap intervals over "
        f"trials within observer and condition. {n_resolved} of {n_models} model thresholds are resolved from the "
        "humans' (the interval of their distance excludes 0).",
        tables=tables, figures=figures, methods=settings_text(s))
    return SectionResult(section)


def report_analysis(trials, *, settings, exclusions=None):  # noqa: ARG001 - every condition is a level
    """What ``humanlike report`` computes for the psychometric fits: every experiment whose conditions are at
    least three stimulus levels and whose pooled accuracy is monotone in the level (rank correlation at least
    0.8 in size: contrast, noise and filters are, rotation is not).

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    settings : ResamplingSettings
        The report's one settings object.
    exclusions : dict or None
        Unused: the fit needs every level.

    Returns
    -------
    PsychometricFitResult

    Raises
    ------
    NotApplicable
        When no experiment has three or more stimulus levels.

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> result = report_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24),
    ...                          settings=ResamplingSettings(n_resamples=0))
    >>> result.experiments()
    ['sim-blur', 'sim-contrast', 'sim-noise']
    """
    from .analysis import psychometric_fits
    from .axes import fittable_experiments

    experiments = fittable_experiments(trials, monotone=0.8)
    if not experiments:
        raise NotApplicable("no experiment has three or more conditions that are stimulus levels with a monotone "
                            "accuracy")
    return psychometric_fits(trials, settings=settings, experiments=experiments, validate=False)
