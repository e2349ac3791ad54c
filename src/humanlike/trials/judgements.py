"""The difference-judgement table: one row per triad or quadruple judgement of a difference-scaling
(MLDS) experiment.

Here: its columns, its validation (:func:`validate_judgements`, :func:`design_levels`), its row orders
(physical, presentation, canonical) and its arrays. Reading files in R MLDS's, the Python wrapper's or the
tidy layout is :mod:`humanlike.trials.judgement_files`.

Columns (in this order; optional ones only where known):

========== ======== ==========================================================================
column     required meaning
========== ======== ==========================================================================
observer   yes      observer id (a person, a network, or a pooled population)
scale      yes      stimulus-sequence id: every row of one scale uses the same physical levels
s1 .. s3   yes      1-based level indices of the stimuli, in *physical* order (see below)
s4         yes      fourth level of a quadruple; missing (``<NA>``) for a triad
response   yes      0/1; 1 = the second pair, (s3, s4) for a quadruple, (s2, s3) for a triad,
                    was judged more different
session    no       file or session the row came from (pooled files keep it)
trial      no       trial number within the session
rt         no       reaction time in seconds
v1 .. v4   no       physical stimulus values of s1 .. s4
reversed   no       True where the row was stored in presentation order and has been put into
                    physical order (pairs swapped or triad reversed, response flipped)
========== ======== ==========================================================================

Physical order: a triad has s1 < s2 < s3; a quadruple has s1 < s2 and s3 < s4 (within-pair ascending)
and its first pair starts no later than its second ends (s1 <= s4). Rows stored the other way round
(R's ``kk1``..``kk3``, the Python wrapper's ``invord`` rows) are reordered by :func:`to_physical_order`,
exactly as R's ``SwapOrder`` (quadruples with S1 > S4 become ``S3, S4, S1, S2``) and ``mlds`` for
triads (S1 > S3 reversed) do, with the response flipped.
"""


from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

REQUIRED = ("observer", "scale", "s1", "s2", "s3", "s4", "response")
OPTIONAL = ("session", "trial", "rt", "v1", "v2", "v3", "v4", "reversed")
LEVEL_COLUMNS = ("s1", "s2", "s3", "s4")
VALUE_COLUMNS = ("v1", "v2", "v3", "v4")


class JudgementTableError(ValueError):
    """A difference-judgement table (or a file meant to become one) is malformed; the message names
    the file, row and column at fault.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> validate_judgements(pd.DataFrame({"observer": ["o"], "scale": ["s"], "s1": [1], "s2": [2], "s3": [3],
    ...                                   "response": [2]}), source="run1.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.trials.judgements.JudgementTableError: run1.csv: column 'response' must be 0 or 1; ...
    """

def _where(source: str | None) -> str:
    return f"{source}: " if source else ""


def describe_rows(frame: pd.DataFrame, mask: np.ndarray, limit: int = 3) -> str:
    """The rows an error is about, for its message: how many, and the first few with their 1-based row numbers,
    observer, scale, levels and response.

    Parameters
    ----------
    frame : pandas.DataFrame
        A judgement table (or a file's rows on their way to one).
    mask : numpy.ndarray of bool
        The rows at fault.
    limit : int, default 3
        How many rows to show.

    Returns
    -------
    str
        ``"<n> row(s), e.g. row <i> (column=value, ...); ..."``.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["o", "o"], "s1": [1, 3], "response": [1, 2]})
    >>> describe_rows(t, np.array([False, True]))
    '1 row(s), e.g. row 2 (observer=o, s1=3, response=2)'
    """
    index = np.flatnonzero(mask)[:limit]
    cols = [c for c in ("observer", "scale", *LEVEL_COLUMNS, "response") if c in frame]
    shown = "; ".join(
        f"row {i + 1} (" + ", ".join(f"{c}={frame[c].iloc[i]}" for c in cols) + ")" for i in index)
    return f"{int(mask.sum())} row(s), e.g. {shown}"


