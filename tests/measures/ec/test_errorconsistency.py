"""The EC pipeline: aggregation against an independent loop, invariances, intervals, real data."""

import itertools

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.ec.benchmark import run_benchmark
from humanlike.measures.ec.analysis import error_consistency
from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS, apply_exclusions, exclusions_table
from humanlike.trials.schema import TrialTableError
from humanlike.trials.simulate import simulate_copy_pair
from humanlike.measures.ec import metric as ec
from humanlike.resampling.settings import ResamplingSettings


def _trials_from_correctness(observer, kind, condition, correct, experiment="e"):
    correct = np.asarray(correct, dtype=bool)
    label = np.where(np.arange(correct.size) % 2 == 0, "cat", "dog")
    other = np.where(label == "cat", "dog", "cat")
    return pd.DataFrame({
        "observer": observer, "observer_kind": kind, "experiment": experiment, "condition": condition,
        "item": [f"{condition}{i}" for i in range(correct.size)], "label": label,
        "response": np.where(correct, label, other), "correct": correct})


def _reference_rows(trials, policy="strict"):
    """Benchmark aggregation written as plain loops: condition -> pair -> humans -> experiments."""
    per_exp = {}
    for experiment, rows in trials.groupby("experiment"):
        humans = sorted(rows.loc[rows.observer_kind == "human", "observer"].unique())
        models = sorted(rows.loc[rows.observer_kind == "model", "observer"].unique())

        def pair_mean(o1, o2):
            values = []
            for _, cond in rows.groupby("condition"):
                x = cond[cond.observer == o1].set_index("item")["correct"]
                y = cond[cond.observer == o2].set_index("item")["correct"].reindex(x.index)
                values.append(ec.kappa(*ec.counts_from_correctness(x, y), policy=policy))
            return np.nanmean(values)

        entry = {"humans": np.nanmean([pair_mean(a, b) for a, b in itertools.combinations(humans, 2)])}
        for m in models:
            entry[m] = np.nanmean([pair_mean(m, h) for h in humans])
        per_exp[experiment] = entry
    frame = pd.DataFrame(per_exp)
    return frame.mean(axis=1), frame


@pytest.fixture(scope="module")
def small_trials(demo_trials):
    keep = demo_trials["experiment"].isin(sorted(demo_trials["experiment"].unique())[:2])
    return demo_trials[keep]


def test_point_estimates_match_reference_loop(small_trials):
    result = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=0))
    overall, per_exp = _reference_rows(small_trials)
    table = result.table("error_consistency").set_index("group")["estimate"]
    for group, value in overall.items():
        assert table[group] == pytest.approx(value, abs=1e-12)
    for experiment in per_exp.columns:
        t = result.table("error_consistency", scope=experiment).set_index("group")["estimate"]
        for group, value in per_exp[experiment].items():
            assert t[group] == pytest.approx(value, abs=1e-12)


def test_pairs_table_counts_and_pvalues(small_trials):
    result = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=0))
    pairs = result.pairs
    total = pairs[["both_correct", "only_1_correct", "only_2_correct", "both_wrong"]].sum(axis=1)
    n_items = small_trials.groupby(["experiment", "condition"])["item"].nunique()
    assert (total.to_numpy() == n_items.loc[list(zip(pairs.experiment, pairs.condition))].to_numpy()).all()
    assert pairs["p_value"].between(0, 1).all()
    assert set(pairs["pair_kind"]) == {"human-human", "model-human", "model-model"}


def test_invariant_to_row_and_observer_order(small_trials):
    base = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=200, seed=3)).summary_table
    shuffled = small_trials.sample(frac=1.0, random_state=1)
    again = error_consistency(shuffled, settings=ResamplingSettings(n_resamples=200, seed=3)).summary_table
    pd.testing.assert_frame_equal(base, again)
    # renaming observers changes their order; the estimates for each group stay the same
    renamed = small_trials.assign(observer=small_trials["observer"].map(
        lambda o: ("zz-" + o) if o.startswith("subject") else o))
    point_a = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=0)).table("error_consistency")
    point_b = error_consistency(renamed, settings=ResamplingSettings(n_resamples=0)).table("error_consistency")
    assert np.allclose(point_a["estimate"], point_b["estimate"])


def test_same_seed_same_numbers(small_trials):
    a = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=300, seed=5)).summary_table
    b = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=300, seed=5)).summary_table
    c = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=300, seed=6)).summary_table
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"], equal_nan=True)


