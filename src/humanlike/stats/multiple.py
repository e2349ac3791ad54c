"""Multiple-testing control: Benjamini-Hochberg false discovery rate (METHODS.md §4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BHResult:
    """Benjamini-Hochberg adjustment of a family of p-values (same shape as the input).

    ``adjusted`` is NaN where the input p-value is NaN (those tests are left out of the family, so
    ``n_tests`` counts only finite p-values); ``reject`` is False there.
    """

    p_values: np.ndarray
    adjusted: np.ndarray
    reject: np.ndarray
    alpha: float
    n_tests: int

    def to_frame(self):
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
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
    ``statsmodels.stats.multitest.multipletests(method='fdr_bh')`` on finite input.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    p = np.asarray(pvalues, dtype=float)
    flat = p.ravel()
    finite = ~np.isnan(flat)
    if np.any((flat[finite] < 0) | (flat[finite] > 1)):
        raise ValueError("p-values must lie in [0, 1] (or be NaN)")
    adjusted = np.full(flat.shape, np.nan)
    pf = flat[finite]
    m = pf.size
    if m:
        order = np.argsort(pf, kind="stable")
        ranked = pf[order] * m / np.arange(1, m + 1)
        ranked = np.minimum.accumulate(ranked[::-1])[::-1]
        out = np.empty(m)
        out[order] = np.minimum(ranked, 1.0)
        adjusted[finite] = out
    reject = np.zeros(flat.shape, dtype=bool)
    reject[finite] = adjusted[finite] <= alpha
    return BHResult(
        p_values=p,
        adjusted=adjusted.reshape(p.shape),
        reject=reject.reshape(p.shape),
        alpha=float(alpha),
        n_tests=int(m),
    )
