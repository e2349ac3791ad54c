"""The split machinery of the DVC of representations: random unit halves and their PCA, and the weighted
mid-ranks behind Spearman DVs (see :mod:`humanlike.measures.dvc.representations` for the pipeline and
:mod:`humanlike.measures.dvc.kernel` for the engine kernel and aggregation).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from .metric import CORRELATION_PAIRS
from ...resampling.parallel import map_in_threads
from ...resampling.rng import stream

# --------------------------------------------------------------------------------------------------
# PCA per half
# --------------------------------------------------------------------------------------------------


def half_scores(features: np.ndarray, n_components: int, rng: np.random.Generator | None, *,
                iterations: int = 2, standardize: bool = False, oversample: int = 10,
                test_matrix: np.ndarray | None = None) -> np.ndarray:
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
    rng : numpy.random.Generator or None
        Draws the random test matrix (from the split's stream) unless ``test_matrix`` is given.
    iterations : int
        Power iterations of the range finder.
    standardize : bool
        z-score units first (constant units stay 0).
    oversample : int
        Extra columns of the random test matrix.
    test_matrix : (units, n_components + oversample) array, optional
        A test matrix drawn beforehand (see :func:`draw_test_matrix`).

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
    x = np.array(features, dtype=np.float32, order="C")
    return image_rows_scores(x, n_components, rng, iterations=iterations, standardize=standardize,
                             oversample=oversample, test_matrix=test_matrix)


def image_rows_scores(x: np.ndarray, n_components: int, rng, *, iterations: int = 2,
                      standardize: bool = False, oversample: int = 10, test_matrix=None) -> np.ndarray:
    """:func:`half_scores` of an (images x units) float32 array that may be overwritten (centred in place).

    Parameters
    ----------
    x : numpy.ndarray
        (images x units) float32, C-ordered; centred (and standardised) in place.
    n_components, rng, iterations, standardize, oversample, test_matrix
        As in :func:`half_scores`.

    Returns
    -------
    numpy.ndarray
        (images x n_components) float32 scores, each with mean 0 and variance 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.standard_normal((40, 2)) @ rng.standard_normal((2, 30))).astype(np.float32)
    >>> scores = image_rows_scores(x, 2, np.random.default_rng(1))
    >>> scores.shape, scores.var(axis=0).round(4).tolist(), bool(abs(x.mean(axis=0)).max() < 1e-5)
    ((40, 2), [1.0, 1.0], True)
    """
    x -= x.mean(axis=0, dtype=np.float64).astype(np.float32)
    if standardize:
        sd = x.std(axis=0)
        x /= np.where(sd > 0, sd, 1.0).astype(np.float32)
    k = min(n_components + oversample, min(x.shape))
    with threadpool_limits(1, user_api="blas"):
        if min(x.shape) <= 2 * k:
            return exact_scores(x, n_components)
        omega = test_matrix if test_matrix is not None else draw_test_matrix(rng, x.shape[1], k)
        return range_finder_scores(x, n_components, omega, iterations)


def draw_test_matrix(rng: np.random.Generator, n_units: int, k: int) -> np.ndarray:
    """The Gaussian test matrix (units x k, float32) of one randomized PCA.

    Parameters
    ----------
    rng : numpy.random.Generator
        The split's stream (the draws' order is part of the numbers).
    n_units : int
        Units of the half.
    k : int
        Columns: components plus oversampling.

    Returns
    -------
    numpy.ndarray
        (n_units x k) float32 standard normal draws.

    Examples
    --------
    >>> omega = draw_test_matrix(np.random.default_rng(0), 5, 3)
    >>> omega.shape, omega.dtype.name
    ((5, 3), 'float32')
    """
    return rng.standard_normal((n_units, k)).astype(np.float32)


def uses_range_finder(n_images: int, n_units: int, n_components: int, oversample: int = 10) -> bool:
    """Whether :func:`half_scores` runs the randomized range finder (and so draws a test matrix).

    Parameters
    ----------
    n_images, n_units : int
        The half's shape.
    n_components : int
        Components kept.
    oversample : int
        Extra columns of the test matrix.

    Returns
    -------
    bool
        True when the smaller side exceeds twice ``n_components + oversample``; False: an exact SVD.

    Examples
    --------
    >>> uses_range_finder(1000, 500, 10), uses_range_finder(30, 500, 10)
    (True, False)
    """
    k = min(n_components + oversample, n_images, n_units)
    return min(n_images, n_units) > 2 * k


def exact_scores(x: np.ndarray, n_components: int) -> np.ndarray:
    """Leading principal-component scores of a centred (images x units) matrix by a full SVD.

    Parameters
    ----------
    x : numpy.ndarray
        (images x units) centred matrix.
    n_components : int
        Components kept.

    Returns
    -------
    numpy.ndarray
        (images x n_components) float32 scores scaled to mean square 1 (sign as the SVD gives it).

    Examples
    --------
    >>> x = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 1.0], [0.0, -1.0]], dtype=np.float32)
    >>> scores = exact_scores(x, 1)
    >>> np.abs(scores).ravel().astype(float).round(4).tolist(), round(float((scores ** 2).mean()), 4)
    ([1.4142, 1.4142, 0.0, 0.0], 1.0)
    """
    u, _, _ = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    return (u[:, :n_components] * np.sqrt(x.shape[0])).astype(np.float32)


def range_finder_scores(x, n_components, omega, iterations):
    """Leading principal-component scores by a randomised range finder (Halko et al. 2011) with the test
    matrix ``omega`` and ``iterations`` power iterations (a fast truncated PCA of a centred matrix).

    Parameters
    ----------
    x : numpy.ndarray
        (images x units) centred float32 matrix.
    n_components : int
        Components kept.
    omega : numpy.ndarray
        (units x k) test matrix, k >= n_components (:func:`draw_test_matrix`).
    iterations : int
        Power iterations.

    Returns
    -------
    numpy.ndarray
        (images x n_components) float32 scores scaled as :func:`exact_scores`.

    Examples
    --------
    On a rank-2 matrix the scores agree with the exact ones (up to sign):

    >>> rng = np.random.default_rng(0)
    >>> x = (rng.standard_normal((200, 2)) @ rng.standard_normal((2, 100))).astype(np.float32)
    >>> x -= x.mean(axis=0)
    >>> fast = range_finder_scores(x, 2, draw_test_matrix(rng, 100, 12), iterations=2)
    >>> np.abs((fast * exact_scores(x, 2)).mean(axis=0)).round(4).tolist()
    [1.0, 1.0]
    """
    q = x @ omega
    q, _ = np.linalg.qr(q)
    for _ in range(iterations):
        q, _ = np.linalg.qr(x.T @ q)
        q, _ = np.linalg.qr(x @ q)
    small = q.T @ x
    u, _, _ = np.linalg.svd(small.astype(np.float64), full_matrices=False)
    basis = q.astype(np.float64) @ u[:, :n_components]
    return (basis * np.sqrt(x.shape[0])).astype(np.float32)


@dataclass(frozen=True)
class HalfJob:
    """One PCA of one split: which system and units, on which images, with which test matrix.

    Made by :func:`split_jobs`, run by :func:`run_pca_jobs`.

    Attributes
    ----------
    split : int
        The split repeat.
    system : int
        0 (A) or 1 (B).
    units : numpy.ndarray
        The half's unit (column) indices, sorted.
    rows : numpy.ndarray or None
        The images (rows) of a class pair's PCA; None: all images.
    test_matrix : numpy.ndarray or None
        The range finder's test matrix; None: an exact SVD.

    Examples
    --------
    >>> job = HalfJob(0, 1, np.array([0, 2]), None, None)
    >>> job.system, job.units.tolist()
    (1, [0, 2])
    """

    split: int
    system: int
    units: np.ndarray
    rows: np.ndarray | None
    test_matrix: np.ndarray | None


def split_jobs(n_units: tuple[int, int], n_images: int, n_splits: int, seed: int, n_components: int,
               pair_rows: list[np.ndarray] | None = None, pair_keys: list[tuple] | None = None) -> list[list[HalfJob]]:
    """The PCA jobs of every split, with all random draws made in a fixed order.

    Split s draws from ``stream(seed, "dvc-split", s)``: A's unit permutation, the test matrices of A1 and A2,
    B's permutation, those of B1 and B2 (the order of the sequential code, so the numbers are kept). With
    ``pair_rows`` (PCA per class pair: the rows of each pair's images) the same halves are used and each
    pair's test matrices come from ``stream(seed, "dvc-pair-pca", s, *pair_key)``.

    Parameters
    ----------
    n_units : tuple of int
        Units of systems A and B.
    n_images : int
        Images (rows of the features).
    n_splits : int
        Split repeats.
    seed : int
        The analysis seed.
    n_components : int
        Components per half (sets the test matrices' width).
    pair_rows : list of numpy.ndarray, optional
        Per class pair the rows of its images (PCA per pair); None: one PCA per half on all images.
    pair_keys : list of tuple, optional
        Per class pair its key (the class names), for its random stream.

    Returns
    -------
    list of list of HalfJob
        Per split its jobs, in the order A1, A2, B1, B2 (per pair when ``pair_rows`` is given).

    Examples
    --------
    >>> jobs = split_jobs((8, 6), n_images=5, n_splits=2, seed=0, n_components=2)
    >>> len(jobs), [(job.system, job.units.size) for job in jobs[0]]
    (2, [(0, 4), (0, 4), (1, 3), (1, 3)])
    >>> sorted(np.concatenate([jobs[0][0].units, jobs[0][1].units]).tolist()) == list(range(8))
    True
    """
    out = []
    for s in range(n_splits):
        rng = stream(seed, "dvc-split", s)
        halves = []
        for system, units in enumerate(n_units):
            perm = rng.permutation(units)
            half = units // 2
            for cols in (np.sort(perm[:half]), np.sort(perm[half:])):
                omega = None
                if uses_range_finder(n_images, cols.size, n_components):
                    omega = draw_test_matrix(rng, cols.size, min(n_components + 10, n_images, cols.size))
                halves.append((system, cols, omega))
        if pair_rows is None:
            out.append([HalfJob(s, system, cols, None, omega) for system, cols, omega in halves])
            continue
        jobs = []
        for rows, key in zip(pair_rows, pair_keys):
            pair_rng = stream(seed, "dvc-pair-pca", s, *key)
            for system, cols, _ in halves:
                omega = None
                if uses_range_finder(rows.size, cols.size, n_components):
                    omega = draw_test_matrix(pair_rng, cols.size, min(n_components + 10, rows.size, cols.size))
                jobs.append(HalfJob(s, system, cols, rows, omega))
        out.append(jobs)
    return out


def run_pca_jobs(jobs: list[HalfJob], features: tuple[np.ndarray, np.ndarray], n_components: int, *,
                 iterations: int = 2, standardize: bool = False, workers: int | None = None) -> list[np.ndarray]:
    """Scores of every job (images x n_components each), computed by ``workers`` threads (default: up to 2).

    ``features`` are the two systems' (images x units) arrays. Every PCA runs on one BLAS thread, so its
    numbers do not depend on how many run at once; numpy releases the interpreter lock in the matrix products,
    so two PCAs use two cores.

    Parameters
    ----------
    jobs : list of HalfJob
        The PCAs (:func:`split_jobs`).
    features : tuple of numpy.ndarray
        The (images x units) features of systems A and B.
    n_components : int
        Components per half.
    iterations, standardize
        As in :func:`half_scores`.
    workers : int, optional
        Threads (default: up to 2; the numbers do not depend on it).

    Returns
    -------
    list of numpy.ndarray
        Per job its (images x n_components) float32 scores (the job's rows only for a class pair's PCA).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> features = (rng.standard_normal((5, 8)), rng.standard_normal((5, 6)))
    >>> jobs = split_jobs((8, 6), 5, 1, seed=0, n_components=2)[0]
    >>> [scores.shape for scores in run_pca_jobs(jobs, features, 2)]
    [(5, 2), (5, 2), (5, 2), (5, 2)]
    """
    def one(job: HalfJob) -> np.ndarray:
        f = features[job.system]
        x = np.take(f, job.units, axis=1) if job.rows is None else f[np.ix_(job.rows, job.units)]
        return image_rows_scores(np.ascontiguousarray(x, dtype=np.float32), n_components, None,
                                 iterations=iterations, standardize=standardize, test_matrix=job.test_matrix)

    return map_in_threads(one, jobs, workers or min(2, os.cpu_count() or 1))


# --------------------------------------------------------------------------------------------------
# Spearman: weighted mid-ranks
# --------------------------------------------------------------------------------------------------


def spearman_side(block, weights, axes, midpoint, centre, p):
    """Within-class Spearman correlations of explicit DVs under weights (weighted mid-ranks): (R, 6).

    Parameters
    ----------
    block : ClassScores
        The class's centred scores in one view (:class:`~humanlike.measures.dvc.kernel.ClassScores`).
    weights : numpy.ndarray
        (R, images) image weights in fold order.
    axes : numpy.ndarray
        (R, folds, halves, p) LDA axes of the class pair.
    midpoint : numpy.ndarray
        (R, folds, halves, p) midpoints between the two class means.
    centre : numpy.ndarray
        (halves * p,) the class centre the scores were centred on.
    p : int
        Components per half.

    Returns
    -------
    numpy.ndarray
        (R, 6) Spearman correlations of the DVs of the half pairs
        :data:`humanlike.measures.dvc.metric.CORRELATION_PAIRS` (NaN where a DV is constant).

    Examples
    --------
    Halves A1, A2, B1 give the same DVs, B2 the reversed ones (pairs (0, 2), (0, 3), (1, 2), (1, 3), (0, 1),
    (2, 3)):

    >>> from humanlike.measures.dvc.kernel import ClassScores
    >>> v = np.arange(5.0) - 2
    >>> block = ClassScores(np.zeros(4), np.stack([v, v, v, -v], axis=1).astype(np.float32), np.array([0, 5]))
    >>> spearman_side(block, np.ones((1, 5)), np.ones((1, 1, 4, 1)), np.zeros((1, 1, 4, 1)), block.centre, 1)
    array([[ 1., -1.,  1., -1.,  1., -1.]])
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
