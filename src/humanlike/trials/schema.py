"""The trial table: humanlike's one data model.

One row per response, long format. Every loader produces it, every analysis consumes it, and
:func:`validate_trials` is the single gate on the way in.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .matching import warn_item_matching
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

# A decimal number as a lab file spells it: 0, 0.00, .5, -3, 1e-3, inf (not hex, not 1_000).
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_INFINITY = {"inf": "inf", "+inf": "inf", "infinity": "inf", "+infinity": "inf", "-inf": "-inf", "-infinity": "-inf"}


def clean_name(text: str) -> str:
    """A name as humanlike compares it: Unicode NFC, without format characters (zero-width spaces, byte-order
    marks, soft hyphens, direction marks), stripped.

    Parameters
    ----------
    text : str
        An observer, experiment, condition, item or label name.

    Returns
    -------
    str

    Examples
    --------
    >>> clean_name("subject\u200b-01"), clean_name("Jose\u0301") == "Jos\u00e9"
    ('subject-01', True)
    """
    text = str(text)
    if text.isascii():
        return text.strip()
    kept = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFC", kept).strip()


def number_spelling(text) -> str | None:
    """The canonical spelling of a label that spells a number (``0.00``, ``0.0`` and ``0`` are ``"0"``), else None.

    Condition labels are text, but pandas rewrites numbers it reads (``0.90`` becomes ``0.9``, ``0`` becomes
    ``0.0``): labels that spell the same number are the same condition (docs/formats.md).

    Parameters
    ----------
    text : str
        A label.

    Returns
    -------
    str or None
        The shortest plain spelling of the number (no exponent, no trailing zeros), ``"inf"``/``"-inf"``; None
        when ``text`` is not a number.

    Examples
    --------
    >>> [number_spelling(x) for x in ("0.00", "0.0", "0", "0.90", "40", "4e1", "inf", "c100", "1-10-10")]
    ['0', '0', '0', '0.9', '40', '40', 'inf', None, None]
    """
    from decimal import Decimal

    text = str(text).strip()
    if text.lower() in _INFINITY:
        return _INFINITY[text.lower()]
    if not _NUMBER.match(text):
        return None
    value = Decimal(text)
    if value == 0:
        return "0"
    spelled = format(value.normalize(), "f")
    return spelled.rstrip("0").rstrip(".") if "." in spelled else spelled


def condition_key(text) -> str:
    """What two condition labels must share to name the same condition: the number they spell, else the
    label case-folded (``"0.00"`` and ``"0.0"`` match, so do ``"BW"`` and ``"bw"``).

    Parameters
    ----------
    text : str
        A condition label.

    Returns
    -------
    str

    Examples
    --------
    >>> condition_key("0.90") == condition_key("0.9"), condition_key("C100")
    (True, 'c100')
    """
    number = number_spelling(text)
    return number if number is not None else unicodedata.normalize("NFC", str(text).strip()).casefold()


def stream_label(label):
    """A stratum key's part as its random stream is named: a label that spells a number in that number's
    canonical spelling (:func:`number_spelling`: ``0.00``, ``0.0`` and ``0`` are ``"0"``), anything else as is.

    pandas re-spells the numbers it reads (``0.90`` becomes ``0.9``, ``0`` becomes ``0.0``); a stream named by
    the number rather than by its spelling makes the intervals of a re-saved table its raw folder's, bit for
    bit (docs/uncertainty.md). Labels that are not numbers (``c100``, ``BW``), and parts that are not strings
    (a block index), keep their stream.

    Parameters
    ----------
    label : str or object
        One part of a stratum key (an experiment, a condition, ...).

    Returns
    -------
    str or object

    Examples
    --------
    >>> [stream_label(x) for x in ("0.00", "0.0", "0", "0.90", "40", "c100", "BW", 3)]
    ['0', '0', '0', '0.9', '40', 'c100', 'BW', 3]
    """
    if not isinstance(label, str):
        return label
    number = number_spelling(label)
    return label if number is None else number


def match_conditions(present: Iterable[str], wanted: Iterable[str]) -> dict[str, list[str]]:
    """The conditions of ``present`` each label of ``wanted`` names (see :func:`condition_key`).

    Parameters
    ----------
    present : iterable of str
        The condition labels of the data (of one experiment).
    wanted : iterable of str
        Labels given by the user or a built-in table (exclusions, reference conditions, a filter).

    Returns
    -------
    dict of str to list of str
        ``{wanted label: [data labels it names]}``; an empty list where it names nothing.

    Examples
    --------
    >>> match_conditions(["0.0", "0.6", "0.03"], ["0.00", "0.60", "0.5"])
    {'0.00': ['0.0'], '0.60': ['0.6'], '0.5': []}
    """
    by_key: dict[str, list[str]] = {}
    for label in dict.fromkeys(str(p) for p in present):
        by_key.setdefault(condition_key(label), []).append(label)
    return {str(w): list(by_key.get(condition_key(w), [])) for w in wanted}


def condition_mask(conditions: pd.Series, label) -> np.ndarray:
    """Rows whose condition is the one ``label`` names (by :func:`condition_key`: ``0.9`` selects ``0.90``).

    Parameters
    ----------
    conditions : pandas.Series of str
        The ``condition`` column.
    label : str
        The condition asked for.

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> condition_mask(pd.Series(["0.90", "0.9", "c100"]), "0.900").tolist()
    [True, True, False]
    """
    codes, uniques = pd.factorize(conditions.astype(str))
    wanted = condition_key(label)
    hits = np.array([condition_key(u) == wanted for u in uniques], dtype=bool)
    return hits[codes] if len(uniques) else np.zeros(len(conditions), dtype=bool)


def warn_unmatched(kind: str, experiment: str, unmatched: Sequence[str], present: Iterable[str]) -> None:
    """Warn that ``kind`` (e.g. ``"exclusion"``) names conditions of ``experiment`` that are not in the data.

    Parameters
    ----------
    kind : str
        What names them, for the message.
    experiment : str
        The experiment.
    unmatched : sequence of str
        The labels that named nothing.
    present : iterable of str
        The experiment's conditions in the data (listed in the message).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_unmatched("exclusion", "noise", ["0.5"], ["0.0", "0.1"])
    >>> str(caught[0].message)
    "exclusion condition(s) ['0.5'] of experiment 'noise' name nothing in the data (its conditions: ['0.0', '0.1'])"
    """
    if unmatched:
        warnings.warn(f"{kind} condition(s) {list(unmatched)} of experiment '{experiment}' name nothing in the data "
                      f"(its conditions: {sorted(set(map(str, present)))})", UserWarning, stacklevel=3)


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
    for name in _STRING_COLUMNS:
        if pd.api.types.is_float_dtype(out[name]):
            raise TrialTableError(
                f"column '{name}' holds floating-point numbers ({out[name].dtype}); it is a label, and "
                f"numbers lose their spelling (0.90 becomes '0.9'): store '{name}' as strings"
            )
        out[name] = out[name].astype(str)
    for name in _STRING_COLUMNS:
        out[name] = _clean_column(out[name], name)
        blank = (out[name] == "").to_numpy()
        if blank.any():
            hint = f" (write '{NO_ANSWER}' for no answer)" if name == "response" else ""
            raise TrialTableError(f"column '{name}' has blank cells{hint} in {_describe(out, blank)}")

    out["condition"] = _unify_condition_spellings(out)

    kinds = set(out["observer_kind"].unique())
    unknown = kinds - set(OBSERVER_KINDS)
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
    _warn_case_only(out, "observer", "observers")
    _warn_case_only(out, "experiment", "experiments")
    per_observer = out.groupby("observer")["observer_kind"].nunique()
    if (per_observer > 1).any():
        raise TrialTableError(
            f"observer(s) {sorted(per_observer[per_observer > 1].index)} are listed as both human and model"
        )

    correct = out["correct"]
    if correct.dtype != bool:
        as_str = correct.astype(str).str.strip().str.lower()
        mapping = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}
        bad = ~as_str.isin(list(mapping))
        if bad.any():
            raise TrialTableError(f"column 'correct' must be boolean (or 0/1); bad values in {_describe(out, bad.to_numpy())}")
        out["correct"] = as_str.map(mapping).astype(bool)
    mismatch = (out["correct"] != (out["response"] == out["label"])).to_numpy()
    if mismatch.any():
        raise TrialTableError(f"column 'correct' disagrees with response == label in {_describe(out, mismatch)}")

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

    key = ["observer", "experiment", "condition", "item"] + (["repeat"] if "repeat" in out else [])
    dup = out.duplicated(key, keep=False).to_numpy()
    if dup.any():
        hint = "" if "repeat" in out else " without a 'repeat' column to tell the presentations apart"
        raise TrialTableError(f"an observer answers the same item more than once{hint}: {_describe(out, dup)}")

    _check_item_labels(out)
    if check_labels:
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

    if "decision_margin" in out:
        margin = out["decision_margin"].to_numpy()
        known = ~np.isnan(margin)
        disagree = known & ((margin > 0) != out["correct"].to_numpy())
        if disagree.any():
            raise TrialTableError(
                "column 'decision_margin' disagrees with 'correct' (margin > 0 must mean correct) in "
                + _describe(out, disagree)
            )

    warn_item_matching(out, stacklevel=3)   # every measure's trials pass here: items that match nobody are said
    order = [c.name for c in COLUMNS if c.name in out.columns]
    extra = [c for c in out.columns if c not in order]
    return out[order + extra].reset_index(drop=True)


def _clean_column(column: pd.Series, name: str) -> pd.Series:
    """:func:`clean_name` on every distinct value; a warning names spellings that differ only invisibly."""
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    originals = [str(u) for u in uniques]
    cleaned = [clean_name(u) for u in originals]
    if cleaned == originals:
        return column
    variants: dict[str, list[str]] = {}
    for original, clean in zip(originals, cleaned):
        variants.setdefault(clean, []).append(original)
    for clean, spellings in variants.items():
        if len(spellings) > 1 and any(v.strip() != clean for v in spellings):   # more than surrounding blanks
            warnings.warn(f"column '{name}': {sorted(ascii(v) for v in spellings)} differ only by invisible "
                          f"characters or Unicode normalisation; read as one name {ascii(clean)}",
                          UserWarning, stacklevel=4)
    return pd.Series(np.asarray(cleaned, dtype=object)[codes], index=column.index, dtype=column.dtype)


def _warn_case_only(out: pd.DataFrame, name: str, what: str) -> None:
    """Warn where names of ``name`` differ only by case (``Subject-01``, ``subject-01``): kept apart, but said."""
    by_fold: dict[str, list[str]] = {}
    for value in out[name].unique():
        by_fold.setdefault(str(value).casefold(), []).append(str(value))
    for variants in by_fold.values():
        if len(variants) > 1:
            warnings.warn(f"{what} {sorted(variants)} differ only by case: they are kept apart; rename one if they "
                          "are the same", UserWarning, stacklevel=4)


def _unify_condition_spellings(out: pd.DataFrame) -> pd.Series:
    """Conditions of one experiment that name the same condition (:func:`condition_key`: ``0.00`` and ``0.0``,
    ``false`` and the ``False`` pandas writes) become one label.

    The label kept is the one on most rows (ties: the longest, then the first in sorted order), so a raw folder
    with one model file re-saved by pandas keeps the raw spelling; a warning names the spellings merged.
    """
    counts = out.groupby(["experiment", "condition"], sort=True).size()
    rename: dict[tuple[str, str], str] = {}
    for experiment, per in counts.groupby(level=0, sort=True):
        labels = per.droplevel(0)
        groups: dict[str, list[str]] = {}
        for label in labels.index:
            groups.setdefault(condition_key(label), []).append(label)
        for spellings in groups.values():
            if len(spellings) < 2:
                continue
            kept = sorted(spellings, key=lambda x: (-labels[x], -len(x), x))[0]
            how = "spell the same number" if number_spelling(kept) is not None else "differ only by case"
            warnings.warn(f"experiment '{experiment}': conditions {sorted(spellings)} {how}; "
                          f"read as one condition '{kept}'", UserWarning, stacklevel=3)
            rename.update({(experiment, label): kept for label in spellings if label != kept})
    if not rename:
        return out["condition"]
    condition = out["condition"].copy()
    for (experiment, label), kept in rename.items():
        condition[(out["experiment"] == experiment) & (out["condition"] == label)] = kept
    return condition


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
