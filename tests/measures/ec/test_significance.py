"""Significance tests and the analytic standard error of kappa."""

import numpy as np
import pytest
from scipy import stats

from humanlike.trials.simulate import simulate_copy_counts, simulate_copy_pair
from humanlike.measures.pairs.metric import counts_from_correctness, kappa
from humanlike.measures.ec.significance import (
    ECTestResult,
    analytic_kappa_interval,
    ec_test_beta_posterior,
    ec_test_exact,
    kappa_standard_error,
)


def _brute_force(a, b, c, d):
    n, k1, k2 = a + b + c + d, a + b, a + c
    support = np.arange(max(0, k1 + k2 - n), min(k1, k2) + 1)
    pmf = stats.hypergeom.pmf(support, n, k1, k2)
    ks = kappa(support, k1 - support, k2 - support, n - k1 - k2 + support)
    k_obs = kappa(a, b, c, d)
    two = pmf[np.abs(ks) >= abs(k_obs) - 1e-12].sum()
    greater = pmf[ks >= k_obs - 1e-12].sum()
    return two, greater


TABLES = [(12, 3, 4, 9), (5, 7, 6, 2), (20, 1, 9, 3), (3, 3, 3, 3), (0, 5, 6, 1), (9, 0, 0, 1), (15, 10, 2, 30), (40, 6, 11, 3)]


@pytest.mark.parametrize("table", TABLES)
def test_exact_matches_brute_force(table):
    two, greater = _brute_force(*table)
    res = ec_test_exact(*table)
    assert isinstance(res, ECTestResult)
    assert res.kappa == pytest.approx(kappa(*table))
    assert res.p_value == pytest.approx(min(two, 1.0), rel=1e-9, abs=1e-14)
    assert res.p_greater == pytest.approx(greater, rel=1e-9, abs=1e-14)
    # one-sided p is Fisher's one-sided test for a positive association
    assert res.p_greater == pytest.approx(stats.fisher_exact([[table[0], table[1]], [table[2], table[3]]], "greater").pvalue, rel=1e-9)


def test_exact_vectorised_equals_elementwise():
    a, b, c, d = (np.array(x) for x in zip(*TABLES, strict=True))
    res = ec_test_exact(a, b, c, d)
    assert res.p_value.shape == (len(TABLES),)
    for i, table in enumerate(TABLES):
        single = ec_test_exact(*table)
        assert res.p_value[i] == pytest.approx(single.p_value, rel=1e-12)
        assert res.p_greater[i] == pytest.approx(single.p_greater, rel=1e-12)
    frame = res.to_frame()
    assert len(frame) == len(TABLES) and set(frame.columns) >= {"kappa", "p_value", "p_greater", "method"}


def test_exact_many_simulated_tables_match_brute_force():
    counts = simulate_copy_counts(60, 0.2, 0.7, 0.6, size=3000, seed=2)
    res = ec_test_exact(*counts.T)
    for i in range(0, 3000, 150):
        two, greater = _brute_force(*counts[i])
        assert res.p_value[i] == pytest.approx(min(two, 1.0), rel=1e-9, abs=1e-14)
        assert res.p_greater[i] == pytest.approx(greater, rel=1e-9, abs=1e-14)


def test_exact_equals_fisher_two_sided_for_symmetric_margins():
    # k1 = n/2 makes the conditional distribution of a symmetric: "as far from chance in kappa" and
    # Fisher's "no more probable than observed" select the same tables.
    for table in [(12, 8, 5, 15), (14, 6, 3, 17), (25, 25, 10, 40)]:
        a, b, c, d = table
        n = sum(table)
        assert a + b == n // 2 and n % 2 == 0
        fisher = stats.fisher_exact([[a, b], [c, d]]).pvalue
        assert ec_test_exact(*table).p_value == pytest.approx(fisher, rel=1e-9)
    # an asymmetric case where the rules differ (documented): n=8, k1=k2=2, pmf(a=0,1,2) = 15/28, 12/28, 1/28;
    # a=0 and a=1 are equally far from chance (kappa = -1/3 and +1/3), so the kappa rule takes every table,
    # while Fisher keeps only the tables no more probable than a=1 (a=1, a=2).
    assert ec_test_exact(1, 1, 1, 5).p_value == pytest.approx(1.0)
    assert stats.fisher_exact([[1, 1], [1, 5]]).pvalue == pytest.approx(13 / 28)
    assert ec_test_exact(1, 1, 1, 5).p_greater == pytest.approx(13 / 28)


def test_exact_degenerate_tables():
    both = ec_test_exact(10, 0, 0, 0)
    assert np.isnan(both.kappa) and np.isnan(both.p_value) and np.isnan(both.p_greater)
    one = ec_test_exact(6, 0, 4, 0)  # observer 1 always correct
    assert one.kappa == 0 and one.p_value == 1.0
    with pytest.raises(ValueError):
        ec_test_exact(1.5, 2, 3, 4)
    with pytest.raises(ValueError):
        ec_test_exact(0, 0, 0, 0)


