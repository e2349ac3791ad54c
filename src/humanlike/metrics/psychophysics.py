"""Array kernels of the Psychophysical-Score (RichardWebster et al. 2023): mask overlap, blends, the
difference judgements of a distance-based observer, and the skewness of a perceptual scale.

Pure numpy, no randomness: ties between two distances are reported, and the caller breaks them with
its seeded stream.
"""

from __future__ import annotations

import itertools

import numpy as np


def jaccard_matrix(masks_a, masks_b) -> np.ndarray:
    """Jaccard index |a∩b|/|a∪b| of every mask of ``masks_a`` (n, H, W) with every one of ``masks_b``.

    Parameters
    ----------
    masks_a : array_like of bool, (n, H, W)
        First stack of object masks.
    masks_b : array_like of bool, (m, H, W)
        Second stack, of the same image size.

    Returns
    -------
    numpy.ndarray, (n, m)
        The Jaccard indices; NaN where both masks are empty (the index is undefined there).

    Raises
    ------
    ValueError
        If the stacks are not 3-D or differ in image size.

    Examples
    --------
    >>> a = np.zeros((1, 2, 2), bool); a[0, 0] = True          # top row
    >>> b = np.zeros((1, 2, 2), bool); b[0, :, 0] = True       # left column
    >>> jaccard_matrix(a, b)                                    # 1 shared pixel of 3
    array([[0.33333333]])
    """
    a = np.asarray(masks_a, dtype=bool)
    b = np.asarray(masks_b, dtype=bool)
    if a.ndim != 3 or b.ndim != 3 or a.shape[1:] != b.shape[1:]:
        raise ValueError(f"masks must be (n, H, W) stacks of one image size, got {a.shape} and {b.shape}")
    fa = a.reshape(len(a), -1).astype(np.float64)
    fb = b.reshape(len(b), -1).astype(np.float64)
    inter = fa @ fb.T
    union = fa.sum(1)[:, None] + fb.sum(1)[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1.0), np.nan)


