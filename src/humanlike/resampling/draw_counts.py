"""Compiled counting of bootstrap draws into items-first weights (a resample per column).

:func:`count_draws_into_columns` turns a block of drawn item indices into their counts, written straight into
the float32 (items x resamples) weights that the compiled kernels read. Counts are whole numbers, so the result
is that of ``np.bincount`` and a cast; the fused loop saves the int64 count table, the index arithmetic that
lays it out and the strided cast copy into the columns (about a quarter of the item weights' time on the OOD
alignment). :func:`humanlike.resampling.draws.item_weights` uses it only for items-first weights: a kernel that asks
for them runs compiled code, so numba is loaded already (``import humanlike`` and the numpy-only analyses do
not load it). Compiled on first use (cached), releasing the GIL so that the engine's threads draw side by side.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def count_draws_into_columns(draws, out, first, lo, hi):
    """Write the counts of draw rows ``lo..hi-1`` into columns ``first..first + hi - lo - 1`` of ``out``.

    Parameters
    ----------
    draws : numpy.ndarray of int32 or int64
        (block x n_items) drawn item indices, each in ``0..n_items-1``; row r is resample r of the block.
    out : numpy.ndarray of float32
        (n_items x resamples); the columns written are overwritten, the others left as they are (so a caller
        may fill it block by block from ``numpy.empty``).
    first : int
        The column of ``out`` that draw row ``lo`` counts into.
    lo, hi : int
        The draw rows counted.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.full((3, 2), np.nan, dtype=np.float32)
    >>> count_draws_into_columns(np.array([[0, 0, 2], [1, 2, 2]], dtype=np.int32), out, 0, 0, 2)
    >>> out.tolist()
    [[2.0, 0.0], [0.0, 1.0], [1.0, 2.0]]
    """
    for r in range(lo, hi):
        column = first + r - lo
        for item in range(out.shape[0]):
            out[item, column] = 0.0
        for item in draws[r]:
            out[item, column] += 1.0
