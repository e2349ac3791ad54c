"""`humanlike benchmark` at scale: every model copied ``--copies`` times, jackknife-t against percentile (issue 31).

    HUMANLIKE_SHARED_DATA=../shared/data PYTHONPATH=src python benchmarks/ec_scale.py [--copies 20] [--resamples 10000]

Builds a trial table from the real model-vs-human raw data in which every model appears ``--copies`` times
(``resnet50``, ``resnet50~copy02``, ...: the same responses under another name; ``--copies 20`` gives 180
models and 3.3 M trials), writes it once as a parquet file in a temporary folder, and runs
``humanlike benchmark FILE --interval I`` on it, each interval in a fresh process (tables written to a
temporary folder). For each run it prints wall time, CPU time (user + system) and peak resident memory of that
process alone, and the ratio of jackknife-t to percentile. On a machine shared with other work CPU time is the
comparable figure; the load average at start and end is printed too. ``--cores N`` pins each process to N
cores (Linux). ``--intervals`` picks the intervals (default both).

The error-consistency outputs grow with the observer pairs, i.e. with the square of the models; what the
jackknife adds on top of the bootstrap must grow no faster than the bootstrap itself (docs/performance.md).
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
#: How a copy is named: the model's name, this mark and the copy's number (the original keeps its name).
COPY_MARK = "~copy"


def copied_trials(raw: Path, copies: int):
    """The raw data's trial table with every model's trials repeated under ``copies - 1`` further names."""
    import pandas as pd

    from humanlike.trials.loaders import load_trials

    trials = load_trials(raw)
    models = trials[trials["observer_kind"] == "model"]
    extra = []
    for k in range(2, copies + 1):
        copy = models.copy()
        copy["observer"] = copy["observer"].astype(str) + f"{COPY_MARK}{k:02d}"
        extra.append(copy)
    return pd.concat([trials, *extra], ignore_index=True)


def measure(command: list[str], env: dict, cores: int | None) -> dict:
    """Wall seconds, CPU seconds and peak memory (GB) of ``command`` run in a child process."""
    preexec = None
    if cores and hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))[:cores]
        preexec = lambda: os.sched_setaffinity(0, allowed)  # noqa: E731
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=preexec)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read()[-3000:]}")
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "user_s": round(usage.ru_utime, 1), "peak_gb": round(usage.ru_maxrss / 1024.0**2, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED / "modelvshuman" / "raw-data")
    parser.add_argument("--copies", type=int, default=20, help="copies of every model (1: the data as it is)")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--intervals", nargs="+", default=["jackknife-t", "percentile"])
    parser.add_argument("--cores", type=int, default=None, help="pin the measured processes to this many cores")
    args = parser.parse_args()
    if args.copies < 1:
        parser.error("--copies must be at least 1")

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    report: dict = {"copies": args.copies, "resamples": args.resamples,
                    "load_average_at_start": [round(v, 2) for v in os.getloadavg()]}
    with tempfile.TemporaryDirectory() as folder:
        trials = copied_trials(args.data, args.copies)
        report["trials"] = len(trials)
        report["models"] = int(trials.loc[trials["observer_kind"] == "model", "observer"].nunique())
        path = Path(folder) / "trials.parquet"
        trials.to_parquet(path)
        del trials
        for interval in args.intervals:
            out = Path(folder) / f"out-{interval}"
            command = CLI + ["benchmark", str(path), "--quiet", "--resamples", str(args.resamples),
                             "--interval", interval, "--out", str(out)]
            report[interval] = measure(command, env, args.cores)
            print(json.dumps({interval: report[interval]}), file=sys.stderr, flush=True)
    if "jackknife-t" in report and "percentile" in report:
        report["ratio_cpu"] = round(report["jackknife-t"]["cpu_s"] / report["percentile"]["cpu_s"], 2)
        report["ratio_memory"] = round(report["jackknife-t"]["peak_gb"] / report["percentile"]["peak_gb"], 2)
    report["load_average_at_end"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
