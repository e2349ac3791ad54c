"""The arithmetic of blend sequences (RichardWebster et al. 2023): the overlap of two object masks, the most
overlapping class pairs, the blend levels and the blended images.

Pure numpy, no randomness; :mod:`humanlike.measures.psychscore.sequences` builds the sequences of real stimuli with them.
"""

from __future__ import annotations

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
