"""Helpers of the pre-engine resampling loops, and NaN-skipping means shared by the aggregations.

The resampling itself lives in :mod:`humanlike.resampling.engine`. ``multinomial_weights``, ``chunk_sizes`` and
``observer_weights`` remain only for analyses not yet ported to the engine and go with them. The pairwise
correctness statistics moved beside their metric (:func:`humanlike.measures.ec.metric.correctness_statistics`), the
single-pair bootstrap to :func:`humanlike.measures.ec.pair.bootstrap_pair`. This module knows no metric.
"""

from __future__ import annotations

import warnings

import numpy as np

from .intervals import bca_interval, percentile_interval

__all__ = ["DEFAULT_CHUNK", "bca_interval", "chunk_sizes", "group_mean", "multinomial_weights", "nanmean_quiet",
           "observer_weights", "percentile_interval"]

DEFAULT_CHUNK = 1000


def multinomial_weights(n_items: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap weights: (n_resamples x n_items) counts of how often each item is drawn (rows sum to n).

    Drawn as uniform indices and counted with one bincount, which is several times faster than
    ``Generator.multinomial`` with equal probabilities and gives the same distribution.

    Parameters
    ----------
    n_items : int
        Number of units resampled (at least 1).
    n_resamples : int
        Number of bootstrap resamples (rows).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of float32
        Counts, shape (n_resamples x n_items); every row sums to ``n_items``.

    Raises
    ------
    ValueError
        If ``n_items`` is not positive.

    Examples
    --------
    >>> weights = multinomial_weights(4, 3, np.random.default_rng(0))
    >>> weights.shape, weights.sum(axis=1).tolist()
    ((3, 4), [4.0, 4.0, 4.0])
    """
    if n_items <= 0:
        raise ValueError("cannot resample an empty set of items")
    idx = rng.integers(0, n_items, size=(n_resamples, n_items))
    idx += (np.arange(n_resamples) * n_items)[:, None]
    counts = np.bincount(idx.ravel(), minlength=n_resamples * n_items)
    return counts.reshape(n_resamples, n_items).astype(np.float32)


def chunk_sizes(n_resamples: int, chunk: int = DEFAULT_CHUNK) -> list[int]:
    """Split ``n_resamples`` into chunks of at most ``chunk``.

    Parameters
    ----------
    n_resamples : int
        Total number of resamples (at least 1).
    chunk : int, default 1000
        Largest chunk.

    Returns
    -------
    list of int
        Chunk sizes summing to ``n_resamples``; all equal to ``chunk`` except possibly the last.

    Raises
    ------
    ValueError
        If ``n_resamples`` is below 1.

    Examples
    --------
    >>> chunk_sizes(2500, chunk=1000)
    [1000, 1000, 500]
    """
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    full, rest = divmod(n_resamples, chunk)
    return [chunk] * full + ([rest] if rest else [])


def observer_weights(n_observers: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Weights for resampling observers with replacement (second level of a two-level bootstrap).

    Parameters
    ----------
    n_observers : int
        Number of observers (at least 1).
    n_resamples : int
        Number of bootstrap resamples (rows).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray of float64
        Counts, shape (n_resamples x n_observers); every row sums to ``n_observers``.

    Examples
    --------
    >>> weights = observer_weights(5, 2, np.random.default_rng(1))
    >>> weights.dtype.name, weights.sum(axis=1).tolist()
    ('float64', [5.0, 5.0])
    """
    return multinomial_weights(n_observers, n_resamples, rng).astype(np.float64)


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
