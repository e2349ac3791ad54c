"""Loaders: everything that reads responses from disk ends as a validated trial table.

Formats understood by :func:`load_trials`, the one entry point:

* a tidy trial file (``.csv``, ``.parquet``/``.pq``) with the documented columns
  (:mod:`humanlike.trials.tidy_files`);
* a model-vs-human style ``raw-data`` folder: ``<experiment>/<experiment>_<observer>_session[_-]1.csv``
  with columns ``subj,session,trial,rt,object_response,category,condition,imagename`` (and, in the
  decision-margin fork, ``decision_margin`` and friends); the folder itself, its parent, or one
  experiment folder may be given (:mod:`humanlike.trials.raw_data`, parsed folders cached by
  :mod:`humanlike.trials.cache`);
* a folder written by ``humanlike evaluate`` (:mod:`humanlike.trials.evaluation_folders`);
* files of an experiment tool (jsPsych, JATOS, PsychoPy/Pavlovia, lab.js) read through a declared column
  mapping (``mapping=``, :mod:`humanlike.trials.lab_files`);
* several of the above at once (a list): e.g. the humans of model-vs-human and the models with margins
  of the decision-margin fork, aligned on the same items; where each observer came from is
  :func:`load_trials_with_sources`' second table (:mod:`humanlike.trials.sources`).

Here also :func:`declare_humans` (which observers are human). The model-vs-human benchmark's own data, found or
downloaded, is :func:`humanlike.trials.modelvshuman.load_modelvshuman`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .cache import cached_table
from .evaluation_folders import add_evaluation_folders, is_evaluation_folder
from .lab_files import LabMapping, lab_trials
from .raw_data import HUMAN_PATTERN, load_raw_data_with_sources
from .names import clean_name
from .schema import TrialTableError, validate_trials
from .sources import SOURCE_COLUMNS, TRIAL_FILE, check_on_conflict, file_digest, separate_sources, sources_table
from .tidy_files import validate_tidy_file

PathLike = str | os.PathLike


def load_trials(paths: PathLike | Sequence[PathLike], *, human_pattern: str = HUMAN_PATTERN,
                on_conflict: str = "prefer-margins", labels: Sequence[str] | None = None,
                cache: bool = True, humans: Sequence[str] | None = None,
                mapping: LabMapping | None = None) -> pd.DataFrame:
    r"""Load a trial table from a tidy CSV/Parquet file, a raw-data folder, or several of them.

    Tidy files are validated as they are (label columns read as strings; errors name the file);
    raw-data folders are parsed and aligned (see :func:`humanlike.trials.raw_data.load_raw_data`). Several
    sources are concatenated; raw-data folders among them are aligned together, so humans from one folder and
    models from another share item ids. Evaluation folders (written by ``humanlike evaluate``) are added with
    their items renamed to the ids the other sources use.

    Parameters
    ----------
    paths : path-like or sequence of path-like
        Tidy files, raw-data folders and evaluation folders.
    human_pattern : str, default :data:`humanlike.trials.raw_data.HUMAN_PATTERN`
        Observer names that are humans, in raw-data folders (``subject-01``, ``Subject_01``, ``subj01``,
        ``participant-7``, ``P03``, ... in any case).
    humans : sequence of str, optional
        Declare the human observers: names or shell-style patterns (``"P*"``); every other observer is a model.
        Overrides ``human_pattern`` and tidy files' ``observer_kind``. A name or pattern that matches no
        observer is an error.
    on_conflict : {"prefer-margins", "first", "last", "rename", "error"}, default "prefer-margins"
        An observer name found in several sources. Between raw-data folders, per experiment, see
        :func:`humanlike.trials.raw_data.load_raw_data`. Between a tidy file, the raw-data folders and
        evaluation folders, whole observers (never merged): see :func:`humanlike.trials.sources.separate_sources`; by default an
        evaluation folder's model whose name is taken (``resnet50`` of ``humanlike evaluate
        torchvision:resnet50`` beside the benchmark's) is kept apart as ``resnet50@<folder>``.
    labels : sequence of str, optional
        The task's label set (see :func:`humanlike.trials.schema.validate_trials`).
    cache : bool, default True
        Cache parsed raw-data folders (``cache=False`` or ``HUMANLIKE_CACHE=off`` to bypass; see
        :mod:`humanlike.trials.cache`).
    mapping : LabMapping, optional
        Read every path as an experiment tool's data (jsPsych, JATOS, PsychoPy/Pavlovia, lab.js) through this
        column mapping (:class:`humanlike.trials.lab_files.LabMapping`; ``LabMapping.for_tool("psychopy",
        label="corrAns")``, or ``LabMapping.from_file("mapping.toml")``).

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
                                    cache=cache, humans=humans, mapping=mapping)[0]


