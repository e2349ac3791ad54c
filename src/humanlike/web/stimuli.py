"""The stimuli of a study, read from a folder of images, a stimulus manifest, the folder ``humanlike evaluate``
reads/writes, or the sequence manifest ``humanlike sequences`` writes.

The server never shows a file name: each stimulus gets an opaque id in the database
(:mod:`humanlike.web.db`) and is served only under that id, from inside the stimulus root.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..measures.psychscore.sequences import MANIFEST_NAME, read_sequence_manifest
from ..trials.stimuli import discover_stimuli
from .config import StudyConfig, StudyConfigError, stimulus_source

MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".bmp": "image/bmp"}


def classification_source(source: Path) -> Path:
    """The folder or manifest to read images from (an evaluation folder lists its images in stimuli.csv).

    Parameters
    ----------
    source : pathlib.Path
        The ``--stimuli`` argument: a folder, a manifest CSV or an evaluation folder.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> classification_source(Path("no/such/folder")).as_posix()
    'no/such/folder'
    """
    # An evaluation folder (evaluation.json) lists its images in stimuli.csv.
    if source.is_dir() and (source / "evaluation.json").is_file() and (source / "stimuli.csv").is_file():
        return source / "stimuli.csv"
    return source


def _sequence_source(source: Path) -> Path:
    return source / MANIFEST_NAME if source.is_dir() else source


def classification_labels(source: Path) -> list[str]:
    """The sorted labels of a classification stimulus source.

    Parameters
    ----------
    source : pathlib.Path
        A folder, a manifest CSV or an evaluation folder.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label in ("dog", "cat"):
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (4, 4)).save(root / label / f"{label}1.png")
    >>> classification_labels(root)
    ['cat', 'dog']
    """
    return sorted(set(discover_stimuli(classification_source(source), check=False)["label"]))


def stimulus_root(config: StudyConfig, study: Path) -> Path:
    """The folder every stimulus of the study must lie in.

    Parameters
    ----------
    config : StudyConfig
        The study (keys ``stimuli`` and ``stimulus_root``).
    study : path
        The study folder.

    Returns
    -------
    pathlib.Path
        ``stimulus_root`` when set, else the stimulus folder (or the manifest's folder).

    Examples
    --------
    >>> config = StudyConfig(title="t", task="triads", stimuli="/data/sequences/manifest.csv")
    >>> stimulus_root(config, Path("/data/study")).as_posix()
    '/data/sequences'
    """
    if config.stimulus_root:
        root = Path(config.stimulus_root).expanduser()
        return (root if root.is_absolute() else Path(study) / root).resolve()
    source = stimulus_source(config, study)
    return source if source.is_dir() else source.parent


def read_stimuli(config: StudyConfig, study: Path) -> pd.DataFrame:
    """The study's stimuli, one row per image: ``key`` (path relative to the stimulus root), ``path``
    (absolute), and the task's columns (classify: ``item, label, experiment, condition``; triads/quads:
    ``sequence, level, alpha, class_a, class_b``).

    Parameters
    ----------
    config : StudyConfig
        The study.
    study : path
        The study folder.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    StudyConfigError
        For a stimulus outside the stimulus root, a label outside the study's label set, a file type the
        browser cannot show, or an unreadable source (the underlying reader's message).

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.config import load_config
    >>> from humanlike.web.demo import make_demo
    >>> study = make_demo(Path(tempfile.mkdtemp()))["triads"]
    >>> stimuli = read_stimuli(load_config(study), study)
    >>> row = stimuli.iloc[1]
    >>> row["key"], row["sequence"], int(row["level"]), float(row["alpha"])
    ('images/circle-cross-00-2.png', 'circle-cross-00', 2, 0.25)
    """
    source = stimulus_source(config, study)
    root = stimulus_root(config, study)
    if not source.exists():
        raise StudyConfigError(f"key 'stimuli': {source} does not exist")
    if config.task == "classify":
        frame = discover_stimuli(classification_source(source))
        frame = frame[["item", "path", "label", "experiment", "condition"]].copy()
        unknown = sorted(set(frame["label"]) - set(config.labels))
        if unknown:
            raise StudyConfigError(f"stimulus labels {unknown} are not in the study's label set (key 'labels')")
    else:
        try:
            manifest = read_sequence_manifest(_sequence_source(source))
        except FileNotFoundError:
            raise StudyConfigError(f"key 'stimuli': {source} holds no sequence manifest ({MANIFEST_NAME}); "
                                   "write one with `humanlike sequences`") from None
        frame = manifest[["path", "sequence", "level", "alpha", "class_a", "class_b"]].copy()
        frame["sequence"] = frame["sequence"].astype(str)
        frame["level"] = frame["level"].astype(int)
        frame["alpha"] = frame["alpha"].astype(float)
        levels = frame.groupby("sequence")["level"].nunique()
        need = 3 if config.task == "triads" else 4
        short = levels[levels < need]
        if len(short):
            raise StudyConfigError(f"sequence {short.index[0]!r} has {int(short.iloc[0])} levels; "
                                   f"{config.task} need at least {need}")
    keys = []
    for path in frame["path"]:
        resolved = Path(path).resolve()
        if not resolved.is_relative_to(root):
            raise StudyConfigError(f"stimulus {path} lies outside the stimulus folder {root}; the server serves "
                                   "files from inside it only (set 'stimulus_root' to a folder holding them all)")
        if resolved.suffix.lower() not in MEDIA_TYPES:
            raise StudyConfigError(f"stimulus {path}: browsers cannot show {resolved.suffix!r} files; "
                                   f"use one of {sorted(MEDIA_TYPES)}")
        keys.append(resolved.relative_to(root).as_posix())
    frame.insert(0, "key", keys)
    frame["path"] = [str(Path(p).resolve()) for p in frame["path"]]
    return frame.reset_index(drop=True)
