"""Compiled EM for one-dimensional Gaussian mixtures: the inner loop of the regime fits and their bootstrap.

:func:`em_rows` runs EM on independent rows (a row: the points of one data set, with several starts that run
side by side), each row to convergence. The arithmetic is that of the textbook numpy EM, operation for
operation and in numpy's order: sums over points use numpy's pairwise summation (:func:`pairwise_sum`), sums
over components run in component order, and ``exp``/``log`` are the C library's, which numpy also calls for
float64 where it has no AVX-512 loops. So a row's numbers equal those of the vectorised numpy EM this replaced
(pinned to the bit by ``tests/measures/ood/test_regimes_exact.py``) and depend neither on which rows share a call nor on
threads. Compiled with numba on first use (cached), without fast-math (no reordering, no fused multiply-add),
releasing the GIL so that rows split over threads run side by side (:func:`em_rows_in_threads`, what the
regime fit and its bootstrap call).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...resampling.parallel import available_cores, map_in_threads

#: numpy's pairwise summation adds up to this many terms in eight interleaved partial sums, and halves above.
PAIRWISE_BLOCK = 128
_TWO_PI = 2.0 * math.pi
_TINY = 10 * np.finfo(float).eps


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise_block(a, lo, n):
    # numpy's pairwise_sum of a[lo:lo + n] for n <= PAIRWISE_BLOCK
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    end = n - n % 8
    while i < end:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


#: Depth of the halving stack: enough for any array that fits in memory (each level halves the length).
_STACK_DEPTH = 64


@njit(cache=True, nogil=True, error_model="numpy")
def _new_stack():
    # the halving stack of _pairwise: per level the node's start, its length, and whether its left half is summed
    # (then in ``left``); made once per caller, so that a long sum in a loop allocates nothing
    return np.empty((_STACK_DEPTH, 3), np.int64), np.empty(_STACK_DEPTH)


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise(a, nodes, left):
    # np.add.reduce of a (numpy's pairwise_sum from 0.0). numpy halves a longer range (the first half a multiple of
    # 8 long) and adds the halves' sums; the halving runs on the explicit stack ``nodes``/``left``, depth first:
    # numba's cache cannot reload a recursive function.
    n = a.size
    if n <= PAIRWISE_BLOCK:
        return 0.0 + _pairwise_block(a, 0, n)
    top = 0
    nodes[0, 0], nodes[0, 1] = 0, n
    while True:
        lo, size = nodes[top, 0], nodes[top, 1]
        if size > PAIRWISE_BLOCK:               # an inner node, first visit: its left half goes first
            half = size // 2
            half -= half % 8
            nodes[top, 2] = 0
            top += 1
            nodes[top, 0], nodes[top, 1] = lo, half
            continue
        value = _pairwise_block(a, lo, size)
        top -= 1
        while top >= 0 and nodes[top, 2]:       # nodes whose both halves are done: left + right
            value = left[top] + value
            top -= 1
        if top < 0:
            return 0.0 + value
        left[top], nodes[top, 2] = value, 1     # the left half of node ``top`` is done: its right half is next
        half = nodes[top, 1] // 2
        half -= half % 8
        top += 1
        nodes[top, 0], nodes[top, 1] = nodes[top - 1, 0] + half, nodes[top - 1, 1] - half


@njit(cache=True, nogil=True, error_model="numpy")
def pairwise_sum(a):
    """``np.add.reduce`` of a contiguous float64 vector, to the bit: numpy's pairwise summation from 0.0.

    Parameters
    ----------
    a : numpy.ndarray of float64, 1-D, contiguous
        The terms.

    Returns
    -------
    float
        Their sum, as numpy adds them.

    Examples
    --------
    >>> a = np.random.default_rng(0).standard_normal(1001) * 1e6
    >>> bool(pairwise_sum(a) == np.add.reduce(a)), bool(pairwise_sum(a) == math.fsum(a))
    (True, False)
    """
    if a.size <= PAIRWISE_BLOCK:
        return 0.0 + _pairwise_block(a, 0, a.size)
    nodes, left = _new_stack()
    return _pairwise(a, nodes, left)


#: Below this, exp underflows to exactly 0.0 (the smallest subnormal is exp(-745.13...)).
EXP_ZERO_BELOW = -746.0


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _exp(d):
    # exp(d) to the bit, without the two costly calls: exp(0) is exactly 1 (the most probable component, at every
    # point), and far below EXP_ZERO_BELOW the C library takes its slow underflow path (setting errno) to return 0
    if d == 0.0:
        return 1.0
    if d < EXP_ZERO_BELOW:
        return 0.0
    return math.exp(d)


@njit(cache=True, nogil=True, error_model="numpy")
def _log_densities(x, mask, mu, var, w, logp, lse, terms, nodes, left):
    # One start: component log-densities logp (m, n), their log-sum-exp lse (n,), and the log-likelihood
    # (the masked sum of lse). Each operation as the numpy EM wrote it: ((x - mu)^2 / var + log(2 pi var))
    # * -0.5 + log w; the maximum and the sum over components one component at a time.
    m, n = logp.shape
    for c in range(m):
        centre, spread = mu[c], var[c]
        log_norm, log_weight = math.log(_TWO_PI * spread), math.log(w[c])
        for i in range(n):
            d = x[i] - centre
            d = d * d
            d = d / spread
            d = d + log_norm
            d = d * -0.5
            logp[c, i] = d + log_weight
    for i in range(n):
        top = logp[0, i]
        for c in range(1, m):
            y = logp[c, i]
            if top == top and (y != y or y > top):    # np.maximum: NaN wins
                top = y
        acc = _exp(logp[0, i] - top)
        for c in range(1, m):
            acc += _exp(logp[c, i] - top)
        lse[i] = math.log(acc) + top
        terms[i] = lse[i] * mask[i]
    return _pairwise(terms, nodes, left)


@njit(cache=True, nogil=True, error_model="numpy")
def em_rows(x, valid, mu0, var0, w0, reg_covar, max_iter, tol):
    """EM for 1-D Gaussian mixtures on each row of ``x``, from several starts per row, to convergence.

    A row's starts iterate together until every one of them changes its log-likelihood per valid point by less
    than ``tol`` (or ``max_iter`` iterations); each iteration is one E step (responsibilities) and one M step
    (means, variances plus ``reg_covar``, weights).

    Parameters
    ----------
    x : numpy.ndarray of float64, shape (B, n)
        Points; only those with ``valid`` take part.
    valid : numpy.ndarray of bool, shape (B, n)
        Which points of each row take part.
    mu0, var0, w0 : numpy.ndarray of float64, shape (B, I, m)
        Starts: I per row, m components each.
    reg_covar : float
        Added to every variance at each M step.
    max_iter : int
        Most iterations per row.
    tol : float
        Convergence threshold on the change of the log-likelihood per valid point.

    Returns
    -------
    mu, var, w : numpy.ndarray of float64, shape (B, I, m)
        Final parameters.
    loglik : numpy.ndarray of float64, shape (B, I)
        Log-likelihood of the valid points under the final parameters.

    Examples
    --------
    Two well separated groups, one start at the truth: EM stays there.

    >>> x = np.array([[-1.0, -1.0, 1.0, 1.0]])
    >>> start = lambda values: np.array([[values]], dtype=float)
    >>> mu, var, w, ll = em_rows(x, x == x, start([-1.0, 1.0]), start([0.01, 0.01]), start([0.5, 0.5]),
    ...                          1e-6, 100, 1e-10)
    >>> mu.round(6).tolist(), w.tolist()
    ([[[-1.0, 1.0]]], [[[0.5, 0.5]]])
    """
    n_rows, n = x.shape
    n_starts, m = mu0.shape[1], mu0.shape[2]
    mu, var, w = mu0.copy(), var0.copy(), w0.copy()
    loglik = np.empty((n_rows, n_starts))
    points = np.empty(n)
    mask = np.empty(n)
    logp = np.empty((m, n))
    lse = np.empty(n)
    terms = np.empty(n)
    resp = np.empty(n)
    nk = np.empty(m)
    previous = np.empty(n_starts)
    nodes, left = _new_stack()
    for row in range(n_rows):
        count = 0
        for i in range(n):
            ok = valid[row, i]
            points[i] = x[row, i] if ok else 0.0
            mask[i] = 1.0 if ok else 0.0
            count += ok
        per_point = float(max(count, 1))
        mu_r, var_r, w_r = mu[row], var[row], w[row]
        previous[:] = -np.inf
        for _ in range(max_iter):
            converged = True
            for s in range(n_starts):
                ll = _log_densities(points, mask, mu_r[s], var_r[s], w_r[s], logp, lse, terms, nodes, left)
                for c in range(m):
                    for i in range(n):
                        resp[i] = _exp(logp[c, i] - lse[i]) * mask[i]
                    nk[c] = _pairwise(resp, nodes, left) + _TINY
                    for i in range(n):
                        terms[i] = resp[i] * points[i]
                    centre = _pairwise(terms, nodes, left) / nk[c]
                    for i in range(n):
                        d = points[i] - centre
                        d = d * d
                        terms[i] = d * resp[i]
                    mu_r[s, c] = centre
                    var_r[s, c] = _pairwise(terms, nodes, left) / nk[c] + reg_covar
                total = 0.0
                for c in range(m):
                    total += nk[c]
                for c in range(m):
                    w_r[s, c] = nk[c] / total
                converged &= abs(ll - previous[s]) / per_point < tol
                previous[s] = ll
            if converged:
                break
        for s in range(n_starts):
            loglik[row, s] = _log_densities(points, mask, mu_r[s], var_r[s], w_r[s], logp, lse, terms, nodes, left)
    return mu, var, w, loglik


# ------------------------------------------------------------------------------ rows in threads


#: Fewest rows of a batched EM given to a thread of their own: below that, threads cost more than they save.
MIN_EM_ROWS_PER_THREAD = 32


def em_rows_in_threads(x, valid, mu, var, w, reg_covar, max_iter, tol):
    """EM for 1-D Gaussian mixtures on rows of x (B, n) from starts (B, I, m), by :func:`em_rows`: the regime
    fit's starts (:func:`humanlike.measures.ood.regimes.fit_regimes`) and the bootstrap refits
    (:func:`humanlike.measures.ood.regime_stability.regime_stability_bootstrap`).

    ``valid`` (B, n) masks the points of each row that take part. A row stops updating once every start
    changes its log-likelihood per point by less than ``tol``.

    Rows are independent: with several cores, contiguous groups of rows run in threads side by side (the
    compiled EM releases the GIL), which changes no number.

    Parameters
    ----------
    x : array_like of float, (B, n)
        One data set per row.
    valid : array_like of bool, (B, n)
        The points of each row that take part.
    mu, var, w : array_like of float, (B, I, m)
        Starting means, variances and weights: I starts of m components per row.
    reg_covar : float
        Added to every variance at each M step.
    max_iter : int
        EM iteration cap.
    tol : float
        Convergence tolerance on the log-likelihood per point.

    Returns
    -------
    tuple of numpy.ndarray
        Final (mu, var, w) of shape (B, I, m) and the log-likelihood (B, I).

    Examples
    --------
    >>> x = np.array([[0.1, -0.1, 0.0, 0.2, -4.1, -3.9, -4.0, -4.2]])
    >>> mu0, var0, w0 = np.array([[[1.0, -3.0]]]), np.ones((1, 1, 2)), np.full((1, 1, 2), 0.5)
    >>> mu, var, w, ll = em_rows_in_threads(x, np.isfinite(x), mu0, var0, w0, 1e-6, 500, 1e-10)
    >>> mu.round(2).tolist(), w.round(2).tolist()
    ([[[0.05, -4.05]]], [[[0.5, 0.5]]])
    """
    x = np.ascontiguousarray(x, dtype=float)
    valid = np.ascontiguousarray(valid, dtype=bool)
    mu, var, w = (np.ascontiguousarray(a, dtype=float) for a in (mu, var, w))
    n_groups = min(available_cores(), x.shape[0] // MIN_EM_ROWS_PER_THREAD)
    if n_groups < 2:
        return em_rows(x, valid, mu, var, w, float(reg_covar), int(max_iter), float(tol))
    bounds = np.linspace(0, x.shape[0], n_groups + 1).astype(int)
    groups = [slice(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
    parts = map_in_threads(lambda g: em_rows(x[g], valid[g], mu[g], var[g], w[g], float(reg_covar), int(max_iter),
                                             float(tol)), groups, workers=n_groups)
    return tuple(np.concatenate([part[k] for part in parts]) for k in range(4))
