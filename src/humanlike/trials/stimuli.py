"""Stimulus sets: find the images, their items, labels, experiments and conditions.

Everything that runs an observer on images (models, psychophysics sequences) describes its stimuli with
one **stimulus manifest**: a table with one row per image and the columns

==========  ===========================================================================================
item        stimulus id, unique within (experiment, condition); the value trial tables use in ``item``
path        the image file (absolute in the DataFrame; relative to the CSV's folder or absolute on disk)
label       true class (category) of the image
experiment  experiment / data set name
condition   condition (distortion level), always a string; ``"0"`` for single-condition sets
==========  ===========================================================================================

A manifest CSV with these columns (``experiment`` and ``condition`` may be left out; they then take the
defaults below) is a stimulus set. So are folders in two layouts:

* **category layout** ``ROOT/<category>/<image>`` (model-vs-human's ``edges``, ``filled-silhouettes``):
  label = folder name, item = file name (e.g. ``airplane1.png``, the name model-vs-human's model rows
  use), experiment = ``ROOT``'s name unless given, condition ``"0"``;
* **benchmark layout** ``ROOT/<experiment>/<condition>/<category>/<image>``, or
  ``ROOT/<experiment>/<condition>/<image>`` with model-vs-human file names
  (``0001_cl_dnn_cr_oven_40_n04111531_14126.png``: trial, experiment code, subject, condition, category,
  ...) from which the label is read.

This module reads only file names and image headers (Pillow, when installed); it never imports torch.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ..files import atomic_write

MANIFEST_COLUMNS = ("item", "path", "label", "experiment", "condition")
DEFAULT_CONDITION = "0"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".ppm", ".pgm")


class StimulusError(ValueError):
    """A stimulus set (folder, manifest or image) is malformed; the message names the file at fault.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> discover_stimuli("no/such/folder")
    Traceback (most recent call last):
        ...
    humanlike.trials.stimuli.StimulusError: no/such/folder: no such stimulus folder or manifest
    """


def _is_image(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES and not path.name.startswith(".")


def _images_below(root: Path) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if _is_image(path):
                found.append(path)
    return found


def _label_from_benchmark_name(path: Path) -> str:
    # model-vs-human names: <trial>_<exp>_<subject>_<condition>_<category>_<...>_<image>
    fields = path.name.split("_")
    if len(fields) < 6 or not fields[0].isdigit():
        raise StimulusError(
            f"{path}: cannot tell this image's category: in the layout <experiment>/<condition>/<image> the "
            "file name must follow model-vs-human's NNNN_exp_subject_condition_category_... pattern; put the "
            "images in <category> folders instead, or use a manifest CSV")
    return fields[4]


def _from_folder(root: Path, experiment: str | None) -> pd.DataFrame:
    images = _images_below(root)
    if not images:
        raise StimulusError(f"{root}: no images found (looked for {', '.join(IMAGE_SUFFIXES)} files)")
    depths = {len(p.relative_to(root).parts) for p in images}
    if len(depths) > 1:
        shallow = min(images, key=lambda p: len(p.relative_to(root).parts))
        deep = max(images, key=lambda p: len(p.relative_to(root).parts))
        raise StimulusError(
            f"{root}: images at different folder depths ({shallow.relative_to(root)} vs "
            f"{deep.relative_to(root)}); use <category>/<image> or <experiment>/<condition>/<category>/<image>")
    depth = depths.pop()
    rows = []
    for path in images:
        parts = path.relative_to(root).parts
        if depth == 2:
            rows.append((parts[-1], parts[0], experiment or root.name, DEFAULT_CONDITION))
        elif depth == 3:
            rows.append((parts[-1], _label_from_benchmark_name(path), parts[0], parts[1]))
        elif depth == 4:
            rows.append((parts[-1], parts[2], parts[0], parts[1]))
        else:
            raise StimulusError(
                f"{root}: images must lie in <category>/<image> or <experiment>/<condition>/[<category>/]<image>,"
                f" found {path.relative_to(root)}")
    frame = pd.DataFrame(rows, columns=["item", "label", "experiment", "condition"])
    frame.insert(1, "path", [str(p.resolve()) for p in images])
    if depth > 2 and experiment is not None:
        frame = frame[frame["experiment"] == experiment]
        if frame.empty:
            raise StimulusError(f"{root}: no experiment folder named {experiment!r}")
    return _dedupe_items(frame, root)


def _dedupe_items(frame: pd.DataFrame, root: Path) -> pd.DataFrame:
    """File names are the item ids; where one name occurs in two categories, use ``category/name``."""
    key = ["experiment", "condition", "item"]
    clash = frame.duplicated(key, keep=False)
    if clash.any():
        frame = frame.copy()
        frame.loc[clash, "item"] = frame.loc[clash, "label"] + "/" + frame.loc[clash, "item"]
        if frame.duplicated(key).any():
            dup = frame.loc[frame.duplicated(key, keep=False), "path"].head(2).tolist()
            raise StimulusError(f"{root}: two images have the same item id: {dup}")
    return frame.reset_index(drop=True)


def _from_manifest(frame: pd.DataFrame, base: Path | None, source: str, experiment: str | None) -> pd.DataFrame:
    frame = frame.copy()
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in ("item", "path", "label") if c not in frame.columns]
    if missing:
        raise StimulusError(f"{source}: manifest is missing column(s) {missing}; needs {list(MANIFEST_COLUMNS)}")
    if frame.empty:
        raise StimulusError(f"{source}: manifest has no rows")
    if "experiment" not in frame.columns:
        if experiment is None and base is None:
            raise StimulusError(f"{source}: manifest has no 'experiment' column; pass experiment=")
        frame["experiment"] = experiment or base.name
    if "condition" not in frame.columns:
        frame["condition"] = DEFAULT_CONDITION
    for column in MANIFEST_COLUMNS:
        empty = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if empty.any():
            row = int(empty.to_numpy().nonzero()[0][0])
            raise StimulusError(f"{source}: column '{column}' is empty in row {row} (item {frame['item'].iloc[row]!r})")
        frame[column] = frame[column].astype(str).str.strip()
    paths = []
    for raw in frame["path"]:
        path = Path(raw).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
        paths.append(str(path.resolve()))
    frame["path"] = paths
    if experiment is not None:
        frame = frame[frame["experiment"] == experiment]
        if frame.empty:
            raise StimulusError(f"{source}: no rows for experiment {experiment!r}")
    dup = frame.duplicated(["experiment", "condition", "item"], keep=False)
    if dup.any():
        raise StimulusError(f"{source}: item {frame.loc[dup, 'item'].iloc[0]!r} appears twice in one condition")
    return frame[list(MANIFEST_COLUMNS)].reset_index(drop=True)


def discover_stimuli(source, *, experiment: str | None = None, check: bool = True) -> pd.DataFrame:
    """The stimulus manifest of a folder, a manifest CSV, or a manifest DataFrame.

    Parameters
    ----------
    source : path or DataFrame
        A folder in the category or benchmark layout (see the module docstring), a manifest ``.csv``
        file (relative paths are taken relative to its folder), or a DataFrame with the manifest columns.
    experiment : str, optional
        The experiment name. For a category-layout folder it names the experiment (default: the folder's
        name); for a benchmark-layout folder or a manifest that lists several experiments it selects one.
    check : bool
        Check that every image exists and can be opened (Pillow reads the header only). Errors name the file.

    Returns
    -------
    DataFrame
        Columns ``item, path, label, experiment, condition`` (all strings, absolute paths).

    Raises
    ------
    StimulusError
        For a missing folder or file, an empty folder, a mixed layout, a bad manifest, duplicated items,
        or (``check=True``) a missing, unreadable or corrupt image.

    Examples
    --------
    A folder in the category layout:

    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for label in ("cat", "dog"):
    ...     (root / label).mkdir()
    ...     Image.new("RGB", (8, 8)).save(root / label / f"{label}1.png")
    >>> manifest = discover_stimuli(root, experiment="edge")
    >>> manifest.columns.tolist()
    ['item', 'path', 'label', 'experiment', 'condition']
    >>> manifest[["item", "label", "experiment", "condition"]].values.tolist()
    [['cat1.png', 'cat', 'edge', '0'], ['dog1.png', 'dog', 'edge', '0']]
    """
    if isinstance(source, pd.DataFrame):
        manifest = _from_manifest(source, None, "manifest", experiment)
    else:
        path = Path(source).expanduser()
        if not path.exists():
            raise StimulusError(f"{path}: no such stimulus folder or manifest")
        if path.is_dir():
            manifest = _from_folder(path.resolve(), experiment)
        elif path.suffix.lower() == ".csv":
            try:
                table = pd.read_csv(path, dtype=str, keep_default_na=False)
            except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
                raise StimulusError(f"{path}: not a readable manifest CSV ({err})") from None
            manifest = _from_manifest(table, path.resolve().parent, str(path), experiment)
        else:
            raise StimulusError(f"{path}: expected a stimulus folder or a manifest .csv")
    if check:
        check_images(manifest["path"])
    return manifest


def check_images(paths: Iterable[str]) -> None:
    """Raise :class:`StimulusError` naming the first image that is missing, unreadable or not an image.

    Uses Pillow's header check (``Image.verify``) when Pillow is installed, else only checks that each
    file exists and is readable.

    Parameters
    ----------
    paths : iterable of str
        Image files.

    Raises
    ------
    StimulusError
        For the first missing, unreadable or corrupt image.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> folder = Path(tempfile.mkdtemp())
    >>> Image.new("L", (4, 4)).save(folder / "good.png")
    >>> _ = (folder / "bad.png").write_bytes(b"not a png")
    >>> check_images([str(folder / "good.png")])  # passes silently
    >>> try:
    ...     check_images([str(folder / "good.png"), str(folder / "bad.png")])
    ... except StimulusError as err:
    ...     print(Path(str(err).split(":")[0]).name)
    bad.png
    """
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:  # pragma: no cover - pillow comes with the models extra
        Image = None
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise StimulusError(f"{path}: image file not found")
        if not os.access(path, os.R_OK):
            raise StimulusError(f"{path}: image file is not readable (permissions)")
        if Image is None:
            continue
        try:
            with Image.open(path) as image:
                image.verify()
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
            raise StimulusError(f"{path}: not a readable image ({err})") from None


def write_manifest(manifest: pd.DataFrame, path) -> Path:
    """Write a manifest CSV with paths relative to the CSV's folder where possible (portable folders).

    Written atomically (a temporary file renamed into place).

    Parameters
    ----------
    manifest : pandas.DataFrame
        A stimulus manifest (columns ``item, path, label, experiment, condition``).
    path : path
        Target CSV (parent folders are created).

    Returns
    -------
    pathlib.Path
        The written file.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> manifest = pd.DataFrame({"item": ["cat1.png"], "path": [str(root / "cat" / "cat1.png")], "label": ["cat"],
    ...                          "experiment": ["toy"], "condition": ["0"]})
    >>> out = write_manifest(manifest, root / "manifest.csv")
    >>> pd.read_csv(out)["path"].tolist()
    ['cat/cat1.png']
    >>> discover_stimuli(out, check=False)["path"].tolist() == manifest["path"].tolist()
    True
    """
    path = Path(path)
    base = path.resolve().parent
    frame = manifest[list(MANIFEST_COLUMNS)].copy()

    def relative(p: str) -> str:
        try:
            return Path(os.path.relpath(p, base)).as_posix()
        except ValueError:  # another drive on Windows
            return p

    frame["path"] = frame["path"].map(relative)
    return atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
