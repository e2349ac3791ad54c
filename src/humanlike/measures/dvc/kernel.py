"""The DVC of representations on the resampling engine: the design (one stratum per class) and the kernel.

Strata are the classes (key ``("dvc", class)``; items: the class's images, resampled within class and paired
across the two systems). With the PCA scores of a split fixed, everything the pipeline needs from a class is
a weighted sum of per-image statistics: per fold, the count, the scores ``y`` (all halves stacked, minus the
class centre) and their products ``y y'`` (upper triangle). :class:`DVCKernel` returns these sums — one
float32 matrix product per class, split and fold — and
:class:`~humanlike.measures.dvc.aggregation.DVCAggregation` does the rest per split: the
training moments (all folds in-sample; the other folds for cross-validated DVs), a two-class LDA per class pair
and half, the within-class DV covariances as bilinear forms of the moments
(:func:`humanlike.measures.dvc.metric.fold_dv_covariances`: no image's DV is formed), correlations, the split
normalisation and the means over (class, pair) values and over splits.

Column layout of a class's kernel output (float32, the precision of the products): per *slot* (a split and one of its views containing the
class) and fold, ``[count, first (D), second (D(D+1)/2)]``; with Spearman correlations the class's weights
follow (the ranks need the images). Two row layouts:

* all splits (the estimate, the jackknife, ``split_bootstrap="all"``): every slot of every split;
* rotate (bootstrap resamples with ``split_bootstrap="rotate"``): column 0 is the split ``r mod S`` of
  resample r, then that split's slots only; the aggregation re-centres its value on that split's estimate.

A *view* is one PCA fit per half: with ``pca_scope="all"`` one per split (all classes, all pairs); with
``"pair"`` one per split and class pair (the two classes' images only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...trials.design import Design, Stratum

HALVES = 4


@dataclass
class ClassScores:
    """One class in one view: its scores minus the class centre, rows in fold order.

    Made by :func:`class_scores`.

    Attributes
    ----------
    centre : numpy.ndarray
        (D,) float64: the class's mean score.
    centred : numpy.ndarray
        (images x D) float32: the scores minus ``centre``, rows in fold order.
    fold_bounds : numpy.ndarray
        (folds + 1,) int: fold f is rows ``fold_bounds[f]:fold_bounds[f + 1]`` of ``centred``.

    Examples
    --------
    >>> one = ClassScores(np.zeros(2), np.zeros((3, 2), dtype=np.float32), np.array([0, 1, 3]))
    >>> one.centred.shape, np.diff(one.fold_bounds).tolist()
    ((3, 2), [1, 2])
    """

    centre: np.ndarray          # (D,) float64
    centred: np.ndarray         # (n, D) float32, fold order
    fold_bounds: np.ndarray     # (F + 1,)


@dataclass
class View:
    """The PCA scores of one split fitted on some classes, and the class pairs evaluated from them.

    Attributes
    ----------
    split : int
        The split repeat.
    pairs : numpy.ndarray
        Global indices of the class pairs evaluated in this view (``numpy.triu_indices(classes, k=1)`` order).
    scores : dict of int to ClassScores
        Class index -> that class's scores in this view (the classes the PCA was fitted on).

    Examples
    --------
    >>> one = class_scores(np.zeros((2, 4)), np.arange(2), np.array([0, 2]))
    >>> view = View(0, np.array([0]), {0: one, 1: one})
    >>> sorted(view.scores), view.pairs.tolist()
    ([0, 1], [0])
    """

    split: int
    pairs: np.ndarray                   # global pair indices
    scores: dict[int, ClassScores]      # class index -> scores


def class_scores(scores: np.ndarray, order: np.ndarray, fold_bounds: np.ndarray) -> ClassScores:
    """A class's :class:`ClassScores` from its (images x D) scores in stratum order and its fold order.

    Parameters
    ----------
    scores : numpy.ndarray
        (images x D) PCA scores of the class's images, in stratum order.
    order : numpy.ndarray
        (images,) int: the stratum position of each fold-ordered row.
    fold_bounds : numpy.ndarray
        (folds + 1,) int: the fold boundaries in fold order.

    Returns
    -------
    ClassScores
        The centre (float64) and the centred scores (float32) in fold order.

    Examples
    --------
    >>> one = class_scores(np.array([[0.0, 2.0], [2.0, 0.0]]), np.array([1, 0]), np.array([0, 2]))
    >>> one.centre.tolist(), one.centred.tolist()
    ([1.0, 1.0], [[1.0, -1.0], [-1.0, 1.0]])
    """
    z = np.asarray(scores, dtype=np.float64)[order]
    centre = z.mean(axis=0)
    return ClassScores(centre, (z - centre).astype(np.float32), fold_bounds)


def moment_statistics(centred: np.ndarray) -> np.ndarray:
    """Per-image statistics ``[1, y, upper(y y')]`` (images x (1 + D + D(D+1)/2), float32; the upper triangle
    row by row, as ``numpy.triu_indices``).

    Parameters
    ----------
    centred : numpy.ndarray
        (images x D) centred scores ``y``.

    Returns
    -------
    numpy.ndarray
        (images x (1 + D + D(D+1)/2)) float32: per image the constant 1, ``y`` and the upper triangle of
        ``y y'`` (a transposed view; matrix products take it as it is).

    Examples
    --------
    >>> moment_statistics(np.array([[1.0, 2.0]], dtype=np.float32)).tolist()
    [[1.0, 1.0, 2.0, 1.0, 2.0, 4.0]]
    """
    n, dim = centred.shape
    # Built statistic by statistic (rows of the transpose: contiguous writes); returned as the transposed view,
    # which matrix products take as it is.
    by_image = np.ascontiguousarray(np.asarray(centred, dtype=np.float32).T)           # (D, n)
    out = np.empty((1 + dim + dim * (dim + 1) // 2, n), dtype=np.float32)
    out[0] = 1.0
    out[1:1 + dim] = by_image
    start = 1 + dim
    for a in range(dim):
        np.multiply(by_image[a:], by_image[a], out=out[start:start + dim - a])
        start += dim - a
    return out.T


class DVCKernel:
    """Engine kernel: a class's weighted moments of the PCA scores, per split, view and fold.

    Parameters
    ----------
    views : list of list of View
        Per split its views.
    classes : list of str
        Class names; the stratum ``("dvc", name)`` is class ``classes.index(name)``.
    orders : list of numpy.ndarray
        Per class the fold order (stratum position of each fold-ordered row).
    rotate : bool
        Bootstrap resample r goes through split ``r mod S`` only.
    with_weights : bool
        Append the class's weights (fold order) to every row (Spearman DVs need the images).
    cache_bytes : int
        Memory for the per-image statistics kept between chunks (beyond it they are recomputed).

    Examples
    --------
    Two classes of 6 images with D = 4 scores (one per half), in two folds of 3:

    >>> rng = np.random.default_rng(0)
    >>> scores = {c: class_scores(rng.normal(size=(6, 4)), np.arange(6), np.array([0, 3, 6])) for c in (0, 1)}
    >>> kernel = DVCKernel([[View(0, np.array([0]), scores)]], ["a", "b"], [np.arange(6)] * 2, rotate=False)
    >>> stratum = list(class_design(["a", "b"], [6, 6]))[0]
    >>> kernel.width(stratum)                       # 2 folds x (1 + 4 + 10)
    30
    >>> rows = kernel.evaluate(stratum, np.ones((2, 6)))
    >>> rows.shape, rows[0, [0, 15]].tolist()        # the counts of the two folds
    ((2, 30), [3.0, 3.0])
    """

    measure = "decision-variable correlation"  # names the engine's undefined-share warning

    def __init__(self, views: list[list[View]], classes: list[str], orders: list[np.ndarray], *, rotate: bool,
                 with_weights: bool = False, cache_bytes: int = 1024**3) -> None:
        self.views = views
        self.classes = list(classes)
        self.index = {c: k for k, c in enumerate(self.classes)}
        self.orders = orders
        self.rotate = rotate
        self.with_weights = with_weights
        self.cache_bytes = cache_bytes
        self._cache: dict[tuple, list[np.ndarray]] = {}
        self._cached = 0
        # Per class and split: the views that contain the class, in view order.
        self.slots = [[[v for v, view in enumerate(split) if c in view.scores] for split in views]
                      for c in range(len(self.classes))]

    # -- layout
    def class_of(self, stratum: Stratum) -> int:
        """The class index of a stratum.

        Parameters
        ----------
        stratum : Stratum
            A stratum of the design, key ``("dvc", class)``.

        Returns
        -------
        int
            Its position in ``classes``.
        """
        return self.index[stratum.key[-1]]

    def fold_bounds(self, c: int) -> np.ndarray:
        """Fold bounds of class c (the same in every view).

        Parameters
        ----------
        c : int
            Class index.

        Returns
        -------
        numpy.ndarray
            (folds + 1,) int boundaries of the folds in fold order.
        """
        s, v = 0, self.slots[c][0][0]
        return self.views[s][v].scores[c].fold_bounds

    def slot_width(self, c: int) -> int:
        """Columns of one slot of class c: folds x (1 + D + D(D+1)/2).

        Parameters
        ----------
        c : int
            Class index.

        Returns
        -------
        int
            The number of columns.
        """
        dim = self.views[0][self.slots[c][0][0]].scores[c].centred.shape[1]
        return (self.fold_bounds(c).size - 1) * (1 + dim + dim * (dim + 1) // 2)

    def width(self, stratum: Stratum) -> int:
        """Columns of the all-splits layout of a stratum.

        Parameters
        ----------
        stratum : Stratum
            A class's stratum.

        Returns
        -------
        int
            Slots x :meth:`slot_width`, plus the class's images when the weights are appended.
        """
        c = self.class_of(stratum)
        slots = sum(len(s) for s in self.slots[c])
        return slots * self.slot_width(c) + (stratum.n_items if self.with_weights else 0)

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory per resample: the kernel rows (kept for every class until aggregated) and this class's share
        of the aggregation's temporaries (unpacked moments, stacked LDA inputs), which exist for one split at
        a time (with ``rotate`` for 1/S of the rows).

        Parameters
        ----------
        stratum : Stratum
            A class's stratum.

        Returns
        -------
        int
            Bytes per resample (an estimate the engine uses to size its chunks).
        """
        c = self.class_of(stratum)
        per_split = len(self.slots[c][0])
        dim = self.views[0][self.slots[c][0][0]].scores[c].centred.shape[1]
        folds = self.fold_bounds(c).size - 1
        p = dim // HALVES
        n_splits = len(self.views)
        rows = (1 + per_split * self.slot_width(c)) if self.rotate else n_splits * per_split * self.slot_width(c)
        pairs = (len(self.classes) - 1) / 2
        temporaries = per_split * folds * (2 * dim * dim + pairs * HALVES * 6 * p * p + pairs * 2 * dim * HALVES)
        return int(8 * (2 * rows + 2 * stratum.n_items + temporaries / (n_splits if self.rotate else 1)))

    # -- statistics
    def statistics(self, c: int, s: int, v: int) -> list[np.ndarray]:
        """Per fold the per-image statistics of class c in view v of split s (cached within the budget).

        Parameters
        ----------
        c, s, v : int
            Class index, split and view within the split.

        Returns
        -------
        list of numpy.ndarray
            Per fold its :func:`moment_statistics` (fold images x (1 + D + D(D+1)/2), float32).
        """
        key = (c, s, v)
        if key in self._cache:
            return self._cache[key]
        scores = self.views[s][v].scores[c]
        b = scores.fold_bounds
        stats = [moment_statistics(scores.centred[b[f]:b[f + 1]]) for f in range(b.size - 1)]
        size = sum(x.nbytes for x in stats)
        if self._cached + size <= self.cache_bytes:
            self._cache[key] = stats
            self._cached += size
        return stats

    def slot_sums(self, c: int, s: int, v: int, weights: np.ndarray) -> np.ndarray:
        """Weighted sums of one slot for weights in fold order (R x slot width), float32.

        Parameters
        ----------
        c, s, v : int
            Class index, split and view within the split.
        weights : numpy.ndarray
            (R x images) float32 image weights in fold order.

        Returns
        -------
        numpy.ndarray
            (R x :meth:`slot_width`) float32: per fold ``[count, first, second]``.
        """
        b = self.fold_bounds(c)
        stats = self.statistics(c, s, v)
        return np.concatenate([weights[:, b[f]:b[f + 1]] @ stats[f] for f in range(b.size - 1)], axis=1)

    def _fold_weights(self, c: int, item_weights: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(item_weights, dtype=np.float32)[:, self.orders[c]])

    def evaluate(self, stratum: Stratum, item_weights: np.ndarray, observer_weights=None) -> np.ndarray:
        """All-splits layout of one class under item weights (R x items, stratum order).

        Parameters
        ----------
        stratum : Stratum
            A class's stratum.
        item_weights : numpy.ndarray
            (R x images) image weights in stratum order (bootstrap counts; ones for the data).
        observer_weights : None
            Unused (the two systems are fixed).

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`) float32 sums, slot by slot in split and view order.
        """
        c = self.class_of(stratum)
        w = self._fold_weights(c, item_weights)
        parts = [self.slot_sums(c, s, v, w) for s in range(len(self.views)) for v in self.slots[c][s]]
        if self.with_weights:
            parts.append(w)
        return np.concatenate(parts, axis=1)

    def evaluate_resamples(self, stratum, item_weights, observer_weights, seed, start, stop):
        """Rows of resamples start..stop-1: with ``rotate``, resample r's split ``r mod S`` only.

        Parameters
        ----------
        stratum : Stratum
            A class's stratum.
        item_weights : numpy.ndarray
            (stop - start, images) image weights in stratum order.
        observer_weights : None
            Unused.
        seed : int
            Unused (the weights carry the randomness).
        start, stop : int
            The resamples' numbers (they choose the split with ``rotate``).

        Returns
        -------
        numpy.ndarray
            Float32 rows: without ``rotate`` as :meth:`evaluate`; with it, column 0 the split, then its slots.
        """
        if not self.rotate:
            return self.evaluate(stratum, item_weights, observer_weights)
        c = self.class_of(stratum)
        w = self._fold_weights(c, item_weights)
        n_splits = len(self.views)
        split = np.arange(start, stop) % n_splits
        width = len(self.slots[c][0]) * self.slot_width(c)
        out = np.empty((w.shape[0], 1 + width + (w.shape[1] if self.with_weights else 0)), dtype=np.float32)
        out[:, 0] = split
        b = self.fold_bounds(c)
        for s in range(n_splits):
            rows = slice((s - start) % n_splits, None, n_splits)      # resamples r with r mod S == s
            column = 1
            for v in self.slots[c][s]:
                for f, stats in enumerate(self.statistics(c, s, v)):
                    out[rows, column:column + stats.shape[1]] = w[rows, b[f]:b[f + 1]] @ stats
                    column += stats.shape[1]
        if self.with_weights:
            out[:, 1 + width:] = w
        return out

    def leave_one_out_rows(self, stratum: Stratum, start: int, stop: int) -> np.ndarray:
        """Exact leave-one-image-out rows (all-splits layout) for the images start..stop-1 of a class.

        Parameters
        ----------
        stratum : Stratum
            A class's stratum.
        start, stop : int
            The left-out images (stratum positions).

        Returns
        -------
        numpy.ndarray
            ((stop - start) x :meth:`width`): the sums over all images but one.
        """
        c = self.class_of(stratum)
        n = stratum.n_items
        position = np.empty(n, dtype=int)
        position[self.orders[c]] = np.arange(n)        # stratum position -> fold-order row
        b = self.fold_bounds(c)
        left_out = position[start:stop]
        fold = np.searchsorted(b, left_out, side="right") - 1
        rows = np.arange(stop - start)
        parts = []
        for s in range(len(self.views)):
            for v in self.slots[c][s]:
                stats = self.statistics(c, s, v)
                for f in range(b.size - 1):
                    total = stats[f].sum(axis=0, dtype=np.float64)
                    block = np.broadcast_to(total, (rows.size, total.size)).copy()
                    mine = fold == f
                    block[mine] -= stats[f][left_out[mine] - b[f]]
                    parts.append(block)
        if self.with_weights:
            w = np.ones((rows.size, n))
            w[rows, left_out] = 0.0
            parts.append(w)
        return np.concatenate(parts, axis=1)


# --------------------------------------------------------------------------------------------------
# The aggregation
# --------------------------------------------------------------------------------------------------


def unpack_moments(sums: np.ndarray, folds: int, dim: int):
    """(R, folds * (1 + D + D(D+1)/2)) sums -> count (R, F), first (R, F, D) (float64), second (R, F, D, D)
    (the sums' precision: float32 sums stay float32, the bilinear forms are then float32 products).

    Parameters
    ----------
    sums : numpy.ndarray
        (R, folds * (1 + D + D(D+1)/2)) sums of one slot (:meth:`DVCKernel.slot_sums`).
    folds : int
        Number of folds.
    dim : int
        D, the scores per image.

    Returns
    -------
    count : numpy.ndarray
        (R, F) float64.
    first : numpy.ndarray
        (R, F, D) float64: sums of ``y``.
    second : numpy.ndarray
        (R, F, D, D): sums of ``y y'``, symmetric, in the precision of ``sums``.

    Examples
    --------
    >>> sums = moment_statistics(np.array([[1.0, 2.0]], dtype=np.float32))
    >>> count, first, second = unpack_moments(sums, 1, 2)
    >>> count.tolist(), first.tolist(), second.tolist()
    ([[1.0]], [[[1.0, 2.0]]], [[[[1.0, 2.0], [2.0, 4.0]]]])
    """
    r = sums.shape[0]
    per = sums.reshape(r, folds, -1)
    second = per[:, :, 1 + dim:][:, :, symmetric_index(dim)].reshape(r, folds, dim, dim)
    return per[:, :, 0].astype(np.float64), per[:, :, 1:1 + dim].astype(np.float64), second


def symmetric_index(dim: int) -> np.ndarray:
    """For each entry of a (dim x dim) matrix (row-major), its position in the packed upper triangle.

    Parameters
    ----------
    dim : int
        The matrix's size.

    Returns
    -------
    numpy.ndarray
        (dim * dim,) int: entry (a, b) and (b, a) both point to the packed position of (min, max).

    Examples
    --------
    >>> symmetric_index(2).tolist()              # packed: [(0, 0), (0, 1), (1, 1)]
    [0, 1, 1, 2]
    """
    upper = np.triu_indices(dim)
    index = np.empty((dim, dim), dtype=np.intp)
    index[upper] = np.arange(upper[0].size)
    index[upper[1], upper[0]] = np.arange(upper[0].size)
    return index.ravel()


def class_design(classes: list[str], counts: np.ndarray, arrays: list[dict] | None = None) -> Design:
    """The engine design of a DVC analysis: one stratum per class, key ``("dvc", class)``, items its images.

    Parameters
    ----------
    classes : list of str
        Class names.
    counts : numpy.ndarray
        Images per class (images are numbered consecutively across the classes).
    arrays : list of dict, optional
        Per class the arrays its stratum carries (default: none).

    Returns
    -------
    Design
        Strata sorted by key, observers ``("A", "B")`` (the two systems).

    Examples
    --------
    >>> design = class_design(["cat", "bird"], [2, 3])
    >>> [(s.key, s.items.tolist()) for s in design]
    [(('dvc', 'bird'), ['2', '3', '4']), (('dvc', 'cat'), ['0', '1'])]
    """
    strata = []
    start = 0
    for k, (c, n) in enumerate(zip(classes, counts)):
        items = np.arange(start, start + int(n)).astype(str)
        strata.append(Stratum(("dvc", c), items, ("A", "B"), arrays[k] if arrays else {}))
        start += int(n)
    return Design(tuple(sorted(strata, key=lambda s: s.key)), {})
