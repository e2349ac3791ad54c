"""Planning a model comparison: the power to resolve a difference, by simulation (docs/compare.md).

:func:`plan_ec_comparison` gives the trials needed to resolve two models' EC difference (copy model, one table per
human, for each number of humans), :func:`plan_dmc_comparison` the items needed for two models' DMC (margin
model), each as a :class:`ComparisonPlan`: the power per design size and the smallest size reaching the target.
The simulations they run are in :mod:`humanlike.measures.compare.planning_ec` (EC: the copy model's joint cells,
the paired bootstrap, MOVER, the exact test) and :mod:`humanlike.measures.compare.planning_dmc` (DMC: the margin
model); what one simulation gives is :class:`humanlike.measures.compare.planning_simulation.SimulatedComparisons`.

Every data set ``k`` is drawn from the stream ``stream(seed, "compare-plan", k)``, so numbers depend neither on
chunking nor on the number of data sets asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .planning_dmc import simulate_dmc_comparisons
from .planning_ec import checked_humans, simulate_ec_comparisons

TESTS = ("bootstrap", "exact")


@dataclass(frozen=True)
class ComparisonPlan:
    """Power to resolve a planted difference, per design size and number of humans, and the smallest size
    reaching the target.

    Attributes
    ----------
    measure : str
        ``"error_consistency"`` or ``"decision_margin_consistency"``.
    sizes : numpy.ndarray
        Trials (EC) or items (DMC) simulated.
    power : dict
        ``{test: numpy.ndarray of power, shape (len(humans), len(sizes))}``; NaN where the test was not run
        (the exact test with more than one human).
    needed : dict
        ``{test: {humans: smallest simulated size with power >= target, or None}}``, for the humans the test
        was run with.
    target : float
        The power asked for.
    alpha : float
        The level of the (uncorrected) test.
    true_difference : float
        The planted population difference.
    design : dict
        Every other parameter of the simulation.
    humans : tuple of int
        Numbers of humans simulated (EC), or the DMC plan's one number of observers.

    Examples
    --------
    >>> plan = ComparisonPlan("error_consistency", np.array([100, 400]), {"bootstrap": np.array([[0.3, 0.9]])},
    ...                       {"bootstrap": {1: 400}}, 0.8, 0.05, 0.2, {"unit": "trials"})
    >>> plan.to_frame()[["humans", "size", "power", "reaches_target"]].values.tolist()
    [[1, 100, 0.3, False], [1, 400, 0.9, True]]
    """

    measure: str
    sizes: np.ndarray
    power: dict
    needed: dict
    target: float
    alpha: float
    true_difference: float
    design: dict
    humans: tuple = (1,)

    def to_frame(self):
        """One row per (humans, size, test) that was simulated: measure, humans, size, test, power,
        reaches_target, true_difference.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        rows = [{"measure": self.measure, "humans": int(h), "size": int(n), "test": t, "power": float(p[j, k]),
                 "reaches_target": bool(p[j, k] >= self.target), "true_difference": self.true_difference}
                for t, p in self.power.items() for j, h in enumerate(self.humans) for k, n in enumerate(self.sizes)
                if not np.isnan(p[j, k])]
        return pd.DataFrame(rows)


def smallest_reaching(sizes: np.ndarray, power: np.ndarray, target: float):
    """The first size whose power reaches ``target`` (None when none does).

    Parameters
    ----------
    sizes : numpy.ndarray
        Design sizes, increasing.
    power : numpy.ndarray
        Power at each size.
    target : float
        Power to reach.

    Returns
    -------
    int or None

    Examples
    --------
    >>> smallest_reaching(np.array([10, 20, 40]), np.array([0.3, 0.85, 0.95]), 0.8)
    20
    """
    return int(sizes[np.argmax(power >= target)]) if (power >= target).any() else None


