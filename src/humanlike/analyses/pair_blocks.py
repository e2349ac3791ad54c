"""Pair statistics of the pre-engine OOD loop (``analyses/ood.py``); delete once OOD runs on the engine.

New code uses the EC kernel: :func:`humanlike.metrics.ec.correctness_statistics` and
:func:`humanlike.metrics.ec.consistency_from_sums` through :class:`humanlike.analyses.pairwise.PairKernel`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics.ec import UndefinedPolicy, kappa_from_counts_and_margins, pair_indices


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
