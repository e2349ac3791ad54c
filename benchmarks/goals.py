"""The speed goals of issues 7 and 10 in one command: every user-facing job, each in a fresh process.

    HUMANLIKE_SHARED_DATA=../shared/data PYTHONPATH=src python benchmarks/goals.py [--resamples 10000] [--cores 2]

Runs, on the real model-vs-human data at ``--resamples`` (default 10,000) and through the command line as a user
would (output written to a temporary folder):

- ``humanlike benchmark`` with an empty parsed-data cache (CSV parsing included) and again with it filled
  (every later job runs with the cache filled, the fork's folder parsed once beforehand, untimed);
- ``humanlike dmc`` on the humans and the decision-margin fork's models, all 17 experiments;
- ``humanlike ood`` on the model-vs-human raw data;
- ``benchmarks/dvc_bench.py``: representation DVC of one system pair (8 classes x 400 images, 4,096 units,
  10 split repeats, 1,000 resamples, kappa included).

For each: wall time, CPU time (user + system) and peak resident memory of that process alone, the goal, and
whether it is met. Wall time is the goal's measure (for DVC the analysis' own wall time, which dvc_bench.py
prints; the process also simulates its input): on a machine busy with other work it is inflated, so the
load average at start and end is printed too. ``--cores N`` pins each process to N cores (Linux).
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
SHARED = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data"))
CLI = [sys.executable, "-c", "import sys; from humanlike.app.cli import main; sys.exit(main())"]


def measure(command: list[str], env: dict, cores: int | None) -> dict:
    """Wall seconds, CPU seconds and peak memory (MB) of ``command`` run in a child process."""
    preexec = None
    if cores and hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))[:cores]
        preexec = lambda: os.sched_setaffinity(0, allowed)  # noqa: E731
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err, preexec_fn=preexec)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read()[-3000:]}")
        out.seek(0)
        lines = out.read().strip().splitlines()
    measured = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "memory_mb": usage.ru_maxrss / 1024.0}
    try:
        # dvc_bench.py prints the analysis' own time: the goal is the analysis of one pair, not the simulation
        # of its 2 x 3,200 x 4,096 input or the imports.
        measured["analysis"] = float(json.loads(lines[-1])["seconds"])
    except (IndexError, ValueError, KeyError, TypeError):
        pass
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--cores", type=int, default=None)
    args = parser.parse_args()
    mvh = SHARED / "modelvshuman" / "raw-data"
    fork = SHARED / "modelvshuman-dmc" / "raw-data"
    if not mvh.is_dir() or not fork.is_dir():
        raise SystemExit(f"the real data is missing under {SHARED} (set HUMANLIKE_SHARED_DATA)")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    n = ["--resamples", str(args.resamples), "--quiet"]
    rows = []
    print(f"load average at start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        cached = dict(env, HUMANLIKE_CACHE=cache)
        jobs = [
            ("humanlike benchmark (empty cache)", CLI + ["benchmark", str(mvh), *n, "--out", f"{out}/b1"], 15.0),
            ("humanlike benchmark (cache filled)", CLI + ["benchmark", str(mvh), *n, "--out", f"{out}/b2"], 15.0),
            ("humanlike dmc (17 experiments)", CLI + ["dmc", str(mvh), str(fork), *n, "--out", f"{out}/d"], 15.0),
            ("humanlike ood", CLI + ["ood", str(mvh), *n, "--out", f"{out}/o"], 15.0),
            ("DVC, one pair (benchmarks/dvc_bench.py)", [sys.executable, str(ROOT / "benchmarks" / "dvc_bench.py")],
             10.0),
        ]
        for name, command, goal in jobs:
            if name.startswith("humanlike dmc"):
                # The fork's folder is parsed once here (not timed): every job after the first measures a user's
                # second run, with the parsed-data cache filled, as the benchmark's second row does.
                measure([sys.executable, "-c", "import sys; from humanlike.trials.loaders import load_trials; "
                         "load_trials(sys.argv[1:])", str(mvh), str(fork)], cached, args.cores)
            m = measure(command, cached, args.cores)
            rows.append((name, m, goal))
            print(f"{name}: {m['wall']:.1f} s wall, {m['cpu']:.1f} s CPU, {m['memory_mb']:.0f} MB", file=sys.stderr)
    print(f"load average at end: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"| job ({args.resamples:,} resamples; DVC 1,000) | wall | CPU | peak memory | goal | met |")
    print("|---|---:|---:|---:|---|---|")
    for name, m, goal in rows:
        timed = m.get("analysis", m["wall"])
        met = timed < goal and m["memory_mb"] < 2048
        wall = f"{m['wall']:.1f} s" + (f" (analysis {m['analysis']:.1f} s)" if "analysis" in m else "")
        print(f"| {name} | {wall} | {m['cpu']:.1f} s | {m['memory_mb'] / 1024:.2f} GB | "
              f"< {goal:.0f} s, < 2 GB | {'yes' if met else 'no'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
