"""Loaders: everything that reads responses from disk ends as a validated trial table.

Formats understood by :func:`load_trials`:

* a tidy trial file (``.csv``, ``.parquet``/``.pq``) with the documented columns;
* a model-vs-human style ``raw-data`` folder: ``<experiment>/<experiment>_<observer>_session[_-]1.csv``
  with columns ``subj,session,trial,rt,object_response,category,condition,imagename`` (and, in the
  decision-margin fork, ``decision_margin`` and friends); the folder itself, its parent, or one
  experiment folder may be given;
* several of the above at once (a list): e.g. the humans of model-vs-human and the models with margins
  of the decision-margin fork, aligned on the same items.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .cache import cached_table
from .schema import NO_ANSWER, TrialTableError, clean_name, condition_mask, validate_trials
from .sources import (EVALUATION, RAW_DATA, SOURCE_COLUMNS, TRIAL_FILE, check_on_conflict, file_digest,
                      rename_later_sources, separate_sources, source_labels, sources_table)

PathLike = str | os.PathLike

# Human observers as labs name their files: subject-01, Subject_01, subj01, sub-12, participant-7, P03, S1.
HUMAN_PATTERN = r"(?i)^(?:subject|subj|sub|participant|s|p)[-_ ]?\d+$"
_FILE_PATTERN = re.compile(r"^(?P<experiment>.+?)_(?P<observer>.+)_session[_-]\d+\.csv$")
# Human image names carry a trial index, an experiment code and a subject code before the stimulus:
# 0001_cl_s01_cr_oven_40_n04111531_14126.png; model files say "dnn" where humans say "s01".
_PREFIX = re.compile(r"^\d{4}_[^_]+_[^_]+_(?P<stem>.+)$")
_RAW_COLUMNS = ("subj", "trial", "object_response", "category", "condition", "imagename")
_CONDITION_MISSING = {"", "nan", "NaN", "None"}
DEFAULT_CONDITION = "0"

ENV_MODELVSHUMAN = "HUMANLIKE_MODELVSHUMAN"
MODELVSHUMAN_URL = "https://github.com/bethgelab/model-vs-human/archive/refs/heads/master.zip"


def _stem(name: str) -> str:
    match = _PREFIX.match(name)
    return match.group("stem") if match else name


_TIDY_STRING_COLUMNS = ("observer", "observer_kind", "experiment", "condition", "item", "label", "response")


def _read_tidy(path: Path) -> pd.DataFrame:
    """Read a tidy trial file with its label columns as strings (``0.90`` stays ``"0.90"``).

    CSV: every label column is read as text. Parquet keeps its stored types: a label column stored as
    floating-point numbers has already lost its spelling, so :func:`validate_trials` rejects it (integers
    convert exactly and are accepted). Read errors (empty file, not UTF-8, not Parquet) become
    :class:`TrialTableError` naming the file.
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
    import csv

    with open(path, encoding="utf-8-sig", newline="") as handle:
        header = next(csv.reader(handle, delimiter=sep), [])
    names = [h.strip() for h in header]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TrialTableError(f"{path}: column(s) {twice} appear more than once in the header; keep one of each")


def _validate_file(path: Path, labels=None) -> pd.DataFrame:
    """Validate one tidy file, naming the file in any error."""
    try:
        return validate_trials(_read_tidy(path), labels=labels)
    except TrialTableError as err:
        message = str(err)
        raise TrialTableError(message if message.startswith(str(path)) else f"{path}: {message}") from None


def _raw_files(root: Path) -> list[Path]:
    """CSV files of a raw-data tree: root may be the raw-data folder, its parent, or one experiment."""
    if (root / "raw-data").is_dir():
        root = root / "raw-data"
    files = sorted(p for p in root.glob("*.csv") if _FILE_PATTERN.match(p.name))
    if files:
        return files
    files = sorted(
        p for p in root.glob("*/*.csv")
        if p.parent.name != "performances" and _FILE_PATTERN.match(p.name)
    )
    if not files:
        raise TrialTableError(
            f"{root}: no raw-data files found (expected <experiment>/<experiment>_<observer>_session-1.csv)"
        )
    return files


def _file_names(path: Path) -> tuple[str, str]:
    """(experiment, observer) of a raw-data file, from its folder and name."""
    experiment = path.parent.name
    match = _FILE_PATTERN.match(path.name)
    if not match or not match.group("experiment") == experiment:
        # Folder and file disagree (e.g. a lone file): trust the file name.
        experiment = match.group("experiment") if match else experiment
        observer = match.group("observer") if match else path.stem
        if match is None:
            raise TrialTableError(f"{path}: file name does not follow <experiment>_<observer>_session-1.csv")
    else:
        observer = match.group("observer")
    # Clean before the human pattern sees it: a zero-width space must not turn a participant into a model.
    return clean_name(experiment), clean_name(observer)


