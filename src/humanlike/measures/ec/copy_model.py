"""Klein et al.'s copy model of error consistency (Propositions 1-2), pure numpy.

Observer 2 copies observer 1's outcome (correct / wrong) on a share ``c`` of the items and answers the
rest independently with a latent accuracy ``u2``; observer 1 answers with accuracy ``u1 = a1``. For
correctness data the kappa this produces is ``c * f`` with the mismatch factor
``f = 2 a1 (1 - a1) / (1 - c_exp)``, ``c_exp = a1 a2 + (1 - a1)(1 - a2)`` (docs/measures/error-consistency.md). Equal
accuracies give ``f = 1`` (kappa equals the copy probability).

Negative kappa: the copied outcome is inverted (observer 2 is wrong where 1 is right and vice versa) on a
share ``|c|`` of the items; ``c`` is then reported as negative.

Whatever the process, a pair of binary outcomes with accuracies ``a1, a2`` and kappa ``k`` has the cell
probabilities of :func:`cell_probabilities`; the copy model is one process that realises them.

Every function broadcasts over its arguments.
"""

from __future__ import annotations

import numpy as np

from ..pairs.kappa_bounds import kappa_max, kappa_min
from ..pairs.metric import expected_agreement

#: Slack allowed when checking a requested kappa against its bounds (rounding at the bounds).
BOUND_TOLERANCE = 1e-9


def _float(*xs):
    return [np.asarray(x, dtype=float) for x in xs]


