"""The pooled error consistency of sparse designs (``pool_pairs``): its formula against a hand computation, and
by simulation with a planted truth that it recovers what the mean of pair kappas underestimates.

The planted truth (the design the web server's ``humanlike plan design`` simulates): participants right with
0.9 on half of the items and 0.2 on the other half, independently of each other, so two of them agree on 0.75
of the items against a chance agreement of 0.55^2 + 0.45^2 = 0.505: EC = (0.75 - 0.505) / (1 - 0.505) = 0.495.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from humanlike.app.cli import main
from humanlike.measures.ec.analysis import error_consistency
from humanlike.resampling.settings import ResamplingSettings

P_EASY, P_HARD = 0.9, 0.2
TRUE_EC = (0.75 - 0.505) / (1 - 0.505)
N_ITEMS, PER_PARTICIPANT, PARTICIPANTS = 32, 10, 20


def subset_study(seed: int, n_conditions: int = 1) -> pd.DataFrame:
    """Each participant answers a block of 10 consecutive items of a shuffled list of 32 (per condition
    alternately), the next participant the next 10, as the server's subset design; pairs share 0 to 10 items."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(N_ITEMS)
    rows = []
    for k in range(PARTICIPANTS):
        for j in range(PER_PARTICIPANT):
            item = int(order[(k * PER_PARTICIPANT + j) % N_ITEMS])
            p = P_HARD if item % 2 else P_EASY
            correct = bool(rng.random() < p)
            label = "ab"[item % 2]
            rows.append({"observer": f"p{k:02d}", "observer_kind": "human", "experiment": "e",
                         "condition": f"c{(item + k) % n_conditions}", "item": f"i{item:02d}", "label": label,
                         "response": label if correct else "ab"[1 - item % 2], "correct": correct})
    return pd.DataFrame(rows)


def overall_humans(trials: pd.DataFrame, pool_pairs: bool, resamples: int = 0, seed: int = 0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = error_consistency(trials, settings=ResamplingSettings(n_resamples=resamples, seed=seed),
                                   pool_pairs=pool_pairs)
    frame = result.summary_frame()
    return frame[(frame["scope"] == "overall") & (frame["group"] == "humans")
                 & (frame["metric"] == "error_consistency")].iloc[0], result


def test_pooled_ec_is_the_kappa_of_the_summed_tables():
    trials = subset_study(0, n_conditions=2)
    row, result = overall_humans(trials, pool_pairs=True)
    pairs = result.pairs
    by_hand = []
    for _, tables in pairs[pairs["pair_kind"] == "human-human"].groupby("condition"):
        a, b, c, d = (tables[k].sum() for k in ("both_correct", "only_1_correct", "only_2_correct", "both_wrong"))
        n = a + b + c + d
        observed = (a + d) / n
        accuracy = (2 * a + b + c) / (2 * n)
        chance = accuracy ** 2 + (1 - accuracy) ** 2
        by_hand.append((observed - chance) / (1 - chance))
    assert row["estimate"] == pytest.approx(np.mean(by_hand), abs=1e-12)
    # the pairs keep their own kappas, and the unpooled summary is their mean (pairs first over conditions)
    unpooled, _ = overall_humans(trials, pool_pairs=False)
    per_pair = pairs.groupby(["observer_1", "observer_2"])["error_consistency"].mean()
    assert unpooled["estimate"] == pytest.approx(per_pair.mean(), abs=1e-12)
    assert unpooled["estimate"] != pytest.approx(row["estimate"], abs=1e-3)


def test_pooled_ec_recovers_the_planted_truth_where_the_mean_of_pairs_does_not():
    pooled, mean_of_pairs = [], []
    for seed in range(60):
        trials = subset_study(seed)
        pooled.append(overall_humans(trials, True)[0]["estimate"])
        mean_of_pairs.append(overall_humans(trials, False)[0]["estimate"])
    pooled, mean_of_pairs = np.array(pooled), np.array(mean_of_pairs)
    standard_error = pooled.std(ddof=1) / np.sqrt(pooled.size)
    # unbiased up to 3 standard errors of the mean of 60 studies (about 0.03)
    assert abs(pooled.mean() - TRUE_EC) < 3 * standard_error, (pooled.mean(), standard_error)
    # the mean of pair kappas on 0-10 shared items is biased towards 0 (by about 0.05 here)
    assert mean_of_pairs.mean() < TRUE_EC - 3 * mean_of_pairs.std(ddof=1) / np.sqrt(mean_of_pairs.size)


def test_ec_pool_option_changes_the_estimate(tmp_path, capsys):
    path = tmp_path / "trials.csv"
    subset_study(3).to_csv(path, index=False)
    estimates = {}
    for pool in ("never", "always", "auto"):
        out = tmp_path / pool
        assert main(["ec", str(path), "--pool", pool, "--resamples", "0", "--out", str(out)]) == 0
        summary = pd.read_csv(out / "ec_summary.csv").query(
            "scope == 'overall' and group == 'humans' and metric == 'error_consistency'")
        estimates[pool] = float(summary["estimate"].iloc[0])
        assert json.loads((out / "ec.json").read_text())["settings"]["pool_pairs"] is (pool == "always")
    capsys.readouterr()
    # a trial file has no study design: auto keeps the mean over pairs
    assert estimates["auto"] == estimates["never"] != estimates["always"]
