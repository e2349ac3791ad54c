"""Correlations along the last axis, broadcasting over leading axes (resamples, splits, conditions).

A correlation with a constant vector is undefined: every function here returns NaN for it, and
:func:`constant_reason` says which input was constant. NaN inputs give NaN outputs.
"""

from __future__ import annotations

import numpy as np

REASON_X_CONSTANT = "x constant"
REASON_Y_CONSTANT = "y constant"
REASON_BOTH_CONSTANT = "x and y constant"
REASON_TOO_FEW = "fewer than 2 items"
REASON_NO_WEIGHT = "zero total weight"


def _pair(x, y):
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x, y = np.broadcast_arrays(x, y)
    if x.ndim == 0:
        raise ValueError("correlations need arrays with an item axis (the last axis)")
    return x, y


def _is_constant(x: np.ndarray) -> np.ndarray:
    # Exact test (max == min), not a variance threshold: centring a constant vector can leave ~1e-17
    # residues that a variance test would call "not constant" and turn into a garbage correlation.
    if x.shape[-1] == 0:
        return np.ones(x.shape[:-1], dtype=bool)
    return np.max(x, axis=-1) == np.min(x, axis=-1)


def _finish(r, undefined):
    r = np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))
    return r[()] if r.ndim == 0 else r


def pearson_rows(x, y) -> np.ndarray:
    """Pearson correlation along the last axis; NaN where either vector is constant or has < 2 items.

    Parameters
    ----------
    x, y : array_like
        Data with the items on the last axis, broadcast together (leading axes: resamples, splits, ...).

    Returns
    -------
    numpy.ndarray or float
        The correlation per leading index, clipped into [-1, 1].

    Raises
    ------
    ValueError
        If the inputs are scalars (no item axis).

    Examples
    --------
    >>> float(pearson_rows([1, 2, 3], [1, 3, 2]))
    0.5
    >>> pearson_rows([[1, 2, 3], [1, 1, 1]], [1, 3, 2]).tolist()
    [0.5, nan]
    """
    x, y = _pair(x, y)
    n = x.shape[-1]
    xc = x - x.mean(axis=-1, keepdims=True) if n else x
    yc = y - y.mean(axis=-1, keepdims=True) if n else y
    num = np.sum(xc * yc, axis=-1)
    den = np.sqrt(np.sum(xc * xc, axis=-1) * np.sum(yc * yc, axis=-1))
    undefined = _is_constant(x) | _is_constant(y) | (n < 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
    return _finish(r, undefined)


def spearman_rows(x, y) -> np.ndarray:
    """Spearman rank correlation (average ranks for ties) along the last axis; NaN as for Pearson.

    Parameters
    ----------
    x, y : array_like
        Data with the items on the last axis, broadcast together.

    Returns
    -------
    numpy.ndarray or float
        The rank correlation per leading index.

    Examples
    --------
    >>> float(spearman_rows([1, 2, 3], [10, 300, 20]))
    0.5
    """
    from scipy import stats
    x, y = _pair(x, y)
    if x.shape[-1] == 0:
        return pearson_rows(x, y)
    # rankdata propagates NaN: a slice holding a NaN gets all-NaN ranks, hence a NaN correlation.
    return pearson_rows(stats.rankdata(x, axis=-1), stats.rankdata(y, axis=-1))


def _check_weights(w):
    w = np.asarray(w, dtype=float)
    if w.ndim == 0:
        raise ValueError("weights need an item axis (the last axis)")
    if np.any(w < 0):
        raise ValueError("weights must be non-negative")
    return w


def _weighted_constant(x, w):
    # Constant over the items that carry weight: again an exact max == min test.
    live = w > 0
    hi = np.max(np.where(live, x, -np.inf), axis=-1)
    lo = np.min(np.where(live, x, np.inf), axis=-1)
    return ~(hi > lo) & ~np.isnan(hi)  # NaN data is not 'constant'; it propagates as NaN


def constant_where_flat(x: np.ndarray, w: np.ndarray, variance: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """Exact constancy of ``x`` over the items with positive weight, tested only where ``variance`` is tiny.

    ``x`` (..., K, I) or (K, I) shared by every row, ``w`` (R, I), ``variance`` (R, K): the weighted variance of
    each vector. A constant vector has a variance of rounding size (~1e-30); the candidates at or below
    ``tolerance`` are then checked exactly (max == min over the items with positive weight), so the result is
    the exact test at the cost of a moment test.

    Parameters
    ----------
    x : numpy.ndarray, (K, I) or (R, K, I)
        The vectors (K per row, I items).
    w : numpy.ndarray, (R, I)
        Non-negative item weights per row.
    variance : numpy.ndarray, (R, K)
        Weighted variance of each vector under each row's weights.
    tolerance : float, default 1e-12
        Variances above this are taken as non-constant without the exact check.

    Returns
    -------
    numpy.ndarray of bool, (R, K)
        Whether each vector is constant over the items of positive weight.

    Examples
    --------
    >>> x = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])
    >>> constant_where_flat(x, np.ones((1, 3)), np.array([[0.0, 2 / 3]])).tolist()
    [[True, False]]
    """
    out = np.zeros(variance.shape, dtype=bool)
    rows, cols = np.nonzero(~(variance > tolerance))
    if rows.size:
        values = x[cols] if x.ndim == 2 else x[rows, cols]
        live = w[rows] > 0
        hi = np.max(np.where(live, values, -np.inf), axis=-1)
        lo = np.min(np.where(live, values, np.inf), axis=-1)
        out[rows, cols] = ~(hi > lo)
    return out


def weighted_midranks(x, w) -> np.ndarray:
    """Midranks of the weighted sample along the last axis (weights = multiplicities).

    With integer weights these are exactly the average ranks of the data in which item i is repeated
    ``w_i`` times (a bootstrap resample): a tie group holding total weight g after weight L gets rank
    L + (g + 1) / 2. With unit weights it equals ``scipy.stats.rankdata(method="average")``. Items of
    weight 0 get a rank that carries no weight. NaN stays NaN.

    Parameters
    ----------
    x : array_like
        Data, items on the last axis.
    w : array_like
        Non-negative weights (multiplicities), broadcast against ``x``.

    Returns
    -------
    numpy.ndarray
        Midranks, same shape as the broadcast inputs.

    Examples
    --------
    >>> weighted_midranks(np.array([3.0, 1.0, 3.0]), np.array([1.0, 2.0, 1.0])).tolist()
    [3.5, 1.5, 3.5]
    """
    x, w = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(w, dtype=float))
    n = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, axis=-1)
    ws = np.take_along_axis(w, order, axis=-1)
    cum = np.cumsum(ws, axis=-1)
    before = cum - ws
    pos = np.broadcast_to(np.arange(n), x.shape)
    new = np.ones(x.shape, dtype=bool)
    new[..., 1:] = xs[..., 1:] != xs[..., :-1]
    last = np.ones(x.shape, dtype=bool)
    last[..., :-1] = new[..., 1:]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, pos, n - 1), axis=-1), axis=-1), axis=-1)
    lo = np.take_along_axis(before, start, axis=-1)
    hi = np.take_along_axis(cum, end, axis=-1)
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, lo + (hi - lo + 1.0) / 2.0, axis=-1)
    return np.where(np.isnan(x), np.nan, ranks)


