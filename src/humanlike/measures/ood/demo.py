"""The OOD spectrum's part of ``humanlike demo``: the per-condition table, the regime ranking and the figure."""

from __future__ import annotations

from pathlib import Path


def demo(trials, run) -> list[Path]:
    """The OOD spectrum of the demo data: the per-condition table, the regime ranking and the figure.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table (simulated benchmark).
    run : humanlike.measures.contract.DemoRun
        The demo's options and files; the result is left in ``run.results["ood"]`` for the report page.

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
    >>> [p.name for p in demo(trials, run)]
    ['ood_conditions.csv', 'ood_regime_ranking.csv', 'ood_spectrum.png']
    """
    import matplotlib.pyplot as plt

    from ...resampling.settings import ResamplingSettings
    from .analysis import ood_analysis
    from .cli import demo_reference
    from .plot import spectrum_figure

    options = run.options
    result = ood_analysis(trials, demo_reference(trials), settings=ResamplingSettings(
        n_resamples=min(int(options.resamples), 1000), level=options.level, seed=options.seed),
        n_observer_resamples=200, n_permutations=999)
    run.results["ood"] = result  # the demo report shows it
    files = run.outputs
    written = [
        files.add_table(result.spectrum.conditions, "ood_conditions", run.format),
        files.add_table(result.alignment.regime_ratios, "ood_regime_ranking", run.format),
    ]
    fig = spectrum_figure(result, title="Simulated benchmark: human-centred OOD spectrum")
    try:
        written.append(files.figure(fig, run.out / "ood_spectrum.png"))
    finally:
        plt.close(fig)
    return written
