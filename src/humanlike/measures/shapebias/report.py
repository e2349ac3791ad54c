"""Shape bias on the report page: its section and what the report computes for it (only where the data hold
the cue-conflict experiment)."""

from __future__ import annotations

from ..sections import (
    HUMAN_ROW, HeadlineMeasure, NotApplicable, ReportFigure, ReportSection, ReportTable, SectionResult, settings_text,
)


def shape_bias_section(result) -> SectionResult:
    """Shape bias on cue-conflict images as a report section, with model-vs-human's figure.

    Parameters
    ----------
    result : ShapeBiasResult
        From :func:`humanlike.measures.shapebias.analysis.shape_bias_analysis`.

    Returns
    -------
    SectionResult
        Tables ``shape-bias`` (overall) and ``shape-bias-classes`` (per class), the figure, and the headline
        measure ``shape bias`` (the pooled humans as the ``humans`` row).

    Examples
    --------
    >>> from humanlike.measures.shapebias.analysis import shape_bias_analysis
    >>> from humanlike.measures.shapebias.simulate import simulate_cue_conflict
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> made = shape_bias_section(shape_bias_analysis(simulate_cue_conflict(seed=0),
    ...                                               settings=ResamplingSettings(n_resamples=50)))
    >>> [t.key for t in made.section.tables], made.headline[0].name
    (['shape-bias', 'shape-bias-classes'], 'shape bias')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import shape_bias_figure

    overall = result.overall()
    per_class = result.per_class().reset_index()
    rng = result.human_range().set_index("scope")
    summary = ("Shape bias on cue-conflict images (Geirhos et al. 2019, model-vs-human's definition): shape "
               "decisions / (shape + texture decisions) over trials whose shape and texture classes differ.")
    if "overall" in rng.index:
        r = rng.loc["overall"]
        summary += (f" Single humans range from {r['min']:.3f} to {r['max']:.3f}; 'humans' pools every human trial, "
                    "'human mean' averages each human's value.")
    section = ReportSection(
        "shape-bias", "Shape bias (cue conflict)", summary,
        tables=[ReportTable("shape-bias", "Shape bias, overall", overall),
                ReportTable("shape-bias-classes", "Shape bias per shape class (estimates)", per_class)],
        figures=[ReportFigure("shape-bias", "Shape vs texture decisions per class", shape_bias_figure(result),
                              alt="Per shape class, the fraction of texture (bottom axis) and shape (top axis) "
                                  "decisions of the pooled humans with intervals and of each model.")],
        methods=settings_text(result.settings))
    values = overall.rename(columns={"shape_bias": "estimate"})[["observer", "estimate", "ci_low", "ci_high"]]
    keep = (overall["observer_kind"] == "model") | (overall["observer"] == HUMAN_ROW)
    return SectionResult(section, [HeadlineMeasure("shape bias", values[keep.to_numpy()])])


def report_analysis(trials, *, settings, exclusions=None):  # noqa: ARG001 - one experiment, no condition to drop
    """What ``humanlike report`` computes for the shape bias: :func:`shape_bias_analysis` on the cue-conflict trials.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    settings : ResamplingSettings
        The report's one settings object.
    exclusions : dict or None
        Unused: the cue-conflict experiment has one condition, which the benchmark's exclusions keep.

    Returns
    -------
    ShapeBiasResult

    Raises
    ------
    NotApplicable
        When the data hold no cue-conflict trials (the report notes it and goes on).

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> report_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24), settings=ResamplingSettings())
    Traceback (most recent call last):
    ...
    humanlike.measures.sections.NotApplicable: the data hold no 'cue-conflict' experiment
    """
    from .analysis import CUE_CONFLICT, shape_bias_analysis

    if not (trials["experiment"] == CUE_CONFLICT).any():
        raise NotApplicable(f"the data hold no '{CUE_CONFLICT}' experiment")
    return shape_bias_analysis(trials, settings=settings, validate=False)
