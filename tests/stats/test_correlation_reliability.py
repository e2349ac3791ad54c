import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from humanlike.stats.correlation import (
    constant_reason,
    pearson_rows,
    spearman_brown,
    spearman_rows,
    weighted_pearson,
)
from humanlike.stats.reliability import (
    choose_splits,
    enumerate_splits,
    n_unique_splits,
    sample_splits,
    split_half_ceiling,
    t_interval,
)

# ---------------------------------------------------------------- correlations


def test_pearson_rows_matches_numpy_and_broadcasts():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 30))
    y = rng.normal(size=30)
    r = pearson_rows(x, y)
    assert r.shape == (4,)
    np.testing.assert_allclose(r, [np.corrcoef(row, y)[0, 1] for row in x])
    assert pearson_rows(y, 2 * y + 1) == pytest.approx(1.0)
    assert pearson_rows(y, -y) == pytest.approx(-1.0)


def test_spearman_rows_matches_scipy_with_ties():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, size=(3, 25)).astype(float)
    y = rng.integers(0, 5, size=(3, 25)).astype(float)
    expected = [stats.spearmanr(a, b).statistic for a, b in zip(x, y)]
    np.testing.assert_allclose(spearman_rows(x, y), expected)


def test_constant_vectors_give_nan_with_reason():
    x = np.array([[0.1, 0.1, 0.1], [1.0, 2.0, 3.0], [5.0, 5.0, 5.0]])
    y = np.array([[1.0, 2.0, 4.0], [7.0, 7.0, 7.0], [2.0, 2.0, 2.0]])
    assert np.all(np.isnan(pearson_rows(x, y)))
    assert np.all(np.isnan(spearman_rows(x, y)))
    assert constant_reason(x, y).tolist() == ["x constant", "y constant", "x and y constant"]
    assert constant_reason([1.0, 2.0], [2.0, 1.0]) == ""
    assert constant_reason([1.0], [2.0]) == "fewer than 2 items"


def test_weighted_pearson_integer_weights_equal_repeated_data():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=12), rng.normal(size=12)
    w = rng.multinomial(12, np.full(12, 1 / 12), size=200)
    r = weighted_pearson(x, y, w)
    expected = [np.corrcoef(np.repeat(x, wi), np.repeat(y, wi))[0, 1] for wi in w]
    np.testing.assert_allclose(r, expected, atol=1e-10)
    # The general broadcasting path (2-D data) agrees with the matrix-product path.
    r2 = weighted_pearson(np.broadcast_to(x, w.shape), y, w)
    np.testing.assert_allclose(r2, r, atol=1e-10)
    np.testing.assert_allclose(weighted_pearson(x, y, np.ones(12)), pearson_rows(x, y))


def test_weighted_pearson_undefined_cases():
    x = np.array([1.0, 1.0, 2.0, 3.0])
    y = np.array([4.0, 3.0, 2.0, 5.0])
    w = np.array([[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 1]], dtype=float)
    r = weighted_pearson(x, y, w)
    assert np.isnan(r[0]) and np.isnan(r[1]) and np.isfinite(r[2])
    assert constant_reason(x, y, w).tolist() == ["x constant", "zero total weight", ""]
    with pytest.raises(ValueError, match="non-negative"):
        weighted_pearson(x, y, -np.ones(4))


def test_spearman_brown_hand_values():
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
    assert spearman_brown(0.6, 3) == pytest.approx(1.8 / 2.2)
    assert spearman_brown(0.8, 0.5) == pytest.approx(0.4 / 0.6)
    assert spearman_brown(1.0) == 1.0 and spearman_brown(0.0) == 0.0
    assert np.isnan(spearman_brown(-1.0))
    np.testing.assert_allclose(spearman_brown(spearman_brown(0.37, 2), 0.5), 0.37)
    with pytest.raises(ValueError):
        spearman_brown(1.5)
    with pytest.raises(ValueError):
        spearman_brown(0.5, 0)


@settings(max_examples=60, deadline=None)
@given(st.floats(-0.99, 1.0), st.floats(-0.99, 1.0), st.floats(1.0, 10.0))
def test_spearman_brown_monotone(r1, r2, k):
    lo, hi = sorted([r1, r2])
    if 1 + (k - 1) * lo <= 1e-9:
        return
    assert spearman_brown(lo, k) <= spearman_brown(hi, k) + 1e-12
    # Stepping up never lowers a positive correlation.
    if lo > 0:
        assert spearman_brown(lo, k) >= lo - 1e-12


