"""The jackknife-t interval (interval="jackknife-t"): hand-computed values, its limits, and its coverage where
the normal jackknife interval under-covers (a skewed statistic with known truth)."""

from __future__ import annotations

import numpy as np
import pytest

from hypothesis import given, settings, strategies as st

from humanlike.resampling.intervals import bca_interval
from humanlike.resampling.jackknife import JackknifeMoments, RowMoments, jackknife_interval, jackknife_t_interval
from humanlike.resampling.results import Resampled

Z = 1.959963984540054   # Phi^-1(0.975)


def test_hand_computed_skewed_rows():
    # Rows (0, 0, 0, 4), estimate 1.5: mean 1, d = (-1, -1, -1, 3), sum d^2 = 12, sum d^4 = 84.
    # centre = 4 * 1.5 - 3 * 1 = 3; se = sqrt(3/4 * 12) = 3; df = 144 / 84 = 12/7;
    # a = sum(-d)^3 / (6 * 12^1.5) = (1 + 1 + 1 - 27) / (6 * 41.5692) = -0.0962250; shift = a (2 z^2 + 1) se.
    low, high = jackknife_t_interval(np.array([1.5]), np.array([[0.0], [0.0], [0.0], [4.0]]))
    q = 5.068499877881846        # t quantile 0.975 at 12/7 degrees of freedom
    shift = -24 / (6 * 12 ** 1.5) * (2 * Z * Z + 1) * 3
    assert shift == pytest.approx(-2.506542, abs=1e-6)
    assert low[0] == pytest.approx(3 - q * 3 + shift, abs=1e-9)
    assert high[0] == pytest.approx(3 + q * 3 + shift, abs=1e-9)
    assert (low[0], high[0]) == pytest.approx((-14.7120, 15.6990), abs=1e-4)


def test_hand_computed_symmetric_rows_have_no_shift():
    # Rows (1, 2, 3, 4), estimate 2.5: d = (-1.5, -0.5, 0.5, 1.5), sum d^2 = 5, sum d^4 = 10.25, a = 0;
    # se = sqrt(3/4 * 5) = 1.93649, df = 25 / 10.25 = 2.43902 (t quantile 3.639411).
    low, high = jackknife_t_interval(np.array([2.5]), np.array([[1.0], [2.0], [3.0], [4.0]]))
    half = 3.639411179516069 * np.sqrt(0.75 * 5)
    assert (low[0], high[0]) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-9)


def test_many_items_that_move_the_estimate_alike_give_the_normal_jackknife_interval():
    # 2,000 rows at +-1 around their mean: df = 2,000, no skewness: the t quantile is the normal one to 1e-3.
    jack = np.where(np.arange(2000) % 2 == 0, 1.0, -1.0)[:, None] + 0.3
    t_low, t_high = jackknife_t_interval(np.array([0.3]), jack)
    n_low, n_high = jackknife_interval(np.array([0.3]), jack)
    assert t_low[0] == pytest.approx(n_low[0], rel=1e-3) and t_high[0] == pytest.approx(n_high[0], rel=1e-3)
    assert t_high[0] - t_low[0] > n_high[0] - n_low[0]      # t is wider, never narrower


def test_columns_nan_rows_level_and_degenerate_columns():
    jack = np.array([[1.0, np.nan, 2.0, 0.0],
                     [2.0, np.nan, 2.0, 0.0],
                     [np.nan, 5.0, 2.0, 0.0],
                     [4.0, np.nan, 2.0, 4.0]])
    low, high = jackknife_t_interval(np.array([2.0, 5.0, 2.0, 1.5]), jack)
    # column 0 skips its NaN row: the same as the three defined rows alone
    alone = jackknife_t_interval(np.array([2.0]), np.array([[1.0], [2.0], [4.0]]))
    assert (low[0], high[0]) == pytest.approx((alone[0][0], alone[1][0]))
    assert np.isnan(low[1]) and np.isnan(high[1])            # one defined row: no interval
    assert low[2] == high[2] == 2.0                          # every row one value: zero width at the centre
    assert (low[3], high[3]) == pytest.approx((-14.7120, 15.6990), abs=1e-4)   # the hand-computed column
    narrow = jackknife_t_interval(np.array([2.0, 5.0, 2.0, 1.5]), jack, level=0.8)
    assert narrow[1][3] - narrow[0][3] < high[3] - low[3]
    with pytest.raises(ValueError, match="confidence level"):
        jackknife_t_interval(np.array([1.0]), jack[:, :1], level=95)


