"""Figures. Each function takes a result object and returns a matplotlib Figure (saving is io's job)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window: the CLI runs on headless machines

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .benchmark import BenchmarkResult  # noqa: E402
from ..pairs.aggregation import HUMANS  # noqa: E402
from ..pairs.kappa_bounds import kappa_max  # noqa: E402
from .result import bootstrap_label  # noqa: E402
from ..sections import figure_axes  # noqa: E402

HUMAN_COLOUR = "#d62728"
MODEL_COLOUR = "#1f77b4"



def _bar_lengths(estimate, low, high) -> np.ndarray:
    """Error-bar lengths below and above each estimate: a percentile interval need not contain its estimate
    (at a low --level it often does not), so lengths are clipped at 0; NaN draws no bar."""
    estimate, low, high = (np.asarray(v, dtype=float) for v in (estimate, low, high))
    return np.nan_to_num(np.clip(np.vstack([estimate - low, high - estimate]), 0, None))

def benchmark_figure(result: BenchmarkResult, title: str = "Error consistency with humans", ax=None):
    """Models ranked by error consistency with humans, and EC against OOD accuracy.

    Left: models ranked by EC to humans with their bootstrap intervals and the human–human band.
    Right: EC against OOD accuracy with the ``kappa_max`` bound for the mean human accuracy (indicative:
    the bound holds per condition and pair, not for averages).

    Parameters
    ----------
    result : BenchmarkResult
        From :func:`humanlike.measures.ec.benchmark.run_benchmark`; its ``overall`` rows are drawn.
    title : str
        Title of the left panel.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (two Axes (ranking, EC against OOD accuracy)) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the ranking (left) and EC against accuracy (right).

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> fig = benchmark_figure(run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=20)))
    >>> len(fig.axes), fig.axes[1].get_xlabel()
    (2, 'OOD accuracy')
    >>> fig.axes[0].get_xlabel()
    'error consistency with humans (kappa), 95% percentile bootstrap interval'
    >>> fig = benchmark_figure(run_benchmark(trials, exclusions=None, settings=ResamplingSettings(
    ...     n_resamples=20, interval="jackknife-t")))
    >>> fig.axes[0].get_xlabel()
    'error consistency with humans (kappa), 95% jackknife t interval'
    >>> len(fig.axes[0].get_yticklabels())   # the five simulated models
    5
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    overall = result.rows[result.rows["scope"] == "overall"]
    ec = overall[overall["metric"] == "error_consistency"].set_index("observer")
    acc = overall[overall["metric"] == "ood_accuracy"].set_index("observer")
    models = ec.drop(index=HUMANS, errors="ignore").sort_values("estimate")
    level = result.details.settings.get("level", 0.95)

    fig, (left, right) = figure_axes(ax, (1, 2), figsize=(13, max(4.5, 0.35 * len(models) + 1.5)),
                                      gridspec_kw={"wspace": 0.35})
    y = np.arange(len(models))
    left.errorbar(models["estimate"], y, xerr=_bar_lengths(models["estimate"], models["ci_low"], models["ci_high"]),
                  fmt="o", color=MODEL_COLOUR, capsize=3)
    left.set_yticks(y, models.index)
    if HUMANS in ec.index:
        h = ec.loc[HUMANS]
        left.axvspan(h["ci_low"], h["ci_high"], color=HUMAN_COLOUR, alpha=0.15,
                     label=f"human–human {int(level * 100)}% CI")
        left.axvline(h["estimate"], color=HUMAN_COLOUR, lw=1.5, label="human–human mean")
        left.legend(loc="lower right", fontsize=8)
    left.axvline(0, color="grey", lw=0.8, ls=":")
    # the interval the result holds (jackknife t by default for EC), not a generic "bootstrap CI"
    interval = bootstrap_label(result.details.resampled, None)
    left.set_xlabel(f"error consistency with humans (kappa), {int(level * 100)}% {interval} interval")
    left.set_title(title)

    if HUMANS in acc.index and np.isfinite(acc.loc[HUMANS, "estimate"]):
        p_h = acc.loc[HUMANS, "estimate"]
        grid = np.linspace(0.001, 0.999, 400)
        right.plot(grid, kappa_max(grid, p_h), color="grey", ls="--",
                   label=f"kappa_max given human accuracy {p_h:.2f}")
        right.errorbar([p_h], [ec.loc[HUMANS, "estimate"]],
                       yerr=_bar_lengths([ec.loc[HUMANS, "estimate"]], [ec.loc[HUMANS, "ci_low"]],
                                         [ec.loc[HUMANS, "ci_high"]]),
                       fmt="s", color=HUMAN_COLOUR, capsize=3, label="humans")
    placed = [n for n in models.index if n in acc.index]
    for name in placed:
        row = models.loc[name]
        right.errorbar([acc.loc[name, "estimate"]], [row["estimate"]],
                       xerr=_bar_lengths([acc.loc[name, "estimate"]], [acc.loc[name, "ci_low"]],
                                         [acc.loc[name, "ci_high"]]),
                       yerr=_bar_lengths([row["estimate"]], [row["ci_low"]], [row["ci_high"]]),
                       fmt="o", color=MODEL_COLOUR, capsize=2, alpha=0.8)
    # Labels in a column right of the axes, spread so they never overlap, with leader lines.
    label_y = spread_labels([models.loc[n, "estimate"] for n in placed], gap=0.045)
    for name, y_text in zip(placed, label_y):
        right.annotate(name, (acc.loc[name, "estimate"], models.loc[name, "estimate"]),
                       xytext=(1.02, y_text), textcoords=("axes fraction", "data"), fontsize=7,
                       va="center", arrowprops=dict(arrowstyle="-", color="grey", lw=0.5))
    right.set_ylim(min(-0.05, right.get_ylim()[0]), 1.05)
    right.set_xlabel("OOD accuracy")
    right.set_ylabel("error consistency with humans")
    right.set_xlim(0, 1)
    right.set_title("EC against accuracy (EC cannot exceed kappa_max)")
    right.legend(loc="upper left", fontsize=8)
    return fig