def top_pairs(jaccard, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the ``k`` highest entries of a Jaccard matrix, best first.

    Ties keep row-major order (stable sort); NaN entries come last; ``k`` larger than the number of
    entries returns them all.

    Parameters
    ----------
    jaccard : array_like, (n, m)
        A matrix such as :func:`jaccard_matrix` returns.
    k : int
        How many entries to return (at least 1).

    Returns
    -------
    rows, cols : numpy.ndarray of int
        Indices of the selected entries, highest first.

    Raises
    ------
    ValueError
        If ``jaccard`` is not 2-D or ``k < 1``.

    Examples
    --------
    >>> top_pairs(np.array([[0.1, 0.5], [0.5, 0.9]]), 3)
    (array([1, 0, 1]), array([1, 1, 0]))
    """
    jac = np.asarray(jaccard, dtype=float)
    if jac.ndim != 2:
        raise ValueError("jaccard must be a 2-D matrix")
    if k < 1:
        raise ValueError("k must be at least 1")
    flat = np.where(np.isnan(jac), -np.inf, jac).ravel()
    order = np.argsort(-flat, kind="stable")[:k]
    return np.unravel_index(order, jac.shape)


def blend_alphas(n_levels: int = 7) -> np.ndarray:
    """Blend weights α_i = i/(n−1), i = 0..n−1 (exact at both ends).

    Parameters
    ----------
    n_levels : int, default 7
        Number of levels of the sequence (at least 3).

    Returns
    -------
    numpy.ndarray, (n_levels,)
        The blend weights from 0 to 1.

    Raises
    ------
    ValueError
        If ``n_levels < 3``.

    Examples
    --------
    >>> blend_alphas(3)
    array([0. , 0.5, 1. ])
    """
    n_levels = int(n_levels)
    if n_levels < 3:
        raise ValueError(f"a difference-scaling sequence needs at least 3 levels, got {n_levels}")
    return np.arange(n_levels) / (n_levels - 1)


def blend_sequence(a, b, alphas) -> np.ndarray:
    """Alpha blends a(1−α) + bα of two equally sized images, stacked along a new first axis.

    Parameters
    ----------
    a, b : array_like
        The two images (any equal shape, e.g. (H, W) or (H, W, 3)).
    alphas : array_like, (levels,)
        Blend weights, e.g. from :func:`blend_alphas`.

    Returns
    -------
    numpy.ndarray, (levels, *a.shape)
        The blended images, float64.

    Raises
    ------
    ValueError
        If the two images differ in shape.

    Examples
    --------
    >>> blend_sequence(np.zeros(2), np.ones(2), blend_alphas(3)).tolist()
    [[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"images to blend differ in shape: {a.shape} vs {b.shape}")
    al = np.asarray(alphas, dtype=np.float64).reshape((-1,) + (1,) * a.ndim)
    return a[None] * (1.0 - al) + b[None] * al


def triad_design(n_levels: int) -> np.ndarray:
    """All C(n, 3) triads (a < b < c) of 1-based levels, in lexicographic order, as an (m, 3) array.

    Parameters
    ----------
    n_levels : int
        Number of levels of the sequence.

    Returns
    -------
    numpy.ndarray of int64, (C(n_levels, 3), 3)
        One triad per row.

    Examples
    --------
    >>> triad_design(4).tolist()
    [[1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 4]]
    >>> triad_design(7).shape
    (35, 3)
    """
    return np.array(list(itertools.combinations(range(1, int(n_levels) + 1), 3)), dtype=np.int64)


def quad_design(n_levels: int) -> np.ndarray:
    """All C(n, 4) quadruples (a < b < c < d) of 1-based levels, as an (m, 4) array.

    Parameters
    ----------
    n_levels : int
        Number of levels of the sequence.

    Returns
    -------
    numpy.ndarray of int64, (C(n_levels, 4), 4)
        One quadruple per row, in lexicographic order.

    Examples
    --------
    >>> quad_design(5).tolist()[:2], quad_design(7).shape
    ([[1, 2, 3, 4], [1, 2, 3, 5]], (35, 4))
    """
    return np.array(list(itertools.combinations(range(1, int(n_levels) + 1), 4)), dtype=np.int64)


def pairwise_distances(features) -> np.ndarray:
    """ℓ2 distances between the levels of each sequence: (..., levels, dims) -> (..., levels, levels).

    Parameters
    ----------
    features : array_like, (..., levels, dims)
        One feature vector per level of each sequence.

    Returns
    -------
    numpy.ndarray, (..., levels, levels)
        Symmetric distance matrices with a zero diagonal.

    Examples
    --------
    >>> pairwise_distances([[0, 0], [3, 4], [6, 8]]).tolist()
    [[0.0, 5.0, 10.0], [5.0, 0.0, 5.0], [10.0, 5.0, 0.0]]
    """
    f = np.asarray(features, dtype=np.float64)
    n = f.shape[-2]
    out = np.zeros(f.shape[:-2] + (n, n))
    # Direct differences, not the Gram-matrix identity: its cancellation leaves residues of ~1e-4 on
    # large vectors, enough to break the exact ties that equal blend steps produce.
    for i in range(n):
        out[..., i, :] = np.sqrt(np.sum((f - f[..., i:i + 1, :]) ** 2, axis=-1))
    return out


def pair_differences(distances, design) -> np.ndarray:
    """d(second pair) − d(first pair) for every trial of ``design`` (1-based levels).

    Triads (a, b, c) compare (a, b) with (b, c); quadruples (a, b, c, d) compare (a, b) with (c, d).
    A positive value means the second pair differs more (response R = 1).

    Parameters
    ----------
    distances : array_like, (..., levels, levels)
        Distance matrices, e.g. from :func:`pairwise_distances`.
    design : array_like of int, (m, 3) or (m, 4)
        Triads or quadruples of 1-based levels.

    Returns
    -------
    numpy.ndarray, (..., m)
        The distance difference of each trial.

    Raises
    ------
    ValueError
        If ``design`` is not (m, 3) or (m, 4) or names a level outside 1..levels.

    Examples
    --------
    >>> d = pairwise_distances([[0, 0], [3, 4], [6, 8], [6, 9]])
    >>> pair_differences(d, [[1, 2, 3], [2, 3, 4]]).tolist()
    [0.0, -4.0]
    """
    d = np.asarray(distances, dtype=np.float64)
    design = np.asarray(design, dtype=np.int64) - 1
    if design.ndim != 2 or design.shape[1] not in (3, 4):
        raise ValueError("design must be an (m, 3) triad or (m, 4) quadruple array")
    if design.min() < 0 or design.max() >= d.shape[-1]:
        raise ValueError(f"design levels must lie in 1..{d.shape[-1]}")
    if design.shape[1] == 3:
        first = d[..., design[:, 0], design[:, 1]]
        second = d[..., design[:, 1], design[:, 2]]
    else:
        first = d[..., design[:, 0], design[:, 1]]
        second = d[..., design[:, 2], design[:, 3]]
    return second - first


def tie_mask(differences, distances, rtol: float = 1e-9) -> np.ndarray:
    """Trials whose two distances are equal up to ``rtol`` of the sequence's largest distance.

    Exact ties are common (a pixel observer on a blend sequence sees equal steps as equal) and a tiny
    floating-point residue must not decide them.

    Parameters
    ----------
    differences : array_like, (..., m)
        Distance differences from :func:`pair_differences`.
    distances : array_like, (..., levels, levels)
        The distance matrices they came from (sets the scale of the tolerance).
    rtol : float, default 1e-9
        Tolerance relative to the largest distance of each sequence.

    Returns
    -------
    numpy.ndarray of bool, (..., m)
        True where the trial is a tie.

    Examples
    --------
    >>> d = pairwise_distances([[0, 0], [3, 4], [6, 8]])
    >>> tie_mask(np.array([1e-12, 5.0]), d).tolist()
    [True, False]
    """
    diff = np.asarray(differences, dtype=np.float64)
    dmax = np.max(np.asarray(distances, dtype=np.float64), axis=(-1, -2))
    return np.abs(diff) <= rtol * np.maximum(dmax, np.finfo(float).tiny)[..., None]


def standard_scale(psi) -> np.ndarray:
    """ψ/ψ_p along the last axis (ψ_1 = 0 anchors the start); NaN where ψ_p is 0 or not finite.

    Parameters
    ----------
    psi : array_like, (..., levels)
        Perceptual scale values with ψ_1 = 0.

    Returns
    -------
    numpy.ndarray, (..., levels)
        The scale divided by its last value (so it ends at 1).

    Examples
    --------
    >>> standard_scale([0.0, 1.0, 4.0]).tolist()
    [0.0, 0.25, 1.0]
    """
    psi = np.asarray(psi, dtype=np.float64)
    last = psi[..., -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((last != 0) & np.isfinite(last), psi / np.where(last != 0, last, 1.0), np.nan)


def scale_skewness(scale) -> np.ndarray:
    """Skewness S of a standard scale (values 0 … 1 at the ends): S = 1 − 2·mean(interior values).

    For 7 levels this is eq. 2 of RichardWebster et al. as printed, S = −2((Σψ_i − 1)/5 − ½). Note the
    sign: a compressive (concave) scale, whose interior lies above the diagonal, gives S < 0, although
    the paper's text says the opposite; a linear scale gives 0. Reversing the sequence (A↔B) flips the
    sign, so every observer's class pairs must be oriented the same way.

    Parameters
    ----------
    scale : array (..., levels)
        Standard scales; any ψ with ψ_1 = 0 is normalised by its last value first.

    Returns
    -------
    numpy.ndarray or float
        The skewness per scale (NaN where the scale cannot be normalised).

    Raises
    ------
    ValueError
        If a scale has fewer than 3 levels.

    Examples
    --------
    >>> round(float(scale_skewness([0, 1/6, 2/6, 3/6, 4/6, 5/6, 1])), 12)        # linear
    0.0
    >>> round(float(scale_skewness(np.sqrt(np.linspace(0, 1, 7)))), 4)   # compressive
    -0.3688
    """
    s = standard_scale(scale)
    if s.shape[-1] < 3:
        raise ValueError("a scale needs at least 3 levels to have an interior")
    out = 1.0 - 2.0 * np.mean(s[..., 1:-1], axis=-1)
    return out[()] if out.ndim == 0 else out
