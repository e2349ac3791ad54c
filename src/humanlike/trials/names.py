"""How a name in a trial table is read: one spelling for each observer, experiment, condition, item and label.

Lab files spell one name several ways (an invisible character, a Unicode normalisation, ``0.90`` and ``0.9``,
``False`` and ``false``); :func:`clean_name` and :func:`condition_key` give the one spelling, the rest selects,
matches and unifies conditions by it, and warns where spellings are merged or differ only by case. The trial
table itself (its columns and :func:`humanlike.trials.schema.validate_trials`) is :mod:`humanlike.trials.schema`.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

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


def cleaned_names(column: pd.Series, name: str) -> pd.Series:
    """:func:`clean_name` on every distinct value; a warning names spellings that differ only invisibly.

    Parameters
    ----------
    column : pandas.Series of str
        A name column of the trial table.
    name : str
        Its name, for the warning.

    Returns
    -------
    pandas.Series
        The cleaned names (the column itself where nothing changes).

    Examples
    --------
    >>> cleaned_names(pd.Series([" s1", "s2"]), "observer").tolist()
    ['s1', 's2']
    """
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


def warn_case_only_variants(out: pd.DataFrame, name: str, what: str) -> None:
    """Warn where names of ``name`` differ only by case (``Subject-01``, ``subject-01``): kept apart, but said.

    Parameters
    ----------
    out : pandas.DataFrame
        The table.
    name : str
        The column (``observer``, ``experiment``).
    what : str
        Its values' name in the message (``observers``).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_case_only_variants(pd.DataFrame({"observer": ["S1", "s1"]}), "observer", "observers")
    >>> str(caught[0].message)
    "observers ['S1', 's1'] differ only by case: they are kept apart; rename one if they are the same"
    """
    by_fold: dict[str, list[str]] = {}
    for value in out[name].unique():
        by_fold.setdefault(str(value).casefold(), []).append(str(value))
    for variants in by_fold.values():
        if len(variants) > 1:
            warnings.warn(f"{what} {sorted(variants)} differ only by case: they are kept apart; rename one if they "
                          "are the same", UserWarning, stacklevel=4)


def unified_condition_spellings(out: pd.DataFrame) -> pd.Series:
    """Conditions of one experiment that name the same condition (:func:`condition_key`: ``0.00`` and ``0.0``,
    ``false`` and the ``False`` pandas writes) become one label.

    The label kept is the one on most rows (ties: the longest, then the first in sorted order), so a raw folder
    with one model file re-saved by pandas keeps the raw spelling; a warning names the spellings merged.

    Parameters
    ----------
    out : pandas.DataFrame
        A trial table with ``experiment`` and ``condition`` as strings.

    Returns
    -------
    pandas.Series
        The condition column, one spelling per condition.

    Examples
    --------
    >>> import warnings
    >>> table = pd.DataFrame({"experiment": "e", "condition": ["0.50", "0.50", "0.5"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     unified_condition_spellings(table).tolist()
    ['0.50', '0.50', '0.50']
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
