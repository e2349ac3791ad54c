"""Difference-judgement files: the layouts :func:`read_judgement_file` recognises by their columns (R MLDS's
``resp,S1,S2,S3[,S4]``, the Python MLDS wrapper's ``Trial,Response,s1..,i1..``, the tidy table of
:mod:`humanlike.trials.judgements`), read into the validated table in physical order, with stimulus values from
a ``stimulus_levels.json`` beside them where given; :func:`load_judgements` pools several files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .judgements import (LEVEL_COLUMNS, VALUE_COLUMNS, JudgementTableError, describe_rows, from_presentation_order,
                         validate_judgements)

PathLike = str | os.PathLike

STIMULUS_FILE = "stimulus_levels.json"

R_QUAD_COLUMNS = ("resp", "S1", "S2", "S3", "S4")
R_TRIAD_COLUMNS = ("resp", "S1", "S2", "S3")
R_OBSERVER_COLUMNS = ("Obs", "obs", "observer")


def read_raw_judgements(path) -> pd.DataFrame:
    """The raw table of a judgement file (CSV, or Parquet by suffix), read errors naming the file.

    Parameters
    ----------
    path : path
        A CSV or Parquet file.

    Returns
    -------
    pandas.DataFrame
        The file's columns as read (no layout detection, no validation).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "j.csv"
    >>> _ = p.write_text("resp,S1,S2,S3\\n1,1,2,3\\n")
    >>> list(read_raw_judgements(p).columns)
    ['resp', 'S1', 'S2', 'S3']
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such judgement file")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            return pd.read_parquet(path)
        except (ValueError, OSError) as err:
            raise JudgementTableError(f"{path}: cannot be read as Parquet: {err}") from None
    return _read_csv(path)


