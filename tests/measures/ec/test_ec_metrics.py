"""Error-consistency formulas against hand-computed values (METHODS.md §1) and invariants."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanlike.measures.pairs import kappa_bounds
from humanlike.measures.pairs import metric as ec


def test_kappa_hand_computed():
    # a=10, b=2, c=3, d=5: n=20, p1=0.6, p2=0.65, c_obs=0.75, c_exp=0.39+0.14=0.53, kappa=0.22/0.47
    assert ec.kappa(10, 2, 3, 5) == pytest.approx(0.22 / 0.47)
    assert ec.observed_agreement(10, 2, 3, 5) == pytest.approx(0.75)
    assert ec.expected_agreement(0.6, 0.65) == pytest.approx(0.53)
    # closed form 2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d))
    assert ec.kappa(10, 2, 3, 5) == pytest.approx(2 * (50 - 6) / (12 * 7 + 13 * 8))


def test_kappa_perfect_and_opposite():
    assert ec.kappa(5, 0, 0, 5) == pytest.approx(1.0)
    assert ec.kappa(0, 5, 5, 0) == pytest.approx(-1.0)
    # independent by construction: p1 = p2 = 0.5, a = n/4
    assert ec.kappa(5, 5, 5, 5) == pytest.approx(0.0)


def test_undefined_policies():
    # both observers always right: expected agreement 1
    assert np.isnan(ec.kappa(10, 0, 0, 0))
    assert ec.kappa(10, 0, 0, 0, policy="model-vs-human") == 1.0
    assert np.isnan(ec.kappa(0, 0, 0, 10))  # both always wrong
    assert ec.kappa(0, 0, 0, 10, policy="model-vs-human") == 1.0
    # one right on everything, the other always wrong: c_obs = 0, c_exp = 0
    assert ec.kappa(0, 10, 0, 0) == pytest.approx(-0.0)
    assert ec.kappa(0, 10, 0, 0, policy="model-vs-human") == pytest.approx(0.0)
    # exactly one constant observer gives 0
    assert ec.kappa(6, 4, 0, 0) == pytest.approx(0.0)
    assert ec.kappa(6, 4, 0, 0, policy="model-vs-human") == pytest.approx(0.0)
    assert ec.kappa_reason(10, 0, 0, 0) == ec.REASON_BOTH_CONSTANT
    assert ec.kappa_reason(6, 4, 0, 0) == ""
    with pytest.raises(ValueError):
        ec.kappa(0, 0, 0, 0)


def test_counts_and_margins_form_matches():
    a, b, c, d = 31, 7, 12, 50
    assert ec.kappa_from_counts_and_margins(a, a + b, a + c, a + b + c + d) == pytest.approx(ec.kappa(a, b, c, d))


def test_bias_corrected_kappa():
    assert ec.bias_corrected_kappa(0.5, 100) == pytest.approx(100 * 0.5 / (99 + 0.5))
    assert ec.bias_corrected_kappa(1.0, 50) == pytest.approx(1.0)
    assert ec.bias_corrected_kappa(0.0, 50) == pytest.approx(0.0)


def _brute_force_bounds(p1, p2, n=200):
    """Enumerate every 2x2 table with the given margins; return min and max kappa."""
    k1, k2 = round(p1 * n), round(p2 * n)
    values = []
    for a in range(max(0, k1 + k2 - n), min(k1, k2) + 1):
        values.append(ec.kappa(a, k1 - a, k2 - a, n - k1 - k2 + a))
    return min(values), max(values)


@pytest.mark.parametrize("p1,p2", [(0.6, 0.8), (0.3, 0.9), (0.5, 0.5), (0.2, 0.35), (0.9, 0.95), (0.7, 0.25)])
def test_kappa_bounds_closed_form_match_enumeration(p1, p2):
    low, high = _brute_force_bounds(p1, p2)
    assert kappa_bounds.kappa_max(p1, p2) == pytest.approx(high, abs=1e-9)
    assert kappa_bounds.kappa_min(p1, p2) == pytest.approx(low, abs=1e-9)


def test_kappa_max_hand_value():
    # a1=0.6 <= a2=0.8: 2*0.6*0.2 / (0.6*0.2 + 0.8*0.4) = 0.24/0.44
    assert kappa_bounds.kappa_max(0.6, 0.8) == pytest.approx(0.24 / 0.44)
    assert kappa_bounds.kappa_max(0.7, 0.7) == pytest.approx(1.0)
    assert kappa_bounds.kappa_max(1.0, 0.7) == 0.0  # one constant observer
    assert np.isnan(kappa_bounds.kappa_max(1.0, 1.0))


def test_accuracy_difference_bound_and_inverse():
    assert kappa_bounds.kappa_bound_from_accuracy_difference(0.0) == 1.0
    assert kappa_bounds.kappa_bound_from_accuracy_difference(0.2) == pytest.approx(0.64 / 1.04)
    assert kappa_bounds.kappa_bound_from_accuracy_difference(1.0) == 0.0
    for d in (0.05, 0.1, 0.3, 0.6):
        k = kappa_bounds.kappa_bound_from_accuracy_difference(d)
        assert kappa_bounds.accuracy_difference_bound_from_kappa(k) == pytest.approx(d)
    assert kappa_bounds.accuracy_difference_bound_from_kappa(1.0) == 0.0
    assert kappa_bounds.accuracy_difference_bound_from_kappa(-0.2) == 1.0
    with pytest.raises(ValueError):
        kappa_bounds.kappa_bound_from_accuracy_difference(1.5)


def test_accuracy_range_given_kappa():
    low, high = kappa_bounds.accuracy_range_given_kappa(0.5, 0.7)
    assert low < 0.7 < high
    # at the edges kappa_max equals the requested kappa
    assert kappa_bounds.kappa_max(0.7, low) == pytest.approx(0.5, abs=1e-3)
    assert kappa_bounds.kappa_max(0.7, high) == pytest.approx(0.5, abs=1e-3)
    # and the difference bound holds
    assert high - 0.7 <= kappa_bounds.accuracy_difference_bound_from_kappa(0.5) + 1e-6


def test_counts_from_correctness():
    x = [1, 1, 0, 0, 1]
    y = [1, 0, 1, 0, 1]
    assert ec.counts_from_correctness(x, y) == (2, 1, 1, 1)
    with pytest.raises(ValueError):
        ec.counts_from_correctness([1, 0], [1])


tables = st.tuples(*[st.integers(0, 60)] * 4).filter(lambda t: sum(t) > 0)


@given(tables)
@settings(max_examples=300, deadline=None)
def test_kappa_symmetric_and_bounded(t):
    a, b, c, d = t
    k = ec.kappa(a, b, c, d)
    assert np.array_equal(np.isnan(k), np.isnan(ec.kappa(a, c, b, d)))
    if np.isnan(k):
        p1, p2 = ec.accuracies(a, b, c, d)
        assert p1 in (0, 1) and p2 in (0, 1)
        return
    assert k == pytest.approx(ec.kappa(a, c, b, d))  # observer order does not matter
    assert -1 - 1e-12 <= k <= 1 + 1e-12
    p1, p2 = ec.accuracies(a, b, c, d)
    assert k <= kappa_bounds.kappa_max(p1, p2) + 1e-9
    assert k >= kappa_bounds.kappa_min(p1, p2) - 1e-9
    assert k <= kappa_bounds.kappa_bound_from_accuracy_difference(p1 - p2) + 1e-9


@given(tables)
@settings(max_examples=200, deadline=None)
def test_kappa_invariant_to_trial_order(t):
    a, b, c, d = t
    x = np.array([1] * a + [1] * b + [0] * c + [0] * d, dtype=bool)
    y = np.array([1] * a + [0] * b + [1] * c + [0] * d, dtype=bool)
    perm = np.random.default_rng(sum(t)).permutation(x.size)
    assert ec.counts_from_correctness(x[perm], y[perm]) == (a, b, c, d)


def test_vectorised_equals_scalar():
    grid = np.array(list(itertools.product(range(0, 6), repeat=4)))
    grid = grid[grid.sum(axis=1) > 0]
    vec = ec.kappa(*grid.T)
    scalar = np.array([ec.kappa(*row) for row in grid])
    assert np.array_equal(np.isnan(vec), np.isnan(scalar))
    assert np.allclose(vec[~np.isnan(vec)], scalar[~np.isnan(scalar)])
