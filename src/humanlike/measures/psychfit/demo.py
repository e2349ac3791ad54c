"""The psychometric fits' part of ``humanlike demo``: the tidy table, the resolved thresholds and one figure."""

from __future__ import annotations

from pathlib import Path


def demo(trials, run) -> list[Path]:
    """The psychometric fits of the demo data: the tidy table, the resolved thresholds and one figure.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table (simulated benchmark).
    run : humanlike.measures.contract.DemoRun
        The demo's options and files; the result is left in ``run.results["psychfit"]`` for the report page.

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
    >>> out = tempfile.mkdtemp()
    >>> run = DemoRun(types.SimpleNamespace(out=out, resamples=0, level=0.95, seed=0, format="csv", quiet=True),
    ...               outputs=RunOutputs(out))
    >>> [p.name for p in demo(simulate_benchmark(seed=0, n_humans=3, n_items=24), run)]
    ['psychfit.csv', 'psychfit_resolved.csv', 'psychfit-sim-contrast.png']
    """
    import matplotlib.pyplot as plt

    from ...resampling.settings import ResamplingSettings
    from .plot import psychometric_fit_figure
    from .report import report_analysis

    options = run.options
    # every resample is a refit of every observer: 1,000 keep the demo quick and the intervals stable
    settings = ResamplingSettings(n_resamples=min(int(options.resamples), 1000), level=options.level,
                                  seed=options.seed, observer_level="bootstrap")
    result = report_analysis(trials, settings=settings)
    run.results["psychfit"] = result  # the demo report shows it
    experiment = "sim-contrast" if "sim-contrast" in result.experiments() else result.experiments()[0]
    figure = psychometric_fit_figure(result, experiment)
    try:
        return [run.outputs.add_table(result.to_frame(), "psychfit", run.format),
                run.outputs.add_table(result.resolved(), "psychfit_resolved", run.format),
                run.outputs.figure(figure, run.out / f"psychfit-{experiment}.png")]
    finally:
        plt.close(figure)
