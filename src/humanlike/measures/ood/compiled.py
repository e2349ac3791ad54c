"""Compiled (numba) loops of the alignment bootstrap: the inner work of ``PairAlignmentSums.resample``.

Imported only where a bootstrap runs (``import humanlike`` does not load numba). The functions are compiled
on first use and cached next to this file (or in ``NUMBA_CACHE_DIR``); they release the GIL, so the engine's
threads run them side by side.

The loops work on *cells-major* arrays (cells x resamples: a resample per column) in blocks of
:data:`RESAMPLE_BLOCK` resamples, and treat each resample on its own: a resample's numbers do not depend on
which other resamples share the call, hence not on the chunking or on the thread that runs it.

- :func:`whole_weights_transposed`: bootstrap weights transposed, and whether they are whole numbers
  (:func:`whole_and_largest`: the check alone);
- :func:`indicator_sums`: the weighted sums of the 0/1 statistics (a sparse product written once per row);
- :func:`ec_ma_resamples`: EC and MA of every pair from the weighted sums, numpy's formulas compiled (the same
  bits);
- :func:`cled_average_resamples`: CLED (the ``'average'`` mixture) of every pair from the weighted error
  counts, in float32 with a vectorised logarithm;
- :func:`mlogm_float32`: the float32 ``m log m`` of that kernel, to test its error.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Fused multiply-add and reciprocal approximations only: no 'nnan'/'ninf' (NaN marks undefined values) and
# no reassociation (every sum keeps its order, so no number depends on vector widths or loop tails).
_FAST = {"contract", "arcp", "nsz"}
#: Resamples handled together inside the compiled loops (the rows of a block stay in the L1/L2 caches).
RESAMPLE_BLOCK = 64


@njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _log1p_poly(f):
    # log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1): the Cephes logf polynomial, float32.
    z = f * f
    y = np.float32(7.0376836292e-2)
    y = y * f - np.float32(1.1514610310e-1)
    y = y * f + np.float32(1.1676998740e-1)
    y = y * f - np.float32(1.2420140846e-1)
    y = y * f + np.float32(1.4249322787e-1)
    y = y * f - np.float32(1.6668057665e-1)
    y = y * f + np.float32(2.0000714765e-1)
    y = y * f - np.float32(2.4999993993e-1)
    y = y * f + np.float32(3.3333331174e-1)
    y = y * f * z
    y += np.float32(-0.5) * z
    return f + y


@njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _add_mlogm_rows(values, value_bits, row_a, row_b, weight, mid, mid_bits, mantissa, mantissa_bits, acc):
    # acc[b] += weight * m log m with m = values[row_a, b] + values[row_b, b] (row_b < 0: m = values[row_a, b]).
    nb = acc.size
    if row_b >= 0:
        for b in range(nb):
            mid[b] = values[row_a, b] + values[row_b, b]
    else:
        for b in range(nb):
            mid_bits[b] = value_bits[row_a, b]
    for b in range(nb):
        mantissa_bits[b] = (mid_bits[b] & 0x007FFFFF) | 0x3F800000
    for b in range(nb):
        exponent = np.float32(((mid_bits[b] >> 23) & 0xFF) - 127)
        m = mantissa[b]
        if m > np.float32(1.4142135):
            m = m * np.float32(0.5)
            exponent += np.float32(1.0)
        acc[b] += weight * (mid[b] * (_log1p_poly(m - np.float32(1.0)) + exponent * np.float32(0.6931471805599453)))


@njit(cache=True, nogil=True, fastmath=_FAST)
def _mlogm_vector(values, out):
    n = values.shape[1]
    mid = np.empty(n, np.float32)
    mantissa = np.empty(n, np.float32)
    out[:] = 0.0
    _add_mlogm_rows(values, values.view(np.int32), 0, -1, np.float32(1.0), mid, mid.view(np.int32), mantissa,
                    mantissa.view(np.int32), out)
    return out


def mlogm_float32(values):
    """``m log m`` in float32 for positive values, with the vectorised logarithm of the CLED kernel.

    Parameters
    ----------
    values : array_like of float
        Positive, finite, normal values (cast to float32).

    Returns
    -------
    numpy.ndarray of float32
        ``values * log(values)``, elementwise; within a few float32 roundings of the float64 value (tested).

    Examples
    --------
    >>> m = np.array([1e-6, 0.25, 1.0, 3.0])
    >>> bool(np.allclose(mlogm_float32(m), m * np.log(m), rtol=0, atol=1e-6))
    True
    """
    v = np.asarray(values, dtype=np.float32)
    flat = np.ascontiguousarray(v.ravel())
    return _mlogm_vector(flat.reshape(1, -1), np.empty(flat.size, np.float32)).reshape(v.shape)


@njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _cled_average(counts, oc_start, oc_zero, alpha, n_classes, pc_first, pc_second, pc_zero, pc_pair,
                  union_start, union_i, union_j, uniform, log_base_ln, out):
    # Every inner loop runs over the RESAMPLE_BLOCK lanes of local buffers with the loop's own index (numba's
    # negative-index handling of any other index stops the vectoriser); a short last block is padded with
    # zero counts, whose lanes are computed and dropped. Entropies use that half the posterior h = p / 2 sums
    # to 1/2 over a class row: -H / 2 = sum h log h + (log 2) / 2.
    nz, n_resamples = counts.shape
    n_oc = oc_start.size - 1
    n_pairs = out.shape[1]
    nb = RESAMPLE_BLOCK
    f32 = np.float32
    d_offset = f32((n_classes - 1) * alpha)
    alpha32 = f32(alpha)
    half_log2 = f32(0.5 * math.log(2.0))
    block = np.empty((nz, nb), np.float32)             # the counts of a block of resamples
    n_row = np.empty((n_oc, nb), np.float32)           # errors of each class row (whole numbers)
    half_ent = np.empty((n_oc, nb), np.float32)        # minus half the entropy of each class row
    half = np.empty((nz + n_oc, nb), np.float32)       # half the posteriors: cells with errors, then zeros
    half_bits = half.view(np.int32)
    scale = np.empty(nb, np.float32)
    mid = np.empty(nb, np.float32)
    mid_bits = mid.view(np.int32)
    mantissa = np.empty(nb, np.float32)
    mantissa_bits = mantissa.view(np.int32)
    acc = np.empty(nb, np.float32)
    total = np.empty((n_pairs, nb), np.float64)
    contrib = np.empty((n_pairs, nb), np.float64)
    empty_rows = True
    for r0 in range(0, n_resamples, nb):
        used = min(nb, n_resamples - r0)
        for col in range(nz):
            source = counts[col]
            for b in range(used):
                block[col, b] = source[np.uint64(r0 + b)]
            for b in range(used, nb):
                block[col, b] = 0.0
        # class rows: error counts, half posteriors, entropies; a row without errors on the data has n = 0 in
        # every resample: its values are set once
        for oc in range(n_oc):
            has_cells = oc_start[oc] < oc_start[oc + 1]
            if not has_cells and not empty_rows:
                continue
            outside = 0
            for b in range(nb):
                n_row[oc, b] = 0.0
            for col in range(oc_start[oc], oc_start[oc + 1]):
                for b in range(nb):
                    n_row[oc, b] += block[col, b]
                    outside += block[col, b] < 0
            if outside:
                return False        # a negative count: the caller raises
            for b in range(nb):
                scale[b] = f32(0.5) / (n_row[oc, b] + d_offset)
                half[nz + oc, b] = alpha32 * scale[b]
                acc[b] = half_log2
            for col in range(oc_start[oc], oc_start[oc + 1]):
                for b in range(nb):
                    half[col, b] = (block[col, b] + alpha32) * scale[b]
                _add_mlogm_rows(half, half_bits, col, -1, f32(1.0), mid, mid_bits, mantissa, mantissa_bits, acc)
            if oc_zero[oc] > 0:
                _add_mlogm_rows(half, half_bits, nz + oc, -1, f32(oc_zero[oc]), mid, mid_bits, mantissa,
                                mantissa_bits, acc)
            for b in range(nb):
                half_ent[oc, b] = acc[b]
        empty_rows = False
        # (pair, class) cells with errors on the data: minus the cross entropy over the union cells and the
        # cells without errors of either observer, JSD, weighted by the errors
        for pair in range(n_pairs):
            for b in range(nb):
                total[pair, b] = 0.0
                contrib[pair, b] = 0.0
        for q in range(pc_first.size):
            fi, fj, pair = pc_first[q], pc_second[q], pc_pair[q]
            for b in range(nb):
                acc[b] = 0.0
            for u in range(union_start[q], union_start[q + 1]):
                _add_mlogm_rows(half, half_bits, union_i[u], union_j[u], f32(1.0), mid, mid_bits, mantissa,
                                mantissa_bits, acc)
            if pc_zero[q] > 0:
                _add_mlogm_rows(half, half_bits, nz + fi, nz + fj, f32(pc_zero[q]), mid, mid_bits, mantissa,
                                mantissa_bits, acc)
            for b in range(nb):
                jsd = half_ent[fi, b] + half_ent[fj, b] - acc[b]
                jsd = jsd if jsd > 0.0 else f32(0.0)
                n_sum = n_row[fi, b] + n_row[fj, b]
                weight = min(n_sum, f32(1.0)) if uniform else n_sum
                total[pair, b] += weight
                contrib[pair, b] += np.float64(jsd * weight)
        for b in range(used):
            row = out[r0 + b]
            for pair in range(n_pairs):
                t = total[pair, b]
                row[pair] = contrib[pair, b] / (t * log_base_ln) if t > 0 else np.nan
    return True


def cled_average_resamples(counts, oc_start, pc_first, pc_second, pc_pair, union_start, union_i, union_j,
                           n_pairs, n_classes, alpha=0.5, weighting="errors", log_base=2.0):
    """CLED with the ``'average'`` mixture of every pair, for each resample of the error counts (float32).

    Same formula as the float64 reduction of :class:`humanlike.measures.ood.alignment_sums.PairAlignmentSums`
    (docs/measures/ood-spectrum.md): Dirichlet posteriors of each observer's class rows, their entropies, and per (pair,
    class) the entropy of the mixture ``(P + Q) / 2`` over the union of the cells where either observer erred
    on the data, the other cells of the class in closed form; JSDs weighted by errors (or uniformly) over a
    pair's classes. Everything runs in float32 with a vectorised logarithm (:func:`mlogm_float32`), per
    resample; the weighted sums over a pair's classes in float64.

    Parameters
    ----------
    counts : numpy.ndarray of float32, shape (cells, R)
        Error counts of the (observer, true class, wrong answer) cells with an error on the data, a resample
        per column, grouped by class row (observer x true class); >= 0, and exact in float32 (whole numbers
        below 2**24 for bootstrap counts).
    oc_start : numpy.ndarray of int64, shape (observers * K + 1,)
        Class row ``o * K + k`` holds the cells ``oc_start[o*K+k]:oc_start[o*K+k+1]``.
    pc_first, pc_second : numpy.ndarray of int64
        Per (pair, class) with an error of either observer on the data: the class rows of the two observers.
    pc_pair : numpy.ndarray of int64
        Its pair (0..n_pairs-1).
    union_start : numpy.ndarray of int64, shape (len(pc_first) + 1,)
        Its union cells are ``union_start[q]:union_start[q+1]`` of ``union_i``, ``union_j``.
    union_i, union_j : numpy.ndarray of int64
        Per union cell, the posterior row of each observer: a cell of ``counts`` (``< cells``), or
        ``cells + class row`` for a cell without errors of that observer.
    n_pairs : int
        Number of pairs.
    n_classes : int
        K.
    alpha : float
        Dirichlet prior.
    weighting : {"errors", "uniform"}
        Class weights.
    log_base : float
        Base of the logarithm of the result.

    Returns
    -------
    numpy.ndarray of float64, shape (R, n_pairs)
        CLED per resample and pair; NaN for a pair without errors in a resample.

    Raises
    ------
    ValueError
        If a count is negative.

    Examples
    --------
    Two observers, K = 3 (two wrong answers per class): observer 0 gives the first wrong answer twice on
    class 0, observer 1 never errs; with the prior 1/2 the posteriors of class 0 are (2.5, 0.5) / 3 and
    (0.5, 0.5) / 1:

    >>> counts = np.array([[2.0]], dtype=np.float32)            # one cell: observer 0, class 0, answer 0
    >>> oc_start = np.array([0, 1, 1, 1, 1, 1, 1])              # class rows: observer * 3 + class
    >>> first, second, pair = np.array([0]), np.array([3]), np.array([0])   # class 0 of observers 0 and 1
    >>> union_start, union_i, union_j = np.array([0, 1]), np.array([0]), np.array([1 + 3])
    >>> cled = cled_average_resamples(counts, oc_start, first, second, pair, union_start, union_i, union_j,
    ...                               n_pairs=1, n_classes=3)
    >>> p, q = np.array([2.5, 0.5]) / 3, np.array([0.5, 0.5])
    >>> m = (p + q) / 2
    >>> jsd = -(m * np.log2(m)).sum() + ((p * np.log2(p)).sum() + (q * np.log2(q)).sum()) / 2
    >>> bool(np.isclose(cled[0, 0], jsd, rtol=0, atol=1e-6))
    True
    """
    counts = np.ascontiguousarray(counts, dtype=np.float32)
    oc_start = np.asarray(oc_start, dtype=np.int64)
    union_start = np.asarray(union_start, dtype=np.int64)
    zero_oc = ((n_classes - 1) - np.diff(oc_start)).astype(np.float64)
    zero_pc = ((n_classes - 1) - np.diff(union_start)).astype(np.float64)
    out = np.empty((counts.shape[1], int(n_pairs)), dtype=np.float64)
    ok = _cled_average(counts, oc_start, zero_oc, float(alpha), int(n_classes),
                       np.asarray(pc_first, dtype=np.int64), np.asarray(pc_second, dtype=np.int64), zero_pc,
                       np.asarray(pc_pair, dtype=np.int64), union_start, np.asarray(union_i, dtype=np.int64),
                       np.asarray(union_j, dtype=np.int64), weighting == "uniform", math.log(log_base), out)
    if not ok:
        raise ValueError("error counts must be >= 0")
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def _ec_ma(ec_sums, ec_rows, strict, model_vs_human, rest, trace_rows, n_start, n_rows, dot_start, dot_r, dot_c,
           ma_one, ec_out, ma_out):
    # IEEE operations in numpy's order, no fast-math: the same bits as the numpy formulas. The sums are whole
    # numbers, exact in float32 and float64, so summing them in any order changes no bit.
    n_pairs, n_resamples = ec_out.shape
    dot = np.empty(n_resamples, np.float64)
    joint = np.empty(n_resamples, np.float64)
    for p in range(n_pairs):
        both, one, two, trials = ec_sums[ec_rows[0, p]], ec_sums[ec_rows[1, p]], ec_sums[ec_rows[2, p]], \
            ec_sums[ec_rows[3, p]]
        out = ec_out[p]
        for b in range(n_resamples):
            n11, k1, k2, n = np.float64(both[b]), np.float64(one[b]), np.float64(two[b]), np.float64(trials[b])
            p1 = k1 / n
            p2 = k2 / n
            c_obs = (2.0 * n11 + n - k1 - k2) / n
            c_exp = p1 * p2 + (1.0 - p1) * (1.0 - p2)
            denom = 1.0 - c_exp
            k = (c_obs - c_exp) / denom
            if abs(denom) < 1e-12:
                k = np.nan
            if model_vs_human and abs(c_obs - 1.0) < 1e-12:
                k = 1.0
            if strict and n < 2:
                k = np.nan
            out[b] = k if n > 0 else np.nan
        for b in range(n_resamples):
            dot[b] = 0.0
            joint[b] = 0.0
        for q in range(n_start[p], n_start[p + 1]):
            marginal = rest[n_rows[q]]
            for b in range(n_resamples):
                joint[b] += np.float64(marginal[b])
        for q in range(dot_start[p], dot_start[p + 1]):
            rows, cols = rest[dot_r[q]], rest[dot_c[q]]
            for b in range(n_resamples):
                dot[b] += np.float64(rows[b]) * np.float64(cols[b])
        out = ma_out[p]
        trace_row = trace_rows[p]
        for b in range(n_resamples):
            n = joint[b]
            trace = np.float64(rest[trace_row, b]) if trace_row >= 0 else 0.0
            p_o = trace / n
            p_e = dot[b] / (n * n)
            value = (p_o - p_e) / (1.0 - p_e)
            if n <= 0 or abs(1.0 - p_e) < 1e-12:
                value = 1.0 if ma_one else np.nan
            out[b] = value


def ec_ma_resamples(ec_sums, ec_rows, rest, trace_rows, n_start, n_rows, dot_start, dot_r, dot_c,
                    policy="strict", ma_undefined="nan"):
    """EC and MA of every pair from the weighted sums of a resample: the numpy formulas, compiled, same bits.

    EC is kappa from the counts of both correct, first correct, second correct and trials
    (:func:`humanlike.measures.pairs.metric.kappa_from_counts_and_margins` with its undefined cases, NaN without trials);
    MA is :func:`humanlike.measures.ood.alignment_sums.ma_from_agreement` of the joint errors (the sum of the
    row marginals of the joint-error matrix), the trace and the dot product of the row and column marginals.
    Both run in float64 with numpy's operations in numpy's order, so for whole-number sums the numbers are
    those of the numpy formulas to the bit.

    Parameters
    ----------
    ec_sums : numpy.ndarray of float32, shape (rows, R)
        Weighted sums, cells-major (a resample per column), holding the EC counts.
    ec_rows : numpy.ndarray of int64, shape (4, pairs)
        Rows of ``ec_sums`` with each pair's both correct, first correct, second correct and trials.
    rest : numpy.ndarray of float32, shape (cells, R)
        Weighted sums holding the MA counts.
    trace_rows : numpy.ndarray of int64, shape (pairs,)
        Row of ``rest`` with each pair's same-answer joint errors (-1: always 0).
    n_start : numpy.ndarray of int64, shape (pairs + 1,)
        Pair ``p``'s row marginals are the rows ``n_rows[n_start[p]:n_start[p + 1]]`` of ``rest``.
    n_rows : numpy.ndarray of int64
        Rows of ``rest``, pair by pair.
    dot_start : numpy.ndarray of int64, shape (pairs + 1,)
        Pair ``p``'s marginal products are ``dot_start[p]:dot_start[p + 1]`` of ``dot_r``, ``dot_c``.
    dot_r, dot_c : numpy.ndarray of int64
        Rows of ``rest`` with the row and the column marginal of one class.
    policy : {"strict", "model-vs-human"}
        EC's undefined cases (:class:`humanlike.measures.pairs.metric.UndefinedPolicy`).
    ma_undefined : {"nan", "one"}
        MA's value where it is undefined.

    Returns
    -------
    ec, ma : numpy.ndarray of float64, shape (pairs, R)
        Cells-major (a resample per column).

    Examples
    --------
    One pair, two resamples: 8 trials, 3 both correct, 4 correct each (kappa 0.5); then 8 trials, all
    correct (undefined). MA from 4 joint errors, 2 on the same answer, row marginals (2, 2), column
    marginals (2, 2): 0.

    >>> ec_sums = np.array([[3, 8], [4, 8], [4, 8], [8, 8]], dtype=np.float32)
    >>> rest = np.array([[2, 2], [2, 2], [2, 2], [2, 2], [2, 2]], dtype=np.float32)   # trace, rows, columns
    >>> ec, ma = ec_ma_resamples(ec_sums, np.array([[0], [1], [2], [3]]), rest, np.array([0]),
    ...                          np.array([0, 2]), np.array([1, 2]), np.array([0, 2]), np.array([1, 2]),
    ...                          np.array([3, 4]))
    >>> ec.tolist(), ma.tolist()
    ([[0.5, nan]], [[0.0, 0.0]])
    """
    ec_sums = np.ascontiguousarray(ec_sums, dtype=np.float32)
    rest = np.ascontiguousarray(rest, dtype=np.float32)
    ec_rows = np.asarray(ec_rows, dtype=np.int64)
    n_pairs, n_resamples = ec_rows.shape[1], ec_sums.shape[1]
    ec = np.empty((n_pairs, n_resamples))
    ma = np.empty((n_pairs, n_resamples))
    as_index = [np.asarray(x, dtype=np.int64) for x in (trace_rows, n_start, n_rows, dot_start, dot_r, dot_c)]
    _ec_ma(ec_sums, ec_rows, policy == "strict", policy == "model-vs-human", rest, *as_index,
           ma_undefined == "one", ec, ma)
    return ec, ma


@njit(cache=True, nogil=True)
def _transpose_weights(weights, out):
    # out = weights.T as float32, in tiles (a plain transposed copy strides through memory); also whether every
    # weight is a whole number >= 0 and the largest weight (_whole_and_largest).
    n_rows, n_cols = weights.shape
    whole, largest = _whole_and_largest(weights)
    tile = 16
    for r0 in range(0, n_rows - tile + 1, tile):       # full tiles of rows: fixed trip counts
        for c in range(n_cols):
            target = out[c]
            for r in range(tile):
                target[np.uint64(r0 + r)] = weights[np.uint64(r0 + r), c]
    for r in range(n_rows - n_rows % tile, n_rows):
        for c in range(n_cols):
            out[c, r] = weights[r, c]
    return whole, largest


def whole_weights_transposed(weights):
    """Item weights transposed to (items x R) float32, whether they are whole numbers >= 0, and the largest.

    One pass over the weights, in tiles: the layout and the checks :meth:`PairAlignmentSums.resample
    <humanlike.measures.ood.alignment_sums.PairAlignmentSums.resample>` needs.

    Parameters
    ----------
    weights : numpy.ndarray, shape (R, items)
        Item weights.

    Returns
    -------
    transposed : numpy.ndarray of float32, shape (items, R)
        The weights, a resample per column.
    whole : bool
        Every weight is a whole number >= 0 (NaN is not).
    largest : float
        The largest weight (0 for no weights).

    Examples
    --------
    >>> t, whole, largest = whole_weights_transposed(np.array([[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]]))
    >>> t.tolist(), whole, largest
    ([[2.0, 1.0], [0.0, 1.0], [1.0, 1.0]], True, 2.0)
    >>> whole_weights_transposed(np.array([[0.5, -1.0]]))[1]
    False

    Weights already laid out items first (a transposed view, as the engine hands them to a kernel with
    ``weights_items_first``) are returned as they are, only checked:

    >>> items_first = np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32)
    >>> t, whole, largest = whole_weights_transposed(items_first.T)
    >>> t is items_first or bool(np.shares_memory(t, items_first)), whole, largest
    (True, True, 2.0)
    """
    w = np.asarray(weights)
    if w.dtype == np.float32 and w.T.flags.c_contiguous:   # already laid out a resample per column: no copy
        return (w.T, *whole_and_largest(w.T))
    if w.dtype not in (np.float32, np.float64):
        w = w.astype(np.float64)
    out = np.empty((w.shape[1], w.shape[0]), dtype=np.float32)
    whole, largest = _transpose_weights(w, out)
    return out, bool(whole), float(largest)


def whole_and_largest(weights) -> tuple[bool, float]:
    """Whether every weight is a whole number >= 0 (NaN is not), and the largest weight (0 for none).

    The check of :func:`whole_weights_transposed`, without the transposed copy.

    Parameters
    ----------
    weights : numpy.ndarray, 2-D
        Item weights.

    Returns
    -------
    whole : bool
    largest : float

    Examples
    --------
    >>> whole_and_largest(np.array([[2.0, 0.0], [1.0, 3.0]])), whole_and_largest(np.array([[0.5, 1.0]]))[0]
    ((True, 3.0), False)
    """
    w = np.asarray(weights)
    if w.dtype not in (np.float32, np.float64):
        w = w.astype(np.float64)
    whole, largest = _whole_and_largest(w)
    return bool(whole), float(largest)


@njit(cache=True, nogil=True)
def _indicator_sums(starts, items, weights, out):
    n_rows, n_resamples = out.shape
    for row in range(n_rows):
        target = out[row]
        lo, hi = starts[row], starts[row + 1]
        if lo == hi:
            for b in range(n_resamples):
                target[b] = 0.0
            continue
        source = weights[items[lo]]
        for b in range(n_resamples):
            target[b] = source[b]
        for k in range(lo + 1, hi):
            source = weights[items[k]]
            for b in range(n_resamples):
                target[b] += source[b]
    return out


def indicator_sums(starts, items, weights):
    """Per row of a 0/1 indicator matrix in CSR form, the sum of the weights of its items (float32).

    ``out[r] = weights[items[starts[r]:starts[r + 1]]].sum(axis=0)``: the product of the (rows x items)
    indicator matrix with the (items x R) weights. Each output row is written once, first by a copy, so a fresh
    output page is touched by one write (a ``csr_matrix @ weights`` product adds into zeroed memory: a read
    of the kernel's zero page and then a copy-on-write fault per page, each with a TLB shootdown across the
    threads' cores). For whole-number weights whose sums stay below 2**24 the sums are exact, so the order of
    the additions changes no bit.

    Parameters
    ----------
    starts : numpy.ndarray of int64, shape (rows + 1,)
        Row ``r`` holds ``items[starts[r]:starts[r + 1]]``.
    items : numpy.ndarray of int64
        Item (row of ``weights``) of each one of the matrix.
    weights : numpy.ndarray of float32, shape (items, R)
        Weights, a resample per column.

    Returns
    -------
    numpy.ndarray of float32, shape (rows, R)

    Examples
    --------
    >>> starts, items = np.array([0, 2, 2, 3]), np.array([0, 2, 1])   # rows {0, 2}, {}, {1}
    >>> weights = np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]], dtype=np.float32)
    >>> indicator_sums(starts, items, weights).tolist()
    [[1.0, 3.0], [0.0, 0.0], [2.0, 1.0]]
    """
    weights = np.ascontiguousarray(weights, dtype=np.float32)
    starts = np.asarray(starts, dtype=np.int64)
    out = np.empty((starts.size - 1, weights.shape[1]), dtype=np.float32)
    return _indicator_sums(starts, np.asarray(items, dtype=np.int64), weights, out)


@njit(cache=True, nogil=True)
def _whole_and_largest(weights):
    # whether every weight is a whole number >= 0 and the largest weight
    not_whole = 0
    largest = 0.0
    for row in weights:
        for w in row:
            not_whole += (w < 0) + (w != np.floor(w))      # NaN != NaN counts too
            largest = max(largest, np.float64(w))
    return not_whole == 0, largest
