"""What a study's design gave: how many trials each participant answered, how many participants answered each
trial, and how many pairs of participants share how many trials (what error consistency between two
participants rests on: a pair that shares no trial has no error consistency).

``humanlike export`` writes it as ``design.json`` beside the exported table; docs/run-your-own-experiment.md#designs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The columns that name one trial (a unit two participants can share) of each table.
CLASSIFY_UNIT = ("experiment", "condition", "item")
JUDGEMENT_UNIT = ("scale", "s1", "s2", "s3", "s4")


def _counts(values: np.ndarray) -> dict[str, int]:
    """{value: how often} with string keys (JSON), sorted by value."""
    found, counts = np.unique(values, return_counts=True)
    return {str(int(v)): int(c) for v, c in zip(found, counts)}


def design_report(table: pd.DataFrame, design: str = "", trials_per_participant: int = 0) -> dict:
    """The design a study's responses show.

    Parameters
    ----------
    table : pandas.DataFrame
        The exported trial table (classification) or difference-judgement table (triads, quads).
    design : str
        The study's ``design`` key (recorded as given).
    trials_per_participant : int
        The study's key of that name (recorded as given).

    Returns
    -------
    dict
        ``design``, ``trials_per_participant``, ``participants``, ``units`` (distinct trials answered),
        ``trials_per_participant_answered`` and ``participants_per_unit`` ({count: how many}),
        ``pairs``, ``pairs_sharing`` ({shared trials: how many pairs}) and ``pairs_sharing_none``.

    Examples
    --------
    Three participants: the first two share one item, the third shares none with either.

    >>> table = pd.DataFrame({"observer": ["a", "a", "b", "b", "c"], "experiment": "e", "condition": "0",
    ...                       "item": ["x", "y", "y", "z", "w"]})
    >>> report = design_report(table, "subset", 2)
    >>> report["pairs"], report["pairs_sharing"], report["pairs_sharing_none"]
    (3, {'0': 2, '1': 1}, 2)
    """
    unit_columns = [c for c in (CLASSIFY_UNIT if "item" in table else JUDGEMENT_UNIT) if c in table]
    unit_codes = table.groupby(unit_columns, sort=True, dropna=False).ngroup().to_numpy()
    n_units = int(unit_codes.max()) + 1 if len(unit_codes) else 0
    observer_codes, observers = pd.factorize(table["observer"].astype(str), sort=True)
    incidence = np.zeros((len(observers), n_units))
    incidence[observer_codes, unit_codes] = 1.0          # a repeated trial is shared once
    shared = incidence @ incidence.T
    first, second = np.triu_indices(len(observers), k=1)
    pair_counts = shared[first, second].astype(np.int64)
    return {
        "design": design, "trials_per_participant": int(trials_per_participant),
        "participants": int(len(observers)), "units": int(n_units),
        "trials_per_participant_answered": _counts(np.bincount(observer_codes, minlength=len(observers))),
        "participants_per_unit": _counts(incidence.sum(axis=0).astype(np.int64)),
        "pairs": int(pair_counts.size), "pairs_sharing": _counts(pair_counts),
        "pairs_sharing_none": int((pair_counts == 0).sum()),
    }


def describe_design(report: dict) -> str:
    """One line summarising :func:`design_report` (what ``humanlike export`` prints).

    Parameters
    ----------
    report : dict
        :func:`design_report`.

    Returns
    -------
    str

    Examples
    --------
    >>> table = pd.DataFrame({"observer": ["a", "a", "b", "b"], "experiment": "e", "condition": "0",
    ...                       "item": ["x", "y", "y", "z"]})
    >>> describe_design(design_report(table, "subset", 2))
    'design subset: 2 participant(s), 3 distinct trial(s); 1 pair(s), sharing 1 trial(s) at the median, 0 sharing none'
    """
    pairs = report["pairs_sharing"]
    counts = np.repeat([int(k) for k in pairs], list(pairs.values()))
    median = f"{float(np.median(counts)):g}" if counts.size else "n/a"
    return (f"design {report['design'] or 'unstated'}: {report['participants']} participant(s), {report['units']} "
            f"distinct trial(s); {report['pairs']} pair(s), sharing {median} trial(s) at the median, "
            f"{report['pairs_sharing_none']} sharing none")
