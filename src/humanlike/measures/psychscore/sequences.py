"""Difference-scaling stimulus sequences: alpha blends of two object images (RichardWebster et al. 2023).

For every pair of classes (A, B) the instance pairs (a of A, b of B) with the highest mask overlap
(Jaccard index |a∩b|/|a∪b|) are chosen; each image is converted to grey as (R+G+B)/3 and blurred with a
Gaussian (σ = 3 px), and the sequence is the alpha blend a′(1−α) + b′α at ``n_levels`` equally spaced
α from 0 to 1. A class pair is always oriented by sorted class names (A is the alphabetically first
class): the skewness of a scale changes sign when a sequence is reversed, so every observer must see
the same orientation.

The sequences are written as PNG files with a manifest CSV in the model layer's manifest format
(``item, path, label, experiment, condition``; paths relative to the CSV) plus ``sequence, class_a,
class_b, level, alpha, instance_a, instance_b, jaccard``. ``level`` is 1-based (level 1 is image a).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...files import atomic_write
from .blending import blend_alphas, blend_sequence, jaccard_matrix, top_pairs

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
MANIFEST_NAME = "manifest.csv"
EXPERIMENT = "psychophysical-score"
MANIFEST_COLUMNS = ("item", "path", "label", "experiment", "condition", "sequence", "class_a", "class_b",
                    "level", "alpha", "instance_a", "instance_b", "jaccard")


class SequenceError(ValueError):
    """Bad input to the sequence builder: an empty class, images of different sizes, an unknown class.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> build_sequences(objects, classes=["bar", "cat"])
    Traceback (most recent call last):
        ...
    humanlike.measures.psychscore.sequences.SequenceError: classes ['cat'] are not in the image set (have ['bar', 'square'])
    """


@dataclass
class ObjectImages:
    """Grey images and object masks of one stimulus set, grouped by class.

    Usually read by :func:`load_object_images`.

    Attributes
    ----------
    grey : dict of str to numpy.ndarray
        ``grey[c]`` is an (instances, H, W) float array in 0..255.
    masks : dict of str to numpy.ndarray
        ``masks[c]`` the matching boolean object masks.
    names : dict of str to list of str
        ``names[c]`` the file stems (``airplane1``).
    root : pathlib.Path, optional
        The folder the images came from.

    Examples
    --------
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> objects.classes, int(objects.masks["square"].sum())
    (['bar', 'square'], 16)
    """

    grey: dict[str, np.ndarray]
    masks: dict[str, np.ndarray]
    names: dict[str, list[str]]
    root: Path | None = None

    @property
    def classes(self) -> list[str]:
        """The sorted class names."""
        return sorted(self.grey)


def to_grey(image: np.ndarray) -> np.ndarray:
    """Grey value (R+G+B)/3 of an RGB(A) or grey uint8 image, as float32 in 0..255 (alpha is ignored).

    Parameters
    ----------
    image : numpy.ndarray, (H, W), (H, W, 1), (H, W, 3) or (H, W, 4)
        A grey or RGB(A) image.

    Returns
    -------
    numpy.ndarray of float32, (H, W)
        The grey image.

    Raises
    ------
    SequenceError
        For an array of another shape.

    Examples
    --------
    >>> to_grey(np.array([[[30, 60, 90]]], dtype=np.uint8))
    array([[60.]], dtype=float32)
    """
    image = np.asarray(image)
    if image.ndim == 2:
        return image.astype(np.float32)
    if image.ndim != 3 or image.shape[2] not in (1, 3, 4):
        raise SequenceError(f"expected a grey or RGB(A) image, got an array of shape {image.shape}")
    if image.shape[2] == 1:
        return image[..., 0].astype(np.float32)
    return image[..., :3].astype(np.float64).mean(axis=2).astype(np.float32)


def object_mask(grey: np.ndarray, threshold: float = 127.5) -> np.ndarray:
    """Object pixels: those farther than ``threshold`` grey levels from the background.

    The background is the median of the image border (white for the silhouettes, so the mask is
    their dark pixels).

    Parameters
    ----------
    grey : numpy.ndarray, (H, W)
        A grey image in 0..255.
    threshold : float, default 127.5
        Distance from the background grey level above which a pixel is object.

    Returns
    -------
    numpy.ndarray of bool, (H, W)
        The object mask.

    Examples
    --------
    >>> g = np.full((4, 4), 255.0); g[1:3, 1:3] = 0
    >>> int(object_mask(g).sum())
    4
    """
    grey = np.asarray(grey, dtype=np.float64)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    background = np.median(border)
    return np.abs(grey - background) > threshold


def _read_image(path: Path) -> np.ndarray:
    from PIL import Image

    try:
        with Image.open(path) as img:
            if img.mode not in ("L", "RGB", "RGBA"):
                img = img.convert("RGB")
            return np.asarray(img)
    except OSError as err:
        raise SequenceError(f"cannot read image {path}: {err}") from None


def load_object_images(folder, classes=None, mask_threshold: float = 127.5) -> ObjectImages:
    """Read a stimulus set laid out as ``folder/<class>/<image>`` (e.g. the filled silhouettes).

    Parameters
    ----------
    folder : path
        One sub-folder per class holding that class's images.
    classes : sequence of str, optional
        Only these classes (default: every sub-folder holding images).
    mask_threshold : float
        Grey-level distance from the background above which a pixel belongs to the object.

    Returns
    -------
    ObjectImages
        Images sorted naturally by file name within each class (``cat2`` before ``cat10``).

    Raises
    ------
    FileNotFoundError
        If the folder does not exist.
    SequenceError
        For fewer than two classes, unknown classes, images of different sizes or an empty object mask.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> root = Path(tempfile.mkdtemp())
    >>> for cls, (rows, cols) in {"bar": (slice(1, 7), slice(3, 5)), "square": (slice(2, 6), slice(2, 6))}.items():
    ...     img = np.full((8, 8), 255, dtype=np.uint8); img[rows, cols] = 0
    ...     (root / cls).mkdir()
    ...     Image.fromarray(img).save(root / cls / f"{cls}1.png")
    >>> objects = load_object_images(root)
    >>> objects.classes, objects.names["bar"], objects.grey["bar"].shape, int(objects.masks["bar"].sum())
    (['bar', 'square'], ['bar1'], (1, 8, 8), 12)
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"image folder {root} does not exist")
    available = sorted(p.name for p in root.iterdir()
                       if p.is_dir() and any(f.suffix.lower() in IMAGE_SUFFIXES for f in p.iterdir()))
    if classes is None:
        chosen = available
    else:
        chosen = sorted(dict.fromkeys(str(c) for c in classes))
        unknown = [c for c in chosen if c not in available]
        if unknown:
            raise SequenceError(f"classes {unknown} not found in {root} (available: {available})")
    if len(chosen) < 2:
        raise SequenceError(f"{root}: need at least two classes with images, found {chosen}")
    grey, masks, names = {}, {}, {}
    shape = None
    for cls in chosen:
        files = sorted((f for f in (root / cls).iterdir() if f.suffix.lower() in IMAGE_SUFFIXES),
                       key=lambda f: _natural_key(f.stem))
        images = [to_grey(_read_image(f)) for f in files]
        for f, img in zip(files, images):
            if shape is None:
                shape = img.shape
            elif img.shape != shape:
                raise SequenceError(f"{f}: image size {img.shape} differs from {shape}; all images of a "
                                    "stimulus set must have one size to be blended")
        grey[cls] = np.stack(images)
        masks[cls] = np.stack([object_mask(img, mask_threshold) for img in images])
        names[cls] = [f.stem for f in files]
        empty = [n for n, m in zip(names[cls], masks[cls]) if not m.any()]
        if empty:
            raise SequenceError(f"class {cls!r}: images {empty} have an empty object mask "
                                f"(threshold {mask_threshold})")
    return ObjectImages(grey, masks, names, root)


