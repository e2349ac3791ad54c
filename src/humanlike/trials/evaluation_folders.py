"""Evaluation folders, written by ``humanlike evaluate`` (:mod:`humanlike.models.output`): an ``evaluation.json``
manifest of the evaluation format beside a tidy trial file of the models' responses.

:func:`humanlike.trials.loaders.load_trials` recognises them (:func:`is_evaluation_folder`) and adds their trials
with their items renamed to the ids the other sources use (:func:`add_evaluation_folders`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .raw_data import image_stem
from .names import condition_mask
from .schema import TrialTableError, validate_trials
from .sources import EVALUATION, file_digest
from .tidy_files import read_tidy_file

PathLike = str | os.PathLike

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
    return validate_trials(read_tidy_file(trials_file))


def add_evaluation_folders(frames: list[pd.DataFrame], folders: Sequence[Path],
                           position: dict) -> tuple[list[pd.DataFrame], dict]:
    r"""Append evaluation folders' trials, their items renamed to the ids the other sources use; and each
    folder's models (``(folder, observer) -> model, weights, model_key``) from its manifest.

    Models run on stimulus files carry the bare file name (``oven10.png``) or the model-vs-human file name;
    raw-data humans carry ``0_oven_00_oven10.png`` or, once aligned with the benchmark's models,
    ``oven10.png``. Within each (experiment, condition), an item keeps its id if the other sources have
    it, else takes the one id whose stem or last '_' field equals its own.

    Parameters
    ----------
    frames : list of pandas.DataFrame
        The other sources' tables (source columns included), the reference for the item ids.
    folders : sequence of pathlib.Path
        Evaluation folders (:func:`is_evaluation_folder`).
    position : dict
        Each path's place among the paths given (its ``source_group``).

    Returns
    -------
    frames : list of pandas.DataFrame
        ``frames`` followed by one table per folder, with its source columns.
    models : dict
        ``(folder, observer) -> {"model", "weights", "model_key"}`` from the manifests' runs.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "evaluation.json").write_text('{"format": "humanlike-evaluation", "trials": "trials.csv", '
    ...     '"runs": [{"model": "net", "source": "torchvision", "arch": "resnet50", "weights": "DEFAULT"}]}')
    >>> _ = (folder / "trials.csv").write_text(
    ...     "observer,observer_kind,experiment,condition,item,label,response,correct\n"
    ...     "net,model,edge,0,cat1.png,cat,dog,False\n")
    >>> human = pd.DataFrame({"experiment": ["edge"], "condition": ["0"], "item": ["0001_edg_s01_cat1.png"]})
    >>> frames, models = add_evaluation_folders([human], [folder], {folder: 1})
    >>> frames[1]["item"].tolist(), models[(str(folder), "net")]["model"]
    (['0001_edg_s01_cat1.png'], 'torchvision:resnet50')
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
            for candidate in (item, image_stem(item)):
                if candidate in known:
                    return candidate
            hits = by_last.get(image_stem(item).rsplit("_", 1)[-1], set())
            return next(iter(hits)) if len(hits) == 1 else item

        items.loc[rows.index] = rows["item"].map(match)
    return items
