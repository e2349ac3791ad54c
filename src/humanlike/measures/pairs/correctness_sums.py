"""Error consistency as a kernel: per-item sufficient statistics and the reduction from weighted sums.

A bootstrap resample of the items of one stratum is a weight vector w (how often each item is drawn); every
count kappa needs is then a weighted sum of per-item statistics, so a whole batch of resamples is one matrix
product W @ S. The estimate (w = 1), every resample and every leave-one-item-out row (column totals minus one
item's row) go through the same reduction here. The pair kernels of :mod:`humanlike.measures.pairs.kernels` are
built on it; kappa of one 2x2 table (and the error overlap) is in :mod:`humanlike.measures.pairs.metric`.
"""

from __future__ import annotations

import numpy as np

from .metric import (
    UndefinedPolicy, error_overlap, expected_agreement, kappa_from_agreement, nan_for_fewer_than_two_trials,
)

PAIR_MEASURES = ("error_consistency", "observed_consistency", "accuracy_difference")
#: The per-pair counts a pooled error consistency sums over pairs (:func:`pooled_counts_from_sums`): trials both
#: answered, agreements on them (both right or both wrong), and right answers of the two on them.
POOL_COUNTS = ("shared_trials", "agreements", "shared_correct")


def pair_indices(n_observers: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (i, j), i < j, of all unordered pairs of ``n_observers`` observers (row-major order).

    Parameters
    ----------
    n_observers : int
        Number of observers.

    Returns
    -------
    first, second : numpy.ndarray of int
        The first and second observer of each of the ``n (n - 1) / 2`` pairs.

    Examples
    --------
    >>> [p.tolist() for p in pair_indices(3)]
    [[0, 0, 1], [1, 2, 2]]
    """
    return np.triu_indices(n_observers, k=1)


def correctness_statistics(correct, observed=None) -> tuple[np.ndarray, bool]:
    """Per-item sufficient statistics of a correctness block (items x observers), as float32.

    Parameters
    ----------
    correct : array_like of bool, (items, observers)
        Whether each observer answered each item correctly.
    observed : array_like of bool, (items, observers), optional
        Which observer answered which item; ``None`` (or all true) for a complete block.

    Returns
    -------
    statistics : numpy.ndarray, (items, S), float32
        Complete block: columns ``[1, x_1..x_O, x_i x_j for the pairs i < j]``. Incomplete block:
        ``[m (O), x (O), x_i x_j, x_i m_j, m_i x_j, m_i m_j (P each)]`` with ``x = correct & observed`` and
        ``m = observed``, so that every pair is counted on the items both observers answered.
    masked : bool
        Whether the incomplete layout was used (pass it to :func:`consistency_from_sums`).

    Notes
    -----
    The values are 0/1 and weights are integer counts, so the weighted sums are exact integers in float32
    (below 2**24 items), and float32 products halve the cost of the bootstrap.

    Examples
    --------
    >>> s, masked = correctness_statistics([[1, 1], [1, 0], [0, 0]])
    >>> s.tolist(), masked
    ([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]], False)
    """
    correct = np.asarray(correct, dtype=bool)
    if correct.ndim != 2:
        raise ValueError(f"correctness must be a 2-D (items x observers) array, got shape {correct.shape}")
    if observed is not None:
        observed = np.asarray(observed, dtype=bool)
        if observed.shape != correct.shape:
            raise ValueError(f"observed mask has shape {observed.shape}, correctness {correct.shape}")
        if observed.all():
            observed = None
    first, second = pair_indices(correct.shape[1])
    if observed is None:
        parts = [np.ones((correct.shape[0], 1), dtype=bool), correct, correct[:, first] & correct[:, second]]
        return np.concatenate(parts, axis=1).astype(np.float32), False
    x, m = correct & observed, observed
    parts = [m, x, x[:, first] & x[:, second], x[:, first] & m[:, second], m[:, first] & x[:, second],
             m[:, first] & m[:, second]]
    return np.concatenate(parts, axis=1).astype(np.float32), True


def correctness_counts(sums, n_observers: int, masked: bool) -> dict[str, np.ndarray]:
    """Split weighted sums of :func:`correctness_statistics` into named counts.

    Parameters
    ----------
    sums : array_like, (R, S)
        Weighted column sums of :func:`correctness_statistics` (one row per resample); a 1-D row is
        treated as one resample.
    n_observers : int
        Number of observers (columns of the correctness block).
    masked : bool
        The layout flag returned by :func:`correctness_statistics`.

    Returns
    -------
    dict of str to numpy.ndarray
        Float64 arrays: ``both`` (R x P, both correct), ``first`` / ``second`` (R x P, the first / second
        observer correct on the items both answered), ``trials`` (R x P, items both answered), ``correct``
        and ``answered`` (R x O, per observer).

    Raises
    ------
    ValueError
        If the number of columns of ``sums`` does not fit ``n_observers`` and the layout.

    Examples
    --------
    >>> s, masked = correctness_statistics([[1, 1], [1, 0], [0, 0]])
    >>> counts = correctness_counts(s.sum(axis=0), 2, masked)
    >>> counts["both"].tolist(), counts["correct"].tolist(), counts["trials"].tolist()
    ([[1.0]], [[2.0, 1.0]], [[3.0]])
    """
    sums = np.atleast_2d(np.asarray(sums, dtype=np.float64))
    n_obs = int(n_observers)
    first, second = pair_indices(n_obs)
    n_pairs = first.size
    if masked:
        if sums.shape[1] != 2 * n_obs + 4 * n_pairs:
            raise ValueError(f"sums have {sums.shape[1]} columns; {2 * n_obs + 4 * n_pairs} expected for "
                             f"{n_obs} observers (incomplete layout)")
        answered, correct = sums[:, :n_obs], sums[:, n_obs:2 * n_obs]
        p = 2 * n_obs
        both, first_c, second_c, trials = (sums[:, p + k * n_pairs:p + (k + 1) * n_pairs] for k in range(4))
    else:
        if sums.shape[1] != 1 + n_obs + n_pairs:
            raise ValueError(f"sums have {sums.shape[1]} columns; {1 + n_obs + n_pairs} expected for "
                             f"{n_obs} observers (complete layout)")
        total = sums[:, :1]
        correct = sums[:, 1:1 + n_obs]
        both = sums[:, 1 + n_obs:]
        first_c, second_c = correct[:, first], correct[:, second]
        trials = np.broadcast_to(total, both.shape)
        answered = np.broadcast_to(total, correct.shape)
    return {"both": both, "first": first_c, "second": second_c, "trials": trials, "correct": correct,
            "answered": answered}


def consistency_from_sums(sums, n_observers: int, masked: bool,
                          policy: UndefinedPolicy | str = UndefinedPolicy.STRICT) -> dict[str, np.ndarray]:
    """Per-pair EC, observed consistency and squared accuracy difference from weighted sums.

    Parameters
    ----------
    sums : array_like, (R, S)
        Weighted column sums of :func:`correctness_statistics` (one row per resample; the column totals give
        the estimate).
    n_observers : int
    masked : bool
        The layout flag returned by :func:`correctness_statistics`.
    policy : UndefinedPolicy or str
        What kappa is where it is undefined.

    Returns
    -------
    dict
        ``error_consistency``, ``observed_consistency``, ``accuracy_difference`` (R x P, pairs in
        :func:`pair_indices` order; NaN where the pair shares no item) and the per-observer counts
        ``correct`` and ``answered`` (R x O; their ratio is the accuracy).

    Examples
    --------
    >>> s, masked = correctness_statistics([[1, 1], [1, 0], [0, 0], [0, 1]])
    >>> out = consistency_from_sums(s.sum(axis=0, keepdims=True), 2, masked)
    >>> float(out["error_consistency"][0, 0]), float(out["observed_consistency"][0, 0])
    (0.0, 0.5)
    """
    counts = correctness_counts(sums, n_observers, masked)
    both, first, second, n = counts["both"], counts["first"], counts["second"], counts["trials"]
    # The same operations as kappa_from_counts_and_margins, each computed once for all three measures.
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = first / n, second / n
        observed_consistency = (2.0 * both + n - first - second) / n
        kappa_values = nan_for_fewer_than_two_trials(
            kappa_from_agreement(observed_consistency, expected_agreement(p1, p2), policy), n, policy,
            (both, first, second, n))
        accuracy_difference = (p1 - p2) ** 2
    return {"error_consistency": np.asarray(kappa_values, dtype=float), "observed_consistency": observed_consistency,
            "accuracy_difference": accuracy_difference, "correct": counts["correct"],
            "answered": counts["answered"]}


def pooled_counts_from_sums(sums, n_observers: int, masked: bool) -> dict[str, np.ndarray]:
    """Per-pair counts of :data:`POOL_COUNTS` (R x P each) from weighted sums of :func:`correctness_statistics`.

    Summed over the pairs of a group they are the group's pooled 2x2 table, from which
    :func:`humanlike.measures.pairs.aggregation.pooled_kappa` forms one error consistency.

    Parameters
    ----------
    sums : array_like, (R, S)
        Weighted column sums of :func:`correctness_statistics`, one row per resample.
    n_observers : int
        Number of observers.
    masked : bool
        The layout flag returned by :func:`correctness_statistics`.

    Returns
    -------
    dict of str to numpy.ndarray
        ``shared_trials``, ``agreements`` and ``shared_correct``, each (R x P).

    Examples
    --------
    >>> s, masked = correctness_statistics([[1, 1], [1, 0], [0, 0], [0, 1]])
    >>> out = pooled_counts_from_sums(s.sum(axis=0, keepdims=True), 2, masked)
    >>> [float(out[k][0, 0]) for k in POOL_COUNTS]   # 4 trials, 2 agreements (1 both right, 1 both wrong), 4 right
    [4.0, 2.0, 4.0]
    """
    counts = correctness_counts(sums, n_observers, masked)
    both, first, second, n = counts["both"], counts["first"], counts["second"], counts["trials"]
    return {"shared_trials": np.array(n, dtype=float), "agreements": 2.0 * both + n - first - second,
            "shared_correct": first + second}


def error_overlap_from_sums(sums, n_observers: int, masked: bool) -> np.ndarray:
    """Per-pair :func:`~humanlike.measures.pairs.metric.error_overlap` (R x P) from weighted sums of
    :func:`correctness_statistics`.

    Parameters
    ----------
    sums : array_like, (R, S)
        Weighted column sums of :func:`correctness_statistics`, one row per resample.
    n_observers : int
        Number of observers.
    masked : bool
        The layout flag returned by :func:`correctness_statistics`.

    Returns
    -------
    numpy.ndarray, (R, P)
        Error overlap per resample and pair (pairs in :func:`pair_indices` order).

    Examples
    --------
    >>> s, masked = correctness_statistics([[1, 1], [1, 0], [0, 1], [0, 0], [0, 0]])
    >>> error_overlap_from_sums(s.sum(axis=0, keepdims=True), 2, masked).tolist()
    [[0.5]]
    """
    counts = correctness_counts(sums, n_observers, masked)
    both, first, second, n = counts["both"], counts["first"], counts["second"], counts["trials"]
    return np.asarray(error_overlap(both, first - both, second - both, n - first - second + both), dtype=float)
