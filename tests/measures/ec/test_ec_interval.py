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
from humanlike.resampling.settings import ResamplingSettings


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


def _profile_by_optimiser(counts, k):
    """The profile log-likelihood at kappa ``k`` by a multi-start Nelder-Mead over both accuracies' logits."""
    from scipy.optimize import minimize

    def minus_loglik(z):
        p1, p2 = 1 / (1 + np.exp(-z[0])), 1 / (1 + np.exp(-z[1]))
        p11 = p1 * p2 * (1 - k) + 0.5 * k * (p1 + p2)
        q = np.array([p11, p1 - p11, p2 - p11, 1 - p1 - p2 + p11])
        return 1e300 if (q <= 0).any() else -float(np.sum(counts * np.log(q)))

    starts = itertools.product(np.linspace(-12, 12, 7), repeat=2)
    fits = [minimize(minus_loglik, s, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-13,
                                                                     "maxiter": 4000}) for s in starts]
    return -min(f.fun for f in fits)


@pytest.mark.parametrize("table", [
    [0, 7, 7, 0],                   # equal off-diagonal counts: the blend starts sit on a saddle (p1 = p2)
    [0, 100, 100, 0],
    [8203, 0, 142544, 849253],      # a million trials and an empty cell: a thin ridge the blends miss
    [517639, 0, 435911, 46450],
    [1, 0, 0, 0], [3, 0, 0, 3], [999998, 1, 1, 0], [7, 78, 9, 6],
])
def test_end_points_are_where_the_true_profile_deviance_reaches_chi2(table):
    # The deviance of the profile (max over both accuracies, found by brute force) is chi2_1(0.95) at each end
    # point that is not +-1 or the estimate itself. The per-table fits used to stop on a saddle or crawl along
    # a ridge and report 3.68 (0, 7, 7, 0) and 1.85 (the million-trial table) at their upper ends.
    counts = np.array(table) + PSEUDO_COUNT
    l_max = float(np.sum(counts * np.log(counts / counts.sum())))
    r = ec_profile_interval(*table)
    checked = 0
    for end in (float(r.low), float(r.high)):
        if abs(end) > 1 - 1e-9 or (np.isfinite(r.estimate) and abs(end - r.estimate) < 1e-12):
            continue
        assert 2 * (l_max - _profile_by_optimiser(counts, end)) == pytest.approx(3.841458820694124, abs=1e-5)
        checked += 1
    assert checked >= 1


def test_end_points_equal_a_bisection_of_the_acceptance_test_to_1e9():
    # Reference: 48 bisection steps (resolution 2**-47) on ec_profile_contains, the one-fit test of kappa = k0,
    # over random tables of 1 to 10**6 trials and the edge cases (no errors, all errors, empty cells).
    rng = np.random.default_rng(11)
    tables = [rng.multinomial(n, rng.dirichlet(rng.choice([0.2, 1.0, 5.0]) * np.ones(4)))
              for n in (1, 2, 3, 10, 100, 1000, 10**5, 10**6) for _ in range(25)]
    tables += [np.array(z) * n for n in (1, 7, 10**6) for z in itertools.product([0, 1], repeat=4) if sum(z)]
    tables = np.array(tables)
    r = ec_profile_interval(*tables.T)
    centre = np.asarray(kappa(*(tables + PSEUDO_COUNT).T), dtype=float)
    for side, got in ((-1.0, r.low), (1.0, r.high)):
        inside, outside = centre.copy(), np.full(len(tables), side)
        for _ in range(48):
            mid = 0.5 * (inside + outside)
            ok = ec_profile_contains(*tables.T, mid)
            inside, outside = np.where(ok, mid, inside), np.where(ok, outside, mid)
        reference = 0.5 * (inside + outside)
        with np.errstate(invalid="ignore"):   # widened to reach the estimate, as the interval is
            reference = np.where(side * (r.estimate - reference) > 0, r.estimate, reference)
        assert np.max(np.abs(got - reference)) < 1e-9


def test_level_changes_the_end_points_to_its_own_chi2_quantile():
    counts = np.array([86, 4, 9, 1]) + PSEUDO_COUNT
    l_max = float(np.sum(counts * np.log(counts / counts.sum())))
    wide, narrow = ec_profile_interval(86, 4, 9, 1), ec_profile_interval(86, 4, 9, 1, level=0.8)
    assert wide.low < narrow.low < narrow.high < wide.high
    for end in (narrow.low, narrow.high):   # chi2_1(0.8) = 1.6424
        assert 2 * (l_max - _profile_by_optimiser(counts, float(end))) == pytest.approx(1.642374, abs=1e-5)


