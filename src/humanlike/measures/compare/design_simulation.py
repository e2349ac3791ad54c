"""Simulated studies of a design: power, level, coverage and early stopping of the EC comparison, and of the DMC
comparison (:func:`simulate_dmc_studies`) (docs/designs-that-decide.md; the benchmarks are
benchmarks/adaptive_design.py, benchmarks/dmc_design.py and benchmarks/dmc_design_real.py).

Simulated participants answer the items the design draws for them. Participant ``j`` is right on pool item ``i``
with probability ``expit(logit_i + zeta_j)``, ``zeta_j ~ N(0, participant_sd)`` (people differ in skill); the
population's chance of being right on item ``i`` (what the estimands are defined by) is its average over
``zeta``, computed by Gauss-Hermite quadrature. Each simulated study ``k`` draws everything from
``stream(seed, "design-simulation", k)``, its participants in order, so a study of ``n`` participants is the first
``n`` of the study of ``n_max``: the fixed-sample power at every size and the sequential test that looks after
every batch come from the same studies.

:func:`plan_design_comparison` is what ``humanlike plan compare --design`` runs: for EC a pool built from the copy
model's joint cells (:func:`humanlike.measures.compare.planning_ec.joint_cell_probabilities`), so that the pool's
EC difference is the planted one; for DMC (:func:`accuracy_margin_pool`) the margin model of
:mod:`humanlike.measures.compare.planning_dmc` on the pool, so that each model's margin-truth correlation is the
planted one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from .design_estimate import difference_from_sums, expected_sums, jackknife, participant_sums, strata_layout
from .design_estimate_dmc import DmcLayout, dmc_jackknife, dmc_truth
from .discriminating import ItemDesign, margin_scores, systematic_sample
from ...resampling.rng import stream
from ...stats.sequential import group_sequential_bounds

#: Gauss-Hermite nodes for the population's probability (average over the participants' skill).
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(40)


def population_probability(logit, participant_sd: float) -> np.ndarray:
    """``E[expit(logit + zeta)]`` for ``zeta ~ N(0, participant_sd)``: the population's chance of being right.

    Parameters
    ----------
    logit : array_like
        Per item.
    participant_sd : float
        Spread of the participants' skill on the logit scale.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> population_probability([0.0, 2.0], 0.0).round(4).tolist()
    [0.5, 0.8808]
    >>> population_probability([0.0], 1.0).round(4).tolist()   # symmetric: still 0.5
    [0.5]
    """
    logit = np.asarray(logit, dtype=float)
    return special.expit(logit[..., None] + participant_sd * _NODES) @ _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class DesignStudies:
    """Estimates of simulated studies at each look (participants so far).

    Attributes
    ----------
    looks : numpy.ndarray
        Participants at each look.
    estimate, se : dict
        ``{estimand: array (studies, looks)}`` for ``"pool"`` and ``"chosen"``.
    truth : dict
        ``{estimand: float}``: the estimands' true values.
    design : str
        The design simulated.

    Examples
    --------
    Two studies, two looks: z = (1, 2.5) and (0, 0); 0.05 is inside 0.1 +- 1.96 x 0.04 but not 0 +- 1.96 x 0.02.

    >>> sims = DesignStudies(np.array([10, 20]), {"pool": np.array([[0.1, 0.1], [0.0, 0.0]])},
    ...                      {"pool": np.array([[0.1, 0.04], [0.1, 0.02]])}, {"pool": 0.05}, "random")
    >>> sims.power().tolist(), sims.coverage().tolist()
    ([0.0, 0.5], [1.0, 0.5])
    """

    looks: np.ndarray
    estimate: dict
    se: dict
    truth: dict
    design: str

    def z(self, estimand: str = "pool") -> np.ndarray:
        """``estimate / se`` per study and look (NaN where undefined).

        Parameters
        ----------
        estimand : {"pool", "chosen"}
            Which estimate.

        Returns
        -------
        numpy.ndarray
        """
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.estimate[estimand] / self.se[estimand]

    def power(self, alpha: float = 0.05, estimand: str = "pool") -> np.ndarray:
        """Fixed-sample rejection rate at each look's number of participants (two-sided, normal, jackknife SE).

        Parameters
        ----------
        alpha : float
            Level.
        estimand : {"pool", "chosen"}
            Which estimate is tested.

        Returns
        -------
        numpy.ndarray
            One rate per look.
        """
        return np.mean(np.nan_to_num(np.abs(self.z(estimand)), nan=0.0) >= stats.norm.isf(alpha / 2), axis=0)

    def coverage(self, level: float = 0.95, estimand: str = "pool") -> np.ndarray:
        """Share of studies whose interval ``estimate +- z se`` holds the estimand's truth, per look (an
        undefined interval misses).

        Parameters
        ----------
        level : float
            Interval level.
        estimand : {"pool", "chosen"}
            Which estimate.

        Returns
        -------
        numpy.ndarray
            One share per look.
        """
        half = stats.norm.ppf(0.5 + level / 2) * self.se[estimand]
        est, truth = self.estimate[estimand], self.truth[estimand]
        return np.mean((est - half <= truth) & (truth <= est + half), axis=0)

    def sequential(self, alpha: float = 0.05, spending: str = "obrien-fleming", estimand: str = "pool",
                   last: int | None = None) -> dict:
        """The group-sequential test with a look after every simulated look up to ``last`` participants.

        Parameters
        ----------
        alpha : float
            Overall level.
        spending : {"obrien-fleming", "pocock", "none"}
            The spending function; ``"none"``: the fixed bound at every look (the naive peeking that inflates the
            level).
        estimand : {"pool", "chosen"}
            Which estimate is tested.
        last : int, optional
            The planned maximum of participants (a look of the simulation; default the last look).

        Returns
        -------
        dict
            ``rejection`` (share of studies that stop with "resolved"), ``mean_participants`` (participants at
            stopping, averaged), ``bounds``.
        """
        k = self.looks.size if last is None else int(np.flatnonzero(self.looks == last)[0]) + 1
        looks = self.looks[:k]
        if spending == "none":
            bounds = np.full(k, stats.norm.isf(alpha / 2))
        else:
            bounds = group_sequential_bounds(looks / looks[-1], alpha, spending)
        hit = np.nan_to_num(np.abs(self.z(estimand)[:, :k]), nan=0.0) >= bounds
        rejected = hit.any(axis=1)
        stop = np.where(rejected, np.argmax(hit, axis=1), k - 1)
        return {"rejection": float(rejected.mean()), "mean_participants": float(looks[stop].mean()),
                "bounds": bounds.tolist()}


def simulate_design_studies(design: ItemDesign, item_logit, *, participant_sd: float = 0.0,
                            looks=(10, 20, 40, 80), n_studies: int = 200, seed: int = 0) -> DesignStudies:
    """Simulate ``n_studies`` studies of the design, each estimated after every look.

    Parameters
    ----------
    design : ItemDesign
        The design (the pool, models' outcomes, inclusion probabilities).
    item_logit : array_like
        Per pool item, the logit of a typical participant's chance of being right.
    participant_sd : float
        Spread of the participants' skill on the logit scale.
    looks : sequence of int
        Participants at which each study is estimated (increasing, at least 2).
    n_studies : int
        Simulated studies.
    seed : int
        Seed.

    Returns
    -------
    DesignStudies

    Examples
    --------
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": [f"i{k}" for k in range(40)],
    ...                      "correct_a": np.arange(40) % 2, "correct_b": np.arange(40) // 20})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=10)
    >>> logit = np.where(pool["correct_a"] == 1, 1.5, -0.5)   # the humans err where A errs
    >>> sims = simulate_design_studies(d, logit, looks=(10, 40), n_studies=40)
    >>> bool(sims.truth["pool"] > 0.2), sims.power().tolist()[1] > 0.5
    (True, True)
    """
    looks = np.asarray(looks, dtype=int)
    if looks.size == 0 or looks[0] < 2 or np.any(np.diff(looks) <= 0):
        raise ValueError(f"looks must increase from at least 2 participants, got {looks.tolist()}")
    logit = np.asarray(item_logit, dtype=float)
    if logit.shape != (len(design.pool),):
        raise ValueError(f"item_logit needs one value per pool item ({len(design.pool)}), got {logit.shape}")
    _, shares, _ = strata_layout(design)
    truth_sums = expected_sums(design, population_probability(logit, participant_sd))
    truth = {e: float(difference_from_sums(truth_sums, shares, e)) for e in ("pool", "chosen")}
    n_max = int(looks[-1])
    prob, strata = design.pool["probability"].to_numpy(), design.pool["stratum"].to_numpy()
    estimate = {e: np.empty((n_studies, looks.size)) for e in truth}
    se = {e: np.empty((n_studies, looks.size)) for e in truth}
    for k in range(n_studies):
        rng = stream(seed, "design-simulation", k)
        shown = systematic_sample(prob, strata, rng, n_max)
        skill = rng.normal(0.0, participant_sd, n_max) if participant_sd > 0 else np.zeros(n_max)
        correct = rng.random(shown.shape) < special.expit(logit[None, :] + skill[:, None])
        sums = participant_sums(design, shown, correct)
        for j, n in enumerate(looks):
            for e in truth:
                estimate[e][k, j], se[e][k, j] = jackknife(sums[:n], shares, e)
    return DesignStudies(looks, estimate, se, truth, design.design)


def simulate_dmc_studies(design: ItemDesign, item_logit, *, participant_sd: float = 0.0,
                         looks=(10, 20, 40, 80), n_studies: int = 200, seed: int = 0) -> DesignStudies:
    """Simulate ``n_studies`` studies of a DMC design, each estimated after every look: the DMC difference
    (:mod:`humanlike.measures.compare.design_estimate_dmc`), pool-level and on the chosen items.

    Parameters
    ----------
    design : ItemDesign
        The design, with both models' margins in its pool.
    item_logit : array_like
        Per pool item, the logit of a typical participant's chance of being right.
    participant_sd : float
        Spread of the participants' skill on the logit scale.
    looks : sequence of int
        Participants at which each study is estimated (increasing, at least 2).
    n_studies : int
        Simulated studies.
    seed : int
        Seed (stream ``"dmc-design-simulation"``, study ``k``).

    Returns
    -------
    DesignStudies
        ``truth`` is :func:`~humanlike.measures.compare.design_estimate_dmc.dmc_truth` of the population's
        chances of being right.

    Examples
    --------
    >>> design, logit = margin_pool(n_items=60, conditions=("c",), per_condition=10)
    >>> sims = simulate_dmc_studies(design, logit, looks=(20, 80), n_studies=20)
    >>> bool(sims.truth["pool"] != sims.truth["chosen"]), sims.power().tolist()[1] > 0.5
    (True, True)
    """
    looks = np.asarray(looks, dtype=int)
    if looks.size == 0 or looks[0] < 2 or np.any(np.diff(looks) <= 0):
        raise ValueError(f"looks must increase from at least 2 participants, got {looks.tolist()}")
    logit = np.asarray(item_logit, dtype=float)
    if logit.shape != (len(design.pool),):
        raise ValueError(f"item_logit needs one value per pool item ({len(design.pool)}), got {logit.shape}")
    layout = DmcLayout.from_design(design)
    human = population_probability(logit, participant_sd)
    truth = {e: dmc_truth(layout, human, e) for e in ("pool", "chosen")}
    n_max = int(looks[-1])
    prob, strata = design.pool["probability"].to_numpy(), design.pool["stratum"].to_numpy()
    estimate = {e: np.empty((n_studies, looks.size)) for e in truth}
    se = {e: np.empty((n_studies, looks.size)) for e in truth}
    for k in range(n_studies):
        rng = stream(seed, "dmc-design-simulation", k)
        shown = systematic_sample(prob, strata, rng, n_max)
        skill = rng.normal(0.0, participant_sd, n_max) if participant_sd > 0 else np.zeros(n_max)
        correct = rng.random(shown.shape) < special.expit(logit[None, :] + skill[:, None])
        for j, n in enumerate(looks):
            for e in truth:
                estimate[e][k, j], se[e][k, j] = dmc_jackknife(shown[:n], correct[:n], layout, e)
    return DesignStudies(looks, estimate, se, truth, design.design)


def margin_pool(n_items: int = 120, conditions=("c1", "c2"), *, design: str = "discriminating",
                per_condition: int = 10, floor: float = 0.2, weight_a: float = 0.9, weight_b: float = 0.2,
                item_sd: float = 0.5, seed: int = 0) -> tuple[ItemDesign, np.ndarray]:
    """A planted DMC pool: per condition ``n_items`` items with model A's margin ``m_A ~ N(0, 1)``, model B's
    ``m_B = 0.5 m_A + N(0, 0.9)`` (correlated, as two networks' margins are), each model right where its margin is
    above 0, and a typical person's logit ``0.4 + weight_a m_A + weight_b m_B + N(0, item_sd)``: people follow A's
    margins more than B's, so ``DMC_A - DMC_B > 0`` on the pool. The design scores the margins' disagreement
    (:func:`~humanlike.measures.compare.discriminating.margin_scores`).

    Parameters
    ----------
    n_items : int
        Items per condition.
    conditions : sequence of str
        Condition names (experiment ``"planted"``).
    design : {"random", "discriminating"}
        The design.
    per_condition : int
        Items per participant and condition.
    floor : float
        The design's floor.
    weight_a, weight_b : float
        How much people's logits follow each model's margin.
    item_sd : float
        The items' idiosyncrasy on the logit scale.
    seed : int
        Seed (stream ``"margin-pool"``).

    Returns
    -------
    (design, logit)
        The design (margins in its pool) and each pool item's logit.

    Examples
    --------
    >>> design, logit = margin_pool(n_items=30, conditions=("c",), per_condition=5)
    >>> len(design.pool), sorted(design.pool.columns)[:3], logit.shape
    (30, ['condition', 'correct_a', 'correct_b'], (30,))
    """
    rng = stream(seed, "margin-pool")
    frames, logits = [], []
    for condition in conditions:
        a = rng.normal(size=n_items)
        b = 0.5 * a + rng.normal(scale=0.9, size=n_items)
        logits.append(0.4 + weight_a * a + weight_b * b + rng.normal(scale=item_sd, size=n_items))
        frames.append(pd.DataFrame({"experiment": "planted", "condition": condition,
                                    "item": [f"{condition}-{k:04d}" for k in range(n_items)],
                                    "correct_a": a > 0, "correct_b": b > 0, "margin_a": a, "margin_b": b}))
    pool = pd.concat(frames, ignore_index=True)
    scores = margin_scores(pool["margin_a"], pool["margin_b"], pool["experiment"] + "/" + pool["condition"])
    design = ItemDesign.from_outcomes(pool, ("A", "B"), design, per_condition=per_condition, floor=floor,
                                      scores=scores)
    return design, np.concatenate(logits)


def copy_model_pool(delta: float, *, kappa_b: float = 0.2, a_human: float = 0.8, a_model: float = 0.8,
                    pool_size: int = 800) -> tuple[pd.DataFrame, np.ndarray]:
    """A candidate pool of one condition whose population tables are the copy model's: model outcome types in the
    shares ``P(a, b)`` of :func:`~humanlike.measures.compare.planning_ec.joint_cell_probabilities` (largest
    remainders), the human's chance of being right on a type-``(a, b)`` item ``P(h | a, b)``.

    Parameters
    ----------
    delta : float
        Planted ``EC_A - EC_B`` (model A's EC is ``kappa_b + delta``).
    kappa_b : float
        Model B's EC.
    a_human, a_model : float
        Accuracies.
    pool_size : int
        Candidate items.

    Returns
    -------
    (pool, logit)
        The pool (experiment, condition, item, correct_a, correct_b) and each item's human logit.

    Examples
    --------
    >>> pool, logit = copy_model_pool(0.2, pool_size=100)
    >>> len(pool), bool((pool["correct_a"] != pool["correct_b"]).mean() > 0.1)
    (100, True)
    """
    from .planning_ec import joint_cell_probabilities

    p = joint_cell_probabilities(kappa_b + delta, kappa_b, a_human, a_model, a_model)   # [h, a, b]
    type_share = p.sum(axis=0).ravel()   # types 2a + b
    right = p[1].ravel() / np.where(type_share > 0, type_share, 1.0)
    exact = type_share * pool_size
    counts = np.floor(exact).astype(int)
    counts[np.argsort(counts - exact)[: pool_size - counts.sum()]] += 1
    types = np.repeat(np.arange(4), counts)
    pool = pd.DataFrame({"experiment": "planned", "condition": "all",
                         "item": [f"item{k:05d}" for k in range(pool_size)],
                         "correct_a": types >= 2, "correct_b": types % 2 == 1})
    with np.errstate(divide="ignore"):
        logit = special.logit(np.clip(right[types], 1e-9, 1 - 1e-9))
    return pool, logit


def accuracy_margin_pool(rho_a: float, rho_b: float, *, design: str = "discriminating", per_condition: int = 40,
                         floor: float = 0.2, pool_size: int = 800, accuracy_range=(0.2, 0.95),
                         seed: int = 0) -> tuple[ItemDesign, np.ndarray]:
    """A DMC pool of one condition under the margin model of ``plan compare --measure dmc``: the population's
    chance of being right ``p_i ~ Uniform(lo, hi)``, model ``X``'s margin ``rho_X z_i + sqrt(1 - rho_X^2) e_Xi``
    with ``z`` the standardised ``p`` and its own standard-normal noise, made uncorrelated with ``z`` on the pool, so
    that its correlation with the population's accuracy on the pool is ``rho_X`` exactly and the pool's DMC
    difference is ``rho_A - rho_B``; each model right where its margin is above 0.
    The discriminating design scores the margins' disagreement (:func:`~.discriminating.margin_scores`).

    Parameters
    ----------
    rho_a, rho_b : float
        The models' margin-truth correlations, in [-1, 1].
    design : {"random", "discriminating"}
        The design.
    per_condition : int
        Items per participant.
    floor : float
        The design's floor.
    pool_size : int
        Candidate items.
    accuracy_range : (float, float)
        The items' accuracies, Uniform(lo, hi).
    seed : int
        Seed (stream ``"accuracy-margin-pool"``).

    Returns
    -------
    (design, logit)
        The design (margins in its pool) and each item's logit (``logit p_i``: every participant alike).

    Examples
    --------
    >>> design, logit = accuracy_margin_pool(0.6, 0.2, pool_size=400)
    >>> layout = DmcLayout.from_design(design)
    >>> round(dmc_truth(layout, special.expit(logit)), 6)   # 0.6 - 0.2
    0.4
    """
    for name, rho in (("rho_a", rho_a), ("rho_b", rho_b)):
        if not -1 <= rho <= 1:
            raise ValueError(f"{name} {rho:g} must lie in [-1, 1]")
    low, high = accuracy_range
    if not 0 < low < high < 1:
        raise ValueError(f"accuracy_range must satisfy 0 < lo < hi < 1, got {accuracy_range}")
    rng = stream(seed, "accuracy-margin-pool")
    p = rng.uniform(low, high, pool_size)
    z = (p - p.mean()) / p.std()

    def noise():   # standard normal, made exactly uncorrelated with z on the pool (the correlation is rho exactly)
        e = rng.standard_normal(pool_size)
        e = e - e.mean() - (e @ z) / pool_size * z
        return e / e.std()

    margins = {name: rho * z + np.sqrt(1.0 - rho * rho) * noise() for name, rho in (("a", rho_a), ("b", rho_b))}
    pool = pd.DataFrame({"experiment": "planned", "condition": "all",
                         "item": [f"item{k:05d}" for k in range(pool_size)],
                         "correct_a": margins["a"] > 0, "correct_b": margins["b"] > 0,
                         "margin_a": margins["a"], "margin_b": margins["b"]})
    scores = margin_scores(pool["margin_a"], pool["margin_b"], pool["condition"])
    items = ItemDesign.from_outcomes(pool, ("A", "B"), design, per_condition=per_condition, floor=floor,
                                     scores=scores)
    return items, special.logit(p)


def plan_dmc_design_comparison(delta: float, design: str, *, rho_b: float = 0.4, participants=(10, 20, 40, 80, 160),
                               per_participant: int = 40, floor: float = 0.2, pool_size: int = 800,
                               accuracy_range=(0.2, 0.95), target: float = 0.8, alpha: float = 0.05,
                               n_sets: int = 200, seed: int = 0):
    """Participants needed to resolve two models' DMC on a pool whose margin-truth correlations differ by
    ``delta``, under the random or the discriminating design, by simulation (:func:`accuracy_margin_pool`; the
    pool-level estimate of :mod:`~humanlike.measures.compare.design_estimate_dmc`, participants' jackknife,
    two-sided normal test).

    Parameters
    ----------
    delta : float
        Model A's margin-truth correlation is ``rho_b + delta``.
    design : {"random", "discriminating"}
        The design.
    rho_b : float
        Model B's margin-truth correlation.
    participants : sequence of int
        Numbers of participants simulated.
    per_participant : int
        Trials per participant.
    floor : float
        The discriminating design's floor.
    pool_size : int
        Candidate items.
    accuracy_range : (float, float)
        The items' accuracies, Uniform(lo, hi).
    target, alpha : float
        Power to reach; level.
    n_sets : int
        Simulated studies.
    seed : int
        Seed.

    Returns
    -------
    ComparisonPlan
        ``true_difference`` is the pool's DMC difference (the noise-free correlations on the pool's items:
        ``delta``); ``sizes`` are participants.

    Examples
    --------
    >>> plan = plan_dmc_design_comparison(0.4, "random", participants=(5, 60), pool_size=200, n_sets=30)
    >>> bool(plan.power["pool"][0, 1] > plan.power["pool"][0, 0]), plan.measure
    (True, 'decision_margin_consistency')
    """
    from .planning import ComparisonPlan, smallest_reaching

    items, logit = accuracy_margin_pool(rho_b + delta, rho_b, design=design, per_condition=per_participant,
                                        floor=floor, pool_size=pool_size, accuracy_range=accuracy_range, seed=seed)
    sizes = np.asarray(sorted(set(int(n) for n in participants)), dtype=int)
    sims = simulate_dmc_studies(items, logit, looks=sizes, n_studies=n_sets, seed=seed)
    power = {"pool": sims.power(alpha)[None, :]}
    needed = {"pool": {1: smallest_reaching(sizes, power["pool"][0], target)}}
    undefined = float(np.isnan(sims.estimate["pool"][:, 0]).mean())
    # how far apart the two models' standardised margins are on a shown trial, against a pool item (in [0, 1])
    gap = margin_scores(items.pool["margin_a"], items.pool["margin_b"], items.pool["stratum"])
    gap_shown = float((items.pool["probability"] * gap).sum() / per_participant)
    kind = f"discriminating (floor {floor:g})" if design == "discriminating" else "random"
    notes = [f"design {kind}: {per_participant} trials per participant from a pool of {pool_size} items whose "
             f"accuracies are Uniform{tuple(accuracy_range)}; margin-truth correlations {rho_b + delta:g} (A) and "
             f"{rho_b:g} (B); the test is of the pool-level (inverse-probability weighted) DMC difference, "
             "participants' jackknife, normal; an undefined estimate (too few pairs of answers) counts as not "
             f"resolved ({undefined:.0%} at {sizes[0]} participants)"]
    return ComparisonPlan("decision_margin_consistency", sizes, power, needed, target, alpha, sims.truth["pool"],
                          dict(notes=notes, design=design, per_participant=per_participant,
                               floor=floor if design == "discriminating" else None, pool_size=pool_size,
                               rho_a=rho_b + delta, rho_b=rho_b, accuracy_range=list(accuracy_range),
                               n_sets=n_sets, seed=seed, unit="participants", margin_gap_pool=float(gap.mean()),
                               margin_gap_shown=gap_shown, test="pool-level, participants' jackknife, normal"),
                          (1,))


def plan_design_comparison(delta: float, design: str, *, kappa_b: float = 0.2, a_human: float = 0.8,
                           a_model: float = 0.8, participants=(10, 20, 40, 80, 160), per_participant: int = 40,
                           floor: float = 0.2, pool_size: int = 800, target: float = 0.8, alpha: float = 0.05,
                           n_sets: int = 200, seed: int = 0):
    """Participants needed to resolve ``EC_A - EC_B = delta`` on a pool, under the random or the discriminating
    design, by simulation (the pool-level estimate, participants' jackknife, two-sided normal test).

    Parameters
    ----------
    delta : float
        Planted difference.
    design : {"random", "discriminating"}
        The design.
    kappa_b, a_human, a_model : float
        Copy model: model B's EC, accuracies.
    participants : sequence of int
        Numbers of participants simulated.
    per_participant : int
        Trials per participant.
    floor : float
        The discriminating design's floor.
    pool_size : int
        Candidate items.
    target, alpha : float
        Power to reach; level.
    n_sets : int
        Simulated studies.
    seed : int
        Seed.

    Returns
    -------
    ComparisonPlan
        ``sizes`` are participants (``design["unit"] == "participants"``).

    Examples
    --------
    >>> plan = plan_design_comparison(0.3, "discriminating", participants=(5, 40), n_sets=30)
    >>> bool(plan.power["pool"][0, 1] > plan.power["pool"][0, 0])
    True
    """
    from .planning import ComparisonPlan, smallest_reaching

    pool, logit = copy_model_pool(delta, kappa_b=kappa_b, a_human=a_human, a_model=a_model, pool_size=pool_size)
    items = ItemDesign.from_outcomes(pool, ("A", "B"), design, per_condition=per_participant, floor=floor)
    sizes = np.asarray(sorted(set(int(n) for n in participants)), dtype=int)
    sims = simulate_design_studies(items, logit, looks=sizes, n_studies=n_sets, seed=seed)
    power = {"pool": sims.power(alpha)[None, :]}
    needed = {"pool": {1: smallest_reaching(sizes, power["pool"][0], target)}}
    share = float(np.mean(pool["correct_a"] != pool["correct_b"]))
    shown = float((items.pool["probability"] * (pool["correct_a"] != pool["correct_b"])).sum() / per_participant)
    kind = f"discriminating (floor {floor:g})" if design == "discriminating" else "random"
    notes = [f"design {kind}: {per_participant} trials per participant from a pool of {pool_size} items, "
             f"{share:.0%} of them where the models' outcomes differ and {shown:.0%} of the trials shown; the test "
             "is of the pool-level (inverse-probability weighted) difference, participants' jackknife, normal"]
    return ComparisonPlan("error_consistency", sizes, power, needed, target, alpha, sims.truth["pool"],
                          dict(notes=notes, design=design, per_participant=per_participant,
                               floor=floor if design == "discriminating" else None, pool_size=pool_size,
                               kappa_a=kappa_b + delta, kappa_b=kappa_b, a_human=a_human, a_model=a_model,
                               n_sets=n_sets, seed=seed, unit="participants", disagreement_share=share,
                               disagreement_shown=shown, test="pool-level, participants' jackknife, normal"),
                          (1,))
