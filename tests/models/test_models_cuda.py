"""The CUDA paths of model evaluation, run on a real GPU: float32 agreement with the CPU, the tf32, bf16 and
fp16 precisions, data-loader worker processes once CUDA is initialised, and the out-of-memory retry against
the real allocator. Skipped where no CUDA device is present (CI has none); see docs/measures/model-evaluation.md
for how and where they were run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from models_helpers import require_torch

torch = require_torch()

from PIL import Image  # noqa: E402

from humanlike.models import evaluate, resolve_device  # noqa: E402
from humanlike.models.devices import cuda_float32_switches  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")

CATEGORIES = ("airplane", "bear", "knife", "oven")
N_IMAGES = 48


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    """48 generated 96 x 96 images of 4 categories (smooth noise, so the network's responses vary)."""
    rng = np.random.default_rng(3)
    root = tmp_path_factory.mktemp("cuda") / "generated"
    for i in range(N_IMAGES):
        category = CATEGORIES[i % 4]
        coarse = rng.integers(0, 255, (12, 12, 3)).astype(np.uint8)
        image = Image.fromarray(coarse).resize((96, 96), Image.BICUBIC)
        (root / category).mkdir(parents=True, exist_ok=True)
        image.save(root / category / f"{category}{i}.png")
    return root


def _resnet(photos, **kw):
    kw.setdefault("weights", None)  # random initialisation with the library's fixed seed: no download
    kw.setdefault("experiment", "gen")
    return evaluate("torchvision:resnet18", photos, **kw)


def _float32_switches():
    return [getattr(owner, name) for owner, name, _ in cuda_float32_switches("ieee")]


@pytest.fixture(scope="module")
def on_cpu(photos):
    return _resnet(photos, device="cpu", layers=["layer4"], pool="avg")


def test_auto_picks_cuda():
    assert resolve_device("auto").type == "cuda"
    assert resolve_device("cuda:0") == torch.device("cuda:0")


def test_float32_on_cuda_agrees_with_the_cpu(photos, on_cpu):
    before = _float32_switches()
    gpu = _resnet(photos, device="cuda", layers=["layer4"], pool="avg")
    assert _float32_switches() == before  # the TF32 switches are restored after the run
    margin_gap = np.max(np.abs(gpu.trials["decision_margin"].to_numpy() - on_cpu.trials["decision_margin"].to_numpy()))
    assert margin_gap <= 1e-4
    np.testing.assert_allclose(gpu.outputs, on_cpu.outputs, rtol=0, atol=1e-4)
    np.testing.assert_allclose(gpu.features["layer4"].features, on_cpu.features["layer4"].features, rtol=0, atol=1e-4)
    safe = np.abs(on_cpu.trials["decision_margin"].to_numpy()) > 1e-3  # decisions away from an exact tie
    pd.testing.assert_series_equal(gpu.trials["response"][safe], on_cpu.trials["response"][safe])


def test_tf32_is_faster_arithmetic_and_visibly_less_exact(photos, on_cpu):
    strict = _resnet(photos, device="cuda")
    tensor_cores = _resnet(photos, device="cuda", precision="tf32")
    strict_gap = np.max(np.abs(strict.outputs - on_cpu.outputs))
    tf32_gap = np.max(np.abs(tensor_cores.outputs - on_cpu.outputs))
    # TF32 keeps 10 mantissa bits: its outputs move far more than float32's rounding, but stay close.
    assert tf32_gap > 10 * strict_gap
    np.testing.assert_allclose(tensor_cores.outputs, on_cpu.outputs, rtol=0, atol=0.05 * np.abs(on_cpu.outputs).max())


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_autocast_on_cuda_keeps_float32_outputs_and_float64_margins(photos, on_cpu, precision):
    low = _resnet(photos, device="cuda", precision=precision)
    assert low.outputs.dtype == np.float32 and low.trials["decision_margin"].dtype == np.float64
    assert (low.trials["correct"] == (low.trials["decision_margin"] > 0)).all()
    scale = np.abs(on_cpu.outputs).max()
    np.testing.assert_allclose(low.outputs, on_cpu.outputs, rtol=0, atol=0.1 * scale)
    assert np.corrcoef(low.trials["decision_margin"], on_cpu.trials["decision_margin"])[0, 1] > 0.99


def test_decoding_processes_after_cuda_is_initialised(photos):
    torch.zeros(1, device="cuda")  # CUDA is live in this process: workers must not fork it
    threaded = _resnet(photos, device="cuda", batch_size=16)
    processes = _resnet(photos, device="cuda", batch_size=16, num_workers=2)
    np.testing.assert_array_equal(processes.outputs, threaded.outputs)
    pd.testing.assert_frame_equal(processes.trials, threaded.trials)


class _Recording(torch.nn.Module):
    """resnet50 (random weights) that records the batch size of every forward pass it is asked for."""

    def __init__(self):
        super().__init__()
        import torchvision

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            self.inner = torchvision.models.resnet50(weights=None)
        self.sizes: list[int] = []

    def forward(self, x):
        self.sizes.append(x.shape[0])
        return self.inner(x)


def test_real_out_of_memory_halves_the_batch(photos):
    from torchvision.transforms import v2

    transform = v2.Compose([v2.PILToTensor(), v2.Resize((224, 224), antialias=True),
                            v2.ToDtype(torch.float32, scale=True)])
    model = _Recording()
    reference = evaluate(model, photos, experiment="gen", transform=transform, device="cuda", batch_size=4)
    # Cap the allocator at what a batch of 4 needed plus room for about 8 images more: a batch of 48 cannot fit.
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    evaluate(model, photos, experiment="gen", transform=transform, device="cuda", batch_size=4)
    per_batch_of_4 = torch.cuda.max_memory_allocated()
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    cap = per_batch_of_4 + 2 * (per_batch_of_4 - weights)
    total = torch.cuda.get_device_properties(0).total_memory
    model.sizes.clear()
    torch.cuda.empty_cache()
    torch.cuda.set_per_process_memory_fraction(cap / total)
    try:
        squeezed = evaluate(model, photos, experiment="gen", transform=transform, device="cuda", batch_size=N_IMAGES)
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
        torch.cuda.empty_cache()
    assert model.sizes[0] == N_IMAGES and model.sizes[1] == N_IMAGES // 2  # the first attempt ran out of memory
    assert sum(model.sizes) > N_IMAGES  # and the images were retried in smaller batches
    np.testing.assert_allclose(squeezed.outputs, reference.outputs, rtol=0, atol=1e-4)
    pd.testing.assert_frame_equal(squeezed.trials.drop(columns="decision_margin"),
                                  reference.trials.drop(columns="decision_margin"))
