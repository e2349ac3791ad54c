"""Decision-margin consistency registered as a measure (docs/measures/decision-margin-consistency.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """A small simulated benchmark with decision margins (4 humans, 2 experiments, 48 items).

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
    >>> "decision_margin" in simulate(0).data
    True
    """
    from ...trials.simulate import simulate_benchmark

    trials = simulate_benchmark(seed=seed, n_humans=4, n_items=48)
    return Example(trials, {"experiments": ["sim-blur", "sim-noise"]})


MEASURE = Measure(
    name="dmc",
    title="Decision-margin consistency",
    citation='Alvarez & Konkle (2024), decision-margin consistency',
    summary="Correlation over items between a model's decision margin and the humans' item accuracy "
            "(Alvarez & Konkle)",
    docs="docs/measures/decision-margin-consistency.md",
    order=20,
    analysis=".analysis:decision_margin_consistency",
    cli=".cli:register",
    report_run=".report:report_analysis",
    report_section=".report:dmc_section",
    demo=".demo:demo",
    simulate=".measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    # DMC reports EC beside DMC (consistency against accuracy, self-consistency)
    depends_on=("humanlike.measures.ec.analysis",),
    api_intro='Decision-margin consistency: margins, the kernel and pipeline, planning, command and figures.',
)
