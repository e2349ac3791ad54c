"""The files of one run: :class:`RunOutputs` writes every output of a command through the atomic writers,
refuses (or renames) a second output to the same file (:class:`OutputCollisionError`) and keeps the run's
manifest (:mod:`humanlike.files.manifest`) in progress until it finishes; :func:`check_output_folder` refuses,
before any work, a folder that cannot be written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .atomic import OutputPathError, atomic_write_text
from .formats import save_figure, table_format, table_path, write_json, write_table
from .manifest import MANIFEST_FORMAT, MANIFEST_NAME, manifest_entry, read_manifest, write_manifest


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


def file_in_folder(path, default_name: str) -> Path:
    """The file an output option names: ``path`` itself, or ``path / default_name`` when ``path`` is an existing
    folder (or is written with a trailing slash), so that a folder is always treated as a folder.

    Parameters
    ----------
    path : path-like
        The value of a file option (``--figure``, ``report --out``, ``export --out``).
    default_name : str
        The file's name inside a folder.

    Returns
    -------
    pathlib.Path
        The file to write.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> file_in_folder(d, "report.html") == d / "report.html"
    True
    >>> file_in_folder(d / "page.html", "report.html") == d / "page.html"
    True
    >>> file_in_folder("new-folder/", "report.html")
    PosixPath('new-folder/report.html')
    """
    text = os.fspath(path)
    path = Path(text)
    if path.is_dir() or text.endswith(("/", os.sep)):
        return path / default_name
    return path


def _inside(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def check_outputs_spare_inputs(outputs: dict, inputs) -> None:
    """Refuse, before any work, an output that would write over an input: the same path, an output folder that
    holds an input, or an output inside an input folder (a data folder read again would read the outputs).

    Parameters
    ----------
    outputs : dict of str to path-like
        The outputs by the option that names them (``{"--out": Path("report.html")}``); None values are skipped.
    inputs : iterable of path-like
        The files and folders the command reads.

    Raises
    ------
    OutputPathError
        Naming the output option, its path and the input.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> data = d / "trials.csv"
    >>> check_outputs_spare_inputs({"--out": d / "report.html"}, [data])
    >>> try:
    ...     check_outputs_spare_inputs({"--out": data}, [data])
    ... except OutputPathError as err:
    ...     print(str(err).replace(str(d), "D"))
    --out D/trials.csv would write over the input D/trials.csv; choose an output path outside the inputs
    >>> try:
    ...     check_outputs_spare_inputs({"--out": d}, [data])
    ... except OutputPathError as err:
    ...     print(str(err).replace(str(d), "D"))
    --out D is a folder that holds the input D/trials.csv; choose an output path outside the inputs
    """
    inputs = [(Path(p), Path(p).resolve()) for p in inputs if p is not None]
    for option, output in outputs.items():
        if output is None:
            continue
        target = Path(output).resolve()
        for given, source in inputs:
            if target == source:
                how = "would write over the input"
            elif _inside(source, target):
                how = "is a folder that holds the input"
            elif source.is_dir() and _inside(target, source):
                how = "would write into the input folder"
            else:
                continue
            raise OutputPathError(f"{option} {output} {how} {given}; choose an output path outside the inputs")


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
    >>> import json, tempfile, pathlib, pandas as pd
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
        from .. import __version__

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
               "files": [manifest_entry(self.out_dir, f, digest=False) for f in self.files],
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
        written = {manifest_entry(self.out_dir, f, digest=False)["path"] for f in self.files}
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
        fmt = table_format(Path(name), fmt)
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