def load_trials_with_sources(paths: PathLike | Sequence[PathLike], *, human_pattern: str = HUMAN_PATTERN,
                             on_conflict: str = "prefer-margins", labels: Sequence[str] | None = None,
                             cache: bool = True, humans: Sequence[str] | None = None,
                             mapping: LabMapping | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    r""":func:`load_trials`, and where each observer came from.

    Parameters
    ----------
    paths, human_pattern, on_conflict, labels, cache, humans, mapping
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
    if mapping is not None:   # every path is an experiment tool's data
        frames = [_lab_file_table(p, mapping, labels).assign(
            source_kind=LAB_FILE, source=str(p), source_file=str(p),
            source_digest=file_digest(p) if p.is_file() else file_digest(sorted(q for q in p.rglob("*") if q.is_file())),
            source_group=position[p]) for p in paths]
        paths = []
    else:
        frames = []
    evaluated = [p for p in paths if is_evaluation_folder(p)]
    tidy = [p for p in paths if p not in evaluated and p.is_file()]
    folders = [p for p in paths if p not in evaluated and not p.is_file()]
    frames += [validate_tidy_file(p, labels).assign(source_kind=TRIAL_FILE, source=str(p), source_file=str(p),
                                                   source_digest=file_digest(p), source_group=position[p])
              for p in tidy]
    if folders:
        frames.append(cached_table(
            # The table records where its rows came from (the paths as given), so those paths enter the key:
            # the same bytes under another path must not come back naming the old one.
            folders, {"loader": "raw-data+sources", "human_pattern": human_pattern, "on_conflict": on_conflict,
                      "paths_as_given": [str(p) for p in folders]},
            lambda: load_raw_data_with_sources(folders, human_pattern=human_pattern, on_conflict=on_conflict,
                                               parser="arrow"),
            enabled=cache).assign(source_group=min(position[p] for p in folders)))
    models = {}
    if evaluated:
        frames, models = add_evaluation_folders(frames, evaluated, position)
    if len(frames) == 1:  # one source: no clash to resolve, validated already
        trials, sources = frames[0].drop(columns=[*SOURCE_COLUMNS, "source_group"]), sources_table(frames[0], models)
        return (trials if humans is None else declare_humans(trials, humans)), sources
    frame = pd.concat(frames, ignore_index=True)
    frame = separate_sources(frame.assign(original_observer=frame["observer"]), on_conflict)
    sources = sources_table(frame, models)
    trials = frame.drop(columns=[*SOURCE_COLUMNS, "source_group", "original_observer"])
    trials = validate_trials(trials.reset_index(drop=True), labels=labels)
    return (trials if humans is None else declare_humans(trials, humans)), sources


#: ``source_kind`` of an experiment tool's file read through a mapping.
LAB_FILE = "experiment-tool file"


def _lab_file_table(path: Path, mapping: LabMapping, labels) -> pd.DataFrame:
    try:
        return validate_trials(lab_trials(path, mapping), labels=labels)
    except TrialTableError as err:
        message = str(err)
        raise type(err)(message if message.startswith(str(path)) else f"{path}: {message}") from None


def declare_humans(trials: pd.DataFrame, humans: Sequence[str]) -> pd.DataFrame:
    """The table with ``observer_kind`` set from a declaration: the observers ``humans`` names are human, every
    other observer a model.

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table.
    humans : sequence of str
        Observer names or shell-style patterns (``*``, ``?``, ``[...]``), compared after Unicode cleaning
        (:func:`humanlike.trials.names.clean_name`).

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

