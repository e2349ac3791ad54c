"""Writes tests/data/regimes_reference.npz: regime fits and bootstrap stabilities from the EM before its
speed-up (main at 8efe56a), pinned bit for bit by tests/measures/ood/test_regimes_exact.py.

    PYTHONPATH=<checkout of 8efe56a>/src python tests/data/make_regimes_reference.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from humanlike.measures.ood.mixture_em import em_rows_in_threads
from humanlike.measures.ood.regime_stability import regime_stability_bootstrap
from humanlike.measures.ood.regimes import fit_regimes


def scores(seed: int) -> np.ndarray:
    """Three groups of OOD-like scores (reference, near, far) and a straggler between two of them."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(0.0, 0.3, 14), rng.normal(-2.5, 0.5, 12), rng.normal(-6.0, 0.8, 9), [-1.3]])


def resamples(x: np.ndarray, seed: int) -> np.ndarray:
    """Noisy copies of ``x`` with some undefined scores (the masked path of the EM)."""
    rng = np.random.default_rng(seed)
    boot = x[None, :] + rng.normal(0.0, 0.5, (120, x.size))
    boot[rng.random(boot.shape) < 0.03] = np.nan
    return boot


def compute() -> dict[str, np.ndarray]:
    out = {}
    for case, (seed, kwargs) in enumerate([(0, {}), (1, {"criterion": "aicc", "n_init": 7}),
                                           (2, {"n_components": 3, "n_init": 4})]):
        x = scores(seed)
        fit = fit_regimes(x, seed=seed, max_components=3, **kwargs)
        for name in ("labels", "means", "sds", "weights", "log_likelihood", "bic", "aicc", "stability"):
            out[f"fit{case}_{name}"] = np.asarray(getattr(fit, name))
        boot = resamples(x, seed)
        for chunk, elements in (("whole", 2_000_000), ("chunked", 2_000)):
            res = regime_stability_bootstrap(boot, fit, n_init=5, seed=seed, chunk_elements=elements)
            out[f"boot{case}_{chunk}_labels"] = res.labels
            out[f"boot{case}_{chunk}_stability"] = res.stability
    out.update(zip(("em_means", "em_variances", "em_weights", "em_loglik"), em_rows_in_threads(*em_inputs())))
    return out


def em_inputs():
    """Rows with undefined points and four starts each (rows stop at different iterations; some hit the cap)."""
    boot = resamples(scores(3), 3)[:120]
    rng = np.random.default_rng(4)
    valid = np.isfinite(boot)
    mu0 = rng.normal(-3.0, 2.0, (boot.shape[0], 4, 3))
    var0 = rng.uniform(0.5, 4.0, (boot.shape[0], 4, 3))
    w0 = rng.dirichlet(np.ones(3), (boot.shape[0], 4))
    return boot, valid, mu0, var0, w0, 1e-3, 300, 1e-9


if __name__ == "__main__":
    np.savez_compressed(Path(__file__).parent / "regimes_reference.npz", **compute())