def _read_raw_file(path: Path, human_pattern: str) -> pd.DataFrame:
    """One raw-data file through pandas' CSV parser (the reference; see :func:`_read_raw_files_arrow`)."""
    experiment, observer = _file_names(path)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise TrialTableError(f"{path}: the file is empty (expected the raw-data header and one row per trial)") from None
    except UnicodeDecodeError as err:
        raise TrialTableError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8") from None
    except (pd.errors.ParserError, ValueError) as err:
        raise TrialTableError(f"{path}: cannot be read as a raw-data file: {err}") from None
    raw.columns = [c.strip() for c in raw.columns]
    missing = [c for c in _RAW_COLUMNS if c not in raw.columns]
    if missing:
        raise TrialTableError(f"{path}: missing column(s) {missing} of the raw-data format")
    frame = pd.DataFrame({
        "observer": observer,
        "observer_kind": "human" if re.match(human_pattern, observer) else "model",
        "experiment": experiment,
        "condition": raw["condition"].str.strip(),
        "image": raw["imagename"].str.strip(),
        "label": raw["category"].str.strip(),
        "response": raw["object_response"].str.strip().replace("", NO_ANSWER),
        "trial": pd.to_numeric(raw["trial"], errors="coerce"),
        "rt": pd.to_numeric(raw.get("rt", pd.Series(np.nan, index=raw.index)), errors="coerce"),
    })
    if "decision_margin" in raw.columns:
        frame["decision_margin"] = pd.to_numeric(raw["decision_margin"], errors="coerce")
    frame["source"] = str(path)
    return frame


# The raw columns the trial table is made of (besides the file's observer and experiment).
_RAW_USED = ("condition", "imagename", "category", "object_response", "trial", "rt", "decision_margin")


