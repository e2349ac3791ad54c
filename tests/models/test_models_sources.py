"""Observers from different sources are kept apart (issue 24): an evaluated model named like a benchmark
model, every ``on_conflict`` option, and the sources table (folder, file digest, model, experiments).

The evaluation folders here are written by hand in the format of ``humanlike evaluate`` (no torch needed);
tests/test_models_real.py runs the real path through torch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanlike.trials.loaders import load_trials, load_trials_with_sources
from humanlike.trials.raw_data import load_raw_data
from humanlike.trials.schema import TrialTableError
from humanlike.trials.sources import ON_CONFLICT, combined_digest, file_digest, source_label
from humanlike.app.cli import main


def write_evaluation_folder(folder: Path, trials: pd.DataFrame, *, model="resnet50", arch="resnet50",
                            weights=None) -> Path:
    """An evaluation folder as ``humanlike evaluate`` writes it (manifest + trials.csv)."""
    folder.mkdir(parents=True)
    trials.to_csv(folder / "trials.csv", index=False)
    doc = {"format": "humanlike-evaluation", "version": 1, "trials": "trials.csv", "stimuli": "stimuli.csv",
           "runs": [{"model": model, "source": "torchvision", "arch": arch, "weights": weights,
                     "model_key": "k" * 32, "experiment": "edge"}]}
    (folder / "evaluation.json").write_text(json.dumps(doc))
    return folder


def my_model_trials(reference: pd.DataFrame, name: str = "resnet50", seed: int = 0) -> pd.DataFrame:
    """A model's answers to the edge items of the benchmark, bare file names as ``evaluate`` writes them."""
    edge = reference[(reference["experiment"] == "edge") & (reference["observer"] == "subject-01")]
    rng = np.random.default_rng(seed)
    labels = edge["label"].to_numpy()
    response = np.where(rng.random(len(edge)) < 0.5, labels, rng.permutation(labels))
    margin = rng.normal(size=len(edge))
    margin = np.where(response == labels, np.abs(margin) + 0.01, -np.abs(margin) - 0.01)
    return pd.DataFrame({"observer": name, "observer_kind": "model", "experiment": "edge",
                         "condition": edge["condition"].to_numpy(), "item": edge["item"].to_numpy(),
                         "label": labels, "response": response, "correct": response == labels,
                         "decision_margin": margin, "trial": np.arange(1, len(edge) + 1)})


@pytest.fixture(scope="module")
def mine(mvh_trials, tmp_path_factory) -> Path:
    return write_evaluation_folder(tmp_path_factory.mktemp("eval") / "my-run", my_model_trials(mvh_trials))


def _resnets(trials):
    return sorted(o for o in trials["observer"].unique() if o.startswith("resnet50"))


def test_default_keeps_an_evaluated_model_apart_from_the_published_one(modelvshuman_dir, mine, mvh_trials):
    trials, sources = load_trials_with_sources([modelvshuman_dir, mine])
    assert _resnets(trials) == ["resnet50", "resnet50@my-run"]
    published = trials[trials["observer"] == "resnet50"]
    # the benchmark's resnet50 is untouched: its rows are exactly those of the benchmark alone
    expected = mvh_trials[mvh_trials["observer"] == "resnet50"]
    assert len(published) == len(expected) and published["correct"].sum() == expected["correct"].sum()
    assert len(trials[trials["observer"] == "resnet50@my-run"]) == 160
    row = sources.set_index("observer").loc["resnet50@my-run"]
    assert row["source_kind"] == "evaluation folder" and row["source"] == str(mine)
    assert row["model"] == "torchvision:resnet50" and row["weights"] == "random (seed 0)"
    assert row["experiments"] == "edge" and row["n_experiments"] == 1
    assert row["digest"] == file_digest(mine / "trials.csv")
    published_row = sources.set_index("observer").loc["resnet50"]
    assert published_row["n_experiments"] == 17 and published_row["source_kind"] == "raw-data folder"
    files = sorted(modelvshuman_dir.glob("*/*_resnet50_session*.csv"))
    assert len(files) == 17 and published_row["digest"] == combined_digest([file_digest(f) for f in files])
    # given first, the evaluation folder's model is still the one renamed
    trials_first, _ = load_trials_with_sources([mine, modelvshuman_dir])
    assert _resnets(trials_first) == ["resnet50", "resnet50@my-run"]
    assert trials_first.loc[trials_first["observer"] == "resnet50", "experiment"].nunique() == 17


