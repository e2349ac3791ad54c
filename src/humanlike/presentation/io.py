"""Files out: tidy tables as CSV/Parquet/JSON and figures, always written atomically."""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

TABLE_FORMATS = ("csv", "parquet", "json")


class OutputCollisionError(ValueError):
    """Two outputs of one run would be written to the same file (the second would overwrite the first).

    Raised by :class:`RunOutputs` (``on_collision="error"``); the message names the path and both outputs.

    Examples
    --------
    >>> import tempfile
    >>> run = RunOutputs(tempfile.mkdtemp())
    >>> _ = run.claim(run.out_dir / "summary.csv", "table summary")
    >>> try:
    ...     run.claim(run.out_dir / "summary.csv", "table summary")
    ... except OutputCollisionError as err:
    ...     print("summary.csv" in str(err))
    True
    """


class OutputPathError(ValueError):
    """An output cannot be written where asked (the folder is a file, or not writable).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "taken").write_text("a file, not a folder")
    >>> try:
    ...     write_json({}, folder / "taken" / "out.json")
    ... except OutputPathError as err:
    ...     print(str(err).endswith("exists and is not a folder; choose another output folder"))
    True
    """


def _umask() -> int:
    """The process umask, read without changing it where the OS tells it (Linux), else set and restored."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _atomic(path: Path, write) -> Path:
    """Write through a temporary file in the same folder and rename it into place, so a reader never
    sees a half-written file.

    The temporary file is removed on any failure, KeyboardInterrupt included, and the final file gets
    the permissions of a file created normally (0666 minus the umask), not mkstemp's private 0600.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"{path}: is a folder; cannot write a file there")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise OutputPathError(f"{path.parent}: exists and is not a folder; choose another output folder") from None
    except PermissionError:
        raise OutputPathError(f"{path.parent}: cannot be created (permission denied)") from None
    tmp = None
    try:
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        except PermissionError:
            raise OutputPathError(f"{path.parent}: not writable (permission denied)") from None
        os.close(fd)
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return path


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return None if not math.isfinite(float(obj)) else float(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    return obj


def to_json_text(obj) -> str:
    """JSON text with NaN/inf as null (JSON has no NaN).

    Parameters
    ----------
    obj : object
        Dicts, lists, tuples, numpy arrays and scalars, and plain JSON values, nested.

    Returns
    -------
    str
        Indented JSON (numpy scalars as plain numbers, non-finite floats as ``null``).

    Examples
    --------
    >>> import numpy as np
    >>> print(to_json_text({"estimate": np.float64(0.5), "ci": [np.nan, np.inf], "n": np.int64(3)}))
    {
      "estimate": 0.5,
      "ci": [
        null,
        null
      ],
      "n": 3
    }
    """
    return json.dumps(_jsonable(obj), indent=2, allow_nan=False)


def atomic_write_text(path, text: str) -> Path:
    """Write text (UTF-8) to ``path`` atomically (a temporary file renamed into place; folders are created).

    Parameters
    ----------
    path : path-like
        The file to write.
    text : str
        Its content.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    OutputPathError
        When the folder cannot be created or written, or ``path`` is a folder.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> atomic_write_text(folder / "sub" / "note.txt", "né").read_text(encoding="utf-8")
    'né'
    """
    return _atomic(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json(obj, path) -> Path:
    """Write ``obj`` as JSON atomically (NaN and inf as null).

    Parameters
    ----------
    obj : object
        Anything :func:`to_json_text` takes.
    path : path-like
        The file to write.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> json.loads(write_json({"sigma": float("nan"), "n": 2}, folder / "fit.json").read_text())
    {'sigma': None, 'n': 2}
    """
    return _atomic(Path(path), lambda tmp: tmp.write_text(to_json_text(obj) + "\n"))


def _table_format(path: Path, fmt: str | None) -> str:
    fmt = (fmt or path.suffix.lstrip(".") or "csv").lower()
    if fmt == "pq":
        fmt = "parquet"
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"unknown table format {fmt!r}; use one of {TABLE_FORMATS}")
    return fmt


def table_path(path, fmt: str | None = None) -> Path:
    """The path :func:`write_table` writes to: ``path`` with the format's suffix.

    Parameters
    ----------
    path : path-like
        The requested path, with or without a suffix.
    fmt : {"csv", "parquet", "json"}, optional
        The format (``"pq"`` means Parquet); default: the suffix of ``path``, else CSV.

    Returns
    -------
    pathlib.Path
        ``path`` when its suffix is the format's, else ``path`` with that suffix.

    Raises
    ------
    ValueError
        For an unknown format.

    Examples
    --------
    >>> table_path("out/summary", "parquet").name, table_path("out/summary.csv").name
    ('summary.parquet', 'summary.csv')
    """
    path = Path(path)
    fmt = _table_format(path, fmt)
    return path if path.suffix.lstrip(".").lower() == fmt else path.with_suffix("." + fmt)


def write_table(frame: pd.DataFrame, path, fmt: str | None = None) -> Path:
    """Write a tidy frame as CSV, Parquet or JSON (records), chosen by ``fmt`` or the file suffix.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (its index is not written).
    path : path-like
        The file; the format's suffix is added when missing (:func:`table_path`).
    fmt : {"csv", "parquet", "json"}, optional
        Default: the suffix of ``path``, else CSV.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import pandas as pd
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> path = write_table(pd.DataFrame({"observer": ["a"], "estimate": [0.25]}), folder / "summary")
    >>> path.name, path.read_text()
    ('summary.csv', 'observer,estimate\\na,0.25\\n')
    """
    fmt = _table_format(Path(path), fmt)
    path = table_path(path, fmt)
    if fmt == "csv":
        return _atomic(path, lambda tmp: frame.to_csv(tmp, index=False))
    if fmt == "parquet":
        return _atomic(path, lambda tmp: frame.to_parquet(tmp, index=False))
    return _atomic(path, lambda tmp: tmp.write_text(to_json_text(frame.to_dict("records")) + "\n"))


def save_figure(fig, path) -> Path:
    """Save a matplotlib figure atomically; the format follows the suffix (png, pdf, svg).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (saved at 150 dpi with a tight bounding box; not closed).
    path : path-like
        The file; no suffix means PNG.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> fig, ax = plt.subplots()
    >>> save_figure(fig, folder / "fig.png").read_bytes()[:4]
    b'\\x89PNG'
    >>> plt.close(fig)
    """
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    return _atomic(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150, bbox_inches="tight"))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


MANIFEST_NAME = "manifest.json"


def write_manifest(out_dir, files, settings=None, name: str = MANIFEST_NAME) -> Path:
    """Write the run manifest into ``out_dir``: every output file with its size and sha256, and
    ``complete: true``. Write it last: a folder without a manifest (or whose files do not match it) comes
    from an interrupted run.

    Parameters
    ----------
    out_dir : path
        The run's output folder; file paths are recorded relative to it where possible.
    files : iterable of path
        The files the run wrote (each must exist).
    settings : dict, optional
        The run's settings (command, options, seed, version), stored as given.
    name : str
        File name of the manifest.

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
        try:
            shown = str(file.resolve().relative_to(out_dir.resolve()))
        except ValueError:
            shown = str(file)
        entries.append({"path": shown, "bytes": file.stat().st_size, "sha256": _sha256(file)})
    doc = {"complete": True, "files": entries, "settings": settings or {}}
    return write_json(doc, out_dir / name)


class RunOutputs:
    """The files of one run: refuses (or renames) a second output to the same path, writes the manifest.

    ``on_collision="error"`` (default) raises :class:`OutputCollisionError` naming both outputs;
    ``"rename"`` writes the second as ``name-2.ext`` (``-3``, ...). Paths are compared after the
    format's suffix is applied, so ``summary`` as a table in JSON and a ``summary.json`` document collide.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> run = RunOutputs(pathlib.Path(tempfile.mkdtemp()), on_collision="rename")
    >>> a = run.table(pd.DataFrame({"x": [1]}), run.out_dir / "summary", fmt="json")
    >>> b = run.json({"k": 1}, run.out_dir / "summary.json")
    >>> a.name, b.name
    ('summary.json', 'summary-2.json')
    """

    def __init__(self, out_dir, on_collision: str = "error"):
        if on_collision not in ("error", "rename"):
            raise ValueError(f"on_collision must be 'error' or 'rename', not {on_collision!r}")
        self.out_dir = Path(out_dir)
        self.on_collision = on_collision
        self.files: list[Path] = []
        self._what: dict[Path, str] = {}

    def claim(self, path, what: str = "") -> Path:
        """Reserve ``path`` for this run and return the path to write (renamed on collision)."""
        path = Path(path)
        key = path.resolve()
        if key in self._what:
            if self.on_collision == "error":
                raise OutputCollisionError(
                    f"{path}: two outputs of this run would share this file ({self._what[key] or 'first'} and "
                    f"{what or 'second'}); the second would overwrite the first")
            i = 2
            while (path.with_name(f"{path.stem}-{i}{path.suffix}")).resolve() in self._what:
                i += 1
            path = path.with_name(f"{path.stem}-{i}{path.suffix}")
            key = path.resolve()
        self._what[key] = what or path.name
        return path

    def table(self, frame: pd.DataFrame, path, fmt: str | None = None) -> Path:
        """:func:`write_table` through :meth:`claim`."""
        target = self.claim(table_path(path, fmt), f"table {Path(path).name}")
        written = write_table(frame, target, fmt)
        self.files.append(written)
        return written

    def json(self, obj, path) -> Path:
        """:func:`write_json` through :meth:`claim`."""
        written = write_json(obj, self.claim(path, f"document {Path(path).name}"))
        self.files.append(written)
        return written

    def figure(self, fig, path) -> Path:
        """:func:`save_figure` through :meth:`claim`."""
        written = save_figure(fig, self.claim(path, f"figure {Path(path).name}"))
        self.files.append(written)
        return written

    def manifest(self, settings=None) -> Path:
        """Write the manifest of every file written so far (call it last)."""
        return write_manifest(self.out_dir, self.files, settings)
