"""The human-centred OOD spectrum with error alignment per regime (Xu et al.; docs/measures/ood-spectrum.md).

:func:`ood_analysis` runs the whole pipeline; its parts live beside this module:

1. **Spectrum** (:mod:`.ood_spectrum`): OOD scores (Glass's delta of human logit accuracies against the
   reference pool), tests on the non-reference conditions with Benjamini-Hochberg over that family, Gaussian
   mixture regimes fitted to convergence with guards against degenerate components, their stability.
2. **Alignment** (:mod:`.ood_alignment`, :mod:`.ood_tables`): EC, MA and CLED of every human-human and
   model-human pair per condition, group means and the alignment ratio, through the resampling engine
   (:func:`humanlike.resampling.engine.bootstrap`): items resampled per condition from the condition's own stream,
   optional observer level, percentile or BCa intervals, undefined shares, one
   :class:`~humanlike.resampling.results.Resampled`.
3. **Structure** (:mod:`.ood_structure`): model alignment profiles and the CLED matrix between conditions,
   with two permutation tests (per-key streams).

``preset='paper'`` switches every choice to the published one (:data:`PAPER_PRESET`).

No-answer responses (``'na'``) count as wrong for accuracy and EC; MA and CLED need the class that was
chosen, so a trial without an answer is left out of the joint-error table (MA) and of the confusion
table (CLED), unless ``na_as_class`` makes 'na' a class of its own (the published code).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...trials.schema import TrialTableError, validate_trials
from ...resampling.parallel import running_beside
from ...stats.permutation import PermutationResult, within_vs_between_groups
from ...resampling.settings import ResamplingSettings
from .alignment import AlignmentSetup, OODAlignment, alignment_setup, ood_alignment, representative_conditions
from .alignment_kernel import alignment_design
from .common import (
    DEFAULT_FAMILIES, DEFAULT_REFERENCE, METRICS, condition_order, families_for, plain,
)
from .spectrum import (
    LOGIT_CORRECTIONS, MW_VARIANTS, PAPER_UNTESTED_EXPERIMENTS, OODSpectrum, SpectrumRegimes, SpectrumUncertainty,
    complete_spectrum, ood_spectrum, spectrum_regimes, spectrum_uncertainty,
)
from .spectrum_bootstrap import observer_bootstrap_scores
from .spectrum_reference import resolve_reference
from .structure import alignment_profiles, classical_mds, condition_cled_matrix, regime_structure_test
from ..measure_result import MeasureResult
from ..pairwise import HUMANS

#: The published choices of Xu et al. (``preset='paper'``); every other option keeps its default.
PAPER_PRESET: dict = {
    "family": "paper",             # tests on the non-reference conditions of the graded experiments + sketch, stylized
    "alpha": 0.01,
    "logit_correction": "clip",    # the plain logit of k/n (0 and 1 clipped to 1/2n so they stay finite)
    "ma_undefined": "one",
    "cled_mixture": "pooled",      # with natural logs (the pooled mixture's default base)
    "na_as_class": True,
    "regime_naming": "paper",      # the component at chance is the extreme-OOD one
}
PRESETS = ("default", "paper")


@dataclass(frozen=True, repr=False)
class OODResult(MeasureResult):
    """The whole OOD analysis: spectrum, alignment, structure tests.

    ``family_test``: are alignment profiles closer within model families (between minus within mean
    Euclidean distance, +1-corrected permutation p); ``regime_test``: is the human CLED structure tighter
    within OOD regimes than within distortion types — statistic: Cohen's d minus its permutation-null mean
    (> 0 exactly when d exceeds random regime groupings of the same sizes; ``observed`` holds d itself), with
    the permutation p of that same comparison. ``condition_cled``: the CLED matrix between conditions
    (rows/columns in ``spectrum.conditions`` order). ``resampled``: the alignment's
    :class:`~humanlike.resampling.results.Resampled` (every pair, group, ratio and regime ratio). Made by
    :func:`ood_analysis`.

    Parameters
    ----------
    spectrum : OODSpectrum
        OOD score, regime and tests per condition.
    alignment : OODAlignment
        Model–human alignment (EC, MA, CLED) per condition, regime and model, with replicates.
    family_test, regime_test : PermutationResult
        The two structure tests above.
    condition_cled : numpy.ndarray
        (conditions x conditions) CLED between conditions, human confusions pooled.
    profiles : pandas.DataFrame
        Model x (metric, experiment) alignment profiles the family test compares.
    settings : dict
        Every option the analysis ran with.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> reference = {"sim-noise": "0.00", "sim-blur": "0", "sim-contrast": "100", "sim-rotation": "0"}
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = ood_analysis(trials, reference, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9)
    >>> result.conditions.groupby("regime").size().to_dict()
    {'far-OOD': 9, 'near-OOD': 3, 'reference': 4}
    >>> noise = result.conditions[result.conditions["experiment"] == "sim-noise"]
    >>> noise["ood_score"].round(2).tolist()   # further from the reference as the noise grows
    [-0.04, -4.22, -9.08, -13.74]
    """

    spectrum: OODSpectrum
    alignment: OODAlignment
    family_test: PermutationResult
    regime_test: PermutationResult
    condition_cled: np.ndarray = field(repr=False)
    profiles: pd.DataFrame = field(repr=False)
    settings: dict

    measure = "ood"
    # the text its command prints is its summary (MeasureResult.summary)
    text_formatter = "humanlike.measures.ood.cli:format_result"
    scope_label = "table"

    def to_wide(self) -> pd.DataFrame:
        """The per-condition table of the spectrum (wide: one column per statistic), as ``humanlike ood``
        writes it (``ood_conditions``); :meth:`to_frame` is the tidy table of the alignment outputs.

        Returns
        -------
        pandas.DataFrame
            One row per (experiment, condition): OOD score and interval, regime, human accuracy, tests.
        """
        return self.spectrum.conditions

    @property
    def resampled(self):
        """The alignment outputs with their kept replicates (``scope`` of :meth:`to_frame`: the alignment table,
        ``pair``, ``group``, ``ratio`` or ``regime``)."""
        return self.alignment.resampled

    @property
    def conditions(self) -> pd.DataFrame:
        """The per-condition spectrum table (scores, regimes, tests)."""
        return self.spectrum.conditions

    def to_json_dict(self) -> dict:
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings.

        Returns
        -------
        dict
            Keys conditions (one record per condition), regimes (fit, human baseline, representatives and model
            ratios per regime), regime_selection, reference, normality, tests and settings.
        """
        cond = self.spectrum.conditions
        cols = ["experiment", "condition", "ood_score", "regime", "human_accuracy", "mannwhitney_p",
                "mannwhitney_p_adjusted", "binomial_p", "binomial_p_adjusted", "above_chance",
                "ood_score_low", "ood_score_high", "is_reference", "n_humans", "init_stability",
                "bootstrap_stability", "at_chance", "tested", "mannwhitney_reason"]
        conditions = [{c: plain(r[c]) for c in cols} for _, r in cond.iterrows()]
        fit = self.spectrum.regimes
        rr = self.alignment.regime_ratios
        reps = self.alignment.representatives
        regimes = []
        for label, name in enumerate(fit.names):
            sub = rr[rr["regime"] == name]
            rsub = reps[reps["regime"] == name]
            regimes.append({
                "regime": name, "mean": fit.means[label], "sd": fit.sds[label], "weight": fit.weights[label],
                "n_conditions": int((cond["regime_label"] == label).sum()),
                "n_at_chance": int(((cond["regime_label"] == label) & cond["at_chance"]).sum()),
                "human_baseline": plain(sub["human_baseline"].iloc[0]) if len(sub) else None,
                "representatives": [{"experiment": e, "condition": c, "ood_score": s}
                                    for e, c, s in zip(rsub["experiment"], rsub["condition"], rsub["ood_score"])],
                "models": [{k: plain(v) for k, v in r.items() if k not in ("regime", "human_baseline", "n_at_chance")}
                           for r in sub.to_dict("records")],
            })
        return {
            "conditions": conditions,
            "regimes": regimes,
            "regime_selection": {"criterion": fit.criterion, "n_components": fit.n_components,
                                 "candidates": self.spectrum.regimes.criteria_frame().to_dict("records")},
            "reference": {"conditions": self.spectrum.reference, "mean_logit": self.spectrum.reference_mean,
                          "sd_logit": self.spectrum.reference_sd},
            "normality": self.spectrum.normality.to_dict("records"),
            "tests": {"family_profiles": _perm_dict(self.family_test, families=self.alignment.settings["families"]),
                      "regime_vs_distortion": _perm_dict(self.regime_test)},
            "settings": self.settings,
        }


