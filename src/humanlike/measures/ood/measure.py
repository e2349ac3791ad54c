"""The human-centred OOD spectrum registered as a measure (docs/measures/ood-spectrum.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """A small simulated benchmark (4 humans, 48 items) with its reference conditions and small search options.

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
    >>> sorted(simulate(0).options)
    ['n_init', 'n_observer_resamples', 'n_permutations', 'reference', 'regimes']
    """
    from ...trials.simulate import simulate_benchmark
    from .cli import demo_reference

    trials = simulate_benchmark(seed=seed, n_humans=4, n_items=48)
    return Example(trials, {"reference": demo_reference(trials), "n_observer_resamples": 20, "n_permutations": 19,
                            "regimes": 2, "n_init": 2})


def bad_inputs(example: Example) -> list[tuple[str, Example]]:
    """Broken copies of the example: a missing column and a reference naming an unknown experiment.

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
    ['correct', 'no-such-experiment']
    """
    trials = example.data
    reference = {**example.options["reference"], "no-such-experiment": ["0"]}
    return [("correct", Example(trials.drop(columns=["correct"]), example.options)),
            ("no-such-experiment", Example(trials, {**example.options, "reference": reference}))]


MEASURE = Measure(
    name="ood",
    title="OOD spectrum",
    citation=('Xu et al., the human-centred OOD spectrum; Geirhos et al. (2021), Partial success in closing '
              'the gap between human and machine vision, NeurIPS 34 (the data)'),
    summary="Conditions placed by how far human accuracy falls from the reference, grouped into regimes, with "
            "each model's error alignment per regime (Xu et al.)",
    docs="docs/measures/ood-spectrum.md",
    order=40,
    analysis="humanlike.measures.ood.analysis:ood_analysis",
    cli="humanlike.measures.ood.cli:register",
    report_run="humanlike.measures.ood.report:report_analysis",
    report_section="humanlike.measures.ood.report:ood_section",
    demo="humanlike.measures.ood.cli:demo_extras",
    simulate="humanlike.measures.ood.measure:simulate",
    bad_inputs="humanlike.measures.ood.measure:bad_inputs",
    # EC, MA and CLED side by side: the alignment sums use kappa
    depends_on=("humanlike.measures.ec.metric",),
)