def _out(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def _check_accuracies(*accs):
    for acc in accs:
        if np.any(~np.isfinite(acc)) or np.any((acc < 0) | (acc > 1)):
            raise ValueError(f"accuracies must lie in [0, 1]; got {acc}")


def mismatch_factor(a1, a2):
    """f = 2 a1 (1 - a1) / (1 - c_exp): kappa per unit of copy probability.

    1 when ``a1 == a2``; 0 when observer 1 is constant (a1 in {0, 1}) and observer 2 is not; NaN when both
    observers are constant (``c_exp == 1``, kappa undefined).

    Parameters
    ----------
    a1, a2 : array_like
        Accuracies of observer 1 (the one copied) and observer 2, in [0, 1].

    Returns
    -------
    numpy.ndarray or float
        The mismatch factor, broadcast over the inputs.

    Examples
    --------
    >>> float(mismatch_factor(0.7, 0.7)), round(float(mismatch_factor(0.8, 0.6)), 4)
    (1.0, 0.7273)
    """
    a1, a2 = _float(a1, a2)
    denom = 1.0 - expected_agreement(a1, a2)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = 2.0 * a1 * (1.0 - a1) / denom
    f = np.where(np.abs(denom) < 1e-15, np.nan, f)
    return _out(f)


def ec_from_copy_probability(c, a1, a2):
    """Kappa produced by the copy model: ``c * f(a1, a2)`` (negative ``c``: inverted copies).

    Parameters
    ----------
    c : array_like
        Copy probability in [-1, 1] (negative: the copied outcome is inverted).
    a1, a2 : array_like
        Accuracies of the two observers, in [0, 1].

    Returns
    -------
    numpy.ndarray or float
        The error consistency (kappa) of the pair.

    Examples
    --------
    >>> float(ec_from_copy_probability(0.5, 0.7, 0.7))
    0.5
    >>> round(float(ec_from_copy_probability(0.5, 0.8, 0.6)), 4)
    0.3636
    """
    (c,) = _float(c)
    return _out(c * mismatch_factor(a1, a2))


def copy_probability_from_ec(kappa, a1, a2):
    """Copy probability ``c = kappa (1 - c_exp) / (2 a1 (1 - a1))`` (Klein et al., Proposition 2).

    NaN when ``a1`` is 0 or 1: a constant observer 1 gives kappa 0 whatever observer 2 copies, so ``c`` is
    not identified. The result is not checked against [-1, 1]; :func:`latent_accuracies` does that.

    Parameters
    ----------
    kappa : array_like
        Error consistency of the pair.
    a1, a2 : array_like
        Accuracies of the two observers, in [0, 1].

    Returns
    -------
    numpy.ndarray or float
        The copy probability (inverse of :func:`ec_from_copy_probability`).

    Examples
    --------
    >>> round(float(copy_probability_from_ec(0.3636363636, 0.8, 0.6)), 6)
    0.5
    >>> float(copy_probability_from_ec(0.2, 1.0, 0.6))
    nan
    """
    kappa, a1, a2 = _float(kappa, a1, a2)
    num = kappa * (1.0 - expected_agreement(a1, a2))
    den = 2.0 * a1 * (1.0 - a1)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = num / den
    c = np.where(den > 0, c, np.nan)
    return _out(c)


def cell_probabilities(kappa, a1, a2):
    """Cell probabilities (p11, p10, p01, p00) of a pair with accuracies a1, a2 and kappa ``kappa``.

    ``p11 = a1 a2 + kappa (1 - c_exp) / 2`` (from ``c_obs = c_exp + kappa (1 - c_exp)``), the rest from the
    margins. Raises ``ValueError`` when ``kappa`` lies outside ``[kappa_min, kappa_max]`` for the accuracies
    (some cell would be negative). Cells are clipped into [0, 1] after the check (rounding at the bounds).

    Parameters
    ----------
    kappa : array_like
        Error consistency of the pair.
    a1, a2 : array_like
        Accuracies of the two observers, in [0, 1].

    Returns
    -------
    p11, p10, p01, p00 : numpy.ndarray or float
        Probabilities of both correct, only the first correct, only the second correct, both wrong.

    Raises
    ------
    ValueError
        If an accuracy lies outside [0, 1] or ``kappa`` cannot be realised with the accuracies.

    Examples
    --------
    >>> [round(float(p), 4) for p in cell_probabilities(0.0, 0.8, 0.5)]
    [0.4, 0.4, 0.1, 0.1]
    >>> [round(float(p), 4) for p in cell_probabilities(1.0, 0.7, 0.7)]
    [0.7, 0.0, 0.0, 0.3]
    """
    kappa, a1, a2 = np.broadcast_arrays(*_float(kappa, a1, a2))
    _check_kappa(kappa, a1, a2)
    c_exp = expected_agreement(a1, a2)
    p11 = a1 * a2 + np.where(np.isnan(kappa), 0.0, kappa) * (1.0 - c_exp) / 2.0
    p10 = a1 - p11
    p01 = a2 - p11
    p00 = 1.0 - a1 - a2 + p11
    cells = [np.clip(p, 0.0, 1.0) for p in (p11, p10, p01, p00)]
    return tuple(_out(p) for p in cells)


def _check_kappa(kappa, a1, a2):
    """Raise ValueError naming the first requested kappa that the accuracies cannot produce."""
    _check_accuracies(a1, a2)
    lo, hi = kappa_min(a1, a2), kappa_max(a1, a2)
    lo, hi = np.broadcast_to(lo, kappa.shape), np.broadcast_to(hi, kappa.shape)
    both_constant = np.isnan(lo)
    # Both observers constant: kappa is undefined; only 0 or NaN (no dependence to plant) is accepted.
    bad_constant = both_constant & ~(np.isnan(kappa) | (kappa == 0))
    bad_nan = ~both_constant & np.isnan(kappa)
    bad_range = ~both_constant & ((kappa < lo - BOUND_TOLERANCE) | (kappa > hi + BOUND_TOLERANCE))
    bad = bad_constant | bad_nan | bad_range
    if np.any(bad):
        i = np.flatnonzero(bad.ravel())[0]
        k, x1, x2 = kappa.ravel()[i], a1.ravel()[i], a2.ravel()[i]
        if bad_constant.ravel()[i]:
            why = "both observers are constant, so kappa is undefined (only 0 or NaN accepted)"
        elif bad_nan.ravel()[i]:
            why = "kappa is NaN"
        else:
            why = f"the attainable range is [{lo.ravel()[i]:.6g}, {hi.ravel()[i]:.6g}]"
        raise ValueError(f"kappa={k:.6g} cannot be realised with accuracies a1={x1:.6g}, a2={x2:.6g}: {why}")


def latent_accuracies(kappa, a1, a2):
    """Copy-model parameters (u1, u2, c) that produce accuracies a1, a2 and kappa ``kappa``.

    ``u1 = a1``; ``c = copy_probability_from_ec(kappa, a1, a2)``; for ``c >= 0``
    ``u2 = (a2 - c a1) / (1 - c)``, for ``c < 0`` (inverted copies) ``u2 = (a2 - |c| (1 - a1)) / (1 - |c|)``;
    ``u2`` is clipped into [0, 1] (rounding at the bounds puts it just outside).

    Raises ``ValueError`` when ``kappa`` lies outside ``[kappa_min(a1, a2), kappa_max(a1, a2)]`` (beyond
    :data:`BOUND_TOLERANCE`) or when the implied ``|c|`` exceeds 1. Within the bounds ``|c| <= 1`` always,
    with ``|c| = 1`` only for a perfect copy (a1 == a2, kappa = 1) or perfect inversion (a1 + a2 == 1,
    kappa = kappa_min): then no item is answered independently and ``u2`` is irrelevant; it is set to ``a2``.
    When observer 1 is constant (a1 in {0, 1}) kappa must be 0 and the pair is represented as independent:
    ``c = 0``, ``u2 = a2``.

    Parameters
    ----------
    kappa : array_like
        Error consistency of the pair.
    a1, a2 : array_like
        Observed accuracies of the two observers, in [0, 1].

    Returns
    -------
    u1, u2, c : numpy.ndarray or float
        Latent accuracy of observer 1 (equal to ``a1``), latent accuracy of observer 2 on the items it
        answers independently, and the copy probability.

    Raises
    ------
    ValueError
        If ``kappa`` cannot be realised with the accuracies.

    Examples
    --------
    >>> [round(float(v), 6) for v in latent_accuracies(0.5, 0.7, 0.7)]
    [0.7, 0.7, 0.5]
    """
    kappa, a1, a2 = np.broadcast_arrays(*_float(kappa, a1, a2))
    _check_kappa(kappa, a1, a2)
    c = copy_probability_from_ec(kappa, a1, a2)
    c = np.where(np.isnan(np.asarray(c, dtype=float)), 0.0, c)  # constant observer 1: independent
    if np.any(np.abs(c) > 1.0 + 1e-7):
        i = np.flatnonzero(np.abs(c).ravel() > 1.0 + 1e-7)[0]
        raise ValueError(
            f"kappa={kappa.ravel()[i]:.6g} with a1={a1.ravel()[i]:.6g}, a2={a2.ravel()[i]:.6g} needs a copy "
            f"probability |c|={abs(c.ravel()[i]):.6g} > 1"
        )
    c = np.clip(c, -1.0, 1.0)
    ac = np.abs(c)
    copied = np.where(c >= 0, ac * a1, ac * (1.0 - a1))  # P(copied item correct) * |c|
    with np.errstate(divide="ignore", invalid="ignore"):
        u2 = (a2 - copied) / (1.0 - ac)
    u2 = np.where(ac >= 1.0 - 1e-12, a2, u2)
    u2 = np.clip(u2, 0.0, 1.0)
    return _out(a1.copy()), _out(u2), _out(c)
