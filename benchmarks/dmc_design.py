"""Designs that decide, DMC: bias and coverage of the pool-level and chosen-items DMC difference
(docs/designs-that-decide.md, issue 34).

A planted pool (humanlike.measures.compare.design_simulation.margin_pool: two conditions of 120 items, model A's
and B's margins correlated, people's logits following A's margins more than B's, item idiosyncrasy sd 0.5,
participant skill sd 0.5), 10 items per participant and condition. For the random and the discriminating design
(floor 0.2, the margins' disagreement scored by ``margin_scores``), ``--studies`` simulated studies, each estimated
after 40, 80, 160, 320 and 640 participants. Measured per estimand and size: the truth (from the population's
chances on every pool item), the mean estimate, its bias with the Monte Carlo standard error, the estimates' sd,
the mean jackknife se, the coverage of the 95% interval among defined estimates and the share of undefined
(NaN) estimates. Writes benchmarks/results/dmc_design.json and prints a table.

    PYTHONPATH=src python benchmarks/dmc_design.py [--studies 1000]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

from humanlike.measures.compare.design_simulation import margin_pool, simulate_dmc_studies

ROOT = Path(__file__).resolve().parents[1]
LOOKS = (40, 80, 160, 320, 640)
PARTICIPANT_SD = 0.5


def summary(estimate: np.ndarray, se: np.ndarray, truth: float) -> dict:
    """Bias, spread and coverage of one estimand at one size, over the studies whose estimate is defined."""
    defined = np.isfinite(estimate) & np.isfinite(se)
    est, err = estimate[defined], se[defined]
    half = stats.norm.ppf(0.975) * err
    return {"truth": truth, "mean": float(est.mean()), "bias": float(est.mean() - truth),
            "bias_mcse": float(est.std(ddof=1) / np.sqrt(est.size)), "sd": float(est.std(ddof=1)),
            "mean_se": float(err.mean()), "coverage": float(np.mean(np.abs(est - truth) <= half)),
            "undefined": float(1 - defined.mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000, help="simulated studies per design")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.process_time()
    results = {"looks": list(LOOKS), "studies": args.studies, "participant_sd": PARTICIPANT_SD, "designs": {}}
    for name in ("random", "discriminating"):
        design, logit = margin_pool(design=name)
        sims = simulate_dmc_studies(design, logit, participant_sd=PARTICIPANT_SD, looks=LOOKS,
                                    n_studies=args.studies, seed=args.seed)
        results["designs"][name] = {e: [summary(sims.estimate[e][:, j], sims.se[e][:, j], sims.truth[e])
                                        for j in range(len(LOOKS))] for e in ("pool", "chosen")}
    results["cpu_seconds"] = time.process_time() - start
    out = ROOT / "benchmarks" / "results" / "dmc_design.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    print("| design | estimand | truth | participants | mean | bias (MC se) | sd | mean se | coverage | undefined |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, by_estimand in results["designs"].items():
        for e, rows in by_estimand.items():
            for n, r in zip(LOOKS, rows):
                print(f"| {name} | {e} | {r['truth']:+.3f} | {n} | {r['mean']:+.3f} | {r['bias']:+.4f} "
                      f"({r['bias_mcse']:.4f}) | {r['sd']:.3f} | {r['mean_se']:.3f} | {r['coverage']:.3f} | "
                      f"{r['undefined']:.3f} |")
    print(f"{results['cpu_seconds']:.0f} s of CPU")


if __name__ == "__main__":
    main()
