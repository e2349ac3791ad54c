"""More model sources (issue 24): open_clip zero-shot classifiers over class prompts and Hugging Face image
classifiers, each run with RANDOM weights on real edge stimuli (tiny architectures: a registered tiny CLIP
config, a tiny ViT config folder), and a clear offline error for real weights (nothing is downloaded here);
``humanlike evaluate MODEL --list-layers``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from models_helpers import IN_CI, require_torch

torch = require_torch()

from humanlike.trials.stimuli import discover_stimuli  # noqa: E402
from humanlike.measures.dmc.margins import load_imagenet16_mapping  # noqa: E402
from humanlike.models import ModelSpecError, WeightsUnavailableError, evaluate, read_evaluation, resolve_model  # noqa: E402
from humanlike.app.cli import main  # noqa: E402

SIXTEEN = list(load_imagenet16_mapping())


def _optional(name):
    try:
        return __import__(name)
    except ImportError as err:
        if IN_CI:
            pytest.fail(f"{name} is part of the models extra ({err})", pytrace=False)
        pytest.skip(f"{name} not installed", allow_module_level=False)


@pytest.fixture(scope="module")
def edge_subset(shared_data, tmp_path_factory) -> Path:
    """Two edge images per category (32), as a manifest CSV."""
    manifest = discover_stimuli(shared_data / "stimuli" / "edges")
    subset = pd.concat([g.head(2) for _, g in manifest.groupby("label")]).assign(experiment="edge")
    path = tmp_path_factory.mktemp("stimuli") / "manifest.csv"
    subset[["item", "path", "label", "experiment", "condition"]].to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def tiny_clip():
    """A real open_clip CLIP (ViT image tower, transformer text tower, CLIP tokenizer) of a few thousand weights."""
    open_clip = _optional("open_clip")
    import tempfile

    folder = Path(tempfile.mkdtemp())
    config = {"embed_dim": 16,
              "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "patch_size": 16, "head_width": 16},
              "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1}}
    (folder / "tiny-clip.json").write_text(json.dumps(config))
    open_clip.add_model_config(folder)
    return "clip:tiny-clip"


@pytest.fixture(scope="module")
def tiny_hf(tmp_path_factory) -> str:
    """A Hugging Face ViT image classifier (1000 ImageNet outputs) saved as a config folder."""
    transformers = _optional("transformers")
    folder = tmp_path_factory.mktemp("hf") / "tiny-vit"
    config = transformers.ViTConfig(image_size=32, patch_size=16, hidden_size=32, num_hidden_layers=1,
                                    num_attention_heads=2, intermediate_size=64, num_labels=1000)
    config.save_pretrained(folder)
    return f"hf:{folder}"


def test_clip_zero_shot_with_random_weights(tiny_clip, edge_subset, tmp_path):
    result = evaluate(tiny_clip, edge_subset, weights="none", batch_size=16)
    assert result.outputs.shape == (32, 16)  # one output per category: the prompts' classes
    assert result.info["mapping"] == "prompts" and list(result.info["prompts"]) == SIXTEEN
    assert result.info["prompts"]["cat"][0] == "a photo of a cat."
    trials = result.trials
    assert set(trials["response"]) <= set(SIXTEEN) and len(trials) == 32
    assert (trials["correct"] == (trials["decision_margin"] > 0)).all()
    # the response is the category whose prompts the image is closest to
    best = np.array(SIXTEEN)[result.outputs.argmax(axis=1)]
    assert (trials["response"].to_numpy() == best).mean() > 0.9  # ties aside
    again = evaluate(tiny_clip, edge_subset, weights="none", batch_size=5)
    np.testing.assert_allclose(again.outputs, result.outputs, rtol=1e-5, atol=1e-6)  # seeded random weights
    # other prompts: another classifier (other key, other outputs)
    prompts = {c: [f"an outline drawing of a {c}"] for c in SIXTEEN}
    other = evaluate(resolve_model(tiny_clip, weights="none", prompts=prompts), edge_subset)
    assert other.info["model_key"] != result.info["model_key"]
    assert not np.allclose(other.outputs, result.outputs)


def test_clip_through_the_cli_with_prompts(tiny_clip, edge_subset, tmp_path, capsys):
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps({c: [f"a {c}", f"an edge drawing of a {c}"] for c in SIXTEEN}))
    out = tmp_path / "out"
    assert main(["evaluate", tiny_clip, str(edge_subset), "--weights", "none", "--prompts", str(prompts),
                 "--out", str(out), "--quiet"]) == 0
    (run,) = read_evaluation(out)["runs"]
    assert run["source"] == "clip" and run["prompts"]["cat"] == ["a cat", "an edge drawing of a cat"]
    assert main(["evaluate", "torchvision:squeezenet1_1", str(edge_subset), "--weights", "none", "--prompts",
                 str(prompts), "--out", str(tmp_path / "o2"), "--quiet"]) == 2
    assert "--prompts applies to clip: models" in capsys.readouterr().err
    prompts.write_text("[1, 2]")
    assert main(["evaluate", tiny_clip, str(edge_subset), "--weights", "none", "--prompts", str(prompts),
                 "--out", str(out), "--quiet"]) == 2
    assert "--prompts" in capsys.readouterr().err


def test_clip_real_weights_offline_errors(tiny_clip):
    _optional("open_clip")
    with pytest.raises(WeightsUnavailableError, match="cannot be downloaded"):
        resolve_model("clip:RN50", weights="openai").build()
    with pytest.raises(ModelSpecError, match="no weights 'imagenet'; choose from"):
        resolve_model("clip:RN50", weights="imagenet")
    with pytest.raises(WeightsUnavailableError, match="Hugging Face tokenizer"):
        resolve_model("clip:ViT-B-16-SigLIP", weights="none").build()
    with pytest.raises(ModelSpecError, match="unknown clip model 'ViT-B-33'; did you mean"):
        resolve_model("clip:ViT-B-33")


def test_hf_classifier_with_random_weights(tiny_hf, edge_subset):
    result = evaluate(tiny_hf, edge_subset, weights="none", batch_size=16, layers=["vit.layers.0"],
                      pool="cls")
    assert result.model == "tiny-vit" and result.outputs.shape == (32, 1000)
    assert set(result.trials["response"]) <= set(SIXTEEN)  # 1000 ImageNet outputs -> the 16 categories
    assert result.features["vit.layers.0"].features.shape == (32, 32)
    again = evaluate(tiny_hf, edge_subset, weights="none")
    np.testing.assert_allclose(again.outputs, result.outputs, rtol=1e-5, atol=1e-6)


def test_hf_real_names_are_local_only(tiny_hf):
    for weights in ("default", "none"):  # even random weights need the config, from the cache only
        with pytest.raises(WeightsUnavailableError, match="huggingface-cli download google/vit-base-patch16-224"):
            resolve_model("hf:google/vit-base-patch16-224", weights=weights).build()


def test_list_layers(tiny_clip, tiny_hf, capsys):
    assert main(["evaluate", "torchvision:squeezenet1_1", tiny_clip, tiny_hf, "--list-layers"]) == 0
    out = capsys.readouterr().out
    assert "squeezenet1_1 (torchvision:squeezenet1_1)" in out and "  features.0 " in out
    assert "clip.visual.transformer" in out and "vit.layers.0 " in out
    # every listed name is accepted by --layers
    names = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    model = resolve_model(tiny_hf, weights="none").build()
    assert {n for n, _ in model.named_modules() if n} <= set(names)
    # nothing is downloaded: a model whose real weights are not here still lists its layers
    assert main(["evaluate", "torchvision:resnet18", "--list-layers", "--weights", "default"]) == 0
    assert "layer4.1.conv2" in capsys.readouterr().out
