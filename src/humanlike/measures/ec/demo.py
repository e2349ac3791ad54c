"""Error consistency's part of ``humanlike demo``: the benchmark on the simulated data (tables, figures, JSON)."""

from __future__ import annotations

from pathlib import Path

from ..options import resampling_settings
from .analysis import DEFAULT_SETTINGS
from .cli import format_overall, with_dmc_rows


def demo(trials, args) -> list[Path]:
    """The benchmark on the demo's simulated trials: rows (with DMC beside EC), pairs, ranking and figures.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table (simulated benchmark).
    args : argparse.Namespace
        The parsed ``humanlike demo`` command line, with ``run_outputs`` (files are written through it),
        ``demo_results`` (the benchmark goes in under ``"ec"``, its details under ``"error_consistency"``),
        ``demo_json`` (the benchmark's JSON document, written last as ``benchmark.json``) and ``demo_summary``
        (the text the demo prints).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> import argparse, tempfile
    >>> from pathlib import Path
    >>> from humanlike.files import RunOutputs
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> out = Path(tempfile.mkdtemp())
    >>> args = argparse.Namespace(out=out, format="csv", resamples=0, level=0.95, seed=0, interval="percentile",
    ...                           observer_level="none", memory_budget=2**30, workers=None, quiet=True,
    ...                           run_outputs=RunOutputs(out), demo_results={}, demo_json={}, demo_summary=[])
    >>> trials = simulate_benchmark(seed=0, n_humans=3, n_items=24)
    >>> [p.name for p in demo(trials[trials["experiment"] == "sim-blur"], args)]
    ['benchmark.csv', 'pairs.csv', 'benchmark.png']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .benchmark import run_benchmark
    from .plot import benchmark_figure, ranking_figure

    run = args.run_outputs
    out = Path(args.out)
    result = run_benchmark(trials, exclusions=None,
                           settings=resampling_settings(args, interval=DEFAULT_SETTINGS.interval))
    # Computed once for the whole demo; the other measures' parts read them from here.
    args.demo_results["ec"] = result
    args.demo_results["error_consistency"] = result.details
    result = with_dmc_rows(result, trials, args, exclusions=None)   # the files show DMC beside EC
    files = [run.add_table(result.rows, "benchmark", args.format),
             run.add_table(result.details.pairs, "pairs", args.format),
             run.figure(benchmark_figure(result, "Simulated benchmark: error consistency with humans"),
                        out / "benchmark.png")]
    if result.ranking is not None:
        files += [run.add_table(result.ranking.to_frame(), "ranking", args.format),
                  run.figure(ranking_figure(result.ranking), out / "ranking.png")]
    args.demo_json["benchmark"] = result.to_json_dict()
    args.demo_summary.append(format_overall(result))
    return files