def test_every_on_conflict_option_does_what_it_says(modelvshuman_dir, mine, mvh_trials):
    n_published = int((mvh_trials["observer"] == "resnet50").sum())
    rename = load_trials([mine, modelvshuman_dir], on_conflict="rename")
    # rename: later sources renamed, in the order given (here the benchmark is second)
    assert _resnets(rename) == ["resnet50", "resnet50@modelvshuman"]
    assert (rename["observer"] == "resnet50").sum() == 160
    assert (rename["observer"] == "resnet50@modelvshuman").sum() == n_published
    first = load_trials([modelvshuman_dir, mine], on_conflict="first")
    assert _resnets(first) == ["resnet50"] and (first["observer"] == "resnet50").sum() == n_published
    last = load_trials([modelvshuman_dir, mine], on_conflict="last")
    # the whole observer comes from one source: never edge from one and the rest from the other
    kept = last[last["observer"] == "resnet50"]
    assert len(kept) == 160 and set(kept["experiment"]) == {"edge"} and kept["decision_margin"].notna().all()
    with pytest.raises(TrialTableError) as err:
        load_trials([modelvshuman_dir, mine], on_conflict="error")
    message = str(err.value)
    assert str(modelvshuman_dir) in message and str(mine) in message and "--name" in message
    assert "resnet50@my-run" in message
    with pytest.raises(ValueError, match="on_conflict must be one of"):
        load_trials([modelvshuman_dir], on_conflict="merge")  # refused even without a clash
    assert set(ON_CONFLICT) == {"prefer-margins", "first", "last", "rename", "error"}


def test_prefer_margins_between_two_trial_files(tmp_path, mvh_trials):
    base = my_model_trials(mvh_trials, seed=1)
    no_margin = base.drop(columns="decision_margin")
    no_margin.to_csv(tmp_path / "a.csv", index=False)
    base.to_csv(tmp_path / "b.csv", index=False)
    trials = load_trials([tmp_path / "a.csv", tmp_path / "b.csv"])
    assert len(trials) == 160 and trials["decision_margin"].notna().all()
    no_margin.to_csv(tmp_path / "c.csv", index=False)
    with pytest.raises(TrialTableError, match="none of them has decision margins"):
        load_trials([tmp_path / "a.csv", tmp_path / "c.csv"])
    both = load_trials([tmp_path / "a.csv", tmp_path / "c.csv"], on_conflict="rename")
    assert sorted(both["observer"].unique()) == ["resnet50", "resnet50@c"]
    # other experiments: not the same responses, so never merged nor dropped, even with margins on one side
    base.assign(experiment="my-experiment").to_csv(tmp_path / "d.csv", index=False)
    apart = load_trials([tmp_path / "a.csv", tmp_path / "d.csv"])
    assert sorted(apart["observer"].unique()) == ["resnet50", "resnet50@d"]


def test_a_trial_file_never_replaces_the_published_model(modelvshuman_dir, mvh_trials, tmp_path):
    mine = my_model_trials(mvh_trials, seed=4)  # edge only, with margins
    mine.to_csv(tmp_path / "mine.csv", index=False)
    trials = load_trials([tmp_path / "mine.csv", modelvshuman_dir])
    assert trials.loc[trials["observer"] == "resnet50", "experiment"].nunique() == 17
    assert (trials["observer"] == "resnet50@mine").sum() == 160


def test_two_evaluation_folders_of_one_name(tmp_path, mvh_trials):
    random = write_evaluation_folder(tmp_path / "runs" / "random", my_model_trials(mvh_trials, seed=2))
    other = write_evaluation_folder(tmp_path / "other" / "random", my_model_trials(mvh_trials, seed=3),
                                    weights="IMAGENET1K_V1")
    trials, sources = load_trials_with_sources([random, other])
    assert sorted(trials["observer"].unique()) == ["resnet50", "resnet50@random2"]
    assert sources.set_index("observer").loc["resnet50@random2", "weights"] == "IMAGENET1K_V1"


def test_raw_data_folders_rename_and_error(modelvshuman_dir, dmc_dir):
    edge = [modelvshuman_dir / "edge", dmc_dir / "edge"]
    renamed = load_raw_data(edge, on_conflict="rename")
    observers = set(renamed["observer"])
    assert {"resnet50", "resnet50@edge2"} <= observers
    # each model of the fork that is also in the benchmark is renamed, the humans stay
    assert renamed.groupby("observer")["item"].nunique().eq(160).all()
    with pytest.raises(TrialTableError, match="pass on_conflict='rename'"):
        load_raw_data(edge, on_conflict="error")
    assert source_label(modelvshuman_dir) == "modelvshuman"


