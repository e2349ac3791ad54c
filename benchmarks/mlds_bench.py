"""MLDS speed benchmark (issue 9 §1). Run: python benchmarks/mlds_bench.py [--resamples N] [--naive M]

A simulated observer (11 levels, psi = x**2, sigma = 0.1) judges all 330 quadruples 3 times (990 trials,
"a 1,000-trial data set"). Timed:

1. the parametric bootstrap with N batched refits (default 10,000);
2. the six-point test with N simulations;
3. the runs test / residual envelope with N simulations;
4. a naive loop of M single IRLS fits (QR, R's settings; default 200), extrapolated to N.

Prints a JSON record: wall seconds and this process's CPU seconds (on a shared machine the CPU time is
the better measure; numpy may use several cores, so CPU can exceed wall), and the speed-up over the
naive loop.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from humanlike.measures.mlds.simulate import simulate_judgements  # noqa: E402
from humanlike.resampling.draws import bernoulli_responses  # noqa: E402
from humanlike.measures.mlds.fit import fit_mlds  # noqa: E402
from humanlike.measures.mlds.diagnostics import bootstrap_mlds, runs_diagnostics, six_point_test  # noqa: E402
from humanlike.measures.mlds.glm import irls  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--naive", type=int, default=200, help="single fits timed for the naive loop")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    table = simulate_judgements(np.linspace(0, 1, 11) ** 2, 0.1, repeats=3, seed=args.seed)
    fit = fit_mlds(table)
    record = {"n_trials": fit.n_trials, "n_levels": fit.n_levels, "resamples": args.resamples,
              "cpu_count": os.cpu_count()}

    start, cpu = time.perf_counter(), time.process_time()
    boot = bootstrap_mlds(fit, args.resamples, seed=args.seed)
    record["bootstrap_s"] = time.perf_counter() - start
    record["bootstrap_cpu_s"] = time.process_time() - cpu
    record["bootstrap_separated_share"] = boot.separated_share

    start, cpu = time.perf_counter(), time.process_time()
    six = six_point_test(fit, args.resamples, seed=args.seed)
    record["six_point_s"] = time.perf_counter() - start
    record["six_point_cpu_s"] = time.process_time() - cpu
    record["six_point_p"] = six.p_value

    start, cpu = time.perf_counter(), time.process_time()
    runs = runs_diagnostics(fit, args.resamples, seed=args.seed)
    record["runs_s"] = time.perf_counter() - start
    record["runs_cpu_s"] = time.process_time() - cpu
    record["runs_p"] = runs.p_value

    # The naive way: one full single fit per simulated response vector (as R's sapply over glm calls).
    y = bernoulli_responses(args.seed, ("naive",), fit.fitted, 0, args.naive).astype(float)
    start, cpu = time.perf_counter(), time.process_time()
    for row in y:  # deliberately the slow reference loop
        irls(fit.design, row, fit.link, maxit=50_000, solver="qr")
    naive = time.perf_counter() - start
    naive_cpu = time.process_time() - cpu
    record["naive_fits"] = args.naive
    record["naive_s_per_fit"] = naive / args.naive
    record["naive_extrapolated_s"] = naive / args.naive * args.resamples
    record["naive_extrapolated_cpu_s"] = naive_cpu / args.naive * args.resamples
    record["speedup_bootstrap"] = record["naive_extrapolated_s"] / record["bootstrap_s"]
    record["speedup_bootstrap_cpu"] = record["naive_extrapolated_cpu_s"] / record["bootstrap_cpu_s"]
    print(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
