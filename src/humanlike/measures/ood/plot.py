"""Figures of the human-centred OOD spectrum (Xu et al.). Each function returns a matplotlib Figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .analysis import OODResult  # noqa: E402
from .structure import classical_mds  # noqa: E402
from ..pairwise import HUMANS  # noqa: E402
from ..sections import figure_axes  # noqa: E402

HUMAN_COLOUR = "#222222"
REGIME_COLOURS = ("#2ca02c", "#ff7f0e", "#d62728", "#7b2d8e", "#8c564b", "#e377c2")
FAMILY_CMAPS = ("Blues", "Oranges", "Greens", "Purples", "Reds", "Greys", "YlOrBr", "BuGn")


def regime_colour(label: int) -> str:
    """The colour of regime ``label`` in every OOD figure.

    Parameters
    ----------
    label : int
        Regime label (0 = the reference regime, 1, 2, ... ever further out of distribution); -1 = unassigned.

    Returns
    -------
    str
        A hex colour; the palette repeats after six regimes, unassigned conditions are grey.

    Examples
    --------
    >>> regime_colour(0), regime_colour(2), regime_colour(-1)
    ('#2ca02c', '#d62728', '#999999')
    """
    return REGIME_COLOURS[int(label) % len(REGIME_COLOURS)] if label >= 0 else "#999999"


def _regime_handles(fit, alpha=1.0):
    return [Patch(facecolor=regime_colour(i), alpha=alpha, label=n) for i, n in enumerate(fit.names)]


def model_colours(result: OODResult) -> dict[str, tuple]:
    """One colour per model: a colour map per family, shades within it.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Returns
    -------
    dict
        ``{model: RGBA tuple}`` for every model of ``result.alignment.settings["families"]``.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> colours = model_colours(result)
    >>> sorted(colours)[:2], len(colours["model-alien"])
    (['model-alien', 'model-humanlike'], 4)
    """
    fam = result.alignment.settings["families"]
    families = sorted(set(fam.values()))
    out = {}
    for f_idx, family in enumerate(families):
        members = sorted(m for m, f in fam.items() if f == family)
        cmap = plt.get_cmap(FAMILY_CMAPS[f_idx % len(FAMILY_CMAPS)])
        shades = np.linspace(0.45, 0.9, len(members)) if len(members) > 1 else [0.7]
        for m, s in zip(members, shades):
            out[m] = cmap(s)
    return out


def family_colours(result: OODResult) -> dict[str, tuple]:
    """One colour per model family of an OOD result.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Returns
    -------
    dict
        ``{family: RGBA tuple}``; a model missing from the family table is its own family.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2,
    ...                       families={"model-strong": "cnn", "model-medium": "cnn"})
    >>> sorted(family_colours(result))
    ['cnn', 'model-alien', 'model-humanlike', 'model-texture']
    """
    fam = result.alignment.settings["families"]
    families = sorted(set(fam.values()))
    return {f: plt.get_cmap(FAMILY_CMAPS[i % len(FAMILY_CMAPS)])(0.75) for i, f in enumerate(families)}


# --- (a) the spectrum -----------------------------------------------------------------------------

def spectrum_figure(result: OODResult, title: str = "Human-centred OOD spectrum", ax=None):
    """OOD score of every condition (x), one row per distortion type, coloured by regime.

    Background bands: the score ranges the fitted mixture assigns to each regime. Error bars: percentile
    intervals over resampled human observers. Stars: reference conditions; open markers: conditions not
    above chance (BH-adjusted binomial test).

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.
    title : str
        The title; the number of regimes and the selection criterion are appended.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, one row per distortion type (the mildest type at the top).

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> fig = spectrum_figure(result)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:2]
    ['sim-contrast', 'sim-blur']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    c = result.spectrum.conditions
    fit = result.spectrum.regimes
    experiments = list(c.groupby("experiment", sort=False)["ood_score"].max().sort_values(ascending=False).index)
    n = len(experiments)
    fig, ax = figure_axes(ax, figsize=(12, 0.55 * n + 2.0))
    lo = np.nanmin(np.r_[c["ood_score"], c["ood_score_low"]]) if np.isfinite(c["ood_score"]).any() else -1
    hi = np.nanmax(np.r_[c["ood_score"], c["ood_score_high"]]) if np.isfinite(c["ood_score"]).any() else 1
    pad = 0.05 * (hi - lo if hi > lo else 1.0)
    _regime_bands(ax, c["ood_score"].to_numpy(dtype=float), c["regime_label"].to_numpy(), lo - pad, hi + pad)
    longest = max((len(str(v)) for v in c["condition"]), default=1)
    gap = max(0.035, 0.0065 * longest) * (hi - lo + 2 * pad)
    for y, exp in enumerate(experiments):
        rows = c[c["experiment"] == exp]
        ax.axhline(y, color="#dddddd", lw=0.6, zorder=0)
        for r in rows.itertuples():
            colour = regime_colour(r.regime_label)
            if np.isfinite(r.ood_score_low):
                ax.plot([r.ood_score_low, r.ood_score_high], [y, y], color=colour, lw=1.0, alpha=0.35, zorder=1)
            marker = "*" if r.is_reference else "o"
            size = 140 if r.is_reference else 55
            face = "white" if r.at_chance else colour
            ax.scatter([r.ood_score], [y], s=size, marker=marker, facecolor=face, edgecolor=colour, lw=1.4, zorder=3)
        if len(rows) == 1:
            continue  # a single-condition experiment: the row label says it all
        order = np.argsort(-rows["ood_score"].to_numpy(dtype=float), kind="stable")
        for side, offset in ((0, 0.28), (1, -0.36)):
            pick = order[side::2]
            xs = rows["ood_score"].to_numpy(dtype=float)[pick]
            ok = np.isfinite(xs)
            if not ok.any():
                continue
            placed = _spread(xs[ok], gap)
            for i, xpos in zip(np.asarray(pick)[ok], placed):
                ax.annotate(rows["condition"].iloc[i], (xpos, y + offset), fontsize=6.5, ha="center",
                            va="center", color="#333333", zorder=4)
    ax.set_yticks(range(n), experiments)
    ax.set_ylim(n - 0.4, -0.6)
    ax.set_xlim(lo - pad, hi + pad)
    ax.axvline(0, color="k", lw=0.8, ls=":")
    ax.set_xlabel("OOD score: Glass's delta of human logit accuracy vs the reference (0 = reference, "
                  "negative = harder)")
    handles = _regime_handles(fit, 0.8) + [
        Line2D([], [], marker="*", ls="", color="k", markersize=10, label="reference condition"),
        Line2D([], [], marker="o", ls="", markerfacecolor="white", markeredgecolor="k", label="not above chance")]
    ax.legend(handles=handles, loc="lower left", fontsize=8, framealpha=0.9)
    crit = fit.criterion if fit.criterion != "fixed" else "fixed"
    ax.set_title(f"{title} ({fit.n_components} regimes, {crit})")
    fig.tight_layout()
    return fig


