"""Adaptive MLDS triads: trials to reach a given scale error, adaptive vs random (docs/designs-that-decide.md,
issue 34).

Simulated observers with known scales answer triads of a 10-level sequence (120 distinct triads): ``x^2``
(expanding) and ``1 - (1 - x)^2`` (compressive, the shape of the kktriad observer's scale), each with decision
noise ``sigma`` = 0.14 on the standard scale (kktriad's fitted sigma is 0.136) and 0.25 (a noisier observer).
The *random* design shows every triad once in a random order, then again in another (the usual constant-stimuli
MLDS design); the *adaptive* design starts with 40 such trials, then chooses every batch of 20 from the current
fit (:func:`humanlike.measures.mlds.adaptive.choose_trials`: greedy A-optimal for the standard scale, 20%
random floor). After every batch both are refitted (maximum likelihood, probit).

Measured per observer (100 repetitions each): the RMSE of the fitted standard scale's 8 interior levels against
the truth after every batch; the trials at which it first reaches 0.03 and 0.02 (median over repetitions, with
the share of repetitions that reached it within 1200 trials), and the trials at which the RMSE over repetitions
reaches them; the RMSE over repetitions at 240 and 600 trials;
and the coverage of the 95% Wald interval of each interior level (delta method on the inverse information at
the fit) at 240 trials. Writes benchmarks/results/adaptive_mlds.json and prints the table the docs show.

    PYTHONPATH=src python benchmarks/adaptive_mlds.py [--repetitions 100]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

from humanlike.measures.mlds.adaptive import RANDOM_SHARE, fit_scale, simulate_run, standard_scale_covariance

ROOT = Path(__file__).resolve().parents[1]
LEVELS = 10
X = np.linspace(0, 1, LEVELS)
SHAPES = {"x^2": X ** 2, "1-(1-x)^2": 1 - (1 - X) ** 2}
SIGMAS = (0.14, 0.25)
MAX_TRIALS, BATCH, START = 1200, 20, 40
TARGETS = (0.03, 0.02)
COVERAGE_AT = 240
RMSE_AT = (240, 600)


def first_reaching(run, target):
    """Trials at which the run's RMSE first falls to ``target`` (None if it never does)."""
    hits = np.flatnonzero(run.rmse <= target)
    return int(run.trials[hits[0]]) if hits.size else None


def coverage(run, truth, n_trials):
    """Share of the interior levels whose 95% Wald interval at ``n_trials`` covers the true standard scale."""
    levels, responses = run.levels[:n_trials], run.responses[:n_trials]
    scale = fit_scale(levels, responses, LEVELS)
    if scale is None:
        return np.full(LEVELS - 2, np.nan)
    se = np.sqrt(np.diag(standard_scale_covariance(scale, levels)))
    estimate = scale[1:-1] / scale[-1]
    true_standard = (truth - truth[0]) / (truth[-1] - truth[0])
    z = stats.norm.ppf(0.975)
    return (np.abs(estimate - true_standard[1:-1]) <= z * se).astype(float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=100)
    args = parser.parse_args()
    start = time.process_time()
    results = {"levels": LEVELS, "design": "triad", "max_trials": MAX_TRIALS, "batch": BATCH, "start": START,
               "random_share": RANDOM_SHARE, "repetitions": args.repetitions, "targets": list(TARGETS),
               "coverage_at": COVERAGE_AT, "observers": []}
    for shape, truth in SHAPES.items():
        for sigma in SIGMAS:
            row = {"shape": shape, "sigma": sigma}
            for strategy in ("adaptive", "random"):
                runs = [simulate_run(truth, sigma, MAX_TRIALS, strategy=strategy, batch=BATCH, start=START,
                                     seed=seed) for seed in range(args.repetitions)]
                rmse = np.array([r.rmse for r in runs])
                out = {}
                for target in TARGETS:
                    reached = [first_reaching(r, target) for r in runs]
                    hit = [n for n in reached if n is not None]
                    # runs that never reach it count as beyond the maximum (the median stays defined while
                    # more than half reach it)
                    padded = np.array([n if n is not None else np.inf for n in reached], float)
                    median = float(np.median(padded))
                    out[f"trials_to_{target}"] = median if np.isfinite(median) else None
                    out[f"reached_{target}"] = len(hit) / len(runs)
                # the same from the RMSE over repetitions (a smooth curve, no first-crossing selection)
                curve = np.sqrt(np.nanmean(rmse ** 2, axis=0))
                for target in TARGETS:
                    below = np.flatnonzero(curve <= target)
                    out[f"pooled_rmse_trials_to_{target}"] = int(runs[0].trials[below[0]]) if below.size else None
                for n in RMSE_AT:
                    out[f"rmse_at_{n}"] = float(np.sqrt(np.nanmean(rmse[:, n // BATCH - 1] ** 2)))
                covered = np.array([coverage(r, truth, COVERAGE_AT) for r in runs])
                out["coverage"] = float(np.nanmean(covered))
                by_level = np.nanmean(covered, axis=0)
                out["coverage_range"] = [float(by_level.min()), float(by_level.max())]
                out["undefined_fits_at_coverage"] = float(np.isnan(covered[:, 0]).mean())
                row[strategy] = out
            results["observers"].append(row)
            print(shape, sigma, json.dumps({k: row[k] for k in ("adaptive", "random")}), flush=True)
    results["cpu_seconds"] = time.process_time() - start
    out_path = ROOT / "benchmarks" / "results" / "adaptive_mlds.json"
    out_path.write_text(json.dumps(results, indent=1) + "\n")
    print_table(results)
    print(f"cpu {results['cpu_seconds']:.0f} s; wrote {out_path.relative_to(ROOT)}")


def _trials(value, reached):
    if value is None:
        return f"> {MAX_TRIALS} ({reached:.0%} reach it)"
    return f"{value:.0f}" + ("" if reached == 1 else f" ({reached:.0%} reach it)")


def print_table(results) -> None:
    print("\n| observer (scale, sigma) | design | trials to RMSE 0.03 | trials to RMSE 0.02 | RMSE at 240 | "
          "RMSE at 600 | coverage of the 95% interval at 240 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in results["observers"]:
        for strategy in ("adaptive", "random"):
            out = row[strategy]
            print(f"| {row['shape']}, {row['sigma']} | {strategy} | {_trials(out['trials_to_0.03'], out['reached_0.03'])}"
                  f" | {_trials(out['trials_to_0.02'], out['reached_0.02'])} | {out['rmse_at_240']:.4f} | "
                  f"{out['rmse_at_600']:.4f} | {out['coverage']:.3f} |")
    print("\n| observer | trials saved to RMSE 0.03 (median run) | to 0.02 (median run) | to 0.03 (RMSE over runs) | "
          "to 0.02 (RMSE over runs) |")
    print("|---|---:|---:|---:|---:|")
    for row in results["observers"]:
        ratios = []
        for name in ("trials_to", "pooled_rmse_trials_to"):
            for target in TARGETS:
                a, r = row["adaptive"][f"{name}_{target}"], row["random"][f"{name}_{target}"]
                ratios.append(f"{r / a:.2f}x ({a:.0f} vs {r:.0f})" if a and r else "—")
        print(f"| {row['shape']}, {row['sigma']} | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
