"""Error alignment beyond right/wrong: the class-code tables and misclassification agreement (MA).

docs/measures/ood-spectrum.md (Xu et al.). MA, like class-level error divergence (CLED,
:mod:`humanlike.measures.ood.alignment_divergence`, built on the tables and checks here), looks at *which wrong
answer* observers give, not only at whether they err.

Inputs are integer class codes ``0..K-1`` (use :func:`encode_classes` to turn strings into codes). The
metrics are pure array functions: no pandas (except lazily inside ``to_frame``), no I/O, no randomness.

No-answer responses (``'na'`` in the trial table) are *not* a class here: the caller either drops those
trials or maps them to a class code before calling. Codes outside ``0..K-1`` raise ``ValueError``.

Every metric has a single-table form returning a small frozen dataclass (value, the quantities behind
it, and a ``reason`` that is ``''`` when the value is defined) and a ``*_batch`` form that broadcasts over
a stack of tables ``(..., K, K)`` and returns plain arrays, for the bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# --------------------------------------------------------------------------------------------- reasons

REASON_NO_JOINT_ERRORS = "no items both observers got wrong"
REASON_DEGENERATE_MA = "expected agreement is 1 (both observers always give the same single wrong answer)"
REASON_SUBSTITUTED_ONE = "; set to 1 (reference-code convention, undefined='one')"

_EPS = 1e-12


# ----------------------------------------------------------------------------------------------- input


def _n_classes(classes) -> int:
    if isinstance(classes, (int, np.integer)):
        k = int(classes)
    else:
        k = len(classes)
    if k < 2:
        raise ValueError(f"need at least 2 classes, got {k}")
    return k


def _codes(x, k: int, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind not in "iuf":
        if arr.size == 0:
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"{name} must hold integer class codes 0..{k - 1}; use encode_classes for strings")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(np.mod(arr, 1) == 0):
            raise ValueError(f"{name} must hold integer class codes 0..{k - 1}")
    arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= k)
    if np.any(bad):
        raise ValueError(
            f"{name} holds {int(bad.sum())} code(s) outside 0..{k - 1} (e.g. {arr[bad][0]}); "
            "drop or map no-answer responses before calling"
        )
    return arr


def encode_classes(values, classes: Sequence | None = None) -> tuple[np.ndarray, tuple]:
    """Integer codes for ``values`` and the class tuple used (sorted unique values when not given).

    Parameters
    ----------
    values : array_like
        Class labels of any hashable type (e.g. strings).
    classes : sequence, optional
        The classes in code order; default: the sorted unique values.

    Returns
    -------
    codes : numpy.ndarray of int64
        The code of each value, same shape as ``values``.
    classes : tuple
        The classes, code ``i`` standing for ``classes[i]``.

    Raises
    ------
    ValueError
        When a value is not among ``classes``.

    Examples
    --------
    >>> codes, classes = encode_classes(["dog", "cat", "dog"])
    >>> codes.tolist(), classes
    ([1, 0, 1], ('cat', 'dog'))
    """
    values = np.asarray(values)
    if classes is None:
        classes = tuple(np.unique(values).tolist())
    classes = tuple(classes)
    lookup = {c: i for i, c in enumerate(classes)}
    try:
        codes = np.fromiter((lookup[v] for v in values.tolist()), dtype=np.int64, count=values.size)
    except KeyError as exc:
        raise ValueError(f"value {exc.args[0]!r} is not one of the classes {classes}") from None
    return codes.reshape(values.shape), classes


def confusion_counts(labels, responses, classes) -> np.ndarray:
    """K x K counts ``C[i, j]`` = number of items of true class ``i`` answered ``j``.

    Parameters
    ----------
    labels : array_like of int, (items,)
        True class codes in 0..K-1.
    responses : array_like of int, (items,)
        Response class codes in 0..K-1.
    classes : int or sequence
        K, or a sequence of length K.

    Returns
    -------
    numpy.ndarray of int, (K, K)
        The confusion table (rows: true class).

    Raises
    ------
    ValueError
        For codes outside 0..K-1, non-integer codes or inputs of different lengths.

    Examples
    --------
    >>> confusion_counts([0, 0, 1, 1], [0, 1, 1, 1], 2).tolist()
    [[1, 1], [0, 2]]
    """
    k = _n_classes(classes)
    y = _codes(labels, k, "labels")
    r = _codes(responses, k, "responses")
    if y.shape != r.shape:
        raise ValueError(f"labels and responses differ in length: {y.shape} vs {r.shape}")
    return np.bincount(y * k + r, minlength=k * k).reshape(k, k)


def error_agreement_matrix(labels, resp1, resp2, classes) -> np.ndarray:
    """K x K counts ``M[a, b]`` of (answer of observer 1, answer of observer 2) over items both got wrong.

    Parameters
    ----------
    labels : array_like of int, (items,)
        True class codes.
    resp1, resp2 : array_like of int, (items,)
        The two observers' responses (class codes).
    classes : int or sequence
        K, or a sequence of length K.

    Returns
    -------
    numpy.ndarray of int, (K, K)
        The joint-error matrix (input of :func:`misclassification_agreement`).

    Raises
    ------
    ValueError
        For codes outside 0..K-1 or inputs of different lengths.

    Examples
    --------
    >>> error_agreement_matrix([0, 0, 1, 2], [1, 2, 2, 2], [1, 1, 0, 2], 3).tolist()
    [[0, 0, 0], [0, 1, 0], [1, 1, 0]]
    """
    k = _n_classes(classes)
    y = _codes(labels, k, "labels")
    r1 = _codes(resp1, k, "resp1")
    r2 = _codes(resp2, k, "resp2")
    if not (y.shape == r1.shape == r2.shape):
        raise ValueError(f"labels, resp1, resp2 differ in length: {y.shape}, {r1.shape}, {r2.shape}")
    both_wrong = (r1 != y) & (r2 != y)
    return np.bincount(r1[both_wrong] * k + r2[both_wrong], minlength=k * k).reshape(k, k)


def square_count_stack(m, name: str) -> np.ndarray:
    """A stack of K x K count tables ``(..., K, K)`` as floats, checked: square, K >= 2, finite and non-negative.

    The input check of every metric here and of CLED (:mod:`humanlike.measures.ood.alignment_divergence`).

    Parameters
    ----------
    m : array_like, (..., K, K)
        Count tables (counts or weighted counts).
    name : str
        What the tables are, for the error message.

    Returns
    -------
    numpy.ndarray of float, (..., K, K)
        The tables.

    Raises
    ------
    ValueError
        For another shape, K < 2, a negative or a non-finite entry.

    Examples
    --------
    >>> square_count_stack([[3, 1], [1, 3]], "joint-error matrix").tolist()
    [[3.0, 1.0], [1.0, 3.0]]
    >>> square_count_stack([[3, 1]], "joint-error matrix")
    Traceback (most recent call last):
    ...
    ValueError: joint-error matrix must have shape (..., K, K), got (1, 2)
    """
    m = np.asarray(m, dtype=float)
    if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
        raise ValueError(f"{name} must have shape (..., K, K), got {m.shape}")
    if m.shape[-1] < 2:
        raise ValueError(f"{name} needs K >= 2 classes")
    if np.any(m < 0) or not np.all(np.isfinite(m)):
        raise ValueError(f"{name} must hold finite non-negative counts")
    return m


def scalar_or_array(x):
    """A 0-d result as a numpy scalar, any other as the array: the ``*_batch`` forms return ``float`` for one table.

    Parameters
    ----------
    x : array_like
        A metric per table of a stack.

    Returns
    -------
    numpy scalar or numpy.ndarray
        ``x[()]`` when ``x`` is 0-d, else ``x``.

    Examples
    --------
    >>> type(scalar_or_array(np.array(0.5))).__name__, scalar_or_array(np.array([0.5, 1.0])).tolist()
    ('float64', [0.5, 1.0])
    """
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


# ------------------------------------------------------------------------------------------------- MA


@dataclass(frozen=True)
class AgreementResult:
    """Misclassification agreement of one joint-error table.

    Built by :func:`misclassification_agreement`.

    Attributes
    ----------
    value : float
        Cohen's kappa on the joint-error matrix; NaN (or 1 under ``undefined='one'``) with a non-empty
        ``reason`` when undefined.
    n_joint_errors : int
        Number of items both observers got wrong.
    p_observed : float
        Share of joint errors with the same wrong answer.
    p_expected : float
        That share expected from the two observers' wrong-answer margins.
    reason : str
        ``''`` when ``value`` is defined, else why not.

    Examples
    --------
    >>> misclassification_agreement([[3, 1], [1, 3]])
    AgreementResult(value=0.5, n_joint_errors=8, p_observed=0.75, p_expected=0.5, reason='')
    """

    value: float
    n_joint_errors: int
    p_observed: float
    p_expected: float
    reason: str = ""

    def to_frame(self):
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply).

        Returns
        -------
        pandas.DataFrame
            One row with columns ``metric``, ``value``, ``n_joint_errors``, ``p_observed``, ``p_expected``,
            ``reason``.
        """
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "metric": "misclassification_agreement",
                    "value": self.value,
                    "n_joint_errors": self.n_joint_errors,
                    "p_observed": self.p_observed,
                    "p_expected": self.p_expected,
                    "reason": self.reason,
                }
            ]
        )


