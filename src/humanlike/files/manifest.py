"""The run manifest: the record of a run's output files (size and sha256 of each), written last.

:func:`write_manifest` writes a complete one, :func:`read_manifest` reads one back, :func:`manifest_entry` is
one file's row. :class:`~humanlike.files.run_outputs.RunOutputs` keeps it up to date while a run writes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .formats import write_json


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: The manifest's file name in a run's output folder.
MANIFEST_NAME = "humanlike-manifest.json"
#: The ``format`` entry that marks a manifest as humanlike's.
MANIFEST_FORMAT = "humanlike-run-manifest"


def manifest_entry(out_dir, file, digest: bool = True) -> dict:
    """A manifest row: the path relative to ``out_dir`` where possible, and the file's size and sha256.

    Parameters
    ----------
    out_dir : path-like
        The run's output folder.
    file : path-like
        The file (it must exist when ``digest``).
    digest : bool
        Add ``bytes`` and ``sha256`` (False: only the path, for an in-progress manifest).

    Returns
    -------
    dict
        ``{"path": ...}``, with ``"bytes"`` and ``"sha256"`` when ``digest``.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.csv").write_text("x\\n1\\n")
    >>> entry = manifest_entry(d, d / "a.csv")
    >>> entry["path"], entry["bytes"], len(entry["sha256"])
    ('a.csv', 4, 64)
    """
    out_dir, file = Path(out_dir), Path(file)
    try:
        shown = file.resolve().relative_to(out_dir.resolve()).as_posix()
    except ValueError:
        shown = str(file)
    entry = {"path": shown}
    if digest:
        entry.update(bytes=file.stat().st_size, sha256=_sha256(file))
    return entry


def write_manifest(out_dir, files, settings=None, name: str = MANIFEST_NAME, **fields) -> Path:
    """Write the run manifest into ``out_dir``: every output file with its size and sha256, and
    ``complete: true``. Write it last: a folder without a complete manifest comes from an interrupted run.

    Parameters
    ----------
    out_dir : path
        The run's output folder; file paths are recorded relative to it where possible.
    files : iterable of path
        The files the run wrote (each must exist).
    settings : dict, optional
        The run's settings (e.g. ``ResamplingSettings.to_dict()``), stored as given.
    name : str
        File name of the manifest.
    **fields
        Further top-level entries (command, version, times, stale files).

    Returns
    -------
    pathlib.Path
        The manifest's path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.csv").write_text("x\\n1\\n")
    >>> doc = json.loads(write_manifest(d, [d / "a.csv"], {"seed": 0}).read_text())
    >>> doc["complete"], doc["files"][0]["path"], doc["files"][0]["bytes"]
    (True, 'a.csv', 4)
    """
    out_dir = Path(out_dir)
    entries = []
    for file in files:
        file = Path(file)
        if not file.is_file():
            raise FileNotFoundError(f"manifest: output {file} does not exist")
        entries.append(manifest_entry(out_dir, file))
    doc = {"format": MANIFEST_FORMAT, "version": 1, "complete": True, **fields, "files": entries,
           "settings": settings or {}}
    return write_json(doc, out_dir / name)


def read_manifest(out_dir, name: str = MANIFEST_NAME) -> dict | None:
    """The run manifest of ``out_dir`` as a dict, or None when there is none (or it is not ours / unreadable).

    Parameters
    ----------
    out_dir : path-like
        The run's output folder.
    name : str
        The manifest's file name (default :data:`MANIFEST_NAME`).

    Returns
    -------
    dict or None
        The parsed manifest; None for a missing or unreadable file, or JSON without a ``"files"`` list.

    Examples
    --------
    >>> import tempfile
    >>> read_manifest(tempfile.mkdtemp()) is None
    True
    """
    path = Path(out_dir) / name
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("files"), list) else None
