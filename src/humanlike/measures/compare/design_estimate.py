"""Two models' EC difference from a study whose items were chosen: the comparison on the chosen items and the
pool-level comparison by inverse-probability weights (docs/designs-that-decide.md).

**What is estimated.** Per condition, the EC of a model with the human population is the kappa of the
population table: the human's correctness, averaged over people, against the model's on each item. Its
difference ``EC_A - EC_B`` is averaged over the conditions (equal weights, as model-vs-human averages over
conditions; conditions where neither model's outcome varies carry no information on the difference and are left
out). Two estimands:

* **chosen** (what the design estimates): the tables of the trials as shown, pooled over participants. Items
  chosen because the models disagree make this a comparison on those items, not on the pool.
* **pool** (the question about the candidate pool): each trial weighted by ``1 / pi_i``, the inverse of its
  known inclusion probability (:mod:`humanlike.measures.compare.discriminating`). Since both models' outcomes are
  known on every pool item, the weighted (Hajek) human accuracy is taken within each model-outcome type of each
  condition and combined with the types' known shares of the pool (post-stratification on the known outcomes):
  ``P(h | s, t) = sum w h / sum w`` over the trials of condition ``s`` and type ``t``. Under the random design this
  is the post-stratified plain estimate.

**Interval.** Participants are the independent units (each one's items are drawn independently of the others'),
so the standard error is the participants' jackknife, ``se^2 = (n - 1) / n sum (theta_(j) - theta_(.))^2``, and the
interval ``theta +- z se``. The same ``Z = theta / se`` feeds the sequential test
(:mod:`humanlike.stats.sequential`).

Everything is computed from per-participant sums over (condition, type): ``sum w h``, ``sum w``, ``sum h``, ``n``
(:func:`participant_sums`), so leaving a participant out is a subtraction.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..pairs.metric import kappa

ESTIMANDS = ("pool", "chosen")
#: Model outcomes of the four types (TYPES of :mod:`humanlike.measures.compare.discriminating`): A's and B's.
_A = np.array([0, 0, 1, 1], dtype=float)
_B = np.array([0, 1, 0, 1], dtype=float)


def strata_layout(design) -> tuple[np.ndarray, np.ndarray, list]:
    """Each pool item's stratum code, the pool's type shares per stratum (strata, 4) and the strata's names,
    keeping only strata where at least one model's outcome varies.

    Parameters
    ----------
    design : ItemDesign
        The design (:class:`humanlike.measures.compare.discriminating.ItemDesign`).

    Returns
    -------
    (codes, shares, names)
        ``codes[i]`` is -1 for an item of a stratum left out.

    Examples
    --------
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> pool = pd.DataFrame({"experiment": "e", "condition": ["c", "c", "d", "d"], "item": list("wxyz"),
    ...                      "correct_a": [1, 0, 1, 1], "correct_b": [1, 1, 1, 1]})
    >>> codes, shares, names = strata_layout(ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=1))
    >>> codes.tolist(), shares.tolist(), names   # in d both models are always right: left out
    ([0, 0, -1, -1], [[0.0, 0.5, 0.0, 0.5]], ['e/c'])
    """
    pool = design.pool
    names = list(pd.unique(pool["stratum"]))
    codes = pd.Categorical(pool["stratum"], categories=names).codes.astype(int)
    counts = np.zeros((len(names), 4))
    np.add.at(counts, (codes, pool["type"].to_numpy()), 1.0)
    shares = counts / counts.sum(axis=1, keepdims=True)
    accuracy_a, accuracy_b = shares @ _A, shares @ _B
    varies = ((accuracy_a > 0) & (accuracy_a < 1)) | ((accuracy_b > 0) & (accuracy_b < 1))
    keep = np.flatnonzero(varies)
    if keep.size == 0:
        raise ValueError(f"models {design.models[0]!r} and {design.models[1]!r} are each constant in every condition "
                         "of the pool: no item tells them apart")
    remap = np.full(len(names), -1)
    remap[keep] = np.arange(keep.size)
    return remap[codes], shares[keep], [names[k] for k in keep]


def participant_sums(design, shown, correct) -> np.ndarray:
    """Per participant and (kept) condition and type: ``sum w h``, ``sum w``, ``sum h``, ``n``.

    Parameters
    ----------
    design : ItemDesign
        The design.
    shown : numpy.ndarray
        Boolean (participants, pool items): which items each participant answered.
    correct : numpy.ndarray
        (participants, pool items): 1 where correct (read only where shown).

    Returns
    -------
    numpy.ndarray
        Shape (participants, strata, 4 types, 4 sums).

    Examples
    --------
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=2)
    >>> sums = participant_sums(d, [[True, True, False, False]], [[1, 0, 0, 0]])
    >>> sums[0, 0].tolist()   # types: both wrong, only B, only A, both right; sums: w h, w, h, n (w = 1 / 0.5)
    [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 1.0], [2.0, 2.0, 1.0, 1.0]]
    """
    codes, shares, _ = strata_layout(design)
    kept = codes >= 0
    group = codes[kept] * 4 + design.pool["type"].to_numpy()[kept]
    one_hot = np.zeros((int(kept.sum()), shares.shape[0] * 4))
    one_hot[np.arange(group.size), group] = 1.0
    weight = 1.0 / design.pool["probability"].to_numpy()[kept]
    shown = np.asarray(shown, dtype=float)[:, kept]
    hits = shown * np.asarray(correct, dtype=float)[:, kept]
    sums = np.stack([(hits * weight) @ one_hot, (shown * weight) @ one_hot, hits @ one_hot, shown @ one_hot], -1)
    return sums.reshape(shown.shape[0], shares.shape[0], 4, 4)


def difference_from_sums(sums, shares, estimand: str = "pool") -> np.ndarray:
    """``mean over conditions of (EC_A - EC_B)`` from summed per-participant sums, vectorised.

    Parameters
    ----------
    sums : numpy.ndarray
        Shape (..., strata, 4, 4): sums over participants (:func:`participant_sums`).
    shares : numpy.ndarray
        (strata, 4): the pool's type shares per condition (:func:`strata_layout`).
    estimand : {"pool", "chosen"}
        Weighted and post-stratified on the pool's types, or the trials as shown.

    Returns
    -------
    numpy.ndarray
        Shape (...); NaN where a condition's type present in the pool has no trial (pool) or a table is
        undefined.

    Examples
    --------
    One condition; the human is right on 90% of the items both models get right, 20% of those both get wrong, 80%
    where only A is right and 30% where only B is. By hand, A's population table (both right, only the human,
    only A, both wrong) is (0.425, 0.125, 0.075, 0.375), kappa 0.6; B's is (0.3, 0.25, 0.2, 0.25), kappa 0.1.

    >>> shares = np.array([[0.25, 0.25, 0.25, 0.25]])
    >>> p = np.array([0.2, 0.3, 0.8, 0.9])
    >>> sums = np.stack([p * 10, np.full(4, 10.0), p * 10, np.full(4, 10.0)], -1)[None]
    >>> round(float(difference_from_sums(sums, shares)), 4)
    0.5
    """
    if estimand not in ESTIMANDS:
        raise ValueError(f"unknown estimand {estimand!r}; choose one of {', '.join(ESTIMANDS)}")
    sums = np.asarray(sums, dtype=float)
    if estimand == "pool":
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = sums[..., 0] / sums[..., 1]
        rate = np.where(shares > 0, rate, 0.0)   # a type absent from the pool contributes nothing
        right = shares * rate                     # P(type, human right)
        wrong = shares * (1.0 - rate)
    else:
        right, wrong = sums[..., 2], sums[..., 3] - sums[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        ka = kappa((right * _A).sum(-1), (right * (1 - _A)).sum(-1), (wrong * _A).sum(-1), (wrong * (1 - _A)).sum(-1))
        kb = kappa((right * _B).sum(-1), (right * (1 - _B)).sum(-1), (wrong * _B).sum(-1), (wrong * (1 - _B)).sum(-1))
    return np.mean(ka - kb, axis=-1)


def jackknife(sums_by_participant, shares, estimand: str = "pool") -> tuple[np.ndarray, np.ndarray]:
    """Estimate and participants' jackknife standard error, vectorised over leading axes.

    Parameters
    ----------
    sums_by_participant : numpy.ndarray
        Shape (..., participants, strata, 4, 4).
    shares : numpy.ndarray
        (strata, 4) type shares.
    estimand : {"pool", "chosen"}
        Which estimand.

    Returns
    -------
    (estimate, se) : tuple of numpy.ndarray
        Each of the leading shape.

    Examples
    --------
    >>> shares = np.array([[0.25, 0.25, 0.25, 0.25]])
    >>> rng = np.random.default_rng(0)
    >>> h = rng.random((30, 4)) < [0.2, 0.3, 0.8, 0.9]
    >>> sums = np.stack([h, np.ones((30, 4)), h, np.ones((30, 4))], -1)[:, None].astype(float)
    >>> est, se = jackknife(sums, shares)
    >>> bool(0.1 < se < 0.4), bool(np.isfinite(est))
    (True, True)
    """
    own = np.asarray(sums_by_participant, dtype=float)
    total = own.sum(axis=-4)
    estimate = difference_from_sums(total, shares, estimand)
    left_out = difference_from_sums(total[..., None, :, :, :] - own, shares, estimand)
    return estimate, jackknife_se(left_out)


def jackknife_se(left_out) -> np.ndarray:
    """The jackknife standard error from the leave-one-out estimates along the last axis:
    ``se^2 = (n - 1) / n sum_j (theta_(j) - theta_(.))^2``; NaN when one of them is.

    Parameters
    ----------
    left_out : array_like
        Shape (..., n): the estimate with each unit (participant) left out in turn.

    Returns
    -------
    numpy.ndarray
        Shape (...).

    Examples
    --------
    The jackknife of a mean is the usual standard error of the mean, ``sd / sqrt(n)``:

    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> left_out = (x.sum() - x) / 3
    >>> bool(np.isclose(jackknife_se(left_out), x.std(ddof=1) / 2))
    True
    """
    left_out = np.asarray(left_out, dtype=float)
    n = left_out.shape[-1]
    with np.errstate(invalid="ignore"):
        centred = left_out - left_out.mean(axis=-1, keepdims=True)
        return np.sqrt((n - 1) / n * (centred ** 2).sum(axis=-1))


def expected_sums(design, human_probability) -> np.ndarray:
    """One participant's expected sums (strata, 4, 4) when the population's chance of being right on pool item
    ``i`` is ``human_probability[i]``: the estimands' true values are :func:`difference_from_sums` of these.

    Parameters
    ----------
    design : ItemDesign
        The design.
    human_probability : array_like
        Per pool item, the population's probability of a correct answer.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=2)
    >>> expected_sums(d, [0.9, 0.8, 0.3, 0.2])[0, :, 2].tolist()   # E[sum h] per type: 0.5 x the chance
    [0.1, 0.15, 0.4, 0.45]
    """
    prob = design.pool["probability"].to_numpy()
    p = np.asarray(human_probability, dtype=float)
    codes, shares, _ = strata_layout(design)
    out = np.zeros((shares.shape[0], 4, 4))
    kept = codes >= 0
    index = (codes[kept], design.pool["type"].to_numpy()[kept])
    # E[sum w h] = sum pi (1/pi) p, E[sum w] = count, E[sum h] = sum pi p, E[n] = sum pi
    for k, values in enumerate((p, np.ones_like(p), prob * p, prob)):
        np.add.at(out[..., k], index, values[kept])
    return out


@dataclass(frozen=True)
class DesignEstimate:
    """One estimand's difference of the two models (``EC_A - EC_B`` or ``DMC_A - DMC_B``) with its jackknife
    interval.

    Attributes
    ----------
    estimand : str
        ``"pool"`` (inverse-probability weighted) or ``"chosen"`` (the trials as shown).
    difference, se, ci_low, ci_high : float
        Estimate, standard error, interval.
    z : float
        ``difference / se``.
    n_participants : int
        Participants used.
    conditions : list of str
        The conditions averaged over.
    measure : str
        ``"ec"`` (the difference is ``EC_A - EC_B``) or ``"dmc"`` (``DMC_A - DMC_B``,
        :mod:`humanlike.measures.compare.design_estimate_dmc`).

    Examples
    --------
    >>> e = DesignEstimate("pool", 0.1, 0.04, 0.02, 0.18, 2.5, 30, ["e/c"])
    >>> e.to_dict()["z"]
    2.5
    """

    estimand: str
    difference: float
    se: float
    ci_low: float
    ci_high: float
    z: float
    n_participants: int
    conditions: list
    measure: str = "ec"

    @classmethod
    def from_jackknife(cls, estimand: str, estimate, se, n_participants: int, conditions, level: float = 0.95,
                       measure: str = "ec") -> "DesignEstimate":
        """The normal interval ``estimate +- z se`` and ``Z = estimate / se`` of a jackknife estimate.

        Parameters
        ----------
        estimand : str
            ``"pool"`` or ``"chosen"``.
        estimate, se : float
            The estimate and its jackknife standard error.
        n_participants : int
            Participants used.
        conditions : list of str
            The conditions averaged over.
        level : float
            Interval level.
        measure : str
            ``"ec"`` or ``"dmc"``.

        Returns
        -------
        DesignEstimate

        Examples
        --------
        >>> e = DesignEstimate.from_jackknife("pool", 0.1, 0.05, 30, ["e/c"])
        >>> round(e.ci_low, 4), round(e.z, 2)
        (0.002, 2.0)
        """
        z = float(stats.norm.ppf(0.5 + level / 2))
        estimate, se = float(estimate), float(se)
        return cls(estimand, estimate, se, estimate - z * se, estimate + z * se,
                   estimate / se if se > 0 else float("nan"), int(n_participants), list(conditions), measure)

    def to_dict(self) -> dict:
        """The estimate as a JSON-ready dict.

        Returns
        -------
        dict
        """
        return asdict(self)


def estimate_difference(design, responses: pd.DataFrame, *, estimand: str = "pool",
                        level: float = 0.95) -> DesignEstimate:
    """The EC difference of the design's two models with the participants who answered ``responses``.

    Parameters
    ----------
    design : ItemDesign
        The design the trials were drawn from.
    responses : pandas.DataFrame
        Human trials: ``observer``, ``experiment``, ``condition``, ``item``, ``correct``; each item must be in
        the design's pool.
    estimand : {"pool", "chosen"}
        The pool-level (inverse-probability weighted) or the chosen-items comparison.
    level : float
        Interval level.

    Returns
    -------
    DesignEstimate

    Raises
    ------
    ValueError
        For a response to an item outside the pool, or fewer than two participants.

    Examples
    --------
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=4)
    >>> r = pd.DataFrame({"observer": np.repeat(["p1", "p2", "p3"], 4), "experiment": "e", "condition": "c",
    ...                   "item": list("wxyz") * 3, "correct": [1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0]})
    >>> e = estimate_difference(d, r)
    >>> e.estimand, round(e.difference, 3), e.n_participants   # by hand: kappa 2/3 for A, 0 for B
    ('pool', 0.667, 3)
    """
    people, shown, correct = response_matrices(design, responses)
    _, shares, names = strata_layout(design)
    estimate, se = jackknife(participant_sums(design, shown, correct), shares, estimand)
    return DesignEstimate.from_jackknife(estimand, estimate, se, people.size, names, level)


def response_matrices(design, responses: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Human trials as (participants, pool items) matrices: trials answered and correct answers.

    Parameters
    ----------
    design : ItemDesign
        The design the trials were drawn from.
    responses : pandas.DataFrame
        ``observer``, ``experiment``, ``condition``, ``item``, ``correct``.

    Returns
    -------
    (people, shown, correct)
        The participants' names (sorted), and counts of shape (participants, pool items).

    Raises
    ------
    ValueError
        For a missing column, a response to an item outside the pool, or fewer than two participants.

    Examples
    --------
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=2)
    >>> r = pd.DataFrame({"observer": ["p2", "p2", "p1", "p1"], "experiment": "e", "condition": "c",
    ...                   "item": ["x", "z", "w", "x"], "correct": [1, 0, 1, 1]})
    >>> people, shown, correct = response_matrices(d, r)
    >>> people.tolist(), shown.tolist(), correct.tolist()
    (['p1', 'p2'], [[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]], [[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    """
    keys = ["experiment", "condition", "item"]
    missing = [c for c in ("observer", *keys, "correct") if c not in responses.columns]
    if missing:
        raise ValueError(f"the responses lack column(s) {', '.join(missing)}")
    index = pd.MultiIndex.from_frame(design.pool[keys].astype(str))
    where = index.get_indexer(pd.MultiIndex.from_frame(responses[keys].astype(str)))
    if (where < 0).any():
        row = responses.iloc[int(np.argmax(where < 0))]
        raise ValueError(f"observer {row['observer']!r} answered item {row['item']!r} of condition "
                         f"{row['condition']!r}, which is not in the design's pool")
    people, person = np.unique(responses["observer"].astype(str), return_inverse=True)
    if people.size < 2:
        raise ValueError("a jackknife over participants needs at least two participants")
    shown = np.zeros((people.size, len(design.pool)))
    correct = np.zeros_like(shown)
    np.add.at(shown, (person, where), 1.0)
    np.add.at(correct, (person, where), responses["correct"].astype(float).to_numpy())
    return people, shown, correct
