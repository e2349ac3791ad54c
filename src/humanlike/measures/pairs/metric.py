"""Error consistency: Cohen's kappa on trial-by-trial correctness, from 2x2 counts.

Notation (docs/measures/error-consistency.md): ``a`` both correct, ``b`` only the first correct, ``c`` only the second correct,
``d`` both wrong, ``n = a+b+c+d``. Every function broadcasts over arrays, so a whole bootstrap
(resamples x pairs) goes through one call.

Here: the undefined-kappa policy and its reasons, agreement and kappa from a 2x2 table (or its margins), the
bias-corrected kappa, the counts of two correctness vectors and the error overlap. The kappas two accuracies
allow are in :mod:`humanlike.measures.pairs.kappa_bounds`; kappa as an engine kernel (per-item statistics and the
reduction from their weighted sums) in :mod:`humanlike.measures.pairs.correctness_sums`.
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
    return nan_for_fewer_than_two_trials(kappa_from_agreement((a + d) / n, expected_agreement(p1, p2), policy), n,
                                         policy, (a, b, c, d))


def nan_for_fewer_than_two_trials(k, n, policy: UndefinedPolicy | str, cells):
    """Under the strict policy, set kappa to NaN for a table of fewer than two trials.

    One trial makes both observers constant; one right and one wrong answer would otherwise read as kappa 0.
    Only whole-number counts are trial counts: a table of proportions (cells summing to 1, as the copy model
    uses) is not a one-trial table.

    Parameters
    ----------
    k : array_like
        Kappa values from the formula (:func:`kappa_from_agreement`).
    n : array_like
        Number of trials of each table, broadcast with ``k``.
    policy : UndefinedPolicy or str
        The undefined-kappa policy; under any other than ``"strict"`` ``k`` is returned unchanged.
    cells : sequence of array_like
        The table's counts (or the counts it was computed from); a table is a trial table only where all of
        them are whole numbers.

    Returns
    -------
    numpy.ndarray or float
        ``k`` with NaN where ``n < 2`` in whole-number tables (strict policy); a 0-d result as a NumPy scalar.

    Examples
    --------
    >>> float(nan_for_fewer_than_two_trials(0.0, 1.0, "strict", (1.0, 0.0, 0.0, 0.0)))
    nan
    >>> float(nan_for_fewer_than_two_trials(0.0, 1.0, "strict", (0.5, 0.25, 0.25, 0.0)))   # proportions
    0.0
    >>> float(nan_for_fewer_than_two_trials(0.0, 1.0, "model-vs-human", (1.0, 0.0, 0.0, 0.0)))
    0.0
    """
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
    return nan_for_fewer_than_two_trials(kappa_from_agreement(c_obs, expected_agreement(p1, p2), policy), n,
                                         policy, (n11, k1, k2, n))


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