def _as_int_column(frame: pd.DataFrame, name: str, source: str | None, allow_missing: bool) -> pd.Series:
    raw = frame[name]
    values = pd.to_numeric(raw, errors="coerce")
    bad = values.isna() & raw.notna() if allow_missing else values.isna()
    if bad.any():
        raise JudgementTableError(
            f"{_where(source)}column '{name}' is not numeric in {describe_rows(frame, bad.to_numpy())}")
    finite = values.dropna()
    non_integer = ~np.isclose(finite, np.round(finite))
    if non_integer.any():
        mask = np.zeros(len(frame), bool)
        mask[np.flatnonzero(values.notna().to_numpy())[non_integer]] = True
        raise JudgementTableError(
            f"{_where(source)}column '{name}' has non-integer values in {describe_rows(frame, mask)}")
    return values.round().astype("Int64")


def validate_judgements(frame: pd.DataFrame, *, source: str | None = None, required: Sequence[str] = (),
                        n_levels: int | None = None) -> pd.DataFrame:
    """Check a difference-judgement table and return a normalised copy.

    The one validation of judgement tables: MLDS (:mod:`humanlike.measures.mlds.fit`) and the
    Psychophysical-Score (:mod:`humanlike.measures.psychscore.analysis`) both go through it.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns as documented in this module; ``s4`` may be absent or all missing for triads.
    source : str, optional
        File name used in error messages.
    required : sequence of str
        Further columns the caller needs (e.g. ``class_a``, ``class_b``): each must be present and
        never missing; they are kept as strings.
    n_levels : int, optional
        The number of levels of the design: a level index above it is an error naming the rows.

    Returns
    -------
    pandas.DataFrame
        Canonical dtypes (levels and ``s4`` as nullable ``Int64``, ``response`` as int) and column
        order, index reset.

    Raises
    ------
    JudgementTableError
        Naming the file, row and column for: missing columns, no rows, missing or non-integer levels,
        levels below 1, responses other than 0/1, rows not in physical order (use
        :func:`to_physical_order`), repeated levels within a row, a scale mixing triads and quadruples.

    Examples
    --------
    >>> table = pd.DataFrame({"observer": "o", "scale": "s", "s1": [1], "s2": [2], "s3": [3],
    ...                       "response": [1]})
    >>> bool(validate_judgements(table)["s4"].isna().all())
    True
    """
    if not isinstance(frame, pd.DataFrame):
        raise JudgementTableError(f"{_where(source)}expected a pandas DataFrame, got {type(frame).__name__}")
    out = frame.copy()
    if "s4" not in out.columns:
        out["s4"] = pd.NA
    needed = list(REQUIRED) + [c for c in required if c not in REQUIRED]
    missing = [c for c in needed if c not in out.columns]
    if missing:
        raise JudgementTableError(
            f"{_where(source)}judgement table is missing column(s) {missing}; required: {needed}")
    if len(out) == 0:
        raise JudgementTableError(f"{_where(source)}judgement table has no rows")
    out = out.reset_index(drop=True)
    for name in ("observer", "scale", *[c for c in required if c not in REQUIRED]):
        nan = (out[name].isna() | (out[name].astype(str).str.strip() == "")).to_numpy()
        if nan.any():
            raise JudgementTableError(f"{_where(source)}column '{name}' is missing in {describe_rows(out, nan)}")
        out[name] = out[name].astype(str)
    for name in ("s1", "s2", "s3"):
        out[name] = _as_int_column(out, name, source, allow_missing=False)
    out["s4"] = _as_int_column(out, "s4", source, allow_missing=True)
    for name in LEVEL_COLUMNS:
        low = (out[name] < 1).fillna(False).to_numpy(bool)
        if low.any():
            raise JudgementTableError(
                f"{_where(source)}column '{name}' has level indices below 1 (levels are 1-based) in "
                f"{describe_rows(out, low)}")
    if n_levels is not None:
        high = np.zeros(len(out), bool)
        for name in LEVEL_COLUMNS:
            high |= (out[name] > int(n_levels)).fillna(False).to_numpy(bool)
        if high.any():
            raise JudgementTableError(
                f"{_where(source)}level indices must lie in 1..{int(n_levels)} (the design's levels); "
                f"{describe_rows(out, high)}")
    response = pd.to_numeric(out["response"], errors="coerce")
    bad = ~response.isin([0, 1]).to_numpy()
    if bad.any():
        raise JudgementTableError(f"{_where(source)}column 'response' must be 0 or 1; {describe_rows(out, bad)}")
    out["response"] = response.astype(int)
    quad = out["s4"].notna().to_numpy()
    s = out[list(LEVEL_COLUMNS)].to_numpy(dtype=float, na_value=np.nan)
    triad_bad = ~quad & ~((s[:, 0] < s[:, 1]) & (s[:, 1] < s[:, 2]))
    if triad_bad.any():
        raise JudgementTableError(
            f"{_where(source)}triads must have s1 < s2 < s3 (physical order; descending rows need "
            f"to_physical_order, repeated levels are not a triad): {describe_rows(out, triad_bad)}")
    quad_bad = quad & ~((s[:, 0] < s[:, 1]) & (s[:, 2] < s[:, 3]) & (s[:, 0] <= s[:, 3]))
    if quad_bad.any():
        raise JudgementTableError(
            f"{_where(source)}quadruples must have s1 < s2, s3 < s4 and s1 <= s4 (physical order; rows "
            f"stored with S1 > S4 need to_physical_order): {describe_rows(out, quad_bad)}")
    kinds = pd.Series(quad).groupby([out["observer"], out["scale"]]).nunique()
    mixed = kinds[kinds > 1]
    if len(mixed):
        obs, scale = mixed.index[0]
        raise JudgementTableError(
            f"{_where(source)}observer {obs!r}, scale {scale!r} mixes triads and quadruples; "
            "give them different scale ids")
    if "trial" in out.columns:
        out["trial"] = pd.to_numeric(out["trial"], errors="coerce").astype("Int64")
    if "rt" in out.columns:
        out["rt"] = pd.to_numeric(out["rt"], errors="coerce").astype(float)
    for name in VALUE_COLUMNS:
        if name in out.columns:
            out[name] = pd.to_numeric(out[name], errors="coerce").astype(float)
    if "reversed" in out.columns:
        out["reversed"] = out["reversed"].fillna(False).astype(bool)
    if "session" in out.columns:
        out["session"] = out["session"].astype(str)
    order = [c for c in REQUIRED] + [c for c in OPTIONAL if c in out.columns]
    extra = [c for c in out.columns if c not in order]
    return out[order + extra]


