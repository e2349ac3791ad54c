"""Decision-variable correlation (DVC) from representations (Qian, Geisler & Wei 2025): the array kernels.

Pure numpy, broadcasting over leading axes (resamples, class pairs, tables; docs/measures/decision-variable-correlation.md): weighted class
moments of PCA scores, two-class LDA axes, within-class correlations of the decision variables (DVs) as
bilinear forms of the class covariances, and the split-half normalisation. A bootstrap resample is a row of
image weights, so the whole pipeline runs on weighted sufficient statistics. DVC from binary choices is in
:mod:`humanlike.measures.dvc.choices_metric`.
"""

from __future__ import annotations

import numpy as np

#: The six within-class correlations the split normalisation needs, as (half, half) index pairs of the
#: stacked halves (0 = A1, 1 = A2, 2 = B1, 3 = B2): four cross-system, then the two reliabilities.
CORRELATION_PAIRS = ((0, 2), (0, 3), (1, 2), (1, 3), (0, 1), (2, 3))

REASON_RELIABILITY = "a split-half reliability is not positive (signed normalisation undefined)"
REASON_ZERO = "a correlation is 0 or undefined"


def weighted_moments(weights: np.ndarray, centred: np.ndarray):
    """Weighted count, mean offset and covariance of one class's scores under bootstrap weights.

    Parameters
    ----------
    weights : (R, n) array
        Image weights (bootstrap counts; a row of ones is the data itself).
    centred : (n, D) array
        The class's scores minus a fixed centre (its unweighted mean keeps float32 sums accurate).

    Returns
    -------
    count : (R,) array
    mean : (R, D) array
        Weighted mean of ``centred`` (add the centre back for the mean score).
    covariance : (R, D, D) array
        Weighted covariance, normalised by the weighted count (ML form; LDA axes and correlations are
        invariant to that scale).

    Examples
    --------
    >>> w = np.ones((1, 3)); y = np.array([[1.0], [2.0], [3.0]])
    >>> n, m, c = weighted_moments(w, y)
    >>> float(n[0]), float(m[0, 0]), round(float(c[0, 0, 0]), 4)
    (3.0, 2.0, 0.6667)
    """
    weights = np.asarray(weights)
    y = np.asarray(centred)
    dim = y.shape[1]
    upper = np.triu_indices(dim)
    products = (y[:, upper[0]] * y[:, upper[1]]).astype(y.dtype)
    count = weights.sum(axis=1, dtype=np.float64)
    first = (weights @ y).astype(np.float64)
    second = (weights @ products).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = first / count[:, None]
        raw = second / count[:, None]
    cov = np.empty((weights.shape[0], dim, dim))
    cov[:, upper[0], upper[1]] = raw
    cov[:, upper[1], upper[0]] = raw
    cov -= mean[:, :, None] * mean[:, None, :]
    return count, mean, cov


def lda_axes(mean_i, mean_j, cov_i, cov_j, count_i, count_j, ridge: float = 0.0):
    """Two-class LDA axes ``w = S^-1 (mean_j - mean_i)``, S the pooled within-class covariance.

    Oriented so that the class-j mean projects above the class-i mean (``w . (mean_j - mean_i) =
    d' S^-1 d >= 0`` for a positive-definite S). Broadcasts over leading axes.

    Parameters
    ----------
    mean_i, mean_j : array_like, (..., p)
        The two class means.
    cov_i, cov_j : array_like, (..., p, p)
        The two class covariances.
    count_i, count_j : array_like, (...)
        The (weighted) class sizes, weighting the pooled covariance.
    ridge : float, default 0.0
        Adds ``ridge * trace(S)/p`` to the diagonal of S.

    Returns
    -------
    numpy.ndarray, (..., p)
        The LDA axes.

    Examples
    --------
    >>> w = lda_axes(np.zeros(2), np.array([1.0, 0.0]), np.eye(2), np.eye(2), 10, 10)
    >>> w.round(3).tolist()
    [1.0, 0.0]
    """
    count_i = np.asarray(count_i, dtype=float)[..., None, None]
    count_j = np.asarray(count_j, dtype=float)[..., None, None]
    pooled = (count_i * cov_i + count_j * cov_j) / (count_i + count_j)
    if ridge > 0:
        p = pooled.shape[-1]
        scale = np.trace(pooled, axis1=-2, axis2=-1)[..., None, None] / p
        pooled = pooled + ridge * scale * np.eye(p)
    diff = np.asarray(mean_j) - np.asarray(mean_i)
    return np.linalg.solve(pooled, diff[..., None])[..., 0]