def test_strong_copy_model_is_significant():
    x, y = simulate_copy_pair(200, 0.5, 0.75, 0.7, seed=4, exact=True)
    table = counts_from_correctness(x, y)
    assert ec_test_exact(*table).p_value < 1e-6
    res = ec_test_beta_posterior(*table, n_simulations=5000, seed=0)
    assert res.p_value < 1e-3 and res.p_greater < 1e-3
    assert res.method == "beta-posterior" and res.n_simulations == 5000
    x, y = simulate_copy_pair(200, -0.3, 0.5, 0.5, seed=4, exact=True)
    table = counts_from_correctness(x, y)
    assert ec_test_beta_posterior(*table, n_simulations=5000, seed=0).p_value < 1e-3
    assert ec_test_beta_posterior(*table, n_simulations=5000, seed=0).p_greater > 0.99


def test_beta_posterior_uniform_under_null():
    counts = simulate_copy_counts(100, 0.0, 0.7, 0.6, size=400, seed=7)
    res = ec_test_beta_posterior(*counts.T, n_simulations=2000, seed=8)
    p = res.p_value
    assert p.shape == (400,)
    assert 0.01 <= np.mean(p < 0.05) <= 0.10
    assert 0.38 <= np.mean(p < 0.5) <= 0.62
    assert 0.4 <= np.mean(p) <= 0.6
    # it tracks the exact conditional test (which is a little conservative: discreteness)
    exact = ec_test_exact(*counts.T).p_value
    assert np.corrcoef(p, exact)[0, 1] > 0.9
    assert np.median(np.abs(p - exact)) < 0.1


def test_beta_posterior_seeded_and_vectorised():
    table = (30, 12, 9, 19)
    r1 = ec_test_beta_posterior(*table, n_simulations=3000, seed=3)
    r2 = ec_test_beta_posterior(*table, n_simulations=3000, seed=3)
    assert r1 == r2
    assert r1.to_frame().shape[0] == 1
    many = ec_test_beta_posterior([30, 30], [12, 12], [9, 9], [19, 19], n_simulations=3000, seed=3)
    assert many.p_value.shape == (2,)
    assert abs(many.p_value[0] - many.p_value[1]) < 0.05  # same table, different draws
    # tiny chunks give the same answer shape and sensible values
    chunked = ec_test_beta_posterior([30, 30], [12, 12], [9, 9], [19, 19], n_simulations=3000, seed=3, chunk_size=10)
    assert np.all(np.abs(chunked.p_value - many.p_value) < 0.05)


def test_beta_posterior_priors():
    # the published Beta(k, n-k) breaks when an observer is always right or always wrong
    with pytest.raises(ValueError, match="improper"):
        ec_test_beta_posterior(8, 0, 2, 0, prior=(0, 0), seed=0)
    ok = ec_test_beta_posterior(8, 0, 2, 0, prior=(1, 1), n_simulations=500, seed=0)
    assert ok.kappa == 0
    assert not np.isnan(ec_test_beta_posterior(20, 5, 6, 9, prior=(0, 0), n_simulations=500, seed=0).p_value)
    nan = ec_test_beta_posterior(10, 0, 0, 0, n_simulations=100, seed=0)
    assert np.isnan(nan.p_value)


def test_standard_error_hand_value():
    # p11 = p00 = 0.375, p10 = p01 = 0.125: n Var = 0.046875 / 0.5**4 = 0.75
    assert kappa_standard_error(30, 10, 10, 30) == pytest.approx(np.sqrt(0.75 / 80))
    assert kappa_standard_error(40, 0, 0, 40) == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(kappa_standard_error(10, 0, 0, 0))


@pytest.mark.parametrize("n,k,a1,a2", [(200, 0.3, 0.7, 0.8), (150, -0.2, 0.5, 0.6), (500, 0.6, 0.9, 0.85)])
def test_standard_error_matches_simulation(n, k, a1, a2):
    counts = simulate_copy_counts(n, k, a1, a2, size=20000, seed=9)
    ks = kappa(*counts.T)
    se = kappa_standard_error(*counts.T)
    sd = np.nanstd(ks)
    assert np.nanmean(se) == pytest.approx(sd, rel=0.1)


def test_analytic_interval():
    res = analytic_kappa_interval([30, 10, 1], [10, 0, 0], [10, 0, 0], [30, 0, 0], level=0.95)
    z = stats.norm.ppf(0.975)
    assert res.low[0] == pytest.approx(0.5 - z * np.sqrt(0.75 / 80))
    assert res.high[0] == pytest.approx(0.5 + z * np.sqrt(0.75 / 80))
    assert np.isnan(res.low[1]) and "constant" in res.reason[1]
    assert np.isnan(res.low[2]) and res.reason[2] == "fewer than two trials"
    frame = res.to_frame()
    assert list(frame["reason"])[0] == ""
    clipped = analytic_kappa_interval(9, 1, 0, 1)
    assert -1 <= clipped.low <= clipped.high <= 1