def design_levels(frame: pd.DataFrame, units: Sequence[str] = (), *, n_levels: int | None = None,
                  source: str | None = None) -> int:
    """The number of levels p of a validated judgement table, checked: every unit (e.g. one observer's
    scale, or one observer's class pair) must show every level 1..p in some trial, else its scale value
    there is not identified.

    A stray level (a typo ``8`` in a 7-level design) would otherwise set p = 8 and leave level 8 without
    trials in every other scale; the error names the unit without the level and the rows that use it.

    Parameters
    ----------
    frame : pandas.DataFrame
        A validated judgement table (:func:`validate_judgements`).
    units : sequence of str
        Columns whose value combinations are separate scales (``()``: the whole table is one scale).
    n_levels : int, optional
        The design's number of levels (default: the highest level index in the table).
    source : str, optional
        File name used in error messages.

    Returns
    -------
    int
        p, at least 3.

    Raises
    ------
    JudgementTableError
        Fewer than 3 levels, a level above ``n_levels``, or a unit without some level 1..p.

    Examples
    --------
    >>> t = validate_judgements(pd.DataFrame({"observer": "o", "scale": "s", "s1": [1, 1], "s2": [2, 2],
    ...                                       "s3": [3, 4], "response": [1, 0]}))
    >>> design_levels(t)
    4
    >>> stray = pd.concat([t, t.iloc[:1].assign(s3=8)])      # a typo: level 8 in a 4-level design
    >>> design_levels(stray)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    humanlike.trials.judgements.JudgementTableError: level(s) [5, 6, 7] appear in no trial of the scale: ... level(s) 8 used by only 1 row(s), ...
    """
    levels = frame[list(LEVEL_COLUMNS)].fillna(0).to_numpy(dtype=np.int64)
    top = int(levels.max())
    p = top if n_levels is None else int(n_levels)
    if p < 3:
        raise JudgementTableError(f"{_where(source)}difference scaling needs at least 3 levels; the table has {p}")
    if top > p:
        high = (levels > p).any(axis=1)
        raise JudgementTableError(f"{_where(source)}level indices must lie in 1..{p}; {describe_rows(frame, high)}")
    keys = [frame[c].astype(str).to_numpy() for c in units]
    groups = (pd.DataFrame(dict(zip(units, keys))).groupby(list(units), sort=True).indices if units
              else {(): np.arange(len(frame))})
    for key, rows in groups.items():
        seen = np.zeros(p + 1, bool)
        seen[levels[rows].ravel()] = True
        unseen = [k for k in range(1, p + 1) if not seen[k]]
        if not unseen:
            continue
        key = key if isinstance(key, tuple) else (key,)
        unit = ", ".join(f"{c} {v!r}" for c, v in zip(units, key)) or "the scale"
        uses = np.bincount(levels.ravel(), minlength=p + 1)[1:]
        used = np.flatnonzero(uses) + 1
        gap = np.flatnonzero(uses == 0) + 1
        # Suspects: levels beyond a gap in the numbering, else a level far rarer than the others.
        suspects = used[used > gap.min()] if gap.size else used[uses[used - 1] < 0.1 * np.median(uses[used - 1])]
        hint = ""
        if suspects.size:
            names = ", ".join(map(str, suspects.tolist()))
            hint = (f"; level(s) {names} used by only {describe_rows(frame, np.isin(levels, suspects).any(axis=1))} - "
                    "outside the design? (give the number of levels, or fix those rows)")
        raise JudgementTableError(
            f"{_where(source)}level(s) {unseen} appear in no trial of {unit}: every scale needs trials with "
            f"every level 1..{p}, else its scale values are not identified{hint}")
    return p