def test_cli_ranks_both_and_refuses_on_request(modelvshuman_dir, mine, capsys):
    assert main(["ec", str(modelvshuman_dir), str(mine), "--experiment", "edge", "--resamples", "0", "--json",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert '"resnet50@my-run"' in text and '"resnet50"' in text
    assert main(["ec", str(modelvshuman_dir), str(mine), "--experiment", "edge", "--resamples", "0", "--quiet",
                 "--on-conflict", "error"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("humanlike ec: error:") and "is in two sources" in err and "repeat" not in err
    assert main(["ec", str(modelvshuman_dir), str(mine), "--experiment", "edge", "--resamples", "0", "--json",
                 "--quiet", "--on-conflict", "first"]) == 0
    assert "resnet50@my-run" not in capsys.readouterr().out


# --- provenance and ranking -------------------------------------------------------------------------------


def test_a_model_on_one_experiment_is_not_ranked_beside_full_ones(modelvshuman_dir, mine, tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["benchmark", str(modelvshuman_dir), str(mine), "--resamples", "20", "--out", str(out),
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    lines = text.split("\n\n")[0].splitlines()   # the overall table (the leaderboard follows it)
    mark = [line for line in lines if line.startswith("resnet50@my-run †")]
    assert len(mark) == 1
    # listed after every ranked model, and the footnote says how to rank it
    ranked_rows = [i for i, line in enumerate(lines) if line.split(" ")[0] in {"bagnet33", "resnet50"}]
    assert lines.index(mark[0]) > max(ranked_rows)
    assert "scored on 1 of 17 experiments (edge)" in text and "--experiment edge" in text
    leaderboard = json.loads((out / "benchmark.json").read_text())["leaderboard"]
    assert "resnet50@my-run" not in json.dumps(leaderboard)   # never ranked beside full-benchmark models
    doc = json.loads((out / "benchmark.json").read_text())
    assert doc["settings"]["partial_models"] == {"resnet50@my-run": ["edge"]}
    ranked = [r["observer"] for r in doc["ranking"]]
    assert "resnet50@my-run" not in ranked and "resnet50" in ranked and len(ranked) == 9
    sources = pd.read_csv(out / "sources.csv")
    row = sources.set_index("observer").loc["resnet50@my-run"]
    assert row["source"] == str(mine) and row["experiments"] == "edge" and row["model"] == "torchvision:resnet50"
    assert {s["observer"] for s in doc["sources"]} == set(sources["observer"])
    manifest = json.loads((out / "humanlike-manifest.json").read_text())
    assert any(f["path"] == "sources.csv" for f in manifest["files"])


def test_ec_json_and_tables_carry_the_sources(modelvshuman_dir, mine, tmp_path, capsys):
    out = tmp_path / "ec"
    assert main(["ec", str(modelvshuman_dir), str(mine), "--experiment", "edge", "--resamples", "20", "--json",
                 "--quiet", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    mine_row = next(s for s in doc["sources"] if s["observer"] == "resnet50@my-run")
    assert mine_row["experiments"] == ["edge"] and mine_row["digest"] == file_digest(mine / "trials.csv")
    # on edge alone every model has every experiment of the run: all ranked, none marked
    assert (out / "sources.csv").is_file()


def test_report_sources_section_experiment_option_and_marks(modelvshuman_dir, mine, tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", str(modelvshuman_dir), str(mine), "--analyses", "ec", "--resamples", "20",
                 "--out", str(page), "--quiet"]) == 0
    html = page.read_text()
    assert 'data-table="sources"' in html and str(mine) in html and "torchvision:resnet50" in html
    headline = html[html.index('data-table="headline"'):html.index('data-table="sources"')]
    assert "resnet50@my-run †" in headline and "1 of 17 experiments (edge)" in headline
    # --experiment: only those experiments are analysed; on edge alone the model is ranked with the others
    page2 = tmp_path / "edge.html"
    assert main(["report", str(modelvshuman_dir), str(mine), "--analyses", "ec", "--resamples", "20",
                 "--experiment", "edge", "--out", str(page2), "--quiet"]) == 0
    html2 = page2.read_text()
    headline2 = html2[html2.index('data-table="headline"'):html2.index('data-table="sources"')]
    assert "resnet50@my-run" in headline2 and "†" not in headline2
    assert "--experiment edge" in html2  # in the recorded command line
    assert "sketch" not in html2[html2.index('data-table="sources"'):]
    assert main(["report", str(modelvshuman_dir), "--experiment", "edges", "--out", str(page2), "--quiet"]) == 2