def test_intervals_contain_estimates_and_two_level_is_wider(small_trials):
    one = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=1000, seed=0)).table("error_consistency")
    two = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=1000, seed=0, observer_level="bootstrap")).table("error_consistency")
    assert (one["ci_low"] <= one["estimate"]).all() and (one["estimate"] <= one["ci_high"]).all()
    width_one = (one["ci_high"] - one["ci_low"]).set_axis(one["group"])
    width_two = (two["ci_high"] - two["ci_low"]).set_axis(two["group"])
    assert width_two["humans"] > width_one["humans"]
    assert (width_two.drop("model-model") >= 0.9 * width_one.drop("model-model")).all()


def test_bca_runs_and_is_close_to_percentile(small_trials):
    p = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=1000, seed=0)).table("error_consistency")
    b = error_consistency(small_trials, settings=ResamplingSettings(n_resamples=1000, seed=0, interval="bca")).table("error_consistency")
    assert np.allclose(p["estimate"], b["estimate"])
    assert np.allclose(p["ci_low"], b["ci_low"], atol=0.02)
    assert np.allclose(p["ci_high"], b["ci_high"], atol=0.02)


def test_planted_copy_model_recovered_by_pipeline():
    # one human and one model per condition, EC planted by the copy model
    rows = []
    for k, condition in enumerate(["a", "b", "c"]):
        x, y = simulate_copy_pair(2000, 0.4, 0.7, 0.7, seed=k)
        for observer, kind, correct in (("subject-01", "human", x), ("net", "model", y)):
            rows.append(_trials_from_correctness(observer, kind, condition, correct))
    trials = pd.concat(rows)
    table = error_consistency(trials, settings=ResamplingSettings(n_resamples=500, seed=0)).table("error_consistency").set_index("group")
    assert table.loc["net", "estimate"] == pytest.approx(0.4, abs=0.04)
    assert table.loc["net", "ci_low"] < 0.4 < table.loc["net", "ci_high"]


def test_undefined_pairs_follow_policy():
    # a condition where both observers are perfect: strict skips it, model-vs-human counts it as 1
    rows = []
    for condition, (x, y) in {"easy": ([1] * 10, [1] * 10), "hard": ([1, 0] * 5, [1, 1, 0, 0, 1] * 2)}.items():
        for observer, kind, correct in (("subject-01", "human", x), ("net", "model", y)):
            rows.append(_trials_from_correctness(observer, kind, condition, correct))
    trials = pd.concat(rows)
    hard = ec.kappa(*ec.counts_from_correctness([1, 0] * 5, [1, 1, 0, 0, 1] * 2))
    strict = error_consistency(trials, settings=ResamplingSettings(n_resamples=0)).table("error_consistency").set_index("group")
    mvh = error_consistency(trials, settings=ResamplingSettings(n_resamples=0), policy="model-vs-human").table("error_consistency").set_index("group")
    assert strict.loc["net", "estimate"] == pytest.approx(hard)
    assert mvh.loc["net", "estimate"] == pytest.approx((hard + 1) / 2)
    # the undefined pair says why, and a group without pairs says so instead of a silent NaN
    pairs = error_consistency(trials, settings=ResamplingSettings(n_resamples=0)).pairs.set_index("condition")
    assert np.isnan(pairs.loc["easy", "error_consistency"])
    assert pairs.loc["easy", "reason"] == ec.REASON_BOTH_CONSTANT
    assert pairs.loc["hard", "reason"] == ""
    assert np.isnan(strict.loc["humans", "estimate"])
    assert strict.loc["humans", "reason"] == "no pairs of this kind"


def test_filters_and_errors(small_trials):
    experiment = small_trials["experiment"].iloc[0]
    condition = small_trials.loc[small_trials["experiment"] == experiment, "condition"].iloc[0]
    result = error_consistency(small_trials, experiments=[experiment], condition=condition,
                               settings=ResamplingSettings(n_resamples=50), pair_intervals=True)
    assert set(result.pairs["condition"]) == {condition}
    assert (result.pair_intervals["ci_low"] <= result.pair_intervals["error_consistency"] + 1e-12).all()
    with pytest.raises(TrialTableError, match="unknown experiment"):
        error_consistency(small_trials, experiments=["nope"], settings=ResamplingSettings(n_resamples=0))
    with pytest.raises(TrialTableError, match="condition 'zzz' not found"):
        error_consistency(small_trials, condition="zzz", settings=ResamplingSettings(n_resamples=0))
    with pytest.raises(ValueError, match="interval"):
        error_consistency(small_trials, settings=ResamplingSettings(interval="studentised", n_resamples=0))


def test_ranking_stability_fields(demo_trials):
    result = run_benchmark(demo_trials, exclusions=None, settings=ResamplingSettings(n_resamples=500, seed=0))
    r = result.ranking
    assert r is not None
    assert r.probability_best.sum() == pytest.approx(1.0)
    assert (r.rank_low <= r.rank).all() and (r.rank <= r.rank_high).all()
    assert -1 <= r.tau_low <= r.tau_mean <= r.tau_high <= 1
    assert r.to_frame().iloc[0]["observer"] == "model-humanlike"


