import numpy as np
import pytest
from scipy import stats

from humanlike.measures.dmc.planning import (
    accuracy_correlation_vs_observers,
    item_accuracy_interval,
    trials_for_tolerance,
    within_tolerance_probability,
)


def _brute_within(p, t, tol):
    k = np.arange(t + 1)
    keep = np.abs(k / t - p) <= tol + 1e-12
    return stats.binom.pmf(k[keep], t, p).sum()


def test_item_accuracy_interval_hand_values():
    low, high = item_accuracy_interval(0.5, 20)
    assert (low, high) == (0.3, 0.7)  # binom.ppf(0.025, 20, .5) = 6, binom.ppf(0.975, 20, .5) = 14
    low, high = item_accuracy_interval([0.0, 1.0], [10, 10])
    np.testing.assert_array_equal(low, [0.0, 1.0])
    np.testing.assert_array_equal(high, [0.0, 1.0])


def test_item_accuracy_interval_covers_level():
    p = np.linspace(0.05, 0.95, 19)[:, None]
    t = np.array([5, 12, 40, 100])[None, :]
    low, high = item_accuracy_interval(p, t, level=0.9)
    assert low.shape == (19, 4)
    cover = stats.binom.cdf(np.round(high * t), t, p) - stats.binom.cdf(np.round(low * t) - 1, t, p)
    assert np.all(cover >= 0.9 - 1e-12)
    assert np.all(low <= p) and np.all(high >= p)
    with pytest.raises(ValueError):
        item_accuracy_interval(0.5, 0)


@pytest.mark.parametrize("p, t, tol", [(0.5, 10, 0.1), (0.3, 10, 0.1), (0.7, 33, 0.05), (0.9, 7, 0.2)])
def test_within_tolerance_probability_brute_force(p, t, tol):
    assert within_tolerance_probability(p, t, tol) == pytest.approx(_brute_within(p, t, tol), abs=1e-12)


@pytest.mark.parametrize("p, tol, prob", [(0.5, 0.1, 0.95), (0.8, 0.05, 0.9), (0.95, 0.03, 0.95)])
def test_trials_for_tolerance_is_the_smallest(p, tol, prob):
    t = trials_for_tolerance(p, tol, prob)
    assert isinstance(t, int)
    assert _brute_within(p, t, tol) >= prob
    assert all(_brute_within(p, s, tol) < prob for s in range(1, t))


def test_trials_for_tolerance_vectorised_and_errors():
    out = trials_for_tolerance([0.0, 0.5, 1.0], 0.1)
    assert out.tolist()[0] == 1 and out.tolist()[2] == 1 and out[1] > 50
    # Normal approximation (1.96^2 * 0.25 / 0.01^2 = 9604) is close to the exact answer.
    assert abs(trials_for_tolerance(0.5, 0.01) - 9604) < 200
    with pytest.raises(ValueError, match="true accuracy 0.5"):
        trials_for_tolerance(0.5, 0.01, max_trials=100)
    with pytest.raises(ValueError):
        trials_for_tolerance(0.5, 0.0)


def test_correlation_vs_observers_explicit_truth():
    rng = np.random.default_rng(0)
    truth = rng.uniform(0.2, 0.95, 300)
    res = accuracy_correlation_vs_observers(truth, [1, 3, 10, 40], n_sim=150, seed=1)
    assert np.all(np.diff(res.mean_corr_truth) > 0)
    np.testing.assert_allclose(res.mean_corr_truth, res.expected_corr_truth, atol=0.02)
    # sqrt(split-half Spearman-Brown) estimates corr(estimate, truth); undefined for one observer.
    assert np.isnan(res.mean_split_half[0]) and "2 observers" in res.reasons[0]
    np.testing.assert_allclose(res.sqrt_split_half[1:], res.mean_corr_truth[1:], atol=0.03)
    np.testing.assert_allclose(res.mean_split_half[1:], res.expected_reliability[1:], atol=0.04)
    frame = res.to_frame()
    assert frame.shape[0] == 4 and list(frame["n_observers"]) == [1, 3, 10, 40]
    again = accuracy_correlation_vs_observers(truth, [1, 3, 10, 40], n_sim=150, seed=1)
    np.testing.assert_array_equal(again.mean_corr_truth, res.mean_corr_truth)


@pytest.mark.parametrize("spec", [("uniform", 0.3, 1.0), ("beta", 5.0, 2.0)])
def test_correlation_vs_observers_distribution_specs(spec):
    res = accuracy_correlation_vs_observers(spec, [4, 16], trials_per_observer=2, n_items=200, n_sim=100, seed=2)
    np.testing.assert_allclose(res.mean_corr_truth, res.expected_corr_truth, atol=0.03)
    np.testing.assert_allclose(res.sqrt_split_half, res.mean_corr_truth, atol=0.03)
    assert res.n_items == 200 and res.trials_per_observer == 2


def test_correlation_vs_observers_bad_input():
    with pytest.raises(ValueError, match="n_items"):
        accuracy_correlation_vs_observers(("uniform", 0.2, 0.9), [2])
    with pytest.raises(ValueError, match="unknown distribution"):
        accuracy_correlation_vs_observers(("normal", 0.5, 0.1), [2], n_items=10)
    with pytest.raises(ValueError, match="lo < hi"):
        accuracy_correlation_vs_observers(("uniform", 0.9, 0.2), [2], n_items=10)
    with pytest.raises(ValueError, match="all equal"):
        accuracy_correlation_vs_observers(np.full(10, 0.5), [2])
    with pytest.raises(ValueError, match="n_observers"):
        accuracy_correlation_vs_observers(np.linspace(0.1, 0.9, 10), [0])
