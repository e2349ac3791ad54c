"""Figures for decision-margin consistency. Each function returns a matplotlib Figure (io saves it)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")  # files, never a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .consistency_accuracy import ConsistencyComparison  # noqa: E402
from .kernel import DMC, MODEL_HUMAN_MEAN  # noqa: E402
from .result import DMCResult  # noqa: E402
from ..pairs.aggregation import HUMANS, MODEL_MODEL  # noqa: E402
from ..sections import figure_axes  # noqa: E402

HUMAN_COLOUR = "#d62728"
MODEL_COLOUR = "#1f77b4"
MODEL_MODEL_COLOUR = "#7f7f7f"
MEAN_COLOUR = "#2ca02c"
LEVEL_STYLE = {
    "human-human": (HUMAN_COLOUR, "-"),
    "model-model": (MODEL_MODEL_COLOUR, "--"),
    "model-human (mean)": (MEAN_COLOUR, ":"),
}
MEASURES = (("error_consistency", "error consistency (kappa)"), (DMC, "decision-margin consistency (r)"))


def _finite(*values) -> bool:
    return all(v is not None and np.isfinite(v) for v in values)


def _panel(ax, models, levels, ylabel: str | None, annotate: bool) -> None:
    for _, row in levels.iterrows():
        colour, style = LEVEL_STYLE.get(row["group"], ("k", "-"))
        if _finite(row["ci_low"], row["ci_high"]):
            ax.axhspan(row["ci_low"], row["ci_high"], color=colour, alpha=0.13, lw=0)
        if _finite(row["estimate"]):
            ax.axhline(row["estimate"], color=colour, ls=style, lw=1.4)
    if len(levels) and _finite(levels["human_accuracy"].iloc[0]):
        ax.axvline(levels["human_accuracy"].iloc[0], color=HUMAN_COLOUR, ls=(0, (1, 3)), lw=1)
    if len(models):
        x = models["accuracy"].to_numpy(float)
        y = models["estimate"].to_numpy(float)
        err = np.vstack([y - models["ci_low"].to_numpy(float), models["ci_high"].to_numpy(float) - y])
        ax.errorbar(x, y, yerr=np.nan_to_num(np.clip(err, 0, None)), fmt="o", ms=4, color=MODEL_COLOUR,
                    ecolor=MODEL_COLOUR, elinewidth=0.8, capsize=2, alpha=0.85, zorder=3)
        if annotate:
            for name, xi, yi in zip(models["observer"], x, y):
                if _finite(xi, yi):
                    ax.annotate(name, (xi, yi), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylim(-0.25, 1.02)
    ax.grid(True, lw=0.3, alpha=0.5)
    ax.tick_params(labelsize=7)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=8)


def consistency_figure(comparison: ConsistencyComparison, title: str | None = None, ncols: int | None = None,
                       annotate: bool | None = None, ax=None):
    """Small multiples like Alvarez & Konkle's Figure 2: per experiment, EC (top) and DMC (bottom) of each
    model against its accuracy (dots, vertical bars = bootstrap intervals), with horizontal lines and bands
    for the human–human level (EC: mean over human pairs; DMC: split-half ceiling), the model–model level
    and the mean model–human level; the dotted vertical line is the mean human accuracy.

    Parameters
    ----------
    comparison : ConsistencyComparison
        From :func:`humanlike.measures.dmc.consistency_accuracy.consistency_vs_accuracy`.
    title : str, optional
        Figure title (default: a two-line description of the panels).
    ncols : int, optional
        Experiments per row of panels (default: up to 4).
    annotate : bool, optional
        Write model names next to the dots (default: when an experiment has at most 8 models).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (2 x rows x columns Axes (the grid of panels)) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes per experiment (EC above DMC), in ``ceil(n / ncols)`` rows of pairs.

    Raises
    ------
    ValueError
        When the comparison holds no experiment.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.dmc.consistency_accuracy import consistency_vs_accuracy
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> fig = consistency_figure(consistency_vs_accuracy(trials, experiments=["sim-blur"],
    ...                                                      settings=dmc_settings(n_resamples=0)))
    >>> len(fig.axes), fig.axes[0].get_title(), fig.axes[1].get_xlabel()
    (2, 'sim-blur', 'accuracy')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    experiments = list(comparison.settings.get("experiments") or comparison.models["experiment"].unique())
    if not experiments:
        raise ValueError("the comparison holds no experiment")
    n = len(experiments)
    ncols = ncols or min(n, 4)
    nrows = math.ceil(n / ncols)
    width = max(3.3 * ncols + 0.6, 7.0)
    fig, axes = figure_axes(ax, (2 * nrows, ncols), figsize=(width, 2.45 * 2 * nrows + 1.4), squeeze=False)
    for k in range(nrows * ncols):
        r, c = divmod(k, ncols)
        top, bottom = axes[2 * r, c], axes[2 * r + 1, c]
        if k >= n:
            top.set_visible(False)
            bottom.set_visible(False)
            continue
        experiment = experiments[k]
        models = comparison.models[comparison.models["experiment"] == experiment]
        levels = comparison.levels[comparison.levels["experiment"] == experiment]
        note = annotate if annotate is not None else models["observer"].nunique() <= 8
        for ax, (measure, label) in zip((top, bottom), MEASURES):
            _panel(ax, models[models["measure"] == measure], levels[levels["measure"] == measure],
                   label.split(" (")[0].replace("decision-margin", "decision-margin\n") if c == 0 else None, note)
        xs = np.concatenate([models["accuracy"].to_numpy(float), levels["human_accuracy"].to_numpy(float)[:1]])
        xs = xs[np.isfinite(xs)]
        lo, hi = (max(0.0, xs.min() - 0.06), min(1.02, xs.max() + 0.06)) if xs.size else (0.0, 1.02)
        for ax in (top, bottom):
            ax.set_xlim(lo, hi)
        top.tick_params(labelbottom=False)
        top.set_title(experiment, fontsize=9, fontweight="bold")
        top.text(0.02, 0.95, "EC", transform=top.transAxes, fontsize=7, va="top", color="0.3")
        bottom.text(0.02, 0.95, "DMC", transform=bottom.transAxes, fontsize=7, va="top", color="0.3")
        bottom.set_xlabel("accuracy", fontsize=8)
    level = comparison.settings.get("level", 0.95)
    handles = [Line2D([], [], marker="o", ls="", color=MODEL_COLOUR, label=f"model (± {int(level * 100)}% CI)")]
    for group, (colour, style) in LEVEL_STYLE.items():
        name = {"human-human": "human–human (DMC: split-half ceiling)", "model-model": "model–model",
                "model-human (mean)": "mean model–human"}[group]
        handles.append(Line2D([], [], color=colour, ls=style, label=name))
    handles.append(Patch(color="0.5", alpha=0.25, label=f"{int(level * 100)}% bootstrap band"))
    handles.append(Line2D([], [], color=HUMAN_COLOUR, ls=(0, (1, 3)), label="mean human accuracy"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 3), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    height = fig.get_figheight()
    fig.suptitle(title or "Error consistency (EC) and decision-margin consistency (DMC)\nwith humans, against accuracy",
                 fontsize=11, y=1 - 0.08 / height, va="top")
    fig.tight_layout(rect=(0, 0.75 / height, 1, 1 - 0.55 / height))
    return fig


def dmc_ranking_figure(result: DMCResult, scope: str = "overall", title: str | None = None, ax=None):
    """Models ranked by their DMC to humans (bootstrap intervals), with the human–human ceiling, the
    model–model and the mean model–human levels as bands.

    Parameters
    ----------
    result : DMCResult
        From :func:`humanlike.measures.dmc.analysis.decision_margin_consistency`.
    scope : str
        ``"overall"`` (mean over experiments) or one experiment's name.
    title : str, optional
        Default: ``"Decision-margin consistency: <scope>"``.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, one row per model with margins (highest DMC at the top).

    Raises
    ------
    ValueError
        When the result has no rows for ``scope``.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.dmc.analysis import decision_margin_consistency
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> result = decision_margin_consistency(trials, experiments=["sim-blur"], settings=dmc_settings(n_resamples=20))
    >>> fig = dmc_ranking_figure(result, scope="sim-blur")
    >>> len(fig.axes[0].get_yticklabels()), fig.axes[0].get_title()
    (5, 'Decision-margin consistency: sim-blur')
    >>> fig.axes[0].get_xlabel()
    'decision-margin consistency with humans (r), 95% percentile bootstrap interval'
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    table = result.table(scope)
    if table.empty:
        raise ValueError(f"no DMC rows for scope {scope!r}")
    rows = table.set_index("group")
    models = rows.drop(index=[g for g in (HUMANS, MODEL_MODEL, MODEL_HUMAN_MEAN) if g in rows.index])
    models = models.sort_values("estimate")
    fig, ax = figure_axes(ax, figsize=(7, max(3.0, 0.3 * len(models) + 1.6)))
    y = np.arange(len(models))
    est = models["estimate"].to_numpy(float)
    err = np.vstack([est - models["ci_low"].to_numpy(float), models["ci_high"].to_numpy(float) - est])
    ax.errorbar(est, y, xerr=np.nan_to_num(np.clip(err, 0, None)), fmt="o", color=MODEL_COLOUR, capsize=3)
    ax.set_yticks(y, models.index, fontsize=8)
    for group, label in ((HUMANS, "human–human ceiling"), (MODEL_MODEL, "model–model"),
                         (MODEL_HUMAN_MEAN, "mean model–human")):
        if group not in rows.index:
            continue
        colour, style = LEVEL_STYLE[{HUMANS: "human-human", MODEL_MODEL: "model-model"}.get(group, group)]
        r = rows.loc[group]
        if _finite(r["ci_low"], r["ci_high"]):
            ax.axvspan(r["ci_low"], r["ci_high"], color=colour, alpha=0.13, lw=0)
        if _finite(r["estimate"]):
            ax.axvline(r["estimate"], color=colour, ls=style, lw=1.4, label=f"{label} {r['estimate']:.2f}")
    ax.axvline(0, color="k", lw=0.5)
    level = result.settings.get("level", 0.95)
    # the interval the result holds, named as the section's methods name it (not a generic "bootstrap CI")
    interval = {"jackknife": "jackknife normal", "jackknife-t": "jackknife t"}.get(
        result.settings.get("interval", "percentile"), f"{result.settings.get('interval', 'percentile')} bootstrap")
    ax.set_xlabel(f"decision-margin consistency with humans (r), {int(level * 100)}% {interval} interval")
    ax.set_title(title or f"Decision-margin consistency: {scope}", fontsize=10)
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig
