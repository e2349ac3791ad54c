"""The adaptive server's stopping rule by simulation: its level with two equally human-like models and its power
with the planted difference (docs/designs-that-decide.md#the-adaptive-server).

The setting is benchmarks/adaptive_design.py's (the model-vs-human uniform-noise experiment, its 800 candidate
items, models swag-regnety-16gf-in1k and swag-vit-b16-in1k, 8 items per condition, the planted pool-level EC
difference +0.038, and the equally human-like models of its level column), with the rule `humanlike serve` applies
to a study made with `serve init --design discriminate --adaptive` and the default settings: the adaptive design
(floor 0.2) refitted after every 10 participants, a look after every 10 up to a planned maximum of 80 (eight
looks), the group-sequential test at a two-sided level of 0.05 with O'Brien-Fleming-type spending (Pocock-type
and the naive fixed bound 1.96 for comparison). About a minute of CPU; writes
benchmarks/results/adaptive_server.json.

    PYTHONPATH=src python benchmarks/adaptive_server.py [--studies 400] [--null-studies 800]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import optimize, special

import adaptive_design as setting
from humanlike.measures.compare.design_adaptive import simulate_adaptive_studies
from humanlike.measures.compare.design_estimate import difference_from_sums, expected_sums, strata_layout
from humanlike.measures.compare.design_simulation import population_probability
from humanlike.measures.compare.discriminating import design_from_trials
from humanlike.resampling.rng import stream

ROOT = Path(__file__).resolve().parents[1]
BATCH, MAXIMUM, FLOOR = 10, 80, 0.2     # serve init's defaults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=400, help="simulated studies with the planted difference")
    parser.add_argument("--null-studies", type=int, default=800, help="simulated studies of equal models (level)")
    args = parser.parse_args()
    start = time.process_time()
    trials = setting.load_trials(setting.DATA / setting.EXPERIMENT)
    trials = trials[~trials["condition"].isin(setting.MODELVSHUMAN_EXCLUSIONS.get(setting.EXPERIMENT, ()))]
    human = trials[trials["observer_kind"] == "human"].groupby("condition")["correct"].mean()
    items = design_from_trials(trials, setting.MODEL_A, setting.MODEL_B, design="discriminating",
                               per_condition=setting.PER_CONDITION, floor=FLOOR)
    pool = items.pool
    # the same item logits as benchmarks/adaptive_design.py (its seed 0)
    noise = stream(0, "adaptive-design", "items").normal(0.0, setting.ITEM_SD, len(pool))
    base = special.logit(pool["condition"].map(human).to_numpy(dtype=float)) + noise
    sign_a, sign_b = 2.0 * pool["correct_a"] - 1.0, 2.0 * pool["correct_b"] - 1.0
    _, shares, _ = strata_layout(items)

    def logit(beta_a):
        return (base + beta_a * sign_a + setting.BETA_B * sign_b).to_numpy()

    def truth(beta_a):
        return float(difference_from_sums(expected_sums(items, population_probability(
            logit(beta_a), setting.PARTICIPANT_SD)), shares))

    beta_null = optimize.brentq(truth, -2.0, 3.0, xtol=1e-12)
    looks = tuple(range(BATCH, MAXIMUM + 1, BATCH))
    runs = {name: simulate_adaptive_studies(items, logit(beta), participant_sd=setting.PARTICIPANT_SD, batch=BATCH,
                                            looks=looks, n_studies=n, seed=seed)
            for name, beta, n, seed in (("planted", setting.BETA_A, args.studies, 0),
                                        ("equal", beta_null, args.null_studies, 1))}
    results = {"looks": list(looks), "pool_truth": truth(setting.BETA_A), "studies": args.studies,
               "null_studies": args.null_studies, "rules": {}}
    for spending in ("obrien-fleming", "pocock", "none"):
        power, level = (runs[name].sequential(spending=spending) for name in ("planted", "equal"))
        results["rules"][spending] = {"power": power["rejection"], "mean_participants": power["mean_participants"],
                                      "level": level["rejection"], "bounds": power["bounds"]}
        print(f"{spending:>15}: power {power['rejection']:.3f} (mean participants at stopping "
              f"{power['mean_participants']:.1f}), level {level['rejection']:.3f}; bounds "
              f"{np.round(power['bounds'], 3).tolist()}")
    results["cpu_seconds"] = time.process_time() - start
    out = ROOT / "benchmarks" / "results" / "adaptive_server.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"cpu {results['cpu_seconds']:.0f} s; wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
