"""The kappas two observers' accuracies allow, and the accuracies a kappa allows (docs/measures/error-consistency.md).

Closed forms for the largest and smallest kappa of two accuracies, the bound on kappa given an accuracy
difference and its inverse, and the accuracies a second observer can have given kappa with a first. Kappa
itself (2x2 tables, the undefined policy) is in :mod:`humanlike.measures.pairs.metric`. Every function broadcasts
over arrays.
"""

from __future__ import annotations

import numpy as np


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
    p1, p2 = np.asarray(p1, dtype=float), np.asarray(p2, dtype=float)
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
    p1, p2 = np.asarray(p1, dtype=float), np.asarray(p2, dtype=float)
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
    d = np.asarray(d, dtype=float)
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
    k = np.asarray(k, dtype=float)
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
