"""The split machinery of the DVC of representations: PCA per half and the LDA/correlation evaluation of one
split under image weights (see :mod:`humanlike.analyses.dvc_representations` for the pipeline).

With the PCA scores of a split fixed, every quantity is a function of per-class (and per-fold) weighted sums
of the scores ``z`` and their products ``z z'``; one bootstrap resample is a row of image weights, so a batch
of resamples is one weight-matrix product per class plus batched solves over resamples x class pairs x halves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ..metrics.dvc import CORRELATION_PAIRS, correlations_from_covariances, lda_axes

# --------------------------------------------------------------------------------------------------
# PCA per half
# --------------------------------------------------------------------------------------------------


def half_scores(features: np.ndarray, n_components: int, rng: np.random.Generator, *,
                iterations: int = 2, standardize: bool = False, oversample: int = 10) -> np.ndarray:
    """Principal-component scores of one half (images x n_components), each scaled to unit variance.

    Randomized range finder with ``iterations`` power iterations (exact SVD when the matrix is small). The
    scaling of the scores does not change LDA decision variables up to scale, and keeps float32 sums exact
    enough.

    Parameters
    ----------
    features : (images, units) array
        The half's features.
    n_components : int
        Components kept.
    rng : numpy.random.Generator
        Draws the random test matrix (from the split's stream).
    iterations : int
        Power iterations of the range finder.
    standardize : bool
        z-score units first (constant units stay 0).
    oversample : int
        Extra columns of the random test matrix.

    Returns
    -------
    (images, n_components) float32 array
        Scores of the leading components, each with mean 0 and variance 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> features = rng.standard_normal((300, 3)) @ rng.standard_normal((3, 120))   # rank 3
    >>> scores = half_scores(features, 3, np.random.default_rng(1))
    >>> scores.shape, scores.var(axis=0).round(4).tolist()
    ((300, 3), [1.0, 1.0, 1.0])
    """
    x = np.asarray(features, dtype=np.float32)
    x = x - x.mean(axis=0, dtype=np.float64).astype(np.float32)
    if standardize:
        sd = x.std(axis=0)
        x = x / np.where(sd > 0, sd, 1.0).astype(np.float32)
    k = min(n_components + oversample, min(x.shape))
    with threadpool_limits(1, user_api="blas"):
        return range_finder_scores(x, n_components, k, rng, iterations)


def range_finder_scores(x, n_components, k, rng, iterations):
    """Leading principal-component scores by a seeded randomised range finder (a fast truncated PCA).

    Parameters
    ----------
    x : numpy.ndarray
        Centred (images x units) float32 features.
    n_components : int
        Components kept.
    k : int
        Columns of the random test matrix (``n_components`` plus oversampling); exact SVD when
        min(x.shape) <= 2k.
    rng : numpy.random.Generator
        Draws the test matrix.
    iterations : int
        Power iterations.

    Returns
    -------
    numpy.ndarray
        (images x n_components) float32 scores, scaled to unit variance (signs arbitrary).

    Examples
    --------
    With a clear spectrum the randomised scores match the exact principal components:

    >>> rng = np.random.default_rng(0)
    >>> x = (rng.standard_normal((200, 3)) * [5, 3, 1]) @ rng.standard_normal((3, 60))
    >>> x = (x + 0.1 * rng.standard_normal((200, 60)) - x.mean(axis=0)).astype(np.float32)
    >>> fast = range_finder_scores(x, 3, 13, np.random.default_rng(1), 2)
    >>> exact = np.linalg.svd(x.astype(float), full_matrices=False)[0][:, :3]
    >>> [round(abs(float(np.corrcoef(fast[:, j], exact[:, j])[0, 1])), 6) for j in range(3)]
    [1.0, 1.0, 1.0]
    """
    # Small QR/SVD calls run single-threaded: threaded BLAS on tiny matrices is slower, badly so on a
    # loaded machine; the large products below are dominated by memory traffic anyway.
    if min(x.shape) <= 2 * k:
        u, s, _ = np.linalg.svd(x.astype(np.float64), full_matrices=False)
        basis = u[:, :n_components]
    else:
        q = x @ rng.standard_normal((x.shape[1], k)).astype(np.float32)
        q, _ = np.linalg.qr(q)
        for _ in range(iterations):
            q, _ = np.linalg.qr(x.T @ q)
            q, _ = np.linalg.qr(x @ q)
        small = q.T @ x
        u, s, _ = np.linalg.svd(small.astype(np.float64), full_matrices=False)
        basis = q.astype(np.float64) @ u[:, :n_components]
    scores = basis * np.sqrt(x.shape[0])
    return scores.astype(np.float32)


# --------------------------------------------------------------------------------------------------
# One split: per-class sufficient statistics and their evaluation under weights
# --------------------------------------------------------------------------------------------------


@dataclass
class ClassBlock:
    """One class of one split: scores centred at the class mean, per-half products, fold order.

    Made by :class:`SplitStatistics`.

    Parameters
    ----------
    centre : numpy.ndarray
        (D,) class mean of the scores.
    centred : numpy.ndarray
        (n_c x D) scores minus the centre, rows in fold order.
    products : numpy.ndarray
        (n_c x halves * p(p+1)/2) float32 within-half products of the centred scores.
    order : numpy.ndarray
        Permutation from fold-sorted position to class position.
    fold_bounds : numpy.ndarray
        (F + 1,) slice bounds of each fold in fold order.

    Examples
    --------
    >>> scores = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)   # 2 classes x 4 images
    >>> split = SplitStatistics(scores, [(0, 4), (4, 8)], [np.zeros(4, int), np.zeros(4, int)], n_components=1)
    >>> block = split.blocks[0]
    >>> block.centred.shape, block.products.shape, block.fold_bounds.tolist()
    ((4, 4), (4, 4), [0, 4])
    >>> bool(np.allclose(block.centred.sum(axis=0), 0))
    True
    """

    centre: np.ndarray          # (D,) float64 class mean of the scores
    centred: np.ndarray         # (n_c, D) float64, rows in fold order
    products: np.ndarray        # (n_c, halves * p(p+1)/2) float32: within-half products only
    order: np.ndarray           # permutation: fold-sorted position -> class position
    fold_bounds: np.ndarray     # (F+1,) slice bounds of each fold in fold order


class SplitStatistics:
    """The per-class statistics of one split: what LDA needs (within-half moments) and the scores from which
    a resample's DVs are formed.

    Parameters
    ----------
    scores : numpy.ndarray
        (images x halves * n_components) PCA scores of the halves side by side, rows sorted by class.
    class_slices : list of tuple of int
        (start, stop) rows of each class.
    folds : list of numpy.ndarray
        Fold of each image of each class (all zeros: in-sample).
    n_components : int
        Components per half.

    Examples
    --------
    >>> scores = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)   # 2 classes x 4 images
    >>> split = SplitStatistics(scores, [(0, 4), (4, 8)], [np.zeros(4, int), np.zeros(4, int)], n_components=1)
    >>> split.halves, len(split.blocks)
    (4, 2)
    """

    def __init__(self, scores: np.ndarray, class_slices, folds, n_components: int):
        self.p = n_components
        self.dim = scores.shape[1]
        self.halves = self.dim // n_components
        upper = np.triu_indices(n_components)
        self.blocks = []
        for (lo, hi), fold in zip(class_slices, folds):
            order = np.argsort(fold, kind="stable")
            z = scores[lo:hi][order].astype(np.float64)
            centre = z.mean(axis=0)
            y = z - centre
            y4 = y.reshape(len(y), self.halves, n_components).astype(np.float32)
            products = (y4[:, :, upper[0]] * y4[:, :, upper[1]]).reshape(len(y), -1)
            bounds = np.searchsorted(fold[order], np.arange(fold.max() + 2))
            self.blocks.append(ClassBlock(centre, y, products, order, bounds))

    def class_sums(self, weights: list[np.ndarray]):
        """Per class and fold: weighted count (R,K,F), first moments (R,K,F,D) and within-half second
        moments (R,K,F,halves,p,p), all about the class centre.

        Parameters
        ----------
        weights : list of numpy.ndarray
            One (R x n_c) weight matrix per class, columns in fold order.

        Returns
        -------
        (counts, first, second) : tuple of numpy.ndarray
            Shapes (R, K, F), (R, K, F, D) and (R, K, F, halves, p, p).
        """
        s0, s1, s2 = [], [], []
        p, halves = self.p, self.halves
        upper = np.triu_indices(p)
        for block, w in zip(self.blocks, weights):
            n0, n1, n2 = [], [], []
            for f in range(block.fold_bounds.size - 1):
                lo, hi = block.fold_bounds[f], block.fold_bounds[f + 1]
                wf = w[:, lo:hi]
                n0.append(wf.sum(axis=1, dtype=np.float64))
                n1.append(wf.astype(np.float64) @ block.centred[lo:hi])
                packed = (wf @ block.products[lo:hi]).astype(np.float64).reshape(len(w), halves, -1)
                full = np.empty((len(w), halves, p, p))
                full[:, :, upper[0], upper[1]] = packed
                full[:, :, upper[1], upper[0]] = packed
                n2.append(full)
            s0.append(np.stack(n0, axis=1))
            s1.append(np.stack(n1, axis=1))
            s2.append(np.stack(n2, axis=1))
        return np.stack(s0, axis=1), np.stack(s1, axis=1), np.stack(s2, axis=1)


def evaluate_split(split: SplitStatistics, weights, pairs_i, pairs_j, cv: bool, ridge: float, correlation: str):
    """The six within-class correlations of every (resample, pair, side): (R, P, 2, 6).

    ``weights`` holds one (R, n_c) matrix per class (class order); with ``cv`` the axes of fold f are
    fitted on the other folds and give the DVs of fold f. LDA needs only within-half moments (weighted
    sums); the DV correlations come from the DVs themselves — per half one (images x p) @ (p x R) product
    — and their weighted second moments, so no (4p x 4p) cross-covariance is ever formed.

    Parameters
    ----------
    split : SplitStatistics
        The split's per-class statistics.
    weights : list of numpy.ndarray
        One (R x n_c) image-weight matrix per class (class order).
    pairs_i, pairs_j : numpy.ndarray
        The class pairs (indices into the classes).
    cv : bool
        Cross-validated DVs (folds of the split) instead of in-sample ones.
    ridge : float
        Shrinkage of the pooled covariance (0: plain LDA).
    correlation : {"pearson", "spearman"}
        The within-class correlation of the DVs.

    Returns
    -------
    numpy.ndarray
        (R, pairs, 2, 6) correlations of :data:`humanlike.metrics.dvc.CORRELATION_PAIRS`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> labels = np.repeat(["a", "b"], 500)
    >>> shared, own = rng.standard_normal((1000, 1)), rng.standard_normal((1000, 4))
    >>> # one score per half (n_components=1); any two halves correlate 0.5 within a class
    >>> scores = np.where(labels[:, None] == "b", 2.0, 0.0) + np.sqrt(0.5) * shared + np.sqrt(0.5) * own
    >>> split = SplitStatistics(scores.astype(np.float32), [(0, 500), (500, 1000)], [np.zeros(500, int)] * 2, 1)
    >>> weights = [np.ones((3, 500), np.float32)] * 2   # three identical "resamples"
    >>> out = evaluate_split(split, weights, np.array([0]), np.array([1]), False, 0.0, "pearson")
    >>> out.shape, out[0, 0, 0].round(2).tolist()   # class a: every correlation near the planted 0.5
    ((3, 1, 2, 6), [0.49, 0.49, 0.53, 0.52, 0.48, 0.48])
    """
    weights = [w[:, b.order] for b, w in zip(split.blocks, weights)]
    s0, s1, s2 = split.class_sums(weights)
    p, halves = split.p, split.halves
    if cv:
        t0 = s0.sum(axis=2, keepdims=True) - s0
        t1 = s1.sum(axis=2, keepdims=True) - s1
        t2 = s2.sum(axis=2, keepdims=True) - s2
    else:
        t0, t1, t2 = s0, s1, s2
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = (t1 / t0[..., None]).reshape(t1.shape[:3] + (halves, p))
        diag = t2 / t0[..., None, None, None] - offset[..., :, None] * offset[..., None, :]
    centres = np.stack([b.centre for b in split.blocks]).reshape(-1, halves, p)     # (K, 4, p)
    mean_h = centres[None, :, None] + offset                                        # (R, K, F, 4, p)
    r = mean_h.shape[0]
    axes = lda_axes(mean_h[:, pairs_i], mean_h[:, pairs_j], diag[:, pairs_i], diag[:, pairs_j],
                    t0[:, pairs_i][..., None], t0[:, pairs_j][..., None], ridge=ridge)  # (R,P,F,4,p)
    midpoint = 0.5 * (mean_h[:, pairs_i] + mean_h[:, pairs_j])                      # (R,P,F,4,p)
    out = np.empty((r, pairs_i.size, 2, 6))
    for k, (ci, cj) in enumerate(zip(pairs_i, pairs_j)):
        for side, c in enumerate((ci, cj)):
            block = split.blocks[c]
            if correlation == "spearman":
                out[:, k, side] = spearman_side(block, weights[c], axes[:, k], midpoint[:, k], block.centre, p)
                continue
            # DV = w_f . (y + centre - midpoint_f) for the images of fold f (all images when in-sample).
            shift = np.einsum("rfhp,rfhp->rfh", axes[:, k], centres[c] - midpoint[:, k])
            total = np.zeros(r)
            first = np.zeros((r, halves))
            second = np.zeros((r, halves, halves))
            for f in range(block.fold_bounds.size - 1):
                lo, hi = block.fold_bounds[f], block.fold_bounds[f + 1]
                y = block.centred[lo:hi]
                dv = np.stack([y[:, h * p:(h + 1) * p] @ axes[:, k, f, h].T for h in range(halves)], axis=-1)
                dv += shift[:, f][None]                                              # (n_f, R, 4)
                wf = weights[c][:, lo:hi].T.astype(np.float64)                      # (n_f, R)
                weighted = wf[:, :, None] * dv
                total += wf.sum(axis=0)
                first += weighted.sum(axis=0)
                second += np.einsum("nrh,nrg->rhg", weighted, dv)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = first / total[:, None]
                dv_cov = second / total[:, None, None] - mean[:, :, None] * mean[:, None, :]
            out[:, k, side] = correlations_from_covariances(dv_cov)
    return out


def spearman_side(block: ClassBlock, weights, axes, midpoint, centre, p):
    """Within-class Spearman correlations of explicit DVs under weights (weighted mid-ranks): (R, 6).

    Parameters
    ----------
    block : ClassBlock
        The class.
    weights : numpy.ndarray
        (R x n_c) image weights, fold order.
    axes : numpy.ndarray
        (R, F, halves, p) LDA axes per resample and fold.
    midpoint : numpy.ndarray
        (R, F, halves, p) midpoints between the two class means.
    centre : numpy.ndarray
        (halves * p,) the class centre.
    p : int
        Components per half.

    Returns
    -------
    numpy.ndarray
        (R, 6) Spearman correlations of :data:`humanlike.metrics.dvc.CORRELATION_PAIRS`.

    Examples
    --------
    With unit axes and a zero midpoint the DVs are the scores themselves, so the result is scipy's Spearman:

    >>> scores = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)   # 2 classes x 4 images
    >>> split = SplitStatistics(scores, [(0, 4), (4, 8)], [np.zeros(4, int), np.zeros(4, int)], n_components=1)
    >>> block = split.blocks[0]
    >>> rho = spearman_side(block, np.ones((1, 4)), np.ones((1, 1, 4, 1)), np.zeros((1, 1, 4, 1)), block.centre, 1)
    >>> from scipy.stats import spearmanr
    >>> reference = spearmanr(scores[:4]).statistic
    >>> bool(np.allclose(rho[0], [reference[h, g] for h, g in CORRELATION_PAIRS])), rho.round(2).tolist()
    (True, [[0.8, 0.8, 0.8, 0.8, 0.6, 1.0]])
    """
    halves = axes.shape[-2]
    w = weights.astype(np.float64)                                          # (R, n), fold order
    fold_of = np.repeat(np.arange(block.fold_bounds.size - 1), np.diff(block.fold_bounds))
    y = block.centred.reshape(-1, halves, p)
    shift = centre.reshape(halves, p)[None, None] - midpoint              # (R,F,4,p)
    dv = np.einsum("nhp,rnhp->rnh", y, axes[:, fold_of]) + np.einsum("rnhp,rnhp->rnh", axes[:, fold_of],
                                                                        shift[:, fold_of])
    ranks = weighted_midranks(dv, w)
    cov = weighted_covariance(ranks, w)
    var = np.diagonal(cov, axis1=-2, axis2=-1)
    out = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for h, g in CORRELATION_PAIRS:
            den = np.sqrt(var[:, h] * var[:, g])
            out.append(np.where(den > 0, cov[:, h, g] / den, np.nan))
    return np.stack(out, axis=-1)


def weighted_midranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mid-ranks of ``values`` (R, n, H) along n when item i occurs ``weights`` (R, n) times.

    The rank of a value drawn w times is the number of drawn values below it plus (w + 1)/2, the average
    rank of its copies: exactly the mid-rank it has in the resampled data. Ties between distinct items are
    not averaged (continuous DVs have none).

    Parameters
    ----------
    values : numpy.ndarray
        (R, n, H) values.
    weights : numpy.ndarray
        (R, n) how often each item occurs in the resample.

    Returns
    -------
    numpy.ndarray
        (R, n, H) mid-ranks (1-based).

    Examples
    --------
    Item 2 (value 1) drawn twice takes ranks 1 and 2, mid-rank 1.5:

    >>> weighted_midranks(np.array([[[3.0], [1.0], [2.0]]]), np.array([[1.0, 2.0, 1.0]])).ravel().tolist()
    [4.0, 1.5, 3.0]
    """
    order = np.argsort(values, axis=1, kind="stable")
    w = np.broadcast_to(weights[:, :, None], values.shape)
    sorted_w = np.take_along_axis(w, order, axis=1)
    below = np.cumsum(sorted_w, axis=1) - sorted_w
    ranks_sorted = below + (sorted_w + 1.0) / 2.0
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    return ranks