# --- the real model-vs-human data ---------------------------------------------------------------------

def test_exclusion_table_matches_the_data(mvh_trials):
    table = exclusions_table()
    present = mvh_trials.groupby("experiment")["condition"].apply(set)
    for row in table.itertuples():
        assert row.condition.lower() in {c.lower() for c in present[row.experiment]}, row
    kept = apply_exclusions(mvh_trials, MODELVSHUMAN_EXCLUSIONS)
    assert kept.groupby("experiment")["condition"].nunique().to_dict() == {
        "colour": 1, "contrast": 5, "cue-conflict": 1, "edge": 1, "eidolonI": 5, "eidolonII": 4,
        "eidolonIII": 3, "false-colour": 1, "high-pass": 4, "low-pass": 5, "phase-scrambling": 4,
        "power-equalisation": 1, "rotation": 3, "silhouette": 1, "sketch": 1, "stylized": 1,
        "uniform-noise": 5}


@pytest.fixture(scope="module")
def real_benchmark(mvh_trials):
    return run_benchmark(mvh_trials, settings=ResamplingSettings(n_resamples=300, seed=0), policy="model-vs-human")


def test_real_benchmark_against_reference_loop(mvh_trials, real_benchmark):
    kept = apply_exclusions(mvh_trials, MODELVSHUMAN_EXCLUSIONS)
    subset = kept[kept["experiment"].isin(["edge", "rotation"])]
    overall, per_exp = _reference_rows(subset, policy="model-vs-human")
    rows = real_benchmark.rows
    for experiment in per_exp.columns:
        ours = rows[(rows.scope == experiment) & (rows.metric == "error_consistency")].set_index("observer")
        for group, value in per_exp[experiment].items():
            assert ours.loc[group, "estimate"] == pytest.approx(value, abs=1e-12)


def test_real_benchmark_shape_and_sanity(real_benchmark):
    rows = real_benchmark.rows
    overall = rows[rows.scope == "overall"]
    assert set(overall["observer"]) == {"humans", "bagnet33", "resnet50", "simclr-resnet50x1",
                                        "swag-regnety-16gf-in1k", "swag-regnety-32gf-in1k",
                                        "swag-regnety-128gf-in1k", "swag-vit-b16-in1k", "swag-vit-l16-in1k",
                                        "swag-vit-h14-in1k"}
    ec_rows = overall[overall.metric == "error_consistency"].set_index("observer")
    # humans agree with each other more than any model agrees with them (the paper's finding)
    assert (ec_rows.drop("humans")["ci_high"] < ec_rows.loc["humans", "ci_low"]).all()
    assert ((ec_rows["ci_low"] <= ec_rows["estimate"]) & (ec_rows["estimate"] <= ec_rows["ci_high"])).all()
    acc = overall[overall.metric == "ood_accuracy"].set_index("observer")["estimate"]
    assert acc["swag-vit-h14-in1k"] > acc["resnet50"] > acc["bagnet33"]
    assert len(rows["scope"].unique()) == 18


def test_pairs_without_shared_trials_have_no_test_and_do_not_stop_the_analysis():
    """A Latin-square design (participants a, c see condition x; b, d see y) leaves pairs that share no trial in a
    condition: their p-value is NaN; the pairs that share trials are tested and aggregated as before."""
    from humanlike.measures.ec.analysis import error_consistency

    rows = [dict(observer=obs, observer_kind="human", experiment="e", condition=cond, item=f"i{i}", label="cat",
                 response="cat" if (i + k) % 3 else "dog")
            for k, (obs, cond) in enumerate([("a", "x"), ("b", "y"), ("c", "x"), ("d", "y")]) for i in range(6)]
    table = pd.DataFrame(rows)
    table["correct"] = table["response"] == table["label"]
    with np.errstate(invalid="ignore", divide="ignore"):
        result = error_consistency(table, settings=ResamplingSettings(n_resamples=50, seed=0))
    pairs = result.pairs
    shared = pairs["both_correct"] + pairs["only_1_correct"] + pairs["only_2_correct"] + pairs["both_wrong"] > 0
    assert pairs.loc[~shared, "p_value"].isna().all() and pairs.loc[shared, "p_value"].notna().all()
    assert sorted(map(tuple, pairs.loc[shared, ["condition", "observer_1", "observer_2"]].to_numpy())) == \
        [("x", "a", "c"), ("y", "b", "d")]
    overall = result.to_frame()
    estimate = overall[(overall.scope == "overall") & (overall.group == "humans")
                       & (overall.metric == "error_consistency")]["estimate"].iloc[0]
    assert estimate == pytest.approx(pairs.loc[shared, "error_consistency"].mean())
