"""Figures for MLDS: the difference scale with its bootstrap intervals (like R's ``plot.mlds``)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")  # files, never a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .analysis import MldsResults  # noqa: E402
from ..sections import figure_axes  # noqa: E402


def mlds_scale_figure(results: MldsResults, *, standard: bool = True, ncols: int | None = None,
                      title: str | None = None, ax=None):
    """One panel per (observer, scale): the estimated scale against the physical stimulus, with the
    percentile interval of every level where a bootstrap was run.

    Parameters
    ----------
    results : MldsResults
        From :func:`humanlike.measures.mlds.analysis.analyse_mlds`; intervals are drawn where ``bootstrap`` > 0.
    standard : bool
        Plot the standard scale (0 .. 1) rather than psi / sigma.
    ncols : int, optional
        Panels per row (default: up to 3).
    title : str, optional
        Figure title (default: none).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (rows x columns Axes, one per scale) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per (observer, scale) with a fit.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.analysis import analyse_mlds
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
    >>> fig = mlds_scale_figure(analyse_mlds(table, settings=ResamplingSettings(n_resamples=50, seed=1)))
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (1, 'difference scale (standard)')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    n = max(len(results), 1)
    ncols = ncols or min(n, 3)
    nrows = math.ceil(n / ncols)
    fig, axes = figure_axes(ax, (nrows, ncols), figsize=(4.2 * ncols, 3.6 * nrows), squeeze=False)
    for ax, result in zip(axes.ravel(), results):
        x = result.fit.stimulus
        y = result.fit.standard_scale if standard else result.fit.scale
        label = f"{result.observer}" + ("" if result.scale_id == "scale" else f" / {result.scale_id}")
        if result.fit.status == "separated":
            ax.text(0.5, 0.5, "separated:\nno finite scale", ha="center", va="center", transform=ax.transAxes)
        else:
            ax.plot(x, y, "o-", color="#1f77b4", label=f"{result.fit.method} ({result.fit.link})")
            intervals = result.intervals()
            if intervals:
                low, high = intervals["standard_scale" if standard else "scale"]
                ax.errorbar(x, y, yerr=[np.clip(y - low, 0, None), np.clip(high - y, 0, None)], fmt="none",
                            ecolor="#1f77b4", capsize=3, alpha=0.8, label=f"{result.level:.0%} bootstrap interval")
            sigma = f"sigma = {result.fit.sigma:.3g}" if np.isfinite(result.fit.sigma) else ""
            ax.text(0.03, 0.95, sigma, transform=ax.transAxes, va="top", fontsize=8)
            ax.legend(fontsize=7, loc="lower right")
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("stimulus")
        ax.set_ylabel("difference scale" + (" (standard)" if standard else " (psi / sigma)"))
    for ax in axes.ravel()[len(results):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
