"""Bootstrap stability of the OOD regimes (docs/measures/ood-spectrum.md): how often a condition keeps its regime
when the mixture of :func:`humanlike.measures.ood.regimes.fit_regimes` is refitted on resampled scores.

The refits run the compiled EM of :func:`humanlike.measures.ood.mixture_em.em_rows_in_threads` over all
resamples at once; the fit itself (components, naming, selection by BIC / AICc) lives in
:mod:`humanlike.measures.ood.regimes`. Pure numerics; pandas only inside ``to_frame``. Randomness only through an
explicit seed (per-key streams for an int seed, so the numbers do not depend on the chunking).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .regimes import RegimeFit, assign_components, mean_order_key
from ...resampling.rng import SeedLike, make_rng, stream


@dataclass(frozen=True)
class RegimeStability:
    """Bootstrap stability of regime assignments.

    ``stability[j]``: share of resamples (with a finite score j) whose refitted, mean-ordered regime of
    condition j equals its original regime; ``labels`` (n_boot, n_conditions) the resampled regimes.

    Attributes
    ----------
    stability : numpy.ndarray
        Share per condition (NaN where no resample has a finite score).
    n_valid : numpy.ndarray of int
        Resamples used per condition.
    labels : numpy.ndarray of int
        Resampled regime per resample and condition (-1 where undefined).
    n_components : int
        Components of the refits.

    Examples
    --------
    >>> from humanlike.measures.ood.regimes import fit_regimes
    >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
    >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
    >>> noise = np.random.default_rng(0).normal(0.0, 0.1, (20, 9))
    >>> result = regime_stability_bootstrap(np.asarray(scores) + noise, fit, seed=0)
    >>> result.labels.shape, result.stability[:2].tolist(), int(result.n_valid[-1])
    ((20, 9), [1.0, 1.0], 0)
    """

    stability: np.ndarray
    n_valid: np.ndarray
    labels: np.ndarray
    n_components: int

    def to_frame(self):
        """The result as a tidy table, one row per condition.

        Returns
        -------
        pandas.DataFrame
            Columns ``index``, ``stability``, ``n_valid``, ``n_components``.
        """
        import pandas as pd

        return pd.DataFrame(
            {"index": np.arange(self.stability.size), "stability": self.stability, "n_valid": self.n_valid,
             "n_components": self.n_components}
        )


def regime_stability_bootstrap(
    boot_scores,
    fit: RegimeFit,
    n_init: int = 5,
    seed: SeedLike = None,
    reg_covar: float = 1e-6,
    max_iter: int = 500,
    tol: float = 1e-7,
    chunk_elements: int = 2_000_000,
) -> RegimeStability:
    """Per-condition share of bootstrap resamples in which the condition keeps its original regime.

    ``boot_scores`` is (n_boot, n_conditions): the OOD scores recomputed on each resample. Each row is
    refitted with ``fit.n_components`` components by EM vectorised over rows (no Python loop over
    resamples): ``n_init`` starts per row, the first warm-started at the original fit's parameters, the
    others at randomly drawn data points of the row (seeded) with the row's variance and equal weights;
    the start with the highest log-likelihood is kept, its components are ordered by mean, and each
    condition is assigned to its most probable component. Non-finite resampled scores are left out of
    that row's fit and of the share (``n_valid`` counts the resamples used per condition). With an int
    ``seed`` the random starts of resample r come from ``stream(seed, "regime-starts", r // 100)``, so they do
    not depend on ``chunk_elements``.

    Parameters
    ----------
    boot_scores : array_like of float
        Resampled OOD scores, shape (n_boot, n_conditions).
    fit : RegimeFit
        The fit on the original scores (gives m, the warm start and the original labels).
    n_init : int, default 5
        EM starts per resample.
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the random starts.
    reg_covar : float, default 1e-6
        Variance added to every component.
    max_iter : int, default 500
        EM iteration cap.
    tol : float, default 1e-7
        EM convergence tolerance.
    chunk_elements : int, default 2000000
        Largest resamples x starts x conditions x components block (bounds memory).

    Returns
    -------
    RegimeStability
        Share of resamples keeping each condition's regime.

    Raises
    ------
    ValueError
        If ``boot_scores`` does not have one column per score of ``fit``, or ``n_init < 1``.

    Examples
    --------
    >>> from humanlike.measures.ood.regimes import fit_regimes
    >>> scores = [0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2, float("nan")]
    >>> fit = fit_regimes(scores, max_components=2, n_init=3, seed=0)
    >>> noise = np.random.default_rng(0).normal(0.0, 0.1, (20, 9))
    >>> result = regime_stability_bootstrap(np.asarray(scores) + noise, fit, seed=0)
    >>> result.to_frame()["n_valid"].tolist()
    [20, 20, 20, 20, 20, 20, 20, 20, 0]
    """
    from .mixture_em import em_rows_in_threads

    b = np.asarray(boot_scores, dtype=float)
    if b.ndim != 2 or b.shape[1] != fit.labels.size:
        raise ValueError(f"boot_scores must have shape (n_boot, {fit.labels.size}), got {b.shape}")
    if n_init < 1:
        raise ValueError("n_init must be >= 1")
    m = fit.n_components
    n_boot, n = b.shape
    start_keys = None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        # per-block streams: resample r's starts depend on the seed and r only, not on the chunking
        def start_keys(lo, hi):
            blocks = range(lo // 100, (hi - 1) // 100 + 1)
            draws = np.concatenate([stream(int(seed), "regime-starts", blk).random((100, n_init - 1, n))
                                    for blk in blocks])
            return draws[lo - blocks[0] * 100: hi - blocks[0] * 100]
        rng = None
    else:
        rng = make_rng(seed)
    valid = np.isfinite(b)
    labels = np.full(b.shape, -1, dtype=np.int64)
    chunk = max(1, int(chunk_elements // max(1, n_init * n * m)))
    for start in range(0, n_boot, chunk):
        xb = b[start : start + chunk]
        vb = valid[start : start + chunk]
        bc = xb.shape[0]
        mu0 = np.empty((bc, n_init, m))
        var0 = np.empty((bc, n_init, m))
        w0 = np.full((bc, n_init, m), 1.0 / m)
        mu0[:, 0] = fit.means
        var0[:, 0] = fit.sds**2 + reg_covar
        w0[:, 0] = fit.weights
        if n_init > 1:
            keys = start_keys(start, start + bc) if start_keys is not None else rng.random((bc, n_init - 1, n))
            keys = np.where(vb[:, None, :], keys, np.inf)
            pick = np.argsort(keys, axis=-1)[..., :m]
            xs = np.where(vb, xb, 0.0)
            mu0[:, 1:] = np.take_along_axis(xs[:, None, :], pick.reshape(bc, -1)[:, None, :], axis=-1).reshape(
                bc, n_init - 1, m
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                row_var = np.nanvar(np.where(vb, xb, np.nan), axis=1)
            row_var = np.where(np.isfinite(row_var) & (row_var > 0), row_var, 1.0)
            var0[:, 1:] = row_var[:, None, None] + reg_covar
        rows_ok = vb.sum(axis=1) >= 1
        mu, var, w, ll = em_rows_in_threads(xb, vb, mu0, var0, w0, reg_covar, max_iter, tol)
        best = np.argmax(ll, axis=1)
        sel = np.arange(bc)
        mu, var, w = mu[sel, best], var[sel, best], w[sel, best]
        idx = np.argsort(mean_order_key(mu, fit.order), axis=1, kind="stable")
        mu = np.take_along_axis(mu, idx, axis=1)
        var = np.take_along_axis(var, idx, axis=1)
        w = np.take_along_axis(w, idx, axis=1)
        lab = assign_components(xb, mu[:, None, :], var[:, None, :], w[:, None, :])
        lab = np.where(vb & rows_ok[:, None], lab, -1)
        labels[start : start + chunk] = lab

    used = (labels >= 0) & (fit.labels >= 0)[None, :]
    n_valid = used.sum(axis=0)
    same = np.sum((labels == fit.labels[None, :]) & used, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        stability = np.where(n_valid > 0, same / n_valid, np.nan)
    return RegimeStability(stability=stability, n_valid=n_valid, labels=labels, n_components=m)
