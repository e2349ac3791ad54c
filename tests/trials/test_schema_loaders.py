"""The trial table: validation errors, tidy files, raw-data folders, and the real data."""

import glob
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanlike.trials.loaders import load_trials
from humanlike.trials.modelvshuman import modelvshuman_path
from humanlike.trials.raw_data import load_raw_data
from humanlike.trials.schema import REQUIRED, TrialTableError, validate_trials


def _table(**overrides):
    frame = pd.DataFrame({
        "observer": ["s1", "s1", "m1", "m1"],
        "observer_kind": ["human", "human", "model", "model"],
        "experiment": "e", "condition": "c",
        "item": ["i1", "i2", "i1", "i2"],
        "label": ["cat", "dog", "cat", "dog"],
        "response": ["cat", "cat", "cat", "dog"],
        "correct": [True, False, True, True],
    })
    for key, value in overrides.items():
        frame[key] = value
    return frame


def test_valid_table_passes_and_is_normalised():
    out = validate_trials(_table(condition="0.90"))
    assert list(out.columns[: len(REQUIRED)]) == list(REQUIRED)
    assert out["condition"].tolist() == ["0.90"] * 4
    assert out["correct"].dtype == bool


def test_missing_column_named():
    with pytest.raises(TrialTableError, match="label"):
        validate_trials(_table().drop(columns="label"))


def test_unknown_observer_kind_named():
    with pytest.raises(TrialTableError, match="robot"):
        validate_trials(_table(observer_kind=["human", "human", "robot", "robot"]))


def test_nan_in_required_column_names_observer():
    frame = _table()
    frame.loc[2, "item"] = np.nan
    with pytest.raises(TrialTableError, match=r"'item'.*observer=m1"):
        validate_trials(frame)


def test_duplicate_answer_without_repeat():
    frame = _table()
    frame.loc[1, "item"] = "i1"
    frame.loc[1, "label"] = "cat"
    frame.loc[1, "correct"] = True
    with pytest.raises(TrialTableError, match="more than once.*repeat.*observer=s1"):
        validate_trials(frame)
    frame["repeat"] = [0, 1, 0, 0]
    assert len(validate_trials(frame)) == 4


def test_response_outside_label_set():
    frame = _table(response=["cat", "zebra", "cat", "dog"], correct=[True, False, True, True])
    with pytest.raises(TrialTableError, match="zebra"):
        validate_trials(frame)
    frame.loc[1, "response"] = "na"  # no answer is allowed and wrong
    assert validate_trials(frame)["correct"].tolist() == [True, False, True, True]


def test_correct_must_match_response():
    with pytest.raises(TrialTableError, match="disagrees"):
        validate_trials(_table(correct=[True, True, True, True]))


def test_margin_sign_must_match_correctness():
    with pytest.raises(TrialTableError, match="decision_margin"):
        validate_trials(_table(decision_margin=[np.nan, np.nan, 0.5, -0.2]))
    ok = validate_trials(_table(decision_margin=[np.nan, np.nan, 0.5, 0.2]))
    assert ok["decision_margin"].notna().sum() == 2


def test_tidy_round_trip(tmp_path):
    frame = validate_trials(_table(rt=[0.5, 0.7, np.nan, np.nan]))
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    for name in ("t.csv", "t.parquet"):
        back = load_trials(tmp_path / name)
        pd.testing.assert_frame_equal(back[frame.columns].reset_index(drop=True), frame, check_dtype=False)


def _write_raw(folder: Path, experiment: str, observer: str, rows, sep="-"):
    path = folder / experiment / f"{experiment}_{observer}_session{sep}1.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows, columns=["subj", "session", "trial", "rt", "object_response", "category",
                                "condition", "imagename"]).to_csv(path, index=False)


def test_raw_folder_aligns_humans_and_models(tmp_path):
    raw = tmp_path / "raw-data"
    # parametric naming: the same stimulus with s01 / dnn in the prefix
    _write_raw(raw, "noise", "subject-01", [
        ["subject-01", 1, 1, 0.8, "cat", "cat", "0.10", "0001_nse_s01_0.10_cat_10_n1_1.png"],
        ["subject-01", 1, 2, 0.9, "na", "dog", "0.10", "0002_nse_s01_0.10_dog_10_n2_2.png"],
    ], sep="_")
    _write_raw(raw, "noise", "net", [
        ["net", 1, 1, "NaN", "dog", "cat", "0.10", "0001_nse_dnn_0.10_cat_10_n1_1.png"],
        ["net", 1, 2, "NaN", "dog", "dog", "0.10", "0002_nse_dnn_0.10_dog_10_n2_2.png"],
    ])
    # single-condition naming: models use bare stimulus names and no condition
    _write_raw(raw, "edge", "subject-01", [
        ["subject-01", 1, 1, 0.8, "cat", "cat", "0", "0001_edg_s01_0_cat_00_cat1.png"],
        ["subject-01", 1, 2, 0.9, "cat", "dog", "0", "0002_edg_s01_0_dog_00_dog3.png"],
    ], sep="_")
    _write_raw(raw, "edge", "net", [
        ["net", 1, 1, "NaN", "dog", "dog", "NaN", "dog3.png"],
        ["net", 1, 2, "NaN", "cat", "cat", "NaN", "cat1.png"],
    ])
    trials = load_trials(tmp_path)  # the parent of raw-data works too
    assert set(trials["observer_kind"]) == {"human", "model"}
    for experiment, group in trials.groupby("experiment"):
        items = group.groupby("observer")["item"].apply(frozenset)
        assert items.nunique() == 1, experiment
    edge = trials[trials["experiment"] == "edge"]
    assert set(edge["item"]) == {"cat1.png", "dog3.png"}
    assert set(edge["condition"]) == {"0"}  # models take the humans' condition
    noise = trials[trials["experiment"] == "noise"]
    assert noise.loc[noise["response"] == "na", "correct"].tolist() == [False]
    assert set(noise["condition"]) == {"0.10"}  # conditions stay strings