def test_covers_the_mean_of_skewed_data_where_the_normal_jackknife_does_not():
    # Known ground truth: the mean (1) of 20 exponential values, 3,000 data sets. The normal jackknife interval
    # (the standard z interval of a mean) covers about 0.91; the t quantile and the skewness shift bring it to
    # at least 0.93.
    rng = np.random.default_rng(8)
    data = rng.exponential(1.0, (3000, 20))
    loo = (data.sum(axis=1, keepdims=True) - data) / 19          # data sets x items
    normal_hits = t_hits = 0
    for x, rows in zip(data, loo):
        low, high = jackknife_interval(np.array([x.mean()]), rows[:, None])
        normal_hits += low[0] <= 1.0 <= high[0]
        low, high = jackknife_t_interval(np.array([x.mean()]), rows[:, None])
        t_hits += low[0] <= 1.0 <= high[0]
    assert normal_hits / 3000 <= 0.925
    assert 0.93 <= t_hits / 3000 <= 0.975


def test_resampled_offers_jackknife_t_and_needs_the_rows():
    jack = np.array([[0.0], [0.0], [0.0], [4.0]])
    r = Resampled(np.array([1.5]), np.linspace(0.0, 3.0, 50)[:, None], jackknife=jack, method="jackknife-t")
    low, high = r.interval()
    assert (low[0], high[0]) == pytest.approx((-14.7120, 15.6990), abs=1e-4)
    assert r.interval(method="jackknife")[0][0] != pytest.approx(low[0])
    with pytest.raises(ValueError, match="jackknife-t"):
        Resampled(np.array([1.5]), np.linspace(0.0, 3.0, 50)[:, None]).interval(method="jackknife-t")


def test_the_engine_keeps_the_jackknife_rows_for_jackknife_t():
    from humanlike.resampling.engine import bootstrap
    from humanlike.resampling.kernels import Output, SufficientStatisticKernel
    from humanlike.resampling.settings import ResamplingSettings
    from humanlike.trials.design import Design, Stratum

    class MeanKernel(SufficientStatisticKernel):
        def statistics(self, stratum):
            return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])

        def reduce(self, stratum, sums, observer_weights):
            return sums[:, :1] / sums[:, 1:]

    values = np.array([1.0, 2.0, 3.0, 6.0, 0.5])
    stratum = Stratum(("a",), np.arange(5).astype(str), ("obs",), {"value": values})
    result = bootstrap(Design((stratum,)), MeanKernel(), lambda v: v[("a",)], Output([("a",)], ("stratum",)),
                       ResamplingSettings(n_resamples=100, seed=0, interval="jackknife-t"))
    rows = ((values.sum() - values) / 4)[:, None]
    np.testing.assert_allclose(result.jackknife.variance, JackknifeMoments.of(rows, result.estimate).variance,
                               rtol=1e-12)
    low, high = result.interval()
    expected = jackknife_t_interval(result.estimate, rows)
    assert (low[0], high[0]) == pytest.approx((expected[0][0], expected[1][0]))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 40), st.integers(1, 6), st.floats(0.0, 0.5))
def test_row_moments_merged_block_by_block_equal_those_of_all_rows(seed, n_rows, n_blocks, nan_share):
    # One stratum's leave-one-out rows reach the engine in memory-sized blocks: merging their moments must give
    # the moments of all the rows at once, wherever the rows are split and whatever is NaN.
    rng = np.random.default_rng(seed)
    rows = rng.standard_exponential((n_rows, 5)) ** 2 + rng.normal(size=5)
    rows[rng.random(rows.shape) < nan_share] = np.nan
    cuts = np.sort(rng.choice(np.arange(1, n_rows), size=min(n_blocks, n_rows - 1), replace=False))
    merged = None
    for block in np.split(rows, cuts):
        moments = RowMoments.of(block)
        merged = moments if merged is None else merged.merged(moments)
    whole = RowMoments.of(rows)
    np.testing.assert_array_equal(merged.n, whole.n)
    for name in ("mean", "m2", "m3", "m4"):
        np.testing.assert_allclose(getattr(merged, name), getattr(whole, name), rtol=1e-9, atol=1e-9)


