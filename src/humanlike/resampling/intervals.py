"""Bootstrap intervals from replicates: percentile and bias-corrected and accelerated (BCa), with the column-blocked
quantile code they share.

BCa's acceleration is the item jackknife's (:meth:`~humanlike.resampling.jackknife.JackknifeMoments.acceleration`);
the jackknife's own intervals (bias-corrected normal and jackknife-t, from the leave-one-out rows alone) live in
:mod:`humanlike.resampling.jackknife`, the check of the confidence level in :mod:`humanlike.resampling.levels`.
"""

from __future__ import annotations

import numpy as np

from .jackknife import JackknifeMoments
from .levels import check_level
from .parallel import BLOCK_ELEMENTS, map_in_threads

#: Rows of a column block transposed at a time: a tile small enough for the cache makes the transposed copy
#: several times faster than one ``np.ascontiguousarray`` of the whole block.
TRANSPOSE_TILE_ROWS = 256


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0,
                        nan_counts_out: np.ndarray | None = None):
    """Percentile interval of bootstrap replicates along ``axis`` (NaN replicates ignored).

    The same numbers as ``np.nanquantile(replicates, [alpha, 1 - alpha], axis)``, computed a block of columns at
    a time with single-kth partial sorts (``np.partition``), so memory stays bounded and float32 replicates are
    not copied to float64; blocks run side by side in threads, one per available core.

    Parameters
    ----------
    replicates : numpy.ndarray
        Bootstrap replicates; resamples along ``axis``, any other shape.
    level : float, default 0.95
        Confidence level, in (0, 1).
    axis : int, default 0
        The resample axis.
    nan_counts_out : numpy.ndarray of int64, optional
        Filled with :func:`nan_counts` of the replicates (flattened over the other axes), counted in the same
        pass over the data.

    Returns
    -------
    low, high : numpy.ndarray
        Quantiles ``(1 - level) / 2`` and ``(1 + level) / 2`` (linear interpolation) in the shape of the other
        axes; NaN where no replicate is defined.

    Raises
    ------
    ValueError
        If ``level`` is outside (0, 1).

    Examples
    --------
    >>> replicates = np.column_stack([np.arange(1.0, 102.0), np.r_[np.nan, np.arange(2.0, 102.0)]])
    >>> low, high = percentile_interval(replicates, level=0.5)
    >>> low.tolist(), high.tolist()
    ([26.0, 26.75], [76.0, 76.25])
    """
    check_level(level)
    alpha = (1.0 - level) / 2.0
    replicates = np.moveaxis(np.asarray(replicates), axis, 0)
    if replicates.dtype not in (np.float32, np.float64):
        replicates = replicates.astype(np.float64)
    shape = replicates.shape[1:]
    flat = replicates.reshape(replicates.shape[0], -1)
    bounds = np.full((2, flat.shape[1]), np.nan)
    step = max(1, BLOCK_ELEMENTS // max(flat.shape[0], 1))

    def fill(lo: int) -> None:   # blocks write disjoint columns: threads change no number
        block = transposed_copy(flat[:, lo:lo + step])
        missing = np.count_nonzero(np.isnan(block), axis=1)
        if nan_counts_out is not None:
            nan_counts_out.reshape(-1)[lo:lo + step] = missing
        bounds[:, lo:lo + step] = row_quantiles(block, (alpha, 1.0 - alpha), block.shape[1] - missing)

    map_in_threads(fill, range(0, flat.shape[1], step))
    return bounds[0].reshape(shape), bounds[1].reshape(shape)


def transposed_copy(matrix: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``matrix.T``, copied a tile of rows at a time.

    The same array as ``np.ascontiguousarray(matrix.T)``; for a tall block of a wide replicate matrix the
    tiles keep reads and writes within the cache, which is several times faster.

    Parameters
    ----------
    matrix : numpy.ndarray
        A 2-D array (any strides).

    Returns
    -------
    numpy.ndarray
        Shape (columns, rows) of ``matrix``, C-contiguous, the same dtype.

    Examples
    --------
    >>> matrix = np.arange(6.0).reshape(3, 2)
    >>> transposed_copy(matrix).tolist(), transposed_copy(matrix).flags["C_CONTIGUOUS"]
    ([[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]], True)
    """
    out = np.empty((matrix.shape[1], matrix.shape[0]), dtype=matrix.dtype)
    for row in range(0, matrix.shape[0], TRANSPOSE_TILE_ROWS):
        out[:, row:row + TRANSPOSE_TILE_ROWS] = matrix[row:row + TRANSPOSE_TILE_ROWS].T
    return out


def row_quantiles(rows: np.ndarray, quantiles, n_defined: np.ndarray | None = None) -> np.ndarray:
    """Quantiles of every row, NaN ignored, with numpy's default (linear) interpolation.

    Rows are grouped by their number of defined values; per group and quantile one single-kth
    ``np.partition`` (NaN sort last) on a shrinking prefix, which is several times faster than numpy's
    multi-kth partition. The numbers equal ``np.nanquantile(rows, quantiles, axis=1)`` to the last bit.

    Parameters
    ----------
    rows : numpy.ndarray
        (rows x values), float32 or float64; reordered in place within each row when it is used whole.
    quantiles : sequence of float
        Quantiles in [0, 1].
    n_defined : numpy.ndarray of int, optional
        The number of non-NaN values of each row, when the caller has counted them already.

    Returns
    -------
    numpy.ndarray
        (len(quantiles) x rows), float64; NaN for a row without defined values.

    Examples
    --------
    >>> row_quantiles(np.array([[1.0, 2.0, 3.0, 4.0], [np.nan, 5.0, 1.0, np.nan]]), [0.5]).tolist()
    [[2.5, 3.0]]
    """
    rows = np.atleast_2d(rows)
    q = np.asarray(quantiles, dtype=np.float64)
    out = np.full((q.size, rows.shape[0]), np.nan)
    if n_defined is None:
        n_defined = rows.shape[1] - np.count_nonzero(np.isnan(rows), axis=1)
    order = np.argsort(-q, kind="stable")       # largest quantile first: each partition then works on a prefix
    for count in np.unique(n_defined):
        if count == 0:
            continue
        sel = np.flatnonzero(n_defined == count)
        group = rows[sel] if sel.size < rows.shape[0] else rows.copy()
        limit = group.shape[1]    # the first partition sees the whole row (NaN go right of every kth)
        found: dict[int, np.ndarray] = {}
        for j in order:
            virtual = q[j] * (count - 1)
            previous = np.floor(virtual)
            if virtual >= count - 1:
                below = above = int(count - 1)
            else:
                below, above = int(previous), int(previous) + 1
            # one kth per partition (numpy's multi-kth partition is several times slower); the next order
            # statistic is the smallest defined value right of it (fmin skips NaN; right of the previous kth,
            # which sits at `limit`, every value is at least that kth value)
            if below not in found:
                group[:, :limit].partition(below, axis=1)
                found[below] = group[:, below].astype(np.float64)
            if above not in found:
                found[above] = np.fmin.reduce(group[:, above:limit + 1], axis=1).astype(np.float64)
            a, b = found[below], found[above]
            limit = below
            # numpy's _lerp, so that the bounds equal np.quantile's to the last bit
            diff = b - a
            t = virtual - previous
            out[j, sel] = b - diff * (1 - t) if t >= 0.5 else a + diff * t
    return out


def nan_counts(replicates: np.ndarray) -> np.ndarray:
    """Number of NaN replicates per column (axis 0), a block of columns at a time (no full-size mask).

    Parameters
    ----------
    replicates : numpy.ndarray
        Replicates, resamples along axis 0.

    Returns
    -------
    numpy.ndarray
        int64 counts in the shape of the other axes.

    Examples
    --------
    >>> nan_counts(np.array([[1.0, np.nan], [np.nan, np.nan]])).tolist()
    [1, 2]
    """
    replicates = np.asarray(replicates)
    flat = replicates.reshape(replicates.shape[0], -1)
    out = np.zeros(flat.shape[1], dtype=np.int64)
    step = max(1, BLOCK_ELEMENTS // max(flat.shape[0], 1))
    for lo in range(0, flat.shape[1], step):
        out[lo:lo + step] = np.count_nonzero(np.isnan(flat[:, lo:lo + step]), axis=0)
    return out.reshape(replicates.shape[1:])


def bca_interval(replicates: np.ndarray, estimate: np.ndarray, jackknife: np.ndarray | None,
                 level: float = 0.95):
    """Bias-corrected and accelerated (BCa) interval, column-wise.

    ``replicates`` is (resamples x k), ``estimate`` (k,), ``jackknife`` (n x k) leave-one-out values for
    the acceleration (``None`` gives the bias-corrected percentile interval, acceleration 0). Columns
    whose replicates are all NaN give NaN.

    Parameters
    ----------
    replicates : numpy.ndarray
        Bootstrap replicates, shape (resamples x k); NaN marks an undefined replicate.
    estimate : numpy.ndarray
        Point estimates, shape (k,).
    jackknife : numpy.ndarray, JackknifeMoments or None
        Leave-one-out estimates, shape (n x k) (or their :class:`~humanlike.resampling.jackknife.JackknifeMoments`),
        or None for acceleration 0.
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray
        Interval bounds, shape (k,).

    Raises
    ------
    ValueError
        If ``level`` is outside (0, 1).

    Notes
    -----
    Efron (1987): bias correction ``z0 = Phi^-1(share of replicates below the estimate)`` (ties count
    half), acceleration ``a = sum(d^3) / (6 (sum d^2)^1.5)`` from the jackknife deviations ``d``.

    Examples
    --------
    With the estimate at the median of the replicates and no acceleration, BCa is the percentile
    interval; an estimate below the median shifts it down:

    >>> replicates = np.arange(1.0, 102.0)[:, None]
    >>> bca_interval(replicates, np.array([51.0]), None, level=0.9)
    (array([6.]), array([96.]))
    >>> low, high = bca_interval(replicates, np.array([41.0]), None, level=0.9)
    >>> round(float(low[0]), 2), round(float(high[0]), 2)
    (2.59, 88.35)
    """
    from scipy import stats as sps
    check_level(level)
    replicates = np.atleast_2d(np.asarray(replicates, dtype=float))
    estimate = np.atleast_1d(np.asarray(estimate, dtype=float))
    valid = ~np.isnan(replicates)
    n_valid = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = np.where(valid, replicates < estimate, False).sum(axis=0)
        ties = np.where(valid, replicates == estimate, False).sum(axis=0)
        share = (below + 0.5 * ties) / n_valid
    share = np.clip(share, 1.0 / (n_valid + 1.0), 1.0 - 1.0 / (n_valid + 1.0))
    z0 = sps.norm.ppf(share)
    accel = np.zeros_like(z0) if jackknife is None else JackknifeMoments.of(jackknife, estimate).acceleration()
    alpha = (1.0 - level) / 2.0
    bounds = []
    for z_alpha in (sps.norm.ppf(alpha), sps.norm.ppf(1.0 - alpha)):
        adjusted = sps.norm.cdf(z0 + (z0 + z_alpha) / (1.0 - accel * (z0 + z_alpha)))
        bounds.append(nanquantile_columns(replicates, np.nan_to_num(adjusted, nan=0.5)))
    low, high = bounds
    low = np.where(n_valid > 0, low, np.nan)
    high = np.where(n_valid > 0, high, np.nan)
    return low, high


def nanquantile_columns(values: np.ndarray, quantiles: np.ndarray) -> np.ndarray:
    """A different quantile per column, NaN ignored (linear interpolation, like numpy's default).

    Parameters
    ----------
    values : numpy.ndarray
        Shape (n x k); NaN values are skipped.
    quantiles : numpy.ndarray
        One quantile in [0, 1] per column, shape (k,).

    Returns
    -------
    numpy.ndarray
        Shape (k,).

    Examples
    --------
    >>> values = np.array([[1.0, 10.0], [2.0, np.nan], [3.0, 30.0]])
    >>> nanquantile_columns(values, np.array([0.0, 0.75])).tolist()
    [1.0, 25.0]
    """
    ordered = np.sort(values, axis=0)  # NaN sort last
    counts = (~np.isnan(values)).sum(axis=0)
    pos = quantiles * np.maximum(counts - 1, 0)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, np.maximum(counts - 1, 0))
    frac = pos - lo
    cols = np.arange(values.shape[1])
    return ordered[lo, cols] * (1 - frac) + ordered[hi, cols] * frac


def containing_estimate(low, high, estimate) -> tuple[np.ndarray, np.ndarray]:
    """The intervals widened, where needed, to contain their estimates: ``[min(low, est), max(high, est)]``.

    An interval centred elsewhere than the estimate shown beside it can exclude it: the jackknife intervals are
    centred on the bias-corrected estimate ``theta + bias``, and a percentile interval of a biased statistic (a
    squared difference near 0) can lie wholly on one side. Widening only adds values, so an interval covers the
    truth at least as often as before; where it moves an end, that end is the estimate. NaN ends stay NaN.

    Parameters
    ----------
    low, high : array_like
        Interval ends, shape (K,).
    estimate : array_like
        The estimates the intervals are shown with, shape (K,).

    Returns
    -------
    low, high : numpy.ndarray
        Shape (K,).

    Examples
    --------
    >>> low, high = containing_estimate([-0.00017, 0.1], [0.00169, 0.3], [0.00245, 0.2])
    >>> low.tolist(), high.tolist()
    ([-0.00017, 0.1], [0.00245, 0.3])
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    estimate = np.asarray(estimate, dtype=float)
    return np.where(low > estimate, estimate, low), np.where(high < estimate, estimate, high)
