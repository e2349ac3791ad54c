"""The evaluation folder: what ``humanlike evaluate --out DIR`` writes, readable as DATA by every command.

::

    DIR/evaluation.json     {"format": "humanlike-evaluation", "version": 1, "trials": "trials.csv",
                             "stimuli": "stimuli.csv", "runs": [{model, experiment, model_key, weights,
                             preprocessing, rule, mapping, layers, pool, precision, outputs, features}]}
    DIR/trials.csv          the trial table of every model run into DIR
    DIR/stimuli.csv         the stimulus manifest (paths relative to DIR where possible)
    DIR/outputs/<experiment>/<model>.npz                raw outputs (logits, float32) + items
    DIR/features/<experiment>/<model>/<layer>/*.npz     one representation shard per work unit
    DIR/cache/              the work-unit cache (safe to delete; a rerun then recomputes)

Running more models into the same DIR adds them; rerunning a model replaces its rows.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from ..files import atomic_write
from ..trials.evaluation_folders import EVALUATION_FORMAT, EVALUATION_MANIFEST, read_evaluation_trials
from ..trials.representations import save_representation
from ..trials.stimuli import MANIFEST_COLUMNS, write_manifest
from .runner import layer_file

TRIALS_FILE = "trials.csv"
STIMULI_FILE = "stimuli.csv"


def _safe(name: str) -> str:
    return re.sub(r"[^\w.\-]", "_", name)


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)

    def link(tmp):
        tmp.unlink()   # the writer's empty temporary file: a hard link needs the name free
        try:
            os.link(src, tmp)
        except OSError:
            shutil.copyfile(src, tmp)

    atomic_write(dst, link, named=True)


def write_evaluation(results, out) -> Path:
    """Write results of :func:`~humanlike.models.evaluate` into the evaluation folder ``out``.

    Results are merged with what is already there (rerunning a model replaces its rows). Every file is
    written atomically; ``evaluation.json`` last. The layout is described in this module's docstring.

    Parameters
    ----------
    results : sequence of EvaluationResult
        Results of :func:`~humanlike.models.evaluate` or :func:`~humanlike.models.evaluate_many`.
    out : path
        The evaluation folder (created if needed).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    ValueError
        If ``out`` holds an ``evaluation.json`` of another format.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> from humanlike.models import evaluate
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> result = evaluate("torchvision:squeezenet1_1", root, weights="none", transform=as_tensor,
    ...                   layers=["features.0"], pool="avg")
    >>> out = write_evaluation([result], root / "evaluation")
    >>> sorted(p.name for p in out.iterdir())
    ['evaluation.json', 'features', 'outputs', 'stimuli.csv', 'trials.csv']
    >>> len(pd.read_csv(out / "trials.csv"))
    2
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc_path = out / EVALUATION_MANIFEST
    doc = json.loads(doc_path.read_text()) if doc_path.is_file() else {}
    if doc and doc.get("format") != EVALUATION_FORMAT:
        raise ValueError(f"{doc_path} is not a humanlike evaluation manifest")
    runs = doc.get("runs", [])
    old_trials = read_evaluation_trials(out) if doc else None
    old_stimuli = _read_stimuli(out / STIMULI_FILE)

    new_keys = {(r.model, e) for r in results for e in r.trials["experiment"].unique()}
    runs = [r for r in runs if (r["model"], r["experiment"]) not in new_keys]
    frames = [] if old_trials is None else [
        old_trials[~pd.Series(list(zip(old_trials["observer"], old_trials["experiment"]))).isin(new_keys).to_numpy()]]
    manifests = [] if old_stimuli is None else [old_stimuli]
    for result in results:
        experiment = "+".join(sorted(result.trials["experiment"].unique()))
        outputs_path = Path("outputs") / _safe(experiment) / f"{_safe(result.model)}.npz"
        _save_outputs(out / outputs_path, result)
        feature_paths = {}
        for layer, rep in result.features.items():
            folder = Path("features") / _safe(experiment) / _safe(result.model) / _safe(layer)
            _write_features(out / folder, result, layer, rep)
            feature_paths[layer] = folder.as_posix()
        runs.append({**result.info, "experiment": experiment, "layers": list(result.features),
                     "outputs": outputs_path.as_posix(), "features": feature_paths})
        frames.append(result.trials)
        manifests.append(result.manifest)
    trials = pd.concat(frames, ignore_index=True)
    stimuli = pd.concat(manifests, ignore_index=True).drop_duplicates(["experiment", "condition", "item"], keep="last")
    atomic_write(out / TRIALS_FILE, lambda tmp: trials.to_csv(tmp, index=False))
    write_manifest(stimuli, out / STIMULI_FILE)
    doc = {"format": EVALUATION_FORMAT, "version": 1, "trials": TRIALS_FILE, "stimuli": STIMULI_FILE,
           "runs": runs}
    atomic_write(doc_path, lambda tmp: tmp.write_text(json.dumps(doc, indent=2, default=str) + "\n"))
    return out


def _write_features(folder: Path, result, layer: str, rep) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    if result.units:  # one shard per work unit, linked from the cache (no copy of large arrays)
        for index, unit in enumerate(result.units):
            _link_or_copy(Path(unit) / layer_file(layer), folder / f"shard-{index:05d}.npz")
    else:
        save_representation(rep, folder / "shard-00000.npz")


def _save_outputs(path: Path, result) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, suffix=".tmp.npz", write=lambda tmp: np.savez(
        tmp, outputs=result.outputs, items=result.manifest["item"].to_numpy(dtype=str),
        experiment=result.manifest["experiment"].to_numpy(dtype=str),
        condition=result.manifest["condition"].to_numpy(dtype=str)))


def _read_stimuli(path: Path):
    if not path.is_file():
        return None
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame["path"] = [str((path.parent / p).resolve()) if not Path(p).is_absolute() else p for p in frame["path"]]
    return frame[list(MANIFEST_COLUMNS)]


def read_evaluation(out) -> dict:
    """The evaluation manifest of ``out`` (runs, file names), for tools that want more than the trials.

    Parameters
    ----------
    out : path
        An evaluation folder written by :func:`write_evaluation`.

    Returns
    -------
    dict
        The parsed ``evaluation.json``: ``format``, ``version``, ``trials``, ``stimuli`` and ``runs``
        (one dict per model and experiment).

    Raises
    ------
    FileNotFoundError
        If ``out`` has no ``evaluation.json``.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label, grey in (("cat", 40), ("dog", 200)):  # two 32 x 32 stimuli in the category layout
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (32, 32), (grey, grey, grey)).save(root / label / f"{label}1.png")
    >>> import torch
    >>> from torchvision.transforms import v2
    >>> from humanlike.models import evaluate
    >>> as_tensor = v2.Compose([v2.PILToTensor(), v2.ToDtype(torch.float32, scale=True)])  # no resize: fast
    >>> result = evaluate("torchvision:squeezenet1_1", root, weights="none", transform=as_tensor,
    ...                   layers=["features.0"], pool="avg")
    >>> doc = read_evaluation(write_evaluation([result], root / "evaluation"))
    >>> doc["format"], [(run["model"], run["experiment"] == root.name, run["layers"]) for run in doc["runs"]]
    ('humanlike-evaluation', [('squeezenet1_1', True, ['features.0'])])
    """
    path = Path(out) / EVALUATION_MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"{out}: not a humanlike evaluation folder (no {EVALUATION_MANIFEST})")
    return json.loads(path.read_text())