def _natural_key(text: str):
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


@dataclass
class SequenceSet:
    """Blend sequences of several class pairs.

    Built by :func:`build_sequences`; images are produced on demand by :meth:`images` so that 1,200
    sequences of 224×224 images never sit in memory at once.

    Attributes
    ----------
    objects : ObjectImages
        The images the sequences blend.
    pairs : pandas.DataFrame
        One row per sequence: ``sequence, class_a, class_b, instance_a, instance_b, index_a, index_b,
        jaccard``.
    alphas : numpy.ndarray
        The blend weights, one per level.
    blur : float
        σ of the Gaussian blur in pixels.

    Examples
    --------
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> sequences.pairs[["sequence", "instance_a", "instance_b", "jaccard"]].values.tolist()
    [['bar-square-00', 'bar1', 'square1', 0.4]]
    >>> sequences.n_levels, float(sequences.images(0)[1, 1, 3])  # halfway between dark (bar) and white (square)
    (3, 127.5)
    """

    objects: ObjectImages
    pairs: pd.DataFrame
    alphas: np.ndarray
    blur: float
    _blurred: dict = field(default_factory=dict, repr=False)

    @property
    def n_levels(self) -> int:
        """Number of blend levels per sequence."""
        return len(self.alphas)

    def class_pairs(self) -> list[tuple[str, str]]:
        """The (A, B) class pairs, A < B, in sorted order.

        Returns
        -------
        list of tuple of str
            One entry per class pair with at least one sequence.
        """
        return sorted(set(zip(self.pairs["class_a"], self.pairs["class_b"])))

    def blurred_image(self, cls: str, index: int) -> np.ndarray:
        """The grey, blurred image ``index`` of class ``cls`` (cached).

        Parameters
        ----------
        cls : str
            Class name.
        index : int
            Position of the instance within the class.

        Returns
        -------
        numpy.ndarray of float64, (H, W)
            The image blurred with σ = ``blur`` (unblurred when ``blur`` is 0).
        """
        key = (cls, index)
        if key not in self._blurred:
            from scipy.ndimage import gaussian_filter

            img = self.objects.grey[cls][index].astype(np.float64)
            self._blurred[key] = gaussian_filter(img, self.blur, mode="nearest") if self.blur > 0 else img
        return self._blurred[key]

    def images(self, row: int) -> np.ndarray:
        """The (levels, H, W) float64 images of sequence ``row`` (grey levels 0..255).

        Parameters
        ----------
        row : int
            Row of :attr:`pairs`.

        Returns
        -------
        numpy.ndarray of float64, (levels, H, W)
            The blends of the two blurred end images.
        """
        rec = self.pairs.iloc[row]
        a = self.blurred_image(rec["class_a"], int(rec["index_a"]))
        b = self.blurred_image(rec["class_b"], int(rec["index_b"]))
        return blend_sequence(a, b, self.alphas)

    def iter_images(self):
        """Yield ``(sequence id, images)`` for every sequence in order.

        Yields
        ------
        sequence : str
            The sequence id.
        images : numpy.ndarray, (levels, H, W)
            Its images, as :meth:`images` returns them.
        """
        for row, seq in enumerate(self.pairs["sequence"]):
            yield seq, self.images(row)


