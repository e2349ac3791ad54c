"""Bootstrap intervals from replicates: percentile and bias-corrected and accelerated (BCa)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as sps


#: Elements of the replicate matrix handled at once by the column-blocked interval code (bounds its memory).
BLOCK_ELEMENTS = 2_000_000


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0):
    """Percentile interval of bootstrap replicates along ``axis`` (NaN replicates ignored).

    The same numbers as ``np.nanquantile(replicates, [alpha, 1 - alpha], axis)`` (linear interpolation), computed
    a block of columns at a time with one partial sort (``np.partition``) per block, so memory stays bounded
    and float32 replicates are not copied to float64.

    Examples
    --------
    >>> low, high = percentile_interval(np.arange(101.0)[:, None], 0.9)
    >>> float(low[0]), float(high[0])
    (5.0, 95.0)
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
    for lo in range(0, flat.shape[1], step):
        block = np.ascontiguousarray(flat[:, lo:lo + step].T)
        bounds[:, lo:lo + step] = row_quantiles(block, (alpha, 1.0 - alpha))
    return bounds[0].reshape(shape), bounds[1].reshape(shape)


def row_quantiles(rows: np.ndarray, quantiles) -> np.ndarray:
    """Quantiles of every row, NaN ignored, linear interpolation as numpy's default: (len(quantiles) x rows).

    Rows are grouped by their number of defined values; each group needs one ``np.partition`` (NaN sort last).
    A row without defined values gives NaN.
    """
    rows = np.atleast_2d(rows)
    q = np.asarray(quantiles, dtype=np.float64)
    out = np.full((q.size, rows.shape[0]), np.nan)
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
    """Number of NaN replicates per column (axis 0), a block of columns at a time (no full-size mask)."""
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
    """
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
    if jackknife is None:
        accel = np.zeros_like(z0)
    else:
        jack = np.asarray(jackknife, dtype=float)
        centred = np.nanmean(jack, axis=0) - jack
        num = np.nansum(centred**3, axis=0)
        den = 6.0 * np.nansum(centred**2, axis=0) ** 1.5
        with np.errstate(invalid="ignore", divide="ignore"):
            accel = np.where(den > 0, num / den, 0.0)
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
    """A different quantile per column, NaN ignored (linear interpolation, like numpy's default)."""
    ordered = np.sort(values, axis=0)  # NaN sort last
    counts = (~np.isnan(values)).sum(axis=0)
    pos = quantiles * np.maximum(counts - 1, 0)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, np.maximum(counts - 1, 0))
    frac = pos - lo
    cols = np.arange(values.shape[1])
    return ordered[lo, cols] * (1 - frac) + ordered[hi, cols] * frac


def check_level(level: float) -> None:
    """Raise ValueError unless ``level`` lies in (0, 1)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")


