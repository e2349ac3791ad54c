"""Which trials a measure compares: the model-vs-human benchmark's exclusions, first presentations, filters.

The exclusion table is a fact of the model-vs-human benchmark (the condition strings of its raw data).
"""

from __future__ import annotations

import pandas as pd

from .names import condition_mask, match_conditions, warn_unmatched
from .schema import TrialTableError, first_presentations, validate_trials

# The model-vs-human benchmark's excluded conditions, as the condition strings of its raw data
# (docs/measures/error-consistency.md). Experiments not listed keep every condition; the five single-condition experiments
# (cue-conflict, edge, silhouette, sketch, stylized) use all their trials as one condition.
MODELVSHUMAN_EXCLUSIONS: dict[str, tuple[str, ...]] = {
    "colour": ("cr",),
    "contrast": ("c100", "c03", "c01"),
    "high-pass": ("inf", "0.55", "0.45", "0.4"),
    "low-pass": ("0", "15", "40"),
    "phase-scrambling": ("0", "150", "180"),
    "power-equalisation": ("0",),
    "false-colour": ("true",),
    "rotation": ("0",),
    "eidolonI": ("1-10-10", "64-10-10", "128-10-10"),
    "eidolonII": ("1-3-10", "32-3-10", "64-3-10", "128-3-10"),
    "eidolonIII": ("1-0-10", "16-0-10", "32-0-10", "64-0-10", "128-0-10"),
    "uniform-noise": ("0.00", "0.60", "0.90"),
}


def exclusions_table(exclusions: dict[str, tuple[str, ...]] = MODELVSHUMAN_EXCLUSIONS) -> pd.DataFrame:
    """The exclusion table as a tidy frame (experiment, condition).

    Parameters
    ----------
    exclusions : dict of str to tuple of str
        ``{experiment: excluded conditions}``; default the model-vs-human benchmark's table.

    Returns
    -------
    pandas.DataFrame
        One row per excluded (experiment, condition).

    Examples
    --------
    >>> exclusions_table().head(2).values.tolist()
    [['colour', 'cr'], ['contrast', 'c100']]
    >>> len(exclusions_table({"sim-noise": ("0.00", "0.35")}))
    2
    """
    return pd.DataFrame([(e, c) for e, conds in exclusions.items() for c in conds],
                        columns=["experiment", "condition"])


def apply_exclusions(trials: pd.DataFrame, exclusions: dict[str, tuple[str, ...]] | None) -> pd.DataFrame:
    """Drop excluded (experiment, condition) rows; conditions match by the number they spell (``0.00`` names
    ``0.0``), else case-insensitively (:func:`humanlike.trials.names.condition_key`).

    An excluded condition that names nothing in an experiment of the data is reported with a warning (an
    experiment absent from the data is not).

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    exclusions : dict of str to tuple of str, or None
        ``{experiment: excluded conditions}``; None or empty keeps every row.

    Returns
    -------
    pandas.DataFrame
        The remaining rows (the input itself when nothing is excluded).

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> len(trials), len(apply_exclusions(trials, {"sim-noise": ("0.00",)}))  # 11 observers x 160 items dropped
    (28160, 26400)
    >>> len(apply_exclusions(trials, {"sim-noise": ("0",)}))  # the same condition, spelled as pandas writes it
    26400
    """
    if not exclusions:
        return trials
    present = trials[["experiment", "condition"]].drop_duplicates()
    conditions_of = present.groupby("experiment", sort=False)["condition"].agg(list).to_dict()
    drop_pairs = []
    for experiment, excluded in exclusions.items():
        if experiment not in conditions_of:
            continue
        matched = match_conditions(conditions_of[experiment], excluded)
        warn_unmatched("exclusion", experiment, [c for c, hits in matched.items() if not hits],
                       conditions_of[experiment])
        drop_pairs += [(experiment, c) for hits in matched.values() for c in hits]
    if not drop_pairs:
        return trials
    drop = pd.MultiIndex.from_frame(trials[["experiment", "condition"]]).isin(drop_pairs)
    return trials.loc[~drop]


def select_trials(trials: pd.DataFrame, *, experiments: list[str] | None = None, condition: str | None = None,
                  exclusions: dict[str, tuple[str, ...]] | None = None, validate: bool = True) -> pd.DataFrame:
    """The first presentations EC compares, after the exclusions and the experiment/condition filters.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    experiments : list of str, optional
        Keep only these experiments.
    condition : str, optional
        Keep only this condition (compared as a string).
    exclusions : dict of str to tuple of str, optional
        ``{experiment: conditions}`` to drop (see :func:`apply_exclusions`).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    pandas.DataFrame
        The selected first-presentation trials.

    Raises
    ------
    TrialTableError
        On an unknown experiment or condition, or when no trial is left.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> selected = select_trials(trials, experiments=["sim-noise"], condition="0.10")
    >>> len(selected), selected["observer"].nunique()  # 160 items x 11 observers
    (1760, 11)
    """
    if validate:
        trials = validate_trials(trials)
    # EC compares single responses: the first presentation of each item.
    trials = first_presentations(trials)
    before_exclusions = trials
    trials = apply_exclusions(trials, exclusions)
    if experiments is not None:
        unknown = sorted(set(experiments) - set(trials["experiment"]))
        if unknown:
            raise TrialTableError(f"unknown experiment(s) {unknown}; available: {sorted(trials['experiment'].unique())}")
        trials = trials[trials["experiment"].isin(experiments)]
        before_exclusions = before_exclusions[before_exclusions["experiment"].isin(experiments)]
    if condition is not None:
        trials = pick_condition(trials, condition, before_exclusions)
    if trials.empty:
        raise TrialTableError("no trials left after the exclusions and filters")
    return trials


def pick_condition(trials: pd.DataFrame, condition: str, before_exclusions: pd.DataFrame | None = None) -> pd.DataFrame:
    """The trials of one condition; a condition that is absent says whether the exclusions removed it.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trials after the exclusions.
    condition : str
        The condition asked for (compared as :func:`humanlike.trials.names.condition_mask` does).
    before_exclusions : pandas.DataFrame, optional
        The same trials before the exclusions, to tell "excluded" from "not in the data".

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    TrialTableError
        When no trial has the condition: naming the exclusions (and ``--no-exclusions``) when they removed it,
        else the conditions there are.

    Examples
    --------
    >>> t = pd.DataFrame({"experiment": "noise", "condition": ["0.00", "0.90"], "item": ["a", "b"]})
    >>> try:
    ...     pick_condition(t[t["condition"] == "0.00"], "0.9", before_exclusions=t)
    ... except TrialTableError as err:
    ...     print(err)
    condition '0.9' is removed by the exclusions (experiment 'noise'); to analyse it, turn them off (--no-exclusions; exclusions=None in Python)
    """
    chosen = condition_mask(trials["condition"], condition)
    if chosen.any():
        return trials[chosen]
    if before_exclusions is not None:
        excluded = before_exclusions[condition_mask(before_exclusions["condition"], condition)]
        if len(excluded):
            names = ", ".join(f"'{e}'" for e in sorted(excluded["experiment"].unique()))
            raise TrialTableError(f"condition '{condition}' is removed by the exclusions (experiment {names}); to "
                                  "analyse it, turn them off (--no-exclusions; exclusions=None in Python)")
    raise TrialTableError(f"condition '{condition}' not found; available: {sorted(trials['condition'].unique())}")


