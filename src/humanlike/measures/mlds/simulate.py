"""Difference-scaling designs and simulated observers (docs/measures/mlds.md, "Design").

A design is every quadruple (a < b < c < d as the pairs (a, b) and (c, d)) or every triad (a < b < c)
of p levels, shuffled, with each trial shown in a random presentation order (which pair first; for a
triad, ascending or descending). A simulated observer with scale psi and noise sigma answers
``response = 1`` (second pair more different) with probability ``F(delta / sigma)``. The table that
comes back is in physical order with ``reversed`` marking the trials presented the other way round,
like a real data set after loading.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...trials.judgements import validate_judgements
from ...trials.streams import spawned_stream
from .observers import quad_design, triad_design

DESIGNS = ("quad", "triad")


_STREAM_CODES = {"mlds-design": 1, "mlds-responses": 2, "quad": 4, "triad": 3}


def _stream(seed: int, *key) -> np.random.Generator:
    # A fixed integer spawn key per purpose (trials.streams.spawned_stream) keeps the design and the responses on
    # independent streams of the one seed, and the simulated numbers those of before.
    words = tuple(_STREAM_CODES[k] if k in _STREAM_CODES else int(k) for k in key)
    return spawned_stream(seed, *words)


def all_quadruples(n_levels: int) -> np.ndarray:
    """All C(p, 4) quadruples (a, b, c, d) with a < b < c < d, as an (m, 4) int array of 1-based levels.

    Parameters
    ----------
    n_levels : int
        Number of levels p (at least 4).

    Returns
    -------
    numpy.ndarray of int64, (C(p, 4), 4)
        One quadruple per row, in lexicographic order.

    Raises
    ------
    ValueError
        If ``n_levels < 4``.

    Examples
    --------
    >>> all_quadruples(5).shape
    (5, 4)
    """
    if n_levels < 4:
        raise ValueError(f"quadruples need at least 4 levels, got {n_levels}")
    return quad_design(n_levels)


def all_triads(n_levels: int) -> np.ndarray:
    """All C(p, 3) triads (a, b, c) with a < b < c, as an (m, 3) int array of 1-based levels.

    Parameters
    ----------
    n_levels : int
        Number of levels p (at least 3).

    Returns
    -------
    numpy.ndarray of int64, (C(p, 3), 3)
        One triad per row, in lexicographic order.

    Raises
    ------
    ValueError
        If ``n_levels < 3``.

    Examples
    --------
    >>> all_triads(4).tolist()
    [[1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 4]]
    """
    if n_levels < 3:
        raise ValueError(f"triads need at least 3 levels, got {n_levels}")
    return triad_design(n_levels)


def design_table(n_levels: int, *, design: str = "quad", repeats: int = 1, seed: int = 0) -> pd.DataFrame:
    """All quadruples or triads of ``n_levels`` levels, each ``repeats`` times, in random order and side.

    Parameters
    ----------
    n_levels : int
        Number of levels.
    design : {"quad", "triad"}, default "quad"
        The trial type.
    repeats : int, default 1
        How often each trial is shown.
    seed : int, default 0
        Seed of the trial order and presentation sides.

    Returns
    -------
    pandas.DataFrame
        Columns ``trial, s1..s4`` (physical order; ``s4`` missing for triads) and ``reversed`` (shown
        second pair first / descending).

    Raises
    ------
    ValueError
        For an unknown design or too few levels.

    Examples
    --------
    >>> t = design_table(5, repeats=2, seed=0)
    >>> len(t), t.columns.tolist()
    (10, ['trial', 's1', 's2', 's3', 's4', 'reversed'])
    >>> bool((t["s1"] < t["s2"]).all() and (t["s3"] < t["s4"]).all())
    True
    """
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}; use one of {DESIGNS}")
    base = all_quadruples(n_levels) if design == "quad" else all_triads(n_levels)
    rng = _stream(seed, "mlds-design", design, str(n_levels))
    rows = np.tile(base, (repeats, 1))[rng.permutation(len(base) * repeats)]
    reversed_ = rng.random(len(rows)) < 0.5
    frame = pd.DataFrame({"trial": np.arange(len(rows)), "s1": rows[:, 0], "s2": rows[:, 1], "s3": rows[:, 2]})
    frame["s4"] = pd.array(rows[:, 3], dtype="Int64") if design == "quad" else pd.array([pd.NA] * len(rows), dtype="Int64")
    frame["reversed"] = reversed_
    return frame


def _inverse_link(link: str, z: np.ndarray) -> np.ndarray:
    from scipy import special

    if link == "probit":
        return special.ndtr(z)
    if link == "logit":
        return special.expit(z)
    if link == "cauchit":
        from scipy import stats

        return stats.cauchy.cdf(z)
    raise ValueError(f"unknown link {link!r}")


def decision_variables(scale: np.ndarray, table: pd.DataFrame) -> np.ndarray:
    """delta = psi_a - psi_b - psi_c + psi_d per quadruple (psi_a - 2 psi_b + psi_c per triad).

    Parameters
    ----------
    scale : array_like, (levels,)
        psi_1..psi_p.
    table : pandas.DataFrame
        Trials with 1-based level columns ``s1..s4`` (``s4`` missing for triads).

    Returns
    -------
    numpy.ndarray, (trials,)
        The decision variable of each trial (positive: the second pair differs more).

    Raises
    ------
    ValueError
        If the table uses a level beyond the scale.

    Examples
    --------
    >>> t = pd.DataFrame({"s1": [1, 1], "s2": [2, 2], "s3": [3, 3], "s4": [4, None]})
    >>> decision_variables([0.0, 0.1, 0.5, 1.0], t).round(6).tolist()
    [0.4, 0.3]
    """
    psi = np.concatenate([[np.nan], np.asarray(scale, float)])
    s = table[["s1", "s2", "s3", "s4"]].fillna(0).to_numpy(np.int64)
    if s.max() >= len(psi):
        raise ValueError(f"the table uses level {int(s.max())} but the scale has {len(psi) - 1} values")
    psi[0] = 0.0
    triad = s[:, 3] == 0
    quad_delta = psi[s[:, 0]] - psi[s[:, 1]] - psi[s[:, 2]] + psi[s[:, 3]]
    triad_delta = psi[s[:, 0]] - 2 * psi[s[:, 1]] + psi[s[:, 2]]
    return np.where(triad, triad_delta, quad_delta)


def simulate_judgements(scale, sigma: float, *, design: str = "quad", repeats: int = 1, seed: int = 0,
                        link: str = "probit", observer: str = "simulated", scale_id: str = "scale",
                        stimulus=None, decision=None) -> pd.DataFrame:
    """Responses of a simulated observer with perceptual scale ``scale`` and noise ``sigma``.

    Parameters
    ----------
    scale : array-like
        psi_1..psi_p of the observer (any origin and unit; only differences over sigma matter).
    sigma : float
        Decision noise on the same unit (0 gives a deterministic observer: separable responses).
    design, repeats : see :func:`design_table`.
    seed : int
    link : {"probit", "logit", "cauchit"}
        The observer's noise distribution (Gaussian for probit).
    observer, scale_id : str
        Ids written into the table.
    stimulus : array-like, optional
        Physical level values written as ``v1..v4``.
    decision : callable, optional
        ``decision(table) -> delta`` replacing the additive decision variable (for non-additive
        observers, e.g. in tests of the six-point test).

    Returns
    -------
    pandas.DataFrame
        A validated judgement table in physical order.

    Examples
    --------
    >>> t = simulate_judgements(np.linspace(0, 1, 5), 0.2, seed=3)
    >>> len(t), sorted(t["response"].unique().tolist())
    (5, [0, 1])
    """
    psi = np.asarray(scale, dtype=float)
    if psi.ndim != 1 or len(psi) < 3:
        raise ValueError("scale must be a vector of at least 3 level values")
    if sigma < 0:
        raise ValueError(f"sigma must be >= 0, got {sigma}")
    table = design_table(len(psi), design=design, repeats=repeats, seed=seed)
    delta = decision(table) if decision is not None else decision_variables(psi, table)
    rng = _stream(seed, "mlds-responses", design, str(len(psi)))
    if sigma == 0:
        response = (delta > 0).astype(int)
    else:
        response = (rng.random(len(table)) < _inverse_link(link, delta / sigma)).astype(int)
    table.insert(0, "observer", observer)
    table.insert(1, "scale", scale_id)
    table["response"] = response
    if stimulus is not None:
        values = np.concatenate([[np.nan], np.asarray(stimulus, float)])
        for k in range(1, 5):
            table[f"v{k}"] = values[table[f"s{k}"].fillna(0).to_numpy(np.int64)]
    return validate_judgements(table)