def test_raw_folder_errors(tmp_path):
    with pytest.raises(TrialTableError, match="no such file"):
        load_trials(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TrialTableError, match="no raw-data files"):
        load_trials(tmp_path / "empty")
    bad = tmp_path / "bad" / "x"
    bad.mkdir(parents=True)
    pd.DataFrame({"subj": ["a"], "trial": [1]}).to_csv(bad / "x_a_session-1.csv", index=False)
    with pytest.raises(TrialTableError, match="missing column"):
        load_trials(tmp_path / "bad")


def test_download_fails_clearly_offline(tmp_path, monkeypatch):
    monkeypatch.delenv("HUMANLIKE_MODELVSHUMAN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    import humanlike.trials.modelvshuman as modelvshuman

    monkeypatch.setattr(modelvshuman, "MODELVSHUMAN_URL", "http://127.0.0.1:9/none.zip")
    with pytest.raises(ConnectionError, match="offline"):
        modelvshuman._download_modelvshuman(tmp_path / "mvh", url=modelvshuman.MODELVSHUMAN_URL, timeout=2)
    with pytest.raises(FileNotFoundError, match="HUMANLIKE_MODELVSHUMAN"):
        modelvshuman_path(download=False)


def test_modelvshuman_path_from_env(modelvshuman_dir, monkeypatch):
    monkeypatch.setenv("HUMANLIKE_MODELVSHUMAN", str(modelvshuman_dir))
    assert modelvshuman_path() == modelvshuman_dir


# --- real data ---------------------------------------------------------------------------------------

def test_real_data_every_observer_aligned(mvh_trials, modelvshuman_dir):
    files = glob.glob(str(modelvshuman_dir / "*" / "*_session*1.csv"))
    raw_rows = sum(len(pd.read_csv(f)) for f in files)
    assert len(mvh_trials) == raw_rows  # no trial lost
    assert mvh_trials["experiment"].nunique() == 17
    for experiment, group in mvh_trials.groupby("experiment"):
        per_observer = group.groupby("observer")["item"].apply(frozenset)
        assert per_observer.nunique() == 1, f"{experiment}: observers saw different item sets"
        assert (group["observer_kind"] == "model").sum() > 0 and (group["observer_kind"] == "human").sum() > 0
        # each item has one label and one condition for everybody
        assert (group.groupby("item")["label"].nunique() == 1).all()
        assert (group.groupby("item")["condition"].nunique() == 1).all()
    assert mvh_trials.groupby("experiment")["observer"].nunique().to_dict()["colour"] == 13


def test_real_data_accuracies_match_published_performances(mvh_trials, modelvshuman_dir):
    perf = pd.concat(pd.read_csv(f) for f in glob.glob(str(modelvshuman_dir / "performances" / "*.csv")))
    perf = perf[perf["metric_name"] == "accuracy (top-1)"]
    perf["observer"] = perf["subj"].str.replace("_", "-")
    ours = mvh_trials.groupby(["observer", "experiment"])["correct"].mean()
    merged = perf.join(ours.rename("ours"), on=["observer", "dataset_name"])
    assert merged["ours"].notna().all()
    assert np.allclose(merged["performance"], merged["ours"], atol=1e-9)


def test_real_data_two_folders_combined(combined_trials, mvh_trials, dmc_dir):
    dmc_models = {Path(f).name.split("_", 1)[1].rsplit("_session", 1)[0]
                  for f in glob.glob(str(dmc_dir / "colour" / "*.csv"))}
    assert len(dmc_models) == 15
    assert dmc_models <= set(combined_trials["observer"])
    with_margin = combined_trials[combined_trials["decision_margin"].notna()]
    assert set(with_margin["observer"]) == dmc_models
    # shared models come from the folder with margins; margins agree with correctness
    assert ((with_margin["decision_margin"] > 0) == with_margin["correct"]).all()
    for experiment, group in combined_trials.groupby("experiment"):
        per_observer = group.groupby("observer")["item"].apply(frozenset)
        assert per_observer.nunique() == 1, experiment
    humans = combined_trials[combined_trials["observer_kind"] == "human"]
    assert len(humans) == (mvh_trials["observer_kind"] == "human").sum()


def test_conflicting_folders_need_a_rule(modelvshuman_dir, dmc_dir):
    with pytest.raises(TrialTableError, match="more than one folder"):
        load_raw_data([modelvshuman_dir / "edge", dmc_dir / "edge"], on_conflict="error")