def _arrow_text_table(path: Path):
    """A raw-data file read by pyarrow's CSV reader: (the used columns as text, all column names), or None
    where pandas must decide.

    pandas' parser stays the reference: anything this reader might read differently (a byte-order mark,
    duplicate or empty column names, a row with too few or too many fields, quoted line breaks, a file that is
    not UTF-8, no pyarrow) gives None, and the caller then parses every file with pandas (so errors and edge
    cases are exactly those of :func:`_read_raw_file`).
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pa_csv
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            header = next(csv.reader(handle), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    names = [c.strip() for c in header or ()]
    if not names or any(not n or n.startswith("\ufeff") for n in names) or len(set(names)) != len(names):
        return None
    # Only the columns the table is made of are converted (every row is still checked for its field count).
    used = [h for h, n in zip(header, names) if n in _RAW_USED]
    try:
        table = pa_csv.read_csv(
            path, read_options=pa_csv.ReadOptions(use_threads=False),
            convert_options=pa_csv.ConvertOptions(column_types={c: pa.string() for c in used},
                                                  include_columns=used, strings_can_be_null=False))
    except (pa.ArrowException, OSError, ValueError):
        return None
    if table.column_names != used or not all(pa.types.is_string(t) for t in table.schema.types):
        return None
    return table.rename_columns([h.strip() for h in used]), names


def _read_raw_files_arrow(files: Sequence[tuple[Path, int]], human_pattern: str) -> pd.DataFrame | None:
    """Every raw-data file at once: pyarrow reads the text, pandas converts each column once for all files.

    The same table as concatenating :func:`_read_raw_file` of each file (tested on the real data); None when
    some file needs pandas' parser (see :func:`_arrow_text_table`).
    """
    import pyarrow as pa
    import pyarrow.compute  # noqa: F401 - pa.compute

    tables, names, counts = [], [], []
    for path, order in files:
        experiment, observer = _file_names(path)
        read = _arrow_text_table(path)
        if read is None:
            return None
        table, columns = read
        missing = [c for c in _RAW_COLUMNS if c not in columns]
        if missing:
            raise TrialTableError(f"{path}: missing column(s) {missing} of the raw-data format")
        tables.append(table.select([c for c in _RAW_USED if c in table.column_names]))
        names.append((observer, experiment, str(path), order))
        counts.append(table.num_rows)
    raw = pa.concat_tables(tables, promote_options="default")

    def text(column: str) -> pd.Series:
        return raw.column(column).to_pandas().astype(str)

    def numbers(column: str) -> pd.Series:
        # pd.to_numeric, as for one file, on the distinct spellings only (each converts on its own; the
        # result type follows the set of values, which is the same).
        if column not in raw.column_names:
            return pd.Series(np.nan, index=range(raw.num_rows))
        encoded = pa.compute.dictionary_encode(raw.column(column).combine_chunks())
        values = pd.to_numeric(encoded.dictionary.to_pandas(), errors="coerce").to_numpy()
        codes = encoded.indices
        if codes.null_count:  # a file without the column
            values = np.append(values, np.nan)
            codes = pa.compute.fill_null(codes, len(values) - 1)
        return pd.Series(values[codes.to_numpy()])

    file_index = pa.array(np.repeat(np.arange(len(names)), counts))

    def repeated(values: list) -> pd.Series:
        return pd.Series(pa.array(values, pa.string()).take(file_index).to_pandas()).astype(str)

    observers = [n[0] for n in names]
    frame = pd.DataFrame({
        "observer": repeated(observers),
        "observer_kind": repeated(["human" if re.match(human_pattern, o) else "model" for o in observers]),
        "experiment": repeated([n[1] for n in names]),
        "condition": text("condition").str.strip(),
        "image": text("imagename").str.strip(),
        "label": text("category").str.strip(),
        "response": text("object_response").str.strip().replace("", NO_ANSWER),
        "trial": numbers("trial"),
        "rt": numbers("rt"),
    })
    if "decision_margin" in raw.column_names:
        frame["decision_margin"] = numbers("decision_margin")
    frame["source"] = repeated([n[2] for n in names])
    frame["source_order"] = np.repeat(np.array([n[3] for n in names], dtype=np.int64), counts)
    return frame


def _align_items(frame: pd.DataFrame) -> pd.Series:
    """Give every row an item id that is the same for every observer who saw that stimulus.

    Humans' names carry a subject code and models' a 'dnn' code, so the shared part is the stem after the
    three-field prefix. Where one side uses bare stimulus names (cue-conflict, edge, silhouette models),
    both are reduced to the last '_'-separated field, provided that is still unique per observer.
    """
    # Each distinct image name is reduced once (there are far fewer names than rows).
    codes, names = pd.factorize(frame["image"], use_na_sentinel=False)
    stems = pd.Series(np.asarray([_stem(name) for name in names], dtype=object)[codes], index=frame.index,
                      dtype=frame["image"].dtype)
    # Every observer saw the same set of stems <=> every observer has every stem (observer x stem pairs).
    observer_codes = pd.factorize(frame["observer"])[0]
    stem_codes, stem_names = pd.factorize(stems, use_na_sentinel=False)
    pairs = np.unique(observer_codes.astype(np.int64) * max(len(stem_names), 1) + stem_codes)
    if pairs.size == (observer_codes.max() + 1 if observer_codes.size else 0) * len(stem_names):
        return stems
    short = stems.str.rsplit("_", n=1).str[-1]
    collide = pd.DataFrame({"observer": observer_codes, "short": short.to_numpy()}).duplicated()
    if collide.any():
        # Short names are ambiguous; keep the stems and let the analyses intersect the item sets.
        return stems
    return short


def _fill_conditions(frame: pd.DataFrame) -> pd.Series:
    """Rows without a condition (model files of the single-condition experiments) take the condition
    other observers gave the same item, else the single-condition default '0'."""
    condition = frame["condition"].copy()
    missing = condition.isin(_CONDITION_MISSING)
    if not missing.any():
        return condition
    known = frame.loc[~missing].drop_duplicates(["item"]).set_index("item")["condition"]
    condition.loc[missing] = frame.loc[missing, "item"].map(known).fillna(DEFAULT_CONDITION)
    return condition


def load_raw_data(paths: PathLike | Sequence[PathLike], *, human_pattern: str = HUMAN_PATTERN,
                  on_conflict: str = "prefer-margins", parser: str = "arrow") -> pd.DataFrame:
    r"""Read one or several model-vs-human style raw-data folders into one aligned trial table.

    When the same observer appears in several folders for the same experiment (resnet50 is in both the
    benchmark and the decision-margin fork), ``on_conflict`` decides: ``"prefer-margins"`` keeps the
    source that has decision margins (error if none or both do), ``"first"``/``"last"`` keep that source,
    ``"rename"`` keeps every source, the observer of each folder after the first named
    ``<observer>@<folder>`` in all its experiments, ``"error"`` raises naming the folders
    (see docs/your-model-against-the-benchmark.md).

    Parameters
    ----------
    paths : path-like or sequence of path-like
        Raw-data folders: the ``raw-data`` folder itself, its parent, or one experiment folder.
    human_pattern : str, default :data:`HUMAN_PATTERN`
        Regular expression of the observer names that are humans (the others are models); the default takes
        ``subject-01``, ``Subject_01``, ``subj01``, ``sub-12``, ``participant-7``, ``P03``, ``S1`` (any case).
    on_conflict : {"prefer-margins", "first", "last", "rename", "error"}, default "prefer-margins"
        What to do with an observer found in several folders (see above).
    parser : {"arrow", "pandas"}, default "arrow"
        ``"arrow"`` reads the CSV files with pyarrow and converts each column once for all files; wherever
        pyarrow might read a file differently from pandas (a byte-order mark, ragged rows, quoted line breaks,
        text that is not UTF-8, ...) every file goes through pandas instead. ``"pandas"`` parses file by file
        with pandas, the reference; both give the same table.

    Returns
    -------
    pandas.DataFrame
        A validated trial table; item ids are shared by every observer who saw the stimulus.

    Raises
    ------
    TrialTableError
        For a missing folder, no raw-data files, a malformed file or an unresolved conflict.
    ValueError
        For an unknown ``parser``.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "raw-data" / "edge").mkdir(parents=True)
    >>> header = "subj,session,trial,rt,object_response,category,condition,imagename\n"
    >>> _ = (root / "raw-data" / "edge" / "edge_subject-01_session_1.csv").write_text(
    ...     header + "s01,1,1,0.8,cat,cat,0,0001_edg_s01_cat1.png\ns01,1,2,0.9,cat,dog,0,0002_edg_s01_dog1.png\n")
    >>> _ = (root / "raw-data" / "edge" / "edge_resnet50_session_1.csv").write_text(
    ...     header + "resnet50,1,1,,cat,cat,0,0001_edg_dnn_cat1.png\nresnet50,1,2,,dog,dog,0,0002_edg_dnn_dog1.png\n")
    >>> t = load_raw_data(root)
    >>> t[["observer", "observer_kind", "item", "response", "correct"]].values.tolist()
    [['resnet50', 'model', 'cat1.png', 'cat', True], ['resnet50', 'model', 'dog1.png', 'dog', True], ['subject-01', 'human', 'cat1.png', 'cat', True], ['subject-01', 'human', 'dog1.png', 'cat', False]]
    """
    frame = _load_raw_with_sources(paths, human_pattern=human_pattern, on_conflict=on_conflict, parser=parser)
    return frame.drop(columns=SOURCE_COLUMNS)


def _load_raw_with_sources(paths, *, human_pattern: str, on_conflict: str, parser: str) -> pd.DataFrame:
    """:func:`load_raw_data`'s validated table with the :data:`SOURCE_COLUMNS` still in."""
    check_on_conflict(on_conflict)
    if parser not in ("arrow", "pandas"):
        raise ValueError(f"parser must be 'arrow' or 'pandas', not {parser!r}")
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for order, root in enumerate(paths):
        root = Path(root)
        if not root.exists():
            raise TrialTableError(f"{root}: no such file or folder")
        files += [(file, order) for file in _raw_files(root)]
    frame = _read_raw_files_arrow(files, human_pattern) if parser == "arrow" else None
    if frame is None:
        parts = []
        for file, order in files:
            part = _read_raw_file(file, human_pattern)
            part["source_order"] = order
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True)
    roots = [str(Path(root)) for root in paths]
    frame = _resolve_conflicts(frame, on_conflict, roots)

    aligned = []
    for _, group in frame.groupby("experiment", sort=True):
        group = group.copy()
        group["item"] = _align_items(group)
        group["condition"] = _fill_conditions(group)
        aligned.append(group)
    frame = pd.concat(aligned, ignore_index=True)
    frame["correct"] = frame["response"] == frame["label"]
    # Where each row came from, as categories (a few distinct values over many rows).
    frame = frame.rename(columns={"source": "source_file"})
    digests = {f: file_digest(f) for f in frame["source_file"].unique()}
    frame["source_digest"] = frame["source_file"].map(digests).astype("category")
    frame["source_file"] = frame["source_file"].astype("category")
    frame["source_kind"] = pd.Categorical([RAW_DATA] * len(frame))
    frame["source"] = pd.Categorical(np.asarray(roots, dtype=object)[frame["source_order"].to_numpy()])
    frame = frame.drop(columns=["image", "source_order"])
    if "decision_margin" in frame and frame["decision_margin"].isna().all():
        frame = frame.drop(columns="decision_margin")
    return validate_trials(frame)


