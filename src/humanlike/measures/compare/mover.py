"""The interval of a difference of two single-table error consistencies: MOVER on the profile intervals.

Where each model's EC with the human is ONE 2x2 table (one human, one condition), the percentile interval of
the paired bootstrap under-covers when errors are few (docs/compare_calibration.md), for the reason the
single-pair percentile interval does (docs/ec_coverage.md): kappa's sampling distribution is then discrete and
skewed. The single-pair profile-likelihood interval (:func:`humanlike.measures.ec.interval.ec_profile_interval`)
holds its level there, and MOVER ("method of variance estimates recovery", Zou & Donner 2008, *Construction of
confidence limits about effect measures: a general approach*, Stat Med 27:1693; Newcombe's hybrid for a
difference of correlated quantities) turns two such intervals into one for the difference. With estimates
``k1``, ``k2``, their intervals ``(l1, u1)``, ``(l2, u2)`` and ``r`` the correlation of the two estimates:

    L = (k1 - k2) - sqrt((k1 - l1)^2 + (u2 - k2)^2 - 2 r (k1 - l1) (u2 - k2))
    U = (k1 - k2) + sqrt((u1 - k1)^2 + (k2 - l2)^2 - 2 r (u1 - k1) (k2 - l2))

``r`` is the large-sample (delta-method) correlation of the two kappa estimates under the multinomial
distribution of the trials' joint outcome (the 8 cells: human, A, B correct or not), computed from the observed
joint table with :data:`JOINT_PSEUDO_COUNT` added to every cell (:func:`joint_correlation`). Two things make the
plain plug-in estimate unsafe where errors are few, both measured (docs/compare_calibration.md): the
correlation of the paired bootstrap replicates scatters widely around its true value (plugged in, it
under-covers: 0.919-0.928 in 5 cells of the calibration grid), and two strongly correlated models often agree
on every trial of a small sample, where any plug-in correlation is exactly 1 and the interval collapses to
nearly a point (MOVER with the bootstrap correlation's lower limit: coverage 0.888-0.915 in 5 of 18 cells
with 100-1,600 trials where model B repeats model A's answer on 90% of the trials). The pseudo-count keeps
``r`` below 1 by what the unseen discordant trials could be, and MOVER uses a positive ``r`` only as far as the
data resolve it above 0: its one-sided lower confidence limit at the interval's level, by Fisher's z with the
number of informative trials ``m`` (trials on which the human or either model erred; the others only add to
the all-correct cell), floored at 0:

    r_used = tanh(max(atanh(r) - z_level / sqrt(m - 3), 0))   for r > 0;   r_used = r   for r <= 0

(a negative ``r`` widens the interval and is kept). Where ``r`` cannot be computed it is taken as 0 and the
method says so. Two special cases:

* **identical models** (correct on exactly the same trials): the two tables are the same, so the difference
  is exactly 0 (and the bootstrap p-value 1); the interval is symmetric about 0 and not [0, 0], because two
  different observers can agree on every trial of a finite sample;
* **an undefined kappa** (both observers of a table constant): the difference is NaN with the table's
  reason, and the interval is the set of differences the two profile intervals allow,
  ``[l1 - u2, u1 - l2]`` (the profile interval is defined also where its estimate is not: it says which kappas
  the data cannot exclude).

Coverage over the grid of docs/ec_coverage.md: ``benchmarks/compare_calibration.py --part coverage``,
docs/compare_calibration.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..ec.interval import ec_profile_interval

#: Added to each of the 8 joint cells before computing the correlation of the two kappas (chosen by coverage
#: among 0.1, 0.25, 0.5 and 1 on the calibration's data sets: all kept every cell at 0.93 or above, 0.1 was the
#: least conservative with correlated models; docs/compare.md).
JOINT_PSEUDO_COUNT = 0.1
#: The method named in ``compare``'s ``interval`` column for a difference of two single-table EC values.
MOVER_METHOD = "MOVER (profile-likelihood limits, lower limit of the multinomial correlation)"
#: ... with the correlation plugged in as given (``correlation_limit=False``; for the calibration).
PLAIN_MOVER_METHOD = "MOVER (profile-likelihood limits, correlation as given)"
#: ... where the correlation could not be computed (taken as 0).
MOVER_UNCORRELATED = "MOVER (profile-likelihood limits, correlation 0)"
#: ... where a kappa is undefined: every difference the two profile intervals allow.
BOX_METHOD = "profile-likelihood limits (estimate undefined)"


@dataclass(frozen=True)
class DifferenceInterval:
    """Difference of two single-table EC values with its interval (arrays, one entry per pair).

    Attributes
    ----------
    difference : numpy.ndarray
        ``k1 - k2`` (NaN where a kappa is undefined).
    low, high : numpy.ndarray
        The interval.
    correlation : numpy.ndarray
        The ``r`` used (NaN for undefined differences).
    method : numpy.ndarray of str
        Which interval each entry is (:data:`MOVER_METHOD`, :data:`MOVER_UNCORRELATED`, :data:`BOX_METHOD`).
    reason : numpy.ndarray of str
        Why the difference is undefined ("" where defined).

    Examples
    --------
    >>> out = DifferenceInterval(np.array([0.1]), np.array([-0.05]), np.array([0.25]), np.array([0.4]),
    ...                          np.array([MOVER_METHOD]), np.array([""]))
    >>> float(out.high[0] - out.low[0])
    0.3
    """

    difference: np.ndarray
    low: np.ndarray
    high: np.ndarray
    correlation: np.ndarray
    method: np.ndarray
    reason: np.ndarray


def mover_limits(k1, l1, u1, k2, l2, u2, r) -> tuple[np.ndarray, np.ndarray]:
    """MOVER limits of ``k1 - k2`` from the two estimates' limits and their correlation (module docstring).

    Parameters
    ----------
    k1, l1, u1 : array_like
        First estimate and its interval.
    k2, l2, u2 : array_like
        Second estimate and its interval.
    r : array_like
        Correlation of the two estimates, in [-1, 1].

    Returns
    -------
    (low, high) : tuple of numpy.ndarray

    Examples
    --------
    >>> low, high = mover_limits(0.5, 0.3, 0.65, 0.2, 0.05, 0.4, 0.5)
    >>> round(float(low), 4), round(float(high), 4)   # 0.3 -+ sqrt(0.04 + 0.04 - 0.04), sqrt(0.0225 + 0.0225 - 0.0225)
    (0.1, 0.45)
    """
    k1, l1, u1, k2, l2, u2, r = (np.asarray(x, dtype=float) for x in (k1, l1, u1, k2, l2, u2, r))
    d = k1 - k2
    below1, above2 = k1 - l1, u2 - k2
    above1, below2 = u1 - k1, k2 - l2
    # the radicands are >= (1 - |r|) (x^2 + y^2) >= 0 but for rounding
    low = d - np.sqrt(np.maximum(below1**2 + above2**2 - 2 * r * below1 * above2, 0.0))
    high = d + np.sqrt(np.maximum(above1**2 + below2**2 - 2 * r * above1 * below2, 0.0))
    return low, high


def replicate_correlation(a, b) -> np.ndarray:
    """Pearson correlation of paired replicates, column by column, over the rows where both are defined.

    Parameters
    ----------
    a, b : array_like
        Replicates, shape (R, K) (or (R,)), row r of both from the same resample.

    Returns
    -------
    numpy.ndarray
        Shape (K,); NaN where fewer than 3 rows are defined in both or one column is constant there.

    Examples
    --------
    >>> replicate_correlation([[1.0], [2.0], [3.0], [np.nan]], [[2.0], [4.0], [7.0], [1.0]]).round(4).tolist()
    [0.9934]
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim == 1:
        a, b = a[:, None], b[:, None]
    both = np.isfinite(a) & np.isfinite(b)
    n = both.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        a0, b0 = np.where(both, a, 0.0), np.where(both, b, 0.0)
        ma, mb = a0.sum(axis=0) / n, b0.sum(axis=0) / n
        da, db = np.where(both, a - ma, 0.0), np.where(both, b - mb, 0.0)
        saa, sbb = (da * da).sum(axis=0), (db * db).sum(axis=0)
        r = (da * db).sum(axis=0) / np.sqrt(saa * sbb)
    # a constant column (up to rounding) has no correlation
    tiny = 1e-24 * np.maximum(n, 1)
    return np.where((n >= 3) & (saa > tiny) & (sbb > tiny), np.clip(r, -1.0, 1.0), np.nan)


