"""Designs that decide: choose the trials on which two models' predicted errors differ, with known probabilities
(docs/designs-that-decide.md).

The models' outputs on every candidate item are known before anyone is recruited. An item tells model A from
model B only where their outcomes differ: for EC where one model errs and the other does not (on an item both get
right, or both wrong, a human's answer adds the same to both models' agreement), for DMC where their decision
margins disagree. The **discriminating** design shows each participant ``per_condition`` items of every condition
(so each session still mixes all conditions, as a Latin square does), drawn with inclusion probabilities

``pi_i = per_condition * (score_i + floor) / sum_{j in condition} (score_j + floor)``, capped at 1,

where the score is ``|correct_A - correct_B|`` (EC) or ``|z_A - z_B| / max`` of the two models' margins
standardised within the condition (DMC, in [0, 1]). The ``floor`` keeps every item's probability above 0, so the
pool-level comparison is identified by inverse-probability weights (:mod:`humanlike.measures.compare.design_estimate`).
The **random** design is the same with every score 0 (each item of a condition equally likely). Within a condition a
participant's items are a systematic PPS sample in a random order (:func:`systematic_sample`): distinct items, each
included with exactly its ``pi_i``. Participant ``slot``'s sample is drawn from
``stream(seed, "discriminating-design", slot)``, so it depends on the seed and the slot only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...resampling.rng import stream

DESIGNS = ("random", "discriminating")
#: What a discriminating design scores: the models' outcomes (EC, the default) or their decision margins (DMC).
SCORED_MEASURES = ("ec", "dmc")
#: Model outcome types of an item, ``2 * correct_A + correct_B``: both wrong, only B right, only A right, both right.
TYPES = ("both wrong", "only B correct", "only A correct", "both correct")


def inclusion_probabilities(scores, strata, per_condition: int, floor: float = 0.2) -> np.ndarray:
    """Each item's probability of being in one participant's sample: ``per_condition`` items per stratum, drawn
    proportionally to ``score + floor`` and capped at 1 (the capped items' excess goes to the others).

    Parameters
    ----------
    scores : array_like
        Discrimination scores in [0, 1] (0 everywhere: the random design).
    strata : array_like
        Each item's condition (items are drawn per condition).
    per_condition : int
        Items per participant and condition.
    floor : float
        Added to every score, > 0: every item keeps a probability above 0.

    Returns
    -------
    numpy.ndarray
        Probabilities in (0, 1], summing to ``per_condition`` within every condition.

    Raises
    ------
    ValueError
        When a condition has fewer than ``per_condition`` items, the floor is not positive, or a score is outside
        [0, 1].

    Examples
    --------
    Four items of one condition, two of them discriminating, two items per participant:

    >>> inclusion_probabilities([1, 1, 0, 0], ["c"] * 4, 2, floor=0.25).tolist()
    [0.8333333333333334, 0.8333333333333334, 0.16666666666666666, 0.16666666666666666]
    """
    scores = np.asarray(scores, dtype=float)
    strata = np.asarray(strata)
    if not floor > 0:
        raise ValueError(f"the floor must be above 0 (every item needs a probability above 0), got {floor}")
    if np.any(~np.isfinite(scores)) or np.any(scores < 0) or np.any(scores > 1):
        raise ValueError("discrimination scores must lie in [0, 1]")
    out = np.empty(scores.size)
    for stratum in pd.unique(strata):
        members = np.flatnonzero(strata == stratum)
        if members.size < per_condition:
            raise ValueError(f"condition {stratum!r} has {members.size} item(s), fewer than the {per_condition} "
                             "trial(s) per condition each participant is to see")
        out[members] = _capped(scores[members] + floor, per_condition)
    return out


def _capped(size: np.ndarray, total: int) -> np.ndarray:
    """Probabilities proportional to ``size`` summing to ``total``, those above 1 set to 1 and the rest rescaled."""
    prob = np.zeros(size.size)
    free = np.ones(size.size, dtype=bool)
    while True:
        remaining = total - (~free).sum()
        prob[free] = remaining * size[free] / size[free].sum()
        over = free & (prob >= 1)
        if not over.any():
            return prob
        prob[over] = 1.0
        free &= ~over


def systematic_sample(probability, strata, rng: np.random.Generator, n_samples: int = 1) -> np.ndarray:
    """Systematic PPS samples within each stratum: items in a random order, points ``u, u + 1, ...`` on the
    cumulated probabilities; item ``i`` is in a sample with probability exactly ``probability[i]``.

    Parameters
    ----------
    probability : array_like
        Inclusion probabilities in (0, 1], summing to a whole number within each stratum.
    strata : array_like
        Each item's stratum (its condition).
    rng : numpy.random.Generator
        The random stream.
    n_samples : int
        Independent samples (participants) to draw.

    Returns
    -------
    numpy.ndarray
        Boolean, shape (n_samples, items): which items each sample holds.

    Examples
    --------
    >>> mask = systematic_sample([0.5, 0.5, 1.0, 0.5, 0.5], ["a", "a", "a", "b", "b"], np.random.default_rng(0), 2000)
    >>> mask.sum(axis=1).min(), mask.sum(axis=1).max(), mask.mean(axis=0).round(1).tolist()
    (np.int64(3), np.int64(3), [0.5, 0.5, 1.0, 0.5, 0.5])
    """
    probability = np.asarray(probability, dtype=float)
    codes = pd.factorize(np.asarray(strata))[0]
    # random order within the strata: sort by stratum code + a uniform key
    order = np.argsort(codes[None, :] + rng.random((n_samples, probability.size)), axis=1, kind="stable")
    cum = np.cumsum(probability[order], axis=1)
    sorted_codes = codes[order[0]]   # every row lists the strata in the same blocks
    block_start = np.searchsorted(sorted_codes, np.arange(codes.max() + 1))
    start_cum = np.where(block_start > 0, cum[:, np.maximum(block_start - 1, 0)], 0.0)   # (samples, strata)
    within = cum - start_cum[:, sorted_codes]
    u = rng.random((n_samples, codes.max() + 1))[:, sorted_codes]
    previous = within - probability[order]
    # points u + j in (previous, within]: floor(within - u) - floor(previous - u); eps against rounding at integers
    hit = (np.floor(within - u + 1e-12) - np.floor(previous - u + 1e-12)) > 0
    mask = np.zeros_like(hit)
    np.put_along_axis(mask, order, hit, axis=1)
    return mask


@dataclass(frozen=True)
class ItemDesign:
    """The candidate pool with each item's model outcomes and its probability of being shown.

    Attributes
    ----------
    pool : pandas.DataFrame
        One row per candidate item: ``experiment``, ``condition``, ``item``, ``stratum`` (experiment/condition),
        ``correct_a``, ``correct_b``, ``type`` (:data:`TYPES` index), ``score``, ``probability``; for a DMC
        design (``design_from_trials(..., measure="dmc")``) also the models' margins ``margin_a``, ``margin_b``.
    models : tuple of str
        Models A and B.
    design : str
        ``"random"`` or ``"discriminating"``.
    per_condition : int
        Items per participant and condition.
    floor : float
        The floor added to the scores.

    Examples
    --------
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=2, floor=0.25)
    >>> d.pool["probability"].round(3).tolist(), d.trials_per_participant
    ([0.167, 0.833, 0.833, 0.167], 2)
    """

    pool: pd.DataFrame
    models: tuple
    design: str
    per_condition: int
    floor: float

    @classmethod
    def from_outcomes(cls, pool: pd.DataFrame, models, design: str, *, per_condition: int, floor: float = 0.2,
                      scores=None) -> "ItemDesign":
        """The design of a pool given as (experiment, condition, item, correct_a, correct_b) rows.

        Parameters
        ----------
        pool : pandas.DataFrame
            The candidate items and both models' outcomes.
        models : (str, str)
            Names of models A and B.
        design : {"random", "discriminating"}
            The design.
        per_condition : int
            Items per participant and condition.
        floor : float
            Added to every score.
        scores : array_like, optional
            Discrimination scores (default: ``|correct_a - correct_b|``, the EC score).

        Returns
        -------
        ItemDesign
        """
        if design not in DESIGNS:
            raise ValueError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")
        pool = pool.reset_index(drop=True).copy()
        pool["correct_a"] = pool["correct_a"].astype(bool)
        pool["correct_b"] = pool["correct_b"].astype(bool)
        pool["stratum"] = pool["experiment"].astype(str) + "/" + pool["condition"].astype(str)
        pool["type"] = 2 * pool["correct_a"].astype(int) + pool["correct_b"].astype(int)
        if scores is None:
            scores = (pool["correct_a"] != pool["correct_b"]).astype(float)
        pool["score"] = np.asarray(scores, dtype=float) if design == "discriminating" else 0.0
        pool["probability"] = inclusion_probabilities(pool["score"], pool["stratum"], per_condition, floor)
        return cls(pool, tuple(models), design, int(per_condition), float(floor))

    @classmethod
    def read(cls, path, models=("A", "B")) -> "ItemDesign":
        """The design a study was served with, from its design file (``serve init --design discriminate`` writes
        ``STUDY/discriminate.csv``): the probabilities as written, not recomputed.

        Parameters
        ----------
        path : path-like
            The CSV: ``experiment``, ``condition``, ``item``, ``correct_a``, ``correct_b``, ``probability`` (and
            ``score``, ``margin_a``, ``margin_b`` where written).
        models : (str, str)
            Names for models A and B.

        Returns
        -------
        ItemDesign
            ``floor`` is NaN (not recorded in the file).

        Raises
        ------
        ValueError
            For a missing column, or conditions whose probabilities do not sum to one whole number.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "discriminate.csv"
        >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
        ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
        >>> ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=2).pool.to_csv(path)
        >>> ItemDesign.read(path).pool["probability"].round(3).tolist()
        [0.143, 0.857, 0.857, 0.143]
        """
        keys = ["experiment", "condition", "item"]
        pool = pd.read_csv(path, dtype={k: str for k in keys})
        missing = [c for c in (*keys, "correct_a", "correct_b", "probability") if c not in pool.columns]
        if missing:
            raise ValueError(f"{path}: the design file lacks column(s) {', '.join(missing)}")
        optional = [c for c in ("score", "margin_a", "margin_b") if c in pool]
        pool = pool[[*keys, "correct_a", "correct_b", *optional, "probability"]].copy()
        pool["correct_a"] = pool["correct_a"].astype(bool)
        pool["correct_b"] = pool["correct_b"].astype(bool)
        pool["stratum"] = pool["experiment"] + "/" + pool["condition"]
        pool["type"] = 2 * pool["correct_a"].astype(int) + pool["correct_b"].astype(int)
        sums = pool.groupby("stratum")["probability"].sum().round(6).unique()
        if sums.size != 1 or sums[0] != round(sums[0]) or not (pool["probability"] > 0).all():
            raise ValueError(f"{path}: every condition's probabilities must be above 0 and sum to the same whole "
                             f"number (items per participant and condition), got sums {sorted(sums.tolist())}")
        return cls(pool, tuple(models), "discriminating", int(round(sums[0])), float("nan"))

    @property
    def trials_per_participant(self) -> int:
        """Main trials each participant sees: ``per_condition`` times the number of conditions."""
        return self.per_condition * int(self.pool["stratum"].nunique())

    def sample(self, seed: int, slot: int, n_participants: int = 1) -> np.ndarray:
        """Which items participants ``slot .. slot + n - 1`` see (boolean, shape (n, items)), each from its own
        stream ``stream(seed, "discriminating-design", slot)``.

        Parameters
        ----------
        seed : int
            The study's seed.
        slot : int
            The first participant's design slot.
        n_participants : int
            Participants.

        Returns
        -------
        numpy.ndarray
        """
        return np.vstack([systematic_sample(self.pool["probability"], self.pool["stratum"],
                                            stream(seed, "discriminating-design", slot + k))
                          for k in range(n_participants)])

    def trial_lists(self, seed: int, n_participants: int, first_slot: int = 1) -> pd.DataFrame:
        """The main trials of participants ``first_slot ..``, each list in its own random order: the chosen trial
        lists as a table, for a server or any experiment software (practice and catch trials are the
        software's).

        Parameters
        ----------
        seed : int
            The study's seed.
        n_participants : int
            Participants (design slots) to list.
        first_slot : int
            The first slot.

        Returns
        -------
        pandas.DataFrame
            ``slot``, ``position`` (1-based), ``experiment``, ``condition``, ``item``, ``probability`` (the
            item's inclusion probability: its weight in the pool-level estimate is its inverse).

        Examples
        --------
        >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
        ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
        >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=2)
        >>> lists = d.trial_lists(seed=0, n_participants=3)
        >>> lists.groupby("slot").size().tolist(), lists.columns.tolist()[:3]
        ([2, 2, 2], ['slot', 'position', 'experiment'])
        """
        frames = []
        for k in range(n_participants):
            slot = first_slot + k
            rows = self.pool.loc[self.sample(seed, slot)[0], ["experiment", "condition", "item", "probability"]]
            rows = rows.iloc[stream(seed, "discriminating-order", slot).permutation(len(rows))]
            frames.append(rows.assign(slot=slot, position=np.arange(1, len(rows) + 1)))
        columns = ["slot", "position", "experiment", "condition", "item", "probability"]
        return pd.concat(frames, ignore_index=True)[columns]


def margin_columns(measure: str) -> list[str]:
    """The pool's columns of the models' margins that a design scored by ``measure`` keeps (and its design file).

    Parameters
    ----------
    measure : {"ec", "dmc"}
        What the design scores.

    Returns
    -------
    list of str
        ``["margin_a", "margin_b"]`` for DMC (its pool-level estimate needs them), none for EC.

    Examples
    --------
    >>> margin_columns("dmc"), margin_columns("ec")
    (['margin_a', 'margin_b'], [])
    """
    if measure not in SCORED_MEASURES:
        raise ValueError(f"unknown measure {measure!r}: a discriminating design scores {' or '.join(SCORED_MEASURES)}")
    return ["margin_a", "margin_b"] if measure == "dmc" else []


def margin_scores(margin_a, margin_b, strata) -> np.ndarray:
    """DMC discrimination scores: ``|z_A - z_B|`` of the two models' margins standardised within each condition,
    divided by its largest value in the pool (so in [0, 1]).

    Parameters
    ----------
    margin_a, margin_b : array_like
        The models' decision margins per item.
    strata : array_like
        Each item's condition.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> margin_scores([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], ["c"] * 3).tolist()
    [1.0, 0.0, 1.0]
    """
    frame = pd.DataFrame({"a": np.asarray(margin_a, float), "b": np.asarray(margin_b, float),
                          "s": np.asarray(strata)})
    if frame[["a", "b"]].isna().any().any():
        raise ValueError("a DMC design needs both models' decision margins on every candidate item")
    z = frame.groupby("s")[["a", "b"]].transform(lambda v: (v - v.mean()) / (v.std(ddof=0) or 1.0))
    gap = (z["a"] - z["b"]).abs().to_numpy()
    return gap / gap.max() if gap.max() > 0 else gap


def design_from_trials(trials: pd.DataFrame, model_a: str, model_b: str, *, design: str = "discriminating",
                       per_condition: int = 4, floor: float = 0.2, measure: str = "ec") -> ItemDesign:
    """The design over the items both models answered, from a trial table of models (as ``humanlike evaluate``
    writes, or model-vs-human's model files).

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial table with ``observer``, ``experiment``, ``condition``, ``item``, ``correct`` (and
        ``decision_margin`` for ``measure="dmc"``).
    model_a, model_b : str
        The two models compared.
    design : {"random", "discriminating"}
        The design.
    per_condition : int
        Items per participant and condition.
    floor : float
        Added to every score (> 0).
    measure : {"ec", "dmc"}
        Which disagreement is scored: outcomes (EC) or margins (DMC).

    Returns
    -------
    ItemDesign

    Raises
    ------
    ValueError
        When a model is missing, the models share no item, or an item has several trials of one model.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["A"] * 4 + ["B"] * 4, "experiment": "e", "condition": "c",
    ...                   "item": list("wxyz") * 2, "correct": [1, 1, 0, 0, 1, 0, 1, 0]})
    >>> design_from_trials(t, "A", "B", per_condition=2, floor=0.25).pool["score"].tolist()
    [0.0, 1.0, 1.0, 0.0]
    """
    margins = margin_columns(measure)   # refuses an unknown measure
    keys = ["experiment", "condition", "item"]
    columns = ["correct"] + (["decision_margin"] if margins else [])
    missing = [c for c in ("observer", *keys, *columns) if c not in trials.columns]
    if missing:
        raise ValueError(f"the models' trial table lacks column(s) {', '.join(missing)}")
    parts = []
    for name in (model_a, model_b):
        rows = trials[trials["observer"].astype(str) == name]
        if rows.empty:
            known = ", ".join(sorted(trials["observer"].astype(str).unique())[:12])
            raise ValueError(f"model {name!r} has no trials in the models' table (observers: {known})")
        repeated = rows.duplicated(keys)
        if repeated.any():
            first = rows[repeated].iloc[0]
            raise ValueError(f"model {name!r} answered item {first['item']!r} of condition {first['condition']!r} "
                             "more than once; a design needs one outcome per model and item")
        parts.append(rows.set_index(keys)[columns])
    joined = pd.merge(parts[0], parts[1], how="inner", left_index=True, right_index=True,
                      suffixes=("_a", "_b")).reset_index()
    if joined.empty:
        raise ValueError(f"models {model_a!r} and {model_b!r} share no item (experiment, condition, item)")
    joined[keys] = joined[keys].astype(str)
    scores = None
    if measure == "dmc" and design == "discriminating":
        strata = joined["experiment"] + "/" + joined["condition"]
        scores = margin_scores(joined["decision_margin_a"], joined["decision_margin_b"], strata)
    pool = joined[[*keys, "correct_a", "correct_b"]]
    if margins:   # kept in the pool: the pool-level DMC estimate needs them (design_estimate_dmc)
        pool = pool.assign(margin_a=joined["decision_margin_a"].astype(float),
                           margin_b=joined["decision_margin_b"].astype(float))
    return ItemDesign.from_outcomes(pool, (model_a, model_b), design, per_condition=per_condition, floor=floor,
                                    scores=scores)
