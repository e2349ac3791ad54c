"""Statistics of the human-centred OOD spectrum (Xu et al.; METHODS.md §4).

Per observer and condition: accuracy -> logit; per condition: Glass's delta of the condition's logits
against the reference (undistorted) logits = the OOD score; Mann-Whitney U of accuracies against the
reference; exact binomial test against chance; normality of the reference; Gaussian-mixture regimes on
the OOD scores ("reference", "near-OOD", "far-OOD", "extreme-OOD").

Pure numerics (numpy/scipy/scikit-learn/statsmodels); pandas only inside ``to_frame``. Randomness only
through an explicit ``seed`` turned into a Generator by :func:`humanlike.stats.rng.make_rng`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from humanlike.stats.regimes import (  # noqa: F401 - the regimes used to live here
    REGIME_NAMES, RegimeFit, RegimeStability, fit_regimes, gmm_n_parameters, regime_names,
    regime_stability_bootstrap,
)


REASON_FEW_REFERENCE = "fewer than 2 reference values"
REASON_ZERO_SD = "reference values have SD 0"
REASON_NO_CONDITION = "no condition values"
REASON_CONSTANT = "values are constant"


def _scalar(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def _finite_1d(values, name: str) -> np.ndarray:
    x = np.asarray(values, dtype=float).ravel()
    if np.any(np.isinf(x)):
        raise ValueError(f"{name} holds infinite values")
    return x[~np.isnan(x)]


# ------------------------------------------------------------------------------------------- logits


def logit_accuracy(correct_counts, trial_counts, correction: str = "half"):
    """Logit of accuracy ``k/n``, vectorised, with a correction so that 0 and 1 stay finite.

    - ``'half'`` (default): the empirical logit ``ln((k + 0.5) / (n - k + 0.5))``, i.e. the logit of
      ``(k + 0.5)/(n + 1)`` (Haldane/Anscombe correction), applied to *every* cell so the transform is
      smooth in k.
    - ``'clip'``: the plain logit of ``k/n`` clipped to ``[1/(2n), 1 - 1/(2n)]`` (only 0 and 1 change).
    - ``'none'``: the plain logit; ``-inf``/``+inf`` at accuracy 0/1.

    ``n = 0`` gives NaN (no trials, accuracy undefined).
    """
    k = np.asarray(correct_counts, dtype=float)
    n = np.asarray(trial_counts, dtype=float)
    if np.any(k < 0) or np.any(n < 0) or np.any(k > n):
        raise ValueError("need 0 <= correct_counts <= trial_counts")
    with np.errstate(divide="ignore", invalid="ignore"):
        if correction == "half":
            out = np.log(k + 0.5) - np.log(n - k + 0.5)
        elif correction == "clip":
            a = np.clip(k / n, 1.0 / (2.0 * n), 1.0 - 1.0 / (2.0 * n))
            out = np.log(a) - np.log1p(-a)
        elif correction == "none":
            a = k / n
            out = np.log(a) - np.log1p(-a)
        else:
            raise ValueError(f"correction must be 'half', 'clip' or 'none', got {correction!r}")
    out = np.where(n > 0, out, np.nan)
    return _scalar(out)


# ------------------------------------------------------------------------------------ Glass's delta


@dataclass(frozen=True)
class GlassDelta:
    """Glass's delta of one condition against the reference (NaN with ``reason`` when undefined)."""

    value: float
    mean_condition: float
    mean_reference: float
    sd_reference: float
    n_condition: int
    n_reference: int
    reason: str = ""

    def to_frame(self):
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
        import pandas as pd

        return pd.DataFrame([self.__dict__])


def glass_delta(condition_values, reference_values) -> GlassDelta:
    """Glass's delta ``(mean(cond) - mean(ref)) / sd(ref, ddof=1)``.

    NaNs are dropped first. Undefined (NaN with a reason) with fewer than 2 reference values, a reference
    SD of 0 (below 1e-12 relative to the reference mean: equal values up to rounding), or no condition values. Used on logit accuracies it is the OOD score (negative = harder than
    the reference).
    """
    c = _finite_1d(condition_values, "condition_values")
    r = _finite_1d(reference_values, "reference_values")
    mean_c = float(c.mean()) if c.size else float("nan")
    mean_r = float(r.mean()) if r.size else float("nan")
    sd_r = float(r.std(ddof=1)) if r.size >= 2 else float("nan")
    if r.size < 2:
        reason = REASON_FEW_REFERENCE
    elif not sd_r > 1e-12 * max(1.0, abs(mean_r)):
        # equal reference values (e.g. every reference observer 100% correct on as many trials) leave an SD
        # of rounding residue (~1e-16), which would turn the score into +-1e15
        reason = REASON_ZERO_SD
    elif c.size == 0:
        reason = REASON_NO_CONDITION
    else:
        reason = ""
    value = (mean_c - mean_r) / sd_r if not reason else float("nan")
    return GlassDelta(float(value), mean_c, mean_r, sd_r, int(c.size), int(r.size), reason)


def glass_deltas(conditions: Sequence, reference_values) -> tuple[np.ndarray, np.ndarray]:
    """Glass's delta of each array in ``conditions`` against one reference: (values, reasons) arrays."""
    results = [glass_delta(c, reference_values) for c in conditions]
    return (
        np.array([g.value for g in results], dtype=float),
        np.array([g.reason for g in results], dtype=object),
    )


