"""How stable is a ranking of models under resampling?"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..resampling.intervals import containing_estimate


def ranks_descending(values: np.ndarray) -> np.ndarray:
    """Rank along the last axis, 1 = largest; ties share the average rank; NaN ranks last.

    Parameters
    ----------
    values : numpy.ndarray
        Scores, any shape; ranked independently along the last axis (e.g. resamples x models).

    Returns
    -------
    numpy.ndarray of float
        Ranks of the same shape (1 = best; tied values get the mean of their ranks).

    Examples
    --------
    >>> ranks_descending(np.array([0.2, 0.9, np.nan, 0.9])).tolist()
    [3.0, 1.5, 4.0, 1.5]
    """
    values = np.asarray(values, dtype=float)
    keys = -np.where(np.isnan(values), -np.inf, values)     # ascending keys: NaN (+inf) last
    if keys.size == 0:
        return keys.copy()
    # scipy.stats.rankdata(keys, method="average") in numpy (the same numbers; scipy.stats is slow to import):
    # sort, find each run of equal keys, give its members the mean of the run's first and last position + 1
    order = np.argsort(keys, axis=-1, kind="stable")
    ordered = np.take_along_axis(keys, order, axis=-1)
    position = np.broadcast_to(np.arange(keys.shape[-1]), keys.shape)
    starts = np.ones(keys.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(keys.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, keys.shape[-1]), axis=-1), axis=-1),
                   axis=-1)
    ranks = np.empty(keys.shape)
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=-1)
    return ranks


def kendall_tau_rows(reference: np.ndarray, rows: np.ndarray, memory_budget: int = 64 * 1024**2) -> np.ndarray:
    """Kendall's tau-b between one reference vector and every row of ``rows``, vectorised over rows.

    The pairwise sign matrices are built for blocks of rows that fit ``memory_budget`` bytes, so 10,000
    resamples of 200 models (19,900 model pairs) need tens of MB, not gigabytes; the result does not depend
    on the blocks.

    Parameters
    ----------
    reference : numpy.ndarray
        The reference scores, shape (n,).
    rows : numpy.ndarray
        Scores to compare, shape (r x n) (a 1-d array is one row).
    memory_budget : int, default 64 MiB
        Bytes the pairwise sign matrices of one block of rows may take.

    Returns
    -------
    numpy.ndarray
        Tau-b per row, shape (r,); NaN where the reference or the row has no untied pair.

    Examples
    --------
    >>> kendall_tau_rows(np.array([1.0, 2.0, 3.0]), np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).tolist()
    [1.0, -1.0]
    """
    reference = np.asarray(reference, dtype=float)
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    i, j = np.triu_indices(reference.size, k=1)
    s_ref = np.sign(reference[i] - reference[j])
    n_ref = np.count_nonzero(s_ref)
    out = np.empty(rows.shape[0])
    step = max(1, int(memory_budget) // max(1, 8 * 3 * i.size))
    for lo in range(0, rows.shape[0], step):
        block = rows[lo:lo + step]
        s_rows = np.sign(block[:, i] - block[:, j])
        concordance = s_rows @ s_ref
        n_rows = np.count_nonzero(s_rows, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[lo:lo + step] = concordance / np.sqrt(n_ref * n_rows)
    return out


@dataclass(frozen=True)
class RankingStability:
    """Rank intervals, probability of being best, and Kendall's tau to the original ranking.

    Attributes
    ----------
    names : tuple of str
        The models, in input order.
    estimate : numpy.ndarray
        The statistic per model on the data.
    rank : numpy.ndarray
        Rank on the data (1 = best, ties averaged).
    rank_low, rank_high : numpy.ndarray
        Percentile interval of each model's resampled rank.
    probability_best : numpy.ndarray
        Share of resamples in which the model ranks first (shared first places count fractionally).
    tau_mean, tau_low, tau_high : float
        Mean and percentile interval of Kendall's tau-b between the data's and each resample's ranking.
    level : float
        Confidence level of the intervals.

    Examples
    --------
    >>> result = ranking_stability(["a", "b"], [0.9, 0.5], [[0.8, 0.6], [0.4, 0.7]])
    >>> result.rank.tolist(), result.probability_best.tolist()
    ([1.0, 2.0], [0.5, 0.5])
    """

    names: tuple[str, ...]
    estimate: np.ndarray          # the statistic per model
    rank: np.ndarray              # rank on the data (1 = best)
    rank_low: np.ndarray
    rank_high: np.ndarray
    probability_best: np.ndarray
    tau_mean: float
    tau_low: float
    tau_high: float
    level: float

    def to_frame(self):
        """The result as a tidy table, one row per model, best first.

        Returns
        -------
        pandas.DataFrame
            Columns ``observer``, ``estimate``, ``rank``, ``rank_low``, ``rank_high``, ``probability_best``.
        """
        import pandas as pd

        return pd.DataFrame({
            "observer": list(self.names), "estimate": self.estimate, "rank": self.rank,
            "rank_low": self.rank_low, "rank_high": self.rank_high,
            "probability_best": self.probability_best,
        }).sort_values("rank").reset_index(drop=True)


def ranking_stability(names, estimate, replicates, level: float = 0.95) -> RankingStability:
    """Rank models by ``estimate`` (higher is better) and by every bootstrap row of ``replicates``.

    Rank intervals are percentile intervals of each model's resampled rank; the probability of being
    best counts shared first places fractionally.

    Parameters
    ----------
    names : sequence of str
        One name per model.
    estimate : array_like
        The statistic per model on the data, shape (models,); higher is better.
    replicates : array_like
        Bootstrap replicates of the statistic, shape (resamples x models).
    level : float, default 0.95
        Confidence level of the rank and tau intervals.

    Returns
    -------
    RankingStability
        Ranks, rank intervals, probability of being best and Kendall's tau to the data's ranking.

    Raises
    ------
    ValueError
        If ``names``, ``estimate`` and the columns of ``replicates`` differ in length.

    Examples
    --------
    >>> replicates = [[0.9, 0.5, 0.1], [0.8, 0.6, 0.2], [0.4, 0.7, 0.3]]
    >>> result = ranking_stability(["a", "b", "c"], [0.9, 0.5, 0.1], replicates, level=0.5)
    >>> result.rank.tolist(), result.probability_best.round(3).tolist()
    ([1.0, 2.0, 3.0], [0.667, 0.333, 0.0])
    >>> round(result.tau_mean, 3)
    0.778
    """
    estimate = np.asarray(estimate, dtype=float)
    replicates = np.atleast_2d(np.asarray(replicates, dtype=float))
    if replicates.shape[1] != estimate.size or len(names) != estimate.size:
        raise ValueError("names, estimate and replicates must describe the same models")
    rank = ranks_descending(estimate)
    boot_ranks = ranks_descending(replicates)
    alpha = (1.0 - level) / 2.0
    low, high = containing_estimate(*np.quantile(boot_ranks, [alpha, 1.0 - alpha], axis=0), rank)
    is_best = boot_ranks == boot_ranks.min(axis=1, keepdims=True)
    probability_best = (is_best / is_best.sum(axis=1, keepdims=True)).mean(axis=0)
    tau = kendall_tau_rows(estimate, replicates) if estimate.size > 1 else np.array([np.nan])
    tau_low, tau_high = (np.nanquantile(tau, [alpha, 1 - alpha]) if np.isfinite(tau).any()
                         else (np.nan, np.nan))
    return RankingStability(
        names=tuple(names), estimate=estimate, rank=rank, rank_low=low, rank_high=high,
        probability_best=probability_best, tau_mean=float(np.nanmean(tau)) if np.isfinite(tau).any() else np.nan,
        tau_low=float(tau_low), tau_high=float(tau_high), level=level,
    )