def weighted_correlation_matrix(vectors: np.ndarray, w: np.ndarray, method: str = "pearson") -> np.ndarray:
    """Weighted correlations between all vectors of each row: ``vectors`` (R, K, I), ``w`` (R, I) -> (R, K, K).

    Batched matrix products (R K^2 I multiply-adds in BLAS). ``method="spearman"`` correlates the weighted
    midranks (:func:`weighted_midranks`). NaN where a vector is constant over the items with positive weight.

    Parameters
    ----------
    vectors : numpy.ndarray, (R, K, I)
        K vectors over I items for each of R rows (e.g. resamples).
    w : numpy.ndarray, (R, I)
        Non-negative item weights per row.
    method : {"pearson", "spearman"}, default "pearson"
        Correlation of the values or of their weighted midranks.

    Returns
    -------
    numpy.ndarray, (R, K, K)
        Correlation matrices, clipped into [-1, 1].

    Examples
    --------
    >>> v = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]])
    >>> round(float(weighted_correlation_matrix(v, np.ones((1, 3)))[0, 0, 1]), 4)
    0.9934
    """
    if method == "spearman":
        vectors = weighted_midranks(vectors, w[:, None, :])
    total = w.sum(axis=-1)
    mean = (vectors @ w[:, :, None])[..., 0] / total[:, None]
    centred = vectors - mean[..., None]
    cov = (centred * w[:, None, :]) @ np.swapaxes(centred, 1, 2)
    var = np.clip(np.diagonal(cov, axis1=1, axis2=2), 0, None)
    const = constant_where_flat(vectors, w, var / total[:, None])
    return _from_covariance(cov, var, const)


