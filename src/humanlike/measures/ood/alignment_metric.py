"""Error alignment beyond right/wrong: misclassification agreement (MA) and class-level error divergence (CLED).

docs/measures/ood-spectrum.md (Xu et al.). Both metrics look at *which wrong answer* observers give, not only at whether
they err.

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
from dataclasses import dataclass, field

import numpy as np

# --------------------------------------------------------------------------------------------- reasons

REASON_NO_JOINT_ERRORS = "no items both observers got wrong"
REASON_DEGENERATE_MA = "expected agreement is 1 (both observers always give the same single wrong answer)"
REASON_NO_ERRORS = "neither observer made an error"
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


def _square_stack(m, name: str) -> np.ndarray:
    m = np.asarray(m, dtype=float)
    if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
        raise ValueError(f"{name} must have shape (..., K, K), got {m.shape}")
    if m.shape[-1] < 2:
        raise ValueError(f"{name} needs K >= 2 classes")
    if np.any(m < 0) or not np.all(np.isfinite(m)):
        raise ValueError(f"{name} must hold finite non-negative counts")
    return m


def _scalar(x):
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
    m = _square_stack(m, "joint-error matrix")
    value, _, _, _, no_errors, degenerate = _ma_parts(m)
    if undefined == "one":
        value = np.where(no_errors | degenerate, 1.0, value)
    return _scalar(value)


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
    m = _square_stack(m, "joint-error matrix")
    _, _, _, _, no_errors, degenerate = _ma_parts(m)
    out = np.where(no_errors, REASON_NO_JOINT_ERRORS, np.where(degenerate, REASON_DEGENERATE_MA, ""))
    return _scalar(out)


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
    m = _square_stack(m, "joint-error matrix")
    if m.ndim != 2:
        raise ValueError("misclassification_agreement takes one K x K matrix; use the _batch form for stacks")
    value, n, p_o, p_e, no_errors, degenerate = _ma_parts(m)
    reason = REASON_NO_JOINT_ERRORS if no_errors else (REASON_DEGENERATE_MA if degenerate else "")
    value = float(value)
    if reason and undefined == "one":
        value = 1.0
        reason = reason + REASON_SUBSTITUTED_ONE
    return AgreementResult(float(value), int(round(float(n))), float(p_o), float(p_e), reason)


# ----------------------------------------------------------------------------------------------- CLED

_MIXTURES = ("average", "pooled")
_WEIGHTINGS = ("errors", "uniform")


def _off_diagonal(c: np.ndarray) -> np.ndarray:
    """(..., K, K) -> (..., K, K-1): each row without its diagonal entry."""
    k = c.shape[-1]
    mask = ~np.eye(k, dtype=bool)
    return c[..., mask].reshape(*c.shape[:-2], k, k - 1)


def _posterior_mean(counts: np.ndarray, alpha: float) -> np.ndarray:
    k1 = counts.shape[-1]
    return (counts + alpha) / (counts.sum(axis=-1, keepdims=True) + k1 * alpha)


def _kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    # Posterior means are strictly positive (alpha > 0), so the logs are finite.
    return np.sum(p * (np.log(p) - np.log(q)), axis=-1)


def _cled_parts(conf1, conf2, alpha, mixture, log_base, weighting):
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if mixture not in _MIXTURES:
        raise ValueError(f"mixture must be one of {_MIXTURES}, got {mixture!r}")
    if weighting not in _WEIGHTINGS:
        raise ValueError(f"weighting must be one of {_WEIGHTINGS}, got {weighting!r}")
    if log_base is None:
        log_base = 2.0 if mixture == "average" else np.e
    if not log_base > 1:
        raise ValueError(f"log_base must be > 1, got {log_base}")
    c1 = _square_stack(conf1, "conf1")
    c2 = _square_stack(conf2, "conf2")
    if c1.shape[-1] != c2.shape[-1]:
        raise ValueError(f"conf1 and conf2 have different numbers of classes: {c1.shape} vs {c2.shape}")
    c1, c2 = np.broadcast_arrays(c1, c2)
    e1 = _off_diagonal(c1)
    e2 = _off_diagonal(c2)
    n1 = e1.sum(axis=-1)  # (..., K) errors per true class
    n2 = e2.sum(axis=-1)
    p = _posterior_mean(e1, alpha)
    q = _posterior_mean(e2, alpha)
    if mixture == "average":
        mix = 0.5 * (p + q)
    else:
        mix = _posterior_mean(e1 + e2, alpha)
    jsd = (0.5 * _kl(p, mix) + 0.5 * _kl(q, mix)) / np.log(log_base)
    jsd = np.maximum(jsd, 0.0)  # rounding can leave -1e-17
    any_err = (n1 + n2) > 0
    if weighting == "errors":
        w_raw = n1 + n2
    else:
        w_raw = any_err.astype(float)
    total = w_raw.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(total > 0, w_raw / total, 0.0)
    value = np.sum(w * np.where(any_err, jsd, 0.0), axis=-1)
    none = total[..., 0] <= 0
    value = np.where(none, np.nan, value)
    per_class = np.where(any_err, jsd, np.nan)
    return value, per_class, w, n1, n2, none, float(log_base)


@dataclass(frozen=True)
class CLEDResult:
    """Class-level error divergence of two confusion tables.

    Built by :func:`class_level_error_divergence`.

    Attributes
    ----------
    value : float
        CLED; NaN with a ``reason`` when neither observer made any error.
    per_class : numpy.ndarray, (K,)
        JSD_i per true class (NaN for classes where neither observer erred; their ``weights`` are 0).
    weights : numpy.ndarray, (K,)
        Weight w_i of each class (summing to 1 when defined).
    n_errors_1, n_errors_2 : numpy.ndarray, (K,)
        Errors of each observer per true class.
    alpha : float
        Dirichlet prior count.
    mixture : str
        ``"average"`` or ``"pooled"``.
    log_base : float
        Base of the logarithm of the divergences.
    weighting : str
        ``"errors"`` or ``"uniform"``.
    reason : str
        ``''`` when ``value`` is defined.
    similarity : float
        ``1 / (1 + value)`` (see :func:`cled_similarity`); computed, not a constructor argument.

    Examples
    --------
    >>> c1 = [[5, 2, 0], [1, 6, 1], [0, 0, 8]]
    >>> c2 = [[5, 0, 2], [1, 6, 1], [0, 0, 8]]
    >>> r = class_level_error_divergence(c1, c2)
    >>> round(r.value, 4), r.weights.tolist(), round(r.similarity, 4)
    (0.175, [0.5, 0.5, 0.0], 0.8511)
    """

    value: float
    per_class: np.ndarray
    weights: np.ndarray
    n_errors_1: np.ndarray
    n_errors_2: np.ndarray
    alpha: float
    mixture: str
    log_base: float
    weighting: str
    reason: str = ""
    similarity: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "similarity", float(cled_similarity(self.value)))

    def to_frame(self):
        """One row per true class (index ``class``), plus the overall value in every row.

        Returns
        -------
        pandas.DataFrame
            Columns ``class``, ``jsd``, ``weight``, ``n_errors_1``, ``n_errors_2``, ``cled``, ``similarity``,
            ``alpha``, ``mixture``, ``log_base``, ``weighting``, ``reason``.
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "class": np.arange(len(self.per_class)),
                "jsd": self.per_class,
                "weight": self.weights,
                "n_errors_1": self.n_errors_1,
                "n_errors_2": self.n_errors_2,
                "cled": self.value,
                "similarity": self.similarity,
                "alpha": self.alpha,
                "mixture": self.mixture,
                "log_base": self.log_base,
                "weighting": self.weighting,
                "reason": self.reason,
            }
        )


