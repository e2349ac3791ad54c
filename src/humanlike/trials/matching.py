"""Items that match nobody: the one check every measure's trials pass (through
:func:`humanlike.trials.schema.validate_trials`).

The measures compare observers on the trials they share, an item of one condition of one experiment. Two
faults of item ids change numbers without an error, so they are said:

- an observer whose items in a condition match no other observer's there shares no trial in that condition:
  its pairs there are undefined, and every mean over conditions silently skips the condition;
- an item id filed under two conditions of an experiment is one stimulus in two conditions for the measures
  that key by item (a stimulus's regime, a class's items), and two for those that key by condition.
"""

from __future__ import annotations

import warnings

import pandas as pd

# How many examples a message names.
_SHOWN = 3


def _names(values) -> str:
    values = sorted(map(str, values))
    shown = ", ".join(f"'{v}'" for v in values[:_SHOWN])
    return shown + (f" and {len(values) - _SHOWN} more" if len(values) > _SHOWN else "")


def item_matching_problems(trials: pd.DataFrame) -> list[str]:
    """What is wrong with the item ids of a trial table, one message per fault (none: an empty list).

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (``observer``, ``experiment``, ``condition``, ``item`` as strings).

    Returns
    -------
    list of str
        Per experiment, the items filed under two or more conditions (the count, an example, its conditions and
        observers); per experiment and condition, each observer whose items match no other observer's there
        (the observer, the condition and the count). A condition only one observer answered is not one of these.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["h", "m", "h", "m"], "experiment": "e", "condition": ["0", "0", "1", "1"],
    ...                   "item": ["a", "a", "b", "x"]})
    >>> for message in item_matching_problems(t):
    ...     print(message)
    experiment 'e', condition '1': observer 'h' shares none of its 1 item with another observer there (e.g. 'b'), so its pairs there are undefined and its means over conditions skip this one: check the item ids
    experiment 'e', condition '1': observer 'm' shares none of its 1 item with another observer there (e.g. 'x'), so its pairs there are undefined and its means over conditions skip this one: check the item ids
    >>> item_matching_problems(t.assign(item=["a", "a", "a", "a"]))[0]
    "experiment 'e': 1 item filed under 2 conditions (e.g. item 'a' under '0', '1', answered by 'h', 'm'); an item id names one stimulus in one condition: give each condition's items their own ids"
    """
    messages = []
    cells = trials[["experiment", "condition", "item", "observer"]].drop_duplicates()
    conditions = cells.drop_duplicates(["experiment", "condition", "item"]).groupby(
        ["experiment", "item"], sort=True, observed=True)["condition"].nunique()
    for experiment, per_item in conditions[conditions > 1].groupby(level="experiment", sort=True):
        item = per_item.index.get_level_values("item")[0]
        example = cells[(cells["experiment"] == experiment) & (cells["item"] == item)]
        messages.append(
            f"experiment '{experiment}': {len(per_item)} item{'s' if len(per_item) > 1 else ''} filed under "
            f"{int(per_item.max())} conditions (e.g. item '{item}' under {_names(example['condition'].unique())}, "
            f"answered by {_names(example['observer'].unique())}); an item id names one stimulus in one "
            "condition: give each condition's items their own ids")
    shared = cells.groupby(["experiment", "condition", "item"], sort=False, observed=True)["observer"].transform("size")
    observers = cells.groupby(["experiment", "condition"], sort=False, observed=True)["observer"].transform("nunique")
    cells = cells.assign(alone=(shared.to_numpy() == 1) & (observers.to_numpy() > 1))
    counts = cells.groupby(["experiment", "condition", "observer"], sort=True, observed=True)["alone"].agg(
        ["sum", "size"])
    for (experiment, condition, observer), row in counts[(counts["sum"] == counts["size"])
                                                          & (counts["sum"] > 0)].iterrows():
        mine = cells[(cells["experiment"] == experiment) & (cells["condition"] == condition)
                     & (cells["observer"] == observer)]["item"]
        n = int(row["size"])
        messages.append(
            f"experiment '{experiment}', condition '{condition}': observer '{observer}' shares none of its {n} "
            f"item{'s' if n > 1 else ''} with another observer there (e.g. {_names(mine.unique())}), so its pairs "
            "there are undefined and its means over conditions skip this one: check the item ids")
    return messages


def warn_item_matching(trials: pd.DataFrame, stacklevel: int = 3) -> None:
    """Warn (``UserWarning``) once per fault :func:`item_matching_problems` finds.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    stacklevel : int
        Passed to :func:`warnings.warn`.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["h", "m"], "experiment": "e", "condition": "0", "item": ["a", "b"]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_item_matching(t)
    >>> len(caught)
    2
    """
    for message in item_matching_problems(trials):
        warnings.warn(message, UserWarning, stacklevel=stacklevel)

