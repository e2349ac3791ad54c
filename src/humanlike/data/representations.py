"""Representations: features per image (images x units) with item ids.

Stand-in with the lead's announced API (``Representation``, ``save_representation``,
``load_representation``, ``align_representations``); the lead's version on main replaces this file.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass(frozen=True, eq=False)
class Representation:
    """Features of images: ``features`` (images x units, float32), unique ``items``, ``labels``."""

    features: np.ndarray
    items: np.ndarray
    labels: np.ndarray
    name: str = ""
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        features = np.asarray(self.features, dtype=np.float32)
        if features.ndim != 2:
            raise ValueError(f"features must be (images x units), got shape {features.shape}")
        items = np.asarray(self.items).astype(str)
        labels = np.asarray(self.labels).astype(str)
        if items.shape != (features.shape[0],) or labels.shape != (features.shape[0],):
            raise ValueError("items and labels need one entry per row of features")
        if len(np.unique(items)) != len(items):
            raise ValueError("items must be unique")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "labels", labels)


def save_representation(rep: Representation, path) -> Path:
    """Write ``rep`` to an ``.npz`` file atomically."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp.npz")
    os.close(fd)
    try:
        np.savez(tmp, features=rep.features, items=rep.items, labels=rep.labels,
                 name=np.asarray(rep.name), metadata=np.asarray(json.dumps(rep.metadata)))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _load_file(path: Path) -> Representation:
    with np.load(path, allow_pickle=False) as data:
        return Representation(data["features"], data["items"], data["labels"], str(data["name"]),
                              json.loads(str(data["metadata"])))


def load_representation(path) -> Representation:
    """Read an ``.npz`` file, or a folder of shard ``.npz`` files concatenated in name order."""
    path = Path(path)
    if path.is_dir():
        shards = [_load_file(p) for p in sorted(path.glob("*.npz"))]
        if not shards:
            raise FileNotFoundError(f"{path}: no .npz shards")
        return Representation(np.concatenate([s.features for s in shards]),
                              np.concatenate([s.items for s in shards]),
                              np.concatenate([s.labels for s in shards]), shards[0].name, shards[0].metadata)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such representation file")
    return _load_file(path)


def align_representations(a: Representation, b: Representation) -> tuple[Representation, Representation]:
    """Both restricted to their shared items, in ``a``'s order."""
    shared = [i for i in a.items if i in set(b.items)]
    ia = {v: k for k, v in enumerate(a.items)}
    ib = {v: k for k, v in enumerate(b.items)}
    sa = np.array([ia[i] for i in shared], dtype=int)
    sb = np.array([ib[i] for i in shared], dtype=int)
    return (Representation(a.features[sa], a.items[sa], a.labels[sa], a.name, a.metadata),
            Representation(b.features[sb], b.items[sb], b.labels[sb], b.name, b.metadata))
