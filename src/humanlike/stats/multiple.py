"""Multiple-testing control over one family of p-values: Benjamini-Hochberg (false discovery rate,
docs/measures/ood-spectrum.md), Holm's step-down (family-wise error rate), and :func:`adjust`, which applies the
one a paired comparison names (:data:`CORRECTIONS`, docs/compare.md).

The adjustments themselves are statsmodels' (``statsmodels.stats.multitest.multipletests``); this module adds
what a family here needs around them: NaN p-values (undefined tests) are left out of the family and stay NaN,
and p-values outside [0, 1] are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BHResult:
    """Benjamini-Hochberg adjustment of a family of p-values (same shape as the input).

    ``adjusted`` is NaN where the input p-value is NaN (those tests are left out of the family, so
    ``n_tests`` counts only finite p-values); ``reject`` is False there.

    Attributes
    ----------
    p_values : numpy.ndarray
        The raw p-values, as given (any shape).
    adjusted : numpy.ndarray
        BH-adjusted p-values, same shape; NaN where the raw p-value is NaN.
    reject : numpy.ndarray of bool
        ``adjusted <= alpha``, same shape; False where the raw p-value is NaN.
    alpha : float
        The false discovery rate controlled.
    n_tests : int
        Size of the family: the number of finite p-values.

    Examples
    --------
    >>> result = benjamini_hochberg([0.01, 0.04, 0.03])
    >>> result.adjusted.round(3).tolist(), result.n_tests
    ([0.03, 0.04, 0.04], 3)
    """

    p_values: np.ndarray
    adjusted: np.ndarray
    reject: np.ndarray
    alpha: float
    n_tests: int

    def to_frame(self):
        """The result as a tidy table, one row per p-value (flattened in C order).

        Returns
        -------
        pandas.DataFrame
            Columns ``p_value``, ``p_adjusted``, ``reject``, ``alpha``, ``n_tests`` and ``reason`` (non-empty
            where the p-value is NaN).
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "p_value": np.ravel(self.p_values),
                "p_adjusted": np.ravel(self.adjusted),
                "reject": np.ravel(self.reject),
                "alpha": self.alpha,
                "n_tests": self.n_tests,
                "reason": np.where(np.isnan(np.ravel(self.p_values)), "p-value undefined (NaN)", ""),
            }
        )


def benjamini_hochberg(pvalues, alpha: float = 0.05) -> BHResult:
    """Benjamini-Hochberg step-up adjustment (independent or positively dependent tests).

    Adjusted ``p_(i) = min_{j >= i} min(1, m p_(j) / j)`` over the sorted finite p-values (so the adjusted
    values are monotone in the raw ones and capped at 1); ``reject = adjusted <= alpha``. NaN p-values are
    excluded from the family (``m`` counts finite ones) and stay NaN. Matches
    ``statsmodels.stats.multitest.multipletests(method='fdr_bh')``, which computes it.

    Parameters
    ----------
    pvalues : array_like of float
        P-values in [0, 1], any shape; NaN marks an undefined test (left out of the family).
    alpha : float, default 0.05
        False discovery rate to control, in (0, 1).

    Returns
    -------
    BHResult
        Adjusted p-values and rejections, in the shape of ``pvalues``.

    Raises
    ------
    ValueError
        If ``alpha`` is outside (0, 1) or a finite p-value is outside [0, 1].

    Notes
    -----
    Benjamini & Hochberg (1995); docs/measures/ood-spectrum.md (significance of the OOD-spectrum comparisons).

    Examples
    --------
    >>> result = benjamini_hochberg([0.001, 0.2, float("nan"), 0.02], alpha=0.05)
    >>> result.adjusted.round(3).tolist()
    [0.003, 0.2, nan, 0.03]
    >>> result.reject.tolist(), result.n_tests
    ([True, False, False, True], 3)
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    p = np.asarray(pvalues, dtype=float)
    flat = p.ravel()
    finite = ~np.isnan(flat)
    if np.any((flat[finite] < 0) | (flat[finite] > 1)):
        raise ValueError("p-values must lie in [0, 1] (or be NaN)")
    adjusted = np.full(flat.shape, np.nan)
    m = int(finite.sum())
    adjusted[finite] = _statsmodels_adjusted(flat[finite], "fdr_bh")
    reject = np.zeros(flat.shape, dtype=bool)
    reject[finite] = adjusted[finite] <= alpha
    return BHResult(
        p_values=p,
        adjusted=adjusted.reshape(p.shape),
        reject=reject.reshape(p.shape),
        alpha=float(alpha),
        n_tests=int(m),
    )


def _statsmodels_adjusted(finite_pvalues: np.ndarray, method: str) -> np.ndarray:
    """statsmodels' adjusted p-values of a family of finite p-values (an empty family stays empty)."""
    if finite_pvalues.size == 0:
        return finite_pvalues.copy()
    from statsmodels.stats.multitest import multipletests   # statsmodels imports scipy.stats: ~1 s, on first use

    return multipletests(finite_pvalues, method=method, is_sorted=False)[1]


#: Multiple-testing corrections offered: Holm's step-down (family-wise error), Benjamini-Hochberg (FDR), none.
CORRECTIONS = ("holm", "bh", "none")


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate under any dependence).

    ``adjusted_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` over the sorted finite p-values; NaN p-values are
    left out of the family (``m`` counts the finite ones) and stay NaN.

    Parameters
    ----------
    pvalues : array_like of float
        P-values in [0, 1] (NaN allowed), any shape.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape.

    Raises
    ------
    ValueError
        If a finite p-value is outside [0, 1].

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> holm([0.02, float("nan")]).tolist()
    [0.02, nan]
    """
    p = np.asarray(pvalues, dtype=float)
    flat = p.ravel()
    finite = ~np.isnan(flat)
    if np.any((flat[finite] < 0) | (flat[finite] > 1)):
        raise ValueError("p-values must lie in [0, 1] (or be NaN)")
    out = np.full(flat.shape, np.nan)
    out[finite] = _statsmodels_adjusted(flat[finite], "holm")
    return out.reshape(p.shape)


def adjust(pvalues, correction: str) -> np.ndarray:
    """P-values adjusted over one family by ``correction`` (``"holm"``, ``"bh"`` or ``"none"``).

    Parameters
    ----------
    pvalues : array_like of float
        The family's p-values (NaN ones are left out of it).
    correction : {"holm", "bh", "none"}
        Holm's step-down, Benjamini-Hochberg, or no adjustment.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values.

    Raises
    ------
    ValueError
        On an unknown correction.

    Examples
    --------
    >>> adjust([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if correction == "holm":
        return holm(pvalues)
    if correction == "bh":
        return benjamini_hochberg(pvalues).adjusted
    if correction == "none":
        return np.asarray(pvalues, dtype=float).copy()
    raise ValueError(f"correction must be one of {CORRECTIONS}, not {correction!r}")