def build_sequences(objects: ObjectImages, pairs_per_class_pair: int = 10, n_levels: int = 7,
                    blur: float = 3.0, classes=None) -> SequenceSet:
    """Choose instance pairs by mask overlap and define their blend sequences.

    Parameters
    ----------
    objects : ObjectImages
        From :func:`load_object_images`.
    pairs_per_class_pair : int
        The k instance pairs with the highest Jaccard index per class pair (instances may recur in
        several pairs; ties are broken by instance order).
    n_levels : int
        Blend levels α = 0, 1/(n−1), …, 1.
    blur : float
        σ of the Gaussian blur in pixels (0: none).
    classes : sequence of str, optional
        A subset of the classes (all class pairs among them are built).

    Returns
    -------
    SequenceSet
        One sequence per chosen instance pair, class pairs oriented by sorted class names.

    Raises
    ------
    SequenceError
        For unknown classes, fewer than two classes, ``pairs_per_class_pair < 1`` or a negative blur.

    Examples
    --------
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=5)
    >>> sequences.class_pairs(), sequences.alphas.tolist()
    ([('bar', 'square')], [0.0, 0.25, 0.5, 0.75, 1.0])
    """
    if pairs_per_class_pair < 1:
        raise SequenceError("pairs_per_class_pair must be at least 1")
    if blur < 0:
        raise SequenceError("blur must be non-negative")
    alphas = blend_alphas(n_levels)
    names = objects.classes if classes is None else sorted(dict.fromkeys(str(c) for c in classes))
    unknown = [c for c in names if c not in objects.grey]
    if unknown:
        raise SequenceError(f"classes {unknown} are not in the image set (have {objects.classes})")
    if len(names) < 2:
        raise SequenceError("need at least two classes to form a class pair")
    rows = []
    for class_a, class_b in itertools.combinations(names, 2):
        jac = jaccard_matrix(objects.masks[class_a], objects.masks[class_b])
        ia, ib = top_pairs(jac, pairs_per_class_pair)
        for rank, (i, j) in enumerate(zip(ia, ib)):
            rows.append({
                "sequence": f"{class_a}-{class_b}-{rank:02d}", "class_a": class_a, "class_b": class_b,
                "instance_a": objects.names[class_a][i], "instance_b": objects.names[class_b][j],
                "index_a": int(i), "index_b": int(j), "jaccard": float(jac[i, j])})
    return SequenceSet(objects, pd.DataFrame(rows), alphas, float(blur))


