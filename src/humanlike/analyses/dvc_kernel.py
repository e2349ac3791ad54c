"""The DVC of representations on the resampling engine: a kernel of per-class moments and the one aggregation.

Strata are the classes (key ``("dvc", class)``; items: the class's images, resampled within class and paired
across the two systems). With the PCA scores of a split fixed, everything the pipeline needs from a class is
a weighted sum of per-image statistics: per fold, the count, the scores ``y`` (all halves stacked, minus the
class centre) and their products ``y y'`` (upper triangle). :class:`DVCKernel` returns these sums — one
float32 matrix product per class, split and fold — and :class:`DVCAggregation` does the rest per split: the
training moments (all folds in-sample; the other folds for cross-validated DVs), a two-class LDA per class pair
and half, the within-class DV covariances as bilinear forms of the moments
(:func:`humanlike.metrics.dvc.fold_dv_covariances`: no image's DV is formed), correlations, the split
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

import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..data.design import Design, Stratum
from ..metrics.dvc import correlations_from_covariances, fold_dv_covariances, lda_axes, split_normalised_dvc
from ..stats.parallel import map_in_threads
from ..stats.resampling import group_mean, nanmean_quiet
from .dvc_split import spearman_side

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


def dvc_columns(corr: np.ndarray, class_matrix: np.ndarray) -> np.ndarray:
    """Output columns for both normalisations: [overall, pairs..., classes...] x (signed, abs).

    Parameters
    ----------
    corr : numpy.ndarray
        (R, pairs, 2, 6) within-class correlations (:meth:`DVCAggregation.correlations`).
    class_matrix : numpy.ndarray
        (pairs * 2, classes): which class each (pair, side) value belongs to.

    Returns
    -------
    numpy.ndarray
        (R, 2 * (1 + pairs + classes)): the split-normalised DVC overall, per pair and per class, signed then
        absolute (:meth:`DVCAggregation.labels`).

    Examples
    --------
    Equal correlations everywhere normalise to 1:

    >>> class_matrix = np.array([[1.0, 0.0], [0.0, 1.0]])        # one pair of two classes
    >>> dvc_columns(np.full((1, 1, 2, 6), 0.5), class_matrix).tolist()
    [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]
    """
    parts = []
    for absolute in (False, True):
        values = split_normalised_dvc(corr, absolute=absolute)              # (R, P, 2)
        r = values.shape[0]
        overall = nanmean_quiet(values.reshape(r, -1), axis=1)[:, None]
        pairs = nanmean_quiet(values, axis=2)
        classes = group_mean(values.reshape(r, -1), class_matrix)
        parts.append(np.concatenate([overall, pairs, classes], axis=1))
    return np.concatenate(parts, axis=1)


class DVCAggregation:
    """The one DVC aggregation: per split LDA per class pair, within-class DV correlations, split
    normalisation, means over (class, pair) values and over splits (see the module docs for the layouts).

    Parameters
    ----------
    kernel : DVCKernel
        The kernel whose rows are aggregated.
    cv : bool
        Cross-validated DVs (fold f's DVs from the axes fitted on the other folds).
    ridge : float
        Ridge added to the LDA's within-class covariance (as in
        :class:`~humanlike.analyses.dvc_representations.DVCOptions`).
    correlation : {"pearson", "spearman"}
        Correlation of the decision values.
    workers : int or None
        Threads evaluating the splits (None: up to 2).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> scores = {c: class_scores(rng.normal(size=(6, 4)), np.arange(6), np.array([0, 3, 6])) for c in (0, 1)}
    >>> kernel = DVCKernel([[View(0, np.array([0]), scores)]], ["a", "b"], [np.arange(6)] * 2, rotate=False)
    >>> aggregation = DVCAggregation(kernel, cv=True)
    >>> aggregation.labels()[:2]
    [('overall', '', '', 'signed'), ('pair', 'a', 'b', 'signed')]
    >>> strata = class_design(["a", "b"], [6, 6])
    >>> values = {s.key: kernel.evaluate(s, np.ones((2, 6))) for s in strata}
    >>> aggregation(values).shape                # 2 rows x (overall, 1 pair, 2 classes) x (signed, abs)
    (2, 8)
    """

    def __init__(self, kernel: DVCKernel, *, cv: bool, ridge: float = 0.0, correlation: str = "pearson",
                 workers: int | None = None) -> None:
        self.kernel = kernel
        self.workers = workers or min(2, os.cpu_count() or 1)
        self.cv = cv
        self.ridge = ridge
        self.correlation = correlation
        k = len(kernel.classes)
        self.pairs_i, self.pairs_j = np.triu_indices(k, k=1)
        self.class_matrix = np.zeros((self.pairs_i.size * 2, k))
        self.class_matrix[np.arange(self.pairs_i.size) * 2, self.pairs_i] = 1
        self.class_matrix[np.arange(self.pairs_i.size) * 2 + 1, self.pairs_j] = 1
        self.keys = [("dvc", c) for c in kernel.classes]
        self.recentre: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def n_splits(self) -> int:
        """Number of split repeats."""
        return len(self.kernel.views)

    def labels(self) -> list[tuple]:
        """Labels (table, class_i, class_j, normalisation) of the output columns.

        Returns
        -------
        list of tuple
            Per output column ``(table, class_i, class_j, normalisation)``: table ``"overall"``, ``"pair"`` or
            ``"class"``; normalisation ``"signed"`` or ``"abs"``.
        """
        classes = self.kernel.classes
        base = [("overall", "", "")] + [("pair", classes[i], classes[j]) for i, j in zip(self.pairs_i, self.pairs_j)]
        base += [("class", c, "") for c in classes]
        return [b + (norm,) for norm in ("signed", "abs") for b in base]

    def __call__(self, values: Mapping[tuple, np.ndarray]) -> np.ndarray:
        arrays = [np.asarray(values[key]) for key in self.keys]
        if not self._rotated(arrays):
            return nanmean_quiet(np.stack(self.split_columns(arrays)), axis=0)
        if self.recentre is None:
            raise ValueError("rotated rows need the per-split estimates (set recentre first)")
        per_split, estimate = self.recentre
        r = max(a.shape[0] for a in arrays)
        n_splits = self.n_splits
        first_split = int(arrays[0][0, 0])
        out = np.empty((r, per_split.shape[1]))

        def one(s):
            # Resample r goes through split r mod S, so split s's rows are every S-th row: a view, no copy.
            offset = (s - first_split) % n_splits
            if offset >= r:
                return
            sub = [a[offset::n_splits] for a in arrays]
            corr = self.correlations(sub, s, rotated=True)
            out[offset::n_splits] = dvc_columns(corr, self.class_matrix) - per_split[s] + estimate

        self._map(one, range(n_splits))
        return out

    def split_columns(self, arrays) -> list[np.ndarray]:
        """Per split the output columns of all-splits rows (list of (R x K)).

        Parameters
        ----------
        arrays : list of numpy.ndarray
            Per class (in ``classes`` order) its kernel rows in the all-splits layout.

        Returns
        -------
        list of numpy.ndarray
            Per split its (R x K) output columns (:func:`dvc_columns`).
        """
        return self._map(lambda s: dvc_columns(self.correlations(arrays, s, rotated=False), self.class_matrix),
                         range(self.n_splits))

    def _map(self, function, items) -> list:
        # Splits are independent and each runs on one BLAS thread: the numbers do not depend on the workers.
        return map_in_threads(function, items, self.workers)

    def _rotated(self, arrays) -> bool:
        kern = self.kernel
        a, c = arrays[0], 0
        extra = a.shape[1] - sum(len(s) for s in kern.slots[c]) * kern.slot_width(c)
        return extra != (kern.orders[c].size if kern.with_weights else 0)

    def _slot_columns(self, c: int, s: int, v: int, rotated: bool) -> slice:
        kern = self.kernel
        width = kern.slot_width(c)
        if rotated:
            k = kern.slots[c][s].index(v)
            return slice(1 + k * width, 1 + (k + 1) * width)
        k = sum(len(x) for x in kern.slots[c][:s]) + kern.slots[c][s].index(v)
        return slice(k * width, (k + 1) * width)

    def correlations(self, arrays, s: int, rotated: bool) -> np.ndarray:
        """The six within-class correlations of every (row, pair, side) of split s: (R, P, 2, 6).

        Parameters
        ----------
        arrays : list of numpy.ndarray
            Per class (in ``classes`` order) its kernel rows.
        s : int
            The split.
        rotated : bool
            The rows are in the rotate layout (split in column 0).

        Returns
        -------
        numpy.ndarray
            (R, pairs, 2, 6): for each class pair and side the correlations of
            :data:`humanlike.metrics.dvc.CORRELATION_PAIRS` (NaN where undefined).
        """
        r = max(a.shape[0] for a in arrays)
        out = np.full((r, self.pairs_i.size, 2, 6), np.nan)
        for v, view in enumerate(self.kernel.views[s]):
            self._view_correlations(arrays, s, v, view, rotated, out)
        return out

    def _view_correlations(self, arrays, s, v, view: View, rotated: bool, out: np.ndarray) -> None:
        moments = {}
        for c, scores in view.scores.items():
            folds = scores.fold_bounds.size - 1
            dim = scores.centred.shape[1]
            count, first, second = unpack_moments(arrays[c][:, self._slot_columns(c, s, v, rotated)], folds, dim)
            if self.cv:
                t0 = count.sum(axis=1, keepdims=True) - count
                t1 = first.sum(axis=1, keepdims=True) - first
                t2 = second.sum(axis=1, keepdims=True) - second
            else:
                t0, t1, t2 = count, first, second
            p = dim // HALVES
            with np.errstate(invalid="ignore", divide="ignore"):
                local = t1 / t0[..., None]                                          # (R, F, D)
                blocks = np.stack([t2[..., h * p:(h + 1) * p, h * p:(h + 1) * p] for h in range(HALVES)],
                                  axis=2).astype(np.float64)
                local_h = local.reshape(local.shape[:2] + (HALVES, p))
                cov = blocks / t0[..., None, None, None] - local_h[..., :, None] * local_h[..., None, :]
            mean = scores.centre.reshape(HALVES, p) + local_h                        # (R, F, H, p)
            moments[c] = (count, first, second, t0, mean, cov)
        # Pairs whose two classes both have one row (e.g. the other classes in a jackknife) are solved once.
        rows = {k: max(moments[self.pairs_i[k]][0].shape[0], moments[self.pairs_j[k]][0].shape[0])
                for k in view.pairs}
        for n_rows in sorted(set(rows.values())):
            group = np.array([k for k in view.pairs if rows[k] == n_rows])
            self._pair_group(group, n_rows, moments, view, arrays, out)

    def _pair_group(self, group, n_rows, moments, view, arrays, out) -> None:
        ci, cj = self.pairs_i[group], self.pairs_j[group]
        axes, midpoints = [], []
        for i, j in zip(ci, cj):
            # One pair at a time: its LDA temporaries stay small (cache-sized) and no class moment is copied.
            a = lda_axes(moments[i][4], moments[j][4], moments[i][5], moments[j][5], moments[i][3][..., None],
                         moments[j][3][..., None], ridge=self.ridge)                 # (R, F, H, p)
            axes.append(np.broadcast_to(a, (n_rows,) + a.shape[1:]))
            mid = 0.5 * (moments[i][4] + moments[j][4])
            midpoints.append(np.broadcast_to(mid, (n_rows,) + mid.shape[1:]))
        axes = np.stack(axes, axis=1)                                                # (R, m, F, H, p)
        midpoint = np.stack(midpoints, axis=1)
        for c in np.unique(np.concatenate([ci, cj])):
            local = np.concatenate([np.flatnonzero(ci == c), np.flatnonzero(cj == c)])
            sides = np.concatenate([np.zeros((ci == c).sum(), int), np.ones((cj == c).sum(), int)])
            count, first, second = moments[c][:3]
            scores = view.scores[c]
            a = axes[:, local]
            p = a.shape[-1]
            if self.correlation == "spearman":
                weights = np.broadcast_to(arrays[c][:, -scores.centred.shape[0]:], (n_rows, scores.centred.shape[0]))
                for m, side in zip(local, sides):
                    out[:, group[m], side] = spearman_side(scores, weights, axes[:, m], midpoint[:, m],
                                                           scores.centre, p)
                continue
            if self.cv:
                beta = np.einsum("rmfhp,rmfhp->rmfh", a, scores.centre.reshape(HALVES, p) - midpoint[:, local])
            else:
                beta = np.zeros(a.shape[:-1])       # one fold: a constant shift leaves covariances alone
            cov = fold_dv_covariances(a, beta, count, first, second)                 # (R, e, H, H)
            out[:, group[local], sides] = correlations_from_covariances(cov)


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


def half_correlations(scores: np.ndarray, labels, *, n_components: int, folds=None, weights=None,
                      ridge: float = 0.0, correlation: str = "pearson"):
    """Within-class DV correlations from the stacked PCA scores of the four halves, for every class pair.

    Parameters
    ----------
    scores : (images, 4 * n_components) array
        Scores of A1, A2, B1, B2 side by side.
    labels : (images,) array
        Class of each image.
    n_components : int
        Components per half.
    folds : (images,) int array, optional
        Fold of each image for cross-validated DVs (None: in-sample).
    weights : (R, images) array, optional
        Image weights (bootstrap counts); None is the data itself (R = 1).
    ridge, correlation
        As in :class:`~humanlike.analyses.dvc_representations.DVCOptions`.

    Returns
    -------
    correlations : (R, pairs, 2, 6) array
        For class pairs i < j (``numpy.triu_indices`` order of the sorted classes) and the sides (class i,
        class j): the correlations of :data:`humanlike.metrics.dvc.CORRELATION_PAIRS`.
    classes : list of str

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> labels = np.repeat(["a", "b"], 30)
    >>> scores = rng.normal(size=(60, 8)) + (labels == "b")[:, None]
    >>> corr, classes = half_correlations(scores, labels, n_components=2)
    >>> corr.shape, classes
    ((1, 1, 2, 6), ['a', 'b'])
    """
    labels = np.asarray(labels).astype(str)
    order = np.argsort(labels, kind="stable")
    classes, counts = np.unique(labels, return_counts=True)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    fold = np.zeros(labels.size, int) if folds is None else np.asarray(folds, dtype=int)[order]
    z = np.asarray(scores, dtype=np.float32)[order]
    w = np.ones((1, labels.size)) if weights is None else np.asarray(weights, dtype=float)[:, order]
    n_folds = int(fold.max()) + 1
    class_set, orders = {}, []
    for c in range(classes.size):
        f = fold[bounds[c]:bounds[c + 1]]
        o = np.argsort(f, kind="stable")
        orders.append(o)
        class_set[c] = class_scores(z[bounds[c]:bounds[c + 1]], o, np.searchsorted(f[o], np.arange(n_folds + 1)))
    pairs = np.triu_indices(classes.size, k=1)[0].size
    kernel = DVCKernel([[View(0, np.arange(pairs), class_set)]], list(classes), orders, rotate=False,
                       with_weights=correlation == "spearman")
    aggregation = DVCAggregation(kernel, cv=folds is not None, ridge=ridge, correlation=correlation)
    design = class_design(list(classes), counts)
    arrays = [kernel.evaluate(s, w[:, bounds[c]:bounds[c + 1]]) for c, s in enumerate(design)]
    return aggregation.correlations(arrays, 0, rotated=False), [str(c) for c in classes]
