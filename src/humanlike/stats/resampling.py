"""The resampling engine: bootstrap weights, pairwise sufficient statistics, intervals.

Everything works on sufficient statistics. A bootstrap resample of the items of one condition is a
vector of multinomial counts ``w`` (how often each item was drawn); every weighted sum an analysis needs
(correct counts per observer, both-correct counts per pair, trials per pair) is then a matrix product
``W @ X`` with ``W`` the (resamples x items) weight matrix. No Python loop runs per resample: resamples are
processed in chunks whose size bounds memory.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..metrics.ec import UndefinedPolicy, kappa_from_counts_and_margins
from .intervals import bca_interval, percentile_interval
from .rng import SeedLike, make_rng

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


def pair_indices(n_observers: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (i, j), i < j, of all unordered pairs of ``n_observers`` observers."""
    return np.triu_indices(n_observers, k=1)


@dataclass(frozen=True)
class PairStats:
    """Pairwise sufficient statistics, each (replicates x pairs), and per-observer accuracies.

    ``both_correct``, ``first_correct``, ``second_correct`` and ``trials`` are (weighted) counts over the
    trials both observers answered; ``accuracy`` is (replicates x observers) over each observer's trials.
    """

    both_correct: np.ndarray
    first_correct: np.ndarray
    second_correct: np.ndarray
    trials: np.ndarray
    accuracy: np.ndarray
    observer_trials: np.ndarray

    def error_consistency(self, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT) -> np.ndarray:
        return kappa_from_counts_and_margins(
            self.both_correct, self.first_correct, self.second_correct, self.trials, policy)

    def observed_consistency(self) -> np.ndarray:
        n = self.trials
        with np.errstate(invalid="ignore", divide="ignore"):
            return (2.0 * self.both_correct + n - self.first_correct - self.second_correct) / n

    def squared_accuracy_difference(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.first_correct / self.trials - self.second_correct / self.trials) ** 2


class CorrectnessBlock:
    """The correctness matrix of one condition (items x observers) ready for weighted pair sums.

    ``observed`` marks which observer answered which item; pairs are then computed on the items both
    answered. With a complete matrix (the usual case) the cheaper complete-case path is used.
    """

    def __init__(self, correct: np.ndarray, observed: np.ndarray | None = None):
        correct = np.asarray(correct, dtype=bool)
        if correct.ndim != 2:
            raise ValueError("correctness must be a 2-D (items x observers) array")
        if observed is not None:
            observed = np.asarray(observed, dtype=bool)
            if observed.shape != correct.shape:
                raise ValueError("observed mask must have the shape of the correctness matrix")
            if observed.all():
                observed = None
        self.n_items, self.n_observers = correct.shape
        self.first, self.second = pair_indices(self.n_observers)
        x = (correct & observed) if observed is not None else correct
        self.x = x.astype(np.float32)
        self.xx = (x[:, self.first] & x[:, self.second]).astype(np.float32)
        if observed is not None:
            m = observed
            self.m = m.astype(np.float32)
            self.mm = (m[:, self.first] & m[:, self.second]).astype(np.float32)
            self.xm = (x[:, self.first] & m[:, self.second]).astype(np.float32)
            self.mx = (m[:, self.first] & x[:, self.second]).astype(np.float32)
        else:
            self.m = None

    def weighted(self, weights: np.ndarray | None = None) -> PairStats:
        """Pair statistics under item weights (replicates x items); ``None`` means the data themselves."""
        if weights is None:
            weights = np.ones((1, self.n_items), dtype=np.float32)
        weights = np.asarray(weights, dtype=np.float32)
        both = (weights @ self.xx).astype(np.float64)
        correct = (weights @ self.x).astype(np.float64)
        if self.m is None:
            total = weights.sum(axis=1, dtype=np.float64)[:, None]
            first = correct[:, self.first]
            second = correct[:, self.second]
            trials = np.broadcast_to(total, both.shape)
            observer_trials = np.broadcast_to(total, correct.shape)
        else:
            first = (weights @ self.xm).astype(np.float64)
            second = (weights @ self.mx).astype(np.float64)
            trials = (weights @ self.mm).astype(np.float64)
            observer_trials = (weights @ self.m).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = correct / observer_trials
        return PairStats(both, first, second, trials, accuracy, observer_trials)

    def leave_one_out(self) -> PairStats:
        """Jackknife statistics: row i leaves item i out (items x pairs). Used for BCa acceleration."""
        base = self.weighted(None)
        x, xx = self.x.astype(np.float64), self.xx.astype(np.float64)
        if self.m is None:
            n = base.trials - 1.0
            first = base.first_correct - x[:, self.first]
            second = base.second_correct - x[:, self.second]
            observer_trials = base.observer_trials - 1.0
        else:
            n = base.trials - self.mm
            first = base.first_correct - self.xm
            second = base.second_correct - self.mx
            observer_trials = base.observer_trials - self.m
        observer_correct = base.accuracy * base.observer_trials - x
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = observer_correct / observer_trials
        return PairStats(base.both_correct - xx, first, second, np.broadcast_to(n, xx.shape), accuracy,
                         np.broadcast_to(observer_trials, accuracy.shape))


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


def bootstrap_pair(x, y, *, n_resamples: int = 10_000, level: float = 0.95, seed: SeedLike = None,
                   policy: UndefinedPolicy | str = UndefinedPolicy.STRICT, method: str = "percentile"):
    """Bootstrap interval of error consistency for one pair of aligned correctness vectors.

    Resampling items of one pair is a multinomial draw of the four 2x2 counts, so no per-item work is
    needed. Returns (estimate, low, high, replicates).
    """
    x = np.asarray(x, dtype=bool)
    y = np.asarray(y, dtype=bool)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D correctness vectors of the same length")
    n = x.size
    counts = np.array([np.sum(x & y), np.sum(x & ~y), np.sum(~x & y), np.sum(~x & ~y)], dtype=float)
    rng = make_rng(seed)
    draws = rng.multinomial(n, counts / n, size=n_resamples).astype(float)
    a, b, c, d = draws.T
    replicates = kappa_from_counts_and_margins(a, a + b, a + c, n, policy)
    estimate = kappa_from_counts_and_margins(counts[0], counts[0] + counts[1], counts[0] + counts[2], n, policy)
    if method == "percentile":
        low, high = percentile_interval(replicates, level)
    elif method == "bca":
        block = CorrectnessBlock(np.column_stack([x, y]))
        jack = block.leave_one_out().error_consistency(policy)
        low, high = bca_interval(replicates[:, None], np.atleast_1d(estimate), jack, level)
        low, high = low[0], high[0]
    else:
        raise ValueError(f"method must be 'percentile' or 'bca', not {method!r}")
    return float(estimate), float(low), float(high), replicates
