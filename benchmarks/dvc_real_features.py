"""DVC on real stimuli with real (random-weight) architectures: python benchmarks/dvc_real_features.py [OUT]

Features of the model-vs-human edge and filled-silhouette images (16 classes x 20 images; no weights can be
downloaded, so the networks are randomly initialised with fixed seeds) are written as representation files
(.npz) under OUT (default ``humanlike-out/dvc-real``) through ``humanlike.models.extract_features`` when the
model layer is installed, else with torchvision directly; then ``dvc_representations`` compares
resnet18 (seed 0) with resnet18 (seed 1) and with alexnet (seed 0), at their penultimate layers.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
STIMULI = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data")) / "stimuli"


def torchvision_features(arch: str, seed: int, layer: str):
    """(features, items, labels) of one randomly initialised torchvision network at ``layer`` (avg-pooled)."""
    import numpy as np
    import torch
    import torchvision
    from PIL import Image

    torch.manual_seed(seed)
    model = getattr(torchvision.models, arch)(weights=None).eval()
    captured = {}
    getattr(model, layer).register_forward_hook(lambda m, i, o: captured.__setitem__("x", o))
    transform = torchvision.transforms.Compose([
        torchvision.transforms.Resize(224), torchvision.transforms.CenterCrop(224),
        torchvision.transforms.ToTensor(),
        torchvision.transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    items, labels, feats = [], [], []
    for stimulus_set in ("edges", "filled-silhouettes"):
        for path in sorted((STIMULI / stimulus_set).glob("*/*.png")):
            items.append(f"{stimulus_set}/{path.parent.name}/{path.name}")
            labels.append(path.parent.name)
    with torch.no_grad():
        for start in range(0, len(items), 32):
            batch = torch.stack([transform(Image.open(STIMULI / i).convert("RGB")) for i in items[start:start + 32]])
            model(batch)
            x = captured["x"]
            feats.append(torch.flatten(x.mean(dim=(2, 3)) if x.ndim == 4 else x, 1).numpy())
    return np.concatenate(feats), np.array(items), np.array(labels)


def main() -> int:
    from humanlike.measures.dvc.representations import dvc_representations
    from humanlike.trials.representations import Representation, save_representation
    from humanlike.resampling.settings import ResamplingSettings

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("humanlike-out/dvc-real")
    systems = {"resnet18-seed0": ("resnet18", 0, "avgpool"), "resnet18-seed1": ("resnet18", 1, "avgpool"),
               "alexnet-seed0": ("alexnet", 0, "avgpool")}
    reps = {}
    for name, (arch, seed, layer) in systems.items():
        f, items, labels = torchvision_features(arch, seed, layer)
        reps[name] = Representation(f, items, labels, name=f"{name}/{layer}",
                                    metadata={"arch": arch, "seed": seed, "layer": layer, "weights": None})
        save_representation(reps[name], out / f"{name}.npz")
    results = {}
    for a, b in (("resnet18-seed0", "resnet18-seed1"), ("resnet18-seed0", "alexnet-seed0"),
                 ("resnet18-seed0", "resnet18-seed0")):
        start = time.perf_counter()
        r = dvc_representations(reps[a], reps[b], n_components=10, n_splits=10,
                                settings=ResamplingSettings(n_resamples=1000, seed=0))
        doc = r.to_json_dict()
        results[f"{a} vs {b}"] = {"dvc": doc["dvc"], "dvc_abs": doc["dvc_abs"],
                                  "kappa": doc["kappa"]["kappa"], "kappa_bound": doc["kappa"]["kappa_bound"],
                                  "accuracies": [doc["kappa"]["accuracy_a"]["estimate"],
                                                 doc["kappa"]["accuracy_b"]["estimate"]],
                                  "seconds": round(time.perf_counter() - start, 2)}
    from humanlike.files import to_json_text

    print(to_json_text(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
