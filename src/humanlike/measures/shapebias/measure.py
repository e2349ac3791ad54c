"""Shape bias on cue-conflict images registered as a measure (docs/measures/model-vs-human-report.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """Simulated cue-conflict trials (5 humans and 2 models, 16 shape classes) for the common test.

    Parameters
    ----------
    seed : int
        Seed of the simulation.

    Returns
    -------
    Example
        The data (no options: the analysis reads the ``cue-conflict`` experiment).

    Examples
    --------
    >>> example = simulate(0)
    >>> sorted(example.data["experiment"].unique()), example.options
    (['cue-conflict'], {})
    """
    from .simulate import simulate_cue_conflict

    return Example(simulate_cue_conflict(seed=seed, n_images_per_class=6))


def bad_inputs(example: Example) -> list[tuple[str, Example]]:
    """Broken copies of the cue-conflict example: a missing ``response`` column and an unknown experiment.

    Parameters
    ----------
    example : Example
        From :func:`simulate`.

    Returns
    -------
    list of (str, Example)
        ``("response", the table without its response column)`` and ``("no-such-experiment", ...)``.

    Examples
    --------
    >>> [what for what, _ in bad_inputs(simulate(0))]
    ['response', 'no-such-experiment']
    """
    trials = example.data
    return [("response", Example(trials.drop(columns=["response"]), example.options)),
            ("no-such-experiment", Example(trials, {**example.options, "experiment": "no-such-experiment"}))]


MEASURE = Measure(
    name="shapebias",
    title="Shape bias",
    citation=('Geirhos et al. (2019), ImageNet-trained CNNs are biased towards texture; increasing shape bias '
              'improves accuracy and robustness, ICLR; Geirhos et al. (2021), Partial success in closing the '
              'gap between human and machine vision, NeurIPS 34'),
    summary="Shape decisions over shape + texture decisions on cue-conflict images (Geirhos et al. 2019)",
    docs="docs/measures/model-vs-human-report.md",
    order=70,
    analysis="humanlike.measures.shapebias.analysis:shape_bias_analysis",
    cli="humanlike.measures.shapebias.cli:register",
    report_run="humanlike.measures.shapebias.report:report_analysis",
    report_section="humanlike.measures.shapebias.report:shape_bias_section",
    simulate="humanlike.measures.shapebias.measure:simulate",
    bad_inputs="humanlike.measures.shapebias.measure:bad_inputs",
)
