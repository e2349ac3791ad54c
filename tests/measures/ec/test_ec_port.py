"""Error consistency on the one engine: the numbers of the pre-engine code, chunk- and selection-independent
intervals, the options that must change numbers, the kernel functions and the worked example (error overlap)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanlike
from humanlike.measures.ec.benchmark import run_benchmark
from humanlike.measures.ec.analysis import ec_design, error_consistency
from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS, select_trials
from humanlike.measures.pair_kernels import ErrorConsistencyKernel, ErrorOverlapKernel
from humanlike.measures.pairwise import PairAggregation
from humanlike.measures.ec import correctness_sums
from humanlike.measures.ec import metric as ec
from humanlike.resampling.engine import ResourceError, bootstrap
from humanlike.resampling.settings import ResamplingSettings

REFERENCE = json.loads((Path(__file__).resolve().parents[2] / "data" / "ec_reference.json").read_text())


def _values(name):
    return np.array([np.nan if v is None else v for v in REFERENCE[name]], dtype=float)


def _keys(summary):
    return ["|".join(k) for k in zip(summary["scope"], summary["group"], summary["metric"])]


def _rows(observer, kind, correct, experiment="e", condition="0"):
    """Trials of one observer from a correctness vector (labels alternate between two classes)."""
    correct = np.asarray(correct, dtype=bool)
    label = np.where(np.arange(correct.size) % 2 == 0, "cat", "dog")
    other = np.where(label == "cat", "dog", "cat")
    return pd.DataFrame({"observer": observer, "observer_kind": kind, "experiment": experiment,
                         "condition": condition, "item": [f"{condition}-{j}" for j in range(correct.size)],
                         "label": label, "response": np.where(correct, label, other), "correct": correct})


def _assert_estimates(summary, name):
    assert _keys(summary) == REFERENCE[name.split("/")[0] + "/keys"]
    np.testing.assert_allclose(summary["estimate"].to_numpy(), _values(name), rtol=0, atol=1e-12)


def _assert_within_mc_error(summary, name, resamples):
    """Interval ends agree with the old code's within Monte-Carlo error of two independent runs.

    An end of a 95% percentile interval from R resamples has a standard error of about
    sqrt(0.025 * 0.975 / R) / phi(1.96) = 0.06 sigma at R = 2000 (sigma: the bootstrap SD, ~width / 3.92);
    the difference of two runs sqrt(2) times that, ~0.022 width. Five of those bound every column, plus two
    steps of the lattice of an accuracy near 1 (0.002; e.g. 1/1280), where the normal approximation fails.
    """
    low, high = _values(name + "/ci_low"), _values(name + "/ci_high")
    width = high - low
    tolerance = 5 * np.sqrt(2) * np.sqrt(0.025 * 0.975 / resamples) / 0.0584 * width / 3.92
    for column, old in (("ci_low", low), ("ci_high", high)):
        new = summary[column].to_numpy()
        assert (np.isnan(new) == np.isnan(old)).all()
        ok = np.isnan(old) | (np.abs(new - old) <= tolerance + 0.002)
        assert ok.all(), summary.loc[~ok, ["scope", "group", "metric", column]]
    # no systematic shift: the mean difference is well inside its own error
    shift = np.nanmean(summary["ci_low"].to_numpy() - low)
    assert abs(shift) < 0.2 * np.nanmean(tolerance)


@pytest.fixture(scope="module")
def small_trials(demo_trials):
    keep = demo_trials["experiment"].isin(sorted(demo_trials["experiment"].unique())[:2])
    return demo_trials[keep]


# --- the numbers of the pre-engine code (tests/data/make_ec_reference.py at bd872ce) --------------------------

@pytest.mark.parametrize("policy", ["strict", "model-vs-human"])
def test_demo_estimates_identical_to_the_old_code(demo_trials, policy):
    _assert_estimates(error_consistency(demo_trials, settings=ResamplingSettings(n_resamples=0), policy=policy).summary_table, f"demo/{policy}")


def test_demo_intervals_within_monte_carlo_error_of_the_old_code(demo_trials):
    one = error_consistency(demo_trials, settings=ResamplingSettings(n_resamples=2000, seed=0)).summary_table
    _assert_within_mc_error(one, "demo/intervals", 2000)
    two = error_consistency(demo_trials, settings=ResamplingSettings(n_resamples=2000, seed=0,
                                                                     observer_level="bootstrap")).summary_table
    _assert_within_mc_error(two, "demo/intervals-two-level", 2000)


@pytest.mark.parametrize("policy", ["strict", "model-vs-human"])
def test_real_estimates_identical_to_the_old_code(mvh_trials, policy):
    bench = error_consistency(mvh_trials, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=ResamplingSettings(n_resamples=0), policy=policy)
    _assert_estimates(bench.summary_table, f"real-benchmark/{policy}")
    _assert_estimates(error_consistency(mvh_trials, settings=ResamplingSettings(n_resamples=0), policy=policy).summary_table,
                      f"real-all-conditions/{policy}")


def test_real_intervals_within_monte_carlo_error_of_the_old_code(mvh_trials):
    result = error_consistency(mvh_trials, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=ResamplingSettings(n_resamples=2000, seed=0))
    _assert_within_mc_error(result.summary_table, "real-benchmark/intervals", 2000)


# --- independence of chunking and selection -------------------------------------------------------------------

def test_intervals_do_not_depend_on_the_memory_budget(small_trials):
    wide = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=450, seed=4), pair_intervals=True)
    # chunks of whole blocks of 100 resamples (a smaller budget splits blocks, and the BLAS may then round the
    # rows at a matrix product's edge differently in the last bit: docs/uncertainty.md)
    narrow = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=450, seed=4, memory_budget=14 * 2**20), pair_intervals=True,
                               )
    design = ec_design(select_trials(small_trials))
    per_resample = sum(ErrorConsistencyKernel().bytes_per_resample(s) for s in design)
    assert 100 <= (14 * 2**20 - 8 * 450 * 600) // per_resample < 200   # really several chunks of one block
    np.testing.assert_array_equal(wide.resampled.replicates, narrow.resampled.replicates)
    np.testing.assert_array_equal(wide.pair_resampled.replicates, narrow.pair_resampled.replicates)


def test_one_experiment_alone_reproduces_its_rows_of_the_full_run(demo_trials):
    settings = ResamplingSettings(n_resamples=300, seed=2, observer_level="bootstrap")
    full = error_consistency(demo_trials, settings=settings)
    name = sorted(demo_trials["experiment"].unique())[1]
    alone = error_consistency(demo_trials, experiments=[name], settings=settings)
    part = full.resampled.where(scope=name)
    mine = alone.resampled.where(scope=name)
    assert part.labels == mine.labels
    np.testing.assert_array_equal(part.replicates, mine.replicates)
    np.testing.assert_array_equal(part.estimate, mine.estimate)
    # and through the benchmark entry point
    rows = run_benchmark(demo_trials, exclusions=None, settings=settings).rows
    alone_rows = run_benchmark(demo_trials, exclusions=None, settings=settings, experiments=[name]).rows
    pd.testing.assert_frame_equal(rows[rows.scope == name].reset_index(drop=True),
                                  alone_rows[alone_rows.scope == name].reset_index(drop=True))


def test_memory_stays_within_the_budget_as_models_grow():
    """Many models in one experiment: the budget sets the chunks; the numbers do not depend on it."""
    rng = np.random.default_rng(0)
    n_items, humans, models = 40, 4, 60
    skill = rng.normal(size=n_items)
    rows = []
    for k in range(humans + models):
        name, kind = (f"subject-{k:02d}", "human") if k < humans else (f"net-{k:03d}", "model")
        correct = rng.random(n_items) < 1 / (1 + np.exp(-(skill + rng.normal(0, 0.7, n_items))))
        rows.append(_rows(name, kind, correct, experiment="big"))
    trials = pd.concat(rows, ignore_index=True)
    design = ec_design(select_trials(trials))
    kernel = ErrorConsistencyKernel()
    stratum = design.strata[0]
    # the kernel reports what one resample costs, pairs included (2016 pairs here)
    assert kernel.bytes_per_resample(stratum) > 8 * 3 * 2016
    budget = 48 * 1024**2   # chunks of one block of 100 resamples
    assert 100 <= budget // kernel.bytes_per_resample(stratum) < 400
    result = error_consistency(trials, settings=ResamplingSettings(n_resamples=400, seed=1, memory_budget=budget))
    reference = error_consistency(trials, settings=ResamplingSettings(n_resamples=400, seed=1))
    np.testing.assert_array_equal(result.resampled.replicates, reference.resampled.replicates)
    # Kept replicates beyond the budget: a clear error, not a swap storm.
    with pytest.raises(ResourceError, match="GiB"):
        error_consistency(trials, settings=ResamplingSettings(n_resamples=400, seed=1, memory_budget=2**20), pair_intervals=True)


# --- options that must change numbers ------------------------------------------------------------------------

def test_observer_levels_change_what_they_should(small_trials):
    none = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=600, seed=0)).table("error_consistency").set_index("group")
    boot = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=600, seed=0, observer_level="bootstrap"))
    jack = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=600, seed=0, observer_level="jackknife"))
    boot_t = boot.table("error_consistency").set_index("group")
    jack_t = jack.table("error_consistency").set_index("group")
    width = lambda t: t["ci_high"] - t["ci_low"]  # noqa: E731
    assert width(boot_t)["humans"] > 1.1 * width(none)["humans"]
    assert width(jack_t)["humans"] > 1.1 * width(none)["humans"]
    np.testing.assert_array_equal(boot_t["estimate"], none["estimate"])
    # model-model pairs involve no human: no observer level touches them
    assert width(boot_t)["model-model"] == pytest.approx(width(none)["model-model"], abs=1e-12)
    assert boot.settings["observer_level"] == "bootstrap" and boot.settings["resample_observers"]


def test_policy_changes_undefined_pairs_only():
    rows = []
    for condition, (x, y) in {"easy": ([1] * 10, [1] * 10), "hard": ([1, 0] * 5, [1, 1, 0, 0, 1] * 2)}.items():
        for observer, kind, correct in (("subject-01", "human", x), ("net", "model", y)):
            rows.append(_rows(observer, kind, correct, condition=condition))
    trials = pd.concat(rows, ignore_index=True)
    strict = error_consistency(trials, settings=ResamplingSettings(n_resamples=300, seed=0), pair_intervals=True)
    mvh = error_consistency(trials, settings=ResamplingSettings(n_resamples=300, seed=0), policy="model-vs-human", pair_intervals=True)
    s, m = strict.table().set_index("group"), mvh.table().set_index("group")
    assert m.loc["net", "estimate"] > s.loc["net", "estimate"]
    # strict: resamples in which the easy condition's pair is undefined are reported, per pair and aggregate
    assert strict.pair_intervals["undefined_share"].iloc[0] == 0.0
    assert strict.pairs.set_index("condition").loc["easy", "reason"] == ec.REASON_BOTH_CONSTANT


def test_bca_pair_intervals_come_from_the_same_run(small_trials):
    bca = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=500, seed=0, interval="bca"), pair_intervals=True)
    pct = bca.pair_frame(method="percentile")
    pairs = bca.pair_intervals
    assert bca.pair_resampled.method == "bca" and bca.pair_resampled.jackknife is not None
    low, high = bca.pair_resampled.where(metric="error_consistency").interval(method="bca")
    np.testing.assert_array_equal(pairs["ci_low"], low)
    assert not np.allclose(pairs["ci_low"], pct["ci_low"])
    np.testing.assert_array_equal(pairs["error_consistency"], pct["error_consistency"])


def test_undefined_share_is_reported_and_warned():
    rows = []
    # Observers wrong only on item 0 of 12: a resample without item 0 makes every pair constant (kappa
    # undefined), which happens with probability (11/12)**12 = 0.352.
    for observer, kind in (("subject-01", "human"), ("subject-02", "human"), ("net", "model")):
        correct = np.ones(12, dtype=bool)
        correct[0] = False
        rows.append(_rows(observer, kind, correct))
    trials = pd.concat(rows, ignore_index=True)
    with pytest.warns(RuntimeWarning, match="undefined in more than"):
        result = error_consistency(trials, settings=ResamplingSettings(n_resamples=400, seed=0), pair_intervals=True)
    table = result.table().set_index("group")
    share = table["undefined_share"]
    assert share["net"] == pytest.approx((11 / 12) ** 12, abs=0.07)   # the model's mean over two pairs
    # The human-human "mean" is one 2x2 table (two humans, one condition): it carries that table's profile
    # interval, which has no undefined resamples (issue 22), as the pair does.
    assert table.loc["humans", "interval_method"] == "profile-likelihood" and np.isnan(share["humans"])
    # One condition: the pairs get the profile-likelihood interval by default (no resamples, so no undefined
    # share); with the bootstrap asked for, every pair reports its share of undefined resamples.
    assert (result.pair_intervals["interval_method"] == "profile-likelihood").all()
    assert result.pair_intervals["undefined_share"].isna().all()
    boot = result.pair_frame(pair_interval="bootstrap")
    np.testing.assert_allclose(boot["undefined_share"], share["net"])   # every pair undefined in the same resamples
    assert (boot["interval_method"] == "percentile bootstrap").all()


# --- settings, result shape, public names -----------------------------------------------------------------------

def test_settings_are_the_only_way_in(small_trials):
    settings = ResamplingSettings(n_resamples=100, level=0.9, seed=3, interval="bca", observer_level="bootstrap")
    a = error_consistency(small_trials, settings=settings)
    assert a.settings["seed"] == 3 and a.settings["memory_budget"] == settings.memory_budget
    with pytest.raises(TypeError, match="n_resamples"):
        error_consistency(small_trials, n_resamples=100)  # the older loose keywords are gone
    # a Generator seed becomes the integer it yields, recorded so the run can be repeated
    g = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=50, seed=np.random.default_rng(1)))
    again = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=50, seed=g.settings["seed"]))
    pd.testing.assert_frame_equal(g.summary_table, again.summary_table)


def test_result_shape_and_json(small_trials):
    result = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=200, seed=0), pair_intervals=True)
    frame = result.to_frame(level=0.8)
    assert list(frame.columns) == ["measure", "scope", "group", "kind", "metric", "estimate", "ci_low", "ci_high",
                                   "undefined_share", "reason", "n_pairs", "interval_method"]
    assert list(result.summary_table.columns[-7:]) == ["estimate", "ci_low", "ci_high", "n_pairs", "reason",
                                                 "undefined_share", "interval_method"]
    assert (frame["ci_high"] - frame["ci_low"] <= result.summary_table["ci_high"] - result.summary_table["ci_low"] + 1e-12).all()
    doc = result.to_json_dict()
    json.dumps(doc, allow_nan=False)
    assert set(doc["experiments"]) == set(small_trials["experiment"])
    name = sorted(doc["experiments"])[0]
    assert doc["experiments"][name]["human_human"]["n_pairs"] == 15
    assert len(doc["summary"]) == len(result.summary_table)


def test_public_names():
    for name in ("ResamplingSettings", "Resampled", "build_design", "error_consistency", "run_benchmark",
                 "ErrorConsistencyResult", "BenchmarkResult", "error_overlap"):
        assert hasattr(humanlike, name) and name in humanlike.__all__, name


# --- the kernel functions and the worked example -----------------------------------------------------------------

def test_kernel_statistics_reduce_to_the_2x2_formulas():
    rng = np.random.default_rng(5)
    correct = rng.random((30, 4)) < 0.6
    observed = rng.random((30, 4)) < 0.9
    for obs in (None, observed):
        stats, masked = correctness_sums.correctness_statistics(correct, obs)
        w = rng.integers(0, 3, size=(2, 30)).astype(np.float32)
        out = correctness_sums.consistency_from_sums(w @ stats, 4, masked)
        first, second = correctness_sums.pair_indices(4)
        for r in range(2):
            for p, (i, j) in enumerate(zip(first, second)):
                both = np.ones(30, bool) if obs is None else obs[:, i] & obs[:, j]
                reps = np.repeat(np.arange(30), w[r].astype(int))
                reps = reps[both[reps]]
                counts = ec.counts_from_correctness(correct[reps, i], correct[reps, j])
                assert out["error_consistency"][r, p] == pytest.approx(ec.kappa(*counts), abs=1e-12, nan_ok=True)
                a, b, c, d = counts
                assert out["observed_consistency"][r, p] == pytest.approx((a + d) / sum(counts))


def test_error_overlap_metric_and_kernel(small_trials):
    assert ec.error_overlap(5, 1, 2, 2) == pytest.approx(0.4)
    assert np.isnan(ec.error_overlap(5, 0, 0, 0))
    design = ec_design(select_trials(small_trials))
    kernel = ErrorOverlapKernel()
    aggregation = PairAggregation(design, kernel.measures)
    result = bootstrap(design, kernel, aggregation, aggregation.output, ResamplingSettings(n_resamples=300))
    # estimate: against the per-condition 2x2 counts of the pairs table
    pairs = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=0)).pairs
    pairs["overlap"] = ec.error_overlap(pairs.both_correct, pairs.only_1_correct, pairs.only_2_correct,
                                        pairs.both_wrong)
    exp = sorted(small_trials["experiment"].unique())[0]
    hh = pairs[(pairs.experiment == exp) & (pairs.pair_kind == "human-human")]
    expected = hh.groupby(["observer_1", "observer_2"])["overlap"].mean().mean()
    got = result.where(scope=exp, group="humans", metric="error_overlap")
    assert got.estimate[0] == pytest.approx(expected, abs=1e-12)
    low, high = got.interval()
    assert low[0] < expected < high[0]
    # humans' errors overlap more than the alien model's errors overlap with humans'
    alien = result.where(scope=exp, group="model-alien", metric="error_overlap").estimate[0]
    assert got.estimate[0] > alien


def test_warning_free_on_clean_data(small_trials):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        error_consistency(small_trials, settings=ResamplingSettings(n_resamples=100, seed=0))


def test_kendall_tau_rows_in_bounded_blocks():
    from scipy import stats as sps

    from humanlike.stats.ranking import kendall_tau_rows

    rng = np.random.default_rng(1)
    reference = rng.normal(size=15)
    rows = np.round(rng.normal(size=(40, 15)), 1)   # ties included
    blocked = kendall_tau_rows(reference, rows, memory_budget=2000)   # a few rows per block
    np.testing.assert_array_equal(blocked, kendall_tau_rows(reference, rows))
    expected = [sps.kendalltau(reference, r).statistic for r in rows]
    np.testing.assert_allclose(blocked, expected, atol=1e-12)


def test_pair_p_value_methods():
    from humanlike.measures.ec.analysis import pair_p_values
    from humanlike.measures.ec.significance import ec_test_exact

    # tables (a, b, c, d): a moderate one; observer 1 always right; observer 1 always wrong
    counts = np.array([[20, 10, 10, 10], [40, 20, 0, 0], [0, 0, 10, 20]], dtype=float).T
    exact = pair_p_values(counts, "exact")
    np.testing.assert_array_equal(exact, ec_test_exact(*counts).p_value)
    simulated = pair_p_values(counts, "beta-posterior", seed=1)
    assert 0.05 < simulated[0] < 0.6 and simulated[0] != exact[0]   # a different test of the same null
    published = pair_p_values(counts, "beta-posterior-published", seed=1)
    # an observer always right (table 2: k1 = n) or always wrong (table 3) has an improper published posterior
    assert np.isfinite(published[0]) and np.isnan(published[1:]).all()
    assert published[0] <= simulated[0] + 0.02   # ties no longer count as extreme
    with pytest.raises(ValueError, match="p_value must be one of"):
        pair_p_values(counts, "fisher")
