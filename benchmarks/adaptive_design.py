"""Designs that decide: participants needed to tell two models apart, random vs discriminating design
(docs/designs-that-decide.md, issue 34).

Real model outputs: the model-vs-human ``uniform-noise`` experiment (its kept conditions, 5 x 160 = 800 candidate
items) and two of its models with the same accuracy (swag-regnety-16gf-in1k as A, swag-vit-b16-in1k as B).
Simulated participants follow a known pattern on those outputs: participant ``j`` is right on item ``i`` with
probability ``expit(logit(human accuracy of the condition) + beta_A (2 a_i - 1) + beta_B (2 b_i - 1) + e_i +
zeta_j)``, ``e_i ~ N(0, 0.5)`` fixed per item, ``zeta_j ~ N(0, 0.5)`` per participant. ``beta_A = 0.8``,
``beta_B = 0.6`` plant a pool-level EC difference (its exact value is printed); for the level, ``beta_A`` is solved
so that the pool-level difference is exactly 0 (two equally human-like models). Each participant sees 8 items per
condition (40 trials).

The adaptive design starts as the discriminating one (floor 0.2) and, after every 10 participants, draws the
next ones by the Neyman allocation of the current estimates (humanlike.measures.compare.design_adaptive).

Measured, per design: the fixed-sample power of the pool-level (inverse-probability weighted) test at each number
of participants, the participants needed for power 0.8 (interpolated), the level with equally human-like models
(fixed sample; the O'Brien-Fleming group-sequential test with looks at the simulated sizes; naive peeking at 1.96),
the coverage of the pool-level 95% interval, and the chosen-items estimate set against the pool truth. Writes
benchmarks/results/adaptive_design.json and docs/figures/designs_power.png; prints the tables the docs page shows.

    PYTHONPATH=src python benchmarks/adaptive_design.py [--studies 400] [--null-studies 800]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from scipy import optimize, special

from humanlike.measures.compare.design_adaptive import simulate_adaptive_studies
from humanlike.measures.compare.design_estimate import difference_from_sums, expected_sums, strata_layout
from humanlike.measures.compare.design_simulation import population_probability, simulate_design_studies
from humanlike.measures.compare.discriminating import design_from_trials
from humanlike.resampling.rng import stream
from humanlike.trials.loaders import load_trials
from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data")) / "modelvshuman" / "raw-data"
EXPERIMENT = "uniform-noise"
MODEL_A, MODEL_B = "swag-regnety-16gf-in1k", "swag-vit-b16-in1k"
BETA_A, BETA_B = 0.8, 0.6
ITEM_SD = PARTICIPANT_SD = 0.5
PER_CONDITION = 8
SIZES = (20, 40, 60, 80, 100, 120, 160, 200, 240, 320)
DESIGNS = (("random", 0.2), ("discriminating", 0.2), ("discriminating", 0.1), ("adaptive", 0.2))
BATCH = 10   # the adaptive design refits after every 10 participants


def needed(sizes, power, target=0.8):
    """Participants reaching ``target``, interpolated linearly in power between simulated sizes (None if never)."""
    above = np.flatnonzero(power >= target)
    if above.size == 0:
        return None
    k = int(above[0])
    if k == 0:
        return float(sizes[0])
    x0, x1, y0, y1 = sizes[k - 1], sizes[k], power[k - 1], power[k]
    return float(x0 + (target - y0) * (x1 - x0) / (y1 - y0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=400, help="simulated studies per design (planted difference)")
    parser.add_argument("--null-studies", type=int, default=800, help="simulated studies per design (level)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.process_time()
    trials = load_trials(DATA / EXPERIMENT)
    trials = trials[~trials["condition"].isin(MODELVSHUMAN_EXCLUSIONS.get(EXPERIMENT, ()))]
    human = trials[trials["observer_kind"] == "human"].groupby("condition")["correct"].mean()
    results = {"experiment": EXPERIMENT, "models": [MODEL_A, MODEL_B], "beta": [BETA_A, BETA_B],
               "item_sd": ITEM_SD, "participant_sd": PARTICIPANT_SD, "per_condition": PER_CONDITION,
               "sizes": list(SIZES), "studies": args.studies, "null_studies": args.null_studies, "designs": {}}
    curves = {}
    for design, floor in DESIGNS:
        name = design if design == "random" else f"{design} (floor {floor})"
        items = design_from_trials(trials, MODEL_A, MODEL_B, design="random" if design == "random" else
                                   "discriminating", per_condition=PER_CONDITION, floor=floor)
        pool = items.pool
        noise = stream(args.seed, "adaptive-design", "items").normal(0.0, ITEM_SD, len(pool))
        base = special.logit(pool["condition"].map(human).to_numpy(dtype=float)) + noise
        sign_a, sign_b = 2.0 * pool["correct_a"] - 1.0, 2.0 * pool["correct_b"] - 1.0
        _, shares, _ = strata_layout(items)

        def logit(beta_a, beta_b=BETA_B):
            return (base + beta_a * sign_a + beta_b * sign_b).to_numpy()

        def pool_truth(beta_a):
            sums = expected_sums(items, population_probability(logit(beta_a), PARTICIPANT_SD))
            return float(difference_from_sums(sums, shares))

        beta_null = optimize.brentq(pool_truth, -2.0, 3.0, xtol=1e-12)
        simulate = simulate_design_studies if design != "adaptive" else (
            lambda *a, **k: simulate_adaptive_studies(*a, batch=BATCH, **k))
        alt = simulate(items, logit(BETA_A), participant_sd=PARTICIPANT_SD, looks=SIZES, n_studies=args.studies,
                       seed=args.seed)
        null = simulate(items, logit(beta_null), participant_sd=PARTICIPANT_SD, looks=SIZES,
                        n_studies=args.null_studies, seed=args.seed + 1)
        power = alt.power()
        n80 = needed(np.array(SIZES), power)
        # the sequential plan: its maximum the first simulated size at or above 1.1 x the fixed-sample need
        n_max = next((n for n in SIZES if n80 is not None and n >= 1.1 * n80), SIZES[-1])
        defined = np.isfinite(alt.estimate["pool"])
        shown = float((pool["probability"] * (pool["correct_a"] != pool["correct_b"])).sum()
                      / items.trials_per_participant)
        row = {
            "design": design, "floor": floor, "pool_truth": alt.truth["pool"],
            "chosen_truth": alt.truth["chosen"] if np.isfinite(alt.truth["chosen"]) else None,
            "disagreement_share_pool": float((pool["correct_a"] != pool["correct_b"]).mean()),
            "disagreement_share_shown": shown if design != "adaptive" else None,
            "power": power.tolist(), "needed_for_0.8": n80,
            "sd_pool_estimate": np.nanstd(alt.estimate["pool"], axis=0).tolist(),
            "median_se": np.nanmedian(alt.se["pool"], axis=0).tolist(),
            "coverage_pool_95": alt.coverage().tolist(),
            "undefined_share": (~defined).mean(axis=0).tolist(),
            "mean_pool_estimate": np.nanmean(alt.estimate["pool"], axis=0).tolist(),
            "mean_chosen_estimate": np.nanmean(alt.estimate["chosen"], axis=0).tolist(),
            "null_beta_a": beta_null, "null_pool_truth": null.truth["pool"],
            "level_fixed": null.power().tolist(),
            "sequential": {"n_max": n_max, "looks": [n for n in SIZES if n <= n_max],
                           "power": alt.sequential(last=n_max), "level": null.sequential(last=n_max),
                           "level_pocock": null.sequential(spending="pocock", last=n_max),
                           "level_naive_peeking": null.sequential(spending="none", last=n_max)},
        }
        results["designs"][name] = row
        curves[name] = power
        print(f"{name}: pool truth {row['pool_truth']:+.4f}, chosen-items truth {row['chosen_truth']}, "
              f"needed {n80}", flush=True)
    random_need = results["designs"]["random"]["needed_for_0.8"]
    for name, row in results["designs"].items():
        row["savings_vs_random"] = (random_need / row["needed_for_0.8"]
                                    if random_need and row["needed_for_0.8"] else None)
        seq = row["sequential"]["power"]["mean_participants"]
        row["savings_sequential_vs_random"] = random_need / seq if random_need else None
    results["cpu_seconds"] = time.process_time() - start
    out = ROOT / "benchmarks" / "results" / "adaptive_design.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    print_tables(results)
    figure(results, curves)
    print(f"cpu {results['cpu_seconds']:.0f} s; wrote {out.relative_to(ROOT)} and docs/figures/designs_power.png")


def print_tables(results) -> None:
    sizes = results["sizes"]
    print("\n| participants | " + " | ".join(results["designs"]) + " |")
    print("|---:|" + "---:|" * len(results["designs"]))
    for k, n in enumerate(sizes):
        print(f"| {n} | " + " | ".join(f"{row['power'][k]:.3f}" for row in results["designs"].values()) + " |")
    print("\n| design | trials on disagreement items | participants for power 0.8 | savings | sequential: max, "
          "power, mean participants | level fixed (at n80) | level sequential | level naive peeking | coverage "
          "(at n80) | pool truth | chosen-items truth |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, row in results["designs"].items():
        n80 = row["needed_for_0.8"]
        k = int(np.searchsorted(sizes, n80)) if n80 else len(sizes) - 1
        k = min(k, len(sizes) - 1)
        seq = row["sequential"]
        shown = "varies" if row["disagreement_share_shown"] is None else f"{row['disagreement_share_shown']:.0%}"
        print(f"| {name} | {shown} | {n80:.0f} | {row['savings_vs_random']:.2f}x | "
              f"{seq['n_max']}, {seq['power']['rejection']:.3f}, {seq['power']['mean_participants']:.0f} | "
              f"{row['level_fixed'][k]:.3f} | {seq['level']['rejection']:.3f} | "
              f"{seq['level_naive_peeking']['rejection']:.3f} | {row['coverage_pool_95'][k]:.3f} | "
              f"{row['pool_truth']:+.4f} | {_signed(row['chosen_truth'])} |")


def _signed(value) -> str:
    return "n/a" if value is None else f"{value:+.4f}"


def figure(results, curves) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for name, power in curves.items():
        ax.plot(results["sizes"], power, marker="o", label=name)
    ax.axhline(0.8, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(results["sizes"], [str(n) for n in results["sizes"]])
    ax.set_xlabel("participants (40 trials each)")
    ax.set_ylabel("power (pool-level EC difference, alpha 0.05)")
    ax.set_title(f"{results['models'][0]} vs {results['models'][1]} on {results['experiment']}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "figures" / "designs_power.png", dpi=110)


if __name__ == "__main__":
    main()
