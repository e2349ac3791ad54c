"""OOD-spectrum statistics: logits, Glass's delta, tests against the reference and chance, regimes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.diagnostic import lilliefors

from humanlike.measures.ood.spectrum_statistics import (
    REASON_CONSTANT,
    REASON_FEW_REFERENCE,
    REASON_NO_CONDITION,
    REASON_ZERO_SD,
    binomial_above_chance,
    chance_flags,
    glass_delta,
    glass_deltas,
    logit_accuracy,
    mannwhitney_vs_reference,
    normality_tests,
)
from humanlike.measures.ood.regime_stability import regime_stability_bootstrap
from humanlike.measures.ood.regimes import fit_regimes, gmm_n_parameters, regime_names

# ------------------------------------------------------------------------------------------- logits


def test_logit_half_correction():
    out = logit_accuracy([0, 5, 10], [10, 10, 10])
    np.testing.assert_allclose(out, [np.log(0.5 / 10.5), 0.0, np.log(10.5 / 0.5)])
    # equals logit((k + 0.5) / (n + 1))
    k, n = 3, 16
    a = (k + 0.5) / (n + 1)
    assert logit_accuracy(k, n) == pytest.approx(np.log(a / (1 - a)))


def test_logit_clip_and_none():
    np.testing.assert_allclose(
        logit_accuracy([0, 3, 10], [10, 10, 10], correction="clip"),
        [np.log(0.05 / 0.95), np.log(0.3 / 0.7), np.log(0.95 / 0.05)],
    )
    none = logit_accuracy([0, 3, 10], [10, 10, 10], correction="none")
    assert none[0] == -np.inf and none[2] == np.inf and none[1] == pytest.approx(np.log(3 / 7))
    assert np.isnan(logit_accuracy(0, 0))
    with pytest.raises(ValueError):
        logit_accuracy(5, 4)
    with pytest.raises(ValueError):
        logit_accuracy(1, 4, correction="probit")


# ------------------------------------------------------------------------------------ Glass's delta


def test_glass_delta_hand_values():
    g = glass_delta([1.0, 2.0, 3.0], [0.0, 1.0, 2.0])
    assert g.value == pytest.approx(1.0) and g.sd_reference == pytest.approx(1.0) and g.reason == ""
    ref = [2, 4, 4, 4, 5, 5, 7, 9]  # mean 5, SD (ddof=1) sqrt(32/7)
    g = glass_delta([1, 3], ref)
    assert g.value == pytest.approx(-3 / np.sqrt(32 / 7))
    assert (g.n_condition, g.n_reference) == (2, 8)
    # NaNs are dropped
    assert glass_delta([1, 3, np.nan], ref + [np.nan]).value == pytest.approx(g.value)


def test_glass_delta_undefined_cases():
    for cond, ref, reason in [
        ([1.0], [2.0], REASON_FEW_REFERENCE),
        ([1.0], [2.0, 2.0, 2.0], REASON_ZERO_SD),
        ([], [1.0, 2.0], REASON_NO_CONDITION),
    ]:
        g = glass_delta(cond, ref)
        assert np.isnan(g.value) and g.reason == reason
    values, reasons = glass_deltas([[1, 2, 3], [np.nan]], [0, 1, 2])
    np.testing.assert_allclose(values, [1.0, np.nan])
    assert list(reasons) == ["", REASON_NO_CONDITION]
    assert glass_delta([1, 2], [0, 1, 2]).to_frame().shape == (1, 7)


def test_glass_delta_preserves_planted_difficulty_order():
    """Simulated observers whose logit accuracy falls with a planted difficulty."""
    rng = np.random.default_rng(11)
    difficulty = np.array([0.0, 0.5, 1.0, 1.5, 2.5, 3.5])
    n_obs, n_trials = 6, 160
    observer_skill = rng.normal(0.0, 0.3, n_obs)
    true_logit = 2.5 - 1.2 * difficulty[:, None] + observer_skill[None, :]
    k = rng.binomial(n_trials, 1.0 / (1.0 + np.exp(-true_logit)))
    z = logit_accuracy(k, n_trials)
    values, reasons = glass_deltas(list(z[1:]), z[0])
    assert all(r == "" for r in reasons)
    assert np.all(np.diff(values) < 0)  # harder -> more negative OOD score, in planted order
    assert sps.spearmanr(difficulty[1:], values).statistic == pytest.approx(-1.0)


# ------------------------------------------------------------------------------------------- tests


def test_mannwhitney_hand_case_and_scipy():
    r = mannwhitney_vs_reference([1, 2, 3], [4, 5])
    # U = 0, mean 3, SD sqrt(3*2*6/12); continuity-corrected z = (3 - 0.5) / sqrt(3)
    assert r.statistic == 0.0
    assert r.p_value == pytest.approx(2 * sps.norm.sf(2.5 / np.sqrt(3)))
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 6, 9) / 5, rng.integers(0, 6, 7) / 5  # ties
    want = sps.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)
    got = mannwhitney_vs_reference(a, b)
    assert got.p_value == pytest.approx(want.pvalue) and got.statistic == want.statistic
    empty = mannwhitney_vs_reference([], [1, 2])
    assert np.isnan(empty.p_value) and empty.reason


def test_binomial_above_chance():
    k = np.array([0, 3, 10, 25, 40])
    n = np.array([40, 40, 40, 40, 40])
    got = binomial_above_chance(k, n, 1 / 16)
    want = [sps.binomtest(int(a), int(b), 1 / 16, alternative="greater").pvalue for a, b in zip(k, n)]
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert got[0] == 1.0
    assert np.isnan(binomial_above_chance(0, 0, 0.5))
    with pytest.raises(ValueError):
        binomial_above_chance(5, 4, 0.5)
    with pytest.raises(ValueError):
        binomial_above_chance(1, 4, 1.0)


def test_chance_flags():
    np.testing.assert_array_equal(chance_flags([0.001, 0.05, 0.2, np.nan], 0.05), [False, False, True, True])


def test_normality_tests_match_libraries():
    x = np.random.default_rng(4).normal(size=25)
    r = normality_tests(x)
    assert r.n == 25
    assert r.shapiro_p == pytest.approx(sps.shapiro(x).pvalue)
    assert r.dagostino_statistic == pytest.approx(sps.normaltest(x).statistic)
    assert r.lilliefors_p == pytest.approx(lilliefors(x)[1])
    assert (r.shapiro_reason, r.dagostino_reason, r.lilliefors_reason) == ("", "", "")
    f = r.to_frame()
    assert list(f["test"]) == ["shapiro", "dagostino", "lilliefors"] and f["p_value"].notna().all()


def test_normality_small_and_constant_samples():
    r = normality_tests([0.1, 0.5, 0.3, 0.9, np.nan])  # n = 4 after dropping NaN
    assert r.n == 4 and np.isfinite(r.shapiro_p) and np.isfinite(r.lilliefors_p)
    assert np.isnan(r.dagostino_p) and r.dagostino_reason == "needs n >= 8"
    r = normality_tests([0.5] * 10)
    assert np.isnan(r.shapiro_p) and r.shapiro_reason == REASON_CONSTANT
    assert r.lilliefors_reason == REASON_CONSTANT and r.dagostino_reason == REASON_CONSTANT
    r = normality_tests([1.0, 2.0])
    assert r.shapiro_reason == "needs n >= 3" and r.lilliefors_reason == "needs n >= 4"


# ----------------------------------------------------------------------------------------- regimes


def _three_clusters(seed=0, per=15):
    rng = np.random.default_rng(seed)
    truth = np.repeat([0, 1, 2], per)
    centres = np.array([0.0, -4.0, -9.0])
    return centres[truth] + rng.normal(0, 0.3, truth.size), truth


def test_regime_names_and_parameters():
    assert regime_names(2) == ("reference", "near-OOD")
    assert regime_names(6)[4:] == ("OOD-5", "OOD-6")
    np.testing.assert_array_equal(gmm_n_parameters([1, 2, 3]), [2, 5, 8])


def test_fit_regimes_bic_finds_planted_clusters_ordered_by_mean():
    x, truth = _three_clusters()
    perm = np.random.default_rng(1).permutation(x.size)
    fit = fit_regimes(x[perm], seed=3, n_init=8)
    assert fit.n_components == 3 and fit.criterion == "bic"
    assert fit.names == ("reference", "near-OOD", "far-OOD")
    np.testing.assert_array_equal(fit.labels, truth[perm])  # highest mean (~0) is 'reference'
    assert np.all(np.diff(fit.means) < 0)
    np.testing.assert_allclose(fit.means, [0, -4, -9], atol=0.3)
    np.testing.assert_allclose(fit.weights, 1 / 3, atol=1e-6)
    assert np.all(fit.stability == 1.0)
    assert int(np.nanargmin(fit.bic)) == 2
    # BIC by hand from the stored log-likelihood
    n = x.size
    np.testing.assert_allclose(fit.bic, -2 * fit.log_likelihood + fit.n_parameters * np.log(n))
    k = fit.n_parameters
    np.testing.assert_allclose(fit.aicc, -2 * fit.log_likelihood + 2 * k + 2 * k * (k + 1) / (n - k - 1))
    frame = fit.to_frame()
    assert set(frame["regime"]) == {"reference", "near-OOD", "far-OOD"}
    assert fit.criteria_frame()["chosen"].sum() == 1
    np.testing.assert_array_equal(fit.predict([0.1, -8.8, np.nan]), [0, 2, -1])


def test_fit_regimes_ascending_order_and_fixed_m():
    x, truth = _three_clusters(seed=2)
    asc = fit_regimes(-x, seed=0, n_init=5, order="ascending")
    np.testing.assert_array_equal(asc.labels, truth)
    fixed = fit_regimes(x, n_components=2, seed=0, n_init=5)
    assert fixed.n_components == 2 and fixed.criterion == "fixed" and fixed.names == ("reference", "near-OOD")
    assert np.all(fixed.labels[truth == 0] == 0) and np.all(fixed.labels[truth == 2] == 1)


def test_fit_regimes_aicc_skips_and_chooses_by_aicc():
    x = np.array([0.0, 0.1, -5.0, -5.1, -5.2, 0.05])
    fit = fit_regimes(x, criterion="aicc", seed=0, n_init=4)
    # n = 6: m = 2 has k = 5 and n - k - 1 = 0 -> skipped; only m = 1 is valid for AICc
    assert np.isnan(fit.aicc[1:]).all() and np.isfinite(fit.aicc[0])
    assert fit.n_components == 1 and fit.names == ("reference",)
    x, _ = _three_clusters(seed=5)
    fit = fit_regimes(x, criterion="aicc", seed=0, n_init=4)
    assert fit.n_components == fit.candidates[np.nanargmin(fit.aicc)]
    assert fit.criterion == "aicc"


def test_fit_regimes_nonfinite_scores_and_reproducibility():
    x, truth = _three_clusters(seed=3)
    x = x.copy()
    x[4] = np.nan
    a = fit_regimes(x, seed=7, n_init=5)
    b = fit_regimes(x, seed=7, n_init=5)
    assert a.labels[4] == -1 and np.isnan(a.stability[4]) and a.regimes[4] == ""
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.bic, b.bic)
    keep = np.arange(x.size) != 4
    np.testing.assert_array_equal(a.labels[keep], truth[keep])
    with pytest.raises(ValueError):
        fit_regimes([np.nan, np.nan])
    with pytest.raises(ValueError):
        fit_regimes([1.0, 1.0, 2.0], n_components=3)


def test_regime_stability_bootstrap():
    x, truth = _three_clusters(seed=0, per=10)
    x = np.append(x, -2.0)  # a condition half-way between reference and near-OOD
    fit = fit_regimes(x, n_components=3, seed=1, n_init=5)
    np.testing.assert_array_equal(fit.labels[:-1], truth)
    rng = np.random.default_rng(9)
    boot = x[None, :] + rng.normal(0, 0.6, size=(300, x.size))
    boot[0, 3] = np.nan
    res = regime_stability_bootstrap(boot, fit, n_init=4, seed=2)
    assert res.labels.shape == boot.shape and res.labels[0, 3] == -1
    assert res.n_valid[3] == 299 and res.n_valid[0] == 300
    assert np.all(res.stability[:-1] > 0.95)
    assert res.stability[-1] < 0.9  # the in-between condition switches regime
    # deterministic with a seed; identical resamples reproduce the original labels
    again = regime_stability_bootstrap(boot, fit, n_init=4, seed=2)
    np.testing.assert_array_equal(res.labels, again.labels)
    same = regime_stability_bootstrap(np.tile(x, (3, 1)), fit, n_init=3, seed=0)
    np.testing.assert_array_equal(same.labels, np.tile(fit.labels, (3, 1)))
    assert np.all(same.stability == 1.0)
    with pytest.raises(ValueError):
        regime_stability_bootstrap(boot[:, :5], fit)


def test_batched_em_reaches_sklearn_likelihood():
    """The vectorised EM of the bootstrap finds a fit at least as good as sklearn on the same data."""
    from humanlike.measures.ood.mixture_em import em_rows_in_threads

    rng = np.random.default_rng(8)
    x = np.concatenate([rng.normal(0, 1, 20), rng.normal(-3, 0.5, 15)])
    fit = fit_regimes(x, n_components=2, seed=0, n_init=10)
    mu0 = np.array([[[1.0, -1.0], [x[0], x[-1]]]])
    var0 = np.ones((1, 2, 2))
    w0 = np.full((1, 2, 2), 0.5)
    _, _, _, ll = em_rows_in_threads(x[None, :], np.ones((1, x.size), bool), mu0, var0, w0, 1e-6, 2000, 1e-10)
    assert ll.max() >= fit.log_likelihood[1] - 1e-4


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=30), st.lists(st.integers(0, 12), min_size=1, max_size=40),
       st.sampled_from([1, 3, 7, 12]))
def test_mannwhitney_equals_scipy_to_the_bit(x, y, scale):
    """Own asymptotic test (no scipy.stats import) = scipy.stats.mannwhitneyu, ties and all-tied samples included."""
    x, y = np.asarray(x, float) / scale, np.asarray(y, float) / scale
    want = sps.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic", use_continuity=True)
    got = mannwhitney_vs_reference(x, y)
    assert got.statistic == want.statistic
    np.testing.assert_array_equal(got.p_value, want.pvalue)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5000), st.floats(0.0, 1.0), st.sampled_from([1 / 16, 1 / 2, 1 / 10, 0.3]))
def test_binomial_above_chance_equals_scipy_binom_sf(n, share, chance):
    k = np.unique(np.round(np.array([0.0, share, 1.0, chance, 0.5 * share]) * n))
    got = binomial_above_chance(k, np.full(k.size, n), chance)
    want = sps.binom.sf(k - 1, n, chance)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