def sequence_manifest(sequences: SequenceSet, image_dir: str = "images") -> pd.DataFrame:
    """The manifest frame (one row per image) of a sequence set; ``path`` relative to the manifest.

    Parameters
    ----------
    sequences : SequenceSet
        The sequences.
    image_dir : str, default "images"
        Folder of the images, relative to the manifest.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, path, label, experiment, condition, sequence, class_a, class_b, level, alpha,
        instance_a, instance_b, jaccard``; ``level`` is 1-based.

    Examples
    --------
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> sequence_manifest(sequences)[["item", "path", "level", "alpha"]].values.tolist()[1]
    ['bar-square-00-2', 'images/bar-square-00-2.png', 2, 0.5]
    """
    rows = []
    for rec in sequences.pairs.itertuples(index=False):
        for level, alpha in enumerate(sequences.alphas, start=1):
            item = f"{rec.sequence}-{level}"
            rows.append({
                "item": item, "path": f"{image_dir}/{item}.png", "label": f"{rec.class_a}-{rec.class_b}",
                "experiment": EXPERIMENT, "condition": f"{alpha:.4f}", "sequence": rec.sequence,
                "class_a": rec.class_a, "class_b": rec.class_b, "level": level, "alpha": float(alpha),
                "instance_a": rec.instance_a, "instance_b": rec.instance_b, "jaccard": rec.jaccard})
    return pd.DataFrame(rows, columns=list(MANIFEST_COLUMNS))


def write_sequences(sequences: SequenceSet, out, image_dir: str = "images") -> Path:
    """Write every blend image as an 8-bit grey PNG and the manifest; returns the manifest path.

    Grey values are rounded to the nearest integer (PNG holds 8 bits); observers that work in memory
    (pixel, Gabor) use the unrounded images. Files are written atomically.

    Parameters
    ----------
    sequences : SequenceSet
        The sequences.
    out : path
        Output folder (created if needed).
    image_dir : str, default "images"
        Sub-folder of ``out`` for the PNGs.

    Returns
    -------
    pathlib.Path
        The manifest CSV (``out/manifest.csv``).

    Examples
    --------
    >>> import tempfile
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> path = write_sequences(sequences, tempfile.mkdtemp())
    >>> path.name, sorted(p.name for p in (path.parent / "images").iterdir())
    ('manifest.csv', ['bar-square-00-1.png', 'bar-square-00-2.png', 'bar-square-00-3.png'])
    """
    from PIL import Image

    out = Path(out)
    (out / image_dir).mkdir(parents=True, exist_ok=True)
    for seq, images in sequences.iter_images():
        for level, img in enumerate(images, start=1):
            pixels = np.clip(np.rint(img), 0, 255).astype(np.uint8)
            path = out / image_dir / f"{seq}-{level}.png"
            atomic_write(path, lambda tmp, px=pixels: Image.fromarray(px, mode="L").save(tmp, format="PNG"))
    manifest = sequence_manifest(sequences, image_dir)
    path = out / MANIFEST_NAME
    atomic_write(path, lambda tmp: manifest.to_csv(tmp, index=False))
    return path