def test_the_stratified_jackknife_by_hand_and_unrelated_strata_change_nothing():
    rng = np.random.default_rng(3)
    estimate = np.array([0.3, 0.5])
    strata = np.repeat([0, 1, 2], [6, 9, 4])
    rows = estimate + rng.normal(scale=0.05, size=(19, 2)) ** 3
    moments = JackknifeMoments.of(rows, estimate, strata=strata)
    variance, bias, u2, u3, w2 = 0.0, 0.0, 0.0, 0.0, 0.0
    for s in range(3):   # the stratified jackknife, stratum by stratum (Efron & Tibshirani 1993, ch. 11)
        part = rows[strata == s, 0]
        n, d = part.size, part - part.mean()
        variance += (n - 1) / n * np.sum(d ** 2)
        bias += (n - 1) * (estimate[0] - part.mean())
        u2, u3 = u2 + np.sum(((n - 1) * -d) ** 2), u3 + np.sum(((n - 1) * -d) ** 3)
        w2 += np.sum(((n - 1) / n * d ** 2) ** 2)
    assert moments.variance[0] == pytest.approx(variance, rel=1e-12)
    assert moments.bias[0] == pytest.approx(bias, rel=1e-12)
    assert moments.acceleration()[0] == pytest.approx(u3 / (6 * u2 ** 1.5), rel=1e-10)
    assert moments.effective_items()[0] == pytest.approx(variance ** 2 / w2, rel=1e-12)
    # A stratum the output does not depend on (every row at the estimate) adds exactly nothing: an experiment's
    # interval does not depend on which other experiments were analysed with it.
    more = np.vstack([rows, np.tile(estimate, (7, 1))])
    bigger = JackknifeMoments.of(more, estimate, strata=np.r_[strata, np.full(7, 3)])
    for name in ("variance", "bias", "influence_2", "influence_3", "terms_2"):
        np.testing.assert_array_equal(getattr(bigger, name), getattr(moments, name))
    np.testing.assert_array_equal(jackknife_t_interval(estimate, bigger), jackknife_t_interval(estimate, moments))


def test_moments_give_the_rows_intervals_for_one_stratum():
    rng = np.random.default_rng(5)
    rows = rng.standard_exponential((30, 4)) ** 2
    rows[rng.random(rows.shape) < 0.2] = np.nan
    estimate = np.nanmean(rows, axis=0) + 0.01
    moments = JackknifeMoments.of(rows, estimate)
    for interval in (jackknife_interval, jackknife_t_interval):
        np.testing.assert_allclose(interval(estimate, moments), interval(estimate, rows), rtol=1e-12)
    replicates = rng.normal(size=(200, 4))
    np.testing.assert_allclose(bca_interval(replicates, estimate, moments), bca_interval(replicates, estimate, rows),
                               rtol=1e-12)
    # the plain (one-stratum) jackknife's formulas, by hand
    column = rows[~np.isnan(rows[:, 0]), 0]
    n, d = column.size, column - column.mean()
    assert moments.variance[0] == pytest.approx((n - 1) / n * np.sum(d ** 2), rel=1e-12)
    assert estimate[0] + moments.bias[0] == pytest.approx(n * estimate[0] - (n - 1) * column.mean(), rel=1e-12)
    assert moments.acceleration()[0] == pytest.approx(np.sum((-d) ** 3) / (6 * np.sum(d ** 2) ** 1.5), rel=1e-10)


def test_a_stratum_that_moves_the_estimate_with_one_defined_row_leaves_the_interval_undefined():
    # Stratified, a stratum with one defined leave-one-out row adds no variance; where that row moved the
    # estimate its share of the variance is unknown, and a zero-width interval would come from nothing.
    estimate = np.array([0.5])
    rows = np.array([[0.2], [np.nan], [0.9], [np.nan]])
    moments = JackknifeMoments.of(rows, estimate, strata=np.array([0, 0, 1, 1]))
    assert moments.unresolved.tolist() == [2]
    for interval in (jackknife_interval, jackknife_t_interval):
        low, high = interval(estimate, moments)
        assert np.isnan(low[0]) and np.isnan(high[0])
    # a one-row stratum AT the estimate (it does not move it) and an untouched stratum resolve fine
    fine = JackknifeMoments.of(np.array([[0.4], [0.6], [0.5], [0.5], [0.5]]), estimate,
                               strata=np.array([0, 0, 1, 2, 2]))
    assert fine.unresolved.tolist() == [0] and np.isfinite(jackknife_t_interval(estimate, fine)[0][0])
