"""Statistics of the human-centred OOD spectrum (Xu et al.; docs/measures/ood-spectrum.md).

Per observer and condition: accuracy -> logit; per condition: Glass's delta of the condition's logits
against the reference (undistorted) logits = the OOD score; Mann-Whitney U of accuracies against the
reference; exact binomial test against chance; normality of the reference. The Gaussian-mixture regimes on
the OOD scores ("reference", "near-OOD", "far-OOD", "extreme-OOD") live in ``regimes`` and their bootstrap
stability in ``regime_stability``.

Pure numerics (numpy/scipy/scikit-learn/statsmodels); pandas only inside ``to_frame``. Randomness only
through an explicit ``seed`` turned into a Generator by :func:`humanlike.resampling.rng.make_rng`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...stats.correlation import weighted_midranks


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

    Parameters
    ----------
    correct_counts : array_like of float
        Correct trials ``k`` per cell.
    trial_counts : array_like of float
        Trials ``n`` per cell (broadcastable with ``correct_counts``).
    correction : {"half", "clip", "none"}, default "half"
        How accuracies of 0 and 1 are kept finite (see above).

    Returns
    -------
    float or numpy.ndarray
        The logit per cell (natural log); NaN where ``n = 0``.

    Raises
    ------
    ValueError
        If not ``0 <= k <= n``, or for an unknown ``correction``.

    Notes
    -----
    docs/measures/ood-spectrum.md (z = logit(a) per observer and condition).

    Examples
    --------
    >>> logit_accuracy([0, 5, 10], 10).round(3).tolist()
    [-3.045, 0.0, 3.045]
    >>> logit_accuracy([0, 5, 10], 10, correction="clip").round(3).tolist()
    [-2.944, 0.0, 2.944]
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
    """Glass's delta of one condition against the reference (NaN with ``reason`` when undefined).

    Attributes
    ----------
    value : float
        ``(mean_condition - mean_reference) / sd_reference``; NaN when undefined.
    mean_condition, mean_reference : float
        Means of the two samples (NaNs dropped).
    sd_reference : float
        Sample SD (ddof=1) of the reference.
    n_condition, n_reference : int
        Sample sizes after dropping NaNs.
    reason : str
        Empty when defined, else why ``value`` is NaN.

    Examples
    --------
    >>> delta = glass_delta([0.0, 1.0], [2.0, 3.0, 4.0])
    >>> delta.value, delta.sd_reference, delta.reason
    (-2.5, 1.0, '')
    """

    value: float
    mean_condition: float
    mean_reference: float
    sd_reference: float
    n_condition: int
    n_reference: int
    reason: str = ""

    def to_frame(self):
        """The result as a one-row tidy table.

        Returns
        -------
        pandas.DataFrame
            One row with the columns ``value``, ``mean_condition``, ``mean_reference``, ``sd_reference``,
            ``n_condition``, ``n_reference``, ``reason``.
        """
        import pandas as pd

        return pd.DataFrame([self.__dict__])


def glass_delta(condition_values, reference_values) -> GlassDelta:
    """Glass's delta ``(mean(cond) - mean(ref)) / sd(ref, ddof=1)``.

    NaNs are dropped first. Undefined (NaN with a reason) with fewer than 2 reference values, a reference
    SD of 0 (below 1e-12 relative to the reference mean: equal values up to rounding), or no condition values. Used on logit accuracies it is the OOD score (negative = harder than
    the reference).

    Parameters
    ----------
    condition_values : array_like of float
        The condition's values (e.g. per-observer logit accuracies).
    reference_values : array_like of float
        The reference values.

    Returns
    -------
    GlassDelta
        The delta, its parts and the reason when undefined.

    Raises
    ------
    ValueError
        If either sample holds infinite values.

    Notes
    -----
    The OOD score of docs/measures/ood-spectrum.md.

    Examples
    --------
    >>> glass_delta([0.0, 1.0], [2.0, 3.0, 4.0]).value
    -2.5
    >>> glass_delta([0.0], [2.0, 2.0]).reason
    'reference values have SD 0'
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
    """Glass's delta of each array in ``conditions`` against one reference: (values, reasons) arrays.

    Parameters
    ----------
    conditions : sequence of array_like
        One sample per condition.
    reference_values : array_like of float
        The common reference sample.

    Returns
    -------
    values : numpy.ndarray of float
        Glass's delta per condition (NaN where undefined).
    reasons : numpy.ndarray of object
        Empty string where defined, else why the value is NaN.

    Examples
    --------
    >>> values, reasons = glass_deltas([[0.0, 1.0], [], [3.0]], [2.0, 3.0, 4.0])
    >>> values.tolist(), reasons.tolist()
    ([-2.5, nan, 0.0], ['', 'no condition values', ''])
    """
    results = [glass_delta(c, reference_values) for c in conditions]
    return (
        np.array([g.value for g in results], dtype=float),
        np.array([g.reason for g in results], dtype=object),
    )


