"""Figures for decision-variable correlation. Each function returns a matplotlib Figure (io saves it)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, never a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from ..sections import figure_axes  # noqa: E402

HUMAN_COLOUR = "#d62728"


def _xerr(frame):
    """Error-bar lengths; a percentile interval need not contain its estimate, so lengths are clipped at 0."""
    low = np.clip(frame["estimate"] - frame["ci_low"], 0, None)
    high = np.clip(frame["ci_high"] - frame["estimate"], 0, None)
    return [np.nan_to_num(low), np.nan_to_num(high)]
MODEL_COLOUR = "#1f77b4"
GREY = "#7f7f7f"


def representation_figure(result, ax=None):
    """Per class pair DVC with intervals (both normalisations), and the overall value with kappa and bound.

    Parameters
    ----------
    result : DVCResult
        From :func:`humanlike.measures.dvc.representations.dvc_representations`.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, one row per class pair: the signed and the absolute (paper) DVC with their intervals;
        vertical lines for the overall DVC and, when computed, the kappa of the choices.

    Examples
    --------
    >>> from humanlike.measures.dvc.representations import dvc_representations
    >>> from humanlike.measures.dvc.simulate import planted_representations
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> fa, fb, labels = planted_representations(rho=0.6, n_classes=3, n_per_class=150, seed=1)
    >>> result = dvc_representations(fa, fb, labels, n_components=5, n_splits=2,
    ...                              settings=ResamplingSettings(n_resamples=0))
    >>> fig = representation_figure(result)
    >>> len(fig.axes[0].get_yticklabels())   # 3 classes: 3 class pairs
    3
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    signed = result.table("pair", "signed")
    absolute = result.table("pair", "abs")
    names = [f"{i} / {j}" for i, j in zip(signed["class_i"], signed["class_j"])]
    y = np.arange(len(names))
    fig, ax = figure_axes(ax, figsize=(6.5, 0.9 + 0.28 * len(names)))
    for frame, colour, label, shift in ((signed, MODEL_COLOUR, "signed", -0.15), (absolute, GREY, "abs (paper)", 0.15)):
        ax.errorbar(frame["estimate"], y + shift, xerr=_xerr(frame),
                    fmt="o", ms=3, color=colour, label=label, capsize=2)
    overall = result.table("overall").iloc[0]
    ax.axvline(overall["estimate"], color=MODEL_COLOUR, lw=1, ls="--", label=f"overall {overall['estimate']:.2f}")
    if result.kappa is not None:
        k = result.kappa.to_frame().set_index("statistic")
        ax.axvline(k.loc["kappa", "estimate"], color=HUMAN_COLOUR, lw=1, ls=":",
                   label=f"kappa of choices {k.loc['kappa', 'estimate']:.2f} (bound {k.loc['kappa_bound', 'estimate']:.2f})")
    ax.axvline(0, color="black", lw=0.5)
    ax.set_yticks(y, names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("decision-variable correlation (split-half normalised)")
    ax.set_title(f"DVC {result.names[0]} vs {result.names[1]}", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def benchmark_latent_figure(tetrachoric, probit=None, scope: str = "overall", ax=None):
    """Model–human latent correlation per model (tetrachoric of correctness; probit on margins where present),
    with the human–human value as a band.

    Parameters
    ----------
    tetrachoric : LatentBenchmarkResult
        From :func:`humanlike.measures.dvc.choices.latent_correctness_correlation`.
    probit : LatentBenchmarkResult, optional
        From :func:`humanlike.measures.dvc.choices_probit.margin_probit_correlation`, drawn next to the models that
        have margins.
    scope : str
        ``"overall"`` (mean over experiments) or one experiment's name.

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, one row per model (highest latent correlation at the top).

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.dvc.choices import latent_correctness_correlation
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> latent = latent_correctness_correlation(trials, experiments=["sim-blur"],
    ...                                         settings=ResamplingSettings(n_resamples=20))
    >>> fig = benchmark_latent_figure(latent)
    >>> len(fig.axes[0].get_yticklabels()), fig.axes[0].get_xlabel()
    (5, 'latent correlation with humans (rho)')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    frame = tetrachoric.groups(scope)
    models = frame[frame["kind"] == "model-human"].sort_values("estimate")
    fig, ax = figure_axes(ax, figsize=(6.5, 1.0 + 0.25 * len(models)))
    y = np.arange(len(models))
    ax.errorbar(models["estimate"], y, xerr=_xerr(models),
                fmt="o", ms=3, color=MODEL_COLOUR, capsize=2, label="tetrachoric of correctness")
    if probit is not None:
        p = probit.groups(scope).set_index("group")
        have = [k for k, g in enumerate(models["group"]) if g in p.index]
        rows = p.loc[models["group"].iloc[have]]
        ax.errorbar(rows["estimate"], y[have] + 0.25, xerr=_xerr(rows),
                    fmt="s", ms=3, color=GREY, capsize=2, label="margin vs correctness (probit)")
    humans = frame[frame["group"] == "humans"]
    if not humans.empty:
        h = humans.iloc[0]
        ax.axvspan(h["ci_low"], h["ci_high"], color=HUMAN_COLOUR, alpha=0.2, lw=0)
        ax.axvline(h["estimate"], color=HUMAN_COLOUR, lw=1, label=f"human-human {h['estimate']:.2f}")
    ax.set_yticks(y, models["group"], fontsize=7)
    ax.set_xlabel("latent correlation with humans (rho)")
    ax.set_title(f"Decision-variable correlation from choices ({scope})", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def appendix_a3_figure(bias_levels, kappas, dvcs, kappa_sd=None, dvc_sd=None, ax=None):
    """Qian, Geisler & Wei's Appendix A.3: kappa of choices rises with a shared class-wise bias, DVC does not.

    ``benchmarks/dvc_appendix_a3.py`` computes the values (``docs/figures/dvc_appendix_a3.png``).

    Parameters
    ----------
    bias_levels : sequence of float
        SD of the class-wise bias shared by both systems (x axis).
    kappas, dvcs : sequence of float
        Mean kappa of the choices and mean DVC at each bias level.
    kappa_sd, dvc_sd : sequence of float, optional
        Their SDs over simulations (error bars).

    ax : matplotlib Axes, optional
        Draw into the caller's axes (one Axes) instead of a new figure
        (:func:`humanlike.measures.sections.figure_axes`).

    Returns
    -------
    matplotlib.figure.Figure
        One axes with the two curves.

    Examples
    --------
    >>> fig = appendix_a3_figure([0.0, 1.0, 2.0], [0.30, 0.45, 0.60], [0.01, -0.02, 0.00])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['kappa of choices', 'DVC']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    fig, ax = figure_axes(ax, figsize=(4.5, 3.2))
    ax.errorbar(bias_levels, kappas, yerr=kappa_sd, marker="o", color=HUMAN_COLOUR, label="kappa of choices", capsize=2)
    ax.errorbar(bias_levels, dvcs, yerr=dvc_sd, marker="s", color=MODEL_COLOUR, label="DVC", capsize=2)
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("SD of the class-wise bias shared by both systems")
    ax.set_ylabel("agreement beyond chance")
    ax.set_title("Shared bias inflates kappa, not DVC (10 classes x 100)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