def class_level_error_divergence_batch(
    conf1,
    conf2,
    alpha: float = 0.5,
    mixture: str = "average",
    log_base: float | None = None,
    weighting: str = "errors",
) -> np.ndarray:
    """CLED for stacks of confusion tables ``(..., K, K)`` (broadcast against each other) -> ``(...)``.

    NaN where neither observer made an error. Same parameters as :func:`class_level_error_divergence`.

    Parameters
    ----------
    conf1, conf2 : array_like, (..., K, K)
        Confusion tables (rows: true class), broadcast together.
    alpha : float, default 0.5
        Dirichlet prior count (> 0).
    mixture : {"average", "pooled"}, default "average"
        Mixture of the Jensen-Shannon divergence.
    log_base : float, optional
        Base of the logarithm; default 2 for ``"average"``, e for ``"pooled"``.
    weighting : {"errors", "uniform"}, default "errors"
        Weights of the classes.

    Returns
    -------
    numpy.ndarray or float, (...)
        CLED per pair of tables.

    Examples
    --------
    >>> c1 = [[5, 2, 0], [1, 6, 1], [0, 0, 8]]
    >>> c2 = [[5, 0, 2], [1, 6, 1], [0, 0, 8]]
    >>> class_level_error_divergence_batch([c1, c2], c2).round(4).tolist()
    [0.175, 0.0]
    """
    value, *_ = _cled_parts(conf1, conf2, alpha, mixture, log_base, weighting)
    return _scalar(value)