def spread_labels(values, gap: float) -> list[float]:
    """Label positions near ``values`` (same order) with at least ``gap`` between neighbours.

    Parameters
    ----------
    values : sequence of float
        The data positions the labels belong to.
    gap : float
        Smallest distance between two neighbouring labels (data units).

    Returns
    -------
    list of float
        One position per value, in the order of ``values``; the block is centred on the data.

    Examples
    --------
    >>> [round(v, 3) for v in spread_labels([0.0, 0.0], gap=0.1)]   # pushed apart around the data
    [-0.05, 0.05]
    >>> spread_labels([0.5, 0.0], gap=0.1)                          # far enough apart: unchanged
    [0.5, 0.0]
    """
    order = np.argsort(values)
    positions = np.asarray(values, dtype=float)[order].copy()
    for k in range(1, positions.size):
        positions[k] = max(positions[k], positions[k - 1] + gap)
    # centre the block on the data so labels do not all drift upwards
    shift = (positions - np.asarray(values, dtype=float)[order]).mean()
    positions -= shift
    for k in range(1, positions.size):
        positions[k] = max(positions[k], positions[k - 1] + gap)
    out = np.empty_like(positions)
    out[order] = positions
    return out.tolist()


def ranking_figure(ranking, title: str = "Rank stability under resampling", ax=None):
    """Each model's rank with its bootstrap rank interval and probability of being best.

    Parameters
    ----------
    ranking : RankingStability
        ``BenchmarkResult.ranking`` (:func:`humanlike.measures.ec.benchmark.run_benchmark`).
    title : str
        First title line; the second gives Kendall's tau to the original ranking with its interval.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, one row per model (best at the top).

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> fig = ranking_figure(run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=20)).ranking)
    >>> len(fig.axes), len(fig.axes[0].get_yticklabels())
    (1, 5)
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    frame = ranking.to_frame().iloc[::-1]
    fig, ax = figure_axes(ax, figsize=(6, 0.35 * len(frame) + 1.5))
    y = np.arange(len(frame))
    ax.errorbar(frame["rank"], y, xerr=_bar_lengths(frame["rank"], frame["rank_low"], frame["rank_high"]),
                fmt="o", color=MODEL_COLOUR, capsize=3)
    ax.set_yticks(y, [f"{n}  (P best {p:.2f})" for n, p in zip(frame["observer"], frame["probability_best"])])
    ax.invert_xaxis()
    ax.set_xlabel("rank by EC to humans (1 = most human-like)")
    ax.set_title(f"{title}\nKendall's tau to the original ranking: {ranking.tau_mean:.2f} "
                 f"[{ranking.tau_low:.2f}, {ranking.tau_high:.2f}]", fontsize=9)
    fig.tight_layout()
    return fig


def pairwise_figure(result, experiment: str, ax=None):
    """The matrix of condition-averaged pairwise EC of one experiment (humans first, then models).

    Parameters
    ----------
    result : ErrorConsistencyResult
        From :func:`humanlike.measures.ec.analysis.error_consistency` with ``pair_intervals=True``.
    experiment : str
        The experiment whose pairs are drawn.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        The heat map (observers × observers) and its colour bar.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=0), pair_intervals=True)
    >>> fig = pairwise_figure(result, "sim-blur")
    >>> len(fig.axes[0].get_xticklabels())   # 4 humans + 5 models
    9
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    pairs = result.pair_intervals
    pairs = pairs[pairs["experiment"] == experiment]
    humans = sorted(set(pairs.loc[pairs["kind_1"] == "human", "observer_1"])
                    | set(pairs.loc[pairs["kind_2"] == "human", "observer_2"]))
    models = sorted((set(pairs["observer_1"]) | set(pairs["observer_2"])) - set(humans))
    names = humans + models
    index = {n: k for k, n in enumerate(names)}
    matrix = np.full((len(names), len(names)), np.nan)
    for row in pairs.itertuples():
        i, j = index[row.observer_1], index[row.observer_2]
        matrix[i, j] = matrix[j, i] = row.error_consistency
    fig, ax = figure_axes(ax, figsize=(0.45 * len(names) + 3, 0.45 * len(names) + 2))
    bound = np.nanmax(np.abs(matrix)) if np.isfinite(matrix).any() else 1.0
    image = ax.imshow(matrix, cmap="RdBu_r", vmin=-bound, vmax=bound)
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    if humans and models:
        ax.axhline(len(humans) - 0.5, color="k", lw=0.8)
        ax.axvline(len(humans) - 0.5, color="k", lw=0.8)
    fig.colorbar(image, ax=ax, label="error consistency (kappa)")
    ax.set_title(f"Pairwise error consistency: {experiment}")
    fig.tight_layout()
    return fig