# ------------------------------------------------------------------------------------------- tests


@dataclass(frozen=True)
class MannWhitneyResult:
    """Two-sided Mann-Whitney U of a condition against the reference. ``statistic`` is U of the condition.

    Attributes
    ----------
    statistic : float
        U of the condition sample.
    p_value : float
        Two-sided p-value (normal approximation).
    n_condition, n_reference : int
        Sample sizes after dropping NaNs.
    reason : str
        Empty when defined, else why the test is NaN.

    Examples
    --------
    >>> result = mannwhitney_vs_reference([0.5, 0.6, 0.55], [0.9, 0.95, 0.92, 0.97])
    >>> result.statistic, round(result.p_value, 4)
    (0.0, 0.0518)
    """

    statistic: float
    p_value: float
    n_condition: int
    n_reference: int
    reason: str = ""

    def to_frame(self):
        """The result as a one-row tidy table.

        Returns
        -------
        pandas.DataFrame
            One row with the columns ``statistic``, ``p_value``, ``n_condition``, ``n_reference``, ``reason``.
        """
        import pandas as pd

        return pd.DataFrame([self.__dict__])


def mannwhitney_vs_reference(cond_acc, ref_acc) -> MannWhitneyResult:
    """Two-sided Mann-Whitney U test of the condition's accuracies against the reference accuracies.

    Variant: normal approximation with continuity correction and tie-corrected variance
    (``scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True, alternative='two-sided')``).
    ``statistic`` is U of the condition sample. NaNs are dropped; NaN with a reason when either sample is
    empty.

    Parameters
    ----------
    cond_acc : array_like of float
        Accuracies of the condition's observers.
    ref_acc : array_like of float
        Accuracies of the reference observers.

    Returns
    -------
    MannWhitneyResult
        U, the two-sided p-value and the sample sizes.

    Raises
    ------
    ValueError
        If a sample holds infinite values.

    Notes
    -----
    docs/measures/ood-spectrum.md (tests per condition).

    Examples
    --------
    >>> mannwhitney_vs_reference([0.5, 0.6, 0.55], [0.9, 0.95, 0.92, 0.97]).statistic
    0.0
    >>> mannwhitney_vs_reference([], [0.9]).reason
    'an empty sample'
    """
    c = _finite_1d(cond_acc, "cond_acc")
    r = _finite_1d(ref_acc, "ref_acc")
    if c.size == 0 or r.size == 0:
        return MannWhitneyResult(float("nan"), float("nan"), int(c.size), int(r.size), "an empty sample")
    u, p = _mannwhitney_asymptotic(c, r)
    return MannWhitneyResult(u, p, int(c.size), int(r.size), "")


