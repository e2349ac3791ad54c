"""Model-vs-human style raw-data folders: ``<experiment>/<experiment>_<observer>_session[_-]1.csv`` with columns
``subj,session,trial,rt,object_response,category,condition,imagename`` (and, in the decision-margin fork,
``decision_margin`` and friends), read into one aligned trial table.

Here: finding the files and naming their experiment and observer, parsing them (pyarrow for all files at once,
pandas' parser the reference), aligning image names into item ids every observer shares, filling missing
conditions, and resolving an observer found in several folders (:func:`load_raw_data`). The folder itself, its
parent, or one experiment folder may be given. :func:`humanlike.trials.loaders.load_trials` combines these
folders with tidy files and evaluation folders.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .names import clean_name
from .schema import NO_ANSWER, TrialTableError, validate_trials
from .sources import RAW_DATA, SOURCE_COLUMNS, check_on_conflict, file_digest, rename_later_sources, source_labels

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


def image_stem(name: str) -> str:
    """The stimulus part of a model-vs-human image name: the name without its trial index, experiment code and
    subject (or ``dnn``) code, so that a human's and a model's name of one stimulus agree.

    Parameters
    ----------
    name : str
        An image name from a raw-data file (or any other name).

    Returns
    -------
    str
        The stem after the three-field prefix; ``name`` itself when it has no such prefix.

    Examples
    --------
    >>> image_stem("0001_cl_s01_cr_oven_40_n04111531_14126.png"), image_stem("0001_cl_dnn_cr_oven_40_n04111531_14126.png")
    ('cr_oven_40_n04111531_14126.png', 'cr_oven_40_n04111531_14126.png')
    >>> image_stem("oven10.png")
    'oven10.png'
    """
    match = _PREFIX.match(name)
    return match.group("stem") if match else name


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
    stems = pd.Series(np.asarray([image_stem(name) for name in names], dtype=object)[codes], index=frame.index,
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
    frame = load_raw_data_with_sources(paths, human_pattern=human_pattern, on_conflict=on_conflict, parser=parser)
    return frame.drop(columns=SOURCE_COLUMNS)


def load_raw_data_with_sources(paths: PathLike | Sequence[PathLike], *, human_pattern: str, on_conflict: str,
                               parser: str) -> pd.DataFrame:
    r""":func:`load_raw_data`'s validated table with the source columns still in
    (:data:`humanlike.trials.sources.SOURCE_COLUMNS`: where each row came from, for the sources table).

    Parameters
    ----------
    paths, human_pattern, on_conflict, parser
        As for :func:`load_raw_data` (here without defaults).

    Returns
    -------
    pandas.DataFrame
        A validated trial table with the source columns.

    Raises
    ------
    TrialTableError, ValueError
        As :func:`load_raw_data`.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "edge").mkdir()
    >>> _ = (root / "edge" / "edge_resnet50_session_1.csv").write_text(
    ...     "subj,session,trial,rt,object_response,category,condition,imagename\n"
    ...     "resnet50,1,1,,cat,cat,0,0001_edg_dnn_cat1.png\n")
    >>> t = load_raw_data_with_sources(root, human_pattern=HUMAN_PATTERN, on_conflict="error", parser="pandas")
    >>> t[["observer", "item", "source_kind"]].astype(str).values.tolist()
    [['resnet50', 'cat1.png', 'raw-data folder']]
    """
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