def _spread(values, gap):
    """Positions near ``values`` (same order), at least ``gap`` apart, block-centred on the data."""
    order = np.argsort(values)
    v = np.asarray(values, dtype=float)[order]
    pos = v.copy()
    for k in range(1, pos.size):
        pos[k] = max(pos[k], pos[k - 1] + gap)
    pos -= (pos - v).mean()
    for k in range(1, pos.size):
        pos[k] = max(pos[k], pos[k - 1] + gap)
    out = np.empty_like(pos)
    out[order] = pos
    return out


def _regime_bands(ax, scores, labels, xmin, xmax):
    """Background band per regime: from its conditions' scores to the midpoints with the neighbours."""
    ok = np.isfinite(scores) & (labels >= 0)
    if not ok.any():
        return
    order = np.argsort(scores[ok])
    xs, ls = scores[ok][order], labels[ok][order]
    edges = [xmin]
    runs = [ls[0]]
    for k in range(1, xs.size):
        if ls[k] != ls[k - 1]:
            edges.append(0.5 * (xs[k] + xs[k - 1]))
            runs.append(ls[k])
    edges.append(xmax)
    for (a, b), lab in zip(zip(edges[:-1], edges[1:]), runs):
        ax.axvspan(a, b, color=regime_colour(lab), alpha=0.10, lw=0)


