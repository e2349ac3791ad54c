"""The human-centred OOD spectrum on the report page: its section and what the report computes for it."""

from __future__ import annotations

from ..sections import ReportFigure, ReportSection, ReportTable, SectionResult, settings_text


def ood_section(result) -> SectionResult:
    """The OOD spectrum and error alignment per regime as a report section.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Returns
    -------
    SectionResult
        Tables ``ood-conditions`` and ``ood-regimes`` and the spectrum figure; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> [t.key for t in ood_section(result).section.tables]
    ['ood-conditions', 'ood-regimes']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import spectrum_figure

    conditions = result.spectrum.conditions
    section = ReportSection(
        "ood-spectrum", "A human-centred OOD spectrum",
        "Every condition scored by how far human accuracy falls from the reference conditions (Glass's delta on "
        "logit accuracy), grouped into regimes by a Gaussian mixture, and each model's error alignment with humans "
        "(error consistency and misclassification agreement, relative to human–human) per regime (Xu et al.).",
        tables=[ReportTable("ood-conditions", "Conditions on the spectrum", conditions),
                ReportTable("ood-regimes", "Alignment with humans per regime", result.alignment.regime_ratios)],
        figures=[ReportFigure("ood-spectrum", "The OOD spectrum", spectrum_figure(result),
                              alt="Conditions placed on the human-centred OOD spectrum, coloured by regime, with "
                                  "models' alignment per regime.")],
        methods=settings_text(getattr(result, "settings", {}) or {}))
    return SectionResult(section)


def report_analysis(trials, *, settings, exclusions=None):  # noqa: ARG001 - the spectrum uses every condition
    """What ``humanlike report`` computes for the OOD spectrum: :func:`ood_analysis` with its default
    (model-vs-human) reference conditions and the report's settings, unchanged.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    settings : ResamplingSettings
        The report's one settings object (a memory budget too small for the spectrum's kept replicates is an
        error that the report shows in the section, never a silent rerun with another budget).
    exclusions : dict or None
        Not used: the spectrum places every condition.

    Returns
    -------
    OODResult

    Examples
    --------
    Simulated data have none of the model-vs-human reference conditions: the report shows why in the section.

    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> try:
    ...     report_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24),
    ...                     settings=ResamplingSettings(n_resamples=0))
    ... except ValueError as err:
    ...     print(type(err).__name__)
    TrialTableError
    """
    from .analysis import ood_analysis

    return ood_analysis(trials, None, settings=settings)
