"""Files out: tidy tables as CSV/Parquet/JSON and figures, always written atomically."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

TABLE_FORMATS = ("csv", "parquet", "json")


def _atomic(path: Path, write) -> Path:
    """Write through a temporary file in the same folder and rename it into place, so a reader never
    sees a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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
    """JSON text with NaN/inf as null (JSON has no NaN)."""
    return json.dumps(_jsonable(obj), indent=2, allow_nan=False)


def atomic_write_text(path, text: str) -> Path:
    """Write text (UTF-8) to ``path`` atomically."""
    return _atomic(Path(path), lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json(obj, path) -> Path:
    return _atomic(Path(path), lambda tmp: tmp.write_text(to_json_text(obj) + "\n"))


def write_table(frame: pd.DataFrame, path, fmt: str | None = None) -> Path:
    """Write a tidy frame as CSV, Parquet or JSON (records), chosen by ``fmt`` or the file suffix."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".") or "csv").lower()
    if fmt == "pq":
        fmt = "parquet"
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"unknown table format {fmt!r}; use one of {TABLE_FORMATS}")
    if path.suffix.lstrip(".").lower() != fmt:
        path = path.with_suffix("." + fmt)
    if fmt == "csv":
        return _atomic(path, lambda tmp: frame.to_csv(tmp, index=False))
    if fmt == "parquet":
        return _atomic(path, lambda tmp: frame.to_parquet(tmp, index=False))
    return _atomic(path, lambda tmp: tmp.write_text(to_json_text(frame.to_dict("records")) + "\n"))


def save_figure(fig, path) -> Path:
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    return _atomic(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150, bbox_inches="tight"))
