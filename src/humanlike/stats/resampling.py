"""Helpers of the pre-engine resampling loops, and NaN-skipping means shared by the aggregations.

The resampling itself lives in :mod:`humanlike.stats.engine`. ``multinomial_weights``, ``chunk_sizes`` and
``observer_weights`` remain only for analyses not yet ported to the engine and go with them. The pairwise
correctness statistics moved beside their metric (:func:`humanlike.metrics.ec.correctness_statistics`), the
single-pair bootstrap to :func:`humanlike.analyses.ec_pair.bootstrap_pair`. This module knows no metric.
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
    """
    if n_items <= 0:
        raise ValueError("cannot resample an empty set of items")
    idx = rng.integers(0, n_items, size=(n_resamples, n_items))
    idx += (np.arange(n_resamples) * n_items)[:, None]
    counts = np.bincount(idx.ravel(), minlength=n_resamples * n_items)
    return counts.reshape(n_resamples, n_items).astype(np.float32)


def chunk_sizes(n_resamples: int, chunk: int = DEFAULT_CHUNK) -> list[int]:
    """Split ``n_resamples`` into chunks of at most ``chunk``."""
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    full, rest = divmod(n_resamples, chunk)
    return [chunk] * full + ([rest] if rest else [])


def observer_weights(n_observers: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Weights for resampling observers with replacement (second level of a two-level bootstrap)."""
    return multinomial_weights(n_observers, n_resamples, rng).astype(np.float64)


# --- NaN-skipping aggregation ----------------------------------------------------------------------

def nanmean_quiet(values: np.ndarray, axis: int) -> np.ndarray:
    """np.nanmean without the all-NaN warning: undefined values are skipped, all-undefined gives NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        return np.nanmean(values, axis=axis)


def group_mean(values: np.ndarray, groups: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """NaN-skipping (weighted) mean of pair values within each group: (R x P) -> (R x G).

    ``groups`` is a (pairs x groups) indicator matrix, ``weights`` (R x P or 1 x P) pair weights (None:
    equal). A group with no defined value gives NaN.
    """
    valid = ~np.isnan(values)
    w = valid.astype(float) if weights is None else weights * valid
    num = np.where(valid, values, 0.0) * (1.0 if weights is None else weights) @ groups
    den = w @ groups
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)
