"""Error consistency: Cohen's kappa on trial-by-trial correctness, from 2x2 counts.

Notation (docs/measures/error-consistency.md): ``a`` both correct, ``b`` only the first correct, ``c`` only the second correct,
``d`` both wrong, ``n = a+b+c+d``. Every function broadcasts over arrays, so a whole bootstrap
(resamples x pairs) goes through one call.
"""

from __future__ import annotations

from enum import Enum

import numpy as np


class UndefinedPolicy(str, Enum):
    """What kappa is when it is not defined by the formula. One policy for the whole library.

    ``STRICT`` (default): NaN when expected agreement is 1 (both observers constant: the reason is
    ``"both observers constant"``); 0 when exactly one observer is constant (the formula's limit,
    stated by docs/measures/error-consistency.md); otherwise the formula.
    ``MODELVSHUMAN``: reproduces the model-vs-human benchmark code, which returns 1 whenever observed
    agreement is 1 (so two identical constant observers give 1) and the formula otherwise.

    Examples
    --------
    Two observers who are both always right:

    >>> float(kappa(10, 0, 0, 0, policy=UndefinedPolicy.STRICT))
    nan
    >>> float(kappa(10, 0, 0, 0, policy="model-vs-human"))
    1.0
    """

    STRICT = "strict"
    MODELVSHUMAN = "model-vs-human"


REASON_BOTH_CONSTANT = "both observers constant (expected agreement is 1)"
REASON_FEWER_THAN_TWO = "fewer than two trials"
REASON_NO_SHARED_TRIAL = "no trial shared by the pair (an observer has no response in this condition)"


def _as_float(*arrays):
    return [np.asarray(x, dtype=float) for x in arrays]


def accuracies(a, b, c, d):
    """Accuracies (p1, p2) of the two observers.

    Parameters
    ----------
    a, b, c, d : array_like
        2x2 counts: both correct, only the first correct, only the second correct, both wrong
        (broadcast together).

    Returns
    -------
    p1, p2 : numpy.ndarray
        ``(a + b) / n`` and ``(a + c) / n`` with ``n = a + b + c + d``.

    Examples
    --------
    >>> p1, p2 = accuracies(6, 2, 1, 1)
    >>> float(p1), float(p2)
    (0.8, 0.7)
    """
    a, b, c, d = _as_float(a, b, c, d)
    n = a + b + c + d
    return (a + b) / n, (a + c) / n


def observed_agreement(a, b, c, d):
    """Share of trials on which both observers are right or both are wrong: (a+d)/n.

    Parameters
    ----------
    a, b, c, d : array_like
        2x2 counts: both correct, only the first correct, only the second correct, both wrong.

    Returns
    -------
    numpy.ndarray
        Observed agreement in [0, 1], broadcast over the inputs.

    Examples
    --------
    >>> float(observed_agreement(6, 2, 1, 1))
    0.7
    """
    a, b, c, d = _as_float(a, b, c, d)
    return (a + d) / (a + b + c + d)


def expected_agreement(p1, p2):
    """Agreement expected from independent observers with accuracies p1, p2.

    Parameters
    ----------
    p1, p2 : array_like
        Accuracies of the two observers, in [0, 1].

    Returns
    -------
    numpy.ndarray
        ``p1 p2 + (1 - p1)(1 - p2)``, broadcast over the inputs.

    Examples
    --------
    >>> round(float(expected_agreement(0.8, 0.7)), 10)
    0.62
    """
    p1, p2 = _as_float(p1, p2)
    return p1 * p2 + (1.0 - p1) * (1.0 - p2)


