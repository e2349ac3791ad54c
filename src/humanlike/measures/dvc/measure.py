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


def demo(trials, args) -> list:
    """The latent correlation of correctness on the demo data, for the demo's report page (no files).

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table.
    args : argparse.Namespace
        The parsed ``humanlike demo`` command line; the result goes into ``args.demo_results["dvc"]``.

    Returns
    -------
    list
        No files.

    Examples
    --------
    >>> import argparse
    >>> args = argparse.Namespace(demo_results={}, resamples=0, level=0.95, seed=0, interval="percentile",
    ...                           observer_level="none", memory_budget=2**30, workers=None, quiet=True)
    >>> demo(simulate(0).data, args), type(args.demo_results["dvc"]).__name__
    ([], 'LatentBenchmarkResult')
    """
    from ..options import resampling_settings
    from .choices import latent_correctness_correlation
    from .report import items_only

    args.demo_results["dvc"] = latent_correctness_correlation(trials, settings=items_only(resampling_settings(args)))
    return []


MEASURE = Measure(
    name="dvc",
    title="Decision-variable correlation",
    citation=('Sebastian & Geisler (2018), Decision-variable correlation, Journal of Vision 18(4); Qian, '
              'Geisler & Wei (2025), decision-variable correlation of representations'),
    summary="Correlation of the latent decision variables behind two observers' choices (Sebastian & Geisler; "
            "Qian, Geisler & Wei)",
    docs="docs/measures/decision-variable-correlation.md",
    order=30,
    analysis="humanlike.measures.dvc.choices:latent_correctness_correlation",
    cli="humanlike.measures.dvc.cli:register",
    report_run="humanlike.measures.dvc.report:report_analysis",
    report_section="humanlike.measures.dvc.report:latent_section",
    demo="humanlike.measures.dvc.measure:demo",
    simulate="humanlike.measures.dvc.measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    # DVC of representations reports kappa of the cross-validated choices
    depends_on=("humanlike.measures.ec.correctness_sums", "humanlike.measures.ec.kappa_bounds"),
)
