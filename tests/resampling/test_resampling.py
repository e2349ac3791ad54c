"""Resampling helpers, the EC kernel's weighted pair sums and jackknife, intervals, single-pair coverage."""

import numpy as np
import pytest
from scipy import stats as sps

from humanlike.measures.pairs import correctness_sums
from humanlike.measures.pairs import metric as ec
from humanlike.measures.ec.copy_model import cell_probabilities
from humanlike.measures.ec.pair import bootstrap_pair, pair_error_consistency
from humanlike.trials.design import Stratum
from humanlike.resampling.weights import bca_interval, percentile_interval
from humanlike.resampling.settings import ResamplingSettings


def multinomial_weights(n_items, n_resamples, rng):
    """Bootstrap counts of ``n_items`` units, (n_resamples x n_items), for the checks below."""
    return rng.multinomial(n_items, np.full(n_items, 1 / n_items), size=n_resamples).astype(float)


def _random_block(seed=0, n_items=40, n_obs=4):
    rng = np.random.default_rng(seed)
    return rng.random((n_items, n_obs)) < rng.uniform(0.3, 0.9, n_obs)


def _pair_values(x, observed=None, weights=None):
    stats, masked = correctness_sums.correctness_statistics(x, observed)
    w = np.ones((1, x.shape[0])) if weights is None else weights
    return correctness_sums.consistency_from_sums(w @ stats, x.shape[1], masked)


def test_unit_weights_give_counts():
    x = _random_block()
    s = _pair_values(x)
    counts = correctness_sums.correctness_counts(correctness_sums.correctness_statistics(x)[0].sum(axis=0, keepdims=True), 4, False)
    first, second = correctness_sums.pair_indices(4)
    for p, (i, j) in enumerate(zip(first, second)):
        a, b, c, d = ec.counts_from_correctness(x[:, i], x[:, j])
        assert counts["both"][0, p] == a
        assert counts["first"][0, p] == a + b
        assert counts["second"][0, p] == a + c
        assert s["error_consistency"][0, p] == pytest.approx(ec.kappa(a, b, c, d))
    assert np.allclose(s["correct"][0] / s["answered"][0], x.mean(axis=0))


def test_integer_weights_equal_replicated_data():
    x = _random_block(1)
    w = multinomial_weights(x.shape[0], 3, np.random.default_rng(2))
    s = _pair_values(x, weights=w)
    for r in range(3):
        direct = _pair_values(np.repeat(x, w[r].astype(int), axis=0))
        assert np.allclose(s["error_consistency"][r], direct["error_consistency"][0], equal_nan=True)
        assert np.allclose(s["correct"][r] / s["answered"][r], direct["correct"][0] / direct["answered"][0])


def test_masked_block_uses_items_both_answered():
    x = _random_block(3, n_items=30, n_obs=3)
    observed = np.ones_like(x)
    observed[:5, 0] = False
    s = _pair_values(x, observed)
    a, b, c, d = ec.counts_from_correctness(x[5:, 0], x[5:, 1])
    assert s["error_consistency"][0, 0] == pytest.approx(ec.kappa(a, b, c, d))
    assert s["answered"][0].tolist() == [25, 30, 30]


@pytest.mark.parametrize("masked", [False, True])
def test_leave_one_out_matches_recomputation(masked):
    from humanlike.measures.pairs.kernels import ErrorConsistencyKernel

    x = _random_block(5, n_items=12, n_obs=3)
    observed = np.ones_like(x)
    if masked:
        observed[0, 1] = False
    stratum = Stratum(("e", "c"), np.arange(12).astype(str), ("a", "b", "c"),
                      {"n_correct": (x & observed).astype(float), "n_trials": observed.astype(float)})
    loo = ErrorConsistencyKernel().leave_one_out(stratum)
    for i in range(x.shape[0]):
        keep = np.arange(x.shape[0]) != i
        direct = _pair_values(x[keep], observed[keep])
        assert np.allclose(loo[i, :3], direct["error_consistency"][0], equal_nan=True)


def test_percentile_interval_ignores_nan():
    values = np.concatenate([np.linspace(0, 1, 1001), [np.nan] * 10])
    low, high = percentile_interval(values, 0.9)
    assert low == pytest.approx(0.05)
    assert high == pytest.approx(0.95)
    with pytest.raises(ValueError):
        percentile_interval(values, 1.5)


