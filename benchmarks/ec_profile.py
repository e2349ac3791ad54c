"""Speed of the single-pair profile-likelihood EC interval (issue 22): one command, one JSON line per figure.

    PYTHONPATH=src python benchmarks/ec_profile.py                  # per-table cost, goal <= 1 ms per table
    PYTHONPATH=src python benchmarks/ec_profile.py --ec DIR         # also `humanlike ec DIR` (profile vs bootstrap)

Tables are drawn from the copy model (:func:`humanlike.trials.simulate.simulate_copy_counts`, seed 0):
``few-errors`` is the cell where the bootstrap under-covers (100 trials, accuracies 0.9 / 0.95, kappa 0.2:
few distinct tables), ``mixed`` spreads over 50-1600 trials, accuracies 0.55-0.98 and kappa -0.2..0.8 (almost
every table distinct). Each figure is the best of ``--repeats`` runs of
:func:`humanlike.measures.ec.interval.ec_profile_interval` on all tables at once, as CPU time (user + system of
this process; on a shared machine wall time mostly measures the neighbours) divided by the tables and by the
distinct tables (identical tables are computed once). ``single`` is one call on one table (the latency of a
one-pair experiment). ``--ec DIR`` runs ``humanlike ec DIR --seed 0`` in a child process with
``--pair-interval profile`` and ``bootstrap`` and reports each one's CPU time (the child's user + system).

The "before" figures are the same command with PYTHONPATH at the older source, e.g.
``git archive <commit> src | tar -x -C /tmp/old && PYTHONPATH=/tmp/old/src python benchmarks/ec_profile.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

GOAL_MS = 1.0


def cpu_seconds(who=resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def draw_tables(kind: str, n_tables: int) -> np.ndarray:
    """``n_tables`` copy-model 2x2 tables (rows: both correct, only 1, only 2, both wrong)."""
    from humanlike.trials.simulate import simulate_copy_counts

    if kind == "few-errors":
        return np.asarray(simulate_copy_counts(100, 0.2, 0.9, 0.95, size=n_tables, seed=0))
    rng = np.random.default_rng(0)
    from humanlike.measures.pairs.kappa_bounds import kappa_max, kappa_min

    cells = [(n, k, a1, a2) for n in (50, 100, 200, 400, 800, 1600) for k in (-0.2, 0.0, 0.2, 0.5, 0.8)
             for a1, a2 in ((0.55, 0.55), (0.7, 0.8), (0.9, 0.95), (0.95, 0.98))
             if kappa_min(a1, a2) <= k <= kappa_max(a1, a2)]
    picks = rng.integers(0, len(cells), n_tables)
    return np.vstack([simulate_copy_counts(*cells[i], size=1, seed=rng.integers(2**32)) for i in picks])


def time_tables(tables: np.ndarray, repeats: int) -> float:
    from humanlike.measures.ec.interval import ec_profile_interval

    best = np.inf
    for _ in range(repeats):
        start = cpu_seconds()
        ec_profile_interval(*tables.T)
        best = min(best, cpu_seconds() - start)
    return best


def time_ec_command(data: Path, pair_interval: str) -> dict:
    start, wall = cpu_seconds(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "humanlike.app.cli", "ec", str(data), "--seed", "0",
                    "--pair-interval", pair_interval], check=True, stdout=subprocess.DEVNULL, env=os.environ)
    return {"figure": f"humanlike ec --pair-interval {pair_interval}", "data": str(data),
            "cpu_s": round(cpu_seconds(resource.RUSAGE_CHILDREN) - start, 2),
            "wall_s": round(time.perf_counter() - wall, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=2000, help="tables per figure (default 2000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the fastest counts (default 3)")
    parser.add_argument("--ec", type=Path, metavar="DIR", help="also time `humanlike ec DIR` both ways")
    args = parser.parse_args()

    ok = True
    for kind in ("few-errors", "mixed"):
        tables = draw_tables(kind, args.tables)
        distinct = len(np.unique(tables, axis=0))
        seconds = time_tables(tables, args.repeats)
        per_distinct = 1000 * seconds / distinct
        ok &= per_distinct <= GOAL_MS
        print(json.dumps({"figure": kind, "tables": len(tables), "distinct": distinct, "cpu_s": round(seconds, 3),
                          "ms_per_table": round(1000 * seconds / len(tables), 4),
                          "ms_per_distinct_table": round(per_distinct, 4), "goal_ms": GOAL_MS}))
    single = draw_tables("few-errors", 1)
    print(json.dumps({"figure": "single", "tables": 1, "cpu_s": round(time_tables(single, args.repeats), 4)}))
    if args.ec is not None:
        for pair_interval in ("profile", "bootstrap"):
            print(json.dumps(time_ec_command(args.ec, pair_interval)))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