def _ma_parts(m: np.ndarray):
    n = m.sum(axis=(-2, -1))
    trace = np.trace(m, axis1=-2, axis2=-1)
    rows = m.sum(axis=-1)
    cols = m.sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = trace / n
        p_e = np.sum(rows * cols, axis=-1) / (n * n)
        value = (p_o - p_e) / (1.0 - p_e)
    no_errors = n <= 0
    degenerate = ~no_errors & (np.abs(1.0 - p_e) < _EPS)
    value = np.where(no_errors | degenerate, np.nan, value)
    p_o = np.where(no_errors, np.nan, p_o)
    p_e = np.where(no_errors, np.nan, p_e)
    return value, n, p_o, p_e, no_errors, degenerate


def _check_undefined(undefined: str) -> str:
    if undefined not in ("nan", "one"):
        raise ValueError(f"undefined must be 'nan' or 'one', got {undefined!r}")
    return undefined


def misclassification_agreement_batch(m, undefined: str = "nan") -> np.ndarray:
    """MA for a stack of joint-error matrices ``(..., K, K)``; returns an array of shape ``(...)``.

    Undefined entries (no joint errors, or expected agreement 1) are NaN, or 1 with ``undefined='one'``.
    Reasons: :func:`misclassification_agreement_reason`.

    Parameters
    ----------
    m : array_like, (..., K, K)
        Joint-error matrices (finite non-negative counts or weighted counts).
    undefined : {"nan", "one"}, default "nan"
        The value of undefined entries.

    Returns
    -------
    numpy.ndarray or float, (...)
        MA per matrix.

    Raises
    ------
    ValueError
        For a malformed stack or an unknown ``undefined``.

    Examples
    --------
    >>> misclassification_agreement_batch([[[3, 1], [1, 3]], [[0, 0], [0, 0]]]).tolist()
    [0.5, nan]
    >>> float(misclassification_agreement_batch([[0, 0], [0, 0]], undefined="one"))
    1.0
    """
    _check_undefined(undefined)
    m = square_count_stack(m, "joint-error matrix")
    value, _, _, _, no_errors, degenerate = _ma_parts(m)
    if undefined == "one":
        value = np.where(no_errors | degenerate, 1.0, value)
    return scalar_or_array(value)


