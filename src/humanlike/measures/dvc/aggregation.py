"""The one aggregation of the DVC of representations: from the per-class moment sums of
:class:`humanlike.measures.dvc.kernel.DVCKernel` to the DVC, per split.

Per split: the training moments (all folds in-sample; the other folds for cross-validated DVs), a two-class LDA
per class pair and half, the within-class DV covariances as bilinear forms of the moments
(:func:`humanlike.measures.dvc.metric.fold_dv_covariances`: no image's DV is formed), correlations, the split
normalisation and the means over (class, pair) values and over splits (:class:`DVCAggregation`);
:func:`half_correlations` runs kernel and aggregation once on given scores, without the engine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from .metric import correlations_from_covariances, fold_dv_covariances, lda_axes, split_normalised_dvc
from ...resampling.parallel import map_in_threads
from ...resampling.weights import group_mean, nanmean_quiet
from .kernel import HALVES, DVCKernel, View, class_design, class_scores, unpack_moments
from .split import spearman_side


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
        :class:`~humanlike.measures.dvc.representations_options.DVCOptions`).
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
            :data:`humanlike.measures.dvc.metric.CORRELATION_PAIRS` (NaN where undefined).
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
        As in :class:`~humanlike.measures.dvc.representations_options.DVCOptions`.

    Returns
    -------
    correlations : (R, pairs, 2, 6) array
        For class pairs i < j (``numpy.triu_indices`` order of the sorted classes) and the sides (class i,
        class j): the correlations of :data:`humanlike.measures.dvc.metric.CORRELATION_PAIRS`.
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
