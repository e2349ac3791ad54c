"""Planning a comparison of two models' DMC: the margin model and the paired item bootstrap, simulated.

``n_items`` items with true human accuracies ``pi_i ~ Uniform(lo, hi)``; ``n_observers``
humans answer each item once (Bernoulli(pi_i), sampling error only, as :mod:`humanlike.measures.dmc.planning`);
the pooled human index is their mean. A model's margin is ``rho z_i + sqrt(1 - rho^2) e_i`` with ``z_i`` the
standardised true accuracy and ``e_i`` its own standard-normal noise, so its population correlation with the
true accuracy is ``rho``, and its DMC (correlation with the pooled index) is ``rho`` times the square root of
the index's reliability. The paired bootstrap resamples items, the same items for both models.

:func:`simulate_dmc_comparisons` gives the data sets' differences, percentile intervals and p-values as a
:class:`~humanlike.measures.compare.planning_simulation.SimulatedComparisons`; the plans over numbers of items are
in :mod:`humanlike.measures.compare.planning`.
"""

from __future__ import annotations

import numpy as np

from .planning_simulation import SimulatedComparisons, replicate_percentiles
from ...stats.comparison import bootstrap_p_value
from ...resampling.rng import stream


def _rows_corr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of matching rows (last axis)."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xc * yc).sum(-1) / np.sqrt((xc * xc).sum(-1) * (yc * yc).sum(-1))


def simulate_dmc_comparisons(n_items: int, n_observers: int, rho_a: float, rho_b: float, *,
                             accuracy_range: tuple[float, float] = (0.2, 0.95), n_sets: int = 500,
                             n_resamples: int = 500, level: float = 0.95, seed: int = 0) -> SimulatedComparisons:
    """Simulate ``n_sets`` comparisons of two models' DMC under the margin model (module docstring).

    The planted difference reported is the population ``DMC_A - DMC_B`` = ``(rho_a - rho_b) sqrt(R)`` with
    ``R`` the reliability of the pooled index, ``V / (V + E[pi (1 - pi)] / n_observers)``
    (V the variance of the true accuracies).

    Parameters
    ----------
    n_items : int
        Items (at least 3).
    n_observers : int
        Human observers, each answering every item once.
    rho_a, rho_b : float
        Correlation of each model's margins with the items' true accuracies, in [-1, 1].
    accuracy_range : (float, float)
        True item accuracies are Uniform(lo, hi).
    n_sets : int
        Simulated data sets.
    n_resamples : int
        Item-bootstrap resamples per data set.
    level : float
        Interval level.
    seed : int
        Seed; data set k uses ``stream(seed, "compare-plan", "dmc", k)``.

    Returns
    -------
    SimulatedComparisons
        ``p_exact`` is None.

    Examples
    --------
    >>> sim = simulate_dmc_comparisons(100, 8, 0.5, 0.5, n_sets=40, n_resamples=200, seed=0)
    >>> sim.true_difference, sim.rejection_rate() <= 0.2
    (0.0, True)
    """
    lo, hi = accuracy_range
    if not 0 <= lo < hi <= 1:
        raise ValueError(f"accuracy_range must satisfy 0 <= lo < hi <= 1, got {accuracy_range}")
    if n_items < 3 or n_observers < 1:
        raise ValueError("a DMC comparison needs at least 3 items and 1 observer")
    for rho in (rho_a, rho_b):
        if not -1 <= rho <= 1:
            raise ValueError(f"rho must lie in [-1, 1], got {rho}")
    variance = (hi - lo) ** 2 / 12
    noise = (lo + hi) / 2 - (hi**3 - lo**3) / (3 * (hi - lo))   # E[pi (1 - pi)] for Uniform(lo, hi)
    reliability = variance / (variance + noise / n_observers)
    diff = np.empty(n_sets)
    reps = np.empty((n_sets, n_resamples))
    for k in range(n_sets):
        g = stream(seed, "compare-plan", "dmc", k)
        pi = g.uniform(lo, hi, n_items)
        z = (pi - (lo + hi) / 2) / np.sqrt(variance)
        index = g.binomial(n_observers, pi) / n_observers
        ma = rho_a * z + np.sqrt(1 - rho_a**2) * g.standard_normal(n_items)
        mb = rho_b * z + np.sqrt(1 - rho_b**2) * g.standard_normal(n_items)
        diff[k] = _rows_corr(ma, index) - _rows_corr(mb, index)
        idx = g.integers(0, n_items, size=(n_resamples, n_items))
        reps[k] = _rows_corr(ma[idx], index[idx]) - _rows_corr(mb[idx], index[idx])
    low, high = replicate_percentiles(reps, level)
    p = bootstrap_p_value(reps.T)
    return SimulatedComparisons(diff, low, high, p, None, float((rho_a - rho_b) * np.sqrt(reliability)))