def _kappa_gradient(table: np.ndarray) -> np.ndarray:
    """Gradient of kappa with respect to the 4 cell proportions (both correct, only 1, only 2, both wrong)."""
    p11, p10, p01, p00 = table.T
    p1, p2 = p11 + p10, p11 + p01
    po, pe = p11 + p00, p1 * p2 + (1.0 - p1) * (1.0 - p2)
    d_po, d_pe = 1.0 / (1.0 - pe), (po - 1.0) / (1.0 - pe) ** 2
    d_p1, d_p2 = d_pe * (2.0 * p2 - 1.0), d_pe * (2.0 * p1 - 1.0)
    return np.stack([d_po + d_p1 + d_p2, d_p1, d_p2, d_po], axis=1)


def joint_correlation(joint_counts, pseudo_count: float = JOINT_PSEUDO_COUNT) -> np.ndarray:
    """Large-sample correlation of the human's kappa with model A and with model B from their joint counts.

    The trials' joint outcome (human, A, B correct or not) is multinomial over 8 cells with proportions ``p``;
    each kappa is a function of them, and the delta method gives
    ``cov(kA, kB) = (g_A' (diag(p) - p p') g_B) / n`` with ``g`` the kappas' gradients in ``p``; the
    correlation is free of ``n``. Computed at the observed proportions with ``pseudo_count`` added to each cell
    (module docstring).

    Parameters
    ----------
    joint_counts : array_like of int
        Shape (K, 8) (or (8,)): counts of the cells ``4 h + 2 a + b`` (``h``, ``a``, ``b``: human, A, B correct).
    pseudo_count : float
        Added to every cell (> 0).

    Returns
    -------
    numpy.ndarray
        Shape (K,), in [-1, 1]; NaN where a kappa has no variance.

    Raises
    ------
    ValueError
        On a pseudo-count <= 0 or a shape other than (K, 8).

    Examples
    --------
    >>> joint_correlation([[30, 5, 5, 5, 5, 5, 5, 40], [1, 0, 0, 0, 0, 0, 0, 99]]).round(3).tolist()
    [0.371, 0.478]
    """
    if not pseudo_count > 0:
        raise ValueError(f"pseudo_count must be positive, got {pseudo_count}")
    c = np.asarray(joint_counts, dtype=float)
    c = c.reshape(1, -1) if c.ndim == 1 else c
    if c.ndim != 2 or c.shape[1] != 8:
        raise ValueError(f"joint counts must have 8 cells per row, got shape {np.shape(joint_counts)}")
    p = (c + pseudo_count) / (c + pseudo_count).sum(axis=1, keepdims=True)
    h, a, b = (np.arange(8) >> 2) & 1, (np.arange(8) >> 1) & 1, np.arange(8) & 1
    # the 4-cell index (both correct, only the human, only the model, both wrong) of each joint cell
    cell_a, cell_b = np.array([0, 1, 2, 3])[2 * (1 - h) + (1 - a)], np.array([0, 1, 2, 3])[2 * (1 - h) + (1 - b)]
    table_a, table_b = np.zeros((len(p), 4)), np.zeros((len(p), 4))
    np.add.at(table_a.T, cell_a, p.T)
    np.add.at(table_b.T, cell_b, p.T)
    ga, gb = _kappa_gradient(table_a)[:, cell_a], _kappa_gradient(table_b)[:, cell_b]

    def cov(x, y):
        return (p * x * y).sum(axis=1) - (p * x).sum(axis=1) * (p * y).sum(axis=1)

    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov(ga, gb) / np.sqrt(cov(ga, ga) * cov(gb, gb))
    return np.clip(r, -1.0, 1.0)