vectors = st.integers(3, 15).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(-100, 100, allow_nan=False), min_size=n, max_size=n),
        st.lists(st.floats(-100, 100, allow_nan=False), min_size=n, max_size=n),
        st.permutations(list(range(n))),
    )
)


@settings(max_examples=80, deadline=None)
@given(vectors)
def test_correlations_symmetric_bounded_and_order_invariant(data):
    x, y, perm = (np.array(v, dtype=float) for v in data)
    perm = perm.astype(int)
    for f in (pearson_rows, spearman_rows):
        r = f(x, y)
        if np.isnan(r):
            assert constant_reason(x, y) != ""
            continue
        assert -1.0 <= r <= 1.0
        assert f(y, x) == pytest.approx(r, abs=1e-9)
        assert f(x[perm], y[perm]) == pytest.approx(r, abs=1e-9)


# ---------------------------------------------------------------- splits


@pytest.mark.parametrize("n", range(2, 12))
def test_enumerate_splits_counts_and_uniqueness(n):
    s = enumerate_splits(n)
    expected = math.comb(n, n // 2) // 2 if n % 2 == 0 else math.comb(n, n // 2)
    assert s.shape == (expected, n) == (n_unique_splits(n), n)
    assert np.all(s.sum(axis=1) == n // 2)  # odd N: the smaller half is A
    keys = {tuple(row) for row in s}
    assert len(keys) == expected
    # Each split once: no row is another row's complement (for odd N sizes differ anyway).
    assert not any(tuple(~row) in keys for row in s)
    if n % 2 == 0:
        assert s[:, 0].all()


def test_known_split_counts():
    assert [n_unique_splits(n) for n in (4, 5, 10)] == [3, 10, 126]
    np.testing.assert_array_equal(enumerate_splits(4), [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1]])
    with pytest.raises(ValueError):
        enumerate_splits(1)


def test_sample_splits_unique_seeded_and_canonical():
    a = sample_splits(10, 50, seed=3)
    b = sample_splits(10, 50, seed=3)
    np.testing.assert_array_equal(a, b)
    assert len({tuple(r) for r in a}) == 50 and a[:, 0].all()
    big = sample_splits(30, 300, seed=4)  # C(30,15)/2 splits: the rejection-sampling path
    assert big.shape == (300, 30) and np.all(big.sum(axis=1) == 15) and big[:, 0].all()
    assert len({tuple(r) for r in big}) == 300
    odd = sample_splits(25, 100, seed=5)
    assert np.all(odd.sum(axis=1) == 12) and len({tuple(r) for r in odd}) == 100
    with pytest.raises(ValueError):
        sample_splits(4, 4, seed=0)


def test_choose_splits_threshold():
    s, enumerated = choose_splits(10, max_splits=126)
    assert enumerated and s.shape[0] == 126
    s, enumerated = choose_splits(10, max_splits=125, seed=0)
    assert not enumerated and s.shape[0] == 125


# ---------------------------------------------------------------- ceiling


def _loop_ceiling(c, t=None):
    """Reference: a plain loop over splits."""
    out = []
    for row in enumerate_splits(c.shape[0]):
        if t is None:
            a, b = c[row].mean(axis=0), c[~row].mean(axis=0)
        else:
            a, b = c[row].sum(0) / t[row].sum(0), c[~row].sum(0) / t[~row].sum(0)
        r = np.corrcoef(a, b)[0, 1]
        out.append(2 * r / (1 + r))
    return np.array(out)


@pytest.mark.parametrize("n_obs", [4, 5])
def test_ceiling_matches_loop(n_obs):
    rng = np.random.default_rng(6)
    t = rng.integers(1, 4, size=(n_obs, 40))
    c = rng.binomial(t, rng.uniform(0.2, 0.9, 40))
    res = split_half_ceiling(c, t)
    ref = _loop_ceiling(c.astype(float), t.astype(float))
    np.testing.assert_allclose(res.per_split_corrected, ref)
    assert res.ceiling == pytest.approx(ref.mean()) and res.reason == "" and res.enumerated
    np.testing.assert_allclose(split_half_ceiling(c / t).per_split_corrected, _loop_ceiling(c / t))
    assert res.to_frame().shape[0] == 1 and res.to_frame(per_split=True).shape[0] == res.n_splits


def test_two_identical_noiseless_observers_give_one():
    acc = np.linspace(0.1, 0.9, 20)
    res = split_half_ceiling(np.vstack([acc, acc]))
    assert res.n_splits == 1 and res.ceiling == pytest.approx(1.0) and res.raw_mean == pytest.approx(1.0)


def test_constant_half_gives_nan_with_reason():
    c = np.array([[1, 1, 1, 1], [1, 0, 1, 0]])
    res = split_half_ceiling(c)
    assert np.isnan(res.ceiling) and np.isnan(res.raw_mean)
    assert res.reason.startswith("all 1 splits undefined") and "half A constant" in res.reason
    # Three observers, one constant: the split with that observer alone is undefined, the others are not.
    c3 = np.array([[1, 1, 1, 1], [1, 0, 1, 0], [0, 0, 1, 1]])
    res3 = split_half_ceiling(c3)
    assert res3.n_splits == 3 and res3.n_defined == 2
    assert np.isfinite(res3.ceiling) and "1 of 3 splits undefined" in res3.reason
    assert res3.split_reasons.tolist() == ["half A constant", "", ""]


def test_no_trials_in_a_half_makes_split_undefined():
    c = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [1, 0, 0]])
    t = np.ones_like(c)
    t[0, 0] = t[1, 0] = 0
    c[0, 0] = c[1, 0] = 0
    res = split_half_ceiling(c, t)
    assert res.split_reasons[0] == "an item has no trials in one half"
    assert np.isnan(res.per_split_r[0])


