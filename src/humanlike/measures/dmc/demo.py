"""Decision-margin consistency's part of ``humanlike demo``: summary table, JSON, ranking figure and the
EC-and-DMC-against-accuracy figure."""

from __future__ import annotations

from pathlib import Path


def demo(trials, run) -> list[Path]:
    """DMC on the demo data: summary table, JSON, ranking figure and the EC-and-DMC-against-accuracy figure.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table (simulated benchmark).
    run : humanlike.measures.contract.DemoRun
        The demo's options and files; the benchmark's DMC and EC results, when the benchmark left them in
        ``run.results``, are reused, not recomputed.

    Returns
    -------
    list of pathlib.Path
        The files written into ``run.out``.

    Examples
    --------
    >>> import tempfile, types
    >>> from humanlike.files import RunOutputs
    >>> from humanlike.measures.contract import DemoRun
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> out = tempfile.mkdtemp()
    >>> run = DemoRun(types.SimpleNamespace(out=out, resamples=0, level=0.95, seed=0, format="csv", quiet=True),
    ...               outputs=RunOutputs(out))
    >>> [p.name for p in demo(trials[trials["experiment"] == "sim-blur"], run)]
    ['dmc.csv', 'dmc.json', 'dmc_ranking.png', 'dmc.png']
    """
    from .analysis import decision_margin_consistency
    from .cli import dmc_cli_settings
    from .consistency_accuracy import consistency_vs_accuracy
    from .plot import consistency_figure, dmc_ranking_figure

    settings = dmc_cli_settings(run.options, beside=True)
    result = run.results.get("dmc")
    if result is None:
        result = decision_margin_consistency(trials, settings=settings)
    # The benchmark's EC result (computed once by the demo) is reused, not recomputed.
    comparison = consistency_vs_accuracy(trials, dmc_result=result, ec_result=run.results.get("error_consistency"),
                                         settings=settings)
    files = run.outputs
    return [
        files.add_table(result.summary_table, "dmc", run.format),
        files.json(result.to_json_dict(), run.out / "dmc.json"),
        files.figure(dmc_ranking_figure(result, title="Simulated benchmark: decision-margin consistency"),
                     run.out / "dmc_ranking.png"),
        files.figure(consistency_figure(comparison, title="Simulated benchmark: EC and DMC with humans, "
                                                          "against accuracy"), run.out / "dmc.png"),
    ]
