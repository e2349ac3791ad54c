"""A cache of parsed trial tables, keyed by the bytes of everything that made them.

Parsing the model-vs-human raw data (hundreds of CSV files, image names aligned across observers) takes
seconds; reading the same table back from a Parquet file takes a small fraction of that. The cache key is a
BLAKE2b hash of

- the relative path, size and *content* of every file under the source folders (so an edited, added,
  removed or renamed file gives a new key; timestamps are not trusted),
- the loader's options, and
- the source code of the data layer that parses and validates (``loaders.py``, ``raw_data.py``, ``schema.py``
  and this module), so a changed parser never reads an old table.

A cached table can therefore never be stale. Where: ``$HUMANLIKE_CACHE`` if set, else
``$XDG_CACHE_HOME/humanlike`` or ``~/.cache/humanlike``; files ``trials-<key>.parquet``. Set
``HUMANLIKE_CACHE=off`` to switch it off. Writes are atomic (a temporary file renamed into place), and a cache
that cannot be written or read (read-only home, corrupt file) falls back to parsing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..files import OutputPathError, atomic_write

ENV_CACHE = "HUMANLIKE_CACHE"
OFF = ("off", "0", "no", "false", "none")
_CODE_FILES = ("loaders.py", "raw_data.py", "schema.py", "cache.py")


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is switched off (``HUMANLIKE_CACHE=off``).

    Returns
    -------
    pathlib.Path or None
        ``$HUMANLIKE_CACHE`` if set, else ``$XDG_CACHE_HOME/humanlike`` or ``~/.cache/humanlike``; ``None``
        when ``HUMANLIKE_CACHE`` is ``off``, ``0``, ``no``, ``false`` or ``none``.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"HUMANLIKE_CACHE": "off"}):
    ...     cache_dir() is None
    True
    >>> with mock.patch.dict(os.environ, {"HUMANLIKE_CACHE": "~/my-cache"}):
    ...     cache_dir() == Path.home() / "my-cache"
    True
    """
    configured = os.environ.get(ENV_CACHE)
    if configured is not None:
        if configured.strip().lower() in OFF:
            return None
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "humanlike"


def source_key(sources: Sequence[Path], options: Mapping[str, object]) -> str:
    r"""Hash of the files under ``sources`` (paths relative to each source, sizes, bytes), options and code.

    Parameters
    ----------
    sources : sequence of Path
        Files and folders (every file under a folder enters the key).
    options : mapping
        Loader options (their ``repr`` enters the key, in sorted key order).

    Returns
    -------
    str
        A BLAKE2b digest, 40 hex characters.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.csv").write_text("x\n1\n")
    >>> k1 = source_key([folder], {"pattern": "s"})
    >>> _ = (folder / "a.csv").write_text("x\n2\n")
    >>> k1 == source_key([folder], {"pattern": "s"}), k1 == source_key([folder], {"pattern": "t"})
    (False, False)
    """
    digest = hashlib.blake2b(digest_size=20)
    here = Path(__file__).resolve().parent
    for name in _CODE_FILES:
        digest.update(name.encode())
        digest.update((here / name).read_bytes())
    for key in sorted(options):
        digest.update(f"option {key}={options[key]!r}\n".encode())
    for order, source in enumerate(sources):
        source = Path(source)
        files = [source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())
        digest.update(f"source {order} {len(files)}\n".encode())
        for path in files:
            relative = path.name if source.is_file() else path.relative_to(source).as_posix()
            data = path.read_bytes()
            digest.update(f"{relative}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def cached_table(sources: Sequence[Path], options: Mapping[str, object], build: Callable[[], pd.DataFrame],
                 *, enabled: bool = True) -> pd.DataFrame:
    r"""The table ``build()`` makes from ``sources``, read from the cache when the same inputs made it before.

    Parameters
    ----------
    sources : sequence of Path
        The files and folders ``build`` reads (every file under a folder enters the key).
    options : mapping
        Everything else that changes the table (loader options).
    build : callable
        Makes the table (the slow path); its result is written to the cache.
    enabled : bool
        False bypasses the cache (as does ``HUMANLIKE_CACHE=off``).

    Returns
    -------
    pandas.DataFrame
        Equal to ``build()`` (dtypes included).

    Examples
    --------
    >>> import tempfile
    >>> from unittest import mock
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "data.csv").write_text("x\n1\n")
    >>> calls = []
    >>> def build():
    ...     calls.append(1)
    ...     return pd.read_csv(folder / "data.csv")
    >>> with mock.patch.dict(os.environ, {"HUMANLIKE_CACHE": str(folder / "cache")}):
    ...     first = cached_table([folder / "data.csv"], {}, build)
    ...     again = cached_table([folder / "data.csv"], {}, build)  # read back from the cache
    >>> len(calls), again.equals(first)
    (1, True)
    """
    folder = cache_dir() if enabled else None
    if folder is None:
        return build()
    path = folder / f"trials-{source_key(sources, options)}.parquet"
    if path.is_file():
        try:
            return pd.read_parquet(path)
        except (OSError, ValueError):
            pass  # unreadable (e.g. truncated by a full disk): parse again and overwrite
    table = build()
    try:
        atomic_write(path, lambda tmp: table.to_parquet(tmp, index=False))
    except (OSError, OutputPathError):
        pass  # a cache that cannot be written only costs speed
    return table