def test_ceiling_input_errors():
    with pytest.raises(ValueError, match="NaN"):
        split_half_ceiling(np.array([[0.5, np.nan], [0.2, 0.3]]))
    with pytest.raises(ValueError, match="2 observers"):
        split_half_ceiling(np.ones((1, 5)))
    with pytest.raises(ValueError, match="shape"):
        split_half_ceiling(np.ones((2, 5)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="correct <= trials"):
        split_half_ceiling(np.full((2, 3), 2), np.ones((2, 3)))
    with pytest.raises(ValueError, match="method"):
        split_half_ceiling(np.ones((2, 3)), method="kendall")


@pytest.mark.parametrize("n_obs, trials", [(12, 1), (8, 3)])
def test_ceiling_recovers_true_reliability(n_obs, trials):
    # Planted item accuracies + binomial noise: the reliability of the pooled estimate is
    # V / (V + E[pi(1 - pi)] / (N t)) (classical test theory with binomial error variance).
    rng = np.random.default_rng(7)
    pi = rng.uniform(0.1, 0.95, 3000)
    t = np.full((n_obs, pi.size), trials)
    c = rng.binomial(t, pi)
    true_rel = pi.var() / (pi.var() + np.mean(pi * (1 - pi)) / (n_obs * trials))
    res = split_half_ceiling(c, t, seed=0, max_splits=200)
    assert res.ceiling == pytest.approx(true_rel, abs=0.02)
    # Spearman on the same data is in the same region, but not the quantity checked above.
    assert abs(split_half_ceiling(c, t, max_splits=50, seed=0, method="spearman").ceiling - true_rel) < 0.1


def test_sampled_splits_are_seeded():
    rng = np.random.default_rng(8)
    c = rng.binomial(1, rng.uniform(0.2, 0.9, 50), size=(14, 50))
    a = split_half_ceiling(c, seed=1, max_splits=100)
    b = split_half_ceiling(c, seed=1, max_splits=100)
    assert not a.enumerated and a.n_splits == 100 and a.ceiling == b.ceiling


def test_t_interval_hand_values():
    ti = t_interval([1.0, 2.0, 3.0, np.nan], level=0.95)
    half = stats.t.ppf(0.975, 2) * 1.0 / np.sqrt(3)
    assert (ti.mean, ti.n) == (2.0, 3)
    assert ti.low == pytest.approx(2 - half) and ti.high == pytest.approx(2 + half) and ti.reason == ""
    one = t_interval([0.5])
    assert np.isnan(one.low) and one.reason
    assert t_interval([]).reason == "no finite values"
    assert ti.to_frame().shape == (1, 6)