def _resolve_conflicts(frame: pd.DataFrame, on_conflict: str, roots: list[str] | None = None) -> pd.DataFrame:
    check_on_conflict(on_conflict)
    sources = frame.groupby(["experiment", "observer"])["source_order"].nunique()
    clashes = sources[sources > 1]
    if clashes.empty:
        return frame
    roots = roots or [str(o) for o in range(int(frame["source_order"].max()) + 1)]
    if on_conflict == "error":
        names = sorted({obs for _, obs in clashes.index})
        experiment, observer = clashes.index[0]
        folders = sorted(set(frame.loc[(frame["experiment"] == experiment) & (frame["observer"] == observer),
                                       "source_order"]))
        raise TrialTableError(
            f"observer(s) {names} appear in more than one folder (e.g. '{observer}' in experiment '{experiment}' "
            f"in {' and '.join(roots[o] for o in folders)}); pass on_conflict='rename' to keep both "
            f"('{observer}' and '{observer}@{source_labels(roots)[folders[1]]}'), 'first' or 'last' to keep one, "
            "or 'prefer-margins' to keep the folder with decision margins")
    if on_conflict == "rename":
        return rename_later_sources(frame, sorted({obs for _, obs in clashes.index}), "source_order",
                                    source_labels(roots))
    # One pass over the rows: per (experiment, observer, source) whether every margin is there; then the
    # chosen source of each clashing observer, and the rows of its other sources dropped at once.
    columns = ["experiment", "observer", "source_order"]
    margins = frame["decision_margin"].notna() if "decision_margin" in frame else pd.Series(False, index=frame.index)
    complete = margins.groupby([frame[c] for c in columns], sort=True).all()
    pair = frame.groupby(["experiment", "observer"], sort=True).ngroup().to_numpy()
    chosen_source = np.full(len(sources), -1, dtype=np.int64)
    for experiment, observer in clashes.index:
        per_source = complete.loc[(experiment, observer)]
        orders = sorted(per_source.index)
        if on_conflict == "first":
            chosen = orders[0]
        elif on_conflict == "last":
            chosen = orders[-1]
        else:
            has_margin = [o for o in orders if "decision_margin" in frame and bool(per_source.loc[o])]
            if len(has_margin) != 1:
                raise TrialTableError(
                    f"observer '{observer}' in experiment '{experiment}' appears in several folders and "
                    f"{'none' if not has_margin else 'more than one'} of them has decision margins; "
                    "pass on_conflict='first' or 'last'"
                )
            chosen = has_margin[0]
        chosen_source[sources.index.get_loc((experiment, observer))] = chosen
    row_choice = chosen_source[pair]
    keep = (row_choice < 0) | (frame["source_order"].to_numpy() == row_choice)
    return frame.loc[keep]


