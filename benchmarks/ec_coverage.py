"""Coverage of single-pair error-consistency intervals over trials x accuracies x kappa.

One command::

    PYTHONPATH=src python benchmarks/ec_coverage.py            # full grid, writes docs/ec_coverage.md
    PYTHONPATH=src python benchmarks/ec_coverage.py --quick    # a few cells, prints only

For every feasible cell (kappa within [kappa_min, kappa_max] for the accuracies) ``--simulations`` 2x2
tables are drawn from the copy model (:func:`humanlike.data.simulate.simulate_copy_counts`) and every
interval method is computed by the library's own functions: the profile-likelihood interval (default),
its score variant, and the percentile and BCa bootstrap (:func:`humanlike.analyses.ec_pair.bootstrap_pair`).
Coverage = share of tables whose interval contains the planted kappa. Each cell's seed comes from a hash of
the cell, so results do not depend on the order or on ``--jobs`` (parallel-safe).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from humanlike.data.simulate import simulate_copy_counts
from humanlike.metrics.ec import kappa_max, kappa_min
from humanlike.stats.ec_interval import ec_profile_interval
from humanlike.analyses.ec_pair import bootstrap_pair

TRIALS = (50, 100, 200, 400, 800, 1600)
ACCURACIES = ((0.55, 0.55), (0.7, 0.8), (0.55, 0.9), (0.9, 0.95), (0.95, 0.98), (0.98, 0.98))
KAPPAS = (-0.2, 0.0, 0.2, 0.5, 0.8)
METHODS = ("profile", "profile-raw", "score", "percentile", "bca")


def cell_seed(*key) -> np.random.SeedSequence:
    """A seed per cell from a stable hash of its key (the stand-in for humanlike.stats.rng.stream)."""
    ints = [int.from_bytes(hashlib.blake2b(repr(k).encode(), digest_size=8).digest(), "little") for k in key]
    return np.random.SeedSequence(20261122, spawn_key=ints)


def feasible_cells(trials=TRIALS, accuracies=ACCURACIES, kappas=KAPPAS):
    """The grid's cells (n, a1, a2, kappa) with kappa inside the attainable range for the accuracies."""
    cells = []
    for n in trials:
        for a1, a2 in accuracies:
            lo, hi = float(kappa_min(a1, a2)), float(kappa_max(a1, a2))
            cells += [(n, a1, a2, k) for k in kappas if lo - 1e-12 <= k <= hi + 1e-12]
    return cells


def coverage_of_cell(cell, n_simulations: int, n_resamples: int, level: float = 0.95) -> dict:
    """Coverage of every method in one cell (bootstraps computed once per distinct table)."""
    n, a1, a2, k = cell
    ss = cell_seed(n, a1, a2, k)
    tables = simulate_copy_counts(n, k, a1, a2, size=n_simulations, seed=np.random.default_rng(ss))
    unique, inverse = np.unique(tables, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    bounds = {}
    prof = ec_profile_interval(*unique.T, level=level)
    bounds["profile"] = (np.asarray(prof.low), np.asarray(prof.high))
    score = ec_profile_interval(*unique.T, level=level, statistic="score")
    bounds["score"] = (np.asarray(score.low), np.asarray(score.high))
    raw = ec_profile_interval(*unique.T, level=level, pseudo_count=0.0)
    bounds["profile-raw"] = (np.asarray(raw.low), np.asarray(raw.high))
    boot_seeds = ss.spawn(len(unique))
    for method in ("percentile", "bca"):
        low, high = np.empty(len(unique)), np.empty(len(unique))
        for i, (ca, cb, cc, cd) in enumerate(unique):
            x = np.repeat([True, True, False, False], [ca, cb, cc, cd])
            y = np.repeat([True, False, True, False], [ca, cb, cc, cd])
            _, low[i], high[i], _ = bootstrap_pair(x, y, n_resamples=n_resamples, level=level,
                                                   seed=np.random.default_rng(boot_seeds[i]), method=method)
        bounds[method] = (low, high)
    row = {"trials": n, "acc_1": a1, "acc_2": a2, "kappa": k}
    for method, (low, high) in bounds.items():
        # An undefined (NaN) interval does not cover.
        hit = (low <= k + 1e-9) & (high >= k - 1e-9)
        row[method] = float(np.mean(hit[inverse]))
    return row


def markdown(rows, n_simulations: int, n_resamples: int, seconds: float) -> str:
    lines = [
        "# Coverage of single-pair error-consistency intervals (nominal 95%)",
        "",
        f"Produced by `benchmarks/ec_coverage.py`: {n_simulations} copy-model tables per cell, "
        f"{n_resamples} bootstrap resamples, {seconds:.0f} s. Monte-Carlo SE of a coverage near 0.95: "
        f"{np.sqrt(0.95 * 0.05 / n_simulations):.3f}. `profile` is the default "
        "(`humanlike.stats.ec_interval.ec_profile_interval`, pseudo-count 0.25); `score` its Pearson-X2 variant; "
        "`profile-raw` the same without the pseudo-count; `percentile` and `bca` the bootstrap (`humanlike.analyses.ec_pair.bootstrap_pair`). "
        "An interval that is undefined (both observers constant in the bootstrap) counts as not covering. "
        "Cells outside 0.93-0.97 are marked with `*`.",
        "",
        "| trials | acc 1 | acc 2 | kappa | " + " | ".join(METHODS) + " |",
        "|---:|---:|---:|---:|" + "---:|" * len(METHODS),
    ]
    for r in rows:
        vals = [f"{r[m]:.3f}" + ("" if 0.93 <= r[m] <= 0.97 else "*") for m in METHODS]
        lines.append(f"| {r['trials']} | {r['acc_1']:.2f} | {r['acc_2']:.2f} | {r['kappa']:+.1f} | " + " | ".join(vals) + " |")
    lines += ["", "Summary (cells within 0.93-0.97, min, max):", ""]
    for m in METHODS:
        v = np.array([r[m] for r in rows])
        lines.append(f"- `{m}`: {np.sum((v >= 0.93) & (v <= 0.97))}/{len(v)} cells, min {v.min():.3f}, max {v.max():.3f}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--simulations", type=int, default=1000)
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="a few cells, print only")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "ec_coverage.md")
    args = p.parse_args(argv)
    cells = feasible_cells()
    if args.quick:
        cells = [(100, 0.9, 0.95, 0.2), (400, 0.7, 0.8, 0.5), (50, 0.98, 0.98, 0.0)]
    start = time.time()
    work = [(c, args.simulations, args.resamples) for c in cells]
    rows = []
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for row in pool.map(_run, work):
                rows.append(row)
                print(row, file=sys.stderr, flush=True)
    else:
        for w in work:
            rows.append(_run(w))
            print(rows[-1], file=sys.stderr, flush=True)
    seconds = time.time() - start
    text = markdown(rows, args.simulations, args.resamples, seconds)
    print(text)
    if not args.quick:
        args.out.write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _run(job):
    cell, n_sim, n_res = job
    return coverage_of_cell(cell, n_sim, n_res)


if __name__ == "__main__":
    raise SystemExit(main())
