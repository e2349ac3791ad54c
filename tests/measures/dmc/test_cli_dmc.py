"""The DMC command line: ``humanlike dmc``, ``humanlike plan dmc``, the benchmark rows and the demo extras."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from humanlike.measures.dmc.analysis import decision_margin_consistency
from humanlike.app.cli import build_parser, main
from humanlike.measures.dmc.cli import BENCHMARK_COLUMNS, dmc_benchmark_rows
from humanlike.measures.dmc.planning import trials_for_tolerance
from humanlike.measures.dmc.analysis import dmc_settings

MODELS = {"model-alien", "model-humanlike", "model-medium", "model-strong", "model-texture"}


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory, demo_trials):
    path = tmp_path_factory.mktemp("dmc") / "demo.csv"
    demo_trials.to_csv(path, index=False)
    return path


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dmc_is_registered():
    help_text = build_parser().format_help()
    assert "dmc" in help_text


def test_dmc_json_keys_files_and_figure(capsys, demo_csv, tmp_path):
    out, fig = tmp_path / "out", tmp_path / "fig.png"
    code, stdout, _ = _run(capsys, ["dmc", demo_csv, "--experiment", "sim-noise", "--resamples", 100, "--json",
                                    "--out", out, "--figure", fig])
    assert code == 0
    doc = json.loads(stdout)
    assert doc["experiment"] == "sim-noise"
    hh = doc["human_human"]
    assert {"mean", "ci_low", "ci_high", "n_splits", "conditions"} <= set(hh)
    assert hh["n_splits"] == 10  # 6 simulated humans: C(6, 3) / 2
    assert hh["ci_low"] < hh["mean"] < hh["ci_high"]
    assert set(hh["conditions"]) == {"0.00", "0.10", "0.20", "0.35"}
    assert set(doc["model_human"]) == MODELS
    for entry in doc["model_human"].values():
        assert {"mean", "ci_low", "ci_high", "accuracy", "conditions"} <= set(entry)
        assert -1 <= entry["mean"] <= 1
    assert {"mean", "ci_low", "ci_high", "n_pairs", "conditions"} <= set(doc["model_model"])
    assert doc["model_model"]["n_pairs"] == 10
    assert doc["settings"]["method"] == "pearson" and doc["settings"]["scale"] == "accuracy"
    for name in ("dmc_summary.csv", "dmc_splits.csv", "dmc_items.csv", "dmc.json"):
        assert (out / name).stat().st_size > 0
    assert fig.stat().st_size > 10_000
    # Same numbers as the library call with the same settings.
    from humanlike.trials.loaders import load_trials

    again = decision_margin_consistency(load_trials(demo_csv), experiments=["sim-noise"], settings=dmc_settings(n_resamples=100, seed=0)).to_json_dict()
    assert again["human_human"]["mean"] == pytest.approx(hh["mean"])
    assert again["model_human"]["model-strong"]["ci_low"] == pytest.approx(doc["model_human"]["model-strong"]["ci_low"])


def test_dmc_readable_table_and_options(capsys, demo_csv):
    code, stdout, _ = _run(capsys, ["dmc", demo_csv, "--experiment", "sim-blur", "--experiment", "sim-rotation",
                                    "--resamples", 50, "--spearman", "--dprime", "--observer-level", "none"])
    assert code == 0
    assert "spearman on the human dprime index" in stdout
    assert "experiment sim-blur" in stdout and "experiment sim-rotation" in stdout
    assert "overall (mean over 2 experiments)" in stdout
    assert "human-human ceiling" in stdout and "model-humanlike" in stdout and "t-interval" in stdout
    code, stdout, _ = _run(capsys, ["dmc", demo_csv, "--experiment", "sim-blur", "--experiment", "sim-rotation",
                                    "--resamples", 0, "--json", "--condition", "0"])
    doc = json.loads(stdout)
    assert set(doc["experiments"]) == {"sim-blur", "sim-rotation"}
    assert doc["human_human"]["n_experiments"] == 2
    assert doc["human_human"]["ci_low"] is None  # no resamples, no interval


def test_dmc_errors_are_reported(capsys, demo_csv):
    code, _, stderr = _run(capsys, ["dmc", demo_csv, "--experiment", "nope", "--resamples", 10])
    assert code == 2 and "unknown experiment" in stderr


def test_plan_dmc_json(capsys):
    code, stdout, _ = _run(capsys, ["plan", "dmc", "--json", "--accuracy", 0.6, 0.9, "--trials", 5, 50,
                                    "--tolerance", 0.1, "--observers", 2, 8, "--sims", 40,
                                    "--distribution", "beta", "--params", 3, 1])
    assert code == 0
    doc = json.loads(stdout)
    table = doc["sampling"]["table"]
    assert len(table) == 4
    assert {"true_accuracy", "trials", "low", "high", "p_within_tolerance"} <= set(table[0])
    needed = {e["true_accuracy"]: e["trials"] for e in doc["sampling"]["trials_for_tolerance"]}
    assert needed == {0.6: trials_for_tolerance(0.6, 0.1, 0.95), 0.9: trials_for_tolerance(0.9, 0.1, 0.95)}
    rows = doc["observers"]["table"]
    assert doc["observers"]["distribution"] == "beta(3, 1)"
    assert [r["n_observers"] for r in rows] == [2, 8]
    assert rows[0]["mean_corr_truth"] < rows[1]["mean_corr_truth"]
    # The split-half reliability estimates the squared correlation with the truth.
    assert rows[1]["sqrt_split_half"] == pytest.approx(rows[1]["mean_corr_truth"], abs=0.05)


def test_plan_dmc_from_data(capsys, demo_csv):
    code, stdout, _ = _run(capsys, ["plan", "dmc", "--json", "--distribution", "data", "--data", demo_csv,
                                    "--experiment", "sim-noise", "--observers", 4, "--sims", 20])
    assert code == 0
    doc = json.loads(stdout)
    assert doc["observers"]["distribution"] == "explicit"
    assert doc["observers"]["n_items"] == 640
    code, _, stderr = _run(capsys, ["plan", "dmc", "--distribution", "data"])
    assert code == 2 and "--data" in stderr
    code, stdout, _ = _run(capsys, ["plan", "dmc", "--sims", 20, "--observers", 2, 4])
    assert code == 0 and "trials needed" in stdout


def test_dmc_benchmark_rows(demo_trials):
    rows = dmc_benchmark_rows(demo_trials, settings=dmc_settings(n_resamples=100, level=0.95, seed=3))
    assert list(rows.columns) == list(BENCHMARK_COLUMNS)
    assert set(rows["metric"]) == {"decision_margin_consistency"}
    assert set(rows["observer"]) == {"humans"} | MODELS
    assert set(rows["scope"]) == {"overall", "sim-noise", "sim-blur", "sim-contrast", "sim-rotation"}
    assert len(rows) == 6 * 5
    h = rows[rows["observer"] == "humans"].set_index("scope")
    assert (h.loc[h.index != "overall", "n_pairs"] == 10).all() and h.loc["overall", "n_pairs"] == 40
    m = rows[rows["observer"] == "model-strong"].set_index("scope")
    assert m.loc["sim-noise", "n_pairs"] == 6 and m.loc["overall", "n_pairs"] == 24
    assert (rows.loc[rows["observer"] != "humans", "observer_kind"] == "model").all()
    ref = decision_margin_consistency(demo_trials, settings=dmc_settings(n_resamples=100, seed=3)).table("overall").set_index("group")
    assert h.loc["overall", "estimate"] == pytest.approx(ref.loc["humans", "estimate"])
    assert m.loc["overall", "ci_high"] == pytest.approx(ref.loc["model-strong", "ci_high"])
    no_margins = demo_trials.drop(columns="decision_margin")
    rows = dmc_benchmark_rows(no_margins, settings=dmc_settings(n_resamples=20, seed=0))
    assert set(rows["observer"]) == {"humans"}


def test_demo_part_writes_files(tmp_path, demo_trials):
    import types

    from humanlike.files import RunOutputs
    from humanlike.measures.contract import DemoRun
    from humanlike.measures.dmc.demo import demo

    options = types.SimpleNamespace(out=tmp_path, format="csv", resamples=60, level=0.95, seed=0, quiet=True)
    files = demo(demo_trials, DemoRun(options, outputs=RunOutputs(tmp_path)))
    names = {f.name for f in files}
    assert names == {"dmc.csv", "dmc.json", "dmc_ranking.png", "dmc.png"}
    assert all(f.stat().st_size > 0 for f in files)
    doc = json.loads((tmp_path / "dmc.json").read_text())
    assert set(doc["experiments"]) == {"sim-noise", "sim-blur", "sim-contrast", "sim-rotation"}


def test_real_dmc_cli_on_colour(capsys, combined_trials, tmp_path):
    path = tmp_path / "colour.parquet"
    combined_trials[combined_trials["experiment"] == "colour"].to_parquet(path, index=False)
    # the model-vs-human exclusions are on by default (they drop colour's 'cr'); --no-exclusions keeps it
    code, stdout, _ = _run(capsys, ["dmc", path, "--experiment", "colour", "--resamples", 0, "--json"])
    assert code == 0 and set(json.loads(stdout)["human_human"]["conditions"]) == {"bw"}
    code, stdout, _ = _run(capsys, ["dmc", path, "--experiment", "colour", "--resamples", 50, "--json",
                                    "--no-exclusions"])
    assert code == 0
    doc = json.loads(stdout)
    assert set(doc["human_human"]["conditions"]) == {"bw", "cr"}
    assert doc["human_human"]["n_splits"] == 3  # 4 observers: C(4, 2) / 2
    assert np.isfinite(doc["human_human"]["mean"]) and 0 < doc["human_human"]["mean"] <= 1
    assert len(doc["model_human"]) == 15 and len(doc["skipped_models"]) == 6
    assert all(-1 <= e["mean"] <= 1 for e in doc["model_human"].values())
    assert doc["model_model"]["n_pairs"] == 105


def test_dmc_without_experiment_runs_every_experiment_and_paper_preset(capsys, demo_csv):
    code, stdout, _ = _run(capsys, ["dmc", demo_csv, "--resamples", 20, "--json", "--quiet"])
    assert code == 0
    doc = json.loads(stdout)
    assert set(doc["experiments"]) == {"sim-noise", "sim-blur", "sim-contrast", "sim-rotation"}
    assert doc["settings"]["n_resamples"] == 20 and doc["settings"]["observer_level"] == "jackknife"
    code, stdout, _ = _run(capsys, ["dmc", demo_csv, "--experiment", "sim-noise", "--resamples", 20, "--json",
                                    "--preset", "paper"])
    paper = json.loads(stdout)
    hh = paper["human_human"]
    assert paper["settings"]["preset"] == "paper"
    assert (hh["ci_low"], hh["ci_high"]) == (hh["t_low"], hh["t_high"])
    code, stdout, _ = _run(capsys, ["dmc", demo_csv, "--experiment", "sim-noise", "--resamples", 20, "--preset",
                                    "paper", "--interval", "bca"])
    assert code == 0 and "published t-interval over splits" in stdout
