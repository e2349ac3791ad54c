"""The design of pairwise measures: (experiment, condition) strata of a trial table, humans grouped per
experiment, observers ordered humans first. Error consistency, decision-margin consistency, choice DVC and the OOD
spectrum's error alignment build their pairs on it."""

from __future__ import annotations

import warnings

import pandas as pd

from ...trials.design import Design, build_design
from ...trials.schema import TrialTableError
from .kernels import stratum_correctness


def pair_design(trials: pd.DataFrame) -> Design:
    """The design of (experiment, condition) strata of a selected trial table, humans grouped per experiment.

    Experiments with fewer than two observers are dropped; an observer absent from a whole condition keeps its
    pairs undefined there (NaN), with a warning.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trials as :func:`~humanlike.trials.selection.select_trials` returns them.

    Returns
    -------
    Design
        One stratum per (experiment, condition), observers ordered humans first.

    Raises
    ------
    TrialTableError
        When no experiment has two observers.

    Examples
    --------
    >>> from humanlike.trials.selection import select_trials
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> design = pair_design(select_trials(trials, experiments=["sim-noise"]))
    >>> [stratum.key for stratum in design]
    [('sim-noise', '0.00'), ('sim-noise', '0.10'), ('sim-noise', '0.20'), ('sim-noise', '0.35')]
    """
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), group_kind="human",
                          observer_order="kind", margins=False)
    design = design.select(lambda s: len(s.observers) >= 2)
    if len(design) == 0:
        raise TrialTableError("error consistency needs at least two observers in an experiment")
    for s in design:
        _, observed = stratum_correctness(s)
        absent = [o for o, seen in zip(s.observers, observed.any(axis=0)) if not seen]
        if absent:
            warnings.warn(f"experiment '{s.key[0]}', condition '{s.key[1]}': no responses from {absent}",
                          stacklevel=3)
    return design
