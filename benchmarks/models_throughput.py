"""Throughput of ``humanlike.models.evaluate`` against a bare torch loop (issue 8).

Run: PYTHONPATH=src python benchmarks/models_throughput.py [--stimuli DIR] [--batch-size N] [--repeat R]

1. CPU: resnet50 (random weights) on the real edge images. The bare loop runs the model over the same
   images already decoded and preprocessed into one tensor (loading not timed); ``evaluate`` does
   everything (content hashing, decoding, preprocessing, forward, margins, trial table). Both steady
   state: the model is built once before timing. Goal: evaluate >= 90% of the bare loop's images/s.
2. CUDA (when available; skipped with a message otherwise): the same in float32 and bf16, and the
   CPU-vs-GPU agreement of float32 decision margins (goal: within 1e-4).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STIMULI = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data")) / "stimuli" / "edges"


def repeated_manifest(stimuli, repeat: int):
    """The stimulus manifest ``repeat`` times over (distinct item ids, same files) for longer timings."""
    import pandas as pd

    from humanlike.trials.stimuli import discover_stimuli

    base = discover_stimuli(stimuli, experiment="edge")
    parts = [base.assign(item=base["item"] + (f"#{r}" if r else "")) for r in range(repeat)]
    return pd.concat(parts, ignore_index=True)


def bare_loop(model, inputs, batch_size: int, device, dtype=None) -> float:
    import torch

    def run():
        with torch.inference_mode():
            for start in range(0, len(inputs), batch_size):
                batch = inputs[start:start + batch_size].to(device, non_blocking=True)
                with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                    out = model(batch)
                out.float().cpu()

    run_slice = inputs[: batch_size]
    with torch.inference_mode():
        model(run_slice.to(device))  # warm-up (kernel selection, allocator)
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    run()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return len(inputs) / (time.perf_counter() - start)


def through_evaluate(manifest, batch_size: int, device: str, precision: str, num_workers: int) -> tuple[float, object]:
    from humanlike.models import evaluate

    kw = dict(weights=None, batch_size=batch_size, device=device, precision=precision, num_workers=num_workers)
    evaluate("torchvision:resnet50", manifest.head(batch_size), **kw)  # builds the model once (per-process cache)
    start = time.perf_counter()
    result = evaluate("torchvision:resnet50", manifest, **kw)
    return len(manifest) / (time.perf_counter() - start), result


def measure(device_name: str, manifest, batch_size: int, precision: str, num_workers: int) -> dict:
    import torch

    from humanlike.models import resolve_model
    from humanlike.models.images import StimulusDataset
    from humanlike.models.runner import PRECISIONS, loaded_model

    device = torch.device(device_name)
    spec = resolve_model("torchvision:resnet50", weights=None)
    dataset = StimulusDataset(manifest["path"].tolist(), spec.preprocessing())
    inputs = torch.stack([dataset[i] for i in range(len(dataset))])
    if device.type == "cuda":
        inputs = inputs.pin_memory()
    model = loaded_model(spec, device)  # the same object evaluate then uses
    bare = bare_loop(model, inputs, batch_size, device, PRECISIONS[precision])
    ours, result = through_evaluate(manifest, batch_size, device_name, precision, num_workers)
    return {"device": device_name, "precision": precision, "batch_size": batch_size, "images": len(manifest),
            "threads": torch.get_num_threads(), "bare_img_s": round(bare, 1), "evaluate_img_s": round(ours, 1),
            "ratio": round(ours / bare, 3), "_result": result}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stimuli", type=Path, default=DEFAULT_STIMULI)
    parser.add_argument("--batch-size", type=int, default=32, help="CPU batch size (default %(default)s)")
    parser.add_argument("--gpu-batch-size", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=1, help="CPU: pass over the images this many times")
    parser.add_argument("--gpu-repeat", type=int, default=32)
    parser.add_argument("--gpu-workers", type=int, default=8, help="decoding processes on the GPU run")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()

    import numpy as np
    import torch

    if not args.stimuli.is_dir():
        print(f"no stimuli at {args.stimuli} (set HUMANLIKE_SHARED_DATA or pass --stimuli)", file=sys.stderr)
        return 2
    rows = []
    cpu = measure("cpu", repeated_manifest(args.stimuli, args.repeat), args.batch_size, "float32", 0)
    rows.append(cpu)
    if torch.cuda.is_available():
        manifest = repeated_manifest(args.stimuli, args.gpu_repeat)
        for precision in ("float32", "bf16"):
            rows.append(measure("cuda", manifest, args.gpu_batch_size, precision, args.gpu_workers))
        gpu_margins = rows[1]["_result"].trials["decision_margin"].to_numpy()[: len(cpu["_result"].trials)]
        diff = float(np.max(np.abs(gpu_margins - cpu["_result"].trials["decision_margin"].to_numpy())))
        print(f"CPU vs GPU float32 margins: max |difference| {diff:.2e} (goal <= 1e-4)")
    else:
        print("no CUDA device: GPU throughput and CPU-vs-GPU margin agreement skipped")
    print(f"{'device':<6} {'precision':<9} {'batch':>5} {'images':>6} {'bare img/s':>11} {'evaluate img/s':>15} {'ratio':>6}")
    for r in rows:
        print(f"{r['device']:<6} {r['precision']:<9} {r['batch_size']:>5} {r['images']:>6} {r['bare_img_s']:>11.1f} "
              f"{r['evaluate_img_s']:>15.1f} {r['ratio']:>6.1%}")
    if args.json:
        args.json.write_text(json.dumps([{k: v for k, v in r.items() if k != "_result"} for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
