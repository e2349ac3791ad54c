"""The comparison figure: models by score with intervals, the human ceiling band, resolved pairs marked.

Read in one look (docs/compare.md): models from best to worst left to right, each with its interval; the human
ceiling as a band; above each model its compact letters (models sharing a letter are not resolved from one
another); below the axis, a bar joins each model to the first model below it that it is resolved from.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ...stats.comparison import ComparisonResult  # noqa: E402
from ..sections import figure_axes  # noqa: E402

MODEL_COLOUR = "#1f77b4"
CEILING_COLOUR = "#d62728"
MEASURE_LABELS = {"error_consistency": "error consistency with humans (kappa)",
                  "decision_margin_consistency": "decision-margin consistency with humans (r)",
                  "tetrachoric_correctness": "latent correlation of correctness with humans",
                  "margin_probit": "latent (probit) correlation with humans",
                  "ood_alignment_ratio": "error-alignment ratio to humans"}


def comparison_figure(comparison: ComparisonResult, title: str | None = None, ax=None):
    """Models ordered by score with intervals, the ceiling band and the compact letter display.

    With a normalised comparison the normalised scores are drawn (the ceiling is then 1).

    Parameters
    ----------
    comparison : ComparisonResult
        From :func:`humanlike.measures.compare.adapters.compare`.
    title : str, optional
        Figure title (default: measure, scope, resamples and correction).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; one point per model.

    Examples
    --------
    >>> from humanlike.measures.compare.adapters import compare
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(simulate_benchmark(seed=0, n_humans=4, n_items=48), settings=ResamplingSettings(n_resamples=100, seed=0))
    >>> fig = comparison_figure(compare(r))
    >>> len(fig.axes), len(fig.axes[0].get_xticklabels())
    (1, 5)
    >>> plt.close("all")
    """
    s = comparison.settings
    scores = comparison.scores
    normalised = s.get("normalise") is not None
    y = scores["normalised" if normalised else "estimate"].to_numpy(dtype=float)
    low = scores["normalised_low" if normalised else "ci_low"].to_numpy(dtype=float)
    high = scores["normalised_high" if normalised else "ci_high"].to_numpy(dtype=float)
    x = np.arange(len(scores))
    fig, ax = figure_axes(ax, figsize=(max(5.0, 0.55 * len(scores) + 2.5), 4.6))
    c = comparison.ceiling
    if normalised:
        ax.axhline(1.0, color=CEILING_COLOUR, lw=1.2, label="human ceiling (= 1)")
    elif np.isfinite(c["estimate"]):
        if np.isfinite(c["ci_low"]) and np.isfinite(c["ci_high"]):
            ax.axhspan(c["ci_low"], c["ci_high"], color=CEILING_COLOUR, alpha=0.18, lw=0)
        ax.axhline(c["estimate"], color=CEILING_COLOUR, lw=1.2,
                   label=f"human ceiling {c['estimate']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}]")
    ax.axhline(c.get("chance", 0.0) if not normalised else 0.0, color="0.6", lw=0.8, ls=":", label="chance")
    # The interval as drawn from its own ends: a percentile interval need not contain its estimate (with an
    # observer-level bootstrap, for instance), which error bars (lengths from the estimate) cannot show.
    shown = np.isfinite(low) & np.isfinite(high)
    ax.vlines(x[shown], low[shown], high[shown], color=MODEL_COLOUR, lw=1.5)
    ax.plot(x, y, "o", color=MODEL_COLOUR, label=f"model ({s['level']:.0%} interval)")
    top = np.nanmax(np.r_[high, y, c["ci_high"] if not normalised else 1.0])
    bottom = np.nanmin(np.r_[low, y, 0.0])
    span = max(top - bottom, 1e-6)
    for k, letters in enumerate(scores["letters"]):
        ax.text(x[k], (high[k] if np.isfinite(high[k]) else y[k]) + 0.03 * span, letters, ha="center",
                va="bottom", fontsize=9, fontweight="bold")
    # below the points: from each model a bar to the first model (by score) it is resolved from
    resolved = comparison.resolved_pairs()
    names = list(scores["model"])
    level_y = bottom - 0.08 * span
    drawn = 0
    for i, a in enumerate(names):
        j = next((j for j in range(i + 1, len(names)) if frozenset((a, names[j])) in resolved), None)
        if j is None:
            continue
        yy = level_y - 0.045 * span * drawn
        ax.plot([x[i], x[j]], [yy, yy], color="0.3", lw=1.2)
        ax.plot([x[i]], [yy], marker="|", color="0.3")
        ax.plot([x[j]], [yy], marker=">", color="0.3", ms=4)
        drawn += 1
    ax.set_ylim(level_y - 0.045 * span * (drawn + 1), top + 0.15 * span)
    ax.set_xticks(x, names, rotation=40, ha="right", fontsize=8)
    measure = MEASURE_LABELS.get(s["measure"], s["measure"])
    ax.set_ylabel(f"{measure}\n{scores['scale'].iloc[0]}" if normalised else measure, fontsize=9)
    n_pairs = int((comparison.comparisons["comparison"] == "pair").sum())
    ax.set_title(title or (f"{s['measure']} ({s['scope']}): {len(resolved)} of "
                           f"{len(names) * (len(names) - 1) // 2} pairs resolved ({s['correction']}, "
                           f"alpha {1 - s['level']:.2g}, {s['n_resamples']} paired resamples)"
                           if n_pairs else s["measure"]), fontsize=9)
    ax.legend(fontsize=7, loc="upper right", frameon=False)
    ax.text(0.0, -0.02, "letters: models sharing a letter are not resolved; bars: model -> first model below it "
            "resolved from it", transform=fig.transFigure, fontsize=7, color="0.35", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig
