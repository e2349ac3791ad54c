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


def _unnamed_file(folder: Path) -> int | None:
    """A file descriptor of an unnamed file in ``folder`` (Linux ``O_TMPFILE``), or None where there is none.

    The file has no name until it is linked: if the process is killed (SIGKILL included) before that, the
    kernel frees it and nothing is left in the folder.
    """
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o666)
    except OSError:   # a file system without O_TMPFILE, or no write permission (the named path says which)
        return None


def _link_unnamed(fd: int, target: Path) -> bool:
    """Give the unnamed file of ``fd`` the name ``target`` (linkat through /proc, following the link)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        at_fdcwd, at_symlink_follow = -100, 0x400
        return libc.linkat(at_fdcwd, f"/proc/self/fd/{fd}".encode(), at_fdcwd, os.fsencode(target),
                           at_symlink_follow) == 0
    except (OSError, AttributeError):
        return False


def atomic_write(path, write, *, suffix: str = ".tmp", named: bool = False) -> Path:
    """The one atomic writer: ``write(tmp)`` into a temporary file in the same folder, then rename it into
    place, so a reader never sees a half-written file and a killed write leaves the old file intact.

    On Linux the temporary file is unnamed (``O_TMPFILE``) until the write is complete, so even a killed
    process (SIGKILL) leaves the old file and no temporary file behind; it is named for an instant only, to be
    renamed into place. Elsewhere (and for writers that need a ``suffix``) a named temporary file is used. The
    temporary file is removed on any failure, KeyboardInterrupt included, and the final file gets
    the permissions of a file created normally (0666 minus the umask), not mkstemp's private 0600. Every
    file humanlike writes goes through it (tables, JSON, figures, manifests, caches, representations,
    stimulus images, model outputs).

    Parameters
    ----------
    path : str or pathlib.Path
        The file to write (its folder is created).
    write : callable
        ``write(tmp: pathlib.Path)`` writes the whole content to ``tmp``.
    suffix : str
        Suffix of the temporary file, for writers that insist on one (``np.savez`` appends ``.npz`` to a
        name without it, ``np.save`` ``.npy``).
    named : bool
        The writer needs a temporary file with a name in the folder (it replaces it, e.g. by a hard link to
        an existing file), so the unnamed file is not used.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OutputPathError
        When ``path`` is a folder or its folder cannot be created or written.

    Examples
    --------
    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "note.txt"
    >>> atomic_write(target, lambda tmp: tmp.write_text("done")).read_text()
    'done'
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
    # np.savez/np.save append their suffix to a name without it: those writers get a named file.
    fd = _unnamed_file(path.parent) if suffix == ".tmp" and not named else None
    if fd is not None:
        tmp = None
        try:
            write(Path(f"/proc/self/fd/{fd}"))
            tmp = path.parent / f".{path.name}.{os.getpid()}.{fd}.tmp"
            tmp.unlink(missing_ok=True)
            if _link_unnamed(fd, tmp):
                os.chmod(tmp, 0o666 & ~_umask())
                os.replace(tmp, path)
                tmp = None
                return path
            tmp = None   # no link: write again through a named file below
        finally:
            os.close(fd)
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
    tmp = None
    try:
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
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
    return atomic_write(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))


def atomic_write_bytes(path, data: bytes) -> Path:
    """Write bytes to ``path`` atomically (as :func:`atomic_write_text` does text).

    Parameters
    ----------
    path : path-like
        The file to write.
    data : bytes
        Its content.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> atomic_write_bytes(Path(tempfile.mkdtemp()) / "x.bin", b"ab").read_bytes()
    b'ab'
    """
    return atomic_write(Path(path), lambda tmp: tmp.write_bytes(data))


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
    return atomic_write(Path(path), lambda tmp: tmp.write_text(to_json_text(obj) + "\n"))


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
        return atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
    if fmt == "parquet":
        return atomic_write(path, lambda tmp: frame.to_parquet(tmp, index=False))
    return atomic_write(path, lambda tmp: tmp.write_text(to_json_text(frame.to_dict("records")) + "\n"))


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
    # No creation date in SVG/PDF files: the same run writes the same bytes.
    undated = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}.get(fmt)
    import matplotlib

    def save(tmp):
        with matplotlib.rc_context({"svg.hashsalt": "humanlike"}):   # element ids from the content, not uuid4
            fig.savefig(tmp, format=fmt, dpi=150, bbox_inches="tight", metadata=undated)

    return atomic_write(path, save)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


MANIFEST_NAME = "humanlike-manifest.json"
MANIFEST_FORMAT = "humanlike-run-manifest"


def _entry(out_dir: Path, file: Path, digest: bool = True) -> dict:
    """A manifest row: the path relative to ``out_dir`` where possible, size and sha256."""
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
        entries.append(_entry(out_dir, file))
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