# --- (b) levels of one distortion type -----------------------------------------------------------

def distortion_figure(result: OODResult, experiment: str, ax=None):
    """Accuracy, EC and MA of humans and every model along the distortion levels, regimes as background.

    Humans: mean accuracy over observers; EC / MA among human pairs with their bootstrap band. Models:
    accuracy; mean EC / MA with the humans. Colours: one colour map per model family.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.
    experiment : str
        The distortion type; its conditions in the order of the result (least distorted first).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (three Axes (accuracy, EC, misclassification agreement)) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        Three axes: accuracy, error consistency, misclassification agreement.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> fig = distortion_figure(result, "sim-blur")
    >>> [ax.get_title() for ax in fig.axes]
    ['accuracy', 'error consistency (kappa)', 'misclassification agreement']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    g = result.alignment.groups
    g = g[g["experiment"] == experiment]
    conds = result.spectrum.conditions
    conds = conds[conds["experiment"] == experiment]
    levels = list(conds["condition"])
    x = np.arange(len(levels))
    colours = model_colours(result)
    fam = result.alignment.settings["families"]
    models = sorted((m for m in g["group"].unique() if m != HUMANS), key=lambda m: (fam.get(m, m), m))
    panels = (("accuracy", "accuracy"), ("ec", "error consistency (kappa)"), ("ma", "misclassification agreement"))
    fig, axes = figure_axes(ax, (1, 3), figsize=(15, 4.2), sharex=True)
    for ax, (metric, label) in zip(axes, panels):
        for xi, r in zip(x, conds.itertuples()):
            ax.axvspan(xi - 0.5, xi + 0.5, color=regime_colour(r.regime_label), alpha=0.12, lw=0)
        h = g[g["group"] == HUMANS].set_index("condition").reindex(levels)
        ax.plot(x, h[metric], color=HUMAN_COLOUR, lw=2.6, marker="s", ms=5, label="humans", zorder=5)
        if metric != "accuracy":
            ax.fill_between(x, h[f"{metric}_low"], h[f"{metric}_high"], color=HUMAN_COLOUR, alpha=0.15, lw=0)
        for m in models:
            rows = g[g["group"] == m].set_index("condition").reindex(levels)
            ax.plot(x, rows[metric], color=colours.get(m, "#1f77b4"), lw=1.3, marker="o", ms=3, label=m)
        if metric == "accuracy":
            chance = conds["chance"].iloc[0] if len(conds) else np.nan
            if np.isfinite(chance):
                ax.axhline(chance, color="grey", ls="--", lw=0.8)
                ax.text(-0.4, chance + 0.01, "chance", fontsize=7, color="grey", ha="left", va="bottom")
            ax.set_ylim(0, 1.02)
        else:
            ax.axhline(0, color="grey", lw=0.8, ls=":")
        ax.set_xticks(x, levels, rotation=45 if max(len(s) for s in levels) > 4 else 0, fontsize=8)
        ax.set_xlim(-0.5, len(levels) - 0.5)
        ax.set_ylabel(label)
        ax.set_title(label)
        ax.set_xlabel("distortion level (least distorted left)")
    handles, labels_ = axes[0].get_legend_handles_labels()
    fit = result.spectrum.regimes
    handles += _regime_handles(fit, 0.3)
    labels_ += list(fit.names)
    fig.legend(handles, labels_, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)
    fig.suptitle(f"{experiment}: accuracy and error alignment along the distortion levels "
                 f"(background: OOD regime)", fontsize=11)
    fig.tight_layout()
    return fig


def distortion_figures(result: OODResult, min_levels: int = 2) -> dict:
    """:func:`distortion_figure` for every distortion type with at least ``min_levels`` conditions.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.
    min_levels : int
        Distortion types with fewer conditions get no figure.

    Returns
    -------
    dict
        ``{experiment: matplotlib.figure.Figure}`` in the order of the result's conditions.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> sorted(distortion_figures(result, min_levels=4))
    ['sim-blur', 'sim-contrast', 'sim-noise', 'sim-rotation']
    >>> distortion_figures(result, min_levels=5)
    {}
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    return {e: distortion_figure(result, e) for e in distortion_types(result, min_levels)}


