"""NaN-skipping means shared by the aggregations.

The resampling itself lives in :mod:`humanlike.resampling.engine` (its weights in
:mod:`humanlike.resampling.draws`); the helpers of the pre-engine loops are gone. The pairwise
correctness statistics moved beside their metric (:func:`humanlike.measures.pairs.correctness_sums.correctness_statistics`), the
single-pair bootstrap to :func:`humanlike.measures.ec.pair.bootstrap_pair`. This module knows no metric.
"""

from __future__ import annotations

import warnings

import numpy as np

from .intervals import bca_interval, percentile_interval

__all__ = ["bca_interval", "group_mean", "nanmean_quiet", "percentile_interval"]

# --- NaN-skipping aggregation ----------------------------------------------------------------------

def nanmean_quiet(values: np.ndarray, axis: int) -> np.ndarray:
    """np.nanmean without the all-NaN warning: undefined values are skipped, all-undefined gives NaN.

    Parameters
    ----------
    values : numpy.ndarray
        Values with NaN marking undefined ones.
    axis : int
        Axis to average over.

    Returns
    -------
    numpy.ndarray
        The mean of the defined values along ``axis``; NaN where none is defined.

    Examples
    --------
    >>> nanmean_quiet(np.array([[1.0, np.nan], [3.0, np.nan]]), axis=0).tolist()
    [2.0, nan]
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        return np.nanmean(values, axis=axis)


def group_mean(values: np.ndarray, groups: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """NaN-skipping (weighted) mean of pair values within each group: (R x P) -> (R x G).

    ``groups`` is a (pairs x groups) indicator matrix, ``weights`` (R x P or 1 x P) pair weights (None:
    equal). A group with no defined value gives NaN.

    Parameters
    ----------
    values : numpy.ndarray
        Pair values, shape (R x P) (resamples x pairs); NaN marks an undefined value.
    groups : numpy.ndarray
        Indicator matrix, shape (P x G): 1 where the pair belongs to the group.
    weights : numpy.ndarray, optional
        Pair weights, shape (R x P) or (1 x P); None weighs pairs equally.

    Returns
    -------
    numpy.ndarray
        Group means, shape (R x G).

    Examples
    --------
    >>> values = np.array([[1.0, 3.0, np.nan]])
    >>> groups = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> group_mean(values, groups).tolist()
    [[2.0, nan]]
    """
    valid = ~np.isnan(values)
    w = valid.astype(float) if weights is None else weights * valid
    defined = np.where(valid, values, 0.0)
    num = (defined if weights is None else defined * weights) @ groups
    den = w @ groups
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)