def _mannwhitney_asymptotic(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """U of ``x`` and the two-sided p-value with continuity and tie correction, as scipy.stats.mannwhitneyu.

    Midranks and tie counts are whole or half numbers, so their sums are exact whatever the order; the rest
    follows scipy's operations in scipy's order (``2 * ndtr(-z)`` clipped to [0, 1]): the same numbers to the
    bit (tested), without importing scipy.stats (over a second at start-up) on the spectrum's critical path.
    """
    from scipy.special import ndtr

    xy = np.concatenate([x, y])
    n1, n2, n = x.size, y.size, xy.size
    ties = np.unique(xy, return_counts=True)[1].astype(float)
    u1 = np.sum(weighted_midranks(xy, np.ones(n))[:n1]) - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - np.sum(ties**3 - ties) / (n * (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - n1 * n2 / 2 - 0.5) / s
    return float(u1), float(np.clip(2 * ndtr(-z), 0.0, 1.0))


def binomial_above_chance(k, n, chance):
    """One-sided exact binomial p-value ``P(X >= k)``, ``X ~ Binomial(n, chance)`` (alternative 'greater').

    Vectorised; equals ``scipy.stats.binomtest(k, n, chance, alternative='greater').pvalue``. Use the
    pooled correct trials of a condition and ``chance = 1/K``. NaN where ``n = 0``.

    Parameters
    ----------
    k : array_like of int
        Correct trials.
    n : array_like of int
        Trials (broadcastable with ``k``).
    chance : float or array_like of float
        Chance accuracy in (0, 1), e.g. 1/16 for 16 classes.

    Returns
    -------
    float or numpy.ndarray
        The one-sided p-value per cell.

    Raises
    ------
    ValueError
        If ``chance`` is outside (0, 1) or the counts are not integers with ``0 <= k <= n``.

    Examples
    --------
    >>> binomial_above_chance([3, 10, 0], [10, 10, 0], 0.25).round(4).tolist()
    [0.4744, 0.0, nan]
    >>> float(binomial_above_chance(10, 10, 0.25)) == 0.25 ** 10
    True
    """
    from scipy.special import betainc

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    chance = np.asarray(chance, dtype=float)
    if np.any((chance <= 0) | (chance >= 1)):
        raise ValueError("chance must lie in (0, 1)")
    if np.any((k < 0) | (k > n)) or np.any(np.mod(k, 1) != 0) or np.any(np.mod(n, 1) != 0):
        raise ValueError("need integer counts 0 <= k <= n")
    # P(X >= k) = I_chance(k, n - k + 1): scipy.stats.binom.sf(k - 1, n, chance) to the bit (both Boost's
    # incomplete beta; tested), without importing scipy.stats
    with np.errstate(invalid="ignore"):
        p = np.where(k > 0, betainc(np.maximum(k, 1), n - k + 1, chance), 1.0)
    p = np.where(n > 0, np.clip(p, 0.0, 1.0), np.nan)
    return _scalar(p)


def chance_flags(pooled_pvalues_adjusted, alpha: float = 0.05):
    """True for conditions *not* shown above chance: adjusted p > alpha, or NaN (untestable).

    Parameters
    ----------
    pooled_pvalues_adjusted : array_like of float
        Multiplicity-adjusted p-values of :func:`binomial_above_chance` per condition.
    alpha : float, default 0.05
        Significance level.

    Returns
    -------
    bool or numpy.ndarray of bool
        True where the condition is at chance (not significantly above it).

    Examples
    --------
    >>> chance_flags([0.01, 0.2, float("nan")]).tolist()
    [False, True, True]
    """
    p = np.asarray(pooled_pvalues_adjusted, dtype=float)
    return _scalar(~(p <= alpha))


@dataclass(frozen=True)
class NormalityResult:
    """Shapiro-Wilk, D'Agostino-Pearson and Lilliefors tests of one sample (NaN + reason when undefined).

    Attributes
    ----------
    n : int
        Sample size after dropping NaNs.
    shapiro_statistic, shapiro_p, shapiro_reason : float, float, str
        Shapiro-Wilk W, its p-value, and why they are NaN (empty when defined).
    dagostino_statistic, dagostino_p, dagostino_reason : float, float, str
        D'Agostino-Pearson K^2, its p-value and reason.
    lilliefors_statistic, lilliefors_p, lilliefors_reason : float, float, str
        Lilliefors D, its p-value and reason.

    Examples
    --------
    >>> result = normality_tests([0.1, 0.4, 0.35, 0.8, 0.5, 0.45])
    >>> round(result.shapiro_statistic, 3), result.dagostino_reason
    (0.955, 'needs n >= 8')
    """

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
        """The result as a tidy table, one row per test.

        Returns
        -------
        pandas.DataFrame
            Rows ``shapiro``, ``dagostino``, ``lilliefors``; columns ``test``, ``n``, ``statistic``,
            ``p_value``, ``reason``.
        """
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

    Parameters
    ----------
    values : array_like of float
        The sample; NaNs are dropped.

    Returns
    -------
    NormalityResult
        Statistic, p-value and reason of each test.

    Raises
    ------
    ValueError
        If the sample holds infinite values.

    Notes
    -----
    docs/measures/ood-spectrum.md (normality of the reference accuracies and logits).

    Examples
    --------
    >>> table = normality_tests([0.1, 0.4, 0.35, 0.8, 0.5, 0.45]).to_frame()
    >>> table["test"].tolist(), table["p_value"].round(3).tolist()
    (['shapiro', 'dagostino', 'lilliefors'], [0.777, nan, 0.505])
    """
    from scipy import stats as sps
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
