"""The psychometric functions of one experiment: data points and fitted curves, humans and models side by side."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window: the CLI runs on headless machines

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .analysis import HUMANS, PsychometricFitResult  # noqa: E402

HUMAN_COLOUR = "#d62728"
MARKERS = "osD^v<>phX*P"


def psychometric_fit_figure(result: PsychometricFitResult, experiment: str, *, ax=None, observers=None):
    """Proportion correct per level (points) and the fitted functions (lines) of one experiment.

    The pooled humans are drawn thick in red with their threshold's interval as a horizontal bar at the
    performance level; each model is a thin line in its own colour with its threshold marked.

    Parameters
    ----------
    result : PsychometricFitResult
        From :func:`humanlike.measures.psychfit.analysis.psychometric_fits`.
    experiment : str
        The experiment drawn.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (default: a new figure's).
    observers : list of str, optional
        Only these observers (default: ``humans`` and every model).

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the axes drawn into (the caller's, where ``ax`` is given).

    Raises
    ------
    KeyError
        For an experiment the result does not hold.

    Examples
    --------
    >>> from humanlike.measures.psychfit.analysis import psychometric_fits
    >>> from humanlike.measures.psychfit.simulate import simulate_psychometric
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = psychometric_fits(simulate_psychometric(seed=0), settings=ResamplingSettings(n_resamples=50))
    >>> fig, mine = plt.subplots()
    >>> psychometric_fit_figure(r, "sim-contrast", ax=mine) is fig, mine.get_xscale()
    (True, 'log')
    >>> plt.close("all")
    """
    if experiment not in result.experiments():
        raise KeyError(f"no experiment {experiment!r}; experiments: {result.experiments()}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    fitted = result.parameters[result.parameters["experiment"] == experiment]
    if observers is None:
        observers = [o for o in fitted["observer"] if o == HUMANS or result.kinds.get(o) != "human"]
    table = result.table(experiment).set_index("observer")
    counts = result.counts[result.counts["experiment"] == experiment]
    level = result.settings["performance"]
    cmap = plt.get_cmap("tab10")
    models = [o for o in observers if o != HUMANS]
    for observer in observers:
        human = observer == HUMANS
        colour = HUMAN_COLOUR if human else cmap(models.index(observer) % 10)
        marker = "o" if human else MARKERS[models.index(observer) % len(MARKERS)]
        points = counts[counts["observer"] == observer]
        curve = result.curve(experiment, observer)
        ax.plot(points["level"], points["correct"] / points["trials"], linestyle="none", marker=marker,
                color=colour, markersize=6 if human else 4, alpha=0.9)
        ax.plot(curve["level"], curve["p"], color=colour, linewidth=2.5 if human else 1.1, label=observer)
        row = table.loc[observer]
        if result.settings["level_of"] == "accuracy" and np.isfinite(row["threshold"]):
            ax.plot([row["threshold"]], [level], marker="|", color=colour, markersize=12)
            if human and np.isfinite(row["threshold_low"]):
                ax.plot([row["threshold_low"], row["threshold_high"]], [level, level], color=colour, linewidth=4,
                        alpha=0.5, solid_capstyle="butt")
    guess = float(fitted["guess"].iloc[0])
    ax.axhline(guess, color="grey", linestyle=":", linewidth=1)
    if result.settings["level_of"] == "accuracy":
        ax.axhline(level, color="grey", linestyle="--", linewidth=0.8)
    if str(fitted["space"].iloc[0]) == "log":
        ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"{experiment}: stimulus level")
    ax.set_ylabel("proportion correct")
    ci = int(round(100 * result.resampled.level))
    ax.set_title(f"{experiment}: fitted {result.settings['sigmoid']} functions (bar: humans' threshold, {ci}% "
                 "interval)", fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=7, frameon=False, loc="best")
    return ax.figure