def _read_csv(path: Path) -> pd.DataFrame:
    """A judgement CSV, with read errors (empty, not UTF-8, malformed) naming the file."""
    try:
        return pd.read_csv(path, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise JudgementTableError(f"{path}: the file is empty (expected a header row and one row per judgement)") from None
    except UnicodeDecodeError as err:
        raise JudgementTableError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8") from None
    except pd.errors.ParserError as err:
        raise JudgementTableError(f"{path}: cannot be read as CSV: {err}") from None


def _stimulus_from_sidecar(path: Path) -> list[float] | None:
    sidecar = path.parent / STIMULUS_FILE
    if not sidecar.exists():
        return None
    try:
        entry = json.loads(sidecar.read_text()).get(path.stem)
    except (OSError, json.JSONDecodeError) as err:
        raise JudgementTableError(f"{sidecar}: cannot read stimulus levels ({err})") from err
    if not entry or "stimulus" not in entry:
        return None
    return [float(v) for v in entry["stimulus"]]


def _attach_values(frame: pd.DataFrame, stimulus: Sequence[float], source: str) -> pd.DataFrame:
    levels = np.asarray(stimulus, dtype=float)
    top = int(np.nanmax(frame[list(LEVEL_COLUMNS)].to_numpy(float, na_value=np.nan)))
    if top > len(levels):
        raise JudgementTableError(
            f"{source}: level index {top} exceeds the {len(levels)} stimulus values given")
    for level_col, value_col in zip(LEVEL_COLUMNS, VALUE_COLUMNS):
        idx = frame[level_col].to_numpy(float, na_value=np.nan)
        value = np.full(len(frame), np.nan)
        ok = ~np.isnan(idx)
        value[ok] = levels[idx[ok].astype(int) - 1]
        frame[value_col] = value
    return frame


def read_r_layout(path: PathLike, *, observer: str | None = None, scale: str | None = None,
                  stimulus: Sequence[float] | None = None) -> pd.DataFrame:
    r"""Read a file in R MLDS's layout: ``resp,S1,S2,S3[,S4]`` with 1-based level indices.

    An observer column (``Obs`` as in R's ``Transparency``) is kept as ``observer``. Rows stored in
    presentation order are put into physical order (:func:`humanlike.trials.judgements.to_physical_order`).

    Parameters
    ----------
    path : path-like
        A CSV file.
    observer, scale : str, optional
        Ids for files without an observer column (default ``"observer"``) and the scale id (default
        ``"scale"``: files read together are one scale, as the MLDS vignette pools kk1..kk3).
    stimulus : sequence of float, optional
        Physical value of each level; default: the entry for this file's stem in a
        ``stimulus_levels.json`` beside it, if there is one.

    Returns
    -------
    pandas.DataFrame
        A validated judgement table with ``session`` = the file stem.

    Raises
    ------
    JudgementTableError
        For missing columns, bad levels or responses (naming file and rows).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "kk1.csv"
    >>> _ = path.write_text("resp,S1,S2,S3,S4\n1,1,2,3,4\n1,6,9,1,4\n")
    >>> t = read_r_layout(path, observer="kk", stimulus=[0.1 * k for k in range(1, 10)])
    >>> t[["s1", "s2", "s3", "s4", "response"]].values.tolist(), t["v4"].round(1).tolist()
    ([[1, 2, 3, 4, 1], [1, 4, 6, 9, 0]], [0.4, 0.9])
    """
    path = Path(path)
    raw = _read_csv(path)
    raw.columns = [str(c).strip() for c in raw.columns]
    return _from_r_frame(raw, path, observer=observer, scale=scale, stimulus=stimulus)


def _from_r_frame(raw: pd.DataFrame, path: Path, *, observer, scale, stimulus) -> pd.DataFrame:
    source = str(path)
    columns = R_QUAD_COLUMNS if "S4" in raw.columns else R_TRIAD_COLUMNS
    missing = [c for c in columns if c not in raw.columns]
    if missing:
        raise JudgementTableError(f"{source}: missing column(s) {missing} of the R MLDS layout {list(columns)}")
    obs_col = next((c for c in R_OBSERVER_COLUMNS if c in raw.columns), None)
    frame = pd.DataFrame({
        "observer": raw[obs_col].astype(str) if obs_col else (observer or "observer"),
        "scale": scale or "scale",
        "s1": raw["S1"], "s2": raw["S2"], "s3": raw["S3"],
        "s4": raw["S4"] if "S4" in raw.columns else pd.NA,
        "response": raw["resp"],
        "session": path.stem,
    })
    return _finish(frame, path, stimulus)


def _finish(frame: pd.DataFrame, path: Path, stimulus, presentation_order: bool = True) -> pd.DataFrame:
    source = str(path)
    if presentation_order:
        frame = from_presentation_order(frame, source=source)
    frame = validate_judgements(frame, source=source)
    if stimulus is None and not all(c in frame.columns for c in VALUE_COLUMNS[:3]):
        stimulus = _stimulus_from_sidecar(path)
    if stimulus is not None:
        frame = _attach_values(frame, stimulus, source)
    return frame


def read_wrapper_layout(path: PathLike, *, observer: str | None = None,
                        scale: str | None = None) -> pd.DataFrame:
    r"""Read a file of the Python MLDS wrapper: ``Trial,Response,s1..s3[,s4],i1..i3[,i4][,invord]``.

    ``i*`` are 1-based level indices, ``s*`` the stimulus values (kept as ``v1..v4``). Rows are put
    into physical order from the stored order (``invord`` is redundant with it and only checked).

    Parameters
    ----------
    path : path-like
        A CSV file.
    observer, scale : str, optional
        Ids (defaults ``"observer"`` and ``"scale"``); an ``observer`` column in the file wins.

    Returns
    -------
    pandas.DataFrame
        A validated judgement table.

    Raises
    ------
    JudgementTableError
        For missing columns, bad levels or responses, or an ``invord`` that disagrees with the stored order.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = path.write_text("Trial,Response,s1,s2,s3,i1,i2,i3,invord\n1,1,0.3,0.2,0.1,3,2,1,1\n")
    >>> t = read_wrapper_layout(path)
    >>> t[["s1", "s2", "s3", "response"]].values.tolist(), t["v1"].tolist(), bool(t["reversed"][0])
    ([[1, 2, 3, 0]], [0.1], True)
    """
    path = Path(path)
    raw = _read_csv(path)
    raw.columns = [str(c).strip() for c in raw.columns]
    source = str(path)
    quad = "i4" in raw.columns
    needed = ["Response", "i1", "i2", "i3"] + (["i4"] if quad else [])
    missing = [c for c in needed if c not in raw.columns]
    if missing:
        raise JudgementTableError(f"{source}: missing column(s) {missing} of the wrapper layout")
    frame = pd.DataFrame({
        "observer": raw["observer"].astype(str) if "observer" in raw.columns else (observer or "observer"),
        "scale": scale or "scale",
        "s1": raw["i1"], "s2": raw["i2"], "s3": raw["i3"],
        "s4": raw["i4"] if quad else pd.NA,
        "response": raw["Response"],
        "session": path.stem,
    })
    if "Trial" in raw.columns:
        frame["trial"] = raw["Trial"]
    for k, name in enumerate(VALUE_COLUMNS[: 4 if quad else 3], start=1):
        if f"s{k}" in raw.columns:
            frame[name] = pd.to_numeric(raw[f"s{k}"], errors="coerce")
    if "invord" in raw.columns:
        last = "i4" if quad else "i3"
        stored_reversed = (pd.to_numeric(raw["i1"], errors="coerce") > pd.to_numeric(raw[last], errors="coerce"))
        disagree = (stored_reversed.astype(int) != pd.to_numeric(raw["invord"], errors="coerce")).to_numpy()
        if disagree.any():
            raise JudgementTableError(
                f"{source}: column 'invord' disagrees with the stored order (i1 > {last}) in "
                f"{describe_rows(frame, disagree)}")
    return _finish(frame, path, None)


def read_judgement_file(path: PathLike, **kwargs) -> pd.DataFrame:
    r"""Read one file in any supported layout (tidy, R MLDS, Python wrapper), chosen by its columns.

    Parameters
    ----------
    path : path-like
        ``.csv`` (any layout) or ``.parquet`` (tidy layout).
    **kwargs
        ``observer``, ``scale`` and (R layout) ``stimulus`` defaults, see :func:`read_r_layout`.

    Returns
    -------
    pandas.DataFrame
        A validated judgement table in physical order.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    JudgementTableError
        For an unknown layout or malformed rows.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "tidy.csv"
    >>> _ = path.write_text("observer,s1,s2,s3,response\nann,1,2,3,1\n")
    >>> read_judgement_file(path, scale="gloss")[["observer", "scale", "s1", "s2", "s3", "response"]].values.tolist()
    [['ann', 'gloss', 1, 2, 3, 1]]
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such judgement file")
    raw = read_raw_judgements(path)
    raw.columns = [str(c).strip() for c in raw.columns]
    if "resp" in raw.columns and "S1" in raw.columns:
        return _from_r_frame(raw, path, observer=kwargs.get("observer"), scale=kwargs.get("scale"),
                             stimulus=kwargs.get("stimulus"))
    if "Response" in raw.columns and "i1" in raw.columns:
        return read_wrapper_layout(path, observer=kwargs.get("observer"), scale=kwargs.get("scale"))
    if all(c in raw.columns for c in ("s1", "s2", "s3", "response")):
        frame = raw.copy()
        for name, default in (("observer", kwargs.get("observer") or "observer"),
                              ("scale", kwargs.get("scale") or "scale")):
            if name not in frame.columns:
                frame[name] = default
        if "s4" not in frame.columns:
            frame["s4"] = pd.NA
        # The tidy layout is in physical order by definition: descending rows are refused, not flipped.
        return _finish(frame, path, kwargs.get("stimulus"), presentation_order=False)
    raise JudgementTableError(
        f"{path}: unknown judgement layout with columns {list(raw.columns)}; expected R MLDS "
        "(resp,S1,S2,S3[,S4]), the Python wrapper (Trial,Response,s1..,i1..) or the tidy table "
        "(observer,scale,s1..s4,response)")


def load_judgements(paths: PathLike | Iterable[PathLike], **kwargs) -> pd.DataFrame:
    """Read and pool one or several judgement files into one validated table.

    Files given together share the default observer and scale ids, so R's ``kk1``, ``kk2``, ``kk3``
    (three sessions of one observer) pool into one scale as in the MLDS vignette; ``session`` keeps
    each row's file.

    Parameters
    ----------
    paths : path-like or iterable of path-like
        Files in any layout :func:`read_judgement_file` understands.
    **kwargs
        Passed to :func:`read_judgement_file`.

    Returns
    -------
    pandas.DataFrame
        The pooled, validated table.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.csv").write_text("resp,S1,S2,S3\\n1,3,2,1\\n")
    >>> load_judgements(folder / "a.csv")[["s1", "s2", "s3", "response"]].values.tolist()
    [[1, 2, 3, 0]]
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    frames = [read_judgement_file(p, **kwargs) for p in paths]
    if not frames:
        raise JudgementTableError("no judgement files given")
    pooled = pd.concat(frames, ignore_index=True)
    return validate_judgements(pooled)

