"""Speed of ``humanlike dmc`` over the 17 model-vs-human experiments (issue 7). One command:

    python benchmarks/dmc.py [--resamples 10000] [--src OTHER_TREE/src] [--threads 1] [--cold]

Runs the command line in a fresh process, as a user would: the humans of model-vs-human and the decision-margin
fork's models (``$HUMANLIKE_SHARED_DATA/modelvshuman/raw-data`` and ``.../modelvshuman-dmc/raw-data``), every
experiment named with ``--experiment`` (so that the pre-port code, which required it, runs the same job), JSON on
stdout. Reports wall time, CPU time (user + system, the honest figure on a shared machine), peak memory (RSS)
and, in a second process, the time spent loading the data alone. ``--src`` times another checkout (e.g. the
pre-port commit in a ``git worktree``) for before/after figures. ``--cold`` gives each process an empty
parsed-data cache (``HUMANLIKE_CACHE`` in a fresh temporary folder), so the CSV files are parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data"))
EXPERIMENTS = ("colour", "contrast", "cue-conflict", "edge", "eidolonI", "eidolonII", "eidolonIII", "false-colour",
               "high-pass", "low-pass", "phase-scrambling", "power-equalisation", "rotation", "silhouette",
               "sketch", "stylized", "uniform-noise")


def run(code: str, src: Path, threads: int | None, cold: bool = False) -> dict:
    """Run ``code`` in a fresh interpreter with ``src`` on the path; wall, CPU and peak RSS of that process."""
    env = dict(os.environ, PYTHONPATH=str(src))
    if cold:
        env["HUMANLIKE_CACHE"] = tempfile.mkdtemp(prefix="humanlike-cold-cache-")
    if threads:
        env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    report_rss = ("import atexit, resource, sys; atexit.register(lambda: sys.stderr.write("
                  "'MAXRSS %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)); ")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", report_rss + code], env=env, capture_output=True, text=True)
    finally:
        if cold:
            shutil.rmtree(env["HUMANLIKE_CACHE"], ignore_errors=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"benchmark command failed:\n{done.stderr[-2000:]}")
    rss = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("MAXRSS ")]
    return {"wall_seconds": round(wall, 2),
            "cpu_seconds": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2),
            "peak_rss_mb": round(rss[-1] / 1024.0, 1) if rss else None, "stdout": done.stdout}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the humanlike sources to time")
    parser.add_argument("--threads", type=int, default=None, help="BLAS threads (default: the library's)")
    parser.add_argument("--skip-load", action="store_true", help="do not time loading separately")
    parser.add_argument("--cold", action="store_true", help="an empty parsed-data cache in every process")
    args = parser.parse_args()
    folders = [str(SHARED / "modelvshuman" / "raw-data"), str(SHARED / "modelvshuman-dmc" / "raw-data")]
    argv = ["dmc", *folders, "--resamples", str(args.resamples), "--json", "--quiet"]
    for name in EXPERIMENTS:
        argv += ["--experiment", name]
    cli = ("import sys; from humanlike.app.cli import main; "
           f"sys.exit(main({argv!r}))")
    report = {"src": str(args.src), "resamples": args.resamples, "experiments": len(EXPERIMENTS),
              "blas_threads": args.threads, "cpus": os.cpu_count(), "load_average": os.getloadavg()[0],
              "parsed_data_cache": "empty" if args.cold else "as found (warm after a first run)"}
    whole = run(cli, args.src, args.threads, args.cold)
    doc = json.loads(whole.pop("stdout"))
    report["dmc_command"] = whole
    report["ceiling_overall"] = doc["human_human"]["mean"]
    if not args.skip_load:
        load = ("from humanlike.trials.loaders import load_trials; "
                f"load_trials({folders!r})")
        loaded = run(load, args.src, args.threads, args.cold)
        loaded.pop("stdout")
        report["load_only"] = loaded
    report["goal"] = "under 15 s wall including loading on 2 cores, within 2 GB"
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
