"""The Psychophysical-Score registered as a measure (docs/measures/psychophysical-score.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def analysis(judgements, *, settings=None, **options):
    """:func:`~humanlike.measures.psychscore.analysis.psychophysical_score` with the one settings object
    (resamples, level and seed from ``settings``).

    Parameters
    ----------
    judgements : pandas.DataFrame
        The difference-judgement table.
    settings : ResamplingSettings, optional
        Defaults to ``ResamplingSettings()``.
    **options
        Other keywords of ``psychophysical_score`` (``reference``, ``random_baseline``, ``chunk``, ...).

    Returns
    -------
    PsychScoreResult

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = analysis(simulate(0).data, settings=ResamplingSettings(n_resamples=20, seed=1))
    >>> result.reference, result.to_frame()["measure"].iloc[0]
    ('humans', 'psychscore')
    """
    from ...resampling.settings import ResamplingSettings
    from .analysis import psychophysical_score

    settings = ResamplingSettings() if settings is None else settings
    # Its resampling has no observer level or interval choice: only these settings reach it.
    kept = ResamplingSettings(n_resamples=settings.n_resamples, level=settings.level, seed=settings.seed)
    return psychophysical_score(judgements, settings=kept, **options)


def simulate(seed: int = 0) -> Example:
    """Judgements of 2 simulated people and two model observers on 3 classes.

    Parameters
    ----------
    seed : int
        Seed of the simulation.

    Returns
    -------
    Example
        The data and the options that keep the analysis small.

    Examples
    --------
    >>> sorted(simulate(0).data["observer"].unique())
    ['model-alien', 'model-humanlike', 'subject-01', 'subject-02']
    """
    from .simulate import simulate_psychscore_demo

    return Example(simulate_psychscore_demo(n_classes=3, n_humans=2, seed=seed))


def bad_inputs(example: Example) -> list[tuple[str, Example]]:
    """Broken copies of the example: a missing column and an unknown reference observer.

    Parameters
    ----------
    example : Example
        From :func:`simulate`.

    Returns
    -------
    list of (str, Example)
        What the error must name, and the broken example.

    Examples
    --------
    >>> [what for what, _ in bad_inputs(simulate(0))]
    ['response', 'no-such-observer']
    """
    table = example.data
    return [("response", Example(table.drop(columns=["response"]), example.options)),
            ("no-such-observer", Example(table, {**example.options, "reference": "no-such-observer"}))]


MEASURE = Measure(
    name="psychscore",
    title="Psychophysical-Score",
    citation=('RichardWebster et al. (2023), the Psychophysical-Score; Maloney & Yang (2003), Maximum '
              'likelihood difference scaling, Journal of Vision 3(8)'),
    summary="Skewness of class-level perceptual scales and its |Spearman correlation| with the humans' "
            "(RichardWebster et al.)",
    docs="docs/measures/psychophysical-score.md",
    order=60,
    analysis="humanlike.measures.psychscore.measure:analysis",
    cli="humanlike.measures.psychscore.cli:register",
    report_section="humanlike.measures.psychscore.report:psychscore_section",
    demo="humanlike.measures.psychscore.cli:demo_extras",
    simulate="humanlike.measures.psychscore.measure:simulate",
    bad_inputs="humanlike.measures.psychscore.measure:bad_inputs",
    # the Psychophysical-Score fits MLDS scales and uses the MLDS machine observers
    depends_on=("humanlike.measures.mlds.glm", "humanlike.measures.mlds.observers"),
)