def load_trials(paths: PathLike | Sequence[PathLike], *, human_pattern: str = HUMAN_PATTERN,
                on_conflict: str = "prefer-margins", labels: Sequence[str] | None = None,
                cache: bool = True, humans: Sequence[str] | None = None) -> pd.DataFrame:
    r"""Load a trial table from a tidy CSV/Parquet file, a raw-data folder, or several of them.

    Tidy files are validated as they are (label columns read as strings; errors name the file);
    raw-data folders are parsed and aligned (see :func:`load_raw_data`). Several sources are
    concatenated; raw-data folders among them are aligned together, so humans from one folder and models
    from another share item ids. Evaluation folders (written by ``humanlike evaluate``) are added with
    their items renamed to the ids the other sources use.

    Parameters
    ----------
    paths : path-like or sequence of path-like
        Tidy files, raw-data folders and evaluation folders.
    human_pattern : str, default :data:`HUMAN_PATTERN`
        Observer names that are humans, in raw-data folders (``subject-01``, ``Subject_01``, ``subj01``,
        ``participant-7``, ``P03``, ... in any case).
    humans : sequence of str, optional
        Declare the human observers: names or shell-style patterns (``"P*"``); every other observer is a model.
        Overrides ``human_pattern`` and tidy files' ``observer_kind``. A name or pattern that matches no
        observer is an error.
    on_conflict : {"prefer-margins", "first", "last", "rename", "error"}, default "prefer-margins"
        An observer name found in several sources. Between raw-data folders, per experiment, see
        :func:`load_raw_data`. Between a tidy file, the raw-data folders and evaluation folders, whole
        observers (never merged): see :func:`humanlike.trials.sources.separate_sources`; by default an
        evaluation folder's model whose name is taken (``resnet50`` of ``humanlike evaluate
        torchvision:resnet50`` beside the benchmark's) is kept apart as ``resnet50@<folder>``.
    labels : sequence of str, optional
        The task's label set (see :func:`humanlike.trials.schema.validate_trials`).
    cache : bool, default True
        Cache parsed raw-data folders (``cache=False`` or ``HUMANLIKE_CACHE=off`` to bypass; see
        :mod:`humanlike.trials.cache`).

    Returns
    -------
    pandas.DataFrame
        A validated trial table.

    Raises
    ------
    TrialTableError
        For a missing path or malformed data, naming the file.

    Examples
    --------
    >>> load_trials("no/such/file.csv")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    TrialTableError: no/such/file.csv: no such file or folder

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "raw-data" / "edge").mkdir(parents=True)
    >>> header = "subj,session,trial,rt,object_response,category,condition,imagename\n"
    >>> _ = (root / "raw-data" / "edge" / "edge_subject-01_session_1.csv").write_text(
    ...     header + "s01,1,1,0.8,cat,cat,0,0001_edg_s01_cat1.png\ns01,1,2,0.9,cat,dog,0,0002_edg_s01_dog1.png\n")
    >>> _ = (root / "raw-data" / "edge" / "edge_resnet50_session_1.csv").write_text(
    ...     header + "resnet50,1,1,,cat,cat,0,0001_edg_dnn_cat1.png\nresnet50,1,2,,dog,dog,0,0002_edg_dnn_dog1.png\n")
    >>> t = load_trials(root, cache=False)
    >>> len(t), sorted(t["observer"].unique())
    (4, ['resnet50', 'subject-01'])
    """
    return load_trials_with_sources(paths, human_pattern=human_pattern, on_conflict=on_conflict, labels=labels,
                                    cache=cache, humans=humans)[0]


