"""The benchmark's part of ``humanlike demo``: EC, OOD accuracy, the ranking and DMC beside EC on the simulated
data (tables, figures, JSON)."""

from __future__ import annotations

from pathlib import Path

from ..ec.analysis import DEFAULT_SETTINGS
from ..options import resampling_settings
from ..ec.cli import format_overall
from .cli import with_dmc_rows


def demo(trials, run) -> list[Path]:
    """The benchmark on the demo's simulated trials: rows (with DMC beside EC), pairs, ranking and figures.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table (simulated benchmark).
    run : humanlike.measures.contract.DemoRun
        The demo's options and files (written through ``run.outputs``); the benchmark goes into ``run.results``
        under ``"ec"`` (its details under ``"error_consistency"``, the DMC beside it under ``"dmc"``), its JSON
        document into ``run.documents`` (written last as ``benchmark.json``) and its table into ``run.summary``
        (the text the demo prints).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> import tempfile, types
    >>> from humanlike.files import RunOutputs
    >>> from humanlike.measures.contract import DemoRun
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> out = tempfile.mkdtemp()
    >>> run = DemoRun(types.SimpleNamespace(out=out, format="csv", resamples=0, level=0.95, seed=0,
    ...                                     interval="percentile", observer_level="none", memory_budget=2**30,
    ...                                     workers=None, quiet=True), outputs=RunOutputs(out))
    >>> trials = simulate_benchmark(seed=0, n_humans=3, n_items=24)
    >>> [p.name for p in demo(trials[trials["experiment"] == "sim-blur"], run)]
    ['benchmark.csv', 'pairs.csv', 'benchmark.png']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..ec.benchmark import run_benchmark
    from ..ec.plot import benchmark_figure, ranking_figure

    options, files = run.options, run.outputs
    result = run_benchmark(trials, exclusions=None,
                           settings=resampling_settings(options, interval=DEFAULT_SETTINGS.interval))
    # Computed once for the whole demo; the other measures' parts read them from here.
    run.results["ec"] = result
    run.results["error_consistency"] = result.details
    result = with_dmc_rows(result, trials, options, exclusions=None, shared=run.results)   # DMC beside EC
    written = [files.add_table(result.rows, "benchmark", run.format),
               files.add_table(result.details.pairs, "pairs", run.format),
               files.figure(benchmark_figure(result, "Simulated benchmark: error consistency with humans"),
                            run.out / "benchmark.png")]
    if result.ranking is not None:
        written += [files.add_table(result.ranking.to_frame(), "ranking", run.format),
                    files.figure(ranking_figure(result.ranking), run.out / "ranking.png")]
    run.documents["benchmark"] = result.to_json_dict()
    run.summary.append(format_overall(result))
    return written
