"""What real lab files contain (issue 22): numbers re-spelled by pandas, names that collide with group
labels, look-alike names, observers absent from a condition, options the command line could not pass.

Each class ends as the documented result (docs/formats.md) or a clear error naming what is at fault.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanlike.analyses.benchmark import run_benchmark
from humanlike.analyses.errorconsistency import apply_exclusions, error_consistency
from humanlike.analyses.ood_spectrum import resolve_reference
from humanlike.data.loaders import load_trials
from humanlike.data.schema import TrialTableError, validate_trials
from humanlike.data.simulate import simulate_benchmark

N_RESAMPLES = 40
SEED = 3


# ---------------------------------------------------------------------------------------------------------
# 1. Conditions spelled as numbers
# ---------------------------------------------------------------------------------------------------------

def numbers_as_pandas_writes_them(trials: pd.DataFrame) -> pd.DataFrame:
    """The table as a lab's pandas script leaves it: in every experiment whose conditions all parse as numbers,
    the condition column holds floats (a blank cell or one decimal is enough), so 0.00 -> 0.0 and 0 -> 0.0."""
    out = trials.copy()
    condition = out["condition"].astype(object).to_numpy().copy()
    for _, index in out.groupby("experiment").indices.items():
        values = pd.to_numeric(out["condition"].iloc[index], errors="coerce")
        if values.notna().all():
            condition[index] = values.astype(float).to_numpy()
    out["condition"] = condition
    return out


@pytest.fixture(scope="module")
def raw_rows(mvh_trials):
    return run_benchmark(mvh_trials, n_resamples=N_RESAMPLES, seed=SEED, validate=False).rows


def human_ec(rows: pd.DataFrame) -> float:
    overall = rows[(rows["scope"] == "overall") & (rows["metric"] == "error_consistency")]
    return float(overall.set_index("observer").loc["humans", "estimate"])


def test_a_pandas_written_trial_table_gives_the_raw_folders_benchmark(mvh_trials, raw_rows, tmp_path):
    path = tmp_path / "trials.csv"
    numbers_as_pandas_writes_them(mvh_trials).to_csv(path, index=False)
    reread = load_trials(path)
    noise = set(reread.loc[reread["experiment"] == "uniform-noise", "condition"])
    assert {"0.0", "0.6", "0.9"} <= noise and "0.00" not in noise  # the spelling really changed
    assert "0.0" in set(reread.loc[reread["experiment"] == "low-pass", "condition"])
    rows = run_benchmark(reread, n_resamples=N_RESAMPLES, seed=SEED).rows
    assert round(human_ec(raw_rows), 3) == 0.431
    # Every estimate, pair count and undefined share is the raw folder's. A stratum's random stream is named by
    # its condition label, so strata whose label pandas re-spelled draw other (equally valid) resamples: their
    # intervals are equal in distribution, and the scopes whose labels kept their spelling are equal exactly.
    pd.testing.assert_frame_equal(rows.drop(columns=["ci_low", "ci_high"]),
                                  raw_rows.drop(columns=["ci_low", "ci_high"]))
    respelled = {"uniform-noise", "high-pass", "low-pass", "phase-scrambling", "rotation", "cue-conflict", "edge",
                 "silhouette", "sketch", "stylized", "power-equalisation", "overall"}
    same = ~raw_rows["scope"].isin(respelled)
    assert same.sum() > 100
    pd.testing.assert_frame_equal(rows[same], raw_rows[same])
    width = (rows["ci_high"] - rows["ci_low"]) / (raw_rows["ci_high"] - raw_rows["ci_low"])
    assert 0.8 < width[~same].median() < 1.25


def test_a_raw_folder_with_one_model_resaved_by_pandas_gives_the_raw_benchmark(modelvshuman_dir, raw_rows,
                                                                                 tmp_path):
    copy = tmp_path / "raw-data"
    for source in sorted(modelvshuman_dir.glob("*/*.csv")):
        target = copy / source.parent.name / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if "_resnet50_" in source.name:
            pd.read_csv(source).to_csv(target, index=False)   # what "open, fix a typo, save" does
        else:
            os.symlink(source, target)
    assert "0.0," in (copy / "uniform-noise" / "uniform-noise_resnet50_session-1.csv").read_text()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trials = load_trials(copy, cache=False)
    assert any("spell the same number" in str(w.message) and "uniform-noise" in str(w.message) for w in caught)
    noise = trials[trials["experiment"] == "uniform-noise"]
    assert noise.loc[noise["observer"] == "resnet50", "condition"].nunique() == 8
    assert noise["condition"].nunique() == 8   # one spelling per number
    assert "0.00" in set(noise["condition"])   # the raw spelling (most rows) is kept
    rows = run_benchmark(trials, n_resamples=N_RESAMPLES, seed=SEED).rows
    pd.testing.assert_frame_equal(rows, raw_rows)


def test_exclusions_match_conditions_by_number_and_warn_when_they_name_nothing():
    trials = simulate_benchmark(seed=0, n_humans=2, n_items=16)
    by_number = apply_exclusions(trials, {"sim-noise": ("0", "0.1")})
    by_spelling = apply_exclusions(trials, {"sim-noise": ("0.00", "0.10")})
    assert len(by_number) == len(by_spelling) < len(trials)
    with pytest.warns(UserWarning, match=r"exclusion condition\(s\) \['0.5'\] of experiment 'sim-noise'"):
        kept = apply_exclusions(trials, {"sim-noise": ("0.5",)})
    assert len(kept) == len(trials)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        apply_exclusions(trials, {"no-such-experiment": ("0",)})  # an experiment not in the data: silent


def test_reference_conditions_match_by_number():
    trials = simulate_benchmark(seed=0, n_humans=2, n_items=16)
    assert resolve_reference(trials, {"sim-noise": "0.0"}) == {"sim-noise": ("0.00",)}
    renamed = trials.assign(experiment=trials["experiment"].replace({"sim-blur": "rotation"}))
    renamed = renamed.assign(condition=np.where(renamed["experiment"] == "rotation",
                                                renamed["condition"] + ".0", renamed["condition"]))
    assert resolve_reference(renamed, None)["rotation"] == ("0.0",)


def test_one_condition_spelled_two_ways_is_one_condition_with_a_warning():
    trials = simulate_benchmark(seed=0, n_humans=2, n_items=16)
    model = trials["observer"] == trials.loc[trials["observer_kind"] == "model", "observer"].iloc[0]
    respelled = trials.assign(condition=np.where(model & (trials["condition"] == "0.10"), "0.1",
                                                 trials["condition"]))
    with pytest.warns(UserWarning, match=r"experiment 'sim-noise': conditions \['0.1', '0.10'\] spell the same"):
        checked = validate_trials(respelled)
    assert set(checked["condition"]) == set(trials["condition"])
    a = error_consistency(trials, n_resamples=30, seed=1).summary
    b = error_consistency(checked, n_resamples=30, seed=1).summary
    pd.testing.assert_frame_equal(a, b)
