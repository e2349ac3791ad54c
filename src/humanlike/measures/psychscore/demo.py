"""The Psychophysical-Score's part of ``humanlike demo``: the score table and the Figure-2 plot."""

from __future__ import annotations

from pathlib import Path


def demo(trials, run) -> list[Path]:  # noqa: ARG001 - the demo's trial table is not used here
    """The Psychophysical-Score on simulated judgements: the score table and the Figure-2 plot.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table (not used: the judgements are simulated here).
    run : humanlike.measures.contract.DemoRun
        The demo's options and files; the result is left in ``run.results["psychscore"]`` for the report page.

    Returns
    -------
    list of pathlib.Path
        The files written into ``run.out``.

    Examples
    --------
    >>> import tempfile, types
    >>> from humanlike.files import RunOutputs
    >>> from humanlike.measures.contract import DemoRun
    >>> out = tempfile.mkdtemp()
    >>> run = DemoRun(types.SimpleNamespace(out=out, resamples=0, level=0.95, seed=0, format="csv", quiet=True),
    ...               outputs=RunOutputs(out))
    >>> [p.name for p in demo(None, run)]
    ['psychscore.csv', 'psychscore.png']
    """
    import matplotlib.pyplot as plt

    from ...resampling.settings import ResamplingSettings
    from .analysis import psychophysical_score
    from .plot import psychscore_figure
    from .simulate import simulate_psychscore_demo

    options = run.options
    result = psychophysical_score(simulate_psychscore_demo(seed=options.seed), settings=ResamplingSettings(
        n_resamples=min(int(options.resamples), 200), level=options.level, seed=options.seed))
    run.results["psychscore"] = result  # the demo report shows it
    fig = psychscore_figure(result, title="Simulated perceptual scales: skewness and Psychophysical-Score")
    try:
        return [run.outputs.add_table(result.to_wide(), "psychscore", run.format),
                run.outputs.figure(fig, run.out / "psychscore.png")]
    finally:
        plt.close(fig)
