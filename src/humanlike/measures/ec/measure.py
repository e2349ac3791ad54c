"""Error consistency registered as a measure (docs/measures/error-consistency.md, docs/adding-a-measure.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """A small simulated benchmark (3 humans and the 5 simulated models, 40 items) for the common test.

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
    >>> example = simulate(0)
    >>> sorted(example.options), int(example.data["observer"].nunique())
    (['experiments'], 8)
    """
    from ...trials.simulate import simulate_benchmark

    trials = simulate_benchmark(seed=seed, n_humans=3, n_items=40)
    return Example(trials, {"experiments": ["sim-blur", "sim-noise"]})


MEASURE = Measure(
    name="ec",
    title="Error consistency",
    citation=('Geirhos, Meding & Wichmann (2020), Beyond accuracy: quantifying trial-by-trial behaviour of '
              'CNNs and humans by measuring error consistency, NeurIPS 33; Klein, Meyen, Brendel, Wichmann & '
              'Meding (2025), Quantifying uncertainty in error consistency: towards reliable behavioral '
              'comparison of classifiers, arXiv:2507.06645'),
    summary="Cohen's kappa of trial-by-trial correctness between two observers, beyond chance (Geirhos et al.)",
    docs="docs/measures/error-consistency.md",
    order=10,
    analysis="humanlike.measures.ec.analysis:error_consistency",
    cli="humanlike.measures.ec.cli:register",
    report_run="humanlike.measures.ec.report:report_analysis",
    report_section="humanlike.measures.ec.report:ec_section",
    demo="humanlike.measures.ec.demo:demo",
    simulate="humanlike.measures.ec.measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    # the benchmark rows gain DMC beside EC, and its demo shares the DMC result with the DMC part of the demo
    depends_on=("humanlike.measures.dmc.analysis",),
    # the percentile interval under-covers EC averaged over conditions and observers (0.69 at worst); the
    # studentized jackknife holds 0.93 (docs/measures/error-consistency.md): analysis.DEFAULT_SETTINGS
    interval="jackknife-t",
)
