"""Running models on generated images: decoding, decisions and margins, invariances, cache, executors,
out-of-memory retry and every bad input. Small real modules keep it fast."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from models_helpers import require_torch, tiny_module, tiny_transform

torch = require_torch()

from PIL import Image  # noqa: E402

from humanlike.trials.stimuli import StimulusError  # noqa: E402
from humanlike.measures.dmc.margins import load_imagenet16_mapping  # noqa: E402
from humanlike.models import (DeviceError, ModelSpecError, WeightsUnavailableError, decisions, evaluate,  # noqa: E402
                              extract_features, pool_activation, resolve_category_mapping, resolve_device,
                              resolve_model)
from humanlike.models import runner as runner_module  # noqa: E402
from humanlike.models.images import load_rgb  # noqa: E402

CATEGORIES = ("airplane", "bear", "knife", "oven")


@pytest.fixture()
def image_set(tmp_path):
    """20 generated images of 4 categories in odd modes and sizes."""
    rng = np.random.default_rng(0)
    root = tmp_path / "generated"
    modes = ["RGB", "L", "RGBA", "P", "I;16"]
    for i in range(20):
        cat = CATEGORIES[i % 4]
        h, w = int(rng.integers(17, 90)), int(rng.integers(17, 90))
        mode = modes[i % len(modes)]
        if mode == "I;16":
            image = Image.fromarray(rng.integers(0, 65535, (h, w)).astype(np.uint16))
        else:
            image = Image.fromarray(rng.integers(0, 255, (h, w, 3)).astype(np.uint8)).convert(mode)
        (root / cat).mkdir(parents=True, exist_ok=True)
        image.save(root / cat / f"{cat}{i}.png")
    return root


def _eval(source, **kw):
    kw.setdefault("transform", tiny_transform())
    kw.setdefault("experiment", "gen")
    model = kw.pop("model", None) or tiny_module()
    return evaluate(model, source, **kw)


# -- decoding --------------------------------------------------------------------------------------

def test_odd_images_decode_to_rgb(tmp_path):
    rgba = Image.new("RGBA", (5, 3), (10, 20, 30, 0))
    rgba.putpixel((0, 0), (10, 20, 30, 255))
    rgba.save(tmp_path / "a.png")
    got = np.asarray(load_rgb(tmp_path / "a.png"))
    assert got.shape == (3, 5, 3)
    assert tuple(got[0, 0]) == (10, 20, 30) and tuple(got[1, 1]) == (255, 255, 255)  # transparent -> white
    Image.fromarray(np.full((4, 7), 65535, dtype=np.uint16)).save(tmp_path / "b.png")
    assert np.asarray(load_rgb(tmp_path / "b.png")).min() == 255  # 16-bit full scale -> 255
    Image.new("L", (2, 2), 77).save(tmp_path / "c.png")
    assert np.asarray(load_rgb(tmp_path / "c.png")).tolist() == [[[77] * 3] * 2] * 2
    Image.new("CMYK", (3, 3), (0, 0, 0, 0)).save(tmp_path / "d.jpg")
    assert load_rgb(tmp_path / "d.jpg").mode == "RGB"


# -- decisions and margins ------------------------------------------------------------------------

def test_trials_margins_and_mapping(image_set):
    result = _eval(image_set, rule="mean-logit")
    trials = result.trials
    assert len(trials) == 20 and set(trials["observer_kind"]) == {"model"}
    assert (trials["correct"] == (trials["decision_margin"] > 0)).all()
    assert (trials["correct"] == (trials["response"] == trials["label"])).all()
    # Independent hand computation: mean logit over each present category's ImageNet indices.
    mapping = load_imagenet16_mapping()
    scores = np.stack([result.outputs[:, mapping[c]].astype(float).mean(1) for c in CATEGORIES], axis=1)
    target = np.array([CATEGORIES.index(lab) for lab in trials["label"]])
    rows = np.arange(len(target))
    other = scores.copy()
    other[rows, target] = -np.inf
    expected = (scores[rows, target] - other.max(1)) / np.sqrt(2)
    np.testing.assert_allclose(trials["decision_margin"], expected, rtol=1e-10, atol=1e-12)
    assert (trials["response"].to_numpy() == np.array(CATEGORIES)[scores.argmax(1)]).all()
    # Mean probability: softmax over all 1000 outputs first.
    prob = _eval(image_set, rule="mean-probability").trials
    p = np.exp(result.outputs - result.outputs.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    pscores = np.stack([p[:, mapping[c]].mean(1) for c in CATEGORIES], axis=1)
    pother = pscores.copy()
    pother[rows, target] = -np.inf
    np.testing.assert_allclose(prob["decision_margin"], (pscores[rows, target] - pother.max(1)) / np.sqrt(2),
                               rtol=1e-5, atol=1e-9)


def test_imagenet16_mapping_is_the_shipped_table():
    shipped = Path(__file__).resolve().parents[2] / "src" / "humanlike" / "trials" / "imagenet_16class_indices.json"
    table = json.loads(shipped.read_text())["categories"]
    assert resolve_category_mapping("imagenet16") == {k: list(v) for k, v in table.items()}
    assert len(table) == 16 and sum(map(len, table.values())) == 207


def test_shipped_table_equals_shared_data(shared_data):
    shared = json.loads((shared_data / "imagenet_16class_indices.json").read_text())
    shared = shared.get("categories", shared)
    assert resolve_category_mapping("imagenet16") == {k: list(v) for k, v in shared.items()}


def test_user_mapping_for_own_label_set(image_set, tmp_path):
    mapping = {"airplane": [0], "bear": [1], "knife": [2, 3], "oven": [4]}
    result = _eval(image_set, model=tiny_module(n_out=5), mapping=mapping)
    s = result.outputs.astype(float)
    scores = np.stack([s[:, 0], s[:, 1], s[:, 2:4].mean(1), s[:, 4]], axis=1)
    assert (result.trials["response"].to_numpy() == np.array(CATEGORIES)[scores.argmax(1)]).all()
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"categories": mapping}))
    again = _eval(image_set, model=tiny_module(n_out=5), mapping=str(path))
    pd.testing.assert_frame_equal(again.trials, result.trials)
    with pytest.raises(ValueError, match=r"label\(s\) \['oven'\] of the stimuli are not categories"):
        _eval(image_set, model=tiny_module(n_out=5), mapping={"airplane": [0], "bear": [1], "knife": [2]})


def test_tied_target_is_wrong_with_a_tied_response():
    outputs = np.array([[1.0, 1.0, 5.0], [1.0, 3.0, 0.0]])
    manifest = pd.DataFrame({"item": ["x", "y"], "path": ["-", "-"], "label": ["a", "b"],
                             "experiment": "e", "condition": "0"})
    trials = decisions(outputs, manifest, "m", mapping={"a": [0], "b": [1], "c": [2]})
    # 'c' is never a label, so the choice is between a and b: row 0 ties.
    assert trials["response"].tolist() == ["b", "b"]
    assert trials["correct"].tolist() == [False, True]
    assert trials["decision_margin"].tolist() == [0.0, pytest.approx(2 / np.sqrt(2))]
    with pytest.raises(ValueError, match="at least two categories"):
        decisions(outputs, manifest.assign(label="a"), "m", mapping={"a": [0], "b": [1], "c": [2]})


# -- features -------------------------------------------------------------------------------------

def test_features_and_pooling(image_set):
    reps = extract_features(tiny_module(), image_set, ["features.0", "features"], transform=tiny_transform(),
                            pool="avg")
    assert reps["features.0"].features.shape == (20, 8)  # conv map averaged over space
    assert reps["features"].features.shape == (20, 32 // 4)
    flat = extract_features(tiny_module(), image_set, "features.0", transform=tiny_transform())
    assert flat["features.0"].features.shape == (20, 8 * 15 * 15)
    np.testing.assert_allclose(flat["features.0"].features.reshape(20, 8, -1).mean(-1),
                               reps["features.0"].features, rtol=1e-5, atol=1e-6)
    assert list(reps["features"].items) == sorted(reps["features"].items, key=list(reps["features"].items).index)
    tokens = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    assert pool_activation(tokens, "cls").tolist() == tokens[:, 0].tolist()
    assert torch.equal(pool_activation(tokens, "avg"), tokens.mean(1))
    assert torch.equal(pool_activation((tokens, None), "max"), tokens.amax(1))


# -- invariances ----------------------------------------------------------------------------------

def test_batch_size_and_worker_count_invariance(image_set):
    base = _eval(image_set, batch_size=64, layers=["features.0"])
    for kw in ({"batch_size": 1}, {"batch_size": 7}, {"batch_size": 7, "num_workers": 2}):
        other = _eval(image_set, layers=["features.0"], **kw)
        np.testing.assert_allclose(other.outputs, base.outputs, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(other.features["features.0"].features, base.features["features.0"].features,
                                   rtol=1e-5, atol=1e-6)
        pd.testing.assert_frame_equal(other.trials.drop(columns="decision_margin"),
                                      base.trials.drop(columns="decision_margin"))


def test_bf16_autocast_keeps_float32_margins(image_set):
    base = _eval(image_set)
    low = _eval(image_set, precision="bf16")
    assert low.outputs.dtype == np.float32 and low.trials["decision_margin"].dtype == np.float64
    np.testing.assert_allclose(low.outputs, base.outputs, atol=0.1)
    assert (low.trials["correct"] == (low.trials["decision_margin"] > 0)).all()


# -- cache ----------------------------------------------------------------------------------------

def test_cache_hit_and_invalidation(image_set, tmp_path):
    model = tiny_module()
    cache = tmp_path / "cache"
    first = _eval(image_set, model=model, cache_dir=cache, shard_size=5, layers=["features.0"])
    assert model.images_seen == 20 and len(first.units) == 4
    again = _eval(image_set, model=model, cache_dir=cache, shard_size=5, layers=["features.0"])
    assert model.images_seen == 20  # no forward pass at all
    np.testing.assert_array_equal(again.outputs, first.outputs)
    # Touching a file changes nothing (the key is the content)...
    path = Path(first.manifest["path"].iloc[7])
    os.utime(path, (1, 1))
    _eval(image_set, model=model, cache_dir=cache, shard_size=5, layers=["features.0"])
    assert model.images_seen == 20
    # ...a changed image recomputes its unit only.
    Image.new("RGB", (30, 30), (200, 10, 10)).save(path)
    changed = _eval(image_set, model=model, cache_dir=cache, shard_size=5, layers=["features.0"])
    assert model.images_seen == 25
    moved = np.flatnonzero(np.any(changed.outputs != first.outputs, axis=1))
    assert moved.tolist() == [7]
    # Another layer, pooling or preprocessing is another key.
    _eval(image_set, model=model, cache_dir=cache, shard_size=5, layers=["features.0"], pool="avg")
    assert model.images_seen == 45


def test_decoded_tensor_cache_is_shared_by_models(image_set, tmp_path, monkeypatch):
    from humanlike.models import images

    decoded = {"n": 0}
    real = images.load_rgb

    def counting(path):
        decoded["n"] += 1
        return real(path)

    monkeypatch.setattr(images, "load_rgb", counting)
    plain = _eval(image_set, model=tiny_module(n_out=1000), rule="mean-logit")
    assert decoded["n"] == 20
    first = _eval(image_set, cache_dir=tmp_path / "c", tensor_cache=True)
    assert decoded["n"] == 40 and len(list((tmp_path / "c" / "tensors").rglob("*.npy"))) == 20
    other = tiny_module()
    with torch.no_grad():
        other.head.weight.mul_(2.0)  # another model, the same preprocessing
    second = _eval(image_set, model=other, cache_dir=tmp_path / "c", tensor_cache=True)
    assert decoded["n"] == 40  # no image decoded again
    np.testing.assert_array_equal(first.outputs, plain.outputs)
    assert not np.allclose(second.outputs, first.outputs)
    reference = _eval(image_set, model=other)
    np.testing.assert_allclose(second.outputs, reference.outputs, rtol=1e-6, atol=1e-7)


def test_units_are_atomic_folders(image_set, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    calls = {"n": 0}
    real = runner_module.forward_unit

    def crash_on_second(unit, progress=None):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("simulated crash")
        return real(unit, progress)

    monkeypatch.setattr(runner_module, "forward_unit", crash_on_second)
    with pytest.raises(KeyboardInterrupt):
        _eval(image_set, cache_dir=cache, shard_size=10)
    units = [p for p in cache.rglob("unit-*")]
    assert len(units) == 1 and not list(cache.rglob(".unit-*"))  # one finished unit, no half-written one
    monkeypatch.setattr(runner_module, "forward_unit", real)
    model = tiny_module()
    _eval(image_set, model=model, cache_dir=cache, shard_size=10)
    assert model.images_seen == 10  # the rerun did only the lost unit


# -- executors ------------------------------------------------------------------------------------

def test_thread_executor_gives_the_same_files(image_set, tmp_path):
    local = _eval(image_set, cache_dir=tmp_path / "a", shard_size=6, layers=["features.0"])
    with ThreadPoolExecutor(2) as pool:
        threaded = _eval(image_set, cache_dir=tmp_path / "b", shard_size=6, layers=["features.0"], executor=pool)
    assert [Path(u).name for u in local.units] == [Path(u).name for u in threaded.units]
    for a, b in zip(local.units, threaded.units):
        with np.load(Path(a) / "outputs.npz") as x, np.load(Path(b) / "outputs.npz") as y:
            np.testing.assert_array_equal(x["outputs"], y["outputs"])


def test_out_of_memory_retries_with_smaller_batches(image_set):
    class Fussy(torch.nn.Module):
        def __init__(self, limit):
            super().__init__()
            self.inner, self.limit, self.sizes = tiny_module(), limit, []

        def forward(self, x):
            self.sizes.append(x.shape[0])
            if x.shape[0] > self.limit:
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
            return self.inner(x)

    model = Fussy(limit=3)
    result = _eval(image_set, model=model, batch_size=16)
    assert max(s for s in model.sizes if s <= 3) == 2 and model.sizes[:3] == [16, 8, 4]
    reference = _eval(image_set, batch_size=2)
    np.testing.assert_allclose(result.outputs, reference.outputs, rtol=1e-5, atol=1e-6)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        _eval(image_set, model=Fussy(limit=0), batch_size=4)


# -- bad input ------------------------------------------------------------------------------------

def test_bad_models_layers_devices_and_weights(image_set, tmp_path, monkeypatch):
    with pytest.raises(ModelSpecError, match="unknown torchvision model 'resnet5O'; did you mean resnet50"):
        resolve_model("torchvision:resnet5O")
    with pytest.raises(ModelSpecError, match="unknown model library 'keras'"):
        resolve_model("keras:resnet50")
    with pytest.raises(ModelSpecError, match="unknown timm model"):
        resolve_model("timm:no_such_net_xyz")
    with pytest.raises(ModelSpecError, match="no layer named 'feature.0'; did you mean features.0"):
        _eval(image_set, layers=["feature.0"])
    class Idle(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner, self.unused = tiny_module(), torch.nn.Linear(1, 1)

        def forward(self, x):
            return self.inner(x)

    with pytest.raises(ModelSpecError, match="layer 'unused' did not run in the forward pass"):
        _eval(image_set, model=Idle(), layers=["unused"])
    with pytest.raises(DeviceError, match="unknown device 'tpu'"):
        _eval(image_set, device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="CUDA is not available"):
            _eval(image_set, device="cuda")
    assert resolve_device("auto").type in ("cpu", "cuda", "mps")
    with pytest.raises(ModelSpecError, match="weights file .*missing.pth not found"):
        resolve_model("torchvision:resnet18", weights=str(tmp_path / "missing.pth"))
    bad = tmp_path / "bad.pth"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ModelSpecError, match="cannot read weights file"):
        _eval(image_set, model=tiny_module(), weights=str(bad))
    # Offline, pretrained weights that are not cached are a clear error that says how to pass a file.
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch-home"))

    def offline(*args, **kwargs):
        raise OSError("[Errno -2] Name or service not known")

    monkeypatch.setattr("socket.create_connection", offline)
    with pytest.raises(WeightsUnavailableError, match=r"--weights /path/to/weights.pth"):
        evaluate("torchvision:resnet18", image_set, experiment="gen")
    with pytest.raises(WeightsUnavailableError, match="weights=None"):
        evaluate("timm:test_vit", image_set, experiment="gen")
    for bad_option, message in (({"precision": "fp8"}, "unknown precision"), ({"pool": "sum"}, "unknown pooling"),
                                ({"rule": "vote"}, "unknown rule"), ({"mapping": "imagenet21k"}, "unknown mapping")):
        with pytest.raises(ValueError, match=message):
            _eval(image_set, **bad_option)


def test_weights_file_round_trip(image_set, tmp_path):
    source = tiny_module()
    with torch.no_grad():
        source.head.bias.add_(1.0)
    path = tmp_path / "tiny.pth"
    torch.save({"state_dict": source.state_dict()}, path)
    loaded = _eval(image_set, model=tiny_module(), weights=str(path))
    direct = _eval(image_set, model=source)
    np.testing.assert_allclose(loaded.outputs, direct.outputs, rtol=1e-6)


def test_bad_images_during_a_run_name_the_file(image_set, tmp_path):
    broken = image_set / "oven" / "oven99.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    with pytest.raises(StimulusError, match="oven99.png"):
        _eval(image_set)
    with pytest.raises(StimulusError, match="oven99.png: cannot decode image"):  # the worker's own check
        load_rgb(broken)
    manifest = pd.DataFrame({"item": ["a"], "path": [str(tmp_path / "gone.png")], "label": ["oven"],
                             "experiment": "gen", "condition": "0"})
    with pytest.raises(StimulusError, match="gone.png: image file not found"):
        _eval(manifest)
    with pytest.raises(StimulusError, match="no images found"):
        (tmp_path / "empty").mkdir()
        _eval(tmp_path / "empty")
