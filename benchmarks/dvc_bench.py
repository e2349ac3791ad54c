"""DVC speed benchmark (issue 10). Run: python benchmarks/dvc_bench.py [--resamples N] [--splits S] [--mode M]

One system pair: 8 classes x 400 images, 4,096 units per system (planted DVC 0.5), 25 PCs per half,
10 split repeats and 1,000 bootstrap resamples pushed through the whole pipeline (LDA refitted in every
resample), kappa of the cross-validated choices included (``--no-kappa`` leaves it out). Prints JSON: wall
``seconds``, ``cpu_seconds`` (all threads of the process), the load average before and after, and the stages'
wall times (PCA, the rest). The goal is < 10 s wall on 2 cores (``taskset -c 0,1``); run it with
``OPENBLAS_NUM_THREADS=1`` (the PCAs and the splits use up to two Python threads of one BLAS thread each,
``--workers``). On a shared, loaded machine the wall time is inflated: compare ``cpu_seconds``.
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
    parser.add_argument("--interval", choices=("percentile", "bca"), default="percentile")
    parser.add_argument("--pca-scope", choices=("all", "pair"), default="all")
    parser.add_argument("--pca-iterations", type=int, default=2)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()

    from humanlike.measures.dvc.representations import dvc_representations, representation_kernel
    from humanlike.measures.dvc.representations_options import DVCOptions
    from humanlike.measures.dvc.simulate import planted_representations
    from humanlike.resampling.settings import ResamplingSettings

    fa, fb, labels = planted_representations(0.5, n_classes=args.classes, n_per_class=args.images,
                                             n_units=args.units, latent_dim=12, unit_noise=3.0, seed=0)
    settings = ResamplingSettings(n_resamples=args.resamples, seed=0, interval=args.interval, workers=args.workers)
    options = DVCOptions(n_components=args.pcs, n_splits=args.splits, cv=args.cv, split_bootstrap=args.mode,
                         kappa_folds=0 if args.no_kappa else 5, pca_scope=args.pca_scope,
                         pca_iterations=args.pca_iterations)
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    result = dvc_representations(fa, fb, labels, options=options, settings=settings)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    # The PCA stage alone (the same work the analysis did first), to split the time.
    import numpy as np

    classes, counts = np.unique(labels, return_counts=True)
    pca_start, pca_cpu = time.perf_counter(), time.process_time()
    representation_kernel(fa, fb, classes, counts, options, settings)
    pca_seconds, pca_cpu = time.perf_counter() - pca_start, time.process_time() - pca_cpu
    row = result.table("overall").iloc[0]
    print(json.dumps({
        "classes": args.classes, "images_per_class": args.images, "units": args.units, "pcs": args.pcs,
        "splits": args.splits, "resamples": args.resamples, "split_bootstrap": args.mode, "cv": args.cv,
        "interval": args.interval, "pca_scope": args.pca_scope, "pca_iterations": args.pca_iterations,
        "kappa": not args.no_kappa, "seconds": round(seconds, 2), "cpu_seconds": round(cpu_seconds, 2),
        "pca_seconds": round(pca_seconds, 2), "pca_cpu_seconds": round(pca_cpu, 2),
        "cpus": len(os.sched_getaffinity(0)), "workers": args.workers,
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        "load_average_before": round(load_before, 1), "load_average_after": round(os.getloadavg()[0], 1),
        "dvc": round(float(row["estimate"]), 4), "ci": [round(float(row["ci_low"]), 4), round(float(row["ci_high"]), 4)],
        "planted": 0.5,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
