"""The single-pair EC interval (profile likelihood): properties, the acceptance identity, exact coverage."""

import itertools
import math

import numpy as np
import pytest

from humanlike.measures.ec.pair import bootstrap_pair
from humanlike.trials.simulate import simulate_copy_counts
from humanlike.measures.ec.metric import kappa
from humanlike.measures.ec.interval import (
    PSEUDO_COUNT, copy_model_tables, ec_profile_contains, ec_profile_coverage, ec_profile_interval,
)


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
    from humanlike.measures.ec.significance import kappa_standard_error
    a, b, c, d = 3000, 1000, 1000, 3000
    r = ec_profile_interval(a, b, c, d)
    se = kappa_standard_error(a, b, c, d)
    assert r.low == pytest.approx(r.estimate - 1.96 * se, abs=0.003)
    assert r.high == pytest.approx(r.estimate + 1.96 * se, abs=0.003)


def _profile_by_brute_force(counts, k, points=1201):
    """max over a dense (p1, p2) grid of the copy-model log-likelihood at kappa k (the definition)."""
    p = np.linspace(1e-4, 1 - 1e-4, points)
    p1, p2 = np.meshgrid(p, p, indexing="ij")
    p11 = p1 * p2 + k * (p1 * (1 - p2) + p2 * (1 - p1)) / 2
    cells = np.stack([p11, p1 - p11, p2 - p11, 1 - p1 - p2 + p11])
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = np.where((cells > 0).all(axis=0),
                      sum(n * np.log(np.where(q > 0, q, 1.0)) for n, q in zip(counts, cells)), -np.inf)
    return ll.max()


def test_end_points_match_a_brute_force_profile():
    # At each end point the deviance (dense-grid profile, pseudo-counted table) equals chi2_1(0.95) = 3.8415.
    counts = np.array([88, 4, 8, 0]) + PSEUDO_COUNT
    r = ec_profile_interval(88, 4, 8, 0)
    l_max = float(np.sum(counts * np.log(counts / counts.sum())))
    for end in (r.low, r.high):
        assert 2 * (l_max - _profile_by_brute_force(counts, float(end))) == pytest.approx(3.8415, abs=0.02)


def test_pseudo_count_keeps_the_estimate_inside_and_widens_the_side_of_an_empty_cell():
    small = ec_profile_interval(88, 4, 8, 0, pseudo_count=0.01)
    adjusted = ec_profile_interval(88, 4, 8, 0)
    assert adjusted.high > small.high  # no shared error: the upper end was too short (issue 11's hard cell)
    perfect = ec_profile_interval(90, 0, 0, 10)
    assert perfect.estimate == 1.0 and perfect.high == 1.0 and perfect.low < 1.0
    with pytest.raises(ValueError, match="pseudo_count"):
        ec_profile_interval(88, 4, 8, 0, pseudo_count=0.0)


def test_undefined_estimate_still_gives_an_honest_interval():
    r = ec_profile_interval(50, 0, 0, 0)
    assert np.isnan(r.estimate) and "constant" in r.reason
    assert r.high > 0.99 and -0.1 < r.low < 0.05  # never-erring observers allow any kappa in about [0, 1]


def test_bad_counts_rejected():
    with pytest.raises(ValueError, match="count 'b'"):
        ec_profile_interval(10, -1, 3, 4)
    with pytest.raises(ValueError, match="level"):
        ec_profile_interval(10, 1, 3, 4, level=1.5)
    with pytest.raises(ValueError, match="statistic"):
        ec_profile_contains(10, 1, 3, 4, 0.2, statistic="wald")


def test_acceptance_identity_on_random_tables():
    # contains(k0) from one fit == low <= k0 <= high from the bisection, also where the interval is widened
    # to reach the estimate and where the estimate is undefined; k0 near the ends and anywhere.
    rng = np.random.default_rng(3)
    n = rng.choice([3, 20, 50, 100, 400, 1600], 1500)
    tables = np.array([rng.multinomial(m, p) for m, p in zip(n, rng.dirichlet([1, .3, .3, .2], n.size))])
    tables = np.vstack([tables, [[50, 0, 0, 0], [0, 0, 0, 30], [0, 25, 25, 0], [88, 4, 8, 0]]])
    r = ec_profile_interval(*tables.T)
    widened = (r.estimate == r.low) | (r.estimate == r.high)
    assert widened.sum() > 20   # the extension is exercised
    anywhere = rng.uniform(-1, 1, len(tables))
    near_ends = np.where(rng.random(len(tables)) < 0.5, r.low, r.high) + rng.choice([-1, 1], len(tables)) * 1e-4
    for k0 in (anywhere, np.clip(near_ends, -1, 1), r.estimate):
        inside = (r.low <= k0) & (k0 <= r.high)
        contains = ec_profile_contains(*tables.T, k0)
        assert np.array_equal(contains, inside)   # NaN k0 (undefined estimate): neither


def test_exact_coverage_equals_brute_force_enumeration():
    # Every table of 12 trials, its multinomial probability, and the interval's own end points.
    n, k0, a1, a2 = 12, 0.3, 0.8, 0.7
    p11 = a1 * a2 + k0 * (a1 * (1 - a2) + a2 * (1 - a1)) / 2
    probs = [p11, a1 - p11, a2 - p11, 1 - a1 - a2 + p11]
    tables = np.array([t for t in itertools.product(range(n + 1), repeat=3) if sum(t) <= n])
    tables = np.column_stack([tables, n - tables.sum(axis=1)])
    weight = np.array([math.factorial(n) / math.prod(math.factorial(x) for x in t)
                       * math.prod(p ** x for p, x in zip(probs, t)) for t in tables])
    r = ec_profile_interval(*tables.T)
    brute = float(np.sum(weight * ((r.low <= k0) & (k0 <= r.high))))
    coverage, neglected = ec_profile_coverage(n, k0, a1, a2, threshold=1e-300)
    assert neglected < 1e-12 and len(copy_model_tables(n, k0, a1, a2, threshold=1e-300)[0]) == len(tables)
    assert coverage == pytest.approx(brute, abs=1e-12)
    assert 0.9 < coverage < 1.0


def test_hard_cell_default_holds_its_level_where_the_bootstrap_does_not():
    # Issue 11: 100 trials, accuracies 0.9 / 0.95, true EC 0.2 -> percentile/BCa cover ~83%.
    coverage, neglected = ec_profile_coverage(100, 0.2, 0.9, 0.95)
    assert 0.93 <= coverage <= 0.97 and neglected < 1e-8
    # The same by simulation (the library's interval on drawn tables): within Monte-Carlo error of exact.
    tables = simulate_copy_counts(100, 0.2, 0.9, 0.95, size=1500, seed=2024)
    r = ec_profile_interval(*tables.T)
    simulated = np.mean((r.low <= 0.2) & (0.2 <= r.high))
    assert abs(simulated - coverage) < 4 * np.sqrt(0.05 * 0.95 / 1500)
    # ... where the library's percentile and BCa bootstraps fall far short (the failure the issue reports).
    rng = np.random.default_rng(5)
    for method in ("percentile", "bca"):
        hits = 0
        for counts in tables[:300]:
            x = np.repeat([True, True, False, False], counts)
            y = np.repeat([True, False, True, False], counts)
            _, low, high, _ = bootstrap_pair(x, y, n_resamples=500, seed=rng, method=method)
            hits += low <= 0.2 <= high
        assert hits / 300 < 0.9, method
