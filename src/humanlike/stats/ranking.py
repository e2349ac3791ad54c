"""How stable is a ranking of models under resampling?"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


def ranks_descending(values: np.ndarray) -> np.ndarray:
    """Rank along the last axis, 1 = largest; ties share the average rank; NaN ranks last."""
    values = np.asarray(values, dtype=float)
    filled = np.where(np.isnan(values), -np.inf, values)
    return sps.rankdata(-filled, axis=-1, method="average")


def kendall_tau_rows(reference: np.ndarray, rows: np.ndarray, memory_budget: int = 64 * 1024**2) -> np.ndarray:
    """Kendall's tau-b between one reference vector and every row of ``rows``, vectorised over rows.

    The pairwise sign matrices are built for blocks of rows that fit ``memory_budget`` bytes, so 10,000
    resamples of 200 models (19,900 model pairs) need tens of MB, not gigabytes; the result does not depend
    on the blocks.

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
    """Rank intervals, probability of being best, and Kendall's tau to the original ranking."""

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
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
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
    """
    estimate = np.asarray(estimate, dtype=float)
    replicates = np.atleast_2d(np.asarray(replicates, dtype=float))
    if replicates.shape[1] != estimate.size or len(names) != estimate.size:
        raise ValueError("names, estimate and replicates must describe the same models")
    rank = ranks_descending(estimate)
    boot_ranks = ranks_descending(replicates)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(boot_ranks, [alpha, 1.0 - alpha], axis=0)
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
