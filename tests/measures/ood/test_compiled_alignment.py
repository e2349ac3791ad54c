"""The compiled (numba) loops of the alignment bootstrap against the float64 numpy reduction they replace.

EC and MA to the bit, CLED within float32 rounding of ``PairAlignmentSums.reduce`` (float64), on random and
edge inputs; every number independent of the chunking and of the threads.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from humanlike.measures.ood.alignment_sums import AlignmentOptions, PairAlignmentSums, pair_indices
from humanlike.measures.ood.compiled import (RESAMPLE_BLOCK, cled_average_resamples, ec_ma_resamples, mlogm_float32,
                                        whole_weights_transposed)
from humanlike.resampling.draws import item_weights


def random_condition(seed, n_items=60, k=6, n_obs=5, n_humans=3, p_correct=0.5):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n_items)
    resp = np.where(rng.random((n_items, n_obs)) < p_correct, labels[:, None], rng.integers(0, k, (n_items, n_obs)))
    resp[rng.random((n_items, n_obs)) < 0.05] = -1      # no answer
    resp[rng.random((n_items, n_obs)) < 0.05] = -2      # not observed
    first, second, _ = pair_indices(n_humans, n_obs)
    return PairAlignmentSums(labels, resp, k, first, second)


def plain(sums, weights, options):
    return sums.reduce(np.asarray(weights, dtype=np.float64) @ sums.statistics.astype(np.float64), options)


def assert_fast_equals_plain(sums, weights, options):
    fast, reference = sums.resample(weights, options), plain(sums, weights, options)
    np.testing.assert_array_equal(fast[0], reference[0])                      # EC to the bit
    np.testing.assert_array_equal(fast[1], reference[1])                      # MA to the bit
    np.testing.assert_array_equal(np.isnan(fast[2]), np.isnan(reference[2]))
    np.testing.assert_allclose(fast[2], reference[2], rtol=1e-5, atol=1e-6, equal_nan=True)
    return fast


@pytest.mark.parametrize("alpha", [0.01, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("weighting", ["errors", "uniform"])
@pytest.mark.parametrize("log_base", [None, 10.0])
def test_compiled_resample_equals_float64_reduction(alpha, weighting, log_base):
    sums = random_condition(int(alpha * 100) + len(weighting))
    options = AlignmentOptions("strict", "nan", alpha, "average", log_base, weighting)
    fast = assert_fast_equals_plain(sums, item_weights(1, ("compiled",), sums.n_items, 0, 150), options)
    assert np.isfinite(fast[2]).any()


@pytest.mark.parametrize("policy, ma_undefined", [("strict", "nan"), ("model-vs-human", "one")])
def test_edge_conditions(policy, ma_undefined):
    rng = np.random.default_rng(7)
    k, n = 5, 40
    labels = rng.integers(0, k, n)
    resp = np.column_stack([labels, labels, rng.integers(0, k, n), labels, rng.integers(0, k, n)])
    resp[3, 1] = (labels[3] + 1) % k                        # one error: empty class rows almost everywhere
    resp[:, 3] = -2                                         # an observer who saw nothing
    resp[:5, 3] = labels[:5]
    resp[10:20, 4] = -1                                     # no answers
    first, second, _ = pair_indices(3, 5)
    sums = PairAlignmentSums(labels, resp, k, first, second)
    options = AlignmentOptions(policy, ma_undefined)
    weights = item_weights(2, ("edge",), n, 0, 70)
    weights[0] = 0.0                                        # a resample without any item
    weights[1] = 0.0
    weights[1, 3] = n                                       # one item, n times: counts far from the data
    weights[2] = 1.0                                        # the data itself
    fast = assert_fast_equals_plain(sums, weights, options)
    assert np.isnan(fast[2][0]).all()                       # no errors at all: CLED undefined
    assert np.isnan(fast[2]).any() and np.isfinite(fast[2]).any()


def test_one_resample_and_weights_with_zeros():
    sums = random_condition(3)
    options = AlignmentOptions()
    w = item_weights(0, ("one",), sums.n_items, 0, 1)
    w[:, ::3] = 0.0
    assert_fast_equals_plain(sums, w, options)


def test_no_pair_with_errors_gives_nan():
    labels = np.array([0, 1, 2, 0, 1, 2])
    resp = np.column_stack([labels, labels, labels])
    sums = PairAlignmentSums(labels, resp, 3, *pair_indices(2, 3)[:2])
    ec, ma, cled = sums.resample(np.ones((3, 6)), AlignmentOptions())
    assert np.isnan(cled).all() and np.isnan(ma).all()


@pytest.mark.parametrize("chunk", [1, 7, RESAMPLE_BLOCK, RESAMPLE_BLOCK + 1, 200])
def test_numbers_do_not_depend_on_the_chunk(chunk):
    sums = random_condition(11, n_items=80)
    options = AlignmentOptions()
    weights = item_weights(5, ("chunks",), sums.n_items, 0, 200)
    whole = sums.resample(weights, options)
    parts = [sums.resample(weights[lo:lo + chunk], options) for lo in range(0, 200, chunk)]
    for metric in range(3):
        np.testing.assert_array_equal(np.concatenate([p[metric] for p in parts]), whole[metric])


def test_numbers_do_not_depend_on_the_threads():
    conditions = [random_condition(seed, n_items=70) for seed in range(6)]
    options = AlignmentOptions()
    weights = [item_weights(0, ("threads", str(i)), 70, 0, 130) for i in range(6)]
    alone = [s.resample(w, options) for s, w in zip(conditions, weights)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(lambda sw: sw[0].resample(sw[1], options), zip(conditions, weights)))
    for a, b in zip(alone, together):
        for metric in range(3):
            np.testing.assert_array_equal(a[metric], b[metric])


def test_mlogm_float32_is_within_float32_rounding():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.random(200_000) * 2.0, 10.0 ** rng.uniform(-30, 3, 50_000), [1.0, 0.5, 2.0]])
    x = x[x > 1e-30].astype(np.float32)
    exact = x.astype(np.float64) * np.log(x.astype(np.float64))
    numpy_float32 = np.abs(x * np.log(x) - exact)
    ours = np.abs(mlogm_float32(x).astype(np.float64) - exact)
    assert ours.max() <= 2 * numpy_float32.max() + 1e-12
    scale = np.maximum(np.abs(exact), np.abs(x))
    assert np.max(ours / scale) < 1e-6
    assert mlogm_float32(np.float32(1.0)) == 0.0


def test_cled_kernel_rejects_negative_counts():
    counts = np.array([[-1.0]], dtype=np.float32)
    with pytest.raises(ValueError, match=">= 0"):
        cled_average_resamples(counts, np.array([0, 1, 1, 1, 1, 1, 1]), np.array([0]), np.array([3]), np.array([0]),
                               np.array([0, 1]), np.array([0]), np.array([4]), n_pairs=1, n_classes=3)


def test_ec_ma_kernel_matches_the_numpy_formulas_on_random_counts():
    from humanlike.measures.ood.alignment_sums import ma_from_agreement
    from humanlike.measures.pairs.metric import kappa_from_counts_and_margins

    rng = np.random.default_rng(4)
    r = 300
    trials = rng.integers(0, 6, r).astype(np.float32)
    one = np.floor(rng.random(r) * (trials + 1)).astype(np.float32)
    two = np.floor(rng.random(r) * (trials + 1)).astype(np.float32)
    both = np.minimum(one, two) * (rng.random(r) < 0.7)
    rows = rng.integers(0, 4, (2, r)).astype(np.float32)
    cols = rng.integers(0, 4, (2, r)).astype(np.float32)
    trace = np.minimum(rows.sum(axis=0), rng.integers(0, 3, r)).astype(np.float32)
    rest = np.vstack([trace, rows, cols])
    for policy in ("strict", "model-vs-human"):
        for undefined in ("nan", "one"):
            ec, ma = ec_ma_resamples(np.vstack([both, one, two, trials]), np.arange(4)[:, None], rest,
                                     np.array([0]), np.array([0, 2]), np.array([1, 2]), np.array([0, 2]),
                                     np.array([1, 2]), np.array([3, 4]), policy, undefined)
            t64 = trials.astype(np.float64)
            with np.errstate(all="ignore"):
                expected_ec = kappa_from_counts_and_margins(both.astype(np.float64), one.astype(np.float64),
                                                            two.astype(np.float64), t64, policy)
            expected_ec = np.where(t64 > 0, expected_ec, np.nan)
            n = rows.astype(np.float64).sum(axis=0)
            dot = (rows.astype(np.float64) * cols.astype(np.float64)).sum(axis=0)
            expected_ma = ma_from_agreement(n, trace.astype(np.float64), dot, undefined)
            np.testing.assert_array_equal(ec[0], expected_ec)
            np.testing.assert_array_equal(ma[0], expected_ma)


def test_whole_weights_transposed():
    w = item_weights(0, ("t",), 37, 0, 45)
    t, whole, largest = whole_weights_transposed(w)
    np.testing.assert_array_equal(t, w.T)
    assert whole and largest == w.max()
    for bad in (0.5, -1.0, np.nan):
        v = w.copy()
        v[44, 36] = bad
        assert not whole_weights_transposed(v)[1]


def test_fractional_weights_fall_back_to_the_float64_reduction():
    sums = random_condition(9)
    w = np.full((3, sums.n_items), 0.5)
    fast, reference = sums.resample(w, AlignmentOptions()), plain(sums, w, AlignmentOptions())
    for metric in range(3):
        np.testing.assert_array_equal(fast[metric], reference[metric])