def fixed_vectors_correlation_matrix(vectors: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson correlations between fixed vectors (K, I) under many item weightings ``w`` (R, I) -> (R, K, K).

    The weighted moments of every pair are one matrix product ``w @ products`` with the (I, K(K+1)/2)
    pairwise products of the (unweighted-)centred vectors, so the cost is one BLAS call.

    Parameters
    ----------
    vectors : numpy.ndarray, (K, I)
        K vectors over I items, the same for every row.
    w : numpy.ndarray, (R, I)
        Non-negative item weights, one row per weighting (e.g. bootstrap counts).

    Returns
    -------
    numpy.ndarray, (R, K, K)
        Correlation matrices; NaN rows/columns for vectors constant under a weighting.

    Examples
    --------
    >>> v = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]])
    >>> round(float(fixed_vectors_correlation_matrix(v, np.ones((1, 3)))[0, 0, 1]), 4)
    0.9934
    """
    n_k = vectors.shape[0]
    centred = vectors - vectors.mean(axis=1, keepdims=True)
    iu, ju = np.triu_indices(n_k)
    total = w.sum(axis=-1)[:, None]
    mean = (w @ centred.T) / total
    second = (w @ (centred[iu] * centred[ju]).T) / total - mean[:, iu] * mean[:, ju]
    cov = np.empty((w.shape[0], n_k, n_k))
    cov[:, iu, ju] = second
    cov[:, ju, iu] = second
    var = np.clip(np.diagonal(cov, axis1=1, axis2=2), 0, None)
    return _from_covariance(cov, var, constant_where_flat(vectors, w, var))


def _from_covariance(cov: np.ndarray, var: np.ndarray, const: np.ndarray) -> np.ndarray:
    sd = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cov / (sd[:, :, None] * sd[:, None, :])
    bad = const[:, :, None] | const[:, None, :]
    return np.where(bad, np.nan, np.clip(r, -1.0, 1.0))


def weighted_correlation_rows(x: np.ndarray, y: np.ndarray, w: np.ndarray, method: str = "pearson") -> np.ndarray:
    """Weighted correlation of ``x`` and ``y`` (R, S, I) along items with weights ``w`` (R, I) -> (R, S).

    Raw weighted moments (for bounded values such as indices or ranks no precision is lost by not centring);
    NaN where x or y is constant over the items with positive weight.

    Parameters
    ----------
    x, y : numpy.ndarray, (R, S, I)
        S pairs of vectors over I items for each of R rows.
    w : numpy.ndarray, (R, I)
        Non-negative item weights per row.
    method : {"pearson", "spearman"}, default "pearson"
        Correlation of the values or of their weighted midranks.

    Returns
    -------
    numpy.ndarray, (R, S)
        The correlation of each pair under each row's weights.

    Examples
    --------
    >>> x = np.array([[[1.0, 2.0, 3.0]]]); y = np.array([[[1.0, 3.0, 2.0]]])
    >>> round(float(weighted_correlation_rows(x, y, np.ones((1, 3)))[0, 0]), 12)
    0.5
    """
    if method == "spearman":
        x = weighted_midranks(x, w[:, None, :])
        y = weighted_midranks(y, w[:, None, :])
    wc = w[:, :, None]
    total = w.sum(axis=-1)[:, None]
    mx = (x @ wc)[..., 0] / total
    my = (y @ wc)[..., 0] / total
    sxy = ((x * y) @ wc)[..., 0] / total - mx * my
    sxx = np.clip(((x * x) @ wc)[..., 0] / total - mx * mx, 0, None)
    syy = np.clip(((y * y) @ wc)[..., 0] / total - my * my, 0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    bad = constant_where_flat(x, w, sxx) | constant_where_flat(y, w, syy)
    return np.where(bad, np.nan, np.clip(r, -1.0, 1.0))


def weighted_pearson(x, y, w) -> np.ndarray:
    """Pearson correlation with non-negative weights along the last axis, broadcasting over leading axes.

    A bootstrap over items is ``weighted_pearson(x, y, counts)`` with ``counts`` an (resamples x items)
    array of multinomial counts: with 1-D ``x`` and ``y`` it runs as matrix products, without forming
    (resamples x items) copies of the data. NaN where x or y is constant over the items with positive
    weight, or where the total weight is 0. Integer weights give the correlation of the resampled data.

    Parameters
    ----------
    x, y : array_like
        Data, items on the last axis.
    w : array_like
        Non-negative weights, items on the last axis (e.g. (resamples, items) counts).

    Returns
    -------
    numpy.ndarray or float
        The weighted correlation per leading index.

    Raises
    ------
    ValueError
        If a weight is negative or an input has no item axis.

    Examples
    --------
    >>> x, y = [1.0, 2.0, 3.0], [1.0, 3.0, 2.0]
    >>> weighted_pearson(x, y, [[1, 1, 1], [2, 0, 1]]).round(12).tolist()
    [0.5, 1.0]
    """
    w = _check_weights(w)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("correlations need arrays with an item axis (the last axis)")
    total = w.sum(axis=-1)
    if x.ndim == 1 and y.ndim == 1 and x.shape == y.shape and w.shape[-1] == x.shape[0]:
        # Moments by matrix products; centre first so the moment formula loses no precision.
        xc = x - x.mean()
        yc = y - y.mean()
        with np.errstate(divide="ignore", invalid="ignore"):
            mx = (w @ xc) / total
            my = (w @ yc) / total
            sxx = (w @ (xc * xc)) / total - mx * mx
            syy = (w @ (yc * yc)) / total - my * my
            sxy = (w @ (xc * yc)) / total - mx * my
            r = sxy / np.sqrt(np.clip(sxx, 0, None) * np.clip(syy, 0, None))
        undefined = _weighted_constant(x, w) | _weighted_constant(y, w) | ~(total > 0)
        return _finish(np.asarray(r), undefined)
    x, y, w = np.broadcast_arrays(x, y, w)
    total = w.sum(axis=-1)
    # The general case is the batched row correlation of the DMC kernels, on centred data.
    shape = x.shape[:-1]
    flat = (int(np.prod(shape)), 1, x.shape[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        mx = (np.sum(w * x, axis=-1) / total)[..., None]
        my = (np.sum(w * y, axis=-1) / total)[..., None]
        r = weighted_correlation_rows((x - mx).reshape(flat), (y - my).reshape(flat), w.reshape(flat[0], -1))
    undefined = _weighted_constant(x, w) | _weighted_constant(y, w) | ~(total > 0)
    return _finish(np.asarray(r).reshape(shape), undefined)


def constant_reason(x, y, w=None) -> np.ndarray:
    """Why a correlation of x and y (last axis, optional weights) is NaN: a string per entry, '' if defined.

    Reasons: ``"fewer than 2 items"``, ``"zero total weight"``, ``"x constant"``, ``"y constant"``,
    ``"x and y constant"``. NaN inputs are not reported here (they propagate as NaN).

    Parameters
    ----------
    x, y : array_like
        Data, items on the last axis.
    w : array_like, optional
        Non-negative weights; ``None`` weighs every item 1.

    Returns
    -------
    numpy.ndarray of object or str
        The reason per leading index ('' where the correlation is defined).

    Examples
    --------
    >>> constant_reason([1, 1, 1], [1, 2, 3]), constant_reason([1, 2, 3], [1, 3, 2])
    ('x constant', '')
    >>> constant_reason([1, 2, 3], [1, 3, 2], w=[0, 0, 0])
    'zero total weight'
    """
    x, y = _pair(x, y)
    if w is None:
        cx, cy = _is_constant(x), _is_constant(y)
        too_few = np.broadcast_to(x.shape[-1] < 2, cx.shape)
        no_weight = np.zeros(cx.shape, dtype=bool)
    else:
        w = _check_weights(w)
        x, y, w = np.broadcast_arrays(x, y, w)
        cx, cy = _weighted_constant(x, w), _weighted_constant(y, w)
        too_few = np.broadcast_to(x.shape[-1] < 2, cx.shape)
        no_weight = ~(w.sum(axis=-1) > 0)
    out = np.full(cx.shape, "", dtype=object)
    out = np.where(cx & cy, REASON_BOTH_CONSTANT, np.where(cx, REASON_X_CONSTANT, np.where(cy, REASON_Y_CONSTANT, out)))
    out = np.where(no_weight, REASON_NO_WEIGHT, out)
    out = np.where(too_few, REASON_TOO_FEW, out)
    out = np.asarray(out, dtype=object)
    return out[()] if out.ndim == 0 else out


def spearman_brown(r, factor: float = 2.0) -> np.ndarray:
    """Spearman–Brown prophecy: reliability of a test ``factor`` times as long, ``k r / (1 + (k-1) r)``.

    ``factor=2`` turns a split-half correlation into the full-length reliability. ``r`` must lie in
    [-1, 1] and ``factor`` be > 0. Where ``1 + (k-1) r <= 0`` (e.g. r = -1 with k = 2) the formula has no
    finite value and the result is NaN. NaN passes through.

    Parameters
    ----------
    r : array_like
        Correlations (e.g. split-half reliabilities) in [-1, 1].
    factor : float, default 2.0
        How many times longer the test is (``k``).

    Returns
    -------
    numpy.ndarray or float
        The prophesied reliability.

    Raises
    ------
    ValueError
        If ``factor <= 0`` or some ``|r| > 1``.

    Examples
    --------
    >>> float(spearman_brown(0.5)), float(spearman_brown(-1.0))
    (0.6666666666666666, nan)
    """
    r = np.asarray(r, dtype=float)
    k = float(factor)
    if not k > 0:
        raise ValueError("the Spearman-Brown factor must be > 0")
    if np.any(np.abs(r[~np.isnan(r)]) > 1.0 + 1e-12):
        raise ValueError("correlations lie in [-1, 1]")
    den = 1.0 + (k - 1.0) * r
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, k * r / den, np.nan)
    return out[()] if out.ndim == 0 else out
