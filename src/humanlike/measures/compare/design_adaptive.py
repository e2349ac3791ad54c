"""The adaptive design: after every batch of participants, draw the next batch where the current data say the
EC difference's variance falls most (docs/designs-that-decide.md).

The pool-level difference is, to first order, ``D ~ sum_{s,t} g_{s,t} (p_{s,t} - true p_{s,t})``, with ``p_{s,t}``
the human accuracy on the items of model-outcome type ``t`` in condition ``s`` and ``g`` its gradient. Its variance
``sum g^2 p (1 - p) / n_{s,t}`` is smallest, for a fixed number of trials per condition, when the trials of each
(condition, type) are ``n_{s,t} ~ |g_{s,t}| sqrt(p_{s,t} (1 - p_{s,t}))`` (Neyman allocation). After every batch,
:func:`neyman_scores` plugs in the current estimates (accuracies shrunk towards 1/2 by half a trial, so that an
unseen cell is not scored 0) and gives each item the score ``n_{s,t} / N_{s,t}`` (scaled to [0, 1]); the next
batch is drawn by :class:`~humanlike.measures.compare.discriminating.ItemDesign` with those scores (scaled to
[0, 1] within each condition, whose number of trials is fixed) and the floor,
so every item keeps a probability above 0 and each trial's probability is known when it is drawn. The first batch
uses the discriminating design. Each trial keeps the weight ``1 / pi`` of the design it was drawn from, so the
Hajek estimate stays the pool-level one; whether the participants' jackknife and the group-sequential test keep
their coverage and level under this data-dependent choice is checked by simulation (benchmarks/adaptive_design.py).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .design_estimate import difference_from_sums, expected_sums, jackknife, participant_sums, strata_layout
from .design_simulation import DesignStudies, population_probability
from .discriminating import ItemDesign, systematic_sample
from ...resampling.rng import stream

#: Step of the numerical gradient of the difference in a cell's accuracy.
_STEP = 1e-4


def neyman_scores(design: ItemDesign, sums) -> np.ndarray:
    """Each pool item's adaptive score in [0, 1] from the sums of the participants so far.

    Parameters
    ----------
    design : ItemDesign
        Any design of the pool (its outcomes and conditions are used).
    sums : numpy.ndarray
        Per-participant sums (participants, strata, 4, 4) (:func:`~humanlike.measures.compare.design_estimate.
        participant_sums`), or their total (strata, 4, 4).

    Returns
    -------
    numpy.ndarray
        One score per pool item (0 for items of conditions left out of the estimand).

    Examples
    --------
    >>> import pandas as pd
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=2)
    >>> total = np.zeros((1, 4, 4)); total[0, :, 2] = [2, 3, 8, 9]; total[0, :, 3] = 10
    >>> neyman_scores(d, total).round(2).tolist()   # only the items where A and B differ move the difference here
    [0.0, 0.9, 1.0, 0.0]
    """
    sums = np.asarray(sums, dtype=float)
    total = sums.sum(axis=0) if sums.ndim == 4 else sums
    codes, shares, _ = strata_layout(design)
    rate = (total[..., 2] + 0.5) / (total[..., 3] + 1.0)   # shrunk towards 1/2 by half a trial
    base = np.stack([rate, np.ones_like(rate), rate, np.ones_like(rate)], -1)
    cells = rate.size
    bumped = np.repeat(base[None], cells, axis=0)
    flat = bumped.reshape(cells, cells, 4)
    flat[np.arange(cells), np.arange(cells), 0] += _STEP
    gradient = ((difference_from_sums(bumped, shares) - difference_from_sums(base, shares)) / _STEP)
    gradient = np.nan_to_num(gradient.reshape(rate.shape))
    wanted = np.abs(gradient) * np.sqrt(rate * (1 - rate))   # trials per cell, Neyman
    counts = shares * np.bincount(codes[codes >= 0], minlength=shares.shape[0])[:, None]
    per_item = np.where(counts > 0, wanted / np.maximum(counts, 1), 0.0)
    # each condition's trials are fixed by the design: only the allocation within a condition is chosen, so
    # the scores are scaled to [0, 1] per condition (the floor then means the same everywhere)
    top = per_item.max(axis=1, keepdims=True)
    per_item = np.where(top > 0, per_item / np.where(top > 0, top, 1.0), 0.0)
    scores = np.zeros(len(design.pool))
    kept = codes >= 0
    scores[kept] = per_item[codes[kept], design.pool["type"].to_numpy()[kept]]
    return scores


def refitted_design(design: ItemDesign, sums) -> ItemDesign:
    """The design the next batch is drawn from: :func:`neyman_scores` of the sums so far, with ``design``'s pool,
    items per condition and floor (what the adaptive simulation and ``humanlike serve``'s adaptive studies draw
    from after every look).

    Parameters
    ----------
    design : ItemDesign
        The study's first design (its ``floor`` must be a number: ``ItemDesign.read`` leaves it NaN).
    sums : numpy.ndarray
        Per-participant sums so far (participants, strata, 4, 4), or their total.

    Returns
    -------
    ItemDesign

    Raises
    ------
    ValueError
        When the design's floor is not a number above 0.

    Examples
    --------
    >>> import pandas as pd
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=2)
    >>> total = np.zeros((1, 4, 4)); total[0, :, 2] = [2, 3, 8, 9]; total[0, :, 3] = 10
    >>> refitted_design(d, total).pool["probability"].round(3).tolist()
    [0.148, 0.815, 0.889, 0.148]
    """
    if not design.floor > 0:
        raise ValueError(f"refitting needs the design's floor (a number above 0), got {design.floor}")
    columns = ["experiment", "condition", "item", "correct_a", "correct_b"]
    return ItemDesign.from_outcomes(design.pool[columns], design.models, "discriminating",
                                    per_condition=design.per_condition, floor=design.floor,
                                    scores=neyman_scores(design, sums))


def simulate_adaptive_studies(design: ItemDesign, item_logit, *, participant_sd: float = 0.0, batch: int = 10,
                              looks=(20, 40, 80), n_studies: int = 200, seed: int = 0) -> DesignStudies:
    """Simulate studies of the adaptive design: the first batch from ``design`` (discriminating), every later one
    from :func:`neyman_scores` of the participants so far, with ``design``'s floor.

    Parameters
    ----------
    design : ItemDesign
        The first batch's design (its pool, per-condition count and floor are kept).
    item_logit : array_like
        Per pool item, the logit of a typical participant's chance of being right.
    participant_sd : float
        Spread of the participants' skill on the logit scale.
    batch : int
        Participants between refits.
    looks : sequence of int
        Participants at which each study is estimated (multiples of ``batch``).
    n_studies : int
        Simulated studies.
    seed : int
        Seed; study ``k`` from ``stream(seed, "design-simulation", "adaptive", k)``.

    Returns
    -------
    DesignStudies
        The chosen-items truth is NaN (the chosen items change with the data).

    Examples
    --------
    >>> import pandas as pd
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": [f"i{k}" for k in range(40)],
    ...                      "correct_a": np.arange(40) % 2, "correct_b": np.arange(40) // 20})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=10)
    >>> logit = np.where(pool["correct_a"] == 1, 1.5, -0.5)
    >>> sims = simulate_adaptive_studies(d, logit, batch=5, looks=(10, 20), n_studies=20)
    >>> sims.design, bool(sims.truth["pool"] > 0.2), bool(np.isnan(sims.truth["chosen"]))
    ('adaptive', True, True)
    """
    looks = np.asarray(looks, dtype=int)
    if looks.size == 0 or np.any(looks % batch) or np.any(np.diff(looks) <= 0) or looks[0] < 2:
        raise ValueError(f"looks must increase and be multiples of the batch ({batch}), got {looks.tolist()}")
    logit = np.asarray(item_logit, dtype=float)
    _, shares, _ = strata_layout(design)
    truth_sums = expected_sums(design, population_probability(logit, participant_sd))
    truth = {"pool": float(difference_from_sums(truth_sums, shares)), "chosen": float("nan")}
    strata = design.pool["stratum"].to_numpy()
    estimate = {e: np.empty((n_studies, looks.size)) for e in truth}
    se = {e: np.empty((n_studies, looks.size)) for e in truth}
    for k in range(n_studies):
        rng = stream(seed, "design-simulation", "adaptive", k)
        current, parts = design, []
        for _ in range(int(looks[-1]) // batch):
            shown = systematic_sample(current.pool["probability"].to_numpy(), strata, rng, batch)
            skill = rng.normal(0.0, participant_sd, batch) if participant_sd > 0 else np.zeros(batch)
            correct = rng.random(shown.shape) < special.expit(logit[None, :] + skill[:, None])
            parts.append(participant_sums(current, shown, correct))
            current = refitted_design(design, np.concatenate(parts))
        sums = np.concatenate(parts)
        for j, n in enumerate(looks):
            for e in truth:
                estimate[e][k, j], se[e][k, j] = jackknife(sums[:n], shares, e)
    return DesignStudies(looks, estimate, se, truth, "adaptive")