def weighted_covariance(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted covariance (R, H, H) of values (R, n, H) with weights (R, n).

    Parameters
    ----------
    values : numpy.ndarray
        (R, n, H) values.
    weights : numpy.ndarray
        (R, n) frequency weights.

    Returns
    -------
    numpy.ndarray
        (R, H, H) covariances, divided by the total weight (no ddof).

    Examples
    --------
    Values 1, 2, 4 with weights 1, 1, 2: mean 2.75, variance (1.75² + 0.75² + 2 x 1.25²) / 4:

    >>> weighted_covariance(np.array([[[1.0], [2.0], [4.0]]]), np.array([[1.0, 1.0, 2.0]])).ravel().tolist()
    [1.6875]
    """
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.einsum("rn,rnh->rh", weights, values) / total[:, None]
        centred = values - mean[:, None, :]
        return np.einsum("rn,rnh,rng->rhg", weights, centred, centred) / total[:, None, None]


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
        As in :class:`DVCOptions`.

    Returns
    -------
    correlations : (R, pairs, 2, 6) array
        For class pairs i < j (``numpy.triu_indices`` order of the sorted classes) and the sides (class i,
        class j): the correlations of :data:`humanlike.metrics.dvc.CORRELATION_PAIRS`.
    classes : list of str
        The sorted classes.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> labels = np.repeat(["a", "b"], 500)
    >>> shared, own = rng.standard_normal((1000, 1)), rng.standard_normal((1000, 4))
    >>> # one score per half (n_components=1); any two halves correlate 0.5 within a class
    >>> scores = np.where(labels[:, None] == "b", 2.0, 0.0) + np.sqrt(0.5) * shared + np.sqrt(0.5) * own
    >>> correlations, classes = half_correlations(scores, labels, n_components=1)
    >>> correlations.shape, [str(c) for c in classes]
    ((1, 1, 2, 6), ['a', 'b'])
    >>> correlations[0, 0, 1].round(2).tolist()   # within class b
    [0.49, 0.45, 0.49, 0.48, 0.42, 0.46]
    """
    labels = np.asarray(labels).astype(str)
    order = np.argsort(labels, kind="stable")
    classes, counts = np.unique(labels, return_counts=True)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    slices = list(zip(bounds[:-1], bounds[1:]))
    fold = np.zeros(labels.size, int) if folds is None else np.asarray(folds, dtype=int)
    split = SplitStatistics(np.asarray(scores, dtype=np.float32)[order], slices, [fold[order][lo:hi] for lo, hi in slices],
                   n_components)
    w = np.ones((1, labels.size), np.float32) if weights is None else np.asarray(weights, np.float32)[:, order]
    per_class = [w[:, lo:hi] for lo, hi in slices]
    pairs_i, pairs_j = np.triu_indices(classes.size, k=1)
    return evaluate_split(split, per_class, pairs_i, pairs_j, folds is not None, ridge, correlation), list(classes)