def kappa_from_agreement(c_obs, c_exp, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT):
    """Kappa from observed and expected agreement, with the undefined cases set by ``policy``.

    Parameters
    ----------
    c_obs : array_like
        Observed agreement (share of trials both right or both wrong).
    c_exp : array_like
        Agreement expected under independence (see :func:`expected_agreement`).
    policy : UndefinedPolicy or str, default "strict"
        What kappa is where ``c_exp`` is 1 (see :class:`UndefinedPolicy`).

    Returns
    -------
    numpy.ndarray or float
        ``(c_obs - c_exp) / (1 - c_exp)``; NaN where ``c_exp`` is 1 (strict), 1 where ``c_obs`` is 1
        (model-vs-human). A 0-d result is returned as a NumPy scalar.

    Examples
    --------
    >>> float(kappa_from_agreement(0.75, 0.5))
    0.5
    >>> float(kappa_from_agreement(1.0, 1.0)), float(kappa_from_agreement(1.0, 1.0, policy="model-vs-human"))
    (nan, 1.0)
    """
    policy = UndefinedPolicy(policy)
    c_obs, c_exp = _as_float(c_obs, c_exp)
    denom = 1.0 - c_exp
    with np.errstate(divide="ignore", invalid="ignore"):
        k = (c_obs - c_exp) / denom
    # Rounding can leave denom a hair above 0 for constant observers; treat |denom| < eps as 0.
    undefined = np.abs(denom) < 1e-12
    k = np.where(undefined, np.nan, k)
    if policy is UndefinedPolicy.MODELVSHUMAN:
        k = np.where(np.abs(c_obs - 1.0) < 1e-12, 1.0, k)
    return k[()] if k.ndim == 0 else k


def kappa(a, b, c, d, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT):
    """Cohen's kappa (error consistency) from 2x2 counts, vectorised.

    Equals ``2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d))``. Exactly one constant observer gives 0 (the
    numerator vanishes); both constant is undefined and handled by ``policy`` (see
    :class:`UndefinedPolicy`). Under the strict policy fewer than two trials give NaN (reason
    ``"fewer than two trials"`` from :func:`kappa_reason`).

    Parameters
    ----------
    a, b, c, d : array_like
        2x2 counts: both correct, only the first correct, only the second correct, both wrong (broadcast
        together, e.g. resamples x pairs).
    policy : UndefinedPolicy or str, default "strict"
        What kappa is where it is undefined.

    Returns
    -------
    numpy.ndarray or float
        Kappa in [-1, 1], NaN where undefined (strict policy).

    Raises
    ------
    ValueError
        If some table has no trial (``a + b + c + d <= 0``).

    Examples
    --------
    >>> float(kappa(3, 1, 1, 3))
    0.5
    >>> kappa([3, 5], [1, 0], [1, 0], [3, 5]).tolist()
    [0.5, 1.0]
    """
    a, b, c, d = _as_float(a, b, c, d)
    n = a + b + c + d
    if np.any(n <= 0):
        raise ValueError("kappa needs at least one trial (a+b+c+d > 0)")
    p1, p2 = (a + b) / n, (a + c) / n
    return _fewer_than_two(kappa_from_agreement((a + d) / n, expected_agreement(p1, p2), policy), n, policy,
                           (a, b, c, d))


def _fewer_than_two(k, n, policy, cells):
    """Strict policy: NaN for a table of fewer than two trials (one trial makes both observers constant; one
    right and one wrong answer would otherwise read as kappa 0). Only whole-number counts are trial counts:
    a table of proportions (cells summing to 1, as the copy model uses) is not a one-trial table."""
    if UndefinedPolicy(policy) is not UndefinedPolicy.STRICT:
        return k
    one_trial = np.asarray(n) < 2
    for v in cells:
        one_trial = one_trial & (np.asarray(v) == np.floor(v))
    k = np.where(one_trial, np.nan, k)
    return k[()] if k.ndim == 0 else k


