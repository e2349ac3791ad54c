"""The one atomic writer: a temporary file renamed into place, so a reader never sees a half-written file.

:func:`atomic_write` is the only place that renames a file over its target; :func:`atomic_write_text` and
:func:`atomic_write_bytes` are its plain cases, :class:`OutputPathError` its refusal of a path that cannot be
written. The formats written through it (JSON, tables, figures) live in :mod:`humanlike.files.formats`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputPathError(ValueError):
    """An output cannot be written where asked (the folder is a file, or not writable).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "taken").write_text("a file, not a folder")
    >>> try:
    ...     atomic_write_text(folder / "taken" / "out.json", "{}")
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


def atomic_write(path, write, *, suffix: str = ".tmp", named: bool = False, mode: int | None = None) -> Path:
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
    mode : int, optional
        The file's permissions (e.g. ``0o600`` for a secret), set before the file gets its name; default: those
        of a file created normally.

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
    >>> oct(atomic_write(target.with_name("key"), lambda tmp: tmp.write_text("s"), mode=0o600).stat().st_mode)[-3:]
    '600'
    """
    path = Path(path)
    final_mode = (0o666 & ~_umask()) if mode is None else mode
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
            os.fchmod(fd, final_mode)
            tmp = path.parent / f".{path.name}.{os.getpid()}.{fd}.tmp"
            tmp.unlink(missing_ok=True)
            if _link_unnamed(fd, tmp):
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
        os.chmod(tmp, final_mode)
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return path


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
