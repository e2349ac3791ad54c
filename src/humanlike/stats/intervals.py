"""Bootstrap intervals from replicates: percentile and bias-corrected and accelerated (BCa)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as sps


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0):
    """Percentile interval of bootstrap replicates along ``axis`` (NaN replicates ignored)."""
    check_level(level)
    alpha = (1.0 - level) / 2.0
    replicates = np.moveaxis(np.asarray(replicates, dtype=float), axis, 0)
    shape = replicates.shape[1:]
    flat = replicates.reshape(replicates.shape[0], -1)
    with_nan = np.isnan(flat).any(axis=0)
    bounds = np.empty((2, flat.shape[1]))
    # np.quantile sorts every column at once; np.nanquantile goes column by column (slow for thousands of
    # columns), so it only sees the columns with undefined replicates. Both give the same numbers.
    # Columns are selected in contiguous copies of a few at a time (rows of the transpose): partitioning along
    # a strided axis is markedly slower, and the selected values, hence the bounds, are the same.
    complete = np.flatnonzero(~with_nan)
    step = max(1, (32 * 1024**2) // (8 * max(flat.shape[0], 1)))
    for lo in range(0, complete.size, step):
        columns = complete[lo:lo + step]
        bounds[:, columns] = np.quantile(np.ascontiguousarray(flat[:, columns].T), [alpha, 1.0 - alpha], axis=1)
    if with_nan.any():
        with warnings.catch_warnings():
            # Groups with no defined replicate (e.g. no human pairs) give NaN bounds, as documented.
            warnings.simplefilter("ignore", category=RuntimeWarning)
            bounds[:, with_nan] = np.nanquantile(flat[:, with_nan], [alpha, 1.0 - alpha], axis=0)
    return bounds[0].reshape(shape), bounds[1].reshape(shape)


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


