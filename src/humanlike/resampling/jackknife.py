"""The stratified item jackknife as a statistic: the moments of the leave-one-out rows and the intervals they give.

- :class:`RowMoments`: the count, mean and 2nd-4th central moments of rows, merged exactly across row blocks;
- :class:`JackknifeMoments`: the sums of the stratified jackknife (variance, bias, influence values, effective
  items), one stratum at a time: what a :class:`~humanlike.resampling.results.Resampled` keeps;
- :func:`jackknife_centre_se`, :func:`jackknife_interval` (the bias-corrected normal interval) and
  :func:`jackknife_t_interval` (studentized, skew-corrected): intervals from the jackknife alone, no replicates.

The rows themselves come from the engine's exact leave-one-item-out evaluation
(:mod:`humanlike.resampling.item_jackknife`); the bootstrap intervals, BCa among them (its acceleration is
:meth:`JackknifeMoments.acceleration`), live in :mod:`humanlike.resampling.intervals`. See docs/uncertainty.md.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields

import numpy as np

from .levels import check_level
from .parallel import BLOCK_ELEMENTS


@dataclass(frozen=True)
class RowMoments:
    """Per column: the defined (non-NaN) rows' count and mean and the sums of their deviations' 2nd-4th powers.

    Moments of row blocks merge exactly (:meth:`merged`; Pébay 2008, *Formulas for robust, one-pass parallel
    computation of covariances and arbitrary-order statistical moments*, Sandia report SAND2008-6212, eqs. 2.9
    and 3.1), so one stratum's leave-one-out rows can arrive in memory-sized blocks.

    Attributes
    ----------
    n : numpy.ndarray
        Defined rows per column, shape (k,).
    mean : numpy.ndarray
        Their mean (NaN where n = 0).
    m2, m3, m4 : numpy.ndarray
        ``sum d_i^p`` for p = 2, 3, 4 over the deviations ``d_i`` of the defined rows from their mean.

    Examples
    --------
    >>> m = RowMoments.of(np.array([[1.0], [2.0], [np.nan], [5.0]]))
    >>> m.n.tolist(), m.mean.tolist(), m.m2.tolist(), m.m3.tolist()
    ([3], [2.6666666666666665], [8.666666666666668], [7.777777777777784])
    >>> a, b = RowMoments.of(np.array([[1.0], [2.0]])), RowMoments.of(np.array([[5.0]]))
    >>> bool(np.allclose(a.merged(b).m4, RowMoments.of(np.array([[1.0], [2.0], [5.0]])).m4))
    True
    """

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    m3: np.ndarray
    m4: np.ndarray

    @classmethod
    def of(cls, rows: np.ndarray) -> RowMoments:
        """The moments of rows (n x k; NaN skipped), a block of columns at a time (bounded temporaries).

        Parameters
        ----------
        rows : numpy.ndarray
            Shape (n x k).

        Returns
        -------
        RowMoments
        """
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        k = rows.shape[1]
        n = np.zeros(k, dtype=np.int64)
        mean, m2, m3, m4 = (np.zeros(k) for _ in range(4))
        step = max(1, BLOCK_ELEMENTS // max(rows.shape[0], 1))
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)   # all-NaN columns
            for lo in range(0, k, step):
                block = rows[:, lo:lo + step]
                cols = slice(lo, lo + block.shape[1])
                n[cols] = np.sum(~np.isnan(block), axis=0)
                mean[cols] = np.nanmean(block, axis=0)
                d = block - mean[cols]
                d2 = d * d
                m2[cols] = np.nansum(d2, axis=0)
                m3[cols] = np.nansum(d2 * d, axis=0)
                m4[cols] = np.nansum(d2 * d2, axis=0)
        return cls(n, mean, m2, m3, m4)

    def merged(self, other: RowMoments) -> RowMoments:
        """The moments of both sets of rows together (exact pairwise update, per column).

        Parameters
        ----------
        other : RowMoments
            Moments of further rows of the same columns.

        Returns
        -------
        RowMoments
        """
        na, nb = self.n.astype(float), other.n.astype(float)
        n = na + nb
        both = (na > 0) & (nb > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            delta = np.where(both, other.mean - self.mean, 0.0)
            share_a = np.where(n > 0, na / np.where(n > 0, n, 1.0), 0.0)
            share_b = np.where(n > 0, nb / np.where(n > 0, n, 1.0), 0.0)
            mean = np.where(na > 0, np.where(both, self.mean + delta * share_b, self.mean), other.mean)
            ab = na * share_b
            m2 = self.m2 + other.m2 + delta ** 2 * ab
            m3 = (self.m3 + other.m3 + delta ** 3 * ab * (share_a - share_b)
                  + 3.0 * delta * (share_a * other.m2 - share_b * self.m2))
            m4 = (self.m4 + other.m4 + delta ** 4 * ab * (share_a ** 2 - share_a * share_b + share_b ** 2)
                  + 6.0 * delta ** 2 * (share_a ** 2 * other.m2 + share_b ** 2 * self.m2)
                  + 4.0 * delta * (share_a * other.m3 - share_b * self.m3))
        return RowMoments(self.n + other.n, mean, m2, m3, m4)


@dataclass(frozen=True)
class JackknifeMoments:
    """Per column, what the jackknife intervals need of the leave-one-item-out rows: the stratified jackknife.

    Items are resampled within strata (conditions), so the jackknife is the stratified one: with ``n_s`` defined
    rows ``theta_(si)`` in stratum ``s``, their mean ``mean_s`` and deviations ``d_si = theta_(si) - mean_s``,

    - ``variance = sum_s (n_s - 1) / n_s sum_i d_si^2`` (the SE is its root);
    - ``bias = sum_s (n_s - 1) (theta - mean_s)``: the bias-corrected centre is ``theta + bias``;
    - the influence values ``u_si = (n_s - 1) (mean_s - theta_(si))`` give BCa's acceleration
      ``a = sum u^3 / (6 (sum u^2)^(3/2))`` (:attr:`influence_2`, :attr:`influence_3`);
    - the per-item terms ``w_si = (n_s - 1) / n_s d_si^2`` of the variance give the effective number of
      items ``df = variance^2 / sum w^2`` (:attr:`terms_2` is ``sum w^2``).

    A stratum an output does not depend on has every row equal to the estimate and adds exactly nothing, so an
    output's interval does not depend on which other strata (experiments) were analysed with it. A stratum
    that moves the estimate but has fewer than two defined rows (one item, or every leave-one-out undefined)
    leaves its share of the variance unknown: :attr:`unresolved` counts such strata, and the intervals are
    NaN where it is not 0 (rather than a zero-width interval from nothing). With one
    stratum these are the plain jackknife's ``n theta - (n - 1) mean``, ``(n - 1) / n sum d^2`` and
    ``sum (-d)^3 / (6 (sum d^2)^(3/2))``. The engine keeps these sums (O(outputs) memory) instead of the
    (items x outputs) rows, adding one stratum at a time (:meth:`plus_stratum`).

    Attributes
    ----------
    n : numpy.ndarray
        Defined rows over all strata, shape (k,).
    variance, bias, influence_2, influence_3, terms_2 : numpy.ndarray
        The sums above, shape (k,).
    unresolved : numpy.ndarray
        Strata that move the estimate with fewer than two defined rows, shape (k,).

    Examples
    --------
    Two strata of two rows around an estimate of 1.0: ``variance = 1/2 (0.5) + 1/2 (2) = 1.25``,
    ``bias = (1 - 1.5) + (1 - 2) = -1.5``:

    >>> rows = np.array([[1.0], [2.0], [1.0], [3.0]])
    >>> m = JackknifeMoments.of(rows, np.array([1.0]), strata=np.array([0, 0, 1, 1]))
    >>> m.n.tolist(), m.variance.tolist(), m.bias.tolist()
    ([4], [1.25], [-1.5])
    """

    n: np.ndarray
    variance: np.ndarray
    bias: np.ndarray
    influence_2: np.ndarray
    influence_3: np.ndarray
    terms_2: np.ndarray
    unresolved: np.ndarray

    @classmethod
    def zero(cls, k: int) -> JackknifeMoments:
        """No rows yet, for ``k`` columns.

        Parameters
        ----------
        k : int
            Number of columns.

        Returns
        -------
        JackknifeMoments
        """
        return cls(np.zeros(k, dtype=np.int64), *(np.zeros(k) for _ in range(5)), np.zeros(k, dtype=np.int64))

    @classmethod
    def of(cls, rows, estimate, strata=None) -> JackknifeMoments:
        """The moments of leave-one-out rows (moments given are returned as they are).

        Parameters
        ----------
        rows : numpy.ndarray or JackknifeMoments
            Leave-one-out rows (n x k), NaN skipped.
        estimate : numpy.ndarray
            The point estimates (k,).
        strata : array_like, optional
            The stratum of each row (n,); default: one stratum.

        Returns
        -------
        JackknifeMoments
        """
        if isinstance(rows, JackknifeMoments):
            return rows
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        estimate = np.atleast_1d(np.asarray(estimate, dtype=float))
        moments = cls.zero(rows.shape[1])
        labels = np.zeros(rows.shape[0], dtype=int) if strata is None else np.asarray(strata)
        for label in dict.fromkeys(labels.tolist()):
            moments = moments.plus_stratum(RowMoments.of(rows[labels == label] - estimate))
        return moments

    def plus_stratum(self, stratum: RowMoments) -> JackknifeMoments:
        """These sums with one more stratum's rows added.

        Parameters
        ----------
        stratum : RowMoments
            The moments of one stratum's leave-one-out rows MINUS the estimate (so that a stratum an output
            does not depend on has mean and deviations exactly 0).

        Returns
        -------
        JackknifeMoments
        """
        n = stratum.n.astype(float)
        less = np.maximum(n - 1.0, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(n > 0, less / np.where(n > 0, n, 1.0), 0.0)
        mean = np.where(n > 0, stratum.mean, 0.0)
        # one defined row that moved the estimate, or none at all (rows exist but every one is undefined)
        unresolved = ((n == 1) & (mean != 0)) | (n == 0)
        return JackknifeMoments(self.n + stratum.n,
                                self.variance + share * stratum.m2,
                                self.bias - less * mean,
                                self.influence_2 + less ** 2 * stratum.m2,
                                self.influence_3 - less ** 3 * stratum.m3,
                                self.terms_2 + share ** 2 * stratum.m4,
                                self.unresolved + unresolved)

    def select(self, columns) -> JackknifeMoments:
        """The moments of some columns (indices or a mask).

        Parameters
        ----------
        columns : array_like
            Column indices or a boolean mask.

        Returns
        -------
        JackknifeMoments
        """
        return JackknifeMoments(*(getattr(self, f.name)[columns] for f in fields(self)))

    def acceleration(self) -> np.ndarray:
        """BCa's acceleration ``sum u^3 / (6 (sum u^2)^(3/2))`` per column (0 where the rows do not vary).

        Returns
        -------
        numpy.ndarray
            Shape (k,).
        """
        spread = self.influence_2 > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(spread, self.influence_3 / (6.0 * np.where(spread, self.influence_2, 1.0) ** 1.5), 0.0)

    def effective_items(self) -> np.ndarray:
        """``variance^2 / sum w^2``: the effective number of items carrying the variance (NaN where it is 0).

        Returns
        -------
        numpy.ndarray
            Shape (k,).
        """
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.variance > 0, self.variance ** 2 / self.terms_2, np.nan)


def jackknife_centre_se(estimate: np.ndarray, jackknife, level: float):
    """What the jackknife intervals share: the bias-corrected centre, the SE, the rows' moments.

    Parameters
    ----------
    estimate : numpy.ndarray
        Point estimates, shape (k,).
    jackknife : numpy.ndarray or JackknifeMoments
        Leave-one-out estimates, shape (n x k), NaN rows of a column skipped (one stratum); or their moments.
    level : float
        Confidence level, checked to lie in (0, 1).

    Returns
    -------
    centre, se : numpy.ndarray
        ``theta + bias`` and ``sqrt(variance)`` (:class:`JackknifeMoments`), shape (k,).
    moments : JackknifeMoments
        The rows' moments.
    defined : numpy.ndarray of bool
        Columns with at least two defined rows and no unresolved stratum (:class:`JackknifeMoments`).

    Examples
    --------
    >>> centre, se, moments, defined = jackknife_centre_se(np.array([2.5]), np.array([[1.0], [4.0]]), 0.95)
    >>> centre.tolist(), se.tolist(), moments.n.tolist(), defined.tolist()
    ([2.5], [1.5], [2], [True])
    """
    check_level(level)
    estimate = np.atleast_1d(np.asarray(estimate, dtype=float))
    moments = JackknifeMoments.of(jackknife, estimate)
    with np.errstate(invalid="ignore"):
        se = np.sqrt(moments.variance)
    return estimate + moments.bias, se, moments, (moments.n >= 2) & (moments.unresolved == 0)


def jackknife_interval(estimate: np.ndarray, jackknife: np.ndarray, level: float = 0.95):
    """The jackknife's bias-corrected estimate +- z times the jackknife standard error, column-wise.

    ``centre = n theta - (n - 1) mean(theta_(i))`` and ``se = sqrt((n - 1) / n sum (theta_(i) - mean)^2)`` over
    the ``n`` leave-one-out rows of one stratum (the engine's exact item jackknife keeps these per stratum,
    summed as the stratified jackknife: :class:`JackknifeMoments`); the interval is
    ``centre +- Phi^-1((1 + level) / 2) se``. It needs no replicates. For error
    consistency averaged over conditions and humans near ceiling, the bootstrap's percentile interval
    covers 0.69-0.92 at a nominal 0.95 (its SD is up to 14% short and the mean of kappas is biased down where
    errors are few); this one covers 0.90-0.95, and :func:`jackknife_t_interval` at least 0.93 in every cell
    (benchmarks/ec_aggregate_coverage.py, docs/ec_coverage.md).

    Parameters
    ----------
    estimate : numpy.ndarray
        Point estimates, shape (k,).
    jackknife : numpy.ndarray or JackknifeMoments
        Leave-one-out estimates, shape (n x k), NaN rows of a column skipped; or their :class:`JackknifeMoments`.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray
        Interval bounds, shape (k,); NaN where fewer than two rows are defined.

    Examples
    --------
    >>> jack = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> low, high = jackknife_interval(np.array([2.5]), jack, level=0.95)
    >>> round(float(low[0]), 3), round(float(high[0]), 3)   # se = sqrt(3/4 * 5) = 1.936
    (-1.295, 6.295)
    """
    from statistics import NormalDist

    centre, se, _, defined = jackknife_centre_se(estimate, jackknife, level)
    half = NormalDist().inv_cdf(0.5 + 0.5 * level) * se
    return np.where(defined, centre - half, np.nan), np.where(defined, centre + half, np.nan)


def jackknife_t_interval(estimate: np.ndarray, jackknife: np.ndarray, level: float = 0.95):
    """The jackknife's bias-corrected estimate +- a Student t quantile times its SE, shifted for skewness.

    From the ``n`` leave-one-out rows ``theta_(i)`` of a column in one stratum, with
    ``d_i = theta_(i) - mean(theta_(.))`` (the engine's exact item jackknife sums these over strata as the
    stratified jackknife, :class:`JackknifeMoments`):

    - ``centre = n theta - (n - 1) mean(theta_(.))`` and ``se = sqrt((n - 1) / n sum d_i^2)``, as for
      :func:`jackknife_interval`;
    - ``df = (sum d_i^2)^2 / sum d_i^4``, the effective number of items that carry the jackknife variance
      (Kish's effective sample size with weights ``d_i^2``: ``n`` when every item moves the estimate alike, 1
      when one item does). Where a few items (rare errors) make up the variance, the SE is itself uncertain
      and the t quantile ``q = t_df^-1((1 + level) / 2)`` widens the interval; with many items it is the
      normal quantile;
    - ``a = sum (-d_i)^3 / (6 (sum d_i^2)^(3/2))``, BCa's acceleration (the skewness of the influence values
      over 6 sqrt(n)), shifts both ends by ``a (2 z^2 + 1) se`` with ``z = Phi^-1((1 + level) / 2)``: the
      Cornish-Fisher correction of the studentized statistic's quantiles (Hall 1992, *The Bootstrap and
      Edgeworth Expansion*, sec. 3.5; for a mean, ``t_alpha = z_alpha - a (2 z_alpha^2 + 1)``).

    The interval is ``[centre - q se + shift, centre + q se + shift]``; it needs no replicates. For error
    consistency averaged over conditions and humans near ceiling (the benchmark's regime, 16 cells) it covers
    0.941-0.968 for the model-human and 0.932-0.961 for the human-human mean, where the percentile bootstrap
    covers 0.69-0.92 and :func:`jackknife_interval` 0.90-0.95 (1,000 data sets per cell;
    benchmarks/ec_aggregate_coverage.py, docs/ec_coverage.md, docs/measures/error-consistency.md).

    Parameters
    ----------
    estimate : numpy.ndarray
        Point estimates, shape (k,).
    jackknife : numpy.ndarray or JackknifeMoments
        Leave-one-out estimates, shape (n x k), NaN rows of a column skipped; or their :class:`JackknifeMoments`.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray
        Interval bounds, shape (k,); NaN where fewer than two rows are defined; the centre (zero width) where
        every row is one value.

    Examples
    --------
    Four rows, one item far from the others: ``d = (-1, -1, -1, 3)``, ``sum d^2 = 12``, ``se = sqrt(3/4 12) = 3``,
    ``centre = 4 (1.5) - 3 (1) = 3``, ``df = 144 / 84 = 12/7`` (``q = 5.0685``), ``a = -24 / (6 12^1.5) = -0.0962``
    (``shift = -2.5066``):

    >>> low, high = jackknife_t_interval(np.array([1.5]), np.array([[0.0], [0.0], [0.0], [4.0]]))
    >>> round(float(low[0]), 3), round(float(high[0]), 3)
    (-14.712, 15.699)
    """
    from scipy import stats as sps

    centre, se, moments, defined = jackknife_centre_se(estimate, jackknife, level)
    z = sps.norm.ppf(0.5 + 0.5 * level)
    spread = moments.variance > 0
    q = np.where(spread, sps.t.ppf(0.5 + 0.5 * level, np.where(spread, moments.effective_items(), 1.0)), z)
    shift = moments.acceleration() * (2.0 * z * z + 1.0) * se
    low, high = centre - q * se + shift, centre + q * se + shift
    return np.where(defined, low, np.nan), np.where(defined, high, np.nan)
