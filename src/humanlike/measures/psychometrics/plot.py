"""The psychometric figure of one experiment: accuracy and response entropy against the condition.

model-vs-human draws, per experiment, accuracy and entropy against the distortion level, humans as one line
and each model as another. Here the humans' line carries its bootstrap interval (a band) and the range of
single humans (a lighter band). See docs/measures/model-vs-human-report.md.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window: the CLI runs on headless machines

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .analysis import HUMANS, PsychometricResult, condition_order  # noqa: E402
from ..sections import figure_axes  # noqa: E402

HUMAN_COLOUR = "#d62728"
MARKERS = "osD^v<>phX*P"


def psychometric_figure(result: PsychometricResult, experiment: str, ax=None):
    """Accuracy (left) and entropy in bits (right) per condition of one experiment, humans and each model.

    Parameters
    ----------
    result : PsychometricResult
        From :func:`humanlike.measures.psychometrics.analysis.psychometrics`.
    experiment : str
        The experiment drawn.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (two Axes: accuracy, entropy) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes; x = the conditions in their natural order.

    Raises
    ------
    KeyError
        For an experiment the result does not hold.

    Examples
    --------
    >>> from humanlike.measures.psychometrics.analysis import psychometrics
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = psychometrics(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=50))
    >>> fig = psychometric_figure(r, "sim-noise")
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['accuracy', 'response entropy [bits]']
    >>> plt.close("all")
    """
    frame = result.observer_frame()
    frame = frame[frame["experiment"] == experiment]
    if frame.empty:
        raise KeyError(f"no experiment {experiment!r}; experiments: {result.experiments()}")
    conditions = condition_order(frame["condition"].unique())
    x = np.arange(len(conditions))
    ranges = result.human_range()
    ranges = ranges[ranges["experiment"] == experiment]
    models = sorted(o for o in frame["observer"].unique() if result.kinds.get(o) == "model")
    fig, axes = figure_axes(ax, (1, 2), figsize=(12, 4.6))
    cmap = plt.get_cmap("tab10")
    for ax, metric, label, top in ((axes[0], "accuracy", "accuracy", 1.0),
                                   (axes[1], "entropy", "response entropy [bits]", np.log2(len(result.classes)))):
        rows = frame[frame["metric"] == metric]

        def series(observer, column="estimate"):
            part = rows[rows["observer"] == observer].set_index("condition")[column]
            return np.array([part.get(c, np.nan) for c in conditions], dtype=float)

        if (rows["observer"] == HUMANS).any():
            span = ranges[ranges["metric"] == metric].set_index("condition")
            ax.fill_between(x, [span["min"].get(c, np.nan) for c in conditions],
                            [span["max"].get(c, np.nan) for c in conditions], color=HUMAN_COLOUR, alpha=0.12,
                            linewidth=0, label="single humans (range)")
            ax.fill_between(x, series(HUMANS, "ci_low"), series(HUMANS, "ci_high"), color=HUMAN_COLOUR, alpha=0.3,
                            linewidth=0)
            ax.plot(x, series(HUMANS), color=HUMAN_COLOUR, marker="o", linewidth=2, label="humans")
        for k, model in enumerate(models):
            ax.plot(x, series(model), color=cmap(k % 10), marker=MARKERS[k % len(MARKERS)], markersize=5,
                    linewidth=1, label=model)
        chance = 1 / len(result.classes) if metric == "accuracy" else top
        ax.axhline(chance, color="grey", linestyle=":", linewidth=1)
        ax.set_xticks(x, conditions, rotation=45 if len(conditions) > 6 else 0)
        ax.set_xlabel("condition")
        ax.set_ylabel(label)
        ax.set_ylim(0, top * 1.02)
        ax.spines[["top", "right"]].set_visible(False)
    level = int(round(100 * result.settings.get("level", 0.95)))
    axes[0].set_title(f"{experiment}: accuracy (humans pooled; band: {level}% interval)", fontsize=10)
    axes[1].set_title(f"{experiment}: entropy (humans: mean of each; dotted: uniform responses)", fontsize=10)
    axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig

