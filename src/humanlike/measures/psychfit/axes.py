"""The stimulus axis of an experiment: levels parsed from its conditions, the fitting space and the direction.

model-vs-human names its levels in the conditions (``c05`` is 5% contrast, ``0.35`` a noise width, ``16-3-10``
an eidolon reach of 16). :func:`experiment_axes` turns them into the :class:`Axis` a psychometric function is
fitted along (:mod:`humanlike.measures.psychfit.analysis`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.schema import TrialTableError

__all__ = ["DIRECTIONS", "SPACES", "Axis", "experiment_axes", "fittable_experiments", "stimulus_level"]

SPACES = ("auto", "log", "linear")
DIRECTIONS = ("auto", "increasing", "decreasing")


def stimulus_level(condition: str) -> float:
    """The stimulus level a condition names: its leading number (``c05`` -> 5, ``1-10-10`` -> 1, ``inf``).

    Parameters
    ----------
    condition : str

    Returns
    -------
    float
        NaN where the condition names no number.

    Examples
    --------
    >>> [stimulus_level(c) for c in ("c05", "0.35", "16-3-10", "inf", "pow")]
    [5.0, 0.35, 16.0, inf, nan]
    """
    text = str(condition).strip().lower()
    if text in ("inf", "+inf"):
        return float("inf")
    match = re.match(r"^[a-z]*(-?\d+(?:\.\d+)?)", text)
    return float(match.group(1)) if match else float("nan")


def fittable_experiments(trials: pd.DataFrame, monotone: float = 0.0) -> list[str]:
    """The experiments whose conditions all name a level, at least three of them finite.

    Parameters
    ----------
    trials : pandas.DataFrame
    monotone : float
        Also require the rank correlation of the finite levels with the pooled accuracy to be at least this in
        size (0: no requirement); rotation angles are levels, but no psychometric axis.

    Returns
    -------
    list of str

    Examples
    --------
    >>> t = pd.DataFrame({"experiment": ["a"] * 3 + ["b"] * 2, "condition": ["1", "2", "3", "0", "pow"]})
    >>> fittable_experiments(t)
    ['a']
    """
    out = []
    for experiment, rows in trials.groupby("experiment", sort=True, observed=True):
        levels = [stimulus_level(c) for c in rows["condition"].astype(str).unique()]
        if any(np.isnan(levels)) or np.isfinite(levels).sum() < 3:
            continue
        if monotone > 0:
            accuracy = rows.groupby(rows["condition"].astype(str).map(stimulus_level))["correct"].mean()
            accuracy = accuracy[np.isfinite(accuracy.index.to_numpy(dtype=float))]
            rho = pd.Series(accuracy.index.to_numpy(dtype=float)).corr(pd.Series(accuracy.to_numpy()),
                                                                        method="spearman")
            if not abs(np.nan_to_num(rho)) >= monotone:
                continue
        out.append(str(experiment))
    return out


@dataclass(frozen=True)
class Axis:
    """The stimulus axis of one experiment as fitted.

    Attributes
    ----------
    conditions : tuple of str
        The conditions fitted, by level.
    levels : tuple of float
        Their stimulus levels.
    space : {"log", "linear"}
        Where the function is fitted (log10 of the level, or the level).
    direction : {1, -1}
        +1 where performance rises with the level.
    excluded : tuple of str
        Conditions left out: a level the space cannot place (``inf``; 0 or less in log space).
    guess : float
        The fixed guess rate.

    Examples
    --------
    >>> axis = Axis(("c01", "c10"), (1.0, 10.0), "log", 1, (), 1 / 16)
    >>> axis.x.tolist(), axis.to_level(1.0).tolist()
    ([0.0, 1.0], 10.0)
    """

    conditions: tuple
    levels: tuple
    space: str
    direction: int
    excluded: tuple
    guess: float

    @property
    def x(self) -> np.ndarray:
        """The levels in the fitting space."""
        levels = np.asarray(self.levels, dtype=float)
        return np.log10(levels) if self.space == "log" else levels

    def to_level(self, x):
        """Fitting space -> stimulus level.

        Parameters
        ----------
        x : array-like
            Values in the fitting space.

        Returns
        -------
        numpy.ndarray
            Stimulus levels (``10 ** x`` in log space).
        """
        return np.power(10.0, x) if self.space == "log" else np.asarray(x, dtype=float)


def experiment_axes(trials: pd.DataFrame, *, space: str = "auto", direction: str = "auto",
                    guess: float | None = None) -> dict:
    """Per experiment, its :class:`Axis`: levels parsed from the conditions, the space and the direction.

    ``space="auto"`` fits in log10 space where every finite level is positive, else linearly; ``inf`` is left
    out (model-vs-human's unfiltered high-pass images). ``direction="auto"`` takes the sign of the correlation
    of level with the accuracy of all trials pooled, one direction per experiment so every observer's function
    is read the same way. ``guess=None`` is 1 / the number of classes of the experiment's labels.

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table.
    space : {"auto", "log", "linear"}
    direction : {"auto", "increasing", "decreasing"}
    guess : float, optional

    Returns
    -------
    dict
        Experiment -> :class:`Axis`.

    Raises
    ------
    TrialTableError
        When a condition names no level, or fewer than three levels remain (three parameters are fitted).

    Examples
    --------
    >>> t = pd.DataFrame({"experiment": "contrast", "condition": ["c01", "c10", "c100"] * 2,
    ...                   "label": ["cat", "dog"] * 3, "correct": [False, True, True, False, True, True]})
    >>> axis = experiment_axes(t)["contrast"]
    >>> axis.levels, axis.space, axis.direction, axis.guess
    ((1.0, 10.0, 100.0), 'log', 1, 0.5)
    """
    if space not in SPACES:
        raise ValueError(f"space must be one of {SPACES}, not {space!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    axes = {}
    for experiment, rows in trials.groupby("experiment", sort=True, observed=True):
        conditions = sorted(rows["condition"].astype(str).unique())
        levels = {c: stimulus_level(c) for c in conditions}
        unnamed = [c for c, v in levels.items() if np.isnan(v)]
        if unnamed:
            raise TrialTableError(f"experiment '{experiment}': condition '{unnamed[0]}' names no stimulus level; a "
                                  "psychometric function needs conditions that are levels (e.g. c05, 0.35, 40)")
        finite = {c: v for c, v in levels.items() if np.isfinite(v)}
        chosen = ("log" if all(v > 0 for v in finite.values()) else "linear") if space == "auto" else space
        kept = {c: v for c, v in finite.items() if chosen == "linear" or v > 0}
        if len(set(kept.values())) < 3:
            raise TrialTableError(f"experiment '{experiment}': {len(set(kept.values()))} stimulus levels in {chosen} "
                                  f"space ({sorted(levels)}); a psychometric function with a lapse needs at least 3")
        ordered = sorted(kept, key=kept.get)
        if direction == "auto":
            accuracy = rows.assign(condition=rows["condition"].astype(str)).groupby("condition")["correct"].mean()
            x = np.array([kept[c] for c in ordered])
            x = np.log10(x) if chosen == "log" else x
            y = accuracy.reindex(ordered).to_numpy(dtype=float)
            sign = 1 if np.nan_to_num(np.corrcoef(x, y)[0, 1]) >= 0 else -1
        else:
            sign = 1 if direction == "increasing" else -1
        n_classes = rows["label"].nunique()
        axes[str(experiment)] = Axis(tuple(ordered), tuple(kept[c] for c in ordered), chosen, sign,
                                     tuple(c for c in conditions if c not in kept),
                                     float(1.0 / max(n_classes, 1)) if guess is None else float(guess))
    return axes
