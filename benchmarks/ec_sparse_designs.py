"""Bias and interval coverage of the human-human error consistency of sparse study designs, mean of pair kappas
against the pooled error consistency (``humanlike ec --pool``; docs/measures/error-consistency.md, "Sparse
designs").

One command (about a minute per 100 studies and estimator on a shared 2-core machine)::

    PYTHONPATH=src python benchmarks/ec_sparse_designs.py --studies 200 --resamples 200

Each simulated study is planned by the web server's own trial generator (:mod:`humanlike.web.planning`, as
``humanlike plan design`` does): 32 items, each participant a ``subset`` block of 10, so that pairs share 0 to
10 items. Participants are right with 0.9 on half of the items and 0.2 on the other half, independently, so
the planted error consistency of two of them is (0.75 - 0.505) / (1 - 0.505) = 0.495. Each study is analysed as
``humanlike ec`` does (:func:`humanlike.measures.ec.analysis.error_consistency`, the default jackknife-t
interval, items resampled within conditions, participants fixed), once with the mean of pair kappas and once
pooled. Printed: the mean estimate (bias against 0.495) and the share of 95% intervals holding 0.495.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def run(studies: int, resamples: int, participants: int, conditions: int, per_participant: int) -> list[dict]:
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.resampling.settings import ResamplingSettings
    from humanlike.web.config import StudyConfig
    from humanlike.web.planning import planted_truth, simulated_study, synthetic_stimuli

    truth = planted_truth("classify")
    config = StudyConfig(title="t", task="classify", stimuli=".", design="subset",
                         trials_per_participant=per_participant, practice_trials=0, catch_trials=0)
    stimuli = synthetic_stimuli("classify", 32, conditions)
    rows = []
    for pool in (False, True):
        estimates, covered, cpu = [], [], time.process_time()
        for seed in range(studies):
            table = simulated_study(config, stimuli, participants, seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = error_consistency(table, settings=ResamplingSettings(n_resamples=resamples, seed=seed,
                                                                              interval="jackknife-t"),
                                           pool_pairs=pool, validate=False)
            frame = result.summary_frame()
            row = frame[(frame["scope"] == "overall") & (frame["group"] == "humans")
                        & (frame["metric"] == "error_consistency")].iloc[0]
            estimates.append(row["estimate"])
            covered.append(row["ci_low"] <= truth <= row["ci_high"])
        estimates = np.asarray(estimates, dtype=float)
        rows.append({"estimator": "pooled" if pool else "mean of pairs", "studies": studies,
                     "participants": participants, "conditions": conditions, "truth": truth,
                     "mean_estimate": float(np.nanmean(estimates)),
                     "se": float(np.nanstd(estimates, ddof=1) / np.sqrt(np.isfinite(estimates).sum())),
                     "coverage": float(np.mean(covered)), "cpu_s": time.process_time() - cpu})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--participants", type=int, default=20)
    parser.add_argument("--conditions", type=int, default=1)
    parser.add_argument("--per-participant", type=int, default=10)
    args = parser.parse_args()
    for row in run(args.studies, args.resamples, args.participants, args.conditions, args.per_participant):
        print(f"{row['estimator']:>13}: {row['studies']} studies, {row['participants']} participants, "
              f"{row['conditions']} condition(s): mean estimate {row['mean_estimate']:.3f} "
              f"(+/- {row['se']:.3f}; truth {row['truth']:.3f}), 95% interval coverage {row['coverage']:.3f} "
              f"({row['cpu_s']:.0f} s CPU)")


if __name__ == "__main__":
    main()
