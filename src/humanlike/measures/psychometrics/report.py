"""Accuracy and entropy per condition on the report page: its section and what the report computes for it."""

from __future__ import annotations

from ..sections import ReportFigure, ReportSection, ReportTable, SectionResult, settings_text


def psychometrics_section(result) -> SectionResult:
    """Accuracy and entropy per condition (model-vs-human's psychometric figures) as a report section.

    Parameters
    ----------
    result : PsychometricResult
        From :func:`humanlike.measures.psychometrics.analysis.psychometrics`.

    Returns
    -------
    SectionResult
        One accuracy table and one figure per experiment with more than one condition; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.psychometrics.analysis import psychometrics
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = psychometrics(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=20))
    >>> made = psychometrics_section(result)
    >>> [t.key for t in made.section.tables][:2], made.headline
    (['psychometrics-sim-blur', 'psychometrics-sim-contrast'], [])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import psychometric_figure

    tables, figures = [], []
    for experiment in result.experiments():
        table = result.table(experiment, "accuracy")
        if table.shape[1] < 2:
            continue
        tables.append(ReportTable(f"psychometrics-{experiment}", f"{experiment}: accuracy per condition",
                                  table.reset_index()))
        figures.append(ReportFigure(f"psychometrics-{experiment}", f"{experiment}: accuracy and entropy",
                                    psychometric_figure(result, experiment),
                                    alt=f"Accuracy and response entropy per condition of {experiment}: humans "
                                        "with interval and range, each model."))
    section = ReportSection(
        "psychometrics", "Accuracy and entropy per condition",
        "model-vs-human's psychometric figures: accuracy (humans: every human trial pooled) and response entropy "
        "in bits (humans: the mean of each human's) per condition, with bootstrap intervals over images (and "
        "humans for the human summaries); entropy intervals are basic bootstrap intervals.",
        tables=tables, figures=figures, methods=settings_text(result.settings))
    return SectionResult(section)


def report_analysis(trials, *, settings, exclusions=None):  # noqa: ARG001 - every condition is shown
    """What ``humanlike report`` computes for the psychometric figures: :func:`psychometrics` on every experiment.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    settings : ResamplingSettings
        The report's one settings object.
    exclusions : dict or None
        Unused: model-vs-human's psychometric figures show every condition, the excluded ones too.

    Returns
    -------
    PsychometricResult

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> result = report_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24),
    ...                          settings=ResamplingSettings(n_resamples=0))
    >>> result.experiments()[:2]
    ['sim-blur', 'sim-contrast']
    """
    from .analysis import psychometrics

    return psychometrics(trials, settings=settings, validate=False)
