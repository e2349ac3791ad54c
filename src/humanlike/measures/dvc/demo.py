"""Decision-variable correlation's part of ``humanlike demo``: the latent correlation of correctness, for the
demo's report page (no files)."""

from __future__ import annotations


def demo(trials, run) -> list:
    """The latent correlation of correctness on the demo data, for the demo's report page (no files).

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table.
    run : humanlike.measures.contract.DemoRun
        The demo's options; the result goes into ``run.results["dvc"]``.

    Returns
    -------
    list
        No files.

    Examples
    --------
    >>> import types
    >>> from humanlike.measures.contract import DemoRun
    >>> from humanlike.measures.dvc.measure import simulate
    >>> run = DemoRun(types.SimpleNamespace(resamples=0, level=0.95, seed=0, interval="percentile",
    ...                                     observer_level="none", memory_budget=2**30, workers=None, quiet=True),
    ...               outputs=None)
    >>> demo(simulate(0).data, run), type(run.results["dvc"]).__name__
    ([], 'LatentBenchmarkResult')
    """
    from ..options import resampling_settings
    from .choices import latent_correctness_correlation
    from .report import items_only

    run.results["dvc"] = latent_correctness_correlation(trials, settings=items_only(resampling_settings(run.options)))
    return []
