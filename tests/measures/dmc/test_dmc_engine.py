"""DMC through the one resampling engine: the pre-port numbers (commit bd872ce) kept, intervals independent of
the memory budget and of the selection of experiments, the observer jackknife as before, BCa, settings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humanlike.measures.dmc.analysis import HUMANS, decision_margin_consistency
from humanlike.measures.dmc.data import assemble
from humanlike.measures.dmc.kernel import DMCKernel
from humanlike.trials.schema import validate_trials
from humanlike.measures.dmc.analysis import dmc_settings
from humanlike.resampling.settings import ResamplingSettings

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "dmc_bd872ce"
KEY = ["level", "scope", "condition", "group", "metric"]


def reference(name: str) -> pd.DataFrame:
    frame = pd.read_csv(REFERENCE / f"{name}.csv.gz", dtype={"condition": str}, keep_default_na=False,
                        na_values=[""])
    frame["condition"] = frame["condition"].fillna("")
    return frame


def merged(summary: pd.DataFrame, name: str) -> pd.DataFrame:
    ref = reference(name)
    both = summary.merge(ref, on=KEY, how="outer", suffixes=("", "_old"), indicator=True)
    assert (both["_merge"] == "both").all(), both.loc[both["_merge"] != "both", KEY].head()
    return both


def assert_same_estimates(both: pd.DataFrame) -> None:
    new, old = both["estimate"].to_numpy(float), both["estimate_old"].to_numpy(float)
    np.testing.assert_array_equal(np.isnan(new), np.isnan(old))
    np.testing.assert_allclose(new[~np.isnan(new)], old[~np.isnan(old)], rtol=0, atol=1e-12)


def assert_within_monte_carlo(both: pd.DataFrame, se: np.ndarray, level: float, n_resamples: int) -> None:
    """Interval bounds of two independent runs differ by Monte Carlo error only: the standard error of a
    quantile is sd sqrt(a (1 - a) / R) / phi(z_a); two runs, sqrt(2) of it. Every bound within 5 of those."""
    a = (1 - level) / 2
    quantile_se = se * np.sqrt(a * (1 - a) / n_resamples) / stats.norm.pdf(stats.norm.ppf(a)) * np.sqrt(2)
    for bound in ("ci_low", "ci_high"):
        diff = np.abs(both[bound].to_numpy(float) - both[f"{bound}_old"].to_numpy(float))
        ok = np.isfinite(diff) & (quantile_se > 0)
        assert ok.sum() > 0.9 * len(both) or ok.sum() > 50
        z = diff[ok] / quantile_se[ok]
        assert np.max(z) < 5, (bound, np.max(z))
        assert np.median(z) < 1.5, (bound, np.median(z))


# --------------------------------------------------------------------------------------------------
# The pre-port numbers
# --------------------------------------------------------------------------------------------------


def test_demo_estimates_identical_and_intervals_within_monte_carlo_of_the_old_code(demo_trials):
    result = decision_margin_consistency(demo_trials, settings=dmc_settings(n_resamples=2000, seed=0))
    both = merged(result.summary_table.assign(se=result.resampled.standard_error()), "demo_jackknife")
    assert len(both) == 315
    assert_same_estimates(both)
    assert_within_monte_carlo(both, both["se"].to_numpy(float), 0.95, 2000)
    spearman = decision_margin_consistency(demo_trials, settings=dmc_settings(n_resamples=0), method="spearman", dprime=True)
    assert_same_estimates(merged(spearman.summary_table, "demo_spearman_dprime"))


def test_real_estimates_identical_to_the_old_code(combined_trials):
    result = decision_margin_consistency(combined_trials, settings=dmc_settings(n_resamples=300, seed=0), validate=False)
    both = merged(result.summary_table, "real_jackknife")
    assert len(both) == 3360 and both["scope"].nunique() == 18
    assert_same_estimates(both)
    # Intervals: 300 resamples here against 2000 in the reference; the reference bounds sit inside ours up to
    # Monte Carlo error (both estimate the same quantiles).
    se = result.resampled.standard_error()
    defined = np.isfinite(both["ci_low_old"]) & (se > 0)
    slack = 6 * se * np.sqrt(0.025 * 0.975 / 300) / stats.norm.pdf(1.96)
    within = (np.abs(both["ci_low"] - both["ci_low_old"])[defined] < slack[defined]).mean()
    assert within > 0.95, within  # discrete accuracy columns make the normal-theory slack approximate
    spearman = decision_margin_consistency(combined_trials, settings=dmc_settings(n_resamples=0), method="spearman", validate=False)
    assert_same_estimates(merged(spearman.summary_table, "real_spearman"))


# --------------------------------------------------------------------------------------------------
# Independence of chunking, selection and order
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("observer_level", ["jackknife", "bootstrap"])
def test_replicates_do_not_depend_on_the_memory_budget(demo_trials, observer_level):
    run = dict(experiments=["sim-blur", "sim-noise"], bootstrap_splits=4)
    settings = dmc_settings(n_resamples=250, seed=5, observer_level=observer_level)
    big = decision_margin_consistency(demo_trials, settings=settings, **run)
    # chunks of one block of 100 resamples (smaller ones split blocks: the last bit may then differ)
    small = decision_margin_consistency(demo_trials, settings=dmc_settings(settings, memory_budget=7 * 1024**2),
                                        **run)
    np.testing.assert_array_equal(big.resampled.replicates, small.resampled.replicates)
    pd.testing.assert_frame_equal(big.summary_table, small.summary_table)


def test_one_experiment_alone_equals_its_rows_of_the_full_run(demo_trials):
    full = decision_margin_consistency(demo_trials, settings=dmc_settings(n_resamples=300, seed=2), bootstrap_splits=4)
    alone = decision_margin_consistency(demo_trials, experiments=["sim-rotation"], settings=dmc_settings(n_resamples=300, seed=2), bootstrap_splits=4)
    rows = full.resampled.where(scope="sim-rotation")
    mine = alone.resampled.where(scope="sim-rotation")
    assert rows.labels == mine.labels and len(rows) == (4 + 1) * (5 + 2 * 5)  # 4 conditions + mean, 5 models
    np.testing.assert_array_equal(rows.estimate, mine.estimate)
    np.testing.assert_array_equal(rows.replicates, mine.replicates)
    f = full.summary_table[full.summary_table["scope"] == "sim-rotation"].reset_index(drop=True)
    a = alone.summary_table[alone.summary_table["scope"] == "sim-rotation"].reset_index(drop=True)
    pd.testing.assert_frame_equal(f[["estimate", "ci_low", "ci_high", "t_low", "t_high", "n"]],
                                  a[["estimate", "ci_low", "ci_high", "t_low", "t_high", "n"]])


def test_real_edge_alone_equals_the_edge_rows_of_all_experiments(combined_trials):
    full = decision_margin_consistency(combined_trials, settings=dmc_settings(n_resamples=100, seed=0), validate=False)
    edge = decision_margin_consistency(combined_trials, experiments=["edge"], settings=dmc_settings(n_resamples=100, seed=0), validate=False)
    assert len(full.experiments) == 17
    a, b = full.resampled.where(scope="edge"), edge.resampled.where(scope="edge")
    assert a.labels == b.labels
    np.testing.assert_array_equal(a.replicates, b.replicates)


# --------------------------------------------------------------------------------------------------
# The observer level, BCa, settings, counts
# --------------------------------------------------------------------------------------------------


def test_observer_jackknife_adds_the_leave_one_observer_out_variance(demo_trials):
    """The jackknife level adds normal draws times the scaled leave-one-observer-out deviations to the item
    resamples (the pre-port method). With 6 humans, dropping one from the original splits leaves every unique
    split of the other 5 once, so theta_(-o) is the analysis of the data without observer o: the added
    variance must be (N-1)/N sum_o (theta_(-o) - mean)^2."""
    table = demo_trials[demo_trials["experiment"] == "sim-blur"]
    run = dict(n_resamples=2000, seed=1)
    with_jackknife = decision_margin_consistency(table, settings=dmc_settings(observer_level="jackknife", **run),
                                                 bootstrap_splits=None)
    items_only = decision_margin_consistency(table, settings=dmc_settings(observer_level="none", **run),
                                             bootstrap_splits=None)
    added = with_jackknife.resampled.replicates - items_only.resampled.replicates
    humans = sorted(table.loc[table["observer_kind"] == "human", "observer"].unique())
    assert len(humans) == 6
    loo = np.stack([decision_margin_consistency(table[table["observer"] != h], settings=dmc_settings(n_resamples=0)).estimate
                    for h in humans])
    expected = (len(humans) - 1) / len(humans) * np.sum((loo - loo.mean(axis=0)) ** 2, axis=0)
    labels = with_jackknife.resampled.labels
    rows = [k for k, lab in enumerate(labels) if lab[0] == "experiment" and lab[5] == "decision_margin_consistency"]
    observed = added[:, rows].var(axis=0)
    # sd of a variance from 2000 draws ~3%; model pairs do not involve the humans: no noise at all.
    np.testing.assert_allclose(observed, expected[rows], rtol=0.15, atol=1e-20)
    moved = [k for k, r in enumerate(rows) if labels[r][3] != "model-model"]
    assert np.all(expected[rows][moved] > 1e-6) and observed[[k for k in range(len(rows)) if k not in moved]] == 0


def test_bca_through_the_engine(demo_trials):
    result = decision_margin_consistency(demo_trials, experiments=["sim-noise"], settings=dmc_settings(n_resamples=400, seed=0, interval="bca"))
    assert result.settings["interval"] == "bca"
    # the jackknife's sums per output, over one leave-one-out row per item (4 conditions of 160 items)
    assert result.resampled.jackknife.n.shape == (len(result.resampled),)
    assert result.resampled.jackknife.n.max() == 4 * 160
    low, high = result.interval()
    finite = np.isfinite(result.estimate)
    assert np.all(low[finite] <= high[finite])
    pct = result.to_frame(method="percentile")
    assert not np.allclose(pct["ci_low"], result.summary_table["ci_low"], equal_nan=True)


def test_exact_item_jackknife_of_the_sufficient_statistics_equals_explicit_refits(demo_trials):
    data = assemble(validate_trials(demo_trials[demo_trials["experiment"] == "sim-blur"]))
    kernel = DMCKernel({e.group: e for e in data.experiments.values()})
    stratum = data.design.strata[0]
    assert kernel.pooled(stratum)
    explicit = DMCKernel({e.group: e for e in data.experiments.values()}, method="pearson")
    explicit.pooled = lambda s: False
    n = stratum.n_items
    np.testing.assert_allclose(kernel.leave_one_out(stratum), explicit.evaluate(stratum, 1.0 - np.eye(n), None),
                               atol=1e-12)


def test_settings_object_and_keyword_arguments_agree(demo_trials):
    settings = ResamplingSettings(n_resamples=200, seed=4, observer_level="jackknife")
    a = decision_margin_consistency(demo_trials, experiments=["sim-blur"], settings=settings)
    b = decision_margin_consistency(demo_trials, experiments=["sim-blur"], settings=dmc_settings(n_resamples=200, seed=4))
    np.testing.assert_array_equal(a.resampled.replicates, b.resampled.replicates)
    doc = a.to_json_dict()
    assert {k: doc["settings"][k] for k in settings.to_dict()} == settings.to_dict()
    # Another level from the kept replicates, without rerunning.
    low90, high90 = a.interval(level=0.9)
    low95, high95 = a.interval()
    finite = np.isfinite(low95)
    assert np.all(low90[finite] >= low95[finite]) and np.all(high90[finite] <= high95[finite])
    with pytest.raises(ValueError, match="observer_level"):
        decision_margin_consistency(demo_trials, settings=dmc_settings(observer_level="both"))
    # a Generator seed is accepted (one int drawn from it, recorded), as in every analysis
    drawn = dmc_settings(seed=np.random.default_rng(0))
    assert drawn.seed == dmc_settings(seed=np.random.default_rng(0)).seed
    with pytest.raises(TypeError, match="n_resamples"):
        decision_margin_consistency(demo_trials, n_resamples=10)  # the older loose keywords are gone


def test_humans_n_counts_only_defined_splits():
    """Issue 11: with 3 humans one of whom answers every item correctly, the split with that observer alone in
    half A is undefined (a constant half); the ceiling averages the other 2 splits and n must say 2, not 3."""
    rng = np.random.default_rng(0)
    n_items = 40
    frames = []
    for h in range(3):
        correct = np.ones(n_items, bool) if h == 0 else rng.random(n_items) < 0.6
        labels = np.where(np.arange(n_items) % 2 == 0, "a", "b")
        frames.append(pd.DataFrame({"observer": f"s{h}", "observer_kind": "human", "experiment": "e",
                                    "condition": "0", "item": [f"i{i:02d}" for i in range(n_items)],
                                    "label": labels, "response": np.where(correct, labels, np.where(
                                        labels == "a", "b", "a")), "correct": correct}))
    result = decision_margin_consistency(pd.concat(frames, ignore_index=True), settings=dmc_settings(n_resamples=0))
    for condition in ("0", ""):
        rows = result.table("e", condition=condition).set_index("group")
        assert rows.loc[HUMANS, "n"] == 2
        assert np.isfinite(rows.loc[HUMANS, "estimate"])
    assert "1 of 3 splits undefined" in result.table("e", condition="0").set_index("group").loc[HUMANS, "reason"]
    assert result.to_json_dict()["human_human"]["n_splits"] == 2


def test_paper_preset_reports_the_published_t_intervals(demo_trials):
    result = decision_margin_consistency(demo_trials, experiments=["sim-blur"], settings=dmc_settings(n_resamples=100))
    paper = result.with_published_intervals()
    np.testing.assert_array_equal(paper.summary_table["ci_low"], result.summary_table["t_low"])
    np.testing.assert_array_equal(paper.summary_table["estimate"], result.summary_table["estimate"])
    assert paper.settings["preset"] == "paper"
    hh = paper.table("sim-blur").set_index("group").loc[HUMANS]
    assert hh["ci_high"] - hh["ci_low"] < 0.5 * (result.table("sim-blur").set_index("group").loc[HUMANS, "ci_high"]
                                                - result.table("sim-blur").set_index("group").loc[HUMANS, "ci_low"])