def class_level_error_divergence(
    conf1,
    conf2,
    alpha: float = 0.5,
    mixture: str = "average",
    log_base: float | None = None,
    weighting: str = "errors",
) -> CLEDResult:
    """Class-level error divergence between two observers' K x K confusion tables (rows = true class).

    Per true class i, each observer's wrong-answer counts (row i without the diagonal, K-1 entries) become
    a Dirichlet posterior mean ``(c + alpha) / (n_i + (K-1) alpha)``; JSD_i is the Jensen-Shannon
    divergence between the two observers' distributions, and ``CLED = sum_i w_i JSD_i``.

    - ``mixture='average'`` (default): mixture ``(P+Q)/2``, the proper JSD; with ``log_base=2`` (the
      default for this mixture) every JSD_i and CLED lie in [0, 1].
    - ``mixture='pooled'``: the published code's variant, mixture = posterior mean of the pooled counts
      ``c1 + c2``; ``log_base`` defaults to e for this variant. It is ``>= 0`` and, in the same base, never
      below the average-mixture value (``(P+Q)/2`` minimises ``KL(P||M) + KL(Q||M)``); it is *not* 0
      for identical observers, because the pooled counts are shrunk less towards uniform.
    - ``weighting='errors'`` (default): ``w_i = (n_i^1 + n_i^2) / sum_j (n_j^1 + n_j^2)``, the errors of
      both observers in class i. ``'uniform'``: equal weight on every class where at least one observer
      erred.

    Classes where neither observer erred get weight 0 (their posterior means are both the uniform prior,
    so JSD_i would be 0 anyway; ``per_class`` reports NaN for them). A class where only one observer erred
    compares that observer's error distribution with the other's uniform prior. With K = 2 there is one
    possible wrong answer per class and CLED is 0 whenever defined. Undefined (NaN, with a reason) when
    neither observer made any error. CLED is symmetric in the two observers. No-answer responses are not
    a class: drop or map them before building the tables.

    Parameters
    ----------
    conf1, conf2 : array_like, (K, K)
        The two observers' confusion tables (see :func:`confusion_counts`).
    alpha : float, default 0.5
        Dirichlet prior count (> 0).
    mixture : {"average", "pooled"}, default "average"
        Mixture of the Jensen-Shannon divergence (see above).
    log_base : float, optional
        Base of the logarithm (> 1); default 2 for ``"average"``, e for ``"pooled"``.
    weighting : {"errors", "uniform"}, default "errors"
        Weights of the classes (see above).

    Returns
    -------
    CLEDResult
        The value, per-class divergences, weights and settings.

    Raises
    ------
    ValueError
        For stacks, tables of different K, negative counts or invalid settings.

    Examples
    --------
    >>> c1 = [[5, 2, 0], [1, 6, 1], [0, 0, 8]]
    >>> c2 = [[5, 0, 2], [1, 6, 1], [0, 0, 8]]
    >>> r = class_level_error_divergence(c1, c2)
    >>> round(r.value, 4), r.per_class.round(4).tolist()
    (0.175, [0.35, 0.0, nan])
    >>> class_level_error_divergence(c1, c1).value
    0.0
    """
    c1 = np.asarray(conf1, dtype=float)
    c2 = np.asarray(conf2, dtype=float)
    if c1.ndim != 2 or c2.ndim != 2:
        raise ValueError("class_level_error_divergence takes two K x K tables; use the _batch form for stacks")
    value, per_class, w, n1, n2, none, base = _cled_parts(c1, c2, alpha, mixture, log_base, weighting)
    return CLEDResult(
        value=float(value),
        per_class=per_class,
        weights=w,
        n_errors_1=n1,
        n_errors_2=n2,
        alpha=float(alpha),
        mixture=mixture,
        log_base=base,
        weighting=weighting,
        reason=REASON_NO_ERRORS if bool(none) else "",
    )


def cled_similarity(d):
    """Similarity ``1 / (1 + d)`` from a divergence (as reported by the earlier paper); NaN stays NaN.

    Parameters
    ----------
    d : array_like
        Divergences (e.g. CLED values).

    Returns
    -------
    numpy.ndarray or float
        The similarity in (0, 1].

    Examples
    --------
    >>> float(cled_similarity(0.0)), float(cled_similarity(1.0))
    (1.0, 0.5)
    """
    d = np.asarray(d, dtype=float)
    return _scalar(1.0 / (1.0 + d))