def kappa_reason(a, b, c, d) -> np.ndarray:
    """A reason string per entry: '' where kappa is defined, the cause where it is NaN (strict policy).

    Kappa is undefined only when the expected agreement is 1: both observers constant *and* equal (both
    always right or both always wrong). One observer always right and the other always wrong gives
    expected agreement 0 and kappa 0 (defined, reason ''). A table of fewer than two trials is reported
    as ``"fewer than two trials"`` (one trial makes both observers constant whatever they answer), a table of
    none (a pair that shares no trial: an observer skipped the condition) as :data:`REASON_NO_SHARED_TRIAL`.

    Parameters
    ----------
    a, b, c, d : array_like
        2x2 counts, broadcast together.

    Returns
    -------
    numpy.ndarray of object
        One string per broadcast entry.

    Examples
    --------
    >>> kappa_reason(10, 0, 0, 0).item(), kappa_reason(0, 10, 0, 0).item(), kappa_reason(1, 0, 0, 0).item()
    ('both observers constant (expected agreement is 1)', '', 'fewer than two trials')
    """
    a, b, c, d = np.broadcast_arrays(*_as_float(a, b, c, d))
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = (a + b) / n, (a + c) / n
    undefined = ((p1 == 0) & (p2 == 0)) | ((p1 == 1) & (p2 == 1))
    reason = np.where(undefined, REASON_BOTH_CONSTANT, "")
    whole = (a == np.floor(a)) & (b == np.floor(b)) & (c == np.floor(c)) & (d == np.floor(d))
    reason = np.where((n < 2) & whole, REASON_FEWER_THAN_TWO, reason)
    return np.where(n == 0, REASON_NO_SHARED_TRIAL, reason).astype(object)


def kappa_from_counts_and_margins(n11, k1, k2, n, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT):
    """Kappa from the 'both correct' count n11 and the two observers' correct counts k1, k2 out of n.

    The form the bootstrap uses: resampling gives weighted sums of x, y and x*y directly.

    Parameters
    ----------
    n11 : array_like
        Number of trials both observers got right (``a``).
    k1, k2 : array_like
        Number of trials the first / second observer got right (``a + b`` and ``a + c``).
    n : array_like
        Number of trials.
    policy : UndefinedPolicy or str, default "strict"
        What kappa is where it is undefined.

    Returns
    -------
    numpy.ndarray or float
        Kappa, equal to :func:`kappa` of the same table.

    Examples
    --------
    >>> float(kappa_from_counts_and_margins(3, 4, 4, 8))  # the table of kappa(3, 1, 1, 3)
    0.5
    """
    n11, k1, k2, n = _as_float(n11, k1, k2, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = k1 / n, k2 / n
        c_obs = (2.0 * n11 + n - k1 - k2) / n
    return _fewer_than_two(kappa_from_agreement(c_obs, expected_agreement(p1, p2), policy), n, policy,
                           (n11, k1, k2, n))


def bias_corrected_kappa(k, n):
    """Martín Andrés & Álvarez Hernández's bias-corrected kappa: n k / ((n - 1) + k).

    Parameters
    ----------
    k : array_like
        Kappa estimates.
    n : array_like
        Number of trials each estimate is based on.

    Returns
    -------
    numpy.ndarray
        The corrected kappa, broadcast over the inputs.

    Examples
    --------
    >>> float(bias_corrected_kappa(0.6, 10))
    0.625
    """
    k, n = _as_float(k, n)
    return n * k / ((n - 1.0) + k)


def kappa_max(p1, p2):
    """Largest kappa two observers with accuracies p1, p2 can reach.

    Closed form (docs/measures/error-consistency.md): with a1 <= a2, 2 a1 (1-a2) / (a1 (1-a2) + a2 (1-a1)). NaN when both
    accuracies are 0 or 1 (kappa undefined); 0 when exactly one is.

    Parameters
    ----------
    p1, p2 : array_like
        Accuracies in [0, 1], broadcast together.

    Returns
    -------
    numpy.ndarray or float
        The upper bound on kappa.

    Examples
    --------
    >>> float(kappa_max(0.7, 0.7)), round(float(kappa_max(0.8, 0.7)), 4)
    (1.0, 0.7368)
    """
    p1, p2 = _as_float(p1, p2)
    lo, hi = np.minimum(p1, p2), np.maximum(p1, p2)
    num = 2.0 * lo * (1.0 - hi)
    den = lo * (1.0 - hi) + hi * (1.0 - lo)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / den, np.nan)
    out = np.where(_one_constant(p1, p2), 0.0, out)
    return out[()] if out.ndim == 0 else out


