"""DVC speed benchmark (issue 10). Run: python benchmarks/dvc_bench.py [--resamples N] [--splits S] [--mode M]

One system pair: 8 classes x 400 images, 4,096 units per system (planted DVC 0.5), 25 PCs per half,
10 split repeats and 1,000 bootstrap resamples pushed through the whole pipeline (LDA refitted in every
resample). Prints the wall time of the DVC (with and without the kappa of cross-validated choices) as JSON.
Pin to two cores with ``taskset -c 0,1`` for the target measurement (< 10 s). ``cpu_seconds`` (all threads)
and the load average say how far a shared machine distorts the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--classes", type=int, default=8)
    parser.add_argument("--images", type=int, default=400, help="images per class")
    parser.add_argument("--units", type=int, default=4096)
    parser.add_argument("--pcs", type=int, default=25)
    parser.add_argument("--mode", choices=("rotate", "all"), default="rotate")
    parser.add_argument("--cv", type=int, default=None)
    parser.add_argument("--no-kappa", action="store_true")
    args = parser.parse_args()

    from humanlike.analyses.dvc_representations import dvc_representations
    from humanlike.data.simulate_dvc import planted_representations
    from humanlike.stats.engine import ResamplingSettings

    fa, fb, labels = planted_representations(0.5, n_classes=args.classes, n_per_class=args.images,
                                             n_units=args.units, latent_dim=12, unit_noise=3.0, seed=0)
    settings = ResamplingSettings(n_resamples=args.resamples, seed=0)
    start, cpu_start = time.perf_counter(), time.process_time()
    result = dvc_representations(fa, fb, labels, n_components=args.pcs, n_splits=args.splits, cv=args.cv,
                                 split_bootstrap=args.mode, kappa_folds=0 if args.no_kappa else 5,
                                 settings=settings)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    row = result.table("overall").iloc[0]
    print(json.dumps({
        "classes": args.classes, "images_per_class": args.images, "units": args.units, "pcs": args.pcs,
        "splits": args.splits, "resamples": args.resamples, "split_bootstrap": args.mode, "cv": args.cv,
        "kappa": not args.no_kappa, "seconds": round(seconds, 2), "cpu_seconds": round(cpu_seconds, 2),
        "cpus": len(os.sched_getaffinity(0)), "load_average": round(os.getloadavg()[0], 1),
        "dvc": round(float(row["estimate"]), 4), "ci": [round(float(row["ci_low"]), 4), round(float(row["ci_high"]), 4)],
        "planted": 0.5,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
