"""Decision-variable correlation registered as a measure (docs/measures/decision-variable-correlation.md).

The registered analysis is the latent (tetrachoric) correlation of correctness on a trial table, the one the
report and the demo show; DVC of representations and of two-category choices have commands of their own.
Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """A small simulated benchmark (3 humans, 2 experiments, 40 items).

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
    ['experiments']
    """
    from ...trials.simulate import simulate_benchmark

    trials = simulate_benchmark(seed=seed, n_humans=3, n_items=40)
    return Example(trials, {"experiments": ["sim-blur", "sim-noise"]})


MEASURE = Measure(
    name="dvc",
    title="Decision-variable correlation",
    citation=('Sebastian & Geisler (2018), Decision-variable correlation, Journal of Vision 18(4); Qian, '
              'Geisler & Wei (2025), decision-variable correlation of representations'),
    summary="Correlation of the latent decision variables behind two observers' choices (Sebastian & Geisler; "
            "Qian, Geisler & Wei)",
    docs="docs/measures/decision-variable-correlation.md",
    order=30,
    analysis=".choices:latent_correctness_correlation",
    cli=".cli:register",
    report_run=".report:report_analysis",
    report_section=".report:latent_section",
    demo=".demo:demo",
    simulate=".measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    api_intro='Decision-variable correlation of representations and of choices, command and figures.',
)
