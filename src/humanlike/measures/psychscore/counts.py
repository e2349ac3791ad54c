"""The counts the Psychophysical-Score fits: per observer, class pair and trial type; and, for a reference
pooled from several participants, each participant's own counts, which the bootstrap resamples (a participant
with all their trials: one person's trials are not independent of each other).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...resampling.draws import item_weights


@dataclass(frozen=True)
class ClassCounts:
    """Pooled counts: ``successes``/``totals`` (observers, class pairs, trial types) over ``trials``
    ((m, 4) ascending levels, S4 = 0 for triads).

    Made by :func:`humanlike.measures.psychscore.analysis.pool_class_counts`.

    Parameters
    ----------
    observers : list of str
        Observer names, the reference first.
    kinds : list of str
        Each observer's kind (``human``, ``model``, ``random``).
    class_pairs : list of tuple of str
        The (class_a, class_b) pairs, sorted.
    trials : numpy.ndarray
        The distinct trial types, (m, 4) ascending stimulus levels (s4 = 0 for a triad).
    n_levels : int
        Levels per sequence.
    successes, totals : numpy.ndarray
        Responses 1 and trials per (observer, class pair, trial type), float arrays of the same shape.

    Examples
    --------
    >>> from humanlike.measures.psychscore.analysis import pool_class_counts
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> judgements = simulate_psychscore_demo(n_classes=3, n_humans=2)   # 3 class pairs, 2 humans, 2 models
    >>> counts = pool_class_counts(judgements)
    >>> counts.observers, counts.class_pairs[0], counts.totals.shape, counts.member_totals.shape
    (['humans', 'model-alien', 'model-humanlike'], ('class-01', 'class-02'), (3, 3, 35), (2, 3, 35))
    """

    observers: list
    kinds: list
    class_pairs: list
    trials: np.ndarray
    n_levels: int
    successes: np.ndarray
    totals: np.ndarray
    #: The pooled reference's participants: their names and their own (participants, class pairs, trial types)
    #: counts, which the bootstrap resamples (each participant with all their trials); None for one observer.
    members: list | None = None
    member_successes: np.ndarray | None = None
    member_totals: np.ndarray | None = None


def with_members(counts: ClassCounts, members: pd.Series, rows: np.ndarray, pair_index: np.ndarray,
                 trial_index: np.ndarray, responses: np.ndarray) -> ClassCounts:
    """``counts`` with the reference's participants' own counts.

    Parameters
    ----------
    counts : ClassCounts
        The pooled counts (the reference first).
    members : pandas.Series
        The participant of each reference row.
    rows : numpy.ndarray
        Positions of the reference rows in the table the indices below describe.
    pair_index, trial_index : numpy.ndarray
        Class pair and trial type of every row of that table.
    responses : numpy.ndarray
        The 0/1 response of every row.

    Returns
    -------
    ClassCounts

    Examples
    --------
    >>> counts = ClassCounts(["humans"], ["human"], [("a", "b")], np.array([[1, 2, 3, 0]]), 3,
    ...                      np.array([[[1.0]]]), np.array([[[2.0]]]))
    >>> out = with_members(counts, pd.Series(["p1", "p2"]), np.array([0, 1]), np.array([0, 0]), np.array([0, 0]),
    ...                    np.array([1.0, 0.0]))
    >>> out.members, out.member_successes.ravel().tolist(), out.member_totals.ravel().tolist()
    (['p1', 'p2'], [1.0, 0.0], [1.0, 1.0])
    """
    names = sorted(members.unique())
    member_index = pd.Categorical(members, categories=names).codes
    shape = (len(names), len(counts.class_pairs), len(counts.trials))
    flat = np.ravel_multi_index((member_index, pair_index[rows], trial_index[rows]), shape)
    totals = np.bincount(flat, minlength=np.prod(shape)).reshape(shape).astype(np.float64)
    successes = np.bincount(flat, weights=responses[rows], minlength=np.prod(shape)).reshape(shape)
    return dataclasses.replace(counts, members=names, member_successes=successes, member_totals=totals)


def resampled_members(counts: ClassCounts, seed: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The reference's counts in resamples ``start..stop-1`` of its participants (multinomial participant
    weights from the engine's draws, :func:`humanlike.resampling.draws.item_weights`, so resample r depends
    only on the seed and r).

    Parameters
    ----------
    counts : ClassCounts
        With the members' counts (:func:`with_members`).
    seed, start, stop : int
        The seed and the resamples.

    Returns
    -------
    successes, totals : numpy.ndarray
        (stop - start, class pairs, trial types) each.

    Examples
    --------
    >>> counts = ClassCounts(["humans"], ["human"], [("a", "b")], np.array([[1, 2, 3, 0]]), 3,
    ...                      np.array([[[1.0]]]), np.array([[[2.0]]]), ["p1", "p2"], np.array([[[1.0]], [[0.0]]]),
    ...                      np.array([[[1.0]], [[1.0]]]))
    >>> k, n = resampled_members(counts, 0, 0, 4)
    >>> n.ravel().tolist()                                  # two participants drawn each time, one trial each
    [2.0, 2.0, 2.0, 2.0]
    """
    weights = item_weights(seed, ("participants",), len(counts.members), start, stop).astype(np.float64)
    return (np.einsum("rh,hpm->rpm", weights, counts.member_successes),
            np.einsum("rh,hpm->rpm", weights, counts.member_totals))
