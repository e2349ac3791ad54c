"""The split machinery of the DVC of representations: random unit halves and their PCA, and the weighted
mid-ranks behind Spearman DVs (see :mod:`humanlike.analyses.dvc_representations` for the pipeline and
:mod:`humanlike.analyses.dvc_kernel` for the engine kernel and aggregation).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ..metrics.dvc import CORRELATION_PAIRS
from ..stats.rng import stream

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
    """:func:`half_scores` of an (images x units) float32 array that may be overwritten (centred in place)."""
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
    """The Gaussian test matrix (units x k, float32) of one randomized PCA."""
    return rng.standard_normal((n_units, k)).astype(np.float32)


def uses_range_finder(n_images: int, n_units: int, n_components: int, oversample: int = 10) -> bool:
    """Whether :func:`half_scores` runs the randomized range finder (and so draws a test matrix)."""
    k = min(n_components + oversample, n_images, n_units)
    return min(n_images, n_units) > 2 * k


def exact_scores(x: np.ndarray, n_components: int) -> np.ndarray:
    """Leading principal-component scores of a centred (images x units) matrix by a full SVD."""
    u, _, _ = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    return (u[:, :n_components] * np.sqrt(x.shape[0])).astype(np.float32)


def range_finder_scores(x, n_components, omega, iterations):
    """Leading principal-component scores by a randomised range finder (Halko et al. 2011) with the test
    matrix ``omega`` and ``iterations`` power iterations (a fast truncated PCA of a centred matrix)."""
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
    """One PCA of one split: which system and units, on which images, with which test matrix."""

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
    Returns per split its jobs, in the order A1, A2, B1, B2 (per pair when ``pair_rows`` is given).
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
    """
    def one(job: HalfJob) -> np.ndarray:
        f = features[job.system]
        x = np.take(f, job.units, axis=1) if job.rows is None else f[np.ix_(job.rows, job.units)]
        return image_rows_scores(np.ascontiguousarray(x, dtype=np.float32), n_components, None,
                                 iterations=iterations, standardize=standardize, test_matrix=job.test_matrix)

    workers = workers or min(2, os.cpu_count() or 1)
    if workers <= 1 or len(jobs) <= 1:
        return [one(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, jobs))


# --------------------------------------------------------------------------------------------------
# Spearman: weighted mid-ranks
# --------------------------------------------------------------------------------------------------


def spearman_side(block, weights, axes, midpoint, centre, p):
    """Within-class Spearman correlations of explicit DVs under weights (weighted mid-ranks): (R, 6)."""
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
