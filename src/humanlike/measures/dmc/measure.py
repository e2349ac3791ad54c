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
    analysis="humanlike.measures.dmc.analysis:decision_margin_consistency",
    cli="humanlike.measures.dmc.cli:register",
    report_run="humanlike.measures.dmc.report:report_analysis",
    report_section="humanlike.measures.dmc.report:dmc_section",
    demo="humanlike.measures.dmc.cli:demo_extras",
    simulate="humanlike.measures.dmc.measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    # DMC reports EC beside DMC (consistency against accuracy, self-consistency)
    depends_on=("humanlike.measures.ec.metric", "humanlike.measures.ec.analysis"),
)
