"""The single-pair EC interval (profile likelihood): properties, hand cases, coverage in the hard cell."""

import numpy as np
import pytest

from humanlike.data.simulate import simulate_copy_counts
from humanlike.metrics.ec import kappa
from humanlike.stats.ec_interval import ec_profile_interval
from humanlike.analyses.ec_pair import bootstrap_pair


def test_contains_estimate_and_shrinks_with_trials():
    small = ec_profile_interval(86, 4, 9, 1)
    large = ec_profile_interval(860, 40, 90, 10)
    assert small.low < small.estimate < small.high
    assert small.estimate == pytest.approx(kappa(86, 4, 9, 1))
    assert large.high - large.low < 0.5 * (small.high - small.low)


def test_vectorised_equals_one_by_one_and_identical_tables_share_work():
    tables = np.array([[86, 4, 9, 1], [50, 20, 20, 10], [86, 4, 9, 1]])
    together = ec_profile_interval(*tables.T)
    for i, row in enumerate(tables):
        alone = ec_profile_interval(*row)
        assert together.low[i] == pytest.approx(alone.low, abs=1e-6)
        assert together.high[i] == pytest.approx(alone.high, abs=1e-6)
    assert together.low[0] == together.low[2]


def test_end_points_are_where_the_deviance_crosses_chi2():
    # Large balanced table: the LR interval is close to the Wald interval kappa +- 1.96 SE.
    from humanlike.stats.significance import kappa_standard_error
    a, b, c, d = 3000, 1000, 1000, 3000
    r = ec_profile_interval(a, b, c, d)
    se = kappa_standard_error(a, b, c, d)
    assert r.low == pytest.approx(r.estimate - 1.96 * se, abs=0.003)
    assert r.high == pytest.approx(r.estimate + 1.96 * se, abs=0.003)


def test_pseudo_count_keeps_the_estimate_inside_and_widens_the_side_of_an_empty_cell():
    raw = ec_profile_interval(88, 4, 8, 0, pseudo_count=0.0)
    adjusted = ec_profile_interval(88, 4, 8, 0)
    assert adjusted.high > raw.high  # no shared error: the upper end was too short (issue 11's hard cell)
    perfect = ec_profile_interval(90, 0, 0, 10)
    assert perfect.estimate == 1.0 and perfect.high == 1.0 and perfect.low < 1.0


def test_undefined_estimate_still_gives_an_honest_interval():
    r = ec_profile_interval(50, 0, 0, 0)
    assert np.isnan(r.estimate) and "constant" in r.reason
    assert r.high > 0.99 and -0.1 < r.low < 0.05  # never-erring observers allow any kappa in about [0, 1]


def test_bad_counts_rejected():
    with pytest.raises(ValueError, match="count 'b'"):
        ec_profile_interval(10, -1, 3, 4)
    with pytest.raises(ValueError, match="level"):
        ec_profile_interval(10, 1, 3, 4, level=1.5)


def test_default_interval_holds_its_level_in_the_hard_cell():
    # Issue 11: 100 trials, accuracies 0.9 / 0.95, true EC 0.2 -> percentile/BCa cover ~83%.
    tables = simulate_copy_counts(100, 0.2, 0.9, 0.95, size=800, seed=2024)
    r = ec_profile_interval(*tables.T)
    coverage = np.mean((r.low <= 0.2) & (0.2 <= r.high))
    assert 0.93 <= coverage <= 0.975, coverage
    # ... where the library's percentile bootstrap does not (the failure the issue reports).
    hits = 0
    rng = np.random.default_rng(5)
    for counts in tables[:300]:
        x = np.repeat([True, True, False, False], counts)
        y = np.repeat([True, False, True, False], counts)
        _, low, high, _ = bootstrap_pair(x, y, n_resamples=500, seed=rng)
        hits += low <= 0.2 <= high
    assert hits / 300 < 0.9
