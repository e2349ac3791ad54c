"""The formats humanlike writes, each through :func:`~humanlike.files.atomic.atomic_write`: JSON (NaN and inf as
null), tidy tables as CSV, Parquet or JSON records, and matplotlib figures (PNG, PDF, SVG, without dates)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from .atomic import atomic_write

#: The table formats :func:`write_table` writes.
TABLE_FORMATS = ("csv", "parquet", "json")


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


def table_format(path, fmt: str | None = None) -> str:
    """The table format of a file: ``fmt``, else the suffix of ``path``, else CSV (``"pq"`` means Parquet).

    Parameters
    ----------
    path : path-like
        The file, with or without a suffix.
    fmt : {"csv", "parquet", "pq", "json"}, optional
        The format asked for (any case); default: the suffix of ``path``.

    Returns
    -------
    str
        One of :data:`TABLE_FORMATS`.

    Raises
    ------
    ValueError
        For an unknown format.

    Examples
    --------
    >>> table_format("out/summary"), table_format("out/summary.PQ"), table_format("out/summary.csv", "json")
    ('csv', 'parquet', 'json')
    """
    path = Path(path)
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
    fmt = table_format(path, fmt)
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
    fmt = table_format(Path(path), fmt)
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
