"""The faster code paths of the DMC run give the numbers of the plain formulations, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from humanlike.measures.dmc.kernel import nanmean_blocks
from humanlike.resampling.draws import BLOCK, item_weights
from humanlike.resampling.intervals import percentile_interval
from humanlike.resampling.rng import stream


def _reference_item_weights(seed, key, n_items, start, stop):
    # The former formulation: int64 draws, concatenated blocks.
    parts = []
    for b in range(start // BLOCK, (stop - 1) // BLOCK + 1):
        idx = stream(seed, "items", *key, b).integers(0, n_items, size=(BLOCK, n_items))
        idx += (np.arange(BLOCK) * n_items)[:, None]
        counts = np.bincount(idx.ravel(), minlength=BLOCK * n_items).reshape(BLOCK, n_items)
        parts.append(counts[max(start - b * BLOCK, 0):min(stop - b * BLOCK, BLOCK)])
    return np.concatenate(parts).astype(np.float32)


@pytest.mark.parametrize("n_items", [1, 2, 7, 160, 1280])
@pytest.mark.parametrize("start, stop", [(0, 250), (37, 412), (100, 200), (5, 6)])
def test_item_weights_equal_the_int64_draws(n_items, start, stop):
    fast = item_weights(3, ("edge", "0"), n_items, start, stop)
    assert fast.dtype == np.float32
    np.testing.assert_array_equal(fast, _reference_item_weights(3, ("edge", "0"), n_items, start, stop))


@pytest.mark.parametrize("rows", [1, 3, 300])
@pytest.mark.parametrize("n_blocks", [1, 2, 8, 17])
@pytest.mark.parametrize("width", [1, 2, 35])
def test_nanmean_blocks_equals_numpy_nanmean(rows, n_blocks, width):
    rng = np.random.default_rng(rows * 100 + n_blocks * 10 + width)
    blocks = [rng.standard_normal((rows, width)) * 10.0 ** rng.integers(-5, 5) for _ in range(n_blocks)]
    for block in blocks:
        block[rng.random(block.shape) < 0.2] = np.nan
    blocks.append(np.broadcast_to(blocks[0][:1], (rows, width)))  # a broadcast block goes through numpy
    for chosen in (blocks[:-1], blocks):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            expected = np.nanmean(np.stack(chosen, axis=1), axis=1)
        np.testing.assert_array_equal(nanmean_blocks(chosen), expected)


def test_percentile_interval_equals_numpy_quantile():
    rng = np.random.default_rng(0)
    replicates = rng.standard_normal((2001, 700))
    replicates[::7, 5] = np.nan
    replicates[:, 9] = np.nan
    low, high = percentile_interval(replicates, 0.9)
    complete = ~np.isnan(replicates).any(axis=0)
    alpha = (1.0 - 0.9) / 2.0  # as percentile_interval computes it (not exactly 0.05)
    expected = np.quantile(replicates[:, complete], [alpha, 1.0 - alpha], axis=0)
    np.testing.assert_array_equal(low[complete], expected[0])
    np.testing.assert_array_equal(high[complete], expected[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        partial = np.nanquantile(replicates[:, 5], [alpha, 1.0 - alpha])
    np.testing.assert_array_equal([low[5], high[5]], partial)
    assert np.isnan(low[9]) and np.isnan(high[9])
