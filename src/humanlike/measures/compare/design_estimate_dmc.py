"""Two models' DMC difference from a study whose items were chosen: the comparison on the chosen items and the
pool-level comparison by inverse-probability weights (docs/designs-that-decide.md, issue 34).

**What is estimated.** Decision-margin consistency (docs/measures/decision-margin-consistency.md) correlates, within
a condition, a model's decision margin ``m_i`` with the human index of the item, its mean correctness. Here the
human index is the population's: ``p_i``, the chance that a person drawn from the population answers item ``i``
correctly. Per condition ``s``, ``DMC_A(s) = corr_lambda(m_A, p)`` over the items of the condition under item
weights ``lambda``, and the difference ``D = mean over conditions of (DMC_A(s) - DMC_B(s))`` (equal weights, as for
EC; a condition where one model's margin is constant has no correlation and is left out). Two estimands:

* **pool** (``lambda_i = 1``): the correlation over the candidate pool, the question about the pool;
* **chosen** (``lambda_i = pi_i``): each item counted as often as the design shows it, *the comparison on the
  chosen items* (what the trials as shown estimate). Under the random design the two are equal.

**Estimator.** Participant ``j`` sees item ``i`` with known probability ``pi_i``, independently of the other
participants, so an item's responses ``n_i`` and correct answers ``h_i`` (summed over participants) give
``E[h_i / pi_i] = N p_i`` and, over the pairs of *different* participants who both answered it,
``E[(h_i^2 - h_i) / pi_i^2] = N (N - 1) p_i^2`` (two people's answers are independent). Every trial gets the weight
``t_i = lambda_i / pi_i`` (``1 / pi`` for the pool, 1 for the chosen items) and every pair of trials by different
people the weight ``t_i / pi_i``; the Hajek means within the condition are

    mean m^k = sum n t m^k / sum n t,  mean m p = sum h t m / sum n t,  mean p = sum h t / sum n t,
    mean p^2 = sum (h^2 - h) t / pi / sum (n^2 - n) t / pi,

and ``DMC(s) = (mean m p - mean m mean p) / sqrt((mean m^2 - mean m^2) (mean p^2 - mean p^2))``. The margins are
weighted like the human index (a weighted correlation over the trials, not the pool's known margin moments), so
the weights' noise cancels between numerator and denominator as in every Hajek estimate.

**Why pairs, not the items' mean correctness.** The plain DMC index ``h_i / n_i`` carries binomial noise of
variance ``p_i (1 - p_i) / n_i``, which inflates the index's variance and pulls the correlation towards 0 by an
amount that depends on the responses per item; in a design ``n_i`` differs by item (by ``pi_i``), so the plain
index would answer a question that changes with the design and the number of participants. Pairs of different
people estimate ``p_i^2`` without that noise, so both estimands are the population's, noise-free correlations
(what DMC estimates as every item gets infinitely many responses). The accuracy index only: the d' index is a
non-linear transform of ``p_i`` with no such unbiased estimate.

**Bias and interval.** Each mean is a ratio of sums and the correlation a non-linear function of them: the
estimate is consistent but biased at order ``1 / N``, and ``mean p^2 - mean p^2`` can come out at or below 0 with
few pairs on the rarely shown items (the estimate is then NaN, never a number pretending otherwise). The interval
is the participants' jackknife (participants are the independent units), ``D +- z se``; the bias and the coverage
measured by simulation are in docs/designs-that-decide.md.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...stats.correlation import weighted_pearson
from .design_estimate import ESTIMANDS, DesignEstimate, jackknife_se, response_matrices


#: Answers per pool item (on average) below which the participants' jackknife interval under-covered on real
#: margins (benchmarks/dmc_design_real.py: 0.63, 0.81, 0.92, 0.97 at 4, 6, 8, 12 answers per item).
FEW_ANSWERS_PER_ITEM = 10


@dataclass(frozen=True)
class DmcLayout:
    """The pool as the DMC estimate needs it.

    Attributes
    ----------
    codes : numpy.ndarray
        Each pool item's condition code; -1 for a condition left out (a model's margin constant there).
    margins : numpy.ndarray
        (items, 2): models A's and B's decision margins.
    probability : numpy.ndarray
        Each item's inclusion probability ``pi_i``.
    conditions : list of str
        The kept conditions (experiment/condition), in code order.

    Examples
    --------
    >>> layout = DmcLayout(np.array([0, 0, 0]), np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]),
    ...                    np.array([0.5, 1.0, 0.5]), ["e/c"])
    >>> layout.item_weight("pool").tolist(), layout.item_weight("chosen").tolist()
    ([1.0, 1.0, 1.0], [0.5, 1.0, 0.5])
    """

    codes: np.ndarray
    margins: np.ndarray
    probability: np.ndarray
    conditions: list

    @classmethod
    def from_design(cls, design) -> "DmcLayout":
        """The layout of a DMC design (``design_from_trials(..., measure="dmc")`` keeps the margins in the pool).

        Parameters
        ----------
        design : ItemDesign
            The design, its pool with ``margin_a`` and ``margin_b``.

        Returns
        -------
        DmcLayout

        Raises
        ------
        ValueError
            Without margins, with a missing margin, or when no condition has both models' margins varying.

        Examples
        --------
        >>> from humanlike.measures.compare.discriminating import ItemDesign
        >>> pool = pd.DataFrame({"experiment": "e", "condition": ["c"] * 3 + ["d"] * 3, "item": list("uvwxyz"),
        ...                      "correct_a": 1, "correct_b": 1, "margin_a": [1.0, 2, 3, 1, 1, 1],
        ...                      "margin_b": [2.0, 1, 3, 1, 2, 3]})
        >>> layout = DmcLayout.from_design(ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=1))
        >>> layout.codes.tolist(), layout.conditions   # in d model A's margin is constant: left out
        ([0, 0, 0, -1, -1, -1], ['e/c'])
        """
        pool = design.pool
        if not {"margin_a", "margin_b"} <= set(pool.columns):
            raise ValueError("the design's pool has no decision margins (margin_a, margin_b): build it with "
                             "design_from_trials(..., measure='dmc') from trials with a decision_margin column")
        margins = pool[["margin_a", "margin_b"]].to_numpy(dtype=float)
        if not np.isfinite(margins).all():
            raise ValueError("a pool-level DMC estimate needs both models' decision margins on every pool item")
        names = list(pd.unique(pool["stratum"]))
        codes = pd.Categorical(pool["stratum"], categories=names).codes.astype(int)
        spread = pd.DataFrame(margins).groupby(codes).agg(lambda v: v.max() - v.min()).to_numpy()
        keep = np.flatnonzero((spread > 0).all(axis=1))
        if keep.size == 0:
            raise ValueError(f"in every condition the margin of {design.models[0]!r} or {design.models[1]!r} is "
                             "constant: no correlation with the human index is defined")
        remap = np.full(len(names), -1)
        remap[keep] = np.arange(keep.size)
        return cls(remap[codes], margins, pool["probability"].to_numpy(dtype=float), [names[k] for k in keep])

    def one_hot(self) -> np.ndarray:
        """(items, kept conditions): 1 where the item belongs to the condition (rows of left-out items are 0).

        Returns
        -------
        numpy.ndarray
        """
        out = np.zeros((self.codes.size, len(self.conditions)))
        kept = np.flatnonzero(self.codes >= 0)
        out[kept, self.codes[kept]] = 1.0
        return out

    def item_weight(self, estimand: str) -> np.ndarray:
        """``lambda_i``: 1 on every item (pool) or ``pi_i`` (chosen: each item as often as it is shown).

        Parameters
        ----------
        estimand : {"pool", "chosen"}
            Which estimand.

        Returns
        -------
        numpy.ndarray
        """
        if estimand not in ESTIMANDS:
            raise ValueError(f"unknown estimand {estimand!r}; choose one of {', '.join(ESTIMANDS)}")
        return np.ones_like(self.probability) if estimand == "pool" else self.probability


def dmc_difference(responses, correct, layout: DmcLayout, estimand: str = "pool") -> np.ndarray:
    """``mean over conditions of (DMC_A - DMC_B)`` from the items' response and correct counts, vectorised.

    Parameters
    ----------
    responses, correct : array_like
        Shape (..., items): ``n_i`` and ``h_i``, summed over the participants (each participant answers an item
        at most once).
    layout : DmcLayout
        The pool.
    estimand : {"pool", "chosen"}
        The estimand (module docstring).

    Returns
    -------
    numpy.ndarray
        Shape (...); NaN where a condition's human variance estimate is not above 0 or has no pair of responses.

    Examples
    --------
    One condition of four items, every one shown to all of three people (so the pool and chosen estimates
    coincide). By hand, with correct counts (1, 0, 3, 3): the pairs of different people give ``mean p^2 =
    (0 + 0 + 6 + 6) / 24 = 1/2``, ``mean p = 7/12``, so the human variance is ``1/2 - 49/144 = 23/144`` (the
    plain item accuracies would give 35/144: their binomial noise); with A's margins (0, 1, 2, 3)
    ``cov = 15/12 - 1.5 x 7/12 = 3/8`` and ``var = 1.25``, ``DMC_A = 0.375 / sqrt(1.25 x 23/144) = 0.8392``;
    B's margins (3, 2, 1, 0) give ``DMC_B = -0.8392``.

    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"), "correct_a": 1,
    ...                      "correct_b": 1, "margin_a": [0.0, 1, 2, 3], "margin_b": [3.0, 2, 1, 0]})
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> layout = DmcLayout.from_design(ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=4))
    >>> round(float(dmc_difference([3, 3, 3, 3], [1, 0, 3, 3], layout)), 4)
    1.6785
    """
    n = np.asarray(responses, dtype=float)
    h = np.asarray(correct, dtype=float)
    one_hot = layout.one_hot()
    trial = layout.item_weight(estimand) / layout.probability     # t_i: each trial's weight
    pair = trial / layout.probability                             # each pair of two people's trials
    total = (n * trial) @ one_hot
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = ((h * trial) @ one_hot) / total
        mean_pp = (((h * h - h) * pair) @ one_hot) / (((n * n - n) * pair) @ one_hot)
        var_p = mean_pp - mean_p ** 2
        values = []
        for k in range(2):
            m = layout.margins[:, k]
            mean_m = ((n * trial * m) @ one_hot) / total
            var_m = ((n * trial * m * m) @ one_hot) / total - mean_m ** 2
            cov = ((h * trial * m) @ one_hot) / total - mean_m * mean_p
            values.append(cov / np.sqrt(var_m * var_p))
        difference = np.where(var_p > 0, values[0] - values[1], np.nan)
    return np.mean(difference, axis=-1)


def dmc_jackknife(shown, correct, layout: DmcLayout, estimand: str = "pool") -> tuple[np.ndarray, np.ndarray]:
    """Estimate and participants' jackknife standard error, vectorised over leading axes (e.g. studies).

    Parameters
    ----------
    shown, correct : array_like
        Shape (..., participants, items): 1 where the participant answered the item / answered it correctly.
    layout : DmcLayout
        The pool.
    estimand : {"pool", "chosen"}
        The estimand.

    Returns
    -------
    (estimate, se) : tuple of numpy.ndarray
        Each of the leading shape.

    Examples
    --------
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"), "correct_a": 1,
    ...                      "correct_b": 1, "margin_a": [0.0, 1, 2, 3], "margin_b": [3.0, 2, 1, 0]})
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> layout = DmcLayout.from_design(ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=4))
    >>> rng = np.random.default_rng(0)
    >>> correct = rng.random((40, 4)) < [0.2, 0.4, 0.6, 0.8]
    >>> estimate, se = dmc_jackknife(np.ones((40, 4)), correct, layout)
    >>> bool(estimate > 1.5), bool(0 < se < 0.3)
    (True, True)
    """
    own_n = np.asarray(shown, dtype=float)
    own_h = np.asarray(correct, dtype=float) * own_n
    n, h = own_n.sum(axis=-2), own_h.sum(axis=-2)
    estimate = dmc_difference(n, h, layout, estimand)
    left_out = dmc_difference(n[..., None, :] - own_n, h[..., None, :] - own_h, layout, estimand)
    return estimate, jackknife_se(left_out)


def dmc_truth(layout: DmcLayout, human_probability, estimand: str = "pool") -> float:
    """The estimand's true value when the population's chance of being right on pool item ``i`` is
    ``human_probability[i]``: the ``lambda``-weighted correlations of each model's margins with it, per condition.

    Parameters
    ----------
    layout : DmcLayout
        The pool.
    human_probability : array_like
        Per pool item, ``p_i``.
    estimand : {"pool", "chosen"}
        The estimand.

    Returns
    -------
    float

    Examples
    --------
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"), "correct_a": 1,
    ...                      "correct_b": 1, "margin_a": [0.0, 1, 2, 3], "margin_b": [0.0, 1, 3, 2]})
    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> layout = DmcLayout.from_design(ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=2))
    >>> round(dmc_truth(layout, [0.2, 0.4, 0.6, 0.8]), 4)   # 1 - 0.8: p is linear in A's margins
    0.2
    """
    p = np.asarray(human_probability, dtype=float)
    weight = layout.item_weight(estimand)
    differences = []
    for code in range(len(layout.conditions)):
        items = layout.codes == code
        a, b = (weighted_pearson(layout.margins[items, k], p[items], weight[items]) for k in range(2))
        differences.append(float(a) - float(b))
    return float(np.mean(differences))


def estimate_dmc_difference(design, responses: pd.DataFrame, *, estimand: str = "pool",
                            level: float = 0.95) -> DesignEstimate:
    """The DMC difference of the design's two models with the participants who answered ``responses``.

    Parameters
    ----------
    design : ItemDesign
        The design the trials were drawn from, with both models' margins in its pool
        (``design_from_trials(..., measure="dmc")``).
    responses : pandas.DataFrame
        Human trials: ``observer``, ``experiment``, ``condition``, ``item``, ``correct``; each item in the pool,
        answered at most once by each participant.
    estimand : {"pool", "chosen"}
        The pool-level (inverse-probability weighted) or the chosen-items comparison.
    level : float
        Interval level.

    Returns
    -------
    DesignEstimate
        ``measure="dmc"``; ``difference`` is ``DMC_A - DMC_B`` of the named estimand.

    Raises
    ------
    ValueError
        For a response outside the pool, a participant answering an item twice, fewer than two participants or a
        pool without margins.

    Warns
    -----
    RuntimeWarning
        Below :data:`FEW_ANSWERS_PER_ITEM` answers per pool item on average, where the interval under-covered.

    Examples
    --------
    Four items all shown to three people (the hand computation of :func:`dmc_difference`):

    >>> from humanlike.measures.compare.discriminating import ItemDesign
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"), "correct_a": 1,
    ...                      "correct_b": 1, "margin_a": [0.0, 1, 2, 3], "margin_b": [3.0, 2, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=4)
    >>> r = pd.DataFrame({"observer": np.repeat(["p1", "p2", "p3"], 4), "experiment": "e", "condition": "c",
    ...                   "item": list("wxyz") * 3, "correct": [0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1]})
    >>> e = estimate_dmc_difference(d, r)
    >>> e.measure, e.estimand, round(e.difference, 4), e.n_participants
    ('dmc', 'pool', 1.6785, 3)
    """
    layout = DmcLayout.from_design(design)
    people, shown, correct = response_matrices(design, responses)
    if shown.max() > 1:
        person, item = np.unravel_index(int(np.argmax(shown)), shown.shape)
        raise ValueError(f"observer {people[person]!r} answered item {design.pool['item'].iloc[item]!r} more "
                         "than once; the DMC estimate pairs the answers of different people")
    kept = layout.codes >= 0   # the items of the conditions the estimate averages over
    answers = float(shown[:, kept].sum()) / max(int(kept.sum()), 1)
    if answers < FEW_ANSWERS_PER_ITEM:
        warnings.warn(f"the DMC difference rests on {answers:.1f} answers per pool item on average; below about "
                      f"{FEW_ANSWERS_PER_ITEM} its interval under-covered in simulations on real margins (0.81 at 6 "
                      "and 0.92 at 8 answers per item; docs/designs-that-decide.md#the-dmc-design-on-real-margins):"
                      " read it as too narrow, or collect more answers per item", RuntimeWarning, stacklevel=2)
    estimate, se = dmc_jackknife(shown, correct, layout, estimand)
    return DesignEstimate.from_jackknife(estimand, estimate, se, people.size, layout.conditions, level, "dmc")
