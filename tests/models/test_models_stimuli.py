"""Stimulus manifests (no torch) and evaluation folders as DATA for load_trials."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pandas as pd
import pytest

from humanlike.trials.evaluation_folders import EVALUATION_FORMAT, is_evaluation_folder
from humanlike.trials.loaders import load_trials
from humanlike.trials.stimuli import MANIFEST_COLUMNS, StimulusError, discover_stimuli, write_manifest

PIL = pytest.importorskip("PIL")  # the models extra brings pillow; the stimulus checks use it
from PIL import Image  # noqa: E402


def _png(path, size=(8, 6), mode="RGB", color=128):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new(mode, size, color).save(path)
    return path


def test_real_edges_folder(shared_data):
    manifest = discover_stimuli(shared_data / "stimuli" / "edges", experiment="edge")
    assert list(manifest.columns) == list(MANIFEST_COLUMNS)
    assert len(manifest) == 160
    assert manifest["label"].value_counts().eq(10).all() and manifest["label"].nunique() == 16
    assert set(manifest["experiment"]) == {"edge"} and set(manifest["condition"]) == {"0"}
    assert "airplane1.png" in set(manifest["item"]) and manifest["item"].is_unique
    row = manifest.set_index("item").loc["oven10.png"]
    assert row["label"] == "oven" and row["path"].endswith("edges/oven/oven10.png")
    # Default experiment: the folder's name.
    assert set(discover_stimuli(shared_data / "stimuli" / "filled-silhouettes")["experiment"]) == {"filled-silhouettes"}


def test_benchmark_layouts(tmp_path):
    root = tmp_path / "datasets"
    _png(root / "colour" / "cr" / "oven" / "a.png")
    _png(root / "colour" / "bw" / "oven" / "a.png")
    _png(root / "colour" / "bw" / "knife" / "b.png")
    _png(root / "contrast" / "c05" / "knife" / "b.png")
    manifest = discover_stimuli(root)
    assert len(manifest) == 4
    assert set(map(tuple, manifest[["experiment", "condition", "item", "label"]].to_numpy())) == {
        ("colour", "cr", "a.png", "oven"), ("colour", "bw", "a.png", "oven"), ("colour", "bw", "b.png", "knife"),
        ("contrast", "c05", "b.png", "knife")}
    assert len(discover_stimuli(root, experiment="colour")) == 3
    with pytest.raises(StimulusError, match="no experiment folder named 'edge'"):
        discover_stimuli(root, experiment="edge")
    # <experiment>/<condition>/<image>: the label comes from model-vs-human file names.
    flat = tmp_path / "flat"
    _png(flat / "colour" / "cr" / "0001_cl_dnn_cr_knife_40_n03041632_14056.png")
    got = discover_stimuli(flat)
    assert got[["experiment", "condition", "label"]].iloc[0].tolist() == ["colour", "cr", "knife"]
    _png(flat / "colour" / "cr" / "noname.png")
    with pytest.raises(StimulusError, match="noname.png: cannot tell this image's category"):
        discover_stimuli(flat)


def test_duplicate_file_names_get_category_prefix(tmp_path):
    _png(tmp_path / "set" / "cat" / "1.png")
    _png(tmp_path / "set" / "dog" / "1.png")
    manifest = discover_stimuli(tmp_path / "set")
    assert sorted(manifest["item"]) == ["cat/1.png", "dog/1.png"]


def test_manifest_csv_relative_and_absolute_paths(tmp_path):
    a = _png(tmp_path / "imgs" / "a.png")
    b = _png(tmp_path / "elsewhere" / "b.png")
    csv = tmp_path / "m" / "manifest.csv"
    csv.parent.mkdir()
    pd.DataFrame({"item": ["a", "b"], "path": ["../imgs/a.png", str(b)], "label": ["cat", "dog"],
                  "experiment": ["exp", "exp"], "condition": ["1", "2"]}).to_csv(csv, index=False)
    manifest = discover_stimuli(csv)
    assert manifest["path"].tolist() == [str(a.resolve()), str(b.resolve())]
    assert manifest["condition"].tolist() == ["1", "2"]
    # Round trip: written paths are relative to the new CSV and read back to the same files.
    out = write_manifest(manifest, tmp_path / "copy" / "stimuli.csv")
    assert pd.read_csv(out)["path"].iloc[0] == "../imgs/a.png"
    pd.testing.assert_frame_equal(discover_stimuli(out), manifest)
    # A DataFrame works too; missing experiment/condition columns take defaults.
    frame = pd.DataFrame({"item": ["a"], "path": [str(a)], "label": ["cat"]})
    got = discover_stimuli(frame, experiment="mine")
    assert got[["experiment", "condition"]].iloc[0].tolist() == ["mine", "0"]


@pytest.mark.parametrize("case, message", [
    ("missing-folder", "no such stimulus folder"),
    ("empty-folder", "no images found"),
    ("mixed-depth", "different folder depths"),
    ("corrupt", "broken.png: not a readable image"),
    ("missing-image", "gone.png: image file not found"),
    ("missing-column", r"missing column\(s\) \['label'\]"),
    ("duplicate-item", "appears twice"),
    ("empty-cell", "column 'label' is empty"),
    ("not-csv", "expected a stimulus folder or a manifest .csv"),
])
def test_bad_stimuli_are_clear_errors(tmp_path, case, message):
    root = tmp_path / "set"
    if case == "missing-folder":
        source = tmp_path / "nope"
    elif case == "empty-folder":
        (root / "cat").mkdir(parents=True)
        (root / "cat" / "notes.txt").write_text("x")
        source = root
    elif case == "mixed-depth":
        _png(root / "cat" / "a.png")
        _png(root / "x" / "y" / "z" / "b.png")
        source = root
    elif case == "corrupt":
        _png(root / "cat" / "a.png")
        (root / "cat" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
        source = root
    elif case == "not-csv":
        source = _png(root / "a.png")
    else:
        _png(root / "a.png")
        rows = {"item": ["a", "b"], "path": ["a.png", "gone.png"], "label": ["cat", "dog"]}
        if case == "missing-column":
            del rows["label"]
        if case == "duplicate-item":
            rows["item"] = ["a", "a"]
            rows["path"] = ["a.png", "a.png"]
        if case == "empty-cell":
            rows["label"] = ["cat", ""]
        source = root / "manifest.csv"
        pd.DataFrame(rows).to_csv(source, index=False)
        if case in ("duplicate-item", "empty-cell", "missing-column"):
            pass
    with pytest.raises(StimulusError, match=message):
        discover_stimuli(source, experiment="exp")


def _fake_evaluation(folder, items, observer="mymodel", experiment="edge"):
    """An evaluation folder as ``humanlike evaluate`` writes it (written by hand: no torch needed)."""
    folder.mkdir(parents=True)
    labels = [re.sub(r"\d+\.png$", "", i) for i in items]
    margin = np.where(np.arange(len(items)) % 2 == 0, 0.5, -0.5)
    response = [lab if m > 0 else ("knife" if lab != "knife" else "oven") for lab, m in zip(labels, margin)]
    pd.DataFrame({"observer": observer, "observer_kind": "model", "experiment": experiment, "condition": "0",
                  "item": items, "label": labels, "response": response,
                  "correct": [r == lab for r, lab in zip(response, labels)], "decision_margin": margin,
                  }).to_csv(folder / "trials.csv", index=False)
    (folder / "evaluation.json").write_text(json.dumps({"format": EVALUATION_FORMAT, "version": 1,
                                                        "trials": "trials.csv", "runs": []}))
    return folder


def test_evaluation_folder_items_align_with_edge_humans(modelvshuman_dir, tmp_path):
    humans = load_trials(modelvshuman_dir / "edge")
    bare = sorted(humans.loc[humans["observer"] == "resnet50", "item"].unique())
    assert len(bare) == 160
    folder = _fake_evaluation(tmp_path / "out", bare)
    assert is_evaluation_folder(folder) and not is_evaluation_folder(tmp_path)
    alone = load_trials(folder)
    assert set(alone["item"]) == set(bare)
    # With the benchmark's models present the humans' items are bare names already.
    both = load_trials([modelvshuman_dir / "edge", folder])
    mine = set(both.loc[both["observer"] == "mymodel", "item"])
    subject = set(both.loc[both["observer"] == "subject-01", "item"])
    assert mine == subject and len(mine) == 160
    # Humans alone keep their long ids ('0_oven_00_oven10.png'); the model's bare names are matched to them.
    human_only = tmp_path / "humans" / "edge"
    human_only.mkdir(parents=True)
    for f in (modelvshuman_dir / "edge").glob("edge_subject-0[12]_*.csv"):
        (human_only / f.name).write_bytes(f.read_bytes())
    joint = load_trials([human_only.parent, folder])
    mine = set(joint.loc[joint["observer"] == "mymodel", "item"])
    assert mine == set(joint.loc[joint["observer"] == "subject-01", "item"])
    assert any(i.endswith("_oven10.png") for i in mine)


def test_cli_parser_does_not_import_torch():
    code = ("import sys; from humanlike.app.cli import build_parser; build_parser(); "
            "import humanlike.app.cli_models; print('torch' in sys.modules)")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_evaluate_without_torch_exits_2(tmp_path):
    # A torch that cannot be imported: the command says which extra to install.
    fake = tmp_path / "fake"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
    stimuli = tmp_path / "stimuli"   # the output goes beside the stimuli, not into them (refused before any work)
    stimuli.mkdir()
    code = ("import sys; from humanlike.app.cli import main; "
            f"sys.exit(main(['evaluate', 'torchvision:resnet18', {str(stimuli)!r}, '--out', {str(tmp_path / 'o')!r}]))")
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), *sys.path])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 2
    assert "install humanlike[models]" in out.stderr
