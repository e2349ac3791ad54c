"""Tidy trial files: a ``.csv`` or ``.parquet`` (``.pq``) file with the trial table's documented columns
(:mod:`humanlike.trials.schema`), read with its label columns as text and validated, errors naming the file.

:func:`humanlike.trials.loaders.load_trials` reads the tidy files it is given through :func:`validate_tidy_file`;
the trial file of an evaluation folder (:mod:`humanlike.trials.evaluation_folders`) through :func:`read_tidy_file`.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .schema import TrialTableError, validate_trials

_TIDY_STRING_COLUMNS = ("observer", "observer_kind", "experiment", "condition", "item", "label", "response")


def read_tidy_file(path: Path) -> pd.DataFrame:
    r"""Read a tidy trial file with its label columns as strings (``0.90`` stays ``"0.90"``).

    CSV: every label column is read as text. Parquet keeps its stored types: a label column stored as
    floating-point numbers has already lost its spelling, so :func:`validate_trials` rejects it (integers
    convert exactly and are accepted). Read errors (empty file, not UTF-8, not Parquet) become
    :class:`TrialTableError` naming the file.

    Parameters
    ----------
    path : pathlib.Path
        A ``.csv`` (also ``.txt``; ``.tsv`` tab-separated) or ``.parquet``/``.pq`` file.

    Returns
    -------
    pandas.DataFrame
        The file's columns as read (not validated).

    Raises
    ------
    TrialTableError
        For an unknown file type, an unreadable file or a column named twice in the header, naming the file.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> _ = path.write_text("observer,condition,response\nann,0.90,cat\n")
    >>> read_tidy_file(path)["condition"].tolist()
    ['0.90']
    """
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            frame = pd.read_parquet(path)
        elif suffix in (".csv", ".txt", ".tsv"):
            frame = pd.read_csv(path, dtype={c: str for c in _TIDY_STRING_COLUMNS}, keep_default_na=False,
                                sep="\t" if suffix == ".tsv" else ",", encoding="utf-8",
                                na_values={"decision_margin": ["", "NaN", "nan"], "rt": ["", "NaN", "nan"]})
        else:
            raise TrialTableError(f"{path}: unknown file type '{path.suffix}' (expected .csv or .parquet)")
    except TrialTableError:
        raise
    except pd.errors.EmptyDataError:
        raise TrialTableError(f"{path}: the file is empty (expected a header row and one row per response)") from None
    except UnicodeDecodeError as err:
        raise TrialTableError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8") from None
    except (pd.errors.ParserError, ValueError, OSError) as err:
        raise TrialTableError(f"{path}: cannot be read as a trial table: {err}") from None
    if suffix in (".csv", ".txt", ".tsv"):
        _check_unique_header(path, "\t" if suffix == ".tsv" else ",")
    return frame


def _check_unique_header(path: Path, sep: str) -> None:
    """A column named twice would be read as ``name`` and ``name.1`` and one of them silently ignored."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        header = next(csv.reader(handle, delimiter=sep), [])
    names = [h.strip() for h in header]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TrialTableError(f"{path}: column(s) {twice} appear more than once in the header; keep one of each")


def validate_tidy_file(path: Path, labels: Sequence[str] | None = None) -> pd.DataFrame:
    r"""Read and validate one tidy trial file, naming the file in any error.

    Parameters
    ----------
    path : pathlib.Path
        A tidy trial file (:func:`read_tidy_file`).
    labels : sequence of str, optional
        The task's label set (see :func:`humanlike.trials.schema.validate_trials`).

    Returns
    -------
    pandas.DataFrame
        The validated trial table.

    Raises
    ------
    TrialTableError
        For an unreadable file or invalid rows; the message starts with the file.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> _ = path.write_text("observer,observer_kind,experiment,condition,item,label,response,correct\n"
    ...                     "net,model,edge,0,cat1.png,cat,dog,False\n")
    >>> validate_tidy_file(path)[["observer", "item", "correct"]].values.tolist()
    [['net', 'cat1.png', False]]
    """
    try:
        return validate_trials(read_tidy_file(path), labels=labels)
    except TrialTableError as err:
        message = str(err)
        raise TrialTableError(message if message.startswith(str(path)) else f"{path}: {message}") from None