def from_presentation_order(frame: pd.DataFrame, *, source: str | None = None) -> pd.DataFrame:
    """Rows stored in presentation order (R MLDS's layout, the Python wrapper's) put into physical order.

    Levels and responses are checked first (integers, 0/1), so that flipping a response cannot turn a bad
    value into another; then :func:`to_physical_order`. Tidy tables are in physical order already and
    are never reordered: :func:`validate_judgements` refuses their descending rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``s1..s3``, optional ``s4``, ``response`` (any others are kept).
    source : str, optional
        File name used in error messages.

    Returns
    -------
    pandas.DataFrame
        The reordered copy (with ``reversed``).

    Examples
    --------
    >>> t = pd.DataFrame({"s1": [3], "s2": [2], "s3": [1], "response": [1]})
    >>> from_presentation_order(t)[["s1", "s3", "response"]].values.tolist()
    [[1, 3, 0]]
    """
    return to_physical_order(_validate_levels_only(frame, source))



def _validate_levels_only(frame: pd.DataFrame, source: str | None) -> pd.DataFrame:
    """Coerce level and response columns to numbers before reordering, naming bad rows."""
    missing = [c for c in ("s1", "s2", "s3", "response") if c not in frame.columns]
    if missing:
        raise JudgementTableError(f"{_where(source)}judgement table is missing column(s) {missing}")
    out = frame.copy()
    if "s4" not in out.columns:
        out["s4"] = pd.NA
    for name in ("s1", "s2", "s3"):
        out[name] = _as_int_column(out, name, source, allow_missing=False)
    out["s4"] = _as_int_column(out, "s4", source, allow_missing=True)
    response = pd.to_numeric(out["response"], errors="coerce")
    bad = ~response.isin([0, 1]).to_numpy()
    if bad.any():
        raise JudgementTableError(
            f"{_where(source)}column 'resp'/'Response'/'response' must be 0 or 1; {describe_rows(out, bad)}")
    out["response"] = response.astype(int)
    return out


CANONICAL_KEY = ("observer", "scale", *LEVEL_COLUMNS, "session", "trial", "response")