def dv_covariances(axes: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """Within-class covariances of the DVs of the four halves: ``w_h' C[h, g] w_g`` for all h, g.

    Parameters
    ----------
    axes : (..., 4, p) array
        The LDA axes of the halves A1, A2, B1, B2 (one class pair).
    covariance : (..., 4p, 4p) array
        The class's covariance of the stacked PCA scores (halves in the same order).

    Returns
    -------
    (..., 4, 4) array of DV covariances.

    Examples
    --------
    >>> axes = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 3.0]])
    >>> np.diag(dv_covariances(axes, np.eye(8))).tolist()  # independent scores: |w_h|^2 on the diagonal
    [1.0, 4.0, 1.0, 9.0]
    """
    halves, p = axes.shape[-2:]
    blocks = covariance.reshape(covariance.shape[:-2] + (halves, p, halves, p))
    right = np.einsum("...hagb,...gb->...hag", blocks, axes)
    return np.einsum("...ha,...hag->...hg", axes, right)


def fold_dv_covariances(axes, beta, count, first, second):
    """Within-class covariances of the DVs of H halves from weighted moments of the PCA scores, for E sets
    of axes (the class pairs a class is in) at once.

    The images of fold f get the DVs ``d_h = a_fh . y_h + beta_fh`` (``y``: an image's stacked scores minus a
    fixed class centre; with one fold, in-sample). With the weighted sums of fold f, ``count = sum w``,
    ``first = sum w y`` and ``second = sum w y y'``, the DV moments are bilinear forms:
    ``sum w d_h d_g = a_fh' second[h, g] a_fg + beta_fg a_fh' first_h + beta_fh a_fg' first_g
    + beta_fh beta_fg count``, summed over folds, so no image's DV is ever formed. One matrix product per
    fold serves all E axis sets.

    Parameters
    ----------
    axes : (..., E, F, H, p) array
        Per axis set and fold the axes of the H halves.
    beta : (..., E, F, H) array
        Per axis set and fold the offsets of the halves' DVs.
    count : (..., F) array
    first : (..., F, H * p) array
    second : (..., F, H * p, H * p) array
        Leading axes broadcast against those of ``axes``.

    Returns
    -------
    (..., E, H, H) array: the weighted (ML) covariances of the DVs.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=(50, 4)); a = rng.normal(size=(1, 1, 2, 2)); b = np.array([[[0.5, -1.0]]])
    >>> dv = np.stack([y[:, :2] @ a[0, 0, 0], y[:, 2:] @ a[0, 0, 1]], axis=1) + b[0, 0]
    >>> got = fold_dv_covariances(a, b, np.array([50.0]), y.sum(0)[None], (y.T @ y)[None])
    >>> bool(np.allclose(got[0], np.cov(dv.T, ddof=0)))
    True
    """
    ax = np.moveaxis(np.asarray(axes, dtype=float), -4, -3)                        # (..., F, E, H, p)
    *lead, folds, sets, halves, p = ax.shape
    second = np.asarray(second)
    # The product runs in the precision of ``second`` (float32 sums give a float32 product: no upcast copy).
    embedded = np.zeros(tuple(lead) + (folds, halves, p, sets, halves), dtype=np.result_type(second, np.float32))
    for h in range(halves):
        embedded[..., h, :, :, h] = np.swapaxes(ax[..., h, :], -1, -2)
    embedded = embedded.reshape(tuple(lead) + (folds, halves * p, sets * halves))
    right = (second @ embedded).reshape(tuple(lead) + (folds, halves, p, sets, halves))
    quadratic = np.einsum("...fehb,...fhbeg->...fehg", ax, right)                   # (..., F, E, H, H)
    first_h = np.asarray(first, dtype=float).reshape(np.shape(first)[:-1] + (halves, p))
    linear = np.einsum("...fehb,...fhb->...feh", ax, first_h)                       # (..., F, E, H)
    bt = np.moveaxis(np.asarray(beta, dtype=float), -3, -2)                          # (..., F, E, H)
    n = np.asarray(count, dtype=float)[..., None, None]                              # (..., F, 1, 1)
    cross = bt[..., None, :] * linear[..., :, None]
    sums = quadratic + cross + np.swapaxes(cross, -1, -2) + bt[..., :, None] * bt[..., None, :] * n[..., None]
    total = np.asarray(count, dtype=float).sum(axis=-1)[..., None, None]              # (..., 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (linear + bt * n).sum(axis=-3) / total                                 # (..., E, H)
        return sums.sum(axis=-4) / total[..., None] - mean[..., :, None] * mean[..., None, :]


def correlations_from_covariances(cov: np.ndarray) -> np.ndarray:
    """The six correlations of :data:`CORRELATION_PAIRS` from (..., 4, 4) DV covariances.

    Parameters
    ----------
    cov : numpy.ndarray, (..., 4, 4)
        DV covariances of the halves A1, A2, B1, B2 (from :func:`dv_covariances`).

    Returns
    -------
    numpy.ndarray, (..., 6)
        The four cross-system correlations, then the reliabilities rAA and rBB; NaN where a variance is 0.

    Examples
    --------
    >>> cov = np.full((4, 4), 0.5) + 0.5 * np.eye(4)
    >>> correlations_from_covariances(cov).tolist()
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    """
    var = np.diagonal(cov, axis1=-2, axis2=-1)
    out = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for h, g in CORRELATION_PAIRS:
            den = np.sqrt(var[..., h] * var[..., g])
            out.append(np.where(den > 0, cov[..., h, g] / den, np.nan))
    return np.clip(np.stack(out, axis=-1), -1.0, 1.0)


def split_normalised_dvc(correlations: np.ndarray, absolute: bool = False) -> np.ndarray:
    """Split-half normalised DVC from the six correlations (last axis, order of :data:`CORRELATION_PAIRS`).

    ``absolute=True`` is the paper's formula,
    ``(|r11 r12 r21 r22|)^(1/4) / (|rAA| |rBB|)^(1/2)``. The signed default keeps the sign of the
    mean cross correlation on the geometric mean and requires both reliabilities to be positive (NaN
    otherwise: Spearman's correction is meaningless for an unreliable system), so that a true DVC of 0
    averages to about 0 instead of being pushed up.

    Parameters
    ----------
    correlations : array_like, (..., 6)
        From :func:`correlations_from_covariances`.
    absolute : bool, default False
        Use the paper's absolute-value formula.

    Returns
    -------
    numpy.ndarray or float, (...)
        The normalised DVC.

    Examples
    --------
    >>> r = np.array([0.4, 0.4, 0.4, 0.4, 0.8, 0.5])
    >>> round(float(split_normalised_dvc(r)), 4)
    0.6325
    >>> float(split_normalised_dvc(-r[[0, 1, 2, 3, 4, 5]] * np.array([1, 1, 1, 1, -1, -1])))
    -0.6324555320336759
    """
    r = np.asarray(correlations, dtype=float)
    cross = np.abs(r[..., :4])
    with np.errstate(invalid="ignore", divide="ignore"):
        numerator = np.prod(cross, axis=-1) ** 0.25
        if absolute:
            return numerator / np.sqrt(np.abs(r[..., 4] * r[..., 5]))
        sign = np.sign(np.sum(r[..., :4], axis=-1))
        reliable = (r[..., 4] > 0) & (r[..., 5] > 0)
        return np.where(reliable, sign * numerator / np.sqrt(r[..., 4] * r[..., 5]), np.nan)


def known_dv_correlation(dv_a, dv_b, labels) -> tuple[float, np.ndarray]:
    """DVC of two systems whose per-class decision values are known (no split normalisation needed).

    For class pair (i, j) the DV is ``score_j - score_i`` and its within-class Pearson correlation between
    the systems is taken in class i and in class j.

    Parameters
    ----------
    dv_a, dv_b : array_like, (images, K)
        Class scores of the two systems (e.g. a readout's logits).
    labels : array_like of int, (images,)
        Class index 0..K-1 of each image.

    Returns
    -------
    mean : float
        The mean over the 2 x C(K, 2) correlations (NaN ignored).
    values : numpy.ndarray, (pairs, 2)
        The correlations per class pair (in ``np.triu_indices`` order), in class i and in class j.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> labels = np.repeat(np.arange(3), 50)
    >>> dv = rng.normal(size=(150, 3))
    >>> round(known_dv_correlation(dv, dv, labels)[0], 6)
    1.0
    """
    from ...stats.correlation import pearson_rows

    dv_a, dv_b = np.asarray(dv_a, dtype=float), np.asarray(dv_b, dtype=float)
    labels = np.asarray(labels)
    k = dv_a.shape[1]
    first, second = np.triu_indices(k, 1)
    values = np.empty((first.size, 2))
    for p, (i, j) in enumerate(zip(first, second)):
        for side, c in enumerate((i, j)):
            rows = labels == c
            values[p, side] = pearson_rows(dv_a[rows, j] - dv_a[rows, i], dv_b[rows, j] - dv_b[rows, i])
    return float(np.nanmean(values)), values