def load_trials_with_sources(paths: PathLike | Sequence[PathLike], *, human_pattern: str = HUMAN_PATTERN,
                             on_conflict: str = "prefer-margins", labels: Sequence[str] | None = None,
                             cache: bool = True, humans: Sequence[str] | None = None
                             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    r""":func:`load_trials`, and where each observer came from.

    Parameters
    ----------
    paths, human_pattern, on_conflict, labels, cache, humans
        As for :func:`load_trials`.

    Returns
    -------
    trials : pandas.DataFrame
        The validated trial table (equal to :func:`load_trials`'s).
    sources : pandas.DataFrame
        One row per observer and source (:func:`humanlike.trials.sources.sources_table`): source kind and path,
        file digest, model and weights (evaluation folders), experiments scored.

    Raises
    ------
    TrialTableError
        As :func:`load_trials`.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "raw-data" / "edge").mkdir(parents=True)
    >>> header = "subj,session,trial,rt,object_response,category,condition,imagename\n"
    >>> _ = (root / "raw-data" / "edge" / "edge_resnet50_session_1.csv").write_text(
    ...     header + "resnet50,1,1,,cat,cat,0,0001_edg_dnn_cat1.png\nresnet50,1,2,,dog,dog,0,0002_edg_dnn_dog1.png\n")
    >>> trials, sources = load_trials_with_sources(root, cache=False)
    >>> sources[["observer", "source_kind", "experiments"]].values.tolist()
    [['resnet50', 'raw-data folder', 'edge']]
    """
    check_on_conflict(on_conflict)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if not paths:
        raise TrialTableError("no data path given")
    for p in paths:
        if not p.exists():
            raise TrialTableError(f"{p}: no such file or folder")
    position = {p: k for k, p in enumerate(paths)}
    evaluated = [p for p in paths if is_evaluation_folder(p)]
    tidy = [p for p in paths if p not in evaluated and p.is_file()]
    folders = [p for p in paths if p not in evaluated and not p.is_file()]
    frames = [_validate_file(p, labels).assign(source_kind=TRIAL_FILE, source=str(p), source_file=str(p),
                                               source_digest=file_digest(p), source_group=position[p])
              for p in tidy]
    if folders:
        frames.append(cached_table(
            # The table records where its rows came from (the paths as given), so those paths enter the key:
            # the same bytes under another path must not come back naming the old one.
            folders, {"loader": "raw-data+sources", "human_pattern": human_pattern, "on_conflict": on_conflict,
                      "paths_as_given": [str(p) for p in folders]},
            lambda: _load_raw_with_sources(folders, human_pattern=human_pattern, on_conflict=on_conflict,
                                           parser="arrow"),
            enabled=cache).assign(source_group=min(position[p] for p in folders)))
    models = {}
    if evaluated:
        frames, models = _with_evaluations(frames, evaluated, position)
    if len(frames) == 1:  # one source: no clash to resolve, validated already
        trials, sources = frames[0].drop(columns=[*SOURCE_COLUMNS, "source_group"]), sources_table(frames[0], models)
        return (trials if humans is None else declare_humans(trials, humans)), sources
    frame = pd.concat(frames, ignore_index=True)
    frame = separate_sources(frame.assign(original_observer=frame["observer"]), on_conflict)
    sources = sources_table(frame, models)
    trials = frame.drop(columns=[*SOURCE_COLUMNS, "source_group", "original_observer"])
    trials = validate_trials(trials.reset_index(drop=True), labels=labels)
    return (trials if humans is None else declare_humans(trials, humans)), sources


def declare_humans(trials: pd.DataFrame, humans: Sequence[str]) -> pd.DataFrame:
    """The table with ``observer_kind`` set from a declaration: the observers ``humans`` names are human, every
    other observer a model.

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table.
    humans : sequence of str
        Observer names or shell-style patterns (``*``, ``?``, ``[...]``), compared after Unicode cleaning
        (:func:`humanlike.trials.schema.clean_name`).

    Returns
    -------
    pandas.DataFrame
        A copy with ``observer_kind`` replaced.

    Raises
    ------
    TrialTableError
        When a name or pattern matches no observer (naming it and the observers), or none is given.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["alice", "net"], "observer_kind": "model", "experiment": "e",
    ...                   "condition": "0", "item": "i", "label": "cat", "response": "cat", "correct": True})
    >>> declare_humans(t, ["al*"])["observer_kind"].tolist()
    ['human', 'model']
    """
    import fnmatch

    if isinstance(humans, str):
        humans = [humans]
    patterns = [clean_name(h) for h in humans]
    if not patterns:
        raise TrialTableError("no human observer declared (give at least one name or pattern)")
    observers = sorted(trials["observer"].unique())
    chosen: set[str] = set()
    for pattern in patterns:
        hits = [o for o in observers if fnmatch.fnmatchcase(o, pattern)]
        if not hits:
            raise TrialTableError(f"declared human '{pattern}' names no observer (observers: {observers[:20]}"
                                  f"{' ...' if len(observers) > 20 else ''})")
        chosen.update(hits)
    out = trials.copy()
    out["observer_kind"] = np.where(out["observer"].isin(sorted(chosen)), "human", "model")
    out["observer_kind"] = out["observer_kind"].astype(trials["observer_kind"].dtype)
    return out


# --------------------------------------------------------------------------------------------------
# Evaluation folders (written by ``humanlike evaluate``; see humanlike.models.output)
# --------------------------------------------------------------------------------------------------

EVALUATION_MANIFEST = "evaluation.json"
EVALUATION_FORMAT = "humanlike-evaluation"


def is_evaluation_folder(path: PathLike) -> bool:
    """A folder written by ``humanlike evaluate`` (it holds an ``evaluation.json`` of that format).

    Parameters
    ----------
    path : path-like
        A folder.

    Returns
    -------
    bool
        Whether ``path/evaluation.json`` exists and declares the evaluation format.

    Raises
    ------
    TrialTableError
        If the manifest exists but cannot be read.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> is_evaluation_folder(folder)
    False
    >>> _ = (folder / "evaluation.json").write_text('{"format": "humanlike-evaluation"}')
    >>> is_evaluation_folder(folder)
    True
    """
    manifest = Path(path) / EVALUATION_MANIFEST
    if not manifest.is_file():
        return False
    import json

    try:
        return json.loads(manifest.read_text()).get("format") == EVALUATION_FORMAT
    except (json.JSONDecodeError, AttributeError, OSError):
        raise TrialTableError(f"{manifest}: unreadable evaluation manifest") from None


def read_evaluation_trials(path: PathLike) -> pd.DataFrame:
    r"""The validated trial table of an evaluation folder.

    Parameters
    ----------
    path : path-like
        A folder written by ``humanlike evaluate`` (see :func:`humanlike.models.write_evaluation`).

    Returns
    -------
    pandas.DataFrame
        The validated trial table of its trial file.

    Raises
    ------
    TrialTableError
        If the trial file named by the manifest is missing or invalid.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "evaluation.json").write_text('{"format": "humanlike-evaluation", "trials": "trials.csv"}')
    >>> _ = (folder / "trials.csv").write_text(
    ...     "observer,observer_kind,experiment,condition,item,label,response,correct\n"
    ...     "net,model,edge,0,cat1.png,cat,dog,False\n")
    >>> read_evaluation_trials(folder)[["observer", "item", "correct"]].values.tolist()
    [['net', 'cat1.png', False]]
    """
    import json

    path = Path(path)
    doc = json.loads((path / EVALUATION_MANIFEST).read_text())
    trials_file = path / doc.get("trials", "trials.csv")
    if not trials_file.is_file():
        raise TrialTableError(f"{path}: evaluation folder without its trial file {trials_file.name}")
    return validate_trials(_read_tidy(trials_file))


def _with_evaluations(frames: list[pd.DataFrame], folders: Sequence[Path],
                      position: dict) -> tuple[list[pd.DataFrame], dict]:
    """Append evaluation folders' trials, their items renamed to the ids the other sources use; and each
    folder's models (``(folder, observer) -> model, weights, model_key``) from its manifest.

    Models run on stimulus files carry the bare file name (``oven10.png``) or the model-vs-human file name;
    raw-data humans carry ``0_oven_00_oven10.png`` or, once aligned with the benchmark's models,
    ``oven10.png``. Within each (experiment, condition), an item keeps its id if the other sources have
    it, else takes the one id whose stem or last '_' field equals its own.
    """
    import json

    reference = pd.concat(frames, ignore_index=True) if frames else None
    out, models = list(frames), {}
    for folder in folders:
        trials = read_evaluation_trials(folder)
        if reference is not None:
            trials = trials.assign(item=_match_items(trials, reference))
        doc = json.loads((folder / EVALUATION_MANIFEST).read_text())
        trials_file = folder / doc.get("trials", "trials.csv")
        for run in doc.get("runs", []):
            arch = run.get("arch")
            name = f"{run.get('source')}:{arch}" if arch else str(run.get("source", ""))
            weights = run.get("weights")
            models[(str(folder), run.get("model"))] = {
                "model": name, "weights": "random (seed 0)" if weights is None else str(weights),
                "model_key": run.get("model_key", "")}
        out.append(trials.assign(source_kind=EVALUATION, source=str(folder), source_file=str(trials_file),
                                 source_digest=file_digest(trials_file), source_group=position[folder]))
    return out, models


def _match_items(trials: pd.DataFrame, reference: pd.DataFrame) -> pd.Series:
    items = trials["item"].copy()
    for (experiment, condition), rows in trials.groupby(["experiment", "condition"]):
        same_experiment = reference.loc[reference["experiment"] == experiment]
        # the condition as the other sources spell it (a pandas-written "0.0" is their "0.00")
        known = same_experiment.loc[condition_mask(same_experiment["condition"], condition), "item"]
        known = set(known.unique())
        if not known:
            continue
        by_last: dict[str, set] = {}
        for ref in known:
            by_last.setdefault(ref.rsplit("_", 1)[-1], set()).add(ref)

        def match(item: str) -> str:
            for candidate in (item, _stem(item)):
                if candidate in known:
                    return candidate
            hits = by_last.get(_stem(item).rsplit("_", 1)[-1], set())
            return next(iter(hits)) if len(hits) == 1 else item

        items.loc[rows.index] = rows["item"].map(match)
    return items


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "humanlike"


def modelvshuman_path(path: PathLike | None = None, *, download: bool = True) -> Path:
    """Where the model-vs-human raw data is: ``path``, else $HUMANLIKE_MODELVSHUMAN, else the cache,
    else (``download=True``) fetched from the public repository into the cache.

    Parameters
    ----------
    path : path-like, optional
        A raw-data folder to use.
    download : bool, default True
        Allow downloading the data (about 100 MB) when it is nowhere else.

    Returns
    -------
    pathlib.Path
        The raw-data folder.

    Raises
    ------
    FileNotFoundError
        If ``path`` (or the environment variable) names a missing folder, or there is no data and
        ``download=False``.
    ConnectionError
        If the download fails.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> modelvshuman_path(folder) == folder
    True
    >>> modelvshuman_path(folder / "missing")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    FileNotFoundError: model-vs-human data folder .../missing does not exist
    """
    for candidate in (path, os.environ.get(ENV_MODELVSHUMAN)):
        if candidate:
            candidate = Path(candidate)
            if not candidate.exists():
                raise FileNotFoundError(f"model-vs-human data folder {candidate} does not exist")
            return candidate
    cached = _cache_dir() / "modelvshuman" / "raw-data"
    if cached.is_dir():
        return cached
    if not download:
        raise FileNotFoundError(
            f"no model-vs-human data: pass a folder, set ${ENV_MODELVSHUMAN}, or allow the download")
    return _download_modelvshuman(cached.parent)


def _download_modelvshuman(target: Path, url: str = MODELVSHUMAN_URL, timeout: float = 30.0) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(dir=target) as tmp:
            archive = Path(tmp) / "modelvshuman.zip"
            with urllib.request.urlopen(url, timeout=timeout) as response, open(archive, "wb") as out:
                shutil.copyfileobj(response, out)
            with zipfile.ZipFile(archive) as zipped:
                members = [m for m in zipped.namelist() if "/raw-data/" in m]
                zipped.extractall(tmp, members)
            found = next(Path(tmp).glob("*/raw-data"))
            # Rename is atomic: a half-finished download never looks like a cache hit.
            found.rename(target / "raw-data")
    except (urllib.error.URLError, OSError, TimeoutError, StopIteration) as err:
        raise ConnectionError(
            f"could not download the model-vs-human data from {url} ({err}). You may be offline: "
            f"download it by hand and pass the raw-data folder or set ${ENV_MODELVSHUMAN}."
        ) from err
    return target / "raw-data"


def load_modelvshuman(path: PathLike | None = None, *, download: bool = True,
                      extra: Iterable[PathLike] = ()) -> pd.DataFrame:
    r"""The model-vs-human benchmark's raw data as a trial table (17 experiments, humans and models).

    Parameters
    ----------
    path : path-like, optional
        The raw-data folder (default: see :func:`modelvshuman_path`).
    download : bool, default True
        Allow downloading the data when it is not found locally.
    extra : iterable of path-like
        Further raw-data folders (e.g. the decision-margin fork's model responses).

    Returns
    -------
    pandas.DataFrame
        A validated trial table (parsed folders are cached, see :mod:`humanlike.trials.cache`).

    Examples
    --------
    A stand-in folder of the same layout (the real data has 17 experiments):

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "raw-data" / "edge").mkdir(parents=True)
    >>> header = "subj,session,trial,rt,object_response,category,condition,imagename\n"
    >>> _ = (root / "raw-data" / "edge" / "edge_subject-01_session_1.csv").write_text(
    ...     header + "s01,1,1,0.8,cat,cat,0,0001_edg_s01_cat1.png\ns01,1,2,0.9,cat,dog,0,0002_edg_s01_dog1.png\n")
    >>> _ = (root / "raw-data" / "edge" / "edge_resnet50_session_1.csv").write_text(
    ...     header + "resnet50,1,1,,cat,cat,0,0001_edg_dnn_cat1.png\nresnet50,1,2,,dog,dog,0,0002_edg_dnn_dog1.png\n")
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HUMANLIKE_CACHE": "off"}):
    ...     t = load_modelvshuman(root / "raw-data")
    >>> sorted(t["experiment"].unique()), len(t)
    (['edge'], 4)
    """
    return load_trials([modelvshuman_path(path, download=download), *extra])
