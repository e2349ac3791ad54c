"""Klein et al.'s copy model: hand-computed values, round trips, bounds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanlike.measures.ec.copy_model import (
    cell_probabilities,
    copy_probability_from_ec,
    ec_from_copy_probability,
    latent_accuracies,
    mismatch_factor,
)
from humanlike.measures.pairs.kappa_bounds import kappa_max, kappa_min
from humanlike.measures.pairs.metric import kappa


def test_equal_accuracies_give_kappa_equal_to_copy_probability():
    a = np.array([0.2, 0.5, 0.73, 0.9])
    np.testing.assert_allclose(mismatch_factor(a, a), 1.0)
    np.testing.assert_allclose(ec_from_copy_probability(0.35, a, a), 0.35)
    np.testing.assert_allclose(copy_probability_from_ec(0.35, a, a), 0.35)


def test_worked_example():
    # a1 = 0.8, a2 = 0.6: c_exp = 0.48 + 0.08 = 0.56, f = 2*0.8*0.2 / 0.44 = 0.32 / 0.44
    assert mismatch_factor(0.8, 0.6) == pytest.approx(0.32 / 0.44)
    assert ec_from_copy_probability(0.5, 0.8, 0.6) == pytest.approx(0.5 * 0.32 / 0.44)
    # kappa 0.3 -> c = 0.3 * 0.44 / 0.32 = 0.4125; u2 = (0.6 - 0.4125 * 0.8) / (1 - 0.4125)
    u1, u2, c = latent_accuracies(0.3, 0.8, 0.6)
    assert u1 == pytest.approx(0.8)
    assert c == pytest.approx(0.4125)
    assert u2 == pytest.approx(0.27 / 0.5875)
    # negative kappa -0.2 -> c = -0.275, u2 = (0.6 - 0.275 * 0.2) / 0.725
    u1, u2, c = latent_accuracies(-0.2, 0.8, 0.6)
    assert c == pytest.approx(-0.275)
    assert u2 == pytest.approx((0.6 - 0.275 * 0.2) / 0.725)


def test_constant_observer():
    assert np.isnan(copy_probability_from_ec(0.0, 1.0, 0.6))
    assert np.isnan(copy_probability_from_ec(0.0, 0.0, 0.6))
    assert mismatch_factor(1.0, 0.6) == 0.0
    assert np.isnan(mismatch_factor(1.0, 1.0))
    u1, u2, c = latent_accuracies(0.0, 1.0, 0.6)
    assert (u1, u2, c) == (1.0, 0.6, 0.0)
    with pytest.raises(ValueError):
        latent_accuracies(0.2, 1.0, 0.6)


def _implied_kappa(u1, u2, c):
    """Kappa of the process: copy (c >= 0) or invert (c < 0) with probability |c|, else Bernoulli(u2)."""
    ac = np.abs(c)
    p11 = np.where(c >= 0, u1 * (ac + (1 - ac) * u2), u1 * (1 - ac) * u2)
    p10 = u1 - p11
    p2 = np.where(c >= 0, ac * u1, ac * (1 - u1)) + (1 - ac) * u2
    p01 = p2 - p11
    p00 = 1 - p11 - p10 - p01
    return kappa(p11, p10, p01, p00), p2


@pytest.mark.parametrize("k,a1,a2", [(0.3, 0.8, 0.6), (-0.2, 0.8, 0.6), (0.5, 0.5, 0.7), (-0.4, 0.3, 0.4), (0.0, 0.9, 0.2)])
def test_latent_accuracies_reproduce_kappa_and_accuracies(k, a1, a2):
    u1, u2, c = latent_accuracies(k, a1, a2)
    kap, p2 = _implied_kappa(u1, u2, c)
    assert kap == pytest.approx(k, abs=1e-12)
    assert p2 == pytest.approx(a2, abs=1e-12)
    assert ec_from_copy_probability(c, a1, a2) == pytest.approx(k)


def test_vectorised_round_trip():
    a1 = np.linspace(0.1, 0.9, 9)
    a2 = a1[::-1]
    frac = np.linspace(-0.9, 0.9, 9)
    k = np.where(frac >= 0, frac * kappa_max(a1, a2), -frac * kappa_min(a1, a2))
    c = copy_probability_from_ec(k, a1, a2)
    np.testing.assert_allclose(ec_from_copy_probability(c, a1, a2), k, atol=1e-12)
    u1, u2, c2 = latent_accuracies(k, a1, a2)
    np.testing.assert_allclose(c2, c)
    assert np.all((u2 >= 0) & (u2 <= 1))
    kap, p2 = _implied_kappa(u1, u2, c2)
    np.testing.assert_allclose(kap, k, atol=1e-12)
    np.testing.assert_allclose(p2, a2, atol=1e-12)


def test_bounds_are_realisable_and_beyond_raise():
    a1, a2 = 0.7, 0.85
    hi, lo = float(kappa_max(a1, a2)), float(kappa_min(a1, a2))
    u1, u2, c = latent_accuracies(hi, a1, a2)
    assert 0 <= u2 <= 1 and abs(c) <= 1
    assert _implied_kappa(u1, u2, c)[0] == pytest.approx(hi)
    u1, u2, c = latent_accuracies(lo, a1, a2)
    assert _implied_kappa(u1, u2, c)[0] == pytest.approx(lo)
    with pytest.raises(ValueError, match="cannot be realised"):
        latent_accuracies(hi + 1e-3, a1, a2)
    with pytest.raises(ValueError, match="cannot be realised"):
        latent_accuracies([0.1, lo - 1e-3], a1, a2)
    with pytest.raises(ValueError):
        latent_accuracies(0.1, 1.2, 0.5)


def test_perfect_copy_and_inversion():
    u1, u2, c = latent_accuracies(1.0, 0.7, 0.7)
    assert c == pytest.approx(1.0) and 0 <= u2 <= 1
    u1, u2, c = latent_accuracies(float(kappa_min(0.3, 0.7)), 0.3, 0.7)
    assert c == pytest.approx(-1.0)


def test_cell_probabilities():
    cells = np.array(cell_probabilities(0.3, 0.8, 0.6))
    assert cells.sum() == pytest.approx(1.0)
    assert cells[0] + cells[1] == pytest.approx(0.8)
    assert cells[0] + cells[2] == pytest.approx(0.6)
    assert kappa(*cells) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        cell_probabilities(0.9, 0.8, 0.3)


@settings(max_examples=60, deadline=None)
@given(
    a1=st.floats(0.02, 0.98),
    a2=st.floats(0.02, 0.98),
    frac=st.floats(-1.0, 1.0),
)
def test_property_round_trip(a1, a2, frac):
    k = frac * kappa_max(a1, a2) if frac >= 0 else -frac * kappa_min(a1, a2)
    u1, u2, c = latent_accuracies(k, a1, a2)
    assert 0 <= u2 <= 1 and -1 <= c <= 1
    kap, p2 = _implied_kappa(u1, u2, c)
    if abs(c) < 1 - 1e-9:
        assert kap == pytest.approx(k, abs=1e-7)
        assert p2 == pytest.approx(a2, abs=1e-7)