def read_sequence_manifest(path) -> pd.DataFrame:
    """Read and check a sequence manifest written by :func:`write_sequences` (paths made absolute).

    Parameters
    ----------
    path : path
        The manifest CSV, or the folder holding ``manifest.csv``.

    Returns
    -------
    pandas.DataFrame
        The manifest with absolute ``path`` values.

    Raises
    ------
    FileNotFoundError
        If there is no manifest.
    SequenceError
        For missing columns, a sequence without exactly the levels 1..n, or a class pair oriented against
        sorted class names.

    Examples
    --------
    >>> import tempfile
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> folder = write_sequences(sequences, tempfile.mkdtemp()).parent
    >>> frame = read_sequence_manifest(folder)
    >>> frame["level"].tolist(), Path(frame["path"][0]).is_absolute()
    ([1, 2, 3], True)
    """
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_NAME
    if not path.is_file():
        raise FileNotFoundError(f"sequence manifest {path} does not exist")
    frame = pd.read_csv(path, dtype={"item": str, "sequence": str, "class_a": str, "class_b": str})
    missing = [c for c in ("item", "path", "sequence", "class_a", "class_b", "level") if c not in frame]
    if missing:
        raise SequenceError(f"{path}: manifest lacks columns {missing}")
    frame["path"] = [str((path.parent / p).resolve()) for p in frame["path"]]
    levels = frame.groupby("sequence")["level"].apply(lambda s: tuple(sorted(s)))
    expected = tuple(range(1, int(frame["level"].max()) + 1))
    bad = [seq for seq, lv in levels.items() if lv != expected]
    if bad:
        raise SequenceError(f"{path}: sequences {bad[:5]} do not hold levels 1..{expected[-1]} once each")
    reversed_pairs = frame["class_a"] > frame["class_b"]
    if reversed_pairs.any():
        raise SequenceError(f"{path}: sequence {frame.loc[reversed_pairs, 'sequence'].iloc[0]!r} is oriented "
                            "from the later to the earlier class name; class pairs must be oriented by "
                            "sorted class names")
    return frame


class ManifestSequences:
    """The sequences of a manifest, for the in-memory observers (pixel, Gabor).

    Only the two end images of every sequence are read (levels 1 and n, i.e. the blurred grey a′ and
    b′); the observers blend them exactly as the writer did, so the interior PNGs (rounded to 8 bits)
    are not needed. ``pairs`` and ``alphas`` mirror :class:`SequenceSet`.

    Parameters
    ----------
    manifest : path or pandas.DataFrame
        A manifest path (read with :func:`read_sequence_manifest`) or the frame it returns.

    Examples
    --------
    >>> import tempfile
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> loaded = ManifestSequences(write_sequences(sequences, tempfile.mkdtemp()))
    >>> loaded.n_levels, loaded.pairs["sequence"].tolist(), float(loaded.blurred_image("bar", 0)[1, 3])
    (3, ['bar-square-00'], 0.0)
    """

    def __init__(self, manifest):
        frame = manifest if isinstance(manifest, pd.DataFrame) else read_sequence_manifest(manifest)
        n_levels = int(frame["level"].max())
        if "alpha" in frame:
            alphas = frame[frame["sequence"] == frame["sequence"].iloc[0]].sort_values("level")["alpha"].to_numpy(float)
        else:
            alphas = blend_alphas(n_levels)
        self.alphas = alphas
        ends = frame[frame["level"].isin([1, n_levels])].sort_values(["sequence", "level"])
        first = ends[ends["level"] == 1].set_index("sequence")
        last = ends[ends["level"] == n_levels].set_index("sequence")
        self._paths: list[str] = []
        index: dict[str, int] = {}

        def code(path: str) -> int:
            if path not in index:
                index[path] = len(self._paths)
                self._paths.append(path)
            return index[path]

        self.pairs = pd.DataFrame({
            "sequence": first.index.to_numpy(), "class_a": first["class_a"].to_numpy(),
            "class_b": first["class_b"].to_numpy(),
            "index_a": [code(p) for p in first["path"]], "index_b": [code(p) for p in last.loc[first.index, "path"]]})
        self._cache: dict[int, np.ndarray] = {}

    @property
    def n_levels(self) -> int:
        """Number of blend levels per sequence."""
        return len(self.alphas)

    def blurred_image(self, cls: str, index: int) -> np.ndarray:  # noqa: ARG002 - same call as SequenceSet
        """The end image ``index`` (grey, as written).

        Parameters
        ----------
        cls : str
            Class name (unused: ``index`` already names the file; kept for the :class:`SequenceSet` call).
        index : int
            Index of the end image (``index_a`` / ``index_b`` of :attr:`pairs`).

        Returns
        -------
        numpy.ndarray of float64, (H, W)
            The grey image, read once and cached.
        """
        if index not in self._cache:
            self._cache[index] = to_grey(_read_image(Path(self._paths[index]))).astype(np.float64)
        return self._cache[index]