def correlation_lower_limit(r, informative_trials, level: float = 0.95) -> np.ndarray:
    """A positive correlation replaced by its one-sided lower confidence limit, floored at 0 (module docstring).

    ``tanh(max(atanh(r) - z_level / sqrt(m - 3), 0))`` for ``r > 0`` (``m - 3`` at least 1), ``r`` itself for
    ``r <= 0``, NaN where ``r`` is NaN.

    Parameters
    ----------
    r : array_like
        Estimated correlations.
    informative_trials : array_like of int
        ``m``: trials on which the human or either model erred.
    level : float
        One-sided level of the limit.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> correlation_lower_limit([0.5, 0.1, -0.2, 1.0], [103, 103, 103, 10]).round(4).tolist()
    [0.3669, 0.0, -0.2, 1.0]
    """
    r = np.asarray(r, dtype=float)
    m = np.asarray(informative_trials, dtype=float)
    z = NormalDist().inv_cdf(level)
    with np.errstate(divide="ignore", invalid="ignore"):
        lowered = np.tanh(np.maximum(np.arctanh(np.clip(r, -1.0, 1.0)) - z / np.sqrt(np.maximum(m - 3.0, 1.0)),
                                     0.0))
    return np.where(r > 0, lowered, r)


def ec_difference_interval(table_a, table_b, correlation, informative_trials, level: float = 0.95, *,
                           correlation_limit: bool = True) -> DifferenceInterval:
    """The interval of ``EC_A - EC_B``, each EC one 2x2 table with the same human (module docstring).

    Parameters
    ----------
    table_a, table_b : array_like of int
        Shape (K, 4): counts (both correct, only the human correct, only the model correct, both wrong) of the
        human with model A and with model B.
    correlation : array_like of float
        Shape (K,): correlation of the two kappa estimates (:func:`joint_correlation`; NaN: not computable, 0 is
        used).
    informative_trials : array_like of int
        Shape (K,): trials on which the human or either model erred (for :func:`correlation_lower_limit`).
    level : float
        Confidence level.
    correlation_limit : bool
        Use a positive ``r`` through :func:`correlation_lower_limit` (default); False plugs it in as estimated
        (plain MOVER: under-covers where errors are few; docs/compare_calibration.md compares both).

    Returns
    -------
    DifferenceInterval

    Raises
    ------
    ValueError
        When the shapes do not match (and as :func:`humanlike.measures.ec.interval.ec_profile_interval`).

    Examples
    --------
    >>> out = ec_difference_interval([[40, 10, 10, 40], [40, 10, 10, 40]], [[30, 20, 20, 30], [40, 10, 10, 40]],
    ...                              [0.3, 1.0], [60, 20])
    >>> out.difference.round(2).tolist(), bool(out.low[0] < 0.4 < out.high[0]), out.method[0] == MOVER_METHOD
    ([0.4, 0.0], True, True)
    >>> round(float(out.low[1]), 4), round(float(out.high[1]), 4)   # the same table twice, r = 1
    (-0.0439, 0.0439)
    """
    a = np.asarray(table_a).reshape(-1, 4)
    b = np.asarray(table_b).reshape(-1, 4)
    r = np.asarray(correlation, dtype=float).reshape(-1)
    m = np.asarray(informative_trials, dtype=float).reshape(-1)
    k = len(a)
    if not (len(b) == len(r) == len(m) == k):
        raise ValueError(f"{len(a)} tables of A, {len(b)} of B, {len(r)} correlations and {len(m)} "
                         "informative-trial counts do not match")
    both = ec_profile_interval(*np.concatenate([a, b]).T, level=level)
    estimate, lows, highs = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (both.estimate, both.low, both.high))
    k1, k2, l1, l2, u1, u2 = estimate[:k], estimate[k:], lows[:k], lows[k:], highs[:k], highs[k:]
    reasons = np.atleast_1d(np.asarray(both.reason, dtype=object))
    estimable = np.isfinite(r)
    r_used = np.where(estimable, r, 0.0)
    if correlation_limit:
        r_used = correlation_lower_limit(r_used, m, level)
    low, high = mover_limits(k1, l1, u1, k2, l2, u2, r_used)
    method = np.where(estimable, MOVER_METHOD if correlation_limit else PLAIN_MOVER_METHOD, MOVER_UNCORRELATED)
    method = method.astype(object)
    difference = k1 - k2
    undefined = ~np.isfinite(difference)
    low = np.where(undefined, l1 - u2, low)
    high = np.where(undefined, u1 - l2, high)
    method[undefined] = BOX_METHOD
    reason = np.array(["; ".join(f"model {name}: {why}" for name, why in (("A", ra), ("B", rb)) if why)
                       for ra, rb in zip(reasons[:k], reasons[k:])], dtype=object)
    return DifferenceInterval(difference, low, high, np.where(undefined, np.nan, r_used), method, reason)
