"""The trial table: humanlike's one data model.

One row per response, long format. Every loader produces it, every analysis consumes it, and
:func:`validate_trials` is the single gate on the way in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .matching import warn_item_matching
from .names import cleaned_names, unified_condition_spellings, warn_case_only_variants
from .summary_rows import SUMMARY_ROWS

OBSERVER_KINDS = ("human", "model")
NO_ANSWER = "na"

#: The 16 categories of the model-vs-human benchmark: the default label set of 16-choice data.
CLASSES_16: tuple[str, ...] = (
    "airplane", "bear", "bicycle", "bird", "boat", "bottle", "car", "cat",
    "chair", "clock", "dog", "elephant", "keyboard", "knife", "oven", "truck",
)  # fmt: skip


@dataclass(frozen=True)
class Column:
    """One column of the trial table: its name, whether it is required, its kind and its meaning.

    Attributes
    ----------
    name : str
        Column name.
    required : bool
        Whether every trial table has it.
    kind : str
        ``"str"``, ``"bool"``, ``"float"`` or ``"int"``.
    meaning : str
        One line on what it holds.

    Examples
    --------
    >>> [c.name for c in COLUMNS if c.required]
    ['observer', 'observer_kind', 'experiment', 'condition', 'item', 'label', 'response', 'correct']
    >>> COLUMNS[-1]
    Column(name='rt', required=False, kind='float', meaning='reaction time in seconds (NaN allowed)')
    """

    name: str
    required: bool
    kind: str  # "str", "bool", "float", "int"
    meaning: str


COLUMNS: tuple[Column, ...] = (
    Column("observer", True, "str", "observer id, e.g. 'subject-01' or 'resnet50'"),
    Column("observer_kind", True, "str", "'human' or 'model'"),
    Column("experiment", True, "str", "experiment / data set name"),
    Column("condition", True, "str", "condition (distortion level), always a string"),
    Column("item", True, "str", "stimulus id, the same for every observer who saw that stimulus"),
    Column("label", True, "str", "true class"),
    Column("response", True, "str", "chosen class; 'na' (no answer) counts as wrong"),
    Column("correct", True, "bool", "response == label"),
    Column("decision_margin", False, "float", "signed decision margin, > 0 exactly when correct"),
    Column("repeat", False, "int", "0-based presentation index of a repeated item"),
    Column("trial", False, "int", "trial number within the session"),
    Column("rt", False, "float", "reaction time in seconds (NaN allowed)"),
)
REQUIRED = tuple(c.name for c in COLUMNS if c.required)
OPTIONAL = tuple(c.name for c in COLUMNS if not c.required)
_STRING_COLUMNS = ("observer", "observer_kind", "experiment", "condition", "item", "label", "response")
# Optional columns that may legitimately hold NaN (rt of a model, margin of a human).
_NAN_ALLOWED = ("decision_margin", "rt")


#: The names of the summary rows the measures write (:data:`humanlike.trials.summary_rows.SUMMARY_ROWS`): no
#: observer may take one (compared case-insensitively), or its rows would be read as the summary's.
RESERVED_OBSERVER_NAMES: frozenset[str] = frozenset(SUMMARY_ROWS)

class TrialTableError(ValueError):
    """A trial table (or a file meant to become one) is malformed; the message names what is wrong.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> validate_trials(pd.DataFrame({"observer": ["s1"]}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.trials.schema.TrialTableError: trial table is missing required column(s) ['observer_kind', ...
    """


def _describe(frame: pd.DataFrame, mask: np.ndarray, limit: int = 3) -> str:
    rows = frame.loc[mask, [c for c in ("observer", "experiment", "condition", "item") if c in frame]]
    examples = "; ".join(", ".join(f"{k}={v}" for k, v in row.items()) for _, row in rows.head(limit).iterrows())
    return f"{int(mask.sum())} row(s), e.g. {examples}"


def validate_trials(frame: pd.DataFrame, *, check_labels: bool = True,
                    labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Check a trial table and return a normalised copy (canonical dtypes and column order).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per response with the columns of :data:`COLUMNS`.
    check_labels : bool
        Check responses (and labels) against the label set.
    labels : sequence of str, optional
        The task's label set (the classes an observer could answer). ``None``: the labels that occur in
        each experiment, extended by the benchmark's 16 categories (:data:`CLASSES_16`) when all of them
        are among those, so 16-choice data whose items cover only some classes is valid.

    Returns
    -------
    pandas.DataFrame
        A normalised copy.

    Raises
    ------
    TrialTableError
        Naming the column, observer, condition or item at fault, for: missing required columns; unknown
        observer kinds; NaN or blank cells in a required column; a string column stored as floating-point
        numbers (``0.90`` would become ``"0.9"``: store strings); ``correct`` that disagrees with
        ``response == label``; an observer answering the same item twice without a distinguishing
        ``repeat``; an item with different labels (for different observers or conditions); responses
        outside the label set (``'na'`` aside); a decision margin whose sign disagrees with correctness.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"observer": ["s1", "s1"], "observer_kind": "human", "experiment": "e",
    ...                   "condition": "0", "item": ["i1", "i2"], "label": ["cat", "dog"],
    ...                   "response": ["cat", "bear"], "correct": [True, False]})
    >>> len(validate_trials(t))
    2
    """
    out = _copy_with_required_columns(frame)
    for name in _STRING_COLUMNS:
        out[name] = _as_strings(out[name], name)
    for name in _STRING_COLUMNS:   # warnings name the caller's line: called from here, not from a helper
        out[name] = cleaned_names(out[name], name)
        _check_no_blank(out, name)
    out["condition"] = unified_condition_spellings(out)
    _check_observer_kinds(out)
    warn_case_only_variants(out, "observer", "observers")
    warn_case_only_variants(out, "experiment", "experiments")
    _check_one_kind_per_observer(out)
    out["correct"] = _correct_as_bool(out)
    _read_numeric_columns(out)
    _check_presentations_unique(out)
    _check_item_labels(out)
    if check_labels:
        _check_responses_in_label_set(out, labels)
    _check_margins_agree(out)
    warn_item_matching(out, stacklevel=3)   # every measure's trials pass here: items that match nobody are said
    order = [c.name for c in COLUMNS if c.name in out.columns]
    extra = [c for c in out.columns if c not in order]
    return out[order + extra].reset_index(drop=True)


def _copy_with_required_columns(frame) -> pd.DataFrame:
    """A copy of ``frame``; refused when it is no table, lacks a required column, has no rows or a NaN in one."""
    if not isinstance(frame, pd.DataFrame):
        raise TrialTableError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise TrialTableError(f"trial table is missing required column(s) {missing}; required: {list(REQUIRED)}")
    if len(frame) == 0:
        raise TrialTableError("trial table has no rows")
    out = frame.copy()
    for name in REQUIRED:
        nan = out[name].isna().to_numpy()
        if nan.any():
            raise TrialTableError(f"column '{name}' has NaN in {_describe(out, nan)}")
    return out


def _as_strings(column: pd.Series, name: str) -> pd.Series:
    """A name column as strings; floating-point numbers are refused (they lose their spelling)."""
    if pd.api.types.is_float_dtype(column):
        raise TrialTableError(
            f"column '{name}' holds floating-point numbers ({column.dtype}); it is a label, and "
            f"numbers lose their spelling (0.90 becomes '0.9'): store '{name}' as strings"
        )
    return column.astype(str)


def _check_no_blank(out: pd.DataFrame, name: str) -> None:
    blank = (out[name] == "").to_numpy()
    if blank.any():
        hint = f" (write '{NO_ANSWER}' for no answer)" if name == "response" else ""
        raise TrialTableError(f"column '{name}' has blank cells{hint} in {_describe(out, blank)}")


def _check_observer_kinds(out: pd.DataFrame) -> None:
    """Every observer is a human or a model, and none takes a summary row's name."""
    unknown = set(out["observer_kind"].unique()) - set(OBSERVER_KINDS)
    if unknown:
        bad = out["observer_kind"].isin(unknown).to_numpy()
        raise TrialTableError(
            f"column 'observer_kind' has unknown value(s) {sorted(unknown)} (allowed: {list(OBSERVER_KINDS)}) in "
            + _describe(out, bad)
        )
    reserved = sorted(o for o in out["observer"].unique() if o.casefold() in RESERVED_OBSERVER_NAMES)
    if reserved:
        raise TrialTableError(
            f"observer '{reserved[0]}' has a reserved name: {sorted(RESERVED_OBSERVER_NAMES)} label the summary "
            f"rows the analyses report ({'; '.join(f'{k}: {v}' for k, v in SUMMARY_ROWS.items())}); rename the "
            "observer")


def _check_one_kind_per_observer(out: pd.DataFrame) -> None:
    per_observer = out.groupby("observer")["observer_kind"].nunique()
    if (per_observer > 1).any():
        raise TrialTableError(
            f"observer(s) {sorted(per_observer[per_observer > 1].index)} are listed as both human and model"
        )


def _correct_as_bool(out: pd.DataFrame) -> pd.Series:
    """``correct`` as booleans (``True``/``False``, ``1``/``0`` as text too); it must equal response == label."""
    correct = out["correct"]
    if correct.dtype != bool:
        as_str = correct.astype(str).str.strip().str.lower()
        mapping = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}
        bad = ~as_str.isin(list(mapping))
        if bad.any():
            raise TrialTableError("column 'correct' must be boolean (or 0/1); bad values in "
                                  + _describe(out, bad.to_numpy()))
        correct = as_str.map(mapping).astype(bool)
    mismatch = (correct != (out["response"] == out["label"])).to_numpy()
    if mismatch.any():
        raise TrialTableError(f"column 'correct' disagrees with response == label in {_describe(out, mismatch)}")
    return correct


def _read_numeric_columns(out: pd.DataFrame) -> None:
    """``repeat`` as integers, ``trial`` as nullable integers, the columns that may hold NaN as floats; in place."""
    if "repeat" in out:
        if out["repeat"].isna().any():
            raise TrialTableError(f"column 'repeat' has NaN in {_describe(out, out['repeat'].isna().to_numpy())}")
        out["repeat"] = out["repeat"].astype(np.int64)
    if "trial" in out:
        out["trial"] = pd.to_numeric(out["trial"], errors="coerce").astype("Int64")
    for name in _NAN_ALLOWED:
        if name in out:
            try:
                out[name] = pd.to_numeric(out[name], errors="raise").astype(float)
            except (ValueError, TypeError) as err:
                raise TrialTableError(f"column '{name}' must be numeric: {err}") from None


def _check_presentations_unique(out: pd.DataFrame) -> None:
    """An observer answers an item of a condition once, or once per ``repeat``."""
    key = ["observer", "experiment", "condition", "item"] + (["repeat"] if "repeat" in out else [])
    dup = out.duplicated(key, keep=False).to_numpy()
    if dup.any():
        hint = "" if "repeat" in out else " without a 'repeat' column to tell the presentations apart"
        raise TrialTableError(f"an observer answers the same item more than once{hint}: {_describe(out, dup)}")


def _check_responses_in_label_set(out: pd.DataFrame, labels: Sequence[str] | None) -> None:
    """Each experiment's labels are among the declared ones, and its responses among its label set (or ``na``)."""
    declared = None if labels is None else {str(x) for x in labels}
    for experiment, group in out.groupby("experiment", sort=False):
        present = set(group["label"].unique())
        if declared is not None:
            label_set = declared
            bad_label = ~group["label"].isin(declared)
            if bad_label.any():
                raise TrialTableError(
                    f"experiment '{experiment}': label(s) {sorted(group.loc[bad_label, 'label'].unique())[:5]} "
                    f"are outside the declared label set: {_describe(group, bad_label.to_numpy())}"
                )
        else:
            label_set = present | set(CLASSES_16) if present <= set(CLASSES_16) else present
        bad = ~group["response"].isin(label_set | {NO_ANSWER})
        if bad.any():
            wrong = sorted(group.loc[bad, "response"].unique())[:5]
            raise TrialTableError(
                f"experiment '{experiment}': response(s) {wrong} are outside the label set "
                f"{sorted(label_set)} (declare the task's labels: labels=[...] in Python, --labels A B C on "
                f"the command line): "
                f"{_describe(group, bad.to_numpy())}"
            )


def _check_margins_agree(out: pd.DataFrame) -> None:
    """A known decision margin is positive exactly where the response is correct."""
    if "decision_margin" not in out:
        return
    margin = out["decision_margin"].to_numpy()
    known = ~np.isnan(margin)
    disagree = known & ((margin > 0) != out["correct"].to_numpy())
    if disagree.any():
        raise TrialTableError(
            "column 'decision_margin' disagrees with 'correct' (margin > 0 must mean correct) in "
            + _describe(out, disagree)
        )


def _check_item_labels(out: pd.DataFrame) -> None:
    """An item (within an experiment) has one true class: raise naming the first item with several."""
    n_labels = out.groupby(["experiment", "item"], sort=False)["label"].nunique()
    bad = n_labels[n_labels > 1]
    if len(bad):
        experiment, item = bad.index[0]
        rows = out[(out["experiment"] == experiment) & (out["item"] == item)]
        seen = rows.groupby("label")[["observer", "condition"]].first()
        detail = "; ".join(f"'{lab}' (e.g. observer={r.observer}, condition={r.condition})" for lab, r in seen.iterrows())
        raise TrialTableError(
            f"item '{item}' of experiment '{experiment}' has different labels: {detail}"
            + (f" ({len(bad)} such items)" if len(bad) > 1 else "")
        )


#: Columns that identify one stimulus presentation; repeats are numbered within them.
PRESENTATION_KEY = ("observer", "experiment", "condition", "item")


def number_repeats(trials: pd.DataFrame) -> pd.DataFrame:
    """Add (or overwrite) ``repeat``: 0, 1, ... per observer, experiment, condition and item.

    Presentations are numbered in ``trial`` order where that column exists, else in row order. Numbering
    is per experiment: item ids shared by two experiments (edge and silhouette use the same stimulus
    names) are not repeats of each other.

    Parameters
    ----------
    trials : pandas.DataFrame
        A table with the columns of :data:`PRESENTATION_KEY` (and optionally ``trial``).

    Returns
    -------
    pandas.DataFrame
        A copy with an int64 ``repeat`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"observer": "s1", "experiment": ["edge", "silhouette", "edge"],
    ...                   "condition": "0", "item": "x", "trial": [1, 1, 2]})
    >>> number_repeats(t)["repeat"].tolist()
    [0, 0, 1]
    """
    out = trials.copy()
    order = out.sort_values("trial", kind="stable").index if "trial" in out else out.index
    ranks = out.loc[order].groupby(list(PRESENTATION_KEY), sort=False).cumcount()
    out["repeat"] = ranks.reindex(out.index).astype(np.int64)
    return out


def first_presentations(trials: pd.DataFrame) -> pd.DataFrame:
    """Only each observer's first presentation of each item (all rows when there is no ``repeat``).

    "Each item" is per experiment and condition (see :data:`PRESENTATION_KEY`): the same item id in
    another experiment is another stimulus, not a repeat, and is kept.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table, optionally with ``repeat``.

    Returns
    -------
    pandas.DataFrame
        The rows of the lowest ``repeat`` per presentation key (``trials`` itself without ``repeat``).

    Examples
    --------
    >>> t = pd.DataFrame({"observer": "s1", "experiment": ["edge", "edge", "silhouette"], "condition": "0",
    ...                   "item": "x", "repeat": [0, 1, 0], "response": ["cat", "dog", "cat"]})
    >>> first_presentations(t)[["experiment", "response"]].values.tolist()
    [['edge', 'cat'], ['silhouette', 'cat']]
    """
    if "repeat" not in trials:
        return trials
    first = trials.groupby(list(PRESENTATION_KEY))["repeat"].transform("min")
    return trials[trials["repeat"] == first]


def describe_columns() -> pd.DataFrame:
    """The documented columns as a table (used by the README and ``humanlike columns``).

    Returns
    -------
    pandas.DataFrame
        One row per column of :data:`COLUMNS`: ``name``, ``required``, ``kind``, ``meaning``.

    Examples
    --------
    >>> table = describe_columns()
    >>> table.columns.tolist(), int(table["required"].sum()), len(table)
    (['name', 'required', 'kind', 'meaning'], 8, 12)
    """
    return pd.DataFrame([c.__dict__ for c in COLUMNS])