def _perm_dict(res: PermutationResult, **extra) -> dict:
    """A permutation result as JSON values."""
    d = {k: plain(v) for k, v in res.__dict__.items()}
    d.update(extra)
    return d


def ood_analysis(
    trials: pd.DataFrame,
    reference=None,
    *,
    settings: ResamplingSettings | None = None,
    preset: str = "default",
    families: Mapping[str, str] | None = None,
    regimes: int | str = "bic",
    max_regimes: int = 4,
    n_init: int = 50,
    alpha: float | None = None,
    mw_variant: str = "asymptotic",
    logit_correction: str | None = None,
    n_observer_resamples: int = 500,
    n_permutations: int = 9999,
    policy="strict",
    ma_undefined: str | None = None,
    cled_alpha: float = 0.5,
    cled_mixture: str | None = None,
    cled_log_base: float | None = None,
    na_as_class: bool | None = None,
    family: str | None = None,
    regime_naming: str | None = None,
    validate: bool = True,
) -> OODResult:
    """The full OOD analysis: :func:`ood_spectrum`, :func:`ood_alignment` and the two permutation tests.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    reference : mapping or sequence, optional
        Reference conditions (see :func:`ood_spectrum`).
    settings : ResamplingSettings, optional
        The one settings object of the item bootstrap (resamples, level, percentile / BCa, observer level
        none / bootstrap / jackknife, seed, memory budget, progress; default ``ResamplingSettings()``). Its
        level and seed also serve the spectrum and the permutation tests.
    preset : {"default", "paper"}
        ``'paper'``: Xu et al.'s choices (:data:`PAPER_PRESET`); an option given explicitly still wins.
    families : mapping, optional
        ``{model: family}`` (default :data:`DEFAULT_FAMILIES`; a model missing from it is its own family).
    n_observer_resamples : int
        Observer resamples for the regime stability and the OOD-score intervals.
    n_permutations : int
        Permutations per structure test.
    regimes, max_regimes, n_init, alpha, mw_variant, logit_correction, family, regime_naming
        See :func:`ood_spectrum`.
    policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, na_as_class
        See :func:`ood_alignment`.
    validate : bool, default True
        Validate the trial table first (a table from :func:`humanlike.trials.loaders.load_trials` already is).

    Returns
    -------
    OODResult

    Notes
    -----
    Every random draw comes from a per-key stream of the one integer seed (items: the engine's per-condition
    streams; observers of the spectrum: ``("spectrum", experiment)``; mixture starts; permutations by test
    name), so :func:`ood_spectrum` alone and this function agree, and no number depends on chunking.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> t = simulate_benchmark(seed=0)
    >>> ref = {e: sorted(t.loc[t["experiment"] == e, "condition"].unique())[0] for e in t["experiment"].unique()}
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = ood_analysis(t, ref, settings=ResamplingSettings(n_resamples=20), n_observer_resamples=0,
    ...                  n_permutations=9)
    >>> list(r.resampled.to_frame().columns[-5:])
    ['estimate', 'ci_low', 'ci_high', 'undefined_share', 'reason']
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {PRESETS}, got {preset!r}")
    chosen = dict(family="all", alpha=0.05, logit_correction="half", ma_undefined="nan", cled_mixture="average",
                  na_as_class=False, regime_naming="order")
    if preset == "paper":
        chosen.update(PAPER_PRESET)
    given = dict(family=family, alpha=alpha, logit_correction=logit_correction, ma_undefined=ma_undefined,
                 cled_mixture=cled_mixture, na_as_class=na_as_class, regime_naming=regime_naming)
    chosen.update({k: v for k, v in given.items() if v is not None})
    settings = ResamplingSettings() if settings is None else settings
    if int(n_permutations) < 1:
        raise ValueError(f"n_permutations must be >= 1, got {n_permutations}")
    if validate:
        trials = validate_trials(trials)
    _check_observers(trials)
    # The alignment's strata and statistics need only the trials: made while the spectrum is fitted. The
    # spectrum's uncertainty (regime refits, normality tests) and the humans' CLED structure test need only the
    # fit: they start as soon as it is there, in the cores that the set-up's serial stretches and then the
    # alignment's leave idle. The alignment needs the regimes and the set-up.
    with running_beside(alignment_setup, trials, policy=policy, ma_undefined=chosen["ma_undefined"],
                        cled_alpha=cled_alpha, cled_mixture=chosen["cled_mixture"], cled_log_base=cled_log_base,
                        na_as_class=chosen["na_as_class"], prepare=True, validate=False) as setting_up:
        fitted = spectrum_regimes(trials, reference, regimes=regimes, max_regimes=max_regimes, n_init=n_init,
                                  alpha=chosen["alpha"], mw_variant=mw_variant,
                                  logit_correction=chosen["logit_correction"],
                                  n_observer_resamples=n_observer_resamples, level=settings.level, seed=settings.seed,
                                  family=chosen["family"], regime_naming=chosen["regime_naming"], validate=False)
        with running_beside(spectrum_uncertainty, fitted) as uncertainty, \
                running_beside(regime_structure_test, trials, fitted.conditions, n_permutations=n_permutations,
                               seed=settings.seed, alpha=cled_alpha, mixture=chosen["cled_mixture"],
                               log_base=cled_log_base, na_as_class=chosen["na_as_class"]) as structure:
            alignment = ood_alignment(trials, fitted, families=families, settings=settings, policy=policy,
                                      ma_undefined=chosen["ma_undefined"], cled_alpha=cled_alpha,
                                      cled_mixture=chosen["cled_mixture"], cled_log_base=cled_log_base,
                                      na_as_class=chosen["na_as_class"], setup=setting_up.result())
    spectrum = complete_spectrum(fitted, uncertainty.result())
    d, regime_test = structure.result()
    profiles = alignment_profiles(alignment)
    fam = alignment.settings["families"]
    if len(profiles) >= 2 and profiles.shape[1] > 0:
        family_test = within_vs_between_groups(profiles.to_numpy(), [fam[m] for m in profiles.index],
                                               n_permutations=n_permutations, seed=settings.seed)
    else:
        family_test = PermutationResult(*([np.nan] * 2), n_permutations, "greater", *([np.nan] * 4),
                                        reason="fewer than two models with a complete profile",
                                        name="between minus within mean distance")
    record = {**spectrum.settings, **alignment.settings, "n_permutations": int(n_permutations), "preset": preset,
              "resampling": settings.to_dict(), "seed": settings.seed, **chosen}
    return OODResult(spectrum, alignment, family_test, regime_test, d, profiles, record)


def _check_observers(trials: pd.DataFrame) -> None:
    """A clear error when the data cannot give an OOD analysis (instead of a failure deep inside)."""
    humans = trials.loc[trials["observer_kind"] == "human", "observer"].unique()
    observers = trials["observer"].unique()
    if len(humans) == 0:
        raise TrialTableError("the OOD analysis needs human observers (observer_kind == 'human'); found none")
    if len(observers) < 2:
        raise TrialTableError(f"the OOD analysis needs at least two observers (error alignment compares pairs); "
                              f"the data hold one: {observers[0]!r}")


__all__ = [
    "AlignmentSetup", "DEFAULT_FAMILIES", "DEFAULT_REFERENCE", "HUMANS", "LOGIT_CORRECTIONS", "METRICS",
    "MW_VARIANTS", "OODAlignment", "OODResult", "OODSpectrum", "PAPER_PRESET", "PAPER_UNTESTED_EXPERIMENTS",
    "SpectrumRegimes", "SpectrumUncertainty", "alignment_design", "alignment_profiles", "alignment_setup",
    "classical_mds", "complete_spectrum", "condition_cled_matrix", "condition_order", "families_for",
    "observer_bootstrap_scores", "ood_alignment", "ood_analysis", "ood_spectrum", "regime_structure_test",
    "representative_conditions", "resolve_reference", "spectrum_regimes", "spectrum_uncertainty",
]
