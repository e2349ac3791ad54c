"""Throughput of ``humanlike.models.evaluate`` against a bare torch loop (issue 8).

Run: PYTHONPATH=src python benchmarks/models_throughput.py [--stimuli DIR] [--batch-size N] [--repeat R]

1. CPU: resnet50 (random weights) on the real edge images. The bare loop runs the model over the same
   images already decoded and preprocessed into one tensor (loading not timed); ``evaluate`` does
   everything (content hashing, decoding, preprocessing, forward, margins, trial table). Both steady
   state: the model is built once before timing. Goal: evaluate >= 90% of the bare loop's images/s.
2. CUDA (when available; skipped with a message otherwise): the same in float32 (IEEE), tf32 and bf16,
   each against a bare loop in the same arithmetic, and the CPU-vs-GPU agreement of decision margins
   (goal for float32: within 1e-4; tf32's is printed beside it).
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


def bare_loop(model, inputs, batch_size: int, device, precision: str) -> float:
    import torch

    from humanlike.models.devices import forward_precision

    def run():
        with torch.inference_mode(), forward_precision(device, precision):
            for start in range(0, len(inputs), batch_size):
                out = model(inputs[start:start + batch_size].to(device, non_blocking=True))
                out.float().cpu()

    run_slice = inputs[: batch_size]
    with torch.inference_mode(), forward_precision(device, precision):
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


def preprocessed(manifest, device_name: str):
    """The manifest's images decoded and preprocessed into one tensor (each distinct file decoded once)."""
    import torch

    from humanlike.models import resolve_model
    from humanlike.models.images import StimulusDataset

    paths = manifest["path"].tolist()
    distinct = sorted(set(paths))
    dataset = StimulusDataset(distinct, resolve_model("torchvision:resnet50", weights=None).preprocessing())
    decoded = torch.stack([dataset[i] for i in range(len(dataset))])
    position = {path: i for i, path in enumerate(distinct)}
    inputs = decoded[torch.tensor([position[p] for p in paths])]
    return inputs.pin_memory() if device_name.startswith("cuda") else inputs


def measure(device_name: str, manifest, inputs, batch_size: int, precision: str, num_workers: int) -> dict:
    import torch

    from humanlike.models import resolve_model
    from humanlike.models.runner import loaded_model

    device = torch.device(device_name)
    model = loaded_model(resolve_model("torchvision:resnet50", weights=None), device)  # the object evaluate uses
    bare = bare_loop(model, inputs, batch_size, device, precision)
    ours, result = through_evaluate(manifest, batch_size, device_name, precision, num_workers)
    print(f"{device_name} {precision}: bare {bare:.1f} img/s, evaluate {ours:.1f} img/s", flush=True)
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

    print(f"torch {torch.__version__}; " + (torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA"))
    if not args.stimuli.is_dir():
        print(f"no stimuli at {args.stimuli} (set HUMANLIKE_SHARED_DATA or pass --stimuli)", file=sys.stderr)
        return 2
    rows = []
    cpu_manifest = repeated_manifest(args.stimuli, args.repeat)
    cpu = measure("cpu", cpu_manifest, preprocessed(cpu_manifest, "cpu"), args.batch_size, "float32", 0)
    rows.append(cpu)
    if torch.cuda.is_available():
        manifest = repeated_manifest(args.stimuli, args.gpu_repeat)
        inputs = preprocessed(manifest, "cuda")
        for precision in ("float32", "tf32", "bf16"):
            rows.append(measure("cuda", manifest, inputs, args.gpu_batch_size, precision, args.gpu_workers))
        cpu_margins = cpu["_result"].trials["decision_margin"].to_numpy()
        for row in rows[1:]:
            gpu_margins = row["_result"].trials["decision_margin"].to_numpy()[: len(cpu_margins)]
            row["max_margin_gap_to_cpu"] = float(np.max(np.abs(gpu_margins - cpu_margins)))
            goal = " (goal <= 1e-4)" if row["precision"] == "float32" else ""
            print(f"CPU vs GPU {row['precision']} margins: max |difference| {row['max_margin_gap_to_cpu']:.2e}{goal}")
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