def distortion_types(result: OODResult, min_levels: int = 2) -> list[str]:
    """The distortion types (experiments) with at least ``min_levels`` conditions, in the result's order.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.
    min_levels : int
        Fewest conditions a type needs.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> distortion_types(result, min_levels=4)
    ['sim-blur', 'sim-contrast', 'sim-noise', 'sim-rotation']
    """
    counts = result.spectrum.conditions.groupby("experiment", sort=False).size()
    return [e for e, n in counts.items() if n >= min_levels]


# --- (c) radar profiles per regime ---------------------------------------------------------------

def regime_profiles(result: OODResult):
    """Per regime, metric (EC, MA) and distortion type: humans and each family's mean (a tidy frame).

    A model is first averaged over the type's conditions in the regime, then the family over its models.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Returns
    -------
    pandas.DataFrame
        Columns ``regime, experiment, who, ec, ma``; ``who`` is ``"humans"`` (among themselves) or a family
        (its models with the humans).

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> profiles = regime_profiles(result)
    >>> list(profiles.columns), sorted(profiles["regime"].unique())
    (['regime', 'experiment', 'who', 'ec', 'ma'], ['near-OOD', 'reference'])
    """
    g = result.alignment.groups.copy()
    fam = result.alignment.settings["families"]
    g["who"] = np.where(g["group"] == HUMANS, HUMANS, g["group"].map(lambda m: fam.get(m, m)))
    # first average a model over the type's conditions in the regime, then the family over its models
    per_model = g.groupby(["regime", "experiment", "who", "group"])[["ec", "ma"]].mean().reset_index()
    return per_model.groupby(["regime", "experiment", "who"])[["ec", "ma"]].mean().reset_index()


