"""The command line for error consistency: benchmark, ec, plan ec (the demo: tests/app/test_demo.py)."""

import json

import pytest

from humanlike.app.cli import main
from humanlike.resampling.settings import ResamplingSettings


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_benchmark_json_keys(modelvshuman_dir, tmp_path, capsys):
    code = main(["benchmark", str(modelvshuman_dir), "--json", "--resamples", "100", "--quiet",
                 "--out", str(tmp_path), "--figure", str(tmp_path / "fig.png")])
    assert code == 0
    doc = _json(capsys)
    observers = doc["observers"]
    assert "humans" in observers and "resnet50" in observers
    for name, entry in observers.items():
        for metric in ("error_consistency", "observed_consistency", "accuracy_difference", "ood_accuracy"):
            assert {"estimate", "ci_low", "ci_high"} <= set(entry[metric]), (name, metric)
        assert len(entry["experiments"]) == 17
        assert set(entry["experiments"]["edge"]) >= {"error_consistency", "ood_accuracy"}
    assert (tmp_path / "fig.png").stat().st_size > 0
    assert (tmp_path / "benchmark.csv").exists()


def test_ec_json_keys(modelvshuman_dir, capsys):
    assert main(["ec", str(modelvshuman_dir), "--experiment", "edge", "--json", "--resamples", "100", "--quiet"]) == 0
    doc = _json(capsys)
    hh = doc["human_human"]
    assert {"mean", "ci_low", "ci_high", "n_pairs", "mean_accuracy"} <= set(hh)
    assert hh["n_pairs"] == 45  # 10 humans
    assert len(doc["model_human"]) == 9
    assert {"mean", "ci_low", "ci_high", "n_pairs"} <= set(doc["model_model"])
    assert all(0 <= p["p_value_min_uncorrected"] <= p["p_value_bonferroni"] <= 1 for p in doc["pairs"])


def test_ec_condition_and_errors(modelvshuman_dir, capsys):
    assert main(["ec", str(modelvshuman_dir / "rotation"), "--experiment", "rotation", "--condition", "90",
                 "--json", "--resamples", "50", "--quiet"]) == 0
    doc = _json(capsys)
    assert doc["condition"] == "90" and all("p_value" in p for p in doc["pairs"])
    assert main(["ec", str(modelvshuman_dir / "rotation"), "--experiment", "nope", "--resamples", "10"]) == 2
    assert "unknown experiment" in capsys.readouterr().err


def test_plan_ec_json(capsys):
    assert main(["plan", "ec", "--accuracy", "0.75", "0.75", "--kappa", "0.5", "--trials", "100", "400",
                 "--width", "0.1", "--compare-kappa", "0.3", "--json"]) == 0
    doc = _json(capsys)
    widths = [row["width"] for row in doc["ci_width"]]
    assert widths[0] == pytest.approx(2 * widths[1], rel=0.05)  # ~1/sqrt(n)
    assert doc["trials_for_width"]["trials"] > 400
    assert doc["power"][1]["power"] > doc["power"][0]["power"]


# --- one engine behind every EC command (issue 7) ------------------------------------------------------------

def test_ec_experiment_reproduces_the_benchmark_row(modelvshuman_dir, capsys):
    """`ec --experiment edge` and `benchmark` draw edge's resamples from the same streams: identical rows."""
    args = ["--json", "--resamples", "300", "--seed", "5", "--quiet", "--two-level"]
    assert main(["ec", str(modelvshuman_dir), "--experiment", "edge"] + args) == 0
    ec_doc = _json(capsys)
    assert main(["benchmark", str(modelvshuman_dir)] + args) == 0
    bench = _json(capsys)["observers"]
    assert ec_doc["human_human"]["ci_low"] == bench["humans"]["experiments"]["edge"]["error_consistency"]["ci_low"]
    for model, entry in ec_doc["model_human"].items():
        row = bench[model]["experiments"]["edge"]["error_consistency"]
        assert (entry["mean"], entry["ci_low"], entry["ci_high"]) == (row["estimate"], row["ci_low"], row["ci_high"])


