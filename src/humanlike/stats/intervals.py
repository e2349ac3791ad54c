"""Bootstrap intervals from replicates: percentile and bias-corrected and accelerated (BCa)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as sps


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0):
    """Percentile interval of bootstrap replicates along ``axis`` (NaN replicates ignored).

    Parameters
    ----------
    replicates : numpy.ndarray
        Bootstrap replicates; resamples along ``axis``, any other shape.
    level : float, default 0.95
        Confidence level, in (0, 1).
    axis : int, default 0
        The resample axis.

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

    Parameters
    ----------
    replicates : numpy.ndarray
        Bootstrap replicates, shape (resamples x k); NaN marks an undefined replicate.
    estimate : numpy.ndarray
        Point estimates, shape (k,).
    jackknife : numpy.ndarray or None
        Leave-one-out estimates, shape (n x k), or None for acceleration 0.
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


def check_level(level: float) -> None:
    """Raise ValueError unless ``level`` lies in (0, 1).

    Parameters
    ----------
    level : float
        A confidence level.

    Raises
    ------
    ValueError
        If ``level`` is not in the open interval (0, 1).

    Examples
    --------
    >>> check_level(0.95)
    >>> check_level(95)
    Traceback (most recent call last):
    ...
    ValueError: confidence level must lie in (0, 1), got 95
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")


