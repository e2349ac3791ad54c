"""Designs that decide, DMC on real margins: does drawing the items where two models' margins disagree save
participants? (docs/designs-that-decide.md, issue 34; the planted pool is benchmarks/dmc_design.py.)

Real model outputs: the decision margins of the model-vs-human ``uniform-noise`` experiment in the
decision-margin-consistency set (its kept conditions, 5 x 160 = 800 candidate items), for two models (resnet50 as
A, vit-b-16 as B). Simulated participants follow a known pattern on those margins: participant ``j`` is right on
item ``i`` with probability ``expit(logit(human accuracy of the condition) + w_A z_A,i + w_B z_B,i + e_i +
zeta_j)``, ``z`` a model's margin standardised within the condition, ``e_i ~ N(0, 0.5)`` fixed per item,
``zeta_j ~ N(0, 0.5)`` per participant. ``w_A = 0.6``, ``w_B = 0.2`` plant a pool-level DMC difference (its exact
value, from the population's chances on every pool item, is printed); for the level, ``w_A`` is solved so that the
pool-level difference is exactly 0. Each participant sees 8 items per condition (40 trials).

Measured, per design (random; discriminating with floor 0.2 and 0.1, the margins' disagreement scored by
``margin_scores``): the power of the pool-level test at each number of participants, the participants needed for
power 0.8 (interpolated), the level with equally human-like models, the coverage of the pool-level 95% interval,
the bias and the share of undefined estimates. Writes benchmarks/results/dmc_design_real.json and prints a table.

    PYTHONPATH=src python benchmarks/dmc_design_real.py [--studies 400] [--null-studies 800]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from scipy import optimize, special

from humanlike.measures.compare.design_estimate_dmc import DmcLayout, dmc_truth
from humanlike.measures.compare.design_simulation import population_probability, simulate_dmc_studies
from humanlike.measures.compare.discriminating import design_from_trials, margin_scores
from humanlike.resampling.rng import stream
from humanlike.trials.loaders import load_trials
from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS

from adaptive_design import needed   # participants reaching a power, interpolated (the EC benchmark's rule)

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data"))
EXPERIMENT = "uniform-noise"
MODEL_A, MODEL_B = "resnet50", "vit-b-16"
WEIGHT_A, WEIGHT_B = 0.6, 0.2
ITEM_SD = PARTICIPANT_SD = 0.5
PER_CONDITION = 8
SIZES = (20, 40, 60, 80, 120, 160, 240, 320)
DESIGNS = (("random", 0.2), ("discriminating", 0.2), ("discriminating", 0.1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=400, help="simulated studies per design (planted difference)")
    parser.add_argument("--null-studies", type=int, default=800, help="simulated studies per design (level)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.process_time()
    models = load_trials(SHARED / "modelvshuman-dmc" / "raw-data" / EXPERIMENT)
    people = load_trials(SHARED / "modelvshuman" / "raw-data" / EXPERIMENT)
    kept = ~models["condition"].isin(MODELVSHUMAN_EXCLUSIONS.get(EXPERIMENT, ()))
    models = models[kept]
    human = people[people["observer_kind"] == "human"].groupby("condition")["correct"].mean()
    results = {"experiment": EXPERIMENT, "models": [MODEL_A, MODEL_B], "weights": [WEIGHT_A, WEIGHT_B],
               "item_sd": ITEM_SD, "participant_sd": PARTICIPANT_SD, "per_condition": PER_CONDITION,
               "sizes": list(SIZES), "studies": args.studies, "null_studies": args.null_studies, "designs": {}}
    for design, floor in DESIGNS:
        name = design if design == "random" else f"{design} (floor {floor})"
        items = design_from_trials(models, MODEL_A, MODEL_B, design=design, per_condition=PER_CONDITION,
                                   floor=floor, measure="dmc")
        pool = items.pool
        layout = DmcLayout.from_design(items)
        margin_gap = margin_scores(pool["margin_a"], pool["margin_b"], pool["stratum"])
        z = pool.groupby("stratum")[["margin_a", "margin_b"]].transform(lambda v: (v - v.mean()) / v.std(ddof=0))
        noise = stream(args.seed, "dmc-design-real", "items").normal(0.0, ITEM_SD, len(pool))
        accuracy = pool["condition"].map(human)
        if accuracy.isna().any():
            raise SystemExit(f"no human accuracy for condition(s) {sorted(pool.loc[accuracy.isna(), 'condition'])}")
        base = special.logit(accuracy.to_numpy(dtype=float)) + noise

        def logit(weight_a, weight_b=WEIGHT_B):
            return base + weight_a * z["margin_a"].to_numpy() + weight_b * z["margin_b"].to_numpy()

        def pool_truth(weight_a):
            return dmc_truth(layout, population_probability(logit(weight_a), PARTICIPANT_SD))

        weight_null = optimize.brentq(pool_truth, -2.0, 3.0, xtol=1e-12)
        alt = simulate_dmc_studies(items, logit(WEIGHT_A), participant_sd=PARTICIPANT_SD, looks=SIZES,
                                   n_studies=args.studies, seed=args.seed)
        null = simulate_dmc_studies(items, logit(weight_null), participant_sd=PARTICIPANT_SD, looks=SIZES,
                                    n_studies=args.null_studies, seed=args.seed + 1)
        power = alt.power()
        row = {"design": design, "floor": floor, "pool_truth": alt.truth["pool"], "chosen_truth": alt.truth["chosen"],
               "power": power.tolist(), "needed_for_0.8": needed(np.array(SIZES), power),
               "level": null.power().tolist(), "null_weight_a": weight_null, "null_pool_truth": null.truth["pool"],
               "coverage_pool_95": alt.coverage().tolist(),
               "bias_pool": (np.nanmean(alt.estimate["pool"], axis=0) - alt.truth["pool"]).tolist(),
               "sd_pool_estimate": np.nanstd(alt.estimate["pool"], axis=0).tolist(),
               "undefined_share": np.isnan(alt.estimate["pool"]).mean(axis=0).tolist(),
               "probability_range": [float(pool["probability"].min()), float(pool["probability"].max())],
               "margin_gap_shown": float((pool["probability"] * margin_gap).sum() / items.trials_per_participant),
               "margin_gap_pool": float(margin_gap.mean())}
        results["designs"][name] = row
        print(f"{name}: pool truth {row['pool_truth']:+.4f}, needed {row['needed_for_0.8']}", flush=True)
    random_need = results["designs"]["random"]["needed_for_0.8"]
    for row in results["designs"].values():
        row["savings_vs_random"] = (random_need / row["needed_for_0.8"]
                                    if random_need and row["needed_for_0.8"] else None)
    results["cpu_seconds"] = time.process_time() - start
    out = ROOT / "benchmarks" / "results" / "dmc_design_real.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    print_table(results)


def print_table(results) -> None:
    sizes = results["sizes"]
    print("| design | " + " | ".join(str(n) for n in sizes) + " | needed for 0.8 | x random | level (80 / 320) "
          "| coverage (80 / 320) | undefined at 20 |")
    print("|---|" + "---:|" * (len(sizes) + 5))
    at80, at320 = sizes.index(80), sizes.index(320)
    for name, row in results["designs"].items():
        need = "-" if row["needed_for_0.8"] is None else f"{row['needed_for_0.8']:.0f}"
        saving = "-" if row["savings_vs_random"] is None else f"{row['savings_vs_random']:.2f}"
        print(f"| {name} | " + " | ".join(f"{p:.3f}" for p in row["power"]) + f" | {need} | {saving} | "
              f"{row['level'][at80]:.3f} / {row['level'][at320]:.3f} | {row['coverage_pool_95'][at80]:.3f} / "
              f"{row['coverage_pool_95'][at320]:.3f} | {row['undefined_share'][0]:.0%} |")
    first = next(iter(results["designs"].values()))
    print(f"pool truth {first['pool_truth']:+.4f}; {results['cpu_seconds']:.0f} s of CPU")


if __name__ == "__main__":
    main()
