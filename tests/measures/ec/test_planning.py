"""Planning: expected interval widths and power for error consistency under the copy model."""

import numpy as np
import pytest
from scipy import stats

from humanlike.measures.ec.planning import (
    CIWidthResult,
    PowerResult,
    expected_ec_ci_width,
    power_ec_difference,
    trials_for_ci_width,
    trials_for_power,
    unit_kappa_variance,
)


def test_analytic_width_hand_value():
    # a1 = a2 = 0.5, kappa = 0.5: cells 0.375/0.125/0.125/0.375, n Var = 0.75 (Fleiss-Cohen-Everitt)
    assert unit_kappa_variance(0.5, 0.5, 0.5) == pytest.approx(0.75)
    res = expected_ec_ci_width(80, 0.5, 0.5, 0.5, level=0.95)
    assert isinstance(res, CIWidthResult)
    assert res.width == pytest.approx(2 * stats.norm.ppf(0.975) * np.sqrt(0.75 / 80))


def test_width_falls_as_one_over_sqrt_n():
    n = np.array([100, 400, 1600])
    res = expected_ec_ci_width(n, 0.8, 0.75, 0.3)
    np.testing.assert_allclose(res.width[1:] / res.width[:-1], 0.5)
    sim = expected_ec_ci_width(n, 0.8, 0.75, 0.3, method="simulation", n_sim=4000, seed=1)
    np.testing.assert_allclose(sim.width[1:] / sim.width[:-1], 0.5, rtol=0.1)
    np.testing.assert_allclose(sim.width, res.width, rtol=0.1)
    frame = res.to_frame()
    assert len(frame) == 3 and {"n_trials", "width", "method"} <= set(frame.columns)


def test_width_vectorised_over_parameters():
    res = expected_ec_ci_width(200, [0.6, 0.9], 0.7, [0.2, -0.1])
    assert res.width.shape == (2,)
    assert res.width[0] == pytest.approx(expected_ec_ci_width(200, 0.6, 0.7, 0.2).width)
    with pytest.raises(ValueError):
        expected_ec_ci_width(200, 0.9, 0.2, 0.9)
    with pytest.raises(ValueError):
        expected_ec_ci_width(0, 0.5, 0.5, 0.1)


def test_trials_for_ci_width_inverts_width():
    target = 0.2
    n = trials_for_ci_width(target, 0.8, 0.75, 0.3)
    assert expected_ec_ci_width(n, 0.8, 0.75, 0.3).width <= target
    assert expected_ec_ci_width(n - 1, 0.8, 0.75, 0.3).width > target
    z = stats.norm.ppf(0.975)
    assert n == int(np.ceil(4 * z**2 * unit_kappa_variance(0.8, 0.75, 0.3) / target**2))
    with pytest.raises(ValueError):
        trials_for_ci_width(1e-4, 0.8, 0.75, 0.3, n_max=1000)


def test_power_increases_with_n():
    n = [50, 200, 800, 3200]
    analytic = power_ec_difference(n, 0.3, 0.15, 0.8, 0.75, 0.7, method="analytic")
    assert isinstance(analytic, PowerResult)
    assert np.all(np.diff(analytic.power) > 0) and analytic.power[-1] > 0.99
    sim = power_ec_difference(n, 0.3, 0.15, 0.8, 0.75, 0.7, n_sim=3000, seed=2)
    assert np.all(np.diff(sim.power) > 0)
    np.testing.assert_allclose(sim.power, analytic.power, atol=0.05)
    assert len(sim.to_frame()) == 4


def test_power_is_alpha_without_difference():
    analytic = power_ec_difference([100, 1000], 0.2, 0.2, 0.8, 0.75, 0.7, alpha=0.05, method="analytic")
    np.testing.assert_allclose(analytic.power, 0.05)
    sim = power_ec_difference([200, 800], 0.2, 0.2, 0.8, 0.75, 0.7, alpha=0.05, n_sim=4000, seed=3)
    assert np.all((sim.power > 0.03) & (sim.power < 0.08))


def test_trials_for_power():
    n = trials_for_power(0.8, 0.3, 0.15, 0.8, 0.75, 0.7)
    p = lambda m: power_ec_difference(m, 0.3, 0.15, 0.8, 0.75, 0.7, method="analytic").power  # noqa: E731
    assert p(n) >= 0.8 > p(n - 1)
    with pytest.raises(ValueError):
        trials_for_power(0.8, 0.2, 0.2, 0.8, 0.75, 0.7)
    with pytest.raises(ValueError):
        trials_for_power(0.01, 0.3, 0.15, 0.8, 0.75, 0.7)