def canonical_order(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a validated judgement table sorted by what they are, not where they stood.

    Sort key: observer, scale, the levels ``s1..s4`` (a triad's missing ``s4`` first), ``session`` and
    ``trial`` where present, then the response. Rows equal on this key are interchangeable for every
    MLDS computation, so any shuffle of a table gives the same sorted table, and everything computed
    from it (fits, the random draws of the bootstrap and of the goodness-of-fit tests) is the same to
    the bit. Repeated trials keep their session order (R's ``kk1``, ``kk2``, ``kk3`` pooled: session
    1 before 2 before 3), as in a file that lists its sessions one after another.

    Parameters
    ----------
    frame : pandas.DataFrame
        A validated judgement table (:func:`validate_judgements`).

    Returns
    -------
    pandas.DataFrame
        The same rows, sorted, index reset.

    Examples
    --------
    >>> t = validate_judgements(pd.DataFrame({"observer": "o", "scale": "s", "s1": [2, 1, 1], "s2": [3, 2, 2],
    ...                                       "s3": [4, 3, 3], "response": [1, 1, 0]}))
    >>> canonical_order(t)[["s1", "response"]].values.tolist()
    [[1, 0], [1, 1], [2, 1]]
    """
    keys = [c for c in CANONICAL_KEY if c in frame.columns]
    sortable = frame[keys].copy()
    for name in LEVEL_COLUMNS:
        if name in sortable:
            sortable[name] = pd.to_numeric(sortable[name], errors="coerce").fillna(0)
    if "trial" in sortable:
        sortable["trial"] = pd.to_numeric(sortable["trial"], errors="coerce").fillna(-1)
    for name in ("observer", "scale", "session"):
        if name in sortable:
            sortable[name] = sortable[name].astype(str)
    order = sortable.reset_index(drop=True).sort_values(keys, kind="mergesort").index.to_numpy()
    return frame.iloc[order].reset_index(drop=True)


def repeat_groups(frame: pd.DataFrame) -> np.ndarray:
    """Group ids of rows that differ at most in their response: the same trial repeated, with no session
    or trial number to tell the repetitions apart (rows of a table in :func:`canonical_order`; a group's
    rows are then adjacent).

    Parameters
    ----------
    frame : pandas.DataFrame
        A validated judgement table in canonical order.

    Returns
    -------
    numpy.ndarray of int
        One id per row, 0, 1, ... in row order.

    Examples
    --------
    >>> t = canonical_order(validate_judgements(pd.DataFrame({"observer": "o", "scale": "s", "s1": [1, 1, 1],
    ...     "s2": [2, 2, 2], "s3": [3, 3, 4], "response": [1, 0, 1]})))
    >>> repeat_groups(t).tolist()
    [0, 0, 1]
    """
    keys = [c for c in CANONICAL_KEY if c in frame.columns and c != "response"]
    if len(frame) == 0:
        return np.zeros(0, np.int64)
    values = frame[keys].astype(str).fillna("<NA>").to_numpy()     # a triad's missing s4 equals itself
    new_group = np.ones(len(frame), bool)
    new_group[1:] = np.any(values[1:] != values[:-1], axis=1)
    return np.cumsum(new_group) - 1


def to_physical_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Put rows stored in presentation order into physical order, flipping their responses.

    Quadruples with ``s1 > s4`` become ``(s3, s4, s1, s2)`` (R's ``SwapOrder``); triads with ``s1 > s3``
    become ``(s3, s2, s1)`` (as R's ``mlds`` does for triads). The response of a reordered row is
    ``1 - response`` because "the second pair" is now the other pair. Stimulus values ``v1..v4`` move
    with their levels; the ``reversed`` column records which rows moved (or-ed with an existing one).

    Parameters
    ----------
    frame : pandas.DataFrame
        A table with columns ``s1..s3``, optional ``s4`` (missing for triads) and ``response``.

    Returns
    -------
    pandas.DataFrame
        A reordered copy.

    Examples
    --------
    >>> t = pd.DataFrame({"s1": [6], "s2": [9], "s3": [1], "s4": [4], "response": [0]})
    >>> to_physical_order(t)[["s1", "s2", "s3", "s4", "response"]].values.tolist()
    [[1, 4, 6, 9, 1]]
    """
    out = frame.copy()
    if "s4" not in out.columns:
        out["s4"] = pd.NA
    s = out[list(LEVEL_COLUMNS)].apply(pd.to_numeric, errors="coerce").to_numpy(float, na_value=np.nan)
    quad = ~np.isnan(s[:, 3])
    swap = quad & (s[:, 0] > s[:, 3])
    flip = ~quad & (s[:, 0] > s[:, 2])
    values = [c for c in VALUE_COLUMNS if c in out.columns]
    blocks = [(LEVEL_COLUMNS, swap, (2, 3, 0, 1)), (LEVEL_COLUMNS[:3], flip, (2, 1, 0))]
    if len(values) == 4:
        blocks.append((VALUE_COLUMNS, swap, (2, 3, 0, 1)))
    triad_values = [c for c in VALUE_COLUMNS[:3] if c in out.columns]
    if len(triad_values) == 3:
        blocks.append((VALUE_COLUMNS[:3], flip, (2, 1, 0)))
    for names, rows, order in blocks:
        if not rows.any():
            continue
        block = {name: out[name].copy() for name in names}
        for target, source in zip(names, order):
            column = block[names[source]]
            out[target] = out[target].where(~rows, column)
    moved = swap | flip
    response = np.array(pd.to_numeric(out["response"], errors="coerce"), dtype=float)
    response[moved] = 1 - response[moved]
    out["response"] = response.astype(int) if np.all(np.isin(response, (0.0, 1.0))) else response
    previous = out["reversed"].fillna(False).astype(bool).to_numpy() if "reversed" in out else False
    out["reversed"] = moved ^ previous if "reversed" in frame else moved
    return out



def level_arrays(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The levels as an (n, 4) int array (0 in column 4 for triads) and the responses as (n,) ints.

    Parameters
    ----------
    frame : pandas.DataFrame
        A validated judgement table.

    Returns
    -------
    levels : numpy.ndarray of int64, (n, 4)
        Columns ``s1..s4``; 0 for the missing ``s4`` of a triad.
    responses : numpy.ndarray of int64, (n,)
        The 0/1 responses.

    Examples
    --------
    >>> t = validate_judgements(pd.DataFrame({"observer": "o", "scale": ["q", "t"], "s1": [1, 1], "s2": [2, 2],
    ...                                       "s3": [3, 3], "s4": [4, None], "response": [1, 0]}))
    >>> levels, responses = level_arrays(t)
    >>> levels.tolist(), responses.tolist()
    ([[1, 2, 3, 4], [1, 2, 3, 0]], [1, 0])
    """
    levels = frame[list(LEVEL_COLUMNS)].fillna(0).to_numpy(dtype=np.int64)
    return levels, frame["response"].to_numpy(dtype=np.int64)


def stimulus_values(frame: pd.DataFrame, n_levels: int) -> np.ndarray:
    """Physical value of each level 1..n_levels from the ``v*`` columns (NaN where unknown).

    Parameters
    ----------
    frame : pandas.DataFrame
        A judgement table, optionally with stimulus value columns ``v1..v4``.
    n_levels : int
        Number of levels of the scale.

    Returns
    -------
    numpy.ndarray, (n_levels,)
        The value of each level; all NaN when the table has no ``v1..v3`` columns.

    Raises
    ------
    JudgementTableError
        When one level carries two different values.

    Examples
    --------
    >>> t = pd.DataFrame({"s1": [1], "s2": [2], "s3": [4], "s4": [None],
    ...                   "v1": [0.0], "v2": [0.5], "v3": [2.0], "v4": [None]})
    >>> stimulus_values(t, 5).tolist()
    [0.0, 0.5, nan, 2.0, nan]
    """
    values = np.full(n_levels, np.nan)
    if not all(c in frame.columns for c in VALUE_COLUMNS[:3]):
        return values
    pairs = []
    for level_col, value_col in zip(LEVEL_COLUMNS, VALUE_COLUMNS):
        if level_col in frame and value_col in frame:
            pairs.append(frame[[level_col, value_col]].set_axis(["level", "value"], axis=1))
    table = pd.concat(pairs).dropna().drop_duplicates()
    clash = table["level"].duplicated(keep=False)
    if clash.any():
        level = int(table.loc[clash, "level"].iloc[0])
        raise JudgementTableError(f"level {level} carries different stimulus values "
                                  f"{sorted(table.loc[table['level'] == level, 'value'].tolist())}")
    for level, value in zip(table["level"].astype(int), table["value"]):
        if 1 <= level <= n_levels:
            values[level - 1] = value
    return values
