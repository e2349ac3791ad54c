"""``humanlike sequences`` / ``humanlike psychscore``, the real silhouettes, and the network observer."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.psychscore.sequences import build_sequences, load_object_images, read_sequence_manifest
from humanlike.app.cli import main


@pytest.fixture(scope="module")
def silhouettes(shared_data):
    path = shared_data / "stimuli" / "filled-silhouettes"
    if not path.is_dir():
        pytest.skip(f"{path} missing")
    return path


@pytest.fixture(scope="module")
def sequence_dir(silhouettes, tmp_path_factory):
    out = tmp_path_factory.mktemp("seq")
    assert main(["sequences", str(silhouettes), "--out", str(out), "--classes", "bear", "airplane", "car", "cat",
                 "--pairs-per-class-pair", "3"]) == 0
    return out


@pytest.mark.realdata
def test_real_silhouette_pairs(silhouettes):
    objects = load_object_images(silhouettes, classes=["cat", "airplane", "bear"])
    assert objects.classes == ["airplane", "bear", "cat"]
    assert all(objects.grey[c].shape == (10, 224, 224) for c in objects.classes)
    seqs = build_sequences(objects)
    assert seqs.class_pairs() == [("airplane", "bear"), ("airplane", "cat"), ("bear", "cat")]
    assert len(seqs.pairs) == 30
    for _, group in seqs.pairs.groupby(["class_a", "class_b"]):
        jac = group["jaccard"].to_numpy()
        assert np.all(np.diff(jac) <= 0) and np.all((jac > 0) & (jac <= 1))
    # The silhouette masks are the dark pixels.
    assert 0.02 < objects.masks["airplane"].mean() < 0.6


@pytest.mark.realdata
def test_cli_sequences_and_psychscore(sequence_dir, tmp_path, capsys):
    manifest = read_sequence_manifest(sequence_dir)
    assert len(manifest) == 6 * 3 * 7 and manifest["path"].map(lambda p: pd.io.common.file_exists(p)).all()
    # The run's record: every image and the stimulus manifest, complete.
    record = json.loads((sequence_dir / "humanlike-manifest.json").read_text())
    assert record["complete"] is True and len(record["files"]) == len(manifest) + 1
    assert record["files"][-1]["path"] == "manifest.csv"
    capsys.readouterr()
    code = main(["psychscore", "--sequences", str(sequence_dir), "--observers", "pixel", "gabor", "random",
                 "--simulate-humans", "4", "--resamples", "50", "--json", "--figure", str(tmp_path / "fig.png"),
                 "--out", str(tmp_path / "out")])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    names = {r["observer"] for r in doc["observers"]}
    assert names == {"humans", "pixel", "gabor", "random"}
    pixel = next(r for r in doc["observers"] if r["observer"] == "pixel")
    assert {"score", "score_ci_low", "score_ci_high", "variance_S"} <= set(pixel)
    assert (tmp_path / "fig.png").stat().st_size > 10_000
    assert (tmp_path / "out" / "psychscore_scales.csv").exists()
    record = json.loads((tmp_path / "out" / "humanlike-manifest.json").read_text())
    assert sorted(f["path"] for f in record["files"]) == sorted(
        ["psychscore.csv", "psychscore_scales.csv", "psychscore_chance.csv", "psychscore.json", str(tmp_path / "fig.png")])
    # Judgement files round-trip through the CLI.
    scales = pd.read_csv(tmp_path / "out" / "psychscore_scales.csv")
    assert len(scales) == 4 * 6 and scales["separated"].dtype == bool


def test_cli_errors(tmp_path, capsys):
    assert main(["psychscore", str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv: no such judgement file" in capsys.readouterr().err
    assert main(["psychscore"]) == 2
    assert "judgement files" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"observer": ["a"], "class_a": ["x"], "class_b": ["y"], "S1": [1], "S2": [2],
                  "response": [1]}).to_csv(bad, index=False)
    assert main(["psychscore", str(bad)]) == 2
    assert "bad.csv: judgement table is missing column(s) ['s3']" in capsys.readouterr().err


def _image_folder(root):
    from PIL import Image

    rng = np.random.default_rng(0)
    for c in ("ant", "bee", "cat"):
        (root / c).mkdir(parents=True)
        for k in range(2):
            img = np.full((64, 64, 3), 255, np.uint8)
            y, x = rng.integers(4, 28, size=2)
            img[y:y + 20, x:x + 24] = 0
            Image.fromarray(img).save(root / c / f"{c}{k + 1}.png")
    return root


def test_network_observer_on_written_sequences(tmp_path):
    torch = pytest.importorskip("torch")
    from humanlike.measures.psychscore.sequences import write_sequences
    from humanlike.models.observer import network_judgements

    seqs = build_sequences(load_object_images(_image_folder(tmp_path / "imgs")), pairs_per_class_pair=1, n_levels=5)
    write_sequences(seqs, tmp_path / "seq")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 5, stride=4), torch.nn.ReLU(), torch.nn.Conv2d(4, 4, 3),
                              torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten())
    judgements = network_judgements(net, tmp_path / "seq", ["1", "3"], name="tiny", device="cpu")
    assert set(judgements["observer"]) == {"tiny/1", "tiny/3"}
    assert len(judgements) == 2 * 3 * 10                      # 2 layers x 3 sequences x C(5, 3) triads
    assert judgements["response"].isin([0, 1]).all()
    # The cut network's layer-1 distances equal those of the full network's layer-1 activations.
    from humanlike.models.observer import network_distances

    cut, _ = network_distances(net, tmp_path / "seq", ["1"], device="cpu")
    full, _ = network_distances(net, tmp_path / "seq", ["1", "5"], device="cpu")
    np.testing.assert_allclose(cut["1"], full["1"], rtol=1e-5)


@pytest.mark.realdata
def test_count_fit_equals_fit_mlds_on_real_data(shared_data):
    """Pooling trials into counts changes nothing: the batched count fit equals the MLDS GLM fit (which
    equals R MLDS) on the real data sets, and a scale without class pairs is never mirrored."""
    from humanlike.measures.psychscore.analysis import skewness_table
    from humanlike.trials.judgement_files import load_judgements
    from humanlike.measures.psychscore.metric import scale_skewness
    from humanlike.measures.mlds.fit import fit_mlds

    folder = shared_data / "mlds"
    for files in (["AutumnLab.csv"], ["kk1.csv", "kk2.csv", "kk3.csv"], ["kktriad.csv"], ["Transparency.csv"]):
        table = load_judgements([folder / f for f in files])
        scales, chance = skewness_table(table)
        for row in scales.itertuples(index=False):
            reference = fit_mlds(table[table["observer"] == row.observer])
            psi = np.array([getattr(row, f"psi_{k + 1}") for k in range(reference.n_levels)])
            np.testing.assert_allclose(psi, reference.standard_scale, atol=1e-6)
            assert row.skewness == pytest.approx(scale_skewness(np.asarray(reference.scale)), abs=1e-6)
            assert not row.separated and row.p_flat < 1e-20


def test_demo_part_writes_scores_and_figure(tmp_path):
    import types

    from humanlike.files import RunOutputs
    from humanlike.measures.contract import DemoRun
    from humanlike.measures.psychscore.demo import demo

    run = DemoRun(types.SimpleNamespace(seed=0, resamples=40, level=0.95, out=tmp_path, format="csv"),
                  outputs=RunOutputs(tmp_path))
    files = demo(None, run)
    assert type(run.results["psychscore"]).__name__ == "PsychScoreResult"
    assert [f.name for f in files] == ["psychscore.csv", "psychscore.png"]
    table = pd.read_csv(files[0]).set_index("observer")
    assert table.loc["model-humanlike", "score"] > 0.8 > table.loc["model-alien", "score"]