def kappa_min(p1, p2):
    """Smallest kappa two observers with accuracies p1, p2 can reach (docs/measures/error-consistency.md closed form).

    Parameters
    ----------
    p1, p2 : array_like
        Accuracies in [0, 1], broadcast together.

    Returns
    -------
    numpy.ndarray or float
        The lower bound on kappa: NaN when both accuracies are 0 or 1, 0 when exactly one is.

    Examples
    --------
    >>> float(kappa_min(0.5, 0.5)), round(float(kappa_min(0.8, 0.7)), 4)
    (-1.0, -0.3158)
    """
    p1, p2 = _as_float(p1, p2)
    s = p1 + p2 - 2.0 * p1 * p2
    with np.errstate(divide="ignore", invalid="ignore"):
        low_branch = -2.0 * p1 * p2 / s
        high_branch = -2.0 * (1.0 - p1) * (1.0 - p2) / s
    out = np.where(p1 + p2 <= 1.0, low_branch, high_branch)
    out = np.where(s > 0, out, np.nan)
    out = np.where(_one_constant(p1, p2), 0.0, out)
    return out[()] if out.ndim == 0 else out


def _one_constant(p1, p2):
    c1 = (p1 == 0) | (p1 == 1)
    c2 = (p2 == 0) | (p2 == 1)
    return c1 ^ c2


def kappa_bound_from_accuracy_difference(d):
    """Upper bound on kappa for any two observers whose accuracies differ by |d|: (1-d)^2 / (1+d^2).

    Parameters
    ----------
    d : array_like
        Accuracy differences ``p1 - p2`` in [-1, 1].

    Returns
    -------
    numpy.ndarray
        The bound, in [0, 1].

    Raises
    ------
    ValueError
        If some ``|d| > 1``.

    Examples
    --------
    >>> kappa_bound_from_accuracy_difference([0.0, 0.2]).round(4).tolist()
    [1.0, 0.6154]
    """
    (d,) = _as_float(d)
    d = np.abs(d)
    if np.any(d > 1):
        raise ValueError("an accuracy difference lies in [-1, 1]")
    return (1.0 - d) ** 2 / (1.0 + d**2)


def accuracy_difference_bound_from_kappa(k):
    """Largest accuracy difference |p1 - p2| compatible with a kappa of ``k`` (inverts the bound above).

    Solves (1-d)^2/(1+d^2) = k for d in [0, 1]: d = (1 - sqrt(1 - (1-k)^2)) / (1 - k) for k < 1, d = 0 at
    k = 1. For k <= 0 every difference is possible (returns 1).

    Parameters
    ----------
    k : array_like
        Kappa values in [-1, 1].

    Returns
    -------
    numpy.ndarray or float
        The largest compatible accuracy difference, in [0, 1].

    Raises
    ------
    ValueError
        If some kappa lies outside [-1, 1].

    Examples
    --------
    >>> round(float(accuracy_difference_bound_from_kappa(0.64 / 1.04)), 6)
    0.2
    >>> float(accuracy_difference_bound_from_kappa(1.0)), float(accuracy_difference_bound_from_kappa(0.0))
    (0.0, 1.0)
    """
    (k,) = _as_float(k)
    if np.any((k < -1) | (k > 1)):
        raise ValueError("kappa lies in [-1, 1]")
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (1.0 - np.sqrt(np.clip(1.0 - (1.0 - k) ** 2, 0, None))) / (1.0 - k)
    d = np.where(k >= 1.0, 0.0, d)
    d = np.where(k <= 0.0, 1.0, d)
    return d[()] if d.ndim == 0 else d