def check_output_folder(out_dir) -> Path:
    """Refuse, before any work, an output folder that cannot be made: a file on the way, or no write permission.

    Nothing is created.

    Parameters
    ----------
    out_dir : path-like
        The folder a run will write into (it and its parents may not exist yet).

    Returns
    -------
    pathlib.Path
        ``out_dir`` as a path.

    Raises
    ------
    OutputPathError
        Naming the path at fault: a file where a folder must be, or a folder without write permission.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_folder(d / "new" / "folder") == d / "new" / "folder"
    True
    >>> _ = (d / "a-file").write_text("x")
    >>> try:
    ...     check_output_folder(d / "a-file" / "out")
    ... except OutputPathError as err:
    ...     print(str(err).replace(str(d), "D").split(";")[0])
    D/a-file: exists and is not a folder
    """
    out_dir = Path(out_dir)
    probe = out_dir
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise OutputPathError(f"{probe}: exists and is not a folder; choose another output folder than {out_dir}")
    if probe.is_dir() and not os.access(probe, os.W_OK | os.X_OK):
        raise OutputPathError(f"{probe}: not writable (permission denied); cannot write {out_dir}")
    return out_dir


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunOutputs:
    """The files of one run: refuses (or renames) a second output to the same path, writes the manifest.

    ``on_collision="error"`` (default) raises :class:`OutputCollisionError` naming both outputs;
    ``"rename"`` writes the second as ``name-2.ext`` (``-3``, ...). Paths are compared after the
    format's suffix is applied, so ``summary`` as a table in JSON and a ``summary.json`` document collide.

    The run's manifest (:data:`MANIFEST_NAME` in ``out_dir``) is the record of what the run wrote. Before the
    first file is written it is replaced by an *in-progress* manifest (``"complete": false``, the files so
    far, updated after every file), and only :meth:`finish` writes ``"complete": true`` with every file's
    sha256. So an interrupted run never leaves a complete manifest that describes a mix of old and new
    files. Files a previous run recorded in its manifest that this run does not rewrite are listed under
    ``"stale"`` (never deleted: the folder may hold other work).

    Parameters
    ----------
    out_dir : path or None
        The run's output folder; None: no folder, no manifest (only the collision checks).
    on_collision : {"error", "rename"}
        What a second output to an already claimed path does.
    command : str, optional
        The command line, recorded in the manifest.
    settings : dict, optional
        The run's settings (``ResamplingSettings.to_dict()``).
    options : dict, optional
        The command's parsed options, recorded as given.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> run = RunOutputs(pathlib.Path(tempfile.mkdtemp()), on_collision="rename")
    >>> a = run.table(pd.DataFrame({"x": [1]}), run.out_dir / "summary", fmt="json")
    >>> b = run.json({"k": 1}, run.out_dir / "summary.json")
    >>> a.name, b.name
    ('summary.json', 'summary-2.json')
    >>> doc = json.loads(run.finish().read_text())
    >>> doc["complete"], [f["path"] for f in doc["files"]]
    (True, ['summary.json', 'summary-2.json'])
    """

    def __init__(self, out_dir, on_collision: str = "error", *, command: str | None = None,
                 settings: dict | None = None, options: dict | None = None):
        if on_collision not in ("error", "rename"):
            raise ValueError(f"on_collision must be 'error' or 'rename', not {on_collision!r}")
        self.out_dir = None if out_dir is None else Path(out_dir)
        self.on_collision = on_collision
        self.command = command
        self.settings = settings
        self.options = options
        self.files: list[Path] = []
        self._what: dict[Path, str] = {}
        self._started: str | None = None
        self._previous: list[str] = []

    def claim(self, path, what: str = "") -> Path:
        """Reserve ``path`` for this run and return the path to write (renamed on collision).

        Parameters
        ----------
        path : path-like
            The file the output would be written to.
        what : str
            The output's description for the collision error (default: the file name).

        Returns
        -------
        pathlib.Path
            ``path``, or ``stem-2.ext`` (``-3``, ...) when it is taken and ``on_collision="rename"``.

        Raises
        ------
        OutputCollisionError
            When ``path`` is taken and ``on_collision="error"``, naming both outputs.
        """
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

    # --- the manifest's life: in progress from the first file, complete at finish() ---------------------

    def _fields(self) -> dict:
        from . import __version__

        fields = {"humanlike_version": __version__, "started": self._started}
        if self.command is not None:
            fields["command"] = self.command
        if self.options is not None:
            fields["options"] = self.options
        return fields

    def _begin(self) -> None:
        if self.out_dir is None or self._started is not None:
            return
        self._started = _now()
        old = read_manifest(self.out_dir)
        if old is not None:
            # Files of the previous run (or runs, if it was interrupted) stay "previous" until rewritten.
            self._previous = list(dict.fromkeys(
                [str(p) for p in old.get("stale", [])] + [str(f.get("path")) for f in old["files"]
                                                          if isinstance(f, dict) and f.get("path")]))
        self._progress()

    def _progress(self) -> None:
        doc = {"format": MANIFEST_FORMAT, "version": 1, "complete": False, **self._fields(),
               "note": "run in progress or interrupted: the files listed may be mixed with a previous run's",
               "files": [_entry(self.out_dir, f, digest=False) for f in self.files],
               "stale": self._previous, "settings": self.settings or {}}
        write_json(doc, self.out_dir / MANIFEST_NAME)

    def _write(self, path, what: str, write) -> Path:
        # Every writer: claim the path (no two outputs share a file), start the manifest, write, record it.
        target = self.claim(path, what)
        self._begin()
        written = write(target)
        self.files.append(written)
        if self.out_dir is not None:
            self._progress()
        return written

    def _stale(self) -> list[str]:
        written = {_entry(self.out_dir, f, digest=False)["path"] for f in self.files}
        return [p for p in self._previous if p not in written and p != MANIFEST_NAME
                and (self.out_dir / p).is_file()]

    def start(self) -> RunOutputs:
        """Mark the run in progress now (done anyway by the first write); for files written by other code.

        Returns
        -------
        RunOutputs
            This object, with an in-progress manifest written into ``out_dir``.
        """
        self._begin()
        return self

    def record(self, *paths) -> list[Path]:
        """Add files written (atomically) by other code to the run's files.

        Parameters
        ----------
        *paths : path-like
            The files, already written; each is claimed as by :meth:`claim` (a collision raises there).

        Returns
        -------
        list of pathlib.Path
            The recorded paths.
        """
        paths = [Path(p) for p in paths]
        for path in paths:
            self.claim(path, f"file {path.name}")
        self._begin()
        self.files.extend(paths)
        if self.out_dir is not None:
            self._progress()
        return paths

    def finish(self, settings=None) -> Path | None:
        """Write the complete manifest of every file written (call it last); None without an output folder.

        Parameters
        ----------
        settings : dict, optional
            The run's settings, replacing those given to the constructor.

        Returns
        -------
        pathlib.Path or None
            The manifest file (``"complete": true``, every file with its sha256); None without ``out_dir``.
        """
        if self.out_dir is None:
            return None
        if settings is not None:
            self.settings = settings
        self._begin()
        return write_manifest(self.out_dir, self.files, self.settings, **self._fields(), finished=_now(),
                              stale=self._stale())

    def manifest(self, settings=None) -> Path | None:
        """Same as :meth:`finish` (the manifest of every file written so far; call it last).

        Parameters
        ----------
        settings : dict, optional
            The run's settings, replacing those given to the constructor.

        Returns
        -------
        pathlib.Path or None
            The manifest file; None without ``out_dir``.
        """
        return self.finish(settings)

    # --- writers ---------------------------------------------------------------------------------------

    def table(self, frame: pd.DataFrame, path, fmt: str | None = None) -> Path:
        """:func:`write_table` through :meth:`claim`.

        Parameters
        ----------
        frame : pandas.DataFrame
            The table.
        path : path-like
            The file; the format's suffix is added when missing.
        fmt : {"csv", "parquet", "json"}, optional
            Default: the suffix of ``path``, else CSV.

        Returns
        -------
        pathlib.Path
            The file written (renamed on a collision with ``on_collision="rename"``).
        """
        return self._write(table_path(path, fmt), f"table {Path(path).name}",
                           lambda target: write_table(frame, target, fmt))

    def add_table(self, frame: pd.DataFrame, name: str, fmt: str = "csv") -> Path:
        """A table of the run named ``name`` in ``out_dir``: ``name.csv``, ``name.parquet``, or in JSON
        ``name.table.json`` (so that it never collides with the run's JSON document ``name.json``).

        Parameters
        ----------
        frame : pandas.DataFrame
            The table.
        name : str
            The file name without suffix, in ``out_dir``.
        fmt : {"csv", "parquet", "json"}
            The table format (default CSV).

        Returns
        -------
        pathlib.Path
            The file written.
        """
        fmt = _table_format(Path(name), fmt)
        return self.table(frame, self.out_dir / (f"{name}.table.json" if fmt == "json" else name), fmt)

    def json(self, obj, path) -> Path:
        """:func:`write_json` through :meth:`claim`.

        Parameters
        ----------
        obj : object
            Anything :func:`to_json_text` takes.
        path : path-like
            The file.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        return self._write(path, f"document {Path(path).name}", lambda target: write_json(obj, target))

    def text(self, text: str, path) -> Path:
        """:func:`atomic_write_text` through :meth:`claim`.

        Parameters
        ----------
        text : str
            The file's content (UTF-8).
        path : path-like
            The file.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        return self._write(path, f"file {Path(path).name}", lambda target: atomic_write_text(target, text))

    def figure(self, fig, path) -> Path:
        """:func:`save_figure` through :meth:`claim`.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
            The figure (not closed).
        path : path-like
            The file; the format follows the suffix.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        return self._write(path, f"figure {Path(path).name}", lambda target: save_figure(fig, target))
