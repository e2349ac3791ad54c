"""The model-vs-human benchmark's raw data: where it is (a folder given, ``$HUMANLIKE_MODELVSHUMAN``, the cache,
else a download from the public repository) and its trial table (:func:`load_modelvshuman`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .loaders import load_trials

PathLike = str | os.PathLike

ENV_MODELVSHUMAN = "HUMANLIKE_MODELVSHUMAN"
MODELVSHUMAN_URL = "https://github.com/bethgelab/model-vs-human/archive/refs/heads/master.zip"


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
