"""Figures for the Psychophysical-Score. Each function returns a matplotlib Figure (io saves it)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .analysis import PsychScoreResult  # noqa: E402
from ..sections import figure_axes  # noqa: E402
from ...trials.streams import generator  # noqa: E402

KIND_COLOUR = {"human": "#d62728", "model": "#1f77b4", "random": "#7f7f7f"}


def psychscore_figure(result: PsychScoreResult, title: str | None = None, ax=None):
    """Left: the distribution of the skewness S over class pairs per observer (the paper's Figure 2:
    one violin per observer, dots = class pairs; the reference first, the random baseline last).
    Right: the Psychophysical-Score of every observer with its bootstrap interval.

    Parameters
    ----------
    result : PsychScoreResult
        From :func:`humanlike.measures.psychscore.analysis.psychophysical_score`.
    title : str, optional
        Figure title (default: a description of the two panels).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (two Axes (skewness, scores)) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes (skewness violins, scores), one row per observer.

    Examples
    --------
    >>> from humanlike.measures.psychscore.analysis import psychophysical_score
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = psychophysical_score(simulate_psychscore_demo(n_classes=3, n_humans=2), settings=ResamplingSettings(n_resamples=20))
    >>> fig = psychscore_figure(result)
    >>> len(fig.axes), fig.axes[1].get_title()
    (2, 'Psychophysical-Score')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    scales = result.scales
    order = list(dict.fromkeys(scales["observer"]))
    kinds = scales.drop_duplicates("observer").set_index("observer")["observer_kind"].to_dict()
    fig, (left, right) = figure_axes(ax, (1, 2), figsize=(11, max(3.2, 0.42 * len(order) + 1.6)),
                                      gridspec_kw={"width_ratios": [3, 2]})
    data = [scales.loc[scales["observer"] == o, "skewness"].to_numpy(float) for o in order]
    finite = [d[np.isfinite(d)] for d in data]
    lim = np.nanpercentile(np.concatenate([d for d in finite if d.size]) if any(d.size for d in finite)
                           else np.zeros(1), [1, 99])
    span = max(abs(lim[0]), abs(lim[1]), 0.1) * 1.15
    y = np.arange(len(order))[::-1]
    for yi, name, d in zip(y, order, finite):
        colour = KIND_COLOUR.get(kinds.get(name, "model"), "#1f77b4")
        shown = np.clip(d, -span, span)
        if shown.size > 1 and np.ptp(shown) > 0:
            try:
                parts = left.violinplot(shown, positions=[yi], orientation="horizontal", widths=0.8,
                                        showextrema=False)
            except TypeError:  # matplotlib < 3.10
                parts = left.violinplot(shown, positions=[yi], vert=False, widths=0.8, showextrema=False)
            for body in parts["bodies"]:
                body.set_facecolor(colour)
                body.set_alpha(0.25)
        jitter = (generator(0).random(shown.size) - 0.5) * 0.3
        left.scatter(shown, yi + jitter, s=6, color=colour, alpha=0.7, lw=0)
        clipped = np.sum(np.abs(d) > span)
        if clipped:
            left.annotate(f"{clipped} beyond", (span, yi), fontsize=6, ha="right", va="bottom", color="0.3")
    left.axvline(0, color="k", lw=0.5)
    left.set_xlim(-span, span)
    left.set_yticks(y, order, fontsize=8)
    left.set_xlabel("skewness S of the class-level scale (S < 0: compressive)", fontsize=8)
    left.set_title("Skewness over class pairs", fontsize=9)
    frame = result.to_wide()
    models = frame[frame["observer"] != result.reference].set_index("observer")
    ym = np.array([y[order.index(o)] for o in models.index])
    est = models["score"].to_numpy(float)
    err = np.vstack([est - models["score_ci_low"].to_numpy(float), models["score_ci_high"].to_numpy(float) - est])
    colours = [KIND_COLOUR.get(kinds.get(o, "model"), "#1f77b4") for o in models.index]
    for yi, e, lo, hi, c in zip(ym, est, err[0], err[1], colours):
        if np.isfinite(e):
            right.errorbar([e], [yi], xerr=[[max(lo, 0) if np.isfinite(lo) else 0], [max(hi, 0) if np.isfinite(hi) else 0]],
                           fmt="o", color=c, capsize=3)
        else:
            right.text(0.02, yi, "undefined", fontsize=7, va="center", color="0.4")
    right.set_yticks(y, order, fontsize=8)
    right.set_xlim(0, 1)
    right.set_ylim(left.get_ylim())
    level = int(round(100 * result.settings.get("level", 0.95)))
    right.set_xlabel(f"Psychophysical-Score |ρ| with {result.reference} ({level}% CI)", fontsize=8)
    right.set_title("Psychophysical-Score", fontsize=9)
    right.grid(True, axis="x", lw=0.3, alpha=0.5)
    fig.suptitle(title or "Perceptual scales of blend sequences: skewness and Psychophysical-Score", fontsize=10)
    fig.tight_layout()
    return fig