def misclassification_agreement_reason(m) -> np.ndarray:
    """Per matrix of a stack: ``''`` where MA is defined, otherwise why it is not.

    Parameters
    ----------
    m : array_like, (..., K, K)
        Joint-error matrices.

    Returns
    -------
    numpy.ndarray of str or str, (...)
        The reason per matrix.

    Examples
    --------
    >>> misclassification_agreement_reason([[[0, 0], [0, 0]], [[3, 1], [1, 3]]]).tolist()
    ['no items both observers got wrong', '']
    """
    m = square_count_stack(m, "joint-error matrix")
    _, _, _, _, no_errors, degenerate = _ma_parts(m)
    out = np.where(no_errors, REASON_NO_JOINT_ERRORS, np.where(degenerate, REASON_DEGENERATE_MA, ""))
    return scalar_or_array(out)


def misclassification_agreement(m, undefined: str = "nan") -> AgreementResult:
    """Misclassification agreement: Cohen's kappa on the K x K joint-error matrix ``m``.

    ``p_o = trace(M)/N_E``, ``p_e = sum_k rowshare_k * colshare_k``, ``MA = (p_o - p_e)/(1 - p_e)``, with
    ``N_E`` the number of items both observers got wrong. MA lies in [-1, 1] and is symmetric in the two
    observers (``MA(M) == MA(M.T)``).

    Undefined when there are no joint errors, or when ``p_e = 1`` (both observers put every joint error
    on one and the same wrong class): NaN with a reason. ``undefined='one'`` reproduces the reference code,
    which substitutes 1 in both cases (the reason still says so).

    Parameters
    ----------
    m : array_like, (K, K)
        One joint-error matrix (see :func:`error_agreement_matrix`); use the ``_batch`` form for stacks.
    undefined : {"nan", "one"}, default "nan"
        The value reported where MA is undefined.

    Returns
    -------
    AgreementResult
        The value, the quantities behind it and the reason.

    Raises
    ------
    ValueError
        For a stack, a malformed matrix or an unknown ``undefined``.

    Examples
    --------
    >>> misclassification_agreement([[3, 1], [1, 3]]).value
    0.5
    >>> misclassification_agreement([[2, 0], [0, 0]]).reason
    'expected agreement is 1 (both observers always give the same single wrong answer)'
    """
    _check_undefined(undefined)
    m = square_count_stack(m, "joint-error matrix")
    if m.ndim != 2:
        raise ValueError("misclassification_agreement takes one K x K matrix; use the _batch form for stacks")
    value, n, p_o, p_e, no_errors, degenerate = _ma_parts(m)
    reason = REASON_NO_JOINT_ERRORS if no_errors else (REASON_DEGENERATE_MA if degenerate else "")
    value = float(value)
    if reason and undefined == "one":
        value = 1.0
        reason = reason + REASON_SUBSTITUTED_ONE
    return AgreementResult(float(value), int(round(float(n))), float(p_o), float(p_e), reason)