def test_bca_matches_scipy_for_a_mean():
    rng = np.random.default_rng(7)
    data = rng.exponential(size=60)
    boot_rng = np.random.default_rng(8)
    w = multinomial_weights(data.size, 20000, boot_rng)
    replicates = (w @ data) / data.size
    jack = (data.sum() - data) / (data.size - 1)
    low, high = bca_interval(replicates[:, None], np.array([data.mean()]), jack[:, None], 0.95)
    ref = sps.bootstrap((data,), np.mean, n_resamples=20000, method="BCa", random_state=9).confidence_interval
    assert low[0] == pytest.approx(ref.low, abs=0.03)
    assert high[0] == pytest.approx(ref.high, abs=0.03)
    # skewed data: BCa shifts the interval to the right of the percentile one
    plow, phigh = percentile_interval(replicates, 0.95)
    assert high[0] > phigh


def test_bootstrap_pair_reproducible_and_contains_estimate():
    rng = np.random.default_rng(0)
    x = rng.random(300) < 0.7
    y = np.where(rng.random(300) < 0.5, x, rng.random(300) < 0.7)
    est, low, high, reps = bootstrap_pair(x, y, n_resamples=2000, seed=1)
    assert low < est < high
    assert est == pytest.approx(ec.kappa(*ec.counts_from_correctness(x, y)))
    again = bootstrap_pair(x, y, n_resamples=2000, seed=1)
    assert again[1] == low and again[2] == high
    est_b, low_b, high_b, _ = bootstrap_pair(x, y, n_resamples=2000, seed=1, method="bca")
    assert est_b == est and low_b < est < high_b and (low_b, high_b) != (low, high)
    # the engine form: same estimate, an interval within Monte-Carlo error of the multinomial shortcut
    result = pair_error_consistency(x, y, settings=ResamplingSettings(n_resamples=2000, seed=1))
    assert result.estimate[0] == est
    e_low, e_high = result.interval()
    assert e_low[0] == pytest.approx(low, abs=0.02) and e_high[0] == pytest.approx(high, abs=0.02)
    with pytest.raises(ValueError, match="same length"):
        bootstrap_pair(x, y[:-1])


def _coverage(method_level=0.95, n_datasets=2000, n_resamples=1000, n=400, acc=0.75, kappa=0.5, seed=11,
              method="percentile"):
    """Share of simulated data sets whose interval from the library's bootstrap_pair covers the true EC."""
    rng = np.random.default_rng(seed)
    cells = cell_probabilities(kappa, acc, acc)
    data = rng.multinomial(n, cells, size=n_datasets)                      # (datasets x 4)
    hits = 0
    for counts in data:  # one library call per simulated data set: the test exercises bootstrap_pair itself
        x = np.repeat([True, True, False, False], counts)
        y = np.repeat([True, False, True, False], counts)
        _, low, high, _ = bootstrap_pair(x, y, n_resamples=n_resamples, level=method_level, seed=rng,
                                         method=method)
        hits += low <= kappa <= high
    return hits / n_datasets


def test_bootstrap_interval_coverage_one_pair():
    # Issue 2 §9: 400 trials, accuracies 0.75, EC 0.5 -> nominal 95% covers in 93-97% of data sets.
    coverage = _coverage()
    assert 0.93 <= coverage <= 0.97, coverage


def test_a_degenerate_resampling_distribution_gives_no_interval_but_a_reason():
    # Issue 22: every replicate one value (the resampled unit has one member) -> NaN interval with a reason,
    # for every measure (the check lives in Resampled), at every level and method; a varying column is kept.
    import numpy as np

    from humanlike.resampling.results import REASON_DEGENERATE, Resampled

    replicates = np.column_stack([np.full(200, 0.164), np.linspace(0.1, 0.3, 200), np.full(200, np.nan),
                                  np.full(200, 0.5) + np.r_[1e-15, np.zeros(199)]])
    jackknife = np.column_stack([np.full(5, 0.164), np.linspace(0.15, 0.25, 5), np.full(5, np.nan), np.full(5, 0.5)])
    r = Resampled(np.array([0.164, 0.2, np.nan, 0.5]), replicates, jackknife=jackknife, method="bca")
    assert r.degenerate().tolist() == [True, False, False, True]
    for method in ("percentile", "bca"):
        for level in (0.9, 0.95):
            low, high = r.interval(level, method)
            assert np.isnan(low[[0, 2, 3]]).all() and np.isnan(high[[0, 2, 3]]).all()
            assert low[1] < 0.2 < high[1]
    frame = r.to_frame()
    assert frame["reason"].tolist() == [REASON_DEGENERATE, "", "", REASON_DEGENERATE]
    assert Resampled(np.array([0.2]), np.zeros((0, 1))).degenerate().tolist() == [False]   # no resamples