# ------------------------------------------------------------------------------------------- tests


@dataclass(frozen=True)
class MannWhitneyResult:
    """Two-sided Mann-Whitney U of a condition against the reference. ``statistic`` is U of the condition."""

    statistic: float
    p_value: float
    n_condition: int
    n_reference: int
    reason: str = ""

    def to_frame(self):
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
        import pandas as pd

        return pd.DataFrame([self.__dict__])


def mannwhitney_vs_reference(cond_acc, ref_acc) -> MannWhitneyResult:
    """Two-sided Mann-Whitney U test of the condition's accuracies against the reference accuracies.

    Variant: normal approximation with continuity correction and tie-corrected variance
    (``scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True, alternative='two-sided')``).
    ``statistic`` is U of the condition sample. NaNs are dropped; NaN with a reason when either sample is
    empty.
    """
    c = _finite_1d(cond_acc, "cond_acc")
    r = _finite_1d(ref_acc, "ref_acc")
    if c.size == 0 or r.size == 0:
        return MannWhitneyResult(float("nan"), float("nan"), int(c.size), int(r.size), "an empty sample")
    res = sps.mannwhitneyu(c, r, alternative="two-sided", method="asymptotic", use_continuity=True)
    return MannWhitneyResult(float(res.statistic), float(res.pvalue), int(c.size), int(r.size), "")


def binomial_above_chance(k, n, chance):
    """One-sided exact binomial p-value ``P(X >= k)``, ``X ~ Binomial(n, chance)`` (alternative 'greater').

    Vectorised; equals ``scipy.stats.binomtest(k, n, chance, alternative='greater').pvalue``. Use the
    pooled correct trials of a condition and ``chance = 1/K``. NaN where ``n = 0``.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    chance = np.asarray(chance, dtype=float)
    if np.any((chance <= 0) | (chance >= 1)):
        raise ValueError("chance must lie in (0, 1)")
    if np.any((k < 0) | (k > n)) or np.any(np.mod(k, 1) != 0) or np.any(np.mod(n, 1) != 0):
        raise ValueError("need integer counts 0 <= k <= n")
    p = sps.binom.sf(k - 1, n, chance)
    p = np.where(n > 0, np.clip(p, 0.0, 1.0), np.nan)
    return _scalar(p)


def chance_flags(pooled_pvalues_adjusted, alpha: float = 0.05):
    """True for conditions *not* shown above chance: adjusted p > alpha, or NaN (untestable)."""
    p = np.asarray(pooled_pvalues_adjusted, dtype=float)
    return _scalar(~(p <= alpha))


@dataclass(frozen=True)
class NormalityResult:
    """Shapiro-Wilk, D'Agostino-Pearson and Lilliefors tests of one sample (NaN + reason when undefined)."""

    n: int
    shapiro_statistic: float
    shapiro_p: float
    shapiro_reason: str
    dagostino_statistic: float
    dagostino_p: float
    dagostino_reason: str
    lilliefors_statistic: float
    lilliefors_p: float
    lilliefors_reason: str

    def to_frame(self):
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
        import pandas as pd

        rows = []
        for test in ("shapiro", "dagostino", "lilliefors"):
            rows.append(
                {
                    "test": test,
                    "n": self.n,
                    "statistic": getattr(self, f"{test}_statistic"),
                    "p_value": getattr(self, f"{test}_p"),
                    "reason": getattr(self, f"{test}_reason"),
                }
            )
        return pd.DataFrame(rows)


def normality_tests(values) -> NormalityResult:
    """Normality of a sample (e.g. reference accuracies or logits); NaNs dropped.

    - Shapiro-Wilk (``scipy.stats.shapiro``), needs n >= 3.
    - D'Agostino-Pearson K^2 (``scipy.stats.normaltest``), needs n >= 8.
    - Lilliefors (``statsmodels.stats.diagnostic.lilliefors``, normal, p-value from its table
      approximation), needs n >= 4.

    Constant samples give NaN for all three (reason ``'values are constant'``).
    """
    from statsmodels.stats.diagnostic import lilliefors

    x = _finite_1d(values, "values")
    n = int(x.size)
    constant = n > 0 and bool(np.all(x == x[0]))
    nan = float("nan")

    def guard(min_n):
        if n < min_n:
            return f"needs n >= {min_n}"
        if constant:
            return REASON_CONSTANT
        return ""

    out = {}
    r = guard(3)
    if r:
        out["shapiro"] = (nan, nan, r)
    else:
        res = sps.shapiro(x)
        out["shapiro"] = (float(res.statistic), float(res.pvalue), "")
    r = guard(8)
    if r:
        out["dagostino"] = (nan, nan, r)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kurtosistest warns below n = 20; the value is still returned
            res = sps.normaltest(x)
        out["dagostino"] = (float(res.statistic), float(res.pvalue), "")
    r = guard(4)
    if r:
        out["lilliefors"] = (nan, nan, r)
    else:
        stat, p = lilliefors(x, dist="norm")
        out["lilliefors"] = (float(stat), float(p), "")
    return NormalityResult(
        n,
        *out["shapiro"],
        *out["dagostino"],
        *out["lilliefors"],
    )