def test_ec_without_experiment_runs_every_experiment(modelvshuman_dir, capsys):
    assert main(["ec", str(modelvshuman_dir), "--resamples", "0", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("experiment ") == 17 and "experiment uniform-noise" in out
    assert main(["ec", str(modelvshuman_dir / "edge"), str(modelvshuman_dir / "sketch"), "--json",
                 "--resamples", "0", "--quiet"]) == 0
    doc = _json(capsys)
    assert set(doc["experiments"]) == {"edge", "sketch"} and doc["settings"]["n_resamples"] == 0


def test_ec_bca_pair_intervals_are_bca(modelvshuman_dir, capsys):
    common = ["ec", str(modelvshuman_dir / "edge"), "--experiment", "edge", "--json", "--resamples", "400", "--quiet",
              "--pair-interval", "bootstrap"]
    assert main(common + ["--interval", "percentile"]) == 0
    percentile = _json(capsys)
    assert main(common + ["--interval", "bca"]) == 0
    bca = _json(capsys)
    assert bca["settings"]["interval"] == "bca"
    assert {p["interval_method"] for p in bca["pairs"]} == {"bca bootstrap"}
    assert {p["interval_method"] for p in percentile["pairs"]} == {"percentile bootstrap"}
    moved = [p["ci_low"] != q["ci_low"] for p, q in zip(percentile["pairs"], bca["pairs"])]
    assert sum(moved) > 0.9 * len(moved)
    assert [p["error_consistency"] for p in percentile["pairs"]] == [p["error_consistency"] for p in bca["pairs"]]


def test_policy_and_two_level_change_the_numbers(modelvshuman_dir, capsys):
    contrast = ["ec", str(modelvshuman_dir / "contrast"), "--experiment", "contrast", "--json", "--quiet"]
    assert main(contrast + ["--resamples", "0"]) == 0
    strict = _json(capsys)
    assert main(contrast + ["--resamples", "0", "--policy", "model-vs-human"]) == 0
    mvh = _json(capsys)
    # contrast has model pairs that are both perfect in a condition: the benchmark's rule counts them as 1
    assert mvh["model_model"]["mean"] > strict["model_model"]["mean"]
    assert main(contrast + ["--resamples", "300", "--interval", "percentile"]) == 0
    one = _json(capsys)["human_human"]
    assert main(contrast + ["--resamples", "300", "--two-level"]) == 0
    two_doc = _json(capsys)
    two = two_doc["human_human"]
    assert two["ci_high"] - two["ci_low"] > 1.2 * (one["ci_high"] - one["ci_low"])
    # EC's own jackknife-t interval comes from the items alone: with resampled humans the percentile bootstrap
    # is used, and asking for both is refused rather than the humans silently left out
    assert two_doc["settings"]["interval"] == "percentile" and two_doc["settings"]["observer_level"] == "bootstrap"
    assert main(contrast + ["--resamples", "300", "--two-level", "--interval", "jackknife-t"]) == 2
    assert "would ignore --observer-level bootstrap" in capsys.readouterr().err
    assert main(contrast + ["--resamples", "300", "--observer-level", "jackknife"]) == 0
    jack = _json(capsys)
    assert jack["settings"]["observer_level"] == "jackknife"
    assert main(contrast + ["--two-level", "--observer-level", "jackknife"]) == 2


def test_preset_paper_sets_the_published_choices(modelvshuman_dir, capsys):
    edge = ["ec", str(modelvshuman_dir / "contrast"), "--experiment", "contrast", "--json", "--quiet",
            "--resamples", "0"]
    assert main(edge + ["--preset", "paper"]) == 0
    paper = _json(capsys)
    assert paper["settings"]["policy"] == "model-vs-human"
    assert paper["settings"]["p_value"] == "beta-posterior-published"
    assert main(edge + ["--policy", "model-vs-human"]) == 0
    mvh = _json(capsys)
    assert paper["model_model"]["mean"] == mvh["model_model"]["mean"]
    # the p-values come from the simulation test now (multiples of 1/10,000), not the exact test
    assert [p["p_value_bonferroni"] for p in paper["pairs"]] != [p["p_value_bonferroni"] for p in mvh["pairs"]]
    assert main(edge + ["--preset", "paper", "--policy", "strict"]) == 0
    assert _json(capsys)["settings"]["policy"] == "strict"


def test_ec_single_table_pairs_default_to_the_profile_interval(modelvshuman_dir, capsys):
    from humanlike.measures.ec.interval import ec_profile_interval

    common = ["ec", str(modelvshuman_dir / "edge"), "--experiment", "edge", "--json", "--quiet"]
    assert main(common + ["--resamples", "300"]) == 0
    doc = _json(capsys)
    assert doc["settings"]["pair_interval"] == "profile"
    pairs = doc["pairs"]
    assert {p["interval_method"] for p in pairs} == {"profile-likelihood"} and pairs[0]["n_conditions"] == 1
    # The interval is the profile interval of the pair's own 2x2 table (edge has one condition) ...
    assert main(["ec", str(modelvshuman_dir / "edge"), "--experiment", "edge", "--resamples", "0", "--quiet",
                 "--json"]) == 0
    no_resamples = _json(capsys)["pairs"]
    assert [p["ci_low"] for p in no_resamples] == [p["ci_low"] for p in pairs]   # needs no resamples
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.trials.loaders import load_trials

    result = error_consistency(load_trials(modelvshuman_dir / "edge"), settings=ResamplingSettings(n_resamples=0), pair_intervals=True)
    table = result.pairs.iloc[0]
    cells = [int(table[k]) for k in ("both_correct", "only_1_correct", "only_2_correct", "both_wrong")]
    r = ec_profile_interval(*cells)
    first = next(p for p in pairs if (p["observer_1"], p["observer_2"]) == (table["observer_1"], table["observer_2"]))
    assert (first["ci_low"], first["ci_high"]) == pytest.approx((float(r.low), float(r.high)), abs=1e-12)
    # ... while the aggregates get EC's own interval (jackknife-t: the percentile bootstrap under-covers them).
    assert doc["settings"]["interval"] == "jackknife-t" and doc["human_human"]["ci_low"] < doc["human_human"]["mean"]


def test_ec_pairs_averaged_over_conditions_keep_the_aggregates_interval(modelvshuman_dir, capsys):
    common = ["ec", str(modelvshuman_dir / "contrast"), "--experiment", "contrast", "--json", "--quiet",
              "--resamples", "200"]
    assert main(common) == 0
    averaged = _json(capsys)["pairs"]
    assert {p["interval_method"] for p in averaged} == {"jackknife t"} and averaged[0]["n_conditions"] > 1
    assert main(common + ["--condition", "c05"]) == 0
    one = _json(capsys)["pairs"]
    assert {p["interval_method"] for p in one} == {"profile-likelihood"}
    assert main(common + ["--condition", "c05", "--pair-interval", "bootstrap", "--interval", "bca"]) == 0
    assert {p["interval_method"] for p in _json(capsys)["pairs"]} == {"bca bootstrap"}