def accuracy_range_given_kappa(k, p_other, *, grid: int = 20001):
    """The accuracies a second observer can have, given kappa ``k`` with an observer of accuracy ``p_other``.

    Returns (low, high): the set {p : kappa_min(p_other, p) <= k <= kappa_max(p_other, p)}, found on a fine
    grid (the bound functions are unimodal in p, so the set is an interval).

    Parameters
    ----------
    k : float
        Kappa between the two observers.
    p_other : float
        Accuracy of the known observer.
    grid : int, default 20001
        Number of grid points on [0, 1] (the end points are excluded); sets the resolution of the result.

    Returns
    -------
    low, high : float
        The smallest and largest compatible accuracy; NaN, NaN when none is.

    Examples
    --------
    >>> low, high = accuracy_range_given_kappa(0.5, 0.5)
    >>> round(low, 4), round(high, 4)
    (0.25, 0.75)
    """
    k = float(k)
    p_other = float(p_other)
    p = np.linspace(0.0, 1.0, grid)[1:-1]
    ok = (kappa_max(p_other, p) >= k - 1e-12) & (kappa_min(p_other, p) <= k + 1e-12)
    if not ok.any():
        return float("nan"), float("nan")
    return float(p[ok].min()), float(p[ok].max())


def counts_from_correctness(x, y):
    """2x2 counts (a, b, c, d) from two aligned boolean correctness vectors.

    Parameters
    ----------
    x, y : array_like of bool
        Whether the first / second observer was correct on each trial (same shape).

    Returns
    -------
    a, b, c, d : int
        Both correct, only ``x`` correct, only ``y`` correct, both wrong.

    Raises
    ------
    ValueError
        If the two vectors differ in shape.

    Examples
    --------
    >>> counts_from_correctness([1, 1, 1, 0], [1, 0, 1, 0])
    (2, 1, 0, 1)
    """
    x = np.asarray(x, dtype=bool)
    y = np.asarray(y, dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"correctness vectors differ in length: {x.shape} vs {y.shape}")
    a = int(np.sum(x & y))
    b = int(np.sum(x & ~y))
    c = int(np.sum(~x & y))
    d = int(np.sum(~x & ~y))
    return a, b, c, d


# --------------------------------------------------------------------------------------------------
# Error consistency as a kernel: per-item sufficient statistics and the reduction from weighted sums
# --------------------------------------------------------------------------------------------------
#
# A bootstrap resample of the items of one stratum is a weight vector w (how often each item is drawn);
# every count kappa needs is then a weighted sum of per-item statistics, so a whole batch of resamples is
# one matrix product W @ S. The estimate (w = 1), every resample and every leave-one-item-out row
# (column totals minus one item's row) go through the same reduction below.

PAIR_MEASURES = ("error_consistency", "observed_consistency", "accuracy_difference")


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
        kappa_values = _fewer_than_two(kappa_from_agreement(observed_consistency, expected_agreement(p1, p2), policy),
                                       n, policy, (both, first, second, n))
        accuracy_difference = (p1 - p2) ** 2
    return {"error_consistency": np.asarray(kappa_values, dtype=float), "observed_consistency": observed_consistency,
            "accuracy_difference": accuracy_difference, "correct": counts["correct"],
            "answered": counts["answered"]}


def error_overlap(a, b, c, d):
    """Error overlap: the Jaccard index of the two observers' error sets, d / (b + c + d).

    The share of the trials on which at least one observer errs where both err. Unlike kappa it is not
    corrected for chance (two independent observers with error rates e1, e2 overlap by about
    e1 e2 / (e1 + e2 - e1 e2)); NaN when neither observer makes an error.

    Parameters
    ----------
    a, b, c, d : array_like
        2x2 counts: both correct, only the first correct, only the second correct, both wrong
        (``a`` does not enter the formula but keeps the signature of :func:`kappa`).

    Returns
    -------
    numpy.ndarray or float
        The overlap in [0, 1], NaN where ``b + c + d`` is 0.

    Examples
    --------
    >>> float(error_overlap(5, 1, 2, 2))
    0.4
    """
    a, b, c, d = _as_float(a, b, c, d)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = d / (b + c + d)
    return out[()] if out.ndim == 0 else out


def error_overlap_from_sums(sums, n_observers: int, masked: bool) -> np.ndarray:
    """Per-pair :func:`error_overlap` (R x P) from weighted sums of :func:`correctness_statistics`.

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
