"""The MOVER interval of a difference of two single-table EC values: hand values, special cases, coverage by
simulation with planted kappas, and its use by ``compare``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.compare.adapters import compare, ec_pair_intervals, ec_scores
from humanlike.measures.compare.mover import (
    BOX_METHOD,
    MOVER_METHOD,
    MOVER_UNCORRELATED,
    PLAIN_MOVER_METHOD,
    correlation_lower_limit,
    ec_difference_interval,
    joint_correlation,
    mover_limits,
    replicate_correlation,
)
from humanlike.measures.compare.planning_ec import (
    joint_cell_probabilities,
    simulate_ec_comparisons,
)
from humanlike.measures.ec.analysis import error_consistency
from humanlike.measures.ec.interval import ec_profile_interval
from humanlike.measures.pairs.metric import kappa
from humanlike.stats.comparison import PERCENTILE_INTERVAL
from humanlike.trials.simulate import simulate_benchmark
from humanlike.resampling.settings import ResamplingSettings

# --- hand values -----------------------------------------------------------------------------------------------


def test_mover_limits_hand_values():
    # k1 = 0.6 [0.4, 0.75], k2 = 0.3 [0.1, 0.5], r = 0.4:
    # L = 0.3 - sqrt(0.2^2 + 0.2^2 - 2 0.4 0.2 0.2) = 0.3 - sqrt(0.048)
    # U = 0.3 + sqrt(0.15^2 + 0.2^2 - 2 0.4 0.15 0.2) = 0.3 + sqrt(0.0385)
    low, high = mover_limits(0.6, 0.4, 0.75, 0.3, 0.1, 0.5, 0.4)
    assert float(low) == pytest.approx(0.3 - math.sqrt(0.048), abs=1e-12)
    assert float(high) == pytest.approx(0.3 + math.sqrt(0.0385), abs=1e-12)
    assert float(low) == pytest.approx(0.080911, abs=1e-6) and float(high) == pytest.approx(0.496214, abs=1e-6)
    # r = 0: the half-widths add in quadrature; r = 1: they subtract
    low0, high0 = mover_limits(0.6, 0.4, 0.75, 0.3, 0.1, 0.5, 0.0)
    assert (float(low0), float(high0)) == pytest.approx((0.3 - math.sqrt(0.08), 0.3 + math.sqrt(0.0625)))
    low1, high1 = mover_limits(0.6, 0.4, 0.75, 0.3, 0.1, 0.5, 1.0)
    assert (float(low1), float(high1)) == pytest.approx((0.3, 0.35))


def test_correlation_lower_limit_hand_values():
    # atanh(0.5) = 0.549306, z_0.95 = 1.644854, m - 3 = 100: tanh(0.549306 - 0.164485) = 0.366887
    out = correlation_lower_limit([0.5, 0.1, -0.3, np.nan], [103, 103, 103, 103])
    assert out[0] == pytest.approx(math.tanh(math.atanh(0.5) - 1.6448536269514722 / 10), abs=1e-12)
    assert out[0] == pytest.approx(0.366887, abs=1e-6)
    assert out[1] == 0.0   # not resolved above 0: floored
    assert out[2] == -0.3   # a negative correlation widens the interval and is kept
    assert np.isnan(out[3])
    # more informative trials, less lowering
    assert correlation_lower_limit(0.5, 10_003) > correlation_lower_limit(0.5, 103)


def test_replicate_correlation_skips_undefined_rows():
    a = np.array([1.0, 2.0, 3.0, 4.0, np.nan])
    b = np.array([1.0, 3.0, 2.0, 4.0, 100.0])
    assert replicate_correlation(a, b)[0] == pytest.approx(np.corrcoef(a[:4], b[:4])[0, 1])
    assert np.isnan(replicate_correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])[0])   # constant
    assert np.isnan(replicate_correlation([1.0, 2.0], [1.0, 2.0])[0])   # too few


def _kappas_of_joint(p):
    """EC of A and of B with the human from joint proportions p[4 h + 2 a + b] (written out cell by cell)."""
    p = np.asarray(p, dtype=float).reshape(2, 2, 2)   # [h, a, b]
    ta, tb = p.sum(axis=2), p.sum(axis=1)   # [h, model]
    return (float(kappa(ta[1, 1], ta[1, 0], ta[0, 1], ta[0, 0])),
            float(kappa(tb[1, 1], tb[1, 0], tb[0, 1], tb[0, 0])))


def test_joint_correlation_equals_the_numerical_delta_method():
    counts = np.array([37, 4, 6, 9, 3, 11, 8, 122], dtype=float)
    p = (counts + 0.1) / (counts + 0.1).sum()
    grads = np.zeros((2, 8))
    for j in range(8):   # central differences, each kappa a function of the 8 proportions
        step = np.zeros(8)
        step[j] = 1e-6
        grads[:, j] = (np.array(_kappas_of_joint(p + step)) - np.array(_kappas_of_joint(p - step))) / 2e-6
    sigma = np.diag(p) - np.outer(p, p)   # multinomial covariance of the proportions (times n)
    cov = grads @ sigma @ grads.T
    expected = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    assert joint_correlation(counts)[0] == pytest.approx(expected, abs=1e-6)
    # the pseudo-count matters: without it (nearly) the plug-in value
    assert joint_correlation(counts, pseudo_count=1e-12)[0] != pytest.approx(expected, abs=1e-6)
    with pytest.raises(ValueError, match="8 cells"):
        joint_correlation([[1, 2, 3]])
    with pytest.raises(ValueError, match="positive"):
        joint_correlation(counts, pseudo_count=0)


def test_joint_correlation_matches_simulated_correlation_in_large_samples():
    # B repeats A's answer on 60% of 4,000 trials: the kappas' correlation over data sets is the delta method's
    joint = joint_cell_probabilities(0.4, 0.1, 0.8, 0.8, 0.8, repeat=0.6).ravel()
    rng = np.random.default_rng(11)
    counts = rng.multinomial(4000, joint, size=3000)
    ka, kb = np.array([_kappas_of_joint(c / c.sum()) for c in counts]).T
    simulated = np.corrcoef(ka, kb)[0, 1]
    assert joint_correlation(joint * 1e6)[0] == pytest.approx(simulated, abs=0.04)
    # identical answers in a sample: the plug-in correlation is 1, the pseudo-counted one stays below it
    same = np.array([3, 0, 0, 5, 4, 0, 0, 88])
    assert joint_correlation(same, pseudo_count=1e-9)[0] == pytest.approx(1.0, abs=1e-6)
    assert joint_correlation(same)[0] < 0.97


def test_difference_interval_composes_profile_limits_and_lowered_correlation():
    table_a, table_b = [80, 6, 5, 9], [78, 8, 9, 5]
    prof = ec_profile_interval(*np.array([table_a, table_b]).T)
    r = correlation_lower_limit(0.6, 40)
    low, high = mover_limits(prof.estimate[0], prof.low[0], prof.high[0], prof.estimate[1], prof.low[1],
                             prof.high[1], r)
    out = ec_difference_interval([table_a], [table_b], [0.6], [40])
    assert out.difference[0] == pytest.approx(prof.estimate[0] - prof.estimate[1])
    assert (out.low[0], out.high[0]) == pytest.approx((float(low), float(high)), abs=1e-12)
    assert out.correlation[0] == pytest.approx(r) and out.method[0] == MOVER_METHOD
    plain = ec_difference_interval([table_a], [table_b], [0.6], [40], correlation_limit=False)
    assert plain.method[0] == PLAIN_MOVER_METHOD and plain.correlation[0] == 0.6
    assert plain.high[0] - plain.low[0] < out.high[0] - out.low[0]   # the lowered r widens
    nan_r = ec_difference_interval([table_a], [table_b], [np.nan], [40])
    assert nan_r.method[0] == MOVER_UNCORRELATED and nan_r.correlation[0] == 0.0


def test_undefined_kappa_is_nan_with_reason_and_the_profile_box():
    # model A and the human never err: kappa undefined; B's table is defined
    out = ec_difference_interval([[100, 0, 0, 0]], [[90, 4, 3, 3]], [0.2], [10])
    prof = ec_profile_interval([100, 90], [0, 4], [0, 3], [0, 3])
    assert np.isnan(out.difference[0]) and "model A" in out.reason[0] and "constant" in out.reason[0]
    assert out.method[0] == BOX_METHOD and np.isnan(out.correlation[0])
    assert out.low[0] == pytest.approx(prof.low[0] - prof.high[1])
    assert out.high[0] == pytest.approx(prof.high[0] - prof.low[1])


def test_shapes_must_match():
    with pytest.raises(ValueError, match="do not match"):
        ec_difference_interval([[1, 2, 3, 4]], [[1, 2, 3, 4], [1, 2, 3, 4]], [0.1], [3])


# --- coverage with planted kappas on sparse cells ------------------------------------------------------------

#: (trials, accuracy human, accuracy models, kappa A, kappa B): the sparse corner, where the percentile interval
#: covers 0.5-0.85 (docs/compare_calibration.md), and planted equal kappas.
SPARSE = [(100, 0.95, 0.98, 0.5, 0.25), (100, 0.98, 0.98, 0.5, 0.25), (200, 0.98, 0.98, 0.8, 0.4),
          (100, 0.9, 0.95, 0.2, 0.1), (100, 0.95, 0.98, 0.3, 0.3), (200, 0.9, 0.95, 0.5, 0.5)]


@pytest.mark.parametrize("n, a_human, a_model, kappa_a, kappa_b", SPARSE)
def test_mover_covers_planted_differences_in_sparse_cells(n, a_human, a_model, kappa_a, kappa_b):
    sim = simulate_ec_comparisons(n, kappa_a, kappa_b, a_human, a_model, n_sets=300, n_resamples=200,
                                  exact=False, seed=23)
    assert sim.true_difference == pytest.approx(kappa_a - kappa_b)
    # 300 data sets: a true 0.95 falls below 0.90 with probability < 1e-4
    assert sim.coverage() >= 0.90, (sim.coverage(), sim.coverage("percentile"))


@pytest.mark.parametrize("n, a_human, a_model", [(100, 0.9, 0.95), (400, 0.98, 0.98)])
def test_mover_covers_strongly_correlated_models(n, a_human, a_model):
    # B repeats A's answer on 90% of the trials: the sample often shows no discordant trial at all, where a
    # plug-in correlation is 1 and the interval collapses (MOVER with the bootstrap correlation: 0.86-0.91 here)
    sim = simulate_ec_comparisons(n, 0.5, 0.0, a_human, a_model, n_sets=300, n_resamples=200, exact=False,
                                  seed=29, repeat=0.9)
    assert sim.true_difference == pytest.approx(0.05)
    assert sim.coverage() >= 0.90, (sim.coverage(), sim.coverage("mover-bootstrap"))


def test_sparse_cells_are_hard_for_the_percentile_interval():
    # the check above can fail: the interval compare reported before MOVER misses it here
    sim = simulate_ec_comparisons(100, 0.5, 0.25, 0.98, 0.98, n_sets=300, n_resamples=200, exact=False, seed=23)
    assert sim.coverage("percentile") < 0.80
    assert sim.coverage() >= 0.90
    with pytest.raises(ValueError, match="no 'bca' interval"):
        sim.coverage("bca")


# --- in compare ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def one_table():
    trials = simulate_benchmark(seed=3, n_humans=1, n_items=150, experiments={"sim": {"0": 0.8}})
    twin = trials[trials["observer"] == "model-medium"].assign(observer="model-medium-twin")
    trials = pd.concat([trials, twin], ignore_index=True)
    return trials, error_consistency(trials, settings=ResamplingSettings(n_resamples=300, seed=1))


def test_compare_reports_mover_for_single_table_differences(one_table):
    trials, result = one_table
    pairs = compare(result, trials=trials).pairs
    boot = pairs[pairs["test"].str.startswith("paired")]
    assert (boot["interval"] == MOVER_METHOD).all()
    assert (pairs.loc[pairs["test"] == "exact label exchange", "interval"] == "").all()
    # the same numbers as the one-place function, oriented as the pair (A the higher-scoring)
    ref = ec_pair_intervals(trials, result, ec_scores(result))
    for row in boot.to_dict("records"):
        match = ref[(ref["model_a"] == row["model_a"]) & (ref["model_b"] == row["model_b"])]
        sign = 1.0
        if match.empty:
            match, sign = ref[(ref["model_a"] == row["model_b"]) & (ref["model_b"] == row["model_a"])], -1.0
        m = match.iloc[0]
        assert sign * m["difference"] == pytest.approx(row["difference"], abs=1e-12)
        lo, hi = sorted((sign * m["ci_low"], sign * m["ci_high"]))
        assert (lo, hi) == pytest.approx((row["ci_low"], row["ci_high"]), abs=1e-12)
        assert row["ci_low"] <= row["difference"] <= row["ci_high"]
    # the estimates MOVER starts from are the result's EC values
    scores = ec_scores(result)
    est = dict(zip(scores.models, scores.estimate))
    for m in ref.to_dict("records"):
        assert m["difference"] == pytest.approx(est[m["model_a"]] - est[m["model_b"]], abs=1e-12)


def test_identical_models_on_one_table(one_table):
    trials, result = one_table
    pairs = compare(result, trials=trials).pairs
    twin = pairs[(pairs[["model_a", "model_b"]].apply(set, axis=1) == {"model-medium", "model-medium-twin"})
                 & pairs["test"].str.startswith("paired")].iloc[0]
    assert twin["difference"] == 0.0 and twin["p_value"] == 1.0 and not twin["resolved"]
    # the same profile interval twice, the correlation below 1 (pseudo-counted): symmetric about 0, not [0, 0],
    # and narrower than the interval against any other model
    assert twin["ci_low"] == pytest.approx(-twin["ci_high"], abs=1e-12) and 0.0 < twin["ci_high"] < 0.1
    boot = pairs[pairs["test"].str.startswith("paired")]
    assert (twin["ci_high"] - twin["ci_low"] < (boot["ci_high"] - boot["ci_low"]).drop(twin.name)).all()


def test_aggregated_scores_keep_the_percentile_interval(one_table):
    trials, result = one_table
    several = simulate_benchmark(seed=3, n_humans=2, n_items=60, experiments={"sim": {"0": 0.8}})
    r = error_consistency(several, settings=ResamplingSettings(n_resamples=100, seed=1))
    pairs = compare(r, trials=several).pairs
    assert (pairs["interval"] == PERCENTILE_INTERVAL).all()
    # without the trials, and on a normalised scale, a single table keeps the percentile interval too
    assert (compare(result).pairs["interval"] == PERCENTILE_INTERVAL).all()
    assert (compare(result, trials=trials, normalise="ceiling").pairs["interval"]
            .isin([PERCENTILE_INTERVAL, ""]).all())


def test_cli_names_the_interval_of_single_table_differences(tmp_path, one_table, capsys):
    from humanlike.app.cli import main

    trials, _ = one_table
    data = tmp_path / "trials.csv"
    trials.to_csv(data, index=False)
    out = tmp_path / "out"
    code = main(["compare", str(data), "--measure", "ec", "--resamples", "99", "--quiet", "--out", str(out),
                 "--models", "model-humanlike", "model-alien", "model-medium"])
    assert code == 0
    assert f"interval: {MOVER_METHOD}" in capsys.readouterr().out
    pairs = pd.read_csv(out / "compare_pairs.csv", keep_default_na=False)
    assert set(pairs.loc[pairs["test"].str.startswith("paired"), "interval"]) == {MOVER_METHOD}
