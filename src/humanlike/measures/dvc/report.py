"""Decision-variable correlation on the report page: the latent correlation of correctness."""

from __future__ import annotations

from ..sections import (
    HUMAN_ROW, HeadlineMeasure, ReportFigure, ReportSection, ReportTable, SectionResult, settings_text,
)


def latent_section(result) -> SectionResult:
    """The tetrachoric (latent) correlation of correctness as a report section.

    Parameters
    ----------
    result : LatentBenchmarkResult
        From :func:`humanlike.measures.dvc.choices.latent_correctness_correlation`.

    Returns
    -------
    SectionResult
        Table ``latent-overall``, the per-model figure and the headline measure ``latent r``.

    Examples
    --------
    >>> from humanlike.measures.dvc.choices import latent_correctness_correlation
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> result = latent_correctness_correlation(trials, experiments=["sim-blur"],
    ...                                         settings=ResamplingSettings(n_resamples=20))
    >>> made = latent_section(result)
    >>> made.section.key, made.headline[0].name
    ('latent-correlation', 'latent r')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import benchmark_latent_figure

    groups = result.groups("overall")
    shown = groups[["group", "kind", "estimate", "ci_low", "ci_high", "undefined_share", "reason"]].rename(
        columns={"group": "observer"})
    section = ReportSection(
        "latent-correlation", "Decision-variable correlation of correctness",
        "The correlation of the latent decision variables behind two observers' correct/incorrect outcomes "
        "(the tetrachoric analogue of error consistency, Sebastian & Geisler), per condition, aggregated like the "
        "benchmark. Unlike kappa it is not capped by differences in accuracy.",
        tables=[ReportTable("latent-overall", "Latent correlation of correctness, overall", shown)],
        figures=[ReportFigure("latent-models", "Latent correlation with humans", benchmark_latent_figure(result),
                              alt="Model–human latent correlation of correctness per model, with the human–human "
                                  "band.")],
        methods=settings_text(result.values.settings))
    values = groups[(groups["kind"] == "model-human") | (groups["group"] == HUMAN_ROW)]
    values = values[["group", "estimate", "ci_low", "ci_high"]].rename(columns={"group": "observer"})
    return SectionResult(section, [HeadlineMeasure("latent r", values)])


def report_analysis(trials, *, settings, exclusions=None):
    """What ``humanlike report`` computes for decision-variable correlation: the latent (tetrachoric)
    correlation of correctness, aggregated as the benchmark aggregates EC.

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
    LatentBenchmarkResult

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> result = report_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24),
    ...                          settings=ResamplingSettings(n_resamples=0))
    >>> result.metric
    'tetrachoric_correctness'
    """
    from .choices import latent_correctness_correlation

    return latent_correctness_correlation(trials, exclusions=exclusions, settings=items_only(settings))


def items_only(settings):
    """``settings`` with observer level ``"none"``: the latent correlation resamples items only, and the report
    and the demo hand one settings object to every measure (an ``--observer-level bootstrap`` meant for EC must
    not make the latent correlation fail).

    Parameters
    ----------
    settings : ResamplingSettings
        The run's settings.

    Returns
    -------
    ResamplingSettings

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> items_only(ResamplingSettings(observer_level="bootstrap")).observer_level
    'none'
    """
    from dataclasses import replace

    return settings if settings.observer_level == "none" else replace(settings, observer_level="none")
