"""The human-centred OOD spectrum: OOD scores, tests and regimes of every condition (Xu et al.; docs/measures/ood-spectrum.md).

Per human observer and condition the accuracy and its logit (``logit_correction='half'``:
``ln((k+.5)/(n-k+.5))``, so 0 and 1 stay finite). The reference distribution pools the human logits of the
undistorted conditions (:data:`humanlike.measures.ood.common.DEFAULT_REFERENCE` for model-vs-human: 7
conditions x 4 observers = 28 values). OOD score of a condition = Glass's delta of its human logits against
that pool (0 = like the reference, negative = harder).

Tests run on the *tested family* only: every non-reference condition (a reference condition is part of the
pool it would be compared with, so it is neither tested nor counted in the multiple-testing family), or
the paper's family (:data:`PAPER_UNTESTED_EXPERIMENTS` left out) with ``family='paper'``. Two-sided
Mann-Whitney U of the condition's observer accuracies against the pooled reference accuracies, one-sided
exact binomial test of the pooled correct trials against chance 1/K, Benjamini-Hochberg over the family
(separately per test); normality of the reference accuracies and logits.

Regimes: Gaussian mixture on the scores (:func:`humanlike.measures.ood.regimes.fit_regimes`, fitted to
convergence from many starts with a variance floor and a minimum component size), stability across
initialisations and across bootstrap resamples of the human observers (observers resampled within each
experiment, the same draw for all its conditions, the reference pool recomputed from the resample). All
randomness comes from per-key streams of one integer seed, so :func:`ood_spectrum` and
:func:`humanlike.measures.ood.analysis.ood_analysis` give the same regimes for the same seed.

This module runs the spectrum and holds its results. Its parts live beside it: the reference pool (which
conditions, and the refusal of a pool without spread) in :mod:`humanlike.measures.ood.spectrum_reference`, the
scores under observer resampling in :mod:`humanlike.measures.ood.spectrum_bootstrap`, the statistics (logits,
Glass's delta, tests) in :mod:`humanlike.measures.ood.spectrum_statistics`, the mixture in
:mod:`humanlike.measures.ood.regimes` and its bootstrap stability in :mod:`humanlike.measures.ood.regime_stability`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ...trials.schema import TrialTableError, first_presentations, validate_trials
from ...stats.multiple import benjamini_hochberg
from .regime_stability import RegimeStability, regime_stability_bootstrap
from .regimes import RegimeFit, fit_regimes, regime_names
from ...resampling.results import Resampled
from ...resampling.rng import normalise_seed, stream
from .spectrum_bootstrap import observer_bootstrap_scores
from .spectrum_reference import check_reference_spread, resolve_reference
from .spectrum_statistics import (
    binomial_above_chance, chance_flags, glass_delta, logit_accuracy, mannwhitney_vs_reference, normality_tests,
)
from .common import check_choice, condition_order
from ..measure_result import MeasureResult

MW_VARIANTS = ("asymptotic", "asymptotic-no-continuity", "exact")
LOGIT_CORRECTIONS = ("half", "clip")
FAMILIES = ("all", "paper")
REGIME_NAMINGS = ("order", "paper")
#: Experiments Xu et al. leave out of their tests (not graded distortions of the same images).
PAPER_UNTESTED_EXPERIMENTS = ("cue-conflict", "edge", "silhouette", "false-colour")
REASON_REFERENCE = "reference condition: part of the pool it would be tested against"
REASON_OUTSIDE_FAMILY = "outside the tested family"


@dataclass(frozen=True, repr=False)
class OODSpectrum(MeasureResult):
    """The OOD spectrum of a trial table.

    ``conditions``: one row per (experiment, condition) — human accuracy, OOD score (Glass's delta of the
    human logits against the reference pool, with ``ood_reason`` when undefined), regime and its
    stabilities, Mann-Whitney and binomial tests with BH-adjusted p-values, ``above_chance`` /
    ``at_chance``. ``observers``: one row per human and condition (correct, trials, accuracy, logit).
    ``normality``: tests of the reference accuracies (``scale='accuracy'``) and logits (``'logit'``).
    ``regimes``: the mixture fit; ``stability``: its bootstrap stability (``None`` without resamples);
    ``boot_scores``: (resamples x conditions) OOD scores under observer resampling; ``scores``: the OOD
    scores as a :class:`~humanlike.resampling.results.Resampled` (``.to_frame()``, ``.interval()``). Made by
    :func:`ood_spectrum`.

    Parameters
    ----------
    conditions, observers, normality : pandas.DataFrame
        The tables above.
    reference : dict
        ``{experiment: [reference conditions]}``.
    reference_mean, reference_sd : float
        Mean and SD of the human logits in the reference pool.
    regimes : RegimeFit
        The mixture fit of the OOD scores.
    stability : RegimeStability or None
        Its bootstrap stability.
    boot_scores : numpy.ndarray or None
        (resamples x conditions) OOD scores under observer resampling.
    settings : dict
        Every option the spectrum ran with.
    scores : Resampled, optional
        The OOD scores with their replicates.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> spectrum.conditions["ood_score"].round(2).tolist()   # Glass's delta against the 0.00 condition
    [0.0, -4.76, -10.31, -15.61]
    >>> spectrum.reference, len(spectrum.observers)   # 6 humans x 4 conditions
    ({'sim-noise': ['0.00']}, 24)
    """

    conditions: pd.DataFrame
    observers: pd.DataFrame
    reference: dict
    reference_mean: float
    reference_sd: float
    normality: pd.DataFrame
    regimes: RegimeFit
    stability: RegimeStability | None
    boot_scores: np.ndarray | None = field(repr=False)
    settings: dict
    scores: Resampled | None = field(default=None, repr=False)

    measure = "ood"
    resampled_field = "scores"
    scope_label = "experiment"

    def to_wide(self) -> pd.DataFrame:
        """The per-condition table (wide: one column per statistic); :meth:`to_frame` is the tidy table of the
        scores.

        Returns
        -------
        pandas.DataFrame
            :attr:`conditions`: one row per (experiment, condition) with the OOD score, regime and tests.
        """
        return self.conditions

    def regime_table(self) -> pd.DataFrame:
        """One row per regime: mixture mean / SD / weight and the number of conditions.

        Returns
        -------
        pandas.DataFrame
            Columns label, regime, mean, sd, weight, n_conditions.
        """
        comp = self.regimes.components_frame()
        counts = self.conditions["regime"].value_counts()
        comp["n_conditions"] = [int(counts.get(r, 0)) for r in comp["regime"]]
        return comp


@dataclass(frozen=True)
class SpectrumRegimes:
    """The spectrum up to its regimes (:func:`spectrum_regimes`): what the alignment needs, before the uncertainty.

    Parameters
    ----------
    conditions : pandas.DataFrame
        One row per (experiment, condition): scores, tests, chance flags, regimes (without the bootstrap
        stability and the score intervals, which :func:`complete_spectrum` adds).
    observers : pandas.DataFrame
        One row per human and condition (correct, trials, accuracy, logit).
    reference : dict
        ``{experiment: (reference conditions,)}``.
    reference_logits, reference_accuracies : numpy.ndarray
        The human values of the reference pool.
    regimes : RegimeFit
        The mixture fit of the OOD scores.
    boot_scores : numpy.ndarray or None
        (resamples x conditions) OOD scores under observer resampling; None without resamples.
    settings : dict
        Every option the spectrum runs with.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> fitted = spectrum_regimes(trials[trials["experiment"] == "sim-noise"], {"sim-noise": "0.00"},
    ...                           n_observer_resamples=0)
    >>> fitted.reference, fitted.regimes.n_components >= 1
    ({'sim-noise': ('0.00',)}, True)
    """

    conditions: pd.DataFrame
    observers: pd.DataFrame
    reference: dict
    reference_logits: np.ndarray = field(repr=False)
    reference_accuracies: np.ndarray = field(repr=False)
    regimes: RegimeFit
    boot_scores: np.ndarray | None = field(repr=False)
    settings: dict


@dataclass(frozen=True)
class SpectrumUncertainty:
    """The spectrum's uncertainty (:func:`spectrum_uncertainty`).

    Parameters
    ----------
    stability : RegimeStability or None
        Regime stability under observer resampling (None without resamples).
    scores : Resampled
        The OOD scores with their observer-resampled replicates.
    normality : pandas.DataFrame
        Normality tests of the reference accuracies and logits.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> fitted = spectrum_regimes(trials[trials["experiment"] == "sim-noise"], {"sim-noise": "0.00"},
    ...                           n_observer_resamples=20)
    >>> spectrum_uncertainty(fitted).scores.replicates.shape
    (20, 4)
    """

    stability: RegimeStability | None
    scores: Resampled = field(repr=False)
    normality: pd.DataFrame


def _per_observer(trials: pd.DataFrame) -> pd.DataFrame:
    g = trials.groupby(["experiment", "condition", "observer"], sort=True)["correct"]
    out = g.agg(correct="sum", trials="size").reset_index()
    out["correct"] = out["correct"].astype(int)
    out["accuracy"] = out["correct"] / out["trials"]
    return out


def _mannwhitney(c, r, variant: str):
    if variant == "asymptotic":
        res = mannwhitney_vs_reference(c, r)
        return res.statistic, res.p_value, res.reason
    from scipy import stats as sps

    c = np.asarray(c, dtype=float)
    r = np.asarray(r, dtype=float)
    c, r = c[np.isfinite(c)], r[np.isfinite(r)]
    if c.size == 0 or r.size == 0:
        return np.nan, np.nan, "an empty sample"
    if variant == "exact":
        res = sps.mannwhitneyu(c, r, alternative="two-sided", method="exact")
    else:
        res = sps.mannwhitneyu(c, r, alternative="two-sided", method="asymptotic", use_continuity=False)
    return float(res.statistic), float(res.pvalue), ""


def ood_spectrum(trials: pd.DataFrame, reference=None, **options) -> OODSpectrum:
    """The human-centred OOD spectrum: OOD scores, tests and regimes of every condition.

    :func:`spectrum_regimes`, then :func:`spectrum_uncertainty`, joined by :func:`complete_spectrum`.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table (first presentations are used).
    reference : mapping or sequence, optional
        Undistorted conditions as ``{experiment: condition(s)}`` or ``[(experiment, condition)]``; ``None`` =
        the :data:`~humanlike.measures.ood.common.DEFAULT_REFERENCE` entries present in the data.
    **options
        Every option of :func:`spectrum_regimes` (regimes, max_regimes, n_init, alpha, mw_variant,
        logit_correction, n_observer_resamples, level, seed, family, regime_naming, min_component_size,
        min_sd_fraction, validate).

    Returns
    -------
    OODSpectrum

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> t = simulate_benchmark(seed=0)
    >>> sp = ood_spectrum(t, {e: sorted(t.loc[t["experiment"] == e, "condition"].unique())[0]
    ...                       for e in t["experiment"].unique()}, n_observer_resamples=0)
    >>> bool(sp.conditions.loc[sp.conditions["is_reference"], "mannwhitney_p"].isna().all())
    True
    """
    fitted = spectrum_regimes(trials, reference, **options)
    return complete_spectrum(fitted, spectrum_uncertainty(fitted))


def spectrum_regimes(
    trials: pd.DataFrame,
    reference: Mapping[str, str | Sequence[str]] | Sequence[tuple[str, str]] | None = None,
    *,
    regimes: int | str = "bic",
    max_regimes: int = 4,
    n_init: int = 50,
    alpha: float = 0.05,
    mw_variant: str = "asymptotic",
    logit_correction: str = "half",
    n_observer_resamples: int = 500,
    level: float = 0.95,
    seed=0,
    family: str = "all",
    regime_naming: str = "order",
    min_component_size: int = 3,
    min_sd_fraction: float = 0.02,
    validate: bool = True,
) -> SpectrumRegimes:
    """The spectrum up to its regimes: OOD scores, tests, the mixture fit and the observer-resampled scores.

    The first step of :func:`ood_spectrum` (which takes the same options); :func:`spectrum_uncertainty` and
    :func:`complete_spectrum` finish it. Everything the alignment needs (conditions, scores, regimes, chance
    flags) is known after this step.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table (first presentations are used).
    reference : mapping or sequence, optional
        Undistorted conditions as ``{experiment: condition(s)}`` or ``[(experiment, condition)]``; ``None`` =
        the :data:`~humanlike.measures.ood.common.DEFAULT_REFERENCE` entries present in the data.
    regimes : {"bic", "aicc"} or int
        How the number of mixture components is chosen, or a fixed number.
    max_regimes : int
        Largest number of components tried by BIC / AICc.
    n_init : int
        Seeded initialisations per candidate number of components (each EM run to convergence).
    alpha : float
        Level for the BH rejections and the chance flags.
    mw_variant : {"asymptotic", "asymptotic-no-continuity", "exact"}
        Mann-Whitney U, two-sided: normal approximation with continuity and tie correction (docs/measures/ood-spectrum.md),
        without continuity correction, or scipy's exact null (which ignores ties).
    logit_correction : {"half", "clip"}
        ``'half'``: empirical logit ``ln((k+.5)/(n-k+.5))`` of every cell; ``'clip'``: the plain logit of
        ``k/n`` with 0 and 1 clipped to ``[1/2n, 1-1/2n]``.
    n_observer_resamples : int
        Bootstrap resamples of the human observers for the regime stability and the OOD-score intervals
        (0 skips); drawn per experiment from ``stream(seed, "observers", "spectrum", experiment, block)``.
    level : float
        Level of the OOD-score percentile intervals.
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        Root seed of every random stream (mixture starts, observer resamples); normalised to one recorded int
        as in the resampling settings (:func:`~humanlike.resampling.rng.normalise_seed`).
    family : {"all", "paper"}
        Tested family: every non-reference condition, or the paper's (also without
        :data:`PAPER_UNTESTED_EXPERIMENTS`).
    regime_naming : {"order", "paper"}
        ``'order'``: reference, near-, far-, extreme-OOD by decreasing mean. ``'paper'``: the lowest component
        is 'extreme-OOD' when most of its tested conditions are at chance, the others named in order.
    min_component_size, min_sd_fraction : int, float
        Guards against degenerate mixture components (see :func:`~humanlike.measures.ood.regimes.fit_regimes`).

    Returns
    -------
    SpectrumRegimes

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> fitted = spectrum_regimes(trials[trials["experiment"] == "sim-noise"], {"sim-noise": "0.00"},
    ...                           n_observer_resamples=0)
    >>> fitted.conditions["ood_score"].round(2).tolist(), fitted.boot_scores is None
    ([0.0, -4.76, -10.31, -15.61], True)
    """
    check_choice(mw_variant, MW_VARIANTS, "mw_variant")
    check_choice(logit_correction, LOGIT_CORRECTIONS, "logit_correction")
    check_choice(family, FAMILIES, "family")
    check_choice(regime_naming, REGIME_NAMINGS, "regime_naming")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if int(n_observer_resamples) < 0:
        raise ValueError(f"n_observer_resamples must be >= 0, got {n_observer_resamples}")
    if isinstance(regimes, str):
        check_choice(regimes, ("bic", "aicc"), "regimes")
        n_components, criterion = None, regimes
    else:
        n_components, criterion = int(regimes), "bic"
    seed = normalise_seed(seed)
    if validate:
        trials = validate_trials(trials)
    trials = first_presentations(trials)
    humans = trials[trials["observer_kind"] == "human"]
    if humans.empty:
        raise TrialTableError("the OOD spectrum needs human observers (observer_kind == 'human')")
    ref = resolve_reference(trials, reference)

    obs = _per_observer(humans)
    obs["logit"] = logit_accuracy(obs["correct"].to_numpy(), obs["trials"].to_numpy(), logit_correction)
    is_ref_row = np.zeros(len(obs), dtype=bool)
    for e, cs in ref.items():
        is_ref_row |= ((obs["experiment"] == e) & obs["condition"].isin(cs)).to_numpy()
    obs["is_reference"] = is_ref_row
    ref_logit = obs.loc[is_ref_row, "logit"].to_numpy()
    ref_acc = obs.loc[is_ref_row, "accuracy"].to_numpy()
    if ref_logit.size < 2:
        raise TrialTableError(f"the reference pool holds {ref_logit.size} human value(s) ({_ref_text(ref)}); "
                              "Glass's delta needs at least 2 (more human observers, or more reference conditions)")
    check_reference_spread(obs[is_ref_row], logit_correction)

    n_classes = trials.groupby("experiment")["label"].nunique()
    acc_by = obs.groupby(["experiment", "condition"])["accuracy"].mean()
    keys = []
    for e in sorted(obs["experiment"].unique()):
        conds = obs.loc[obs["experiment"] == e, "condition"].unique()
        ref_c = ref.get(e, (None,))[0]
        acc_e = {c: acc_by.get((e, c), np.nan) for c in conds}
        keys += [(e, c) for c in condition_order(conds, ref_c, acc_e)]

    grouped = {k: g for k, g in obs.groupby(["experiment", "condition"], sort=False)}
    rows = []
    for e, c in keys:
        g = grouped[(e, c)]
        is_ref = c in ref.get(e, ())
        tested = not is_ref and not (family == "paper" and e in PAPER_UNTESTED_EXPERIMENTS)
        gd = glass_delta(g["logit"].to_numpy(), ref_logit)
        k, n = int(g["correct"].sum()), int(g["trials"].sum())
        kk = int(n_classes[e])
        chance = 1.0 / kk if kk >= 2 else np.nan
        if tested:
            u, p_mw, mw_reason = _mannwhitney(g["accuracy"].to_numpy(), ref_acc, mw_variant)
            p_bin = float(binomial_above_chance(k, n, chance)) if kk >= 2 else np.nan
        else:
            u, p_mw, p_bin = np.nan, np.nan, np.nan
            mw_reason = REASON_REFERENCE if is_ref else REASON_OUTSIDE_FAMILY
        rows.append(dict(
            experiment=e, condition=c, is_reference=is_ref, tested=tested, n_humans=int(len(g)),
            n_trials=n, n_correct=k, human_accuracy=float(g["accuracy"].mean()),
            pooled_accuracy=k / n if n else np.nan, mean_logit=gd.mean_condition, ood_score=gd.value,
            ood_reason=gd.reason, mannwhitney_u=u, mannwhitney_p=p_mw, mannwhitney_reason=mw_reason,
            n_classes=kk, chance=chance, binomial_p=p_bin))
    cond = pd.DataFrame(rows)
    mw = benjamini_hochberg(cond["mannwhitney_p"].to_numpy(), alpha)
    bn = benjamini_hochberg(cond["binomial_p"].to_numpy(), alpha)
    cond["mannwhitney_p_adjusted"] = mw.adjusted
    cond["differs_from_reference"] = mw.reject
    cond["binomial_p_adjusted"] = bn.adjusted
    cond["at_chance"] = chance_flags(bn.adjusted, alpha) & cond["tested"].to_numpy()
    cond["above_chance"] = ~cond["at_chance"]

    scores = cond["ood_score"].to_numpy()
    if not np.isfinite(scores).any():
        raise TrialTableError("no condition has a defined OOD score: " + "; ".join(sorted(set(cond["ood_reason"]))))
    fit = fit_regimes(scores, n_components=n_components, criterion=criterion, max_components=max_regimes,
                      n_init=n_init, seed=stream(seed, "regime-fit"), min_component_size=min_component_size,
                      min_sd_fraction=min_sd_fraction)
    if regime_naming == "paper":
        fit = paper_regime_names(fit, cond["at_chance"].to_numpy(), cond["tested"].to_numpy())
    cond["regime_label"] = fit.labels
    cond["regime"] = fit.regimes
    cond["init_stability"] = fit.stability

    boot = observer_bootstrap_scores(obs, keys, ref, int(n_observer_resamples), seed) \
        if n_observer_resamples > 0 else None
    settings = dict(regimes=regimes, criterion=fit.criterion, n_components=fit.n_components,
                    max_regimes=max_regimes, n_init=n_init, alpha=alpha, mw_variant=mw_variant,
                    logit_correction=logit_correction, n_observer_resamples=int(n_observer_resamples), level=level,
                    seed=seed, family=family, regime_naming=regime_naming, min_component_size=min_component_size,
                    min_sd_fraction=min_sd_fraction, n_tests=int(mw.n_tests))
    return SpectrumRegimes(conditions=cond, observers=obs, reference=ref, reference_logits=ref_logit,
                           reference_accuracies=ref_acc, regimes=fit, boot_scores=boot, settings=settings)


def spectrum_uncertainty(fitted: SpectrumRegimes) -> SpectrumUncertainty:
    """The spectrum's uncertainty: regime stability under observer resampling, score intervals, normality.

    Reads ``fitted`` and changes nothing in it, so it can run beside other work on the same fit (as
    :func:`humanlike.measures.ood.analysis.ood_analysis` runs it beside the alignment).

    Parameters
    ----------
    fitted : SpectrumRegimes
        From :func:`spectrum_regimes`.

    Returns
    -------
    SpectrumUncertainty

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> fitted = spectrum_regimes(trials[trials["experiment"] == "sim-noise"], {"sim-noise": "0.00"},
    ...                           n_observer_resamples=50)
    >>> spectrum_uncertainty(fitted).normality["scale"].unique().tolist()
    ['accuracy', 'logit']
    """
    cond, settings, boot = fitted.conditions, fitted.settings, fitted.boot_scores
    keys = list(zip(cond["experiment"], cond["condition"]))
    stab = regime_stability_bootstrap(boot, fitted.regimes, seed=settings["seed"]) if boot is not None else None
    scores = Resampled(
        cond["ood_score"].to_numpy(), boot if boot is not None else np.zeros((0, len(keys))), keys,
        ("experiment", "condition"), cond["ood_reason"].to_numpy(),
        settings=dict(n_resamples=settings["n_observer_resamples"], level=settings["level"],
                      interval="percentile", observer_level="bootstrap", seed=settings["seed"]),
        level=settings["level"])
    norm = []
    for scale, values in (("accuracy", fitted.reference_accuracies), ("logit", fitted.reference_logits)):
        f = normality_tests(values).to_frame()
        f.insert(0, "scale", scale)
        norm.append(f)
    return SpectrumUncertainty(stability=stab, scores=scores, normality=pd.concat(norm, ignore_index=True))


def complete_spectrum(fitted: SpectrumRegimes, uncertainty: SpectrumUncertainty) -> OODSpectrum:
    """The :class:`OODSpectrum` of a fit and its uncertainty (their columns joined; nothing recomputed).

    Parameters
    ----------
    fitted : SpectrumRegimes
        From :func:`spectrum_regimes`.
    uncertainty : SpectrumUncertainty
        From :func:`spectrum_uncertainty` of the same fit.

    Returns
    -------
    OODSpectrum

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> fitted = spectrum_regimes(trials[trials["experiment"] == "sim-noise"], {"sim-noise": "0.00"},
    ...                           n_observer_resamples=0)
    >>> list(complete_spectrum(fitted, spectrum_uncertainty(fitted)).conditions.columns[-4:])
    ['bootstrap_stability', 'ood_score_low', 'ood_score_high', 'ood_score_undefined_share']
    """
    cond = fitted.conditions.copy()
    stab, scores = uncertainty.stability, uncertainty.scores
    cond["bootstrap_stability"] = stab.stability if stab is not None else np.nan
    low, high = scores.interval()
    cond["ood_score_low"], cond["ood_score_high"] = low, high
    cond["ood_score_undefined_share"] = scores.undefined_share()
    ref_logit = fitted.reference_logits
    return OODSpectrum(
        conditions=cond, observers=fitted.observers, reference={e: list(cs) for e, cs in fitted.reference.items()},
        reference_mean=float(np.mean(ref_logit)), reference_sd=float(np.std(ref_logit, ddof=1)),
        normality=uncertainty.normality, regimes=fitted.regimes, stability=stab, boot_scores=fitted.boot_scores,
        settings=fitted.settings, scores=scores)


def _ref_text(ref) -> str:
    return ", ".join(f"{e}={'/'.join(cs)}" for e, cs in ref.items())


def paper_regime_names(fit: RegimeFit, at_chance: np.ndarray, tested: np.ndarray) -> RegimeFit:
    """Regime names as in Xu et al.: the lowest component is 'extreme-OOD' when most of its tested
    conditions are at chance; the other components are named in order (reference, near-, far-OOD).

    Parameters
    ----------
    fit : RegimeFit
        The mixture fit (labels per condition).
    at_chance : numpy.ndarray of bool
        Per condition, whether the humans are at chance there.
    tested : numpy.ndarray of bool
        Per condition, whether it was tested.

    Returns
    -------
    RegimeFit
        ``fit`` with the last name replaced by ``'extreme-OOD'`` when the rule applies, else ``fit`` itself.

    Examples
    --------
    >>> from humanlike.measures.ood.regimes import fit_regimes
    >>> scores = np.array([0.1, -0.2, 0.0, 0.2, -3.0, -3.3, -2.8, -3.1, -9.0, -9.5, -8.7, -9.2])
    >>> fit = fit_regimes(scores, n_components=3, seed=0)
    >>> at_chance = scores < -8   # the humans are at chance in the lowest component
    >>> paper_regime_names(fit, at_chance, np.ones(12, dtype=bool)).names
    ('reference', 'near-OOD', 'extreme-OOD')
    >>> paper_regime_names(fit, np.zeros(12, dtype=bool), np.ones(12, dtype=bool)).names
    ('reference', 'near-OOD', 'far-OOD')
    """
    m = fit.n_components
    last = (fit.labels == m - 1) & tested
    if m < 2 or not last.any() or np.mean(at_chance[last]) < 0.5:
        return fit
    return replace(fit, names=regime_names(m - 1)[: m - 1] + ("extreme-OOD",))
