"""Representations: features of a system (a model layer, recorded neurons) per image, with item ids and labels.

File format (``.npz``, written by :func:`save_representation` and by ``humanlike evaluate --layers``):

=============  ==========================  =======================================================
key            shape / type                meaning
=============  ==========================  =======================================================
``features``   (images, units) float32     one row per image
``labels``     (images,) str               class of each image
``items``      (images,) str, optional     item id of each image (default ``"0"``, ``"1"``, …)
``name``       () str, optional            system name, e.g. ``"torchvision:resnet50/layer3"``
``metadata``   () str, optional            a JSON object (model, weights, layer, pooling, …)
=============  ==========================  =======================================================

A *folder* of such ``.npz`` files (shards of one large run, e.g. ``part-00000.npz`` …) is read as one
representation, the shards concatenated in file-name order. Item ids must be unique.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..files import atomic_write


class RepresentationError(ValueError):
    """A representation (or its file) is malformed; the message names the file and what is wrong.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> Representation(np.zeros(3), ["a", "b", "c"], ["x", "y", "y"], name="toy")
    Traceback (most recent call last):
        ...
    humanlike.trials.representations.RepresentationError: representation 'toy': features must be 2-D (images x units), got shape (3,)
    """


@dataclass(frozen=True)
class Representation:
    """Features of one system: images x units, with item ids and class labels.

    Parameters
    ----------
    features : array_like
        (images, units) numeric array; stored as float32.
    items : array_like
        (images,) unique item ids (strings).
    labels : array_like
        (images,) class labels (strings).
    name : str
        Name of the system (e.g. ``"resnet50/layer3"``).
    metadata : dict
        JSON-serialisable facts about how the features were made.

    Examples
    --------
    >>> r = Representation(np.eye(3), ["a", "b", "c"], ["x", "x", "y"], name="toy")
    >>> r.features.shape, r.classes
    ((3, 3), ['x', 'y'])
    """

    features: np.ndarray
    items: np.ndarray
    labels: np.ndarray
    name: str = ""
    metadata: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = f"representation '{self.name}'" if self.name else "representation"
        features = np.asarray(self.features)
        if features.ndim != 2:
            raise RepresentationError(f"{where}: features must be 2-D (images x units), got shape {features.shape}")
        if not np.issubdtype(features.dtype, np.number):
            raise RepresentationError(f"{where}: features must be numeric, got dtype {features.dtype}")
        features = features.astype(np.float32, copy=False)
        items = np.asarray(self.items).astype(str)
        labels = np.asarray(self.labels).astype(str)
        n = features.shape[0]
        for what, values in (("items", items), ("labels", labels)):
            if values.shape != (n,):
                raise RepresentationError(f"{where}: {what} must have one entry per image ({n}), got shape {values.shape}")
        if not np.all(np.isfinite(features)):
            bad = items[~np.isfinite(features).all(axis=1)]
            raise RepresentationError(f"{where}: features contain NaN or inf for {bad.size} image(s), e.g. {[str(x) for x in bad[:3]]}")
        unique, counts = np.unique(items, return_counts=True)
        if (counts > 1).any():
            raise RepresentationError(f"{where}: item ids must be unique; repeated: {[str(x) for x in unique[counts > 1][:5]]}")
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "metadata", dict(self.metadata))

    @property
    def n_images(self) -> int:
        """Number of images (rows)."""
        return int(self.features.shape[0])

    @property
    def n_units(self) -> int:
        """Number of units (columns)."""
        return int(self.features.shape[1])

    @property
    def classes(self) -> list[str]:
        """The sorted class labels."""
        return sorted(set(self.labels.tolist()))

    def subset(self, items) -> Representation:
        """The rows of the given item ids, in that order (KeyError naming missing ids).

        Parameters
        ----------
        items : array_like of str
            Item ids to keep.

        Returns
        -------
        Representation
            A new representation with those rows (same name and metadata).

        Raises
        ------
        KeyError
            If an item id is not in the representation.
        """
        position = {item: k for k, item in enumerate(self.items)}
        wanted = np.asarray(items).astype(str)
        missing = [i for i in wanted if i not in position]
        if missing:
            raise KeyError(f"representation '{self.name}': {len(missing)} item(s) not found, e.g. {missing[:3]}")
        idx = np.fromiter((position[i] for i in wanted), dtype=int, count=wanted.size)
        return Representation(self.features[idx], self.items[idx], self.labels[idx], self.name, self.metadata)


def save_representation(representation: Representation, path) -> Path:
    """Write a representation as ``.npz`` atomically (a temporary file renamed into place).

    Parameters
    ----------
    representation : Representation
        The features to write.
    path : path
        Target file (parent folders are created).

    Returns
    -------
    pathlib.Path
        The written file.

    Examples
    --------
    >>> import tempfile
    >>> r = Representation(np.eye(3), ["a", "b", "c"], ["x", "x", "y"], name="toy", metadata={"layer": "fc"})
    >>> path = save_representation(r, Path(tempfile.mkdtemp()) / "toy.npz")
    >>> back = load_representation(path)
    >>> back.name, back.metadata, back.items.tolist(), bool((back.features == r.features).all())
    ('toy', {'layer': 'fc'}, ['a', 'b', 'c'], True)
    """
    metadata = np.asarray(json.dumps(representation.metadata, sort_keys=True, default=str))
    return atomic_write(Path(path), suffix=".tmp.npz", write=lambda tmp: np.savez(
        tmp, features=representation.features, items=representation.items, labels=representation.labels,
        name=np.asarray(representation.name), metadata=metadata))


def load_representation(path) -> Representation:
    """Read a representation from an ``.npz`` file or a folder of ``.npz`` shards (see the module docs).

    Parameters
    ----------
    path : path
        An ``.npz`` file, or a folder whose ``*.npz`` shards are concatenated in file-name order.

    Returns
    -------
    Representation
        The features, item ids (default ``"0"``, ``"1"``, … when the file has none), labels, name and
        metadata.

    Raises
    ------
    RepresentationError
        For a missing file, an empty folder, missing arrays or malformed content (naming the file).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for k in range(2):
    ...     _ = save_representation(Representation(np.full((2, 4), k), [f"{k}a", f"{k}b"], ["x", "y"], "net"),
    ...                             folder / f"part-{k:05d}.npz")
    >>> r = load_representation(folder)
    >>> r.n_images, r.n_units, r.items.tolist(), r.name
    (4, 4, ['0a', '0b', '1a', '1b'], 'net')
    """
    path = Path(path)
    if path.is_dir():
        shards = sorted(path.glob("*.npz"))
        if not shards:
            raise RepresentationError(f"{path}: folder holds no .npz representation files")
        parts = [_read_npz(p) for p in shards]
        names = {p.name for p in parts}
        return Representation(np.concatenate([p.features for p in parts]),
                              np.concatenate([p.items for p in parts]),
                              np.concatenate([p.labels for p in parts]),
                              parts[0].name if len(names) == 1 else "", parts[0].metadata)
    if not path.exists():
        raise RepresentationError(f"{path}: no such file")
    return _read_npz(path)


def align_representations(a: Representation, b: Representation) -> tuple[Representation, Representation]:
    """Both representations restricted to their shared items, in the same (sorted) order.

    Parameters
    ----------
    a, b : Representation
        The two representations.

    Returns
    -------
    a, b : Representation
        Both restricted to the shared item ids, sorted.

    Raises
    ------
    RepresentationError
        If they share no item, or a shared item has different labels in the two.

    Examples
    --------
    >>> a = Representation(np.eye(3), ["i1", "i2", "i3"], ["x", "x", "y"], name="a")
    >>> b = Representation(np.ones((2, 5)), ["i3", "i1"], ["y", "x"], name="b")
    >>> a2, b2 = align_representations(a, b)
    >>> a2.items.tolist(), b2.items.tolist(), a2.features.shape, b2.features.shape
    (['i1', 'i3'], ['i1', 'i3'], (2, 3), (2, 5))
    """
    shared = np.intersect1d(a.items, b.items)
    if shared.size == 0:
        raise RepresentationError(f"representations '{a.name}' and '{b.name}' share no item ids "
                                  f"(e.g. {list(a.items[:2])} vs {list(b.items[:2])})")
    a2, b2 = a.subset(shared), b.subset(shared)
    differ = a2.labels != b2.labels
    if differ.any():
        raise RepresentationError(f"representations '{a.name}' and '{b.name}' give different labels to "
                                  f"{int(differ.sum())} item(s), e.g. {list(shared[differ][:3])}")
    return a2, b2


def _read_npz(path: Path) -> Representation:
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = set(data.files)
            missing = {"features", "labels"} - keys
            if missing:
                raise RepresentationError(f"{path}: missing array(s) {sorted(missing)}; a representation file "
                                          "needs 'features' and 'labels' (and optionally 'items')")
            features = data["features"]
            labels = data["labels"]
            items = data["items"] if "items" in keys else np.arange(features.shape[0]).astype(str)
            name = str(data["name"]) if "name" in keys else path.stem
            metadata = json.loads(str(data["metadata"])) if "metadata" in keys else {}
    except RepresentationError:
        raise
    except (OSError, ValueError, json.JSONDecodeError) as err:
        raise RepresentationError(f"{path}: not a readable representation file ({err})") from err
    try:
        return Representation(features, items, labels, name, metadata)
    except RepresentationError as err:
        raise RepresentationError(f"{path}: {err}") from err

