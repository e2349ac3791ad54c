"""Random draws of the resampling engine, in fixed blocks of :data:`BLOCK` resamples per key.

Block b of a key draws from ``stream(seed, kind, *key, b)``, so resample r gets the same draws whatever the
chunk size, the selection of other strata or the order of the data: bootstrap item weights, observer weights,
parametric responses, normal draws and random subsets.
"""

from __future__ import annotations

import numpy as np

from .rng import stream

BLOCK = 100


def _blocks(start: int, stop: int) -> range:
    return range(start // BLOCK, (stop - 1) // BLOCK + 1) if stop > start else range(0)


def item_weights(seed: int, key: tuple, n_items: int, start: int, stop: int, items_first: bool = False) -> np.ndarray:
    """Multinomial bootstrap weights of resamples ``start..stop-1`` of one stratum, (stop-start) x n_items.

    Each row counts how often each item is drawn (rows sum to ``n_items``). Resample r's row depends only on
    ``seed``, ``key`` and r.

    Parameters
    ----------
    seed : int
        Root seed.
    key : tuple
        The name of the stratum's random stream (the engine passes
        :attr:`humanlike.trials.design.Stratum.stream_key`).
    n_items : int
        Items in the stratum (>= 1).
    start, stop : int
        The resamples drawn.
    items_first : bool, default False
        Return the transpose, n_items x (stop-start), C-contiguous: the same counts laid out a resample per
        column (for kernels with ``weights_items_first``).

    Returns
    -------
    numpy.ndarray of float32
        Counts, shape ((stop - start) x n_items), or its transpose with ``items_first``.

    Raises
    ------
    ValueError
        If ``n_items`` is not positive.

    Examples
    --------
    >>> w = item_weights(0, ("edge", "0"), 5, 0, 250)
    >>> bool((w.sum(axis=1) == 5).all()), bool((item_weights(0, ("edge", "0"), 5, 120, 130) == w[120:130]).all())
    (True, True)
    >>> bool((item_weights(0, ("edge", "0"), 5, 0, 250, items_first=True) == w.T).all())
    True
    """
    if n_items <= 0:
        raise ValueError(f"stratum {key}: cannot resample an empty set of items")
    n = max(stop - start, 0)
    out = np.empty((n_items, n) if items_first else (n, n_items), dtype=np.float32)
    # Drawn as int32 where the offsets below fit: numpy draws a bounded int64 below 2**32 from the same 32-bit
    # stream, so the draws are identical to int64 ones (tested) at half the memory traffic.
    dtype = np.int32 if BLOCK * n_items < 2**31 else np.int64
    if items_first:
        # Items-first weights feed compiled kernels (numba is loaded): the draws are counted straight into
        # their columns, without a count table and a strided cast copy.
        from .draw_counts import count_draws_into_columns
    else:
        offsets = np.arange(BLOCK, dtype=dtype)[:, None] * n_items   # a draw's cell of the block's count table
    for b in _blocks(start, stop):
        rng = stream(seed, "items", *key, b)
        draws = rng.integers(0, n_items, size=(BLOCK, n_items), dtype=dtype)
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        if items_first:
            count_draws_into_columns(draws, out, b * BLOCK + lo - start, lo, hi)
            continue
        draws += offsets
        counts = np.bincount(draws.ravel(), minlength=BLOCK * n_items)
        out[b * BLOCK + lo - start:b * BLOCK + hi - start] = counts.reshape(BLOCK, n_items)[lo:hi]
    return out


def observer_weights(seed: int, key: tuple, n_observers: int, start: int, stop: int) -> np.ndarray:
    """Multinomial weights of the observers of one group for resamples ``start..stop-1`` (float64).

    Parameters
    ----------
    seed : int
        Root seed.
    key : tuple
        The observer group's key.
    n_observers : int
        Members of the group (0 gives an empty matrix).
    start, stop : int
        The resamples drawn.

    Returns
    -------
    numpy.ndarray of float64
        Counts, shape ((stop - start) x n_observers); rows sum to ``n_observers``.

    Examples
    --------
    >>> u = observer_weights(0, ("exp",), 3, 0, 4)
    >>> u.shape, u.sum(axis=1).tolist()
    ((4, 3), [3.0, 3.0, 3.0, 3.0])
    """
    if n_observers <= 0:
        return np.zeros((stop - start, 0))
    return item_weights(seed, ("observers",) + tuple(key), n_observers, start, stop).astype(np.float64)


def bernoulli_responses(seed: int, key: tuple, probabilities: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Simulated 0/1 responses for resamples ``start..stop-1``: row r is Bernoulli(probabilities).

    Used by parametric bootstraps (e.g. MLDS). Row r depends only on ``seed``, ``key`` and r.

    Parameters
    ----------
    seed : int
        Root seed.
    key : tuple
        Names the random stream.
    probabilities : numpy.ndarray
        Probability of a 1 per trial, 1-d, in [0, 1].
    start, stop : int
        The resamples drawn.

    Returns
    -------
    numpy.ndarray of bool
        Shape ((stop - start) x trials).

    Raises
    ------
    ValueError
        If ``probabilities`` is not 1-d in [0, 1].

    Examples
    --------
    >>> p = np.array([0.0, 1.0, 0.5])
    >>> y = bernoulli_responses(0, ("fit",), p, 0, 1000)
    >>> y.shape, bool(y[:, 0].any()), bool(y[:, 1].all())
    ((1000, 3), False, True)
    """
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError("probabilities must be a 1-D array of values in [0, 1]")
    parts = []
    for b in _blocks(start, stop):
        u = stream(seed, "bernoulli", *key, b).random((BLOCK, p.size))
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(u[lo:hi] < p)
    return np.concatenate(parts) if parts else np.zeros((0, p.size), bool)


def standard_normals(seed: int, key: tuple, n: int, start: int, stop: int) -> np.ndarray:
    """Standard normal draws (stop-start) x n for resamples ``start..stop-1`` of one key.

    Parameters
    ----------
    seed : int
        Root seed.
    key : tuple
        Names the random stream.
    n : int
        Draws per resample.
    start, stop : int
        The resamples drawn.

    Returns
    -------
    numpy.ndarray
        Shape ((stop - start) x n); row r depends only on ``seed``, ``key`` and r.

    Examples
    --------
    >>> z = standard_normals(0, ("noise",), 2, 0, 3)
    >>> z.shape, bool((standard_normals(0, ("noise",), 2, 1, 3) == z[1:]).all())
    ((3, 2), True)
    """
    parts = []
    for b in _blocks(start, stop):
        z = stream(seed, "normal", *key, b).standard_normal((BLOCK, n))
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(z[lo:hi])
    return np.concatenate(parts) if parts else np.zeros((0, n))


def random_subsets(seed: int, key: tuple, n: int, size: int, start: int, stop: int) -> np.ndarray:
    """Per resample ``start..stop-1``, a random subset of ``size`` of the indices ``0..n-1`` (rows, sorted).

    Drawn in blocks of :data:`BLOCK` resamples from ``stream(seed, *key, block)``, so row r depends only on
    ``seed``, ``key`` and r (e.g. DMC evaluates a random subset of the split halves in each resample, one
    subset per observer group shared by its strata).

    Parameters
    ----------
    seed : int
        Root seed.
    key : tuple
        Names the random stream.
    n : int
        Number of indices to choose from.
    size : int
        Subset size, 1..n.
    start, stop : int
        The resamples drawn.

    Returns
    -------
    numpy.ndarray of int
        Shape ((stop - start) x size), each row sorted.

    Raises
    ------
    ValueError
        If ``size`` is not in 1..n.

    Examples
    --------
    >>> a = random_subsets(0, ("splits", "edge"), 10, 3, 0, 250)
    >>> a.shape, bool((random_subsets(0, ("splits", "edge"), 10, 3, 150, 160) == a[150:160]).all())
    ((250, 3), True)
    """
    if not 0 < size <= n:
        raise ValueError(f"a subset of {size} from {n} indices is not possible")
    parts = []
    for b in _blocks(start, stop):
        u = stream(seed, *key, b).random((BLOCK, n))
        chosen = np.sort(np.argpartition(u, size - 1, axis=1)[:, :size], axis=1) if size < n else \
            np.broadcast_to(np.arange(n), (BLOCK, n))
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(chosen[lo:hi])
    return np.concatenate(parts) if parts else np.zeros((0, size), dtype=np.int64)