def radar_figure(result: OODResult, ax=None):
    """Radar profile per regime: EC and MA per distortion type for humans (among themselves) and each model
    family (mean over its models of the mean with the humans). Axes: the distortion types with conditions
    in that regime.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (regimes x 2 polar Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        Two polar axes (EC, MA) per regime that has conditions.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> fig = radar_figure(result)
    >>> len(fig.axes), fig.axes[0].get_title()
    (4, 'reference: error consistency')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    prof = regime_profiles(result)
    fit = result.spectrum.regimes
    regimes = [n for n in fit.names if (prof["regime"] == n).any()]
    fcol = family_colours(result)
    whos = [HUMANS] + sorted(w for w in prof["who"].unique() if w != HUMANS)
    fig, axes = figure_axes(ax, (len(regimes), 2), figsize=(14, 5.6 * len(regimes)),
                             subplot_kw={"projection": "polar"}, squeeze=False,
                             gridspec_kw={"wspace": 0.55, "hspace": 0.35})
    for row, regime in enumerate(regimes):
        sub = prof[prof["regime"] == regime]
        types = sorted(sub["experiment"].unique())
        angles = np.linspace(0, 2 * np.pi, len(types), endpoint=False)
        for col, (metric, label) in enumerate((("ec", "error consistency"), ("ma", "misclassification agreement"))):
            ax = axes[row, col]
            vals_all = sub[metric].to_numpy(dtype=float)
            vmin = min(0.0, np.nanmin(vals_all)) if np.isfinite(vals_all).any() else 0.0
            vmax = np.nanmax(vals_all) if np.isfinite(vals_all).any() else 1.0
            for who in whos:
                v = sub[sub["who"] == who].set_index("experiment").reindex(types)[metric].to_numpy(dtype=float)
                if not np.isfinite(v).any():
                    continue
                closed_a = np.r_[angles, angles[:1]]
                closed_v = np.r_[v, v[:1]]
                colour = HUMAN_COLOUR if who == HUMANS else fcol.get(who, "#1f77b4")
                ax.plot(closed_a, closed_v, color=colour, lw=2.4 if who == HUMANS else 1.6,
                        label="humans (human-human)" if who == HUMANS else f"{who} (with humans)")
                if who == HUMANS:
                    ax.fill(closed_a, np.nan_to_num(closed_v, nan=vmin), color=colour, alpha=0.08)
            ax.set_xticks(angles, types, fontsize=8)
            ax.set_ylim(vmin - 0.02, vmax + 0.05)
            ax.tick_params(axis="y", labelsize=7)
            ax.set_rlabel_position(np.degrees(angles[1] / 2) if len(types) > 1 else 22.5)
            ax.set_title(f"{regime}: {label}", fontsize=10, pad=16)
            if row == 0 and col == 1:
                ax.legend(loc="upper left", bbox_to_anchor=(1.08, 1.05), fontsize=8, frameon=False)
    fig.suptitle("Error-alignment profiles per OOD regime (mean over each distortion type's conditions "
                 "in the regime)", fontsize=11, y=0.99)
    fig.subplots_adjust(top=0.93)
    return fig


# --- (d) the CLED embedding ------------------------------------------------------------------------

def cled_embedding_figure(result: OODResult, ax=None):
    """Classical MDS of the CLED distances between conditions (human confusions pooled over observers).

    Colour: OOD regime; marker: distortion type; labels: condition.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes: the conditions in the first two MDS dimensions.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()   # the undistorted levels
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> fig = cled_embedding_figure(result)
    >>> fig.axes[0].get_xlabel()
    'MDS dimension 1'
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    c = result.spectrum.conditions
    d = result.condition_cled
    xy = classical_mds(d, 2)
    fig, ax = figure_axes(ax, figsize=(11, 8.5))
    markers = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "p", "h", "*", "d", "8", "H",
               "$\\clubsuit$", "$\\spadesuit$", "$\\heartsuit$", "$\\diamondsuit$")
    types = list(dict.fromkeys(c["experiment"]))
    for t_idx, exp in enumerate(types):
        idx = np.flatnonzero(c["experiment"].to_numpy() == exp)
        ax.scatter(xy[idx, 0], xy[idx, 1], s=55, marker=markers[t_idx % len(markers)],
                   c=[regime_colour(v) for v in c["regime_label"].to_numpy()[idx]], edgecolor="k", lw=0.4,
                   label=exp, zorder=3)
        ax.plot(xy[idx, 0], xy[idx, 1], color="#cccccc", lw=0.5, zorder=1)
        for i in idx:
            text = exp if idx.size == 1 else c["condition"].iloc[i]
            ax.annotate(text, (xy[i, 0], xy[i, 1]), xytext=(3, 3), textcoords="offset points",
                        fontsize=6, color="#444444")
    fit = result.spectrum.regimes
    leg1 = ax.legend(handles=_regime_handles(fit), loc="upper left", fontsize=8, title="regime", frameon=True)
    ax.add_artist(leg1)
    type_handles = [Line2D([], [], marker=markers[i % len(markers)], ls="", color="grey", markeredgecolor="k",
                           label=t) for i, t in enumerate(types)]
    ax.legend(handles=type_handles, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8,
              title="distortion type", frameon=False)
    rt = result.regime_test
    ax.set_title("Human error structure: classical MDS of the CLED between conditions\n"
                 f"(lines join the levels of a distortion type; Cohen's d {rt.observed:.2f}, "
                 f"{rt.statistic:+.2f} vs shuffled regimes, permutation p {rt.p_value:.3g})", fontsize=10)
    ax.set_xlabel("MDS dimension 1")
    ax.set_ylabel("MDS dimension 2")
    ax.set_aspect("equal", adjustable="datalim")
    fig.tight_layout()
    return fig