def plan_ec_comparison(delta: float, *, kappa_b: float = 0.2, a_human: float = 0.8, a_model: float = 0.8,
                       trials=(100, 200, 400, 800, 1600, 3200), target: float = 0.8, alpha: float = 0.05,
                       n_sets: int = 400, n_resamples: int = 400, exact: bool = True, seed: int = 0,
                       humans=(1,)) -> ComparisonPlan:
    """Trials needed to resolve ``EC_A - EC_B = delta`` (copy model; one table per human) with power ``target``,
    for each number of humans.

    Parameters
    ----------
    delta : float
        Planted difference; model A's EC is ``kappa_b + delta``.
    kappa_b : float
        Model B's EC with (each) human.
    a_human, a_model : float
        Accuracies (every human alike, both models alike).
    trials : sequence of int
        Numbers of trials simulated.
    target : float
        Power to reach.
    alpha : float
        Level of the test (one comparison; divide by the family size for a Bonferroni/Holm plan).
    n_sets, n_resamples : int
        Simulated data sets per (humans, size) and bootstrap resamples per data set.
    exact : bool
        Also the exact label-exchange test (run for one human only: it is a test of one table).
    seed : int
        Seed.
    humans : sequence of int
        Numbers of humans ``N`` (1 to :data:`~humanlike.measures.compare.planning_ec.MAX_HUMANS`); a model's score
        is its mean EC over the humans.

    Returns
    -------
    ComparisonPlan

    Raises
    ------
    ValueError
        When a kappa cannot be realised with the accuracies, or a number of humans is out of range.

    Examples
    --------
    >>> plan = plan_ec_comparison(0.3, trials=(100, 400), n_sets=60, n_resamples=200, exact=False)
    >>> bool(plan.power["bootstrap"][0, 1] > plan.power["bootstrap"][0, 0])
    True
    """
    sizes = np.asarray(trials, dtype=int)
    humans = tuple(checked_humans(h) for h in humans)
    tests = TESTS if exact and 1 in humans else ("bootstrap",)
    power = {t: np.full((len(humans), sizes.size), np.nan) for t in tests}
    for j, n_humans in enumerate(humans):
        exact_here = exact and n_humans == 1
        for k, n in enumerate(sizes):
            sim = simulate_ec_comparisons(int(n), kappa_b + delta, kappa_b, a_human, a_model, n_sets=n_sets,
                                          n_resamples=n_resamples, exact=exact_here, seed=seed, n_humans=n_humans)
            for t in tests:
                if t == "bootstrap" or exact_here:
                    power[t][j, k] = sim.rejection_rate(alpha, t)
    needed = {t: {h: smallest_reaching(sizes, power[t][j], target) for j, h in enumerate(humans)
                  if not np.isnan(power[t][j]).all()} for t in tests}
    notes = ([f"the exact label-exchange test is of one table (one human): not run for "
              f"{', '.join(str(h) for h in humans if h > 1)} humans"] if exact and any(h > 1 for h in humans) else [])
    return ComparisonPlan("error_consistency", sizes, power, needed, target, alpha, float(delta),
                          dict(kappa_a=kappa_b + delta, kappa_b=kappa_b, a_human=a_human, a_model=a_model,
                               n_sets=n_sets, n_resamples=n_resamples, seed=seed, unit="trials",
                               score="mean EC over the humans", notes=notes),
                          humans)


def plan_dmc_comparison(delta_rho: float, *, rho_b: float = 0.4, n_observers: int = 8,
                        items=(50, 100, 200, 400, 800), accuracy_range=(0.2, 0.95), target: float = 0.8,
                        alpha: float = 0.05, n_sets: int = 300, n_resamples: int = 300,
                        seed: int = 0) -> ComparisonPlan:
    """Items needed to resolve two models' DMC differing by ``delta_rho`` in margin–truth correlation.

    Parameters
    ----------
    delta_rho : float
        Model A's margin–truth correlation is ``rho_b + delta_rho``.
    rho_b : float
        Model B's.
    n_observers : int
        Humans answering every item.
    items : sequence of int
        Numbers of items simulated.
    accuracy_range : (float, float)
        True item accuracies Uniform(lo, hi).
    target, alpha : float
        Power to reach; level of the test.
    n_sets, n_resamples : int
        Data sets per size and bootstrap resamples per data set.
    seed : int
        Seed.

    Returns
    -------
    ComparisonPlan
        ``true_difference`` is the population DMC difference (attenuated by the index's reliability);
        ``humans`` is ``(n_observers,)``.

    Examples
    --------
    >>> plan = plan_dmc_comparison(0.3, items=(50, 400), n_sets=40, n_resamples=200)
    >>> bool(plan.power["bootstrap"][0, 1] > plan.power["bootstrap"][0, 0])
    True
    """
    sizes = np.asarray(items, dtype=int)
    power = {"bootstrap": np.empty((1, sizes.size))}
    true = float("nan")
    for k, n in enumerate(sizes):
        sim = simulate_dmc_comparisons(int(n), n_observers, rho_b + delta_rho, rho_b,
                                       accuracy_range=accuracy_range, n_sets=n_sets, n_resamples=n_resamples,
                                       seed=seed)
        power["bootstrap"][0, k] = sim.rejection_rate(alpha)
        true = sim.true_difference
    needed = {"bootstrap": {int(n_observers): smallest_reaching(sizes, power["bootstrap"][0], target)}}
    return ComparisonPlan("decision_margin_consistency", sizes, power, needed, target, alpha, true,
                          dict(rho_a=rho_b + delta_rho, rho_b=rho_b, n_observers=n_observers,
                               accuracy_range=list(accuracy_range), n_sets=n_sets, n_resamples=n_resamples,
                               seed=seed, unit="items"),
                          (int(n_observers),))
