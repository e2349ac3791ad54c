"""Real architectures (random weights: nothing can be downloaded here) on the real edge and silhouette
stimuli: resnet50 through the CLI into an evaluation folder that ``ec`` and ``dmc`` read together with
the humans; timm and torchvision models through the API; a real two-worker Dask cluster."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from models_helpers import IN_CI, require_torch

torch = require_torch()

from humanlike.trials.loaders import load_trials  # noqa: E402
from humanlike.trials.representations import load_representation  # noqa: E402
from humanlike.trials.stimuli import discover_stimuli  # noqa: E402
from humanlike.measures.dmc.margins import load_imagenet16_mapping  # noqa: E402
from humanlike.models import evaluate, extract_features, read_evaluation  # noqa: E402
from humanlike.app.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def edges(shared_data) -> Path:
    return shared_data / "stimuli" / "edges"


@pytest.fixture(scope="module")
def resnet50_edge_run(edges, tmp_path_factory):
    """``humanlike evaluate torchvision:resnet50`` on the 160 edge images (random weights)."""
    out = tmp_path_factory.mktemp("evaluate") / "out"
    code = main(["evaluate", "torchvision:resnet50", str(edges), "--out", str(out), "--experiment", "edge",
                 "--weights", "none", "--name", "resnet50-random", "--layers", "avgpool", "layer4",
                 "--pool", "avg", "--batch-size", "32", "--quiet"])
    assert code == 0
    return out


def test_cli_writes_a_valid_evaluation_folder(resnet50_edge_run, edges):
    out = resnet50_edge_run
    doc = read_evaluation(out)
    (run,) = doc["runs"]
    assert run["model"] == "resnet50-random" and run["arch"] == "resnet50" and run["weights"] is None
    assert run["layers"] == ["avgpool", "layer4"] and "ImageClassification" in run["preprocessing"]
    trials = load_trials(out)
    assert len(trials) == 160 and set(trials["observer"]) == {"resnet50-random"}
    assert (trials["correct"] == (trials["decision_margin"] > 0)).all()
    assert trials["label"].value_counts().eq(10).all()
    rep = load_representation(out / run["features"]["layer4"])
    assert rep.features.shape == (160, 2048) and rep.features.dtype == np.float32
    assert list(rep.items) == trials["item"].tolist()
    # avgpool is layer4 averaged over space: the two stored layers agree.
    avg = load_representation(out / run["features"]["avgpool"])
    np.testing.assert_allclose(avg.features, rep.features, rtol=1e-4, atol=1e-5)
    with np.load(out / run["outputs"]) as saved:
        assert saved["outputs"].shape == (160, 1000)
    stimuli = pd.read_csv(out / "stimuli.csv")
    assert (out / stimuli["path"].iloc[0]).resolve() == (edges / stimuli["label"].iloc[0] / stimuli["item"].iloc[0]).resolve()


def test_rerun_is_a_cache_hit_and_adds_models(resnet50_edge_run, edges, capsys, monkeypatch):
    from humanlike.models import runner

    def no_forward(*args, **kwargs):
        raise AssertionError("a cached unit was recomputed")

    monkeypatch.setattr(runner, "forward_unit", no_forward)
    assert main(["evaluate", "torchvision:resnet50", str(edges), "--out", str(resnet50_edge_run), "--experiment",
                 "edge", "--weights", "none", "--name", "resnet50-random", "--layers", "avgpool", "layer4",
                 "--pool", "avg", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["models"][0]["trials"] == 160
    assert len(load_trials(resnet50_edge_run)) == 160  # replaced, not duplicated


def test_ec_ranks_the_new_model_among_the_benchmark(resnet50_edge_run, modelvshuman_dir, capsys):
    trials = load_trials([modelvshuman_dir, resnet50_edge_run])
    edge = trials[trials["experiment"] == "edge"]
    humans = set(edge.loc[edge["observer"] == "subject-01", "item"])
    mine = set(edge.loc[edge["observer"] == "resnet50-random", "item"])
    assert len(humans) == 160 and mine == humans
    code = main(["ec", str(modelvshuman_dir), str(resnet50_edge_run), "--experiment", "edge", "--resamples", "200",
                 "--json", "--quiet"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    text = json.dumps(doc)
    assert "resnet50-random" in text and "swag-vit-b16-in1k" in text
    code = main(["dmc", str(modelvshuman_dir / "edge"), str(resnet50_edge_run), "--experiment", "edge",
                 "--resamples", "100", "--json", "--quiet"])
    assert code == 0
    assert "resnet50-random" in capsys.readouterr().out


def test_cli_errors_exit_2(edges, tmp_path, capsys):
    cases = [
        (["torchvision:resnet5O", str(edges)], "did you mean resnet50"),
        (["torchvision:resnet18", str(tmp_path / "nowhere")], "no such stimulus folder"),
        (["torchvision:resnet18", str(edges), "--device", "tpu"], "unknown device 'tpu'"),
        (["torchvision:resnet18", str(edges), "--weights", str(tmp_path / "w.pth")], "w.pth not found"),
        ([str(edges)], "at least one MODEL"),
        (["torchvision:resnet18", "timm:test_vit", str(edges), "--name", "x"], "--name needs exactly one MODEL"),
    ]
    for argv, message in cases:
        assert main(["evaluate", *argv, "--out", str(tmp_path / "o"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("humanlike evaluate: error:") and message in err, err


def test_timm_vit_features_and_decisions(edges):
    result = evaluate("timm:test_vit", edges, experiment="edge", weights=None, layers=["blocks.0", "head"],
                      pool="cls", batch_size=50)
    trials = result.trials
    assert len(trials) == 160 and (trials["correct"] == (trials["decision_margin"] > 0)).all()
    assert result.info["preprocessing"].startswith("Compose")  # timm's own default preprocessing
    assert result.features["blocks.0"].features.shape[0] == 160
    np.testing.assert_allclose(result.features["head"].features, result.outputs, rtol=1e-5, atol=1e-6)
    # Random weights are seeded: the same in every run and every worker.
    again = evaluate("timm:test_vit", edges, experiment="edge", weights=None, batch_size=50)
    np.testing.assert_array_equal(again.outputs, result.outputs)


def test_resnet18_on_silhouettes(shared_data):
    reps = extract_features("torchvision:resnet18", shared_data / "stimuli" / "filled-silhouettes", ["avgpool"],
                            weights=None, batch_size=40)
    rep = reps["avgpool"]
    assert rep.features.shape == (160, 512) and np.isfinite(rep.features).all()
    assert set(rep.labels) == set(load_imagenet16_mapping()) and rep.items.size == len(set(rep.items))


def test_dask_cluster_gives_the_same_files(edges, tmp_path):
    if not IN_CI:  # in CI the dask extra is installed: a missing one fails below
        pytest.importorskip("distributed")
    manifest = pd.concat([g.head(3) for _, g in discover_stimuli(edges).groupby("label")])
    kw = dict(experiment="edges", weights=None, layers=["blocks.1"], pool="avg", shard_size=12, batch_size=8)
    local = evaluate("timm:test_vit", manifest, cache_dir=tmp_path / "local", **kw)
    dask = evaluate("timm:test_vit", manifest, cache_dir=tmp_path / "dask", executor="dask", workers=2, **kw)
    assert len(local.units) == 4
    assert [Path(u).relative_to(tmp_path / "local") for u in local.units] == \
        [Path(u).relative_to(tmp_path / "dask") for u in dask.units]
    for a, b in zip(local.units, dask.units):
        names = sorted(p.name for p in Path(a).iterdir())
        assert names == sorted(p.name for p in Path(b).iterdir()) == ["blocks.1.npz", "outputs.npz"]
        for name in names:
            with np.load(Path(a) / name) as x, np.load(Path(b) / name) as y:
                assert sorted(x.files) == sorted(y.files)
                for key in x.files:
                    if x[key].dtype.kind == "f":
                        np.testing.assert_allclose(x[key], y[key], rtol=1e-5, atol=1e-6)
                    else:
                        np.testing.assert_array_equal(x[key], y[key])
    pd.testing.assert_frame_equal(local.trials, dask.trials, check_exact=False, rtol=1e-5)
