"""The shape-bias figure: fraction of shape decisions per shape class, models and humans, with intervals.

model-vs-human's figure (Geirhos et al. 2021, after Geirhos et al. 2019) draws one row per shape class
(icons; here the class names), the fraction of 'shape' decisions on the top axis and of 'texture' decisions
on the bottom one (the same axis read from either end), a marker per observer and class, and a vertical line at each observer's overall shape
bias. Here every marker of the pooled humans also carries its bootstrap interval, and the classes are
ordered by the humans' shape bias as there. See docs/measures/model-vs-human-report.md.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window: the CLI runs on headless machines

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .analysis import HUMAN_MEAN, HUMANS_POOLED, OVERALL, ShapeBiasResult  # noqa: E402
from ..sections import figure_axes  # noqa: E402

HUMAN_COLOUR = "#d62728"
MARKERS = "osD^v<>phX*P"


def shape_bias_figure(result: ShapeBiasResult, observers: list[str] | None = None, ax=None):
    """Shape vs texture decisions per shape class: the pooled humans (with intervals) and each model.

    Parameters
    ----------
    result : ShapeBiasResult
        From :func:`humanlike.measures.shapebias.analysis.shape_bias_analysis`.
    observers : list of str, optional
        Which observers to draw (default: the pooled humans and every model; single humans are left out,
        as in model-vs-human's figure).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axis: x = fraction of shape decisions (top) / texture decisions (bottom), y = shape classes.

    Examples
    --------
    >>> from humanlike.measures.shapebias.simulate import simulate_cue_conflict
    >>> from humanlike.measures.shapebias.analysis import shape_bias_analysis
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = shape_bias_analysis(simulate_cue_conflict(seed=0), settings=ResamplingSettings(n_resamples=50))
    >>> fig = shape_bias_figure(r)
    >>> len(fig.axes[0].get_yticklabels())      # the 16 shape classes
    16
    >>> plt.close("all")
    """
    frame = result.observer_frame()
    frame = frame[frame["metric"] == "shape_bias"]
    if observers is None:
        observers = [HUMANS_POOLED] + sorted(o for o, k in result.kinds.items()
                                             if k == "model" and o in set(frame["observer"]))
    classes = [c for c in result.settings["classes"]]
    humans = frame[(frame["observer"] == HUMANS_POOLED)].set_index("scope")
    if not humans.empty:   # order the classes by the humans' shape bias, as model-vs-human does
        classes = sorted(classes, key=lambda c: -np.nan_to_num(humans["estimate"].get(c, np.nan), nan=-1))
    y = {c: k for k, c in enumerate(classes)}

    fig, ax = figure_axes(ax, figsize=(8, 0.42 * len(classes) + 2.2))
    cmap = plt.get_cmap("tab10")
    for k, name in enumerate(observers):
        rows = frame[frame["observer"] == name].set_index("scope")
        if rows.empty:
            raise ValueError(f"no observer {name!r} in the shape-bias result")
        colour = HUMAN_COLOUR if name in (HUMANS_POOLED, HUMAN_MEAN) else cmap(k % 10)
        marker = "o" if name in (HUMANS_POOLED, HUMAN_MEAN) else MARKERS[(k + 1) % len(MARKERS)]
        # drawn on model-vs-human's axis: x = fraction of texture decisions = 1 - shape bias
        est = 1 - np.array([rows["estimate"].get(c, np.nan) for c in classes])
        ys = np.array([y[c] for c in classes])
        if name == HUMANS_POOLED:
            low = 1 - np.array([rows["ci_high"].get(c, np.nan) for c in classes])
            high = 1 - np.array([rows["ci_low"].get(c, np.nan) for c in classes])
            ax.errorbar(est, ys, xerr=[np.clip(est - low, 0, None), np.clip(high - est, 0, None)], fmt="none",
                        ecolor=colour, elinewidth=1.2, capsize=2, zorder=2)
        overall = rows["estimate"].get(OVERALL, np.nan)
        ax.scatter(est, ys, color=colour, marker=marker, s=55, zorder=3, edgecolors="0.3", linewidths=0.3,
                   label=f"{name} ({overall:.2f})")
        if np.isfinite(overall):
            ax.axvline(1 - overall, color=colour, linewidth=1, alpha=0.7, zorder=1)
    for k in range(len(classes) - 1):
        ax.axhline(k + 0.5, color="0.85", linestyle=":", linewidth=0.8, zorder=0)
    ax.set_yticks(range(len(classes)), classes)
    ax.set_ylim(len(classes) - 0.5, -0.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of 'texture' decisions")
    top = ax.secondary_xaxis("top", functions=(lambda x: 1 - x, lambda x: 1 - x))
    top.set_xlabel("fraction of 'shape' decisions")
    ax.set_xticks(np.round(np.linspace(0, 1, 11), 1))
    top.set_xticks(np.round(np.linspace(0, 1, 11), 1))
    ax.set_ylabel("shape class")
    level = int(round(100 * result.settings.get("level", 0.95)))
    ax.set_title(f"Shape bias on cue-conflict images (humans: {level}% bootstrap interval)", fontsize=10)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), title="observer (overall)",
              title_fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
