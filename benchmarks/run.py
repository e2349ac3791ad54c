"""Speed and memory of the EC benchmark (issue 7). Run: python benchmarks/run.py [--data DIR] [--resamples N]

Each measurement runs in its own process (wall time, user+system CPU time and peak resident memory of that
process alone):

1. ``humanlike benchmark`` on the model-vs-human raw data at N resamples, with an empty parsed-data cache
   (CSV parsing included) and again with the cache filled (what a second run costs).
2. The same bootstrap on a synthetic benchmark with many models in one experiment (``--models``, default
   200: ~22,000 observer pairs per resample), without any memory option: the engine's budget (2 GiB) must
   bound the memory.
3. Exact-test p-values for every model-human pair of every kept condition.

``--cores 2`` pins every child process to two cores (Linux), the setting the goals are stated for.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data")) / "modelvshuman"
GOAL_SECONDS = 15.0
GOAL_MEMORY_MB = 2048.0

SYNTHETIC = """
import sys, time
import numpy as np
from humanlike.measures.ec.benchmark import run_benchmark
from humanlike.trials.simulate import SDTObserver, simulate_benchmark
n_models, n_resamples = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
models = [SDTObserver(f"net-{k:03d}", kind="model", noise_sd=0.0, sensitivity=float(rng.uniform(0.6, 1.6)),
                      shared=float(rng.uniform(0.3, 0.9))) for k in range(n_models)]
trials = simulate_benchmark(0, n_humans=10, models=models, experiments={"big": {"0": 1.5}}, n_items=1280)
t0 = time.perf_counter()
from humanlike.resampling.settings import ResamplingSettings
result = run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=n_resamples))
print(f"SECONDS {time.perf_counter() - t0:.2f} COLUMNS {len(result.details.resampled)}")
"""

P_VALUES = """
import sys, time
from humanlike.measures.ec.analysis import error_consistency
from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS
from humanlike.trials.loaders import load_trials
from humanlike.measures.ec.significance import ec_test_exact
from humanlike.resampling.settings import ResamplingSettings
pairs = error_consistency(load_trials(sys.argv[1]), exclusions=MODELVSHUMAN_EXCLUSIONS,
                          settings=ResamplingSettings(n_resamples=0)).pairs
mh = pairs[pairs["pair_kind"] == "model-human"]
counts = mh[["both_correct", "only_1_correct", "only_2_correct", "both_wrong"]].to_numpy().T
t0 = time.perf_counter()
ec_test_exact(*counts)
print(f"SECONDS {time.perf_counter() - t0:.3f} TABLES {counts.shape[1]}")
"""


def measure(command: list[str], env: dict, cores: int | None) -> dict:
    """Run ``command`` in a child process: wall seconds, CPU seconds, peak memory (MB) of that child alone."""
    preexec = None
    if cores and hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))[:cores]
        preexec = lambda: os.sched_setaffinity(0, allowed)  # noqa: E731
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True, preexec_fn=preexec)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{stderr[-3000:]}")
    lines = [line for line in stdout.splitlines() if line.strip()]
    return {"wall_seconds": round(wall, 2), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_memory_mb": round(usage.ru_maxrss / 1024.0, 1), "output": lines[-1] if lines else ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--models", type=int, default=200, help="models of the synthetic benchmark (0: skip)")
    parser.add_argument("--cores", type=int, default=None, help="pin the measured processes to this many cores")
    args = parser.parse_args()

    raw = args.data / "raw-data" if (args.data / "raw-data").is_dir() else args.data
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cli = [sys.executable, "-m", "humanlike.app.cli", "benchmark", str(raw), "--quiet",
           "--resamples", str(args.resamples)]
    report: dict = {"data": str(raw), "resamples": args.resamples, "cores": args.cores or os.cpu_count(),
                    "load_average_at_start": [round(v, 2) for v in os.getloadavg()]}
    with tempfile.TemporaryDirectory() as cache:
        cached_env = dict(env, HUMANLIKE_CACHE=cache)
        report["benchmark_cold_cache"] = measure(cli, cached_env, args.cores)
        report["benchmark_warm_cache"] = measure(cli, cached_env, args.cores)
        report["p_values"] = measure([sys.executable, "-c", P_VALUES, str(raw)], cached_env, args.cores)
    if args.models:
        report["synthetic_models"] = args.models
        report["synthetic_benchmark"] = measure(
            [sys.executable, "-c", SYNTHETIC, str(args.models), str(args.resamples)], env, args.cores)
    report["load_average_at_end"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(report, indent=2))
    warm = report["benchmark_warm_cache"]
    ok = warm["wall_seconds"] < GOAL_SECONDS and warm["peak_memory_mb"] < GOAL_MEMORY_MB
    print("PASS" if ok else f"SLOWER/LARGER THAN THE GOALS ({GOAL_SECONDS} s, {GOAL_MEMORY_MB} MB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