def test_a_result_computes_its_single_table_profile_intervals_once_per_level(monkeypatch):
    # `humanlike ec` asks for the pair table once per experiment (JSON and text) and once more for the file;
    # each ask used to redo every single-table profile interval of every experiment.
    import humanlike.measures.ec.interval as ec_interval
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.trials.simulate import simulate_benchmark
    from humanlike.measures.ec.cli import format_ec

    result = error_consistency(simulate_benchmark(seed=0, n_humans=3, n_items=40), condition="0.10",
                               settings=ResamplingSettings(n_resamples=20, seed=0), pair_intervals=True)
    calls = []
    real = ec_interval.ec_profile_interval
    monkeypatch.setattr(ec_interval, "ec_profile_interval", lambda *a, **k: calls.append(k) or real(*a, **k))
    first = result.to_json_dict()
    format_ec(result)
    again = result.pair_intervals
    assert len(calls) == 1 and (again["interval_method"] == "profile-likelihood").all()
    assert first["experiments"] == result.to_json_dict()["experiments"]
    narrow = result.pair_frame(level=0.8)
    assert len(calls) == 2 and (narrow["ci_high"] - narrow["ci_low"] < again["ci_high"] - again["ci_low"]).all()


def _one_table_trials(cells, experiment="one-table", human="subject-01", model="model-a", condition="c1"):
    """A trial table of one human and one model on one condition whose 2x2 table is ``cells``."""
    import pandas as pd

    a, b, c, d = cells
    human_right = np.repeat([True, True, False, False], cells)   # observer 1: the human
    model_right = np.repeat([True, False, True, False], cells)
    items = [f"item-{i:03d}" for i in range(a + b + c + d)]
    frames = []
    for name, kind, right in ((human, "human", human_right), (model, "model", model_right)):
        label = np.where(np.arange(len(items)) % 2 == 0, "cat", "dog")
        frames.append(pd.DataFrame({"observer": name, "observer_kind": kind, "experiment": experiment,
                                    "condition": condition, "item": items, "label": label,
                                    "response": np.where(right, label, np.where(label == "cat", "dog", "cat"))}))
    trials = pd.concat(frames, ignore_index=True)
    trials["correct"] = trials["response"] == trials["label"]
    return trials


def test_an_aggregate_of_one_table_carries_that_tables_profile_interval():
    # One human, one model, one condition: the model-human "mean" is the pair's kappa, so it must carry the
    # pair's profile interval (coverage 0.966 in this few-errors cell), not a bootstrap one (0.83).
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.measures.ec.cli import format_ec

    cells = (86, 4, 9, 1)
    r = ec_profile_interval(*cells)
    result = error_consistency(_one_table_trials(cells), settings=ResamplingSettings(n_resamples=400, seed=0), pair_intervals=True)
    summary = result.summary_table.set_index(["scope", "group", "metric"])
    for scope in ("one-table", "overall"):
        row = summary.loc[(scope, "model-a", "error_consistency")]
        assert row["estimate"] == pytest.approx(float(r.estimate), abs=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((float(r.low), float(r.high)), abs=1e-12)
        assert row["interval_method"] == "profile-likelihood"
    pair = result.pair_intervals.iloc[0]
    doc = result.experiment_json_dict("one-table")["model_human"]["model-a"]
    assert (doc["ci_low"], doc["ci_high"]) == (pair["ci_low"], pair["ci_high"])
    assert f"[{float(r.low):.3f}, {float(r.high):.3f}]" in format_ec(result)
    # Other metrics (means of several things, or not kappa) keep the bootstrap; so does --pair-interval bootstrap.
    assert summary.loc[("one-table", "model-a", "observed_consistency"), "interval_method"] == "percentile bootstrap"
    boot = error_consistency(_one_table_trials(cells), settings=ResamplingSettings(n_resamples=400, seed=0), pair_intervals=True,
                             pair_interval="bootstrap").summary_table.set_index(["scope", "group", "metric"])
    row = boot.loc[("one-table", "model-a", "error_consistency")]
    assert row["interval_method"] == "percentile bootstrap" and row["ci_low"] != pytest.approx(float(r.low))


def test_an_aggregate_of_several_tables_keeps_the_bootstrap():
    # Two humans with the model in one condition: the model-human mean is over two tables (bootstrap); the
    # human-human group is one table (profile); overall the same, since there is one experiment.
    import pandas as pd
    from humanlike.measures.ec.analysis import error_consistency

    first = _one_table_trials((86, 4, 9, 1))
    second = _one_table_trials((80, 10, 6, 4), human="subject-02")
    second = second[second["observer"] == "subject-02"]
    result = error_consistency(pd.concat([first, second], ignore_index=True), settings=ResamplingSettings(n_resamples=300, seed=0))
    summary = result.summary_table.set_index(["scope", "group", "metric"])
    for scope in ("one-table", "overall"):
        assert summary.loc[(scope, "model-a", "error_consistency"), "interval_method"] == "percentile bootstrap"
        assert summary.loc[(scope, "humans", "error_consistency"), "interval_method"] == "profile-likelihood"
