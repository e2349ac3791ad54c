"""Class-level error divergence (CLED) of two observers' confusion tables (docs/measures/ood-spectrum.md, Xu et al.).

Per true class, the Jensen-Shannon divergence between the two observers' wrong-answer distributions (Dirichlet
posterior means), weighted over the classes. The confusion tables come from
:func:`humanlike.measures.ood.alignment_metric.confusion_counts`; the conventions (class codes, no-answer
responses, single-table and ``*_batch`` forms) are those of :mod:`humanlike.measures.ood.alignment_metric`, which
also holds misclassification agreement (MA). Pure array functions; pandas only inside ``to_frame``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .alignment_metric import scalar_or_array, square_count_stack

REASON_NO_ERRORS = "neither observer made an error"

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
    c1 = square_count_stack(conf1, "conf1")
    c2 = square_count_stack(conf2, "conf2")
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
    return scalar_or_array(value)


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
    return scalar_or_array(1.0 / (1.0 + d))
