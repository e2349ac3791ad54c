"""EC's own interval: the studentized jackknife (jackknife-t) for every average, wherever the user chooses none.

The percentile bootstrap covers EC averaged over conditions and observers as little as 0.69 at a nominal 0.95
(docs/ec_coverage.md); these tests hold the default to jackknife-t in the API, the command line, the report and
compare, hold its numbers to the stratified jackknife of the engine, and check what goes with it: intervals
clipped to kappa's range, a warning where one or two items decide an estimate, and the refusal of an item-only
interval together with resampled observers.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace

import numpy as np
import pytest

from humanlike.app.cli import main
from humanlike.measures.ec.analysis import DEFAULT_SETTINGS, error_consistency
from humanlike.measures.registry import get_measure
from humanlike.resampling.jackknife import jackknife_t_interval
from humanlike.resampling.settings import ResamplingSettings
from humanlike.trials.simulate import simulate_benchmark


def test_the_api_default_is_jackknife_t_and_its_numbers_are_the_engines():
    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    result = error_consistency(trials, experiments=["sim-blur"])
    assert result.settings["interval"] == "jackknife-t" == DEFAULT_SETTINGS.interval == get_measure("ec").interval
    frame = result.summary_table
    assert set(frame["interval_method"]) == {"jackknife t"}
    low, high = jackknife_t_interval(result.resampled.estimate, result.resampled.jackknife)
    np.testing.assert_allclose(frame["ci_low"], np.clip(low, -1, 1), equal_nan=True)
    np.testing.assert_allclose(frame["ci_high"], np.clip(high, -1, 1), equal_nan=True)
    # explicit settings are used as given: ResamplingSettings() is the percentile bootstrap
    given = error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=500))
    assert set(given.summary_table["interval_method"]) == {"percentile bootstrap"}
    assert not np.allclose(given.summary_table["ci_low"], frame["ci_low"], equal_nan=True)


def test_an_experiments_jackknife_interval_does_not_depend_on_the_others(mvh_trials):
    # The stratified jackknife: strata an output does not use add exactly nothing.
    settings = ResamplingSettings(n_resamples=50, seed=1, interval="jackknife-t")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        alone = error_consistency(mvh_trials, experiments=["edge"], settings=settings).summary_table
        together = error_consistency(mvh_trials, experiments=["edge", "sketch", "cue-conflict"],
                                     settings=settings).summary_table
    together = together[together["scope"] == "edge"].reset_index(drop=True)
    alone = alone[alone["scope"] == "edge"].reset_index(drop=True)
    assert len(alone) == len(together) > 0
    for column in ("estimate", "ci_low", "ci_high"):
        np.testing.assert_array_equal(alone[column].to_numpy(), together[column].to_numpy())


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_the_command_line_defaults_to_jackknife_t_and_interval_changes_it(modelvshuman_dir, capsys):
    common = ["ec", str(modelvshuman_dir / "contrast"), "--experiment", "contrast", "--json", "--quiet",
              "--resamples", "200"]
    assert main(common) == 0
    default = _json(capsys)
    assert default["settings"]["interval"] == "jackknife-t"
    assert main(common + ["--interval", "percentile"]) == 0
    percentile = _json(capsys)
    assert percentile["settings"]["interval"] == "percentile"
    assert default["human_human"]["mean"] == percentile["human_human"]["mean"]
    assert default["human_human"]["ci_low"] != percentile["human_human"]["ci_low"]


def test_report_gives_ec_its_own_interval_and_the_others_theirs():
    from humanlike.app.report_sections import run_report_analyses

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)   # the simulated models have decision margins
    settings = ResamplingSettings(n_resamples=100, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        own, _ = run_report_analyses({"trials": trials}, ["ec", "dmc"], settings, None)
        chosen, _ = run_report_analyses({"trials": trials}, ["ec", "dmc"], settings, None, interval="percentile")
    assert own["ec"].details.settings["interval"] == "jackknife-t"
    assert own["dmc"].settings["interval"] == "percentile"
    assert chosen["ec"].details.settings["interval"] == "percentile"
    # with resampled observers EC keeps the bootstrap: the jackknife intervals come from the items alone
    two_level, _ = run_report_analyses({"trials": trials}, ["ec"], ResamplingSettings(
        n_resamples=100, seed=0, observer_level="bootstrap"), None)
    assert two_level["ec"].details.settings["interval"] == "percentile"


def test_item_jackknife_intervals_refuse_resampled_observers():
    with pytest.raises(ValueError, match="would ignore observer_level 'bootstrap'"):
        ResamplingSettings(interval="jackknife-t", observer_level="bootstrap")
    with pytest.raises(ValueError, match="would ignore observer_level 'jackknife'"):
        ResamplingSettings(interval="jackknife", observer_level="jackknife")


def test_compare_gives_ec_scores_their_own_interval(modelvshuman_dir, capsys):
    assert main(["compare", str(modelvshuman_dir / "edge"), "--measure", "ec", "--json", "--quiet",
                 "--resamples", "100"]) == 0
    doc = _json(capsys)
    assert doc["settings"]["interval"] == "jackknife-t"


def test_one_item_deciding_a_mean_is_flagged_and_kappa_stays_in_its_range(modelvshuman_dir, capsys):
    # false-colour: one image that every model gets wrong is the only error of one model, so it carries almost
    # all the jackknife variance of the model-model mean (effective items about 1); centre + t SE passes 1.
    with pytest.warns(RuntimeWarning, match="rest on fewer than 3 effective items"):
        assert main(["ec", str(modelvshuman_dir / "false-colour"), "--experiment", "false-colour", "--json",
                     "--quiet", "--resamples", "100"]) == 0
    model_model = _json(capsys)["model_model"]
    assert model_model["ci_high"] == 1.0 and -1.0 <= model_model["ci_low"] < model_model["mean"]


def test_every_interval_stays_in_its_metrics_range(mvh_trials):
    from humanlike.measures.ec.result import METRIC_RANGES
    from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        summary = error_consistency(mvh_trials, experiments=["false-colour", "colour"],
                                    exclusions=MODELVSHUMAN_EXCLUSIONS,
                                    settings=ResamplingSettings(n_resamples=100, interval="jackknife-t")).summary_table
    assert set(summary["metric"]) <= set(METRIC_RANGES)
    for metric, (low, high) in METRIC_RANGES.items():
        rows = summary[summary["metric"] == metric]
        assert len(rows) and (rows["ci_low"].dropna() >= low).all() and (rows["ci_high"].dropna() <= high).all()
    # without the clip, false-colour's model-model row would pass 1 (one item decides it)
    ec = summary[(summary["metric"] == "error_consistency") & (summary["group"] == "model-model")
                 & (summary["scope"] == "false-colour")]
    assert float(ec["ci_high"].iloc[0]) == 1.0


def test_benchmark_with_an_item_jackknife_interval_keeps_dmcs_own(tmp_path, capsys):
    # DMC's default observer jackknife cannot go with an items-only interval: beside EC it keeps its percentile
    # interval and says so, where `dmc` alone refuses the combination.
    data = tmp_path / "sim.csv"
    simulate_benchmark(seed=0, n_humans=4, n_items=48).to_csv(data, index=False)
    with pytest.warns(RuntimeWarning, match="decision-margin consistency keeps its percentile interval"):
        assert main(["benchmark", str(data), "--no-exclusions", "--resamples", "30", "--interval", "jackknife-t",
                     "--json", "--quiet"]) == 0
    doc = _json(capsys)
    assert doc["settings"]["interval"] == "jackknife-t"
    assert main(["dmc", str(data), "--experiment", "sim-blur", "--resamples", "30", "--interval", "jackknife-t",
                 "--quiet", "--json"]) == 2
    assert "would ignore --observer-level jackknife" in capsys.readouterr().err


def test_the_leaderboard_shows_the_benchmarks_own_intervals():
    from humanlike.measures.ec.benchmark import run_benchmark
    from humanlike.measures.ec.leaderboard import leaderboard

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = run_benchmark(simulate_benchmark(seed=0, n_humans=4, n_items=48), exclusions=None,
                               settings=replace(DEFAULT_SETTINGS, n_resamples=100))
    board = leaderboard(result)
    assert board.interval_method == "jackknife t"
    rows = result.rows[(result.rows["scope"] == "overall") & (result.rows["metric"] == "error_consistency")]
    rows = rows.set_index("observer")
    for r in board.table.to_dict("records"):
        assert (r["error_consistency_low"], r["error_consistency_high"]) == (
            rows.loc[r["observer"], "ci_low"], rows.loc[r["observer"], "ci_high"])


def test_no_few_items_warning_where_the_profile_interval_is_shown(modelvshuman_dir):
    # edge has one condition: every pair is one 2x2 table with its profile-likelihood interval, so the
    # jackknife of a pair column is not what anyone sees
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["ec", str(modelvshuman_dir / "edge"), "--resamples", "50", "--quiet", "--json"]) == 0
    assert not [w for w in caught if "effective items" in str(w.message)]
