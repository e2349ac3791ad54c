"""What real lab files contain (issue 22): numbers re-spelled by pandas, names that collide with group
labels, look-alike names, observers absent from a condition, options the command line could not pass.

Each class ends as the documented result (docs/formats.md) or a clear error naming what is at fault.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.ec.benchmark import run_benchmark
from humanlike.measures.ec.analysis import error_consistency
from humanlike.trials.selection import apply_exclusions
from humanlike.measures.ood.spectrum import ood_spectrum
from humanlike.measures.ood.spectrum_reference import resolve_reference
from humanlike.measures.ood.alignment import ood_alignment
from humanlike.measures.dmc.analysis import decision_margin_consistency
from humanlike.resampling.settings import ResamplingSettings
from humanlike.trials.loaders import load_trials
from humanlike.trials.names import condition_key
from humanlike.trials.schema import TrialTableError, validate_trials
from humanlike.trials.simulate import simulate_benchmark
from humanlike.measures.dmc.analysis import dmc_settings

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
    return run_benchmark(mvh_trials, settings=ResamplingSettings(n_resamples=N_RESAMPLES, seed=SEED), validate=False).rows


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
    rows = run_benchmark(reread, settings=ResamplingSettings(n_resamples=N_RESAMPLES, seed=SEED)).rows
    assert round(human_ec(raw_rows), 3) == 0.431
    # Every estimate, pair count, undefined share and interval bound is the raw folder's: a stratum's random
    # stream is named by the number its condition spells, not by the spelling (Stratum.stream_key).
    pd.testing.assert_frame_equal(rows, raw_rows)


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
    rows = run_benchmark(trials, settings=ResamplingSettings(n_resamples=N_RESAMPLES, seed=SEED)).rows
    pd.testing.assert_frame_equal(rows, raw_rows)


# Experiments whose raw labels pandas re-spells: uniform-noise (0.00, 0.10, 0.20, 0.60, 0.90 -> 0.0, 0.1, ...),
# low-pass (0, 40 -> 0.0, 40.0); the numbers of each command below must not depend on how the file was saved.
RESPELLED = ["uniform-noise", "low-pass"]


def reread_as_pandas_wrote_it(trials: pd.DataFrame, path: Path) -> pd.DataFrame:
    """``trials`` written by pandas (conditions as floats) and read back with humanlike's loader."""
    numbers_as_pandas_writes_them(trials).to_csv(path, index=False)
    reread = load_trials(path, cache=False)
    respelled = set(reread["condition"]) - set(trials["condition"])
    assert {"0.0", "0.1", "40.0"} <= respelled   # the spellings really changed
    return reread


def assert_same_numbers(raw, reread) -> None:
    """Estimates, interval bounds and every bootstrap replicate equal, bit for bit."""
    assert raw.replicates.shape == reread.replicates.shape and raw.replicates.shape[0] > 0
    np.testing.assert_array_equal(reread.estimate, raw.estimate)
    for bound, raw_bound in zip(reread.interval(), raw.interval()):
        assert np.isfinite(raw_bound).sum() > 10
        np.testing.assert_array_equal(bound, raw_bound)
    np.testing.assert_array_equal(reread.replicates, raw.replicates)


def test_ec_of_a_pandas_written_table_has_the_raw_folders_intervals(mvh_trials, tmp_path):
    raw = mvh_trials[mvh_trials["experiment"].isin(RESPELLED)]
    reread = reread_as_pandas_wrote_it(raw, tmp_path / "trials.csv")
    settings = ResamplingSettings(n_resamples=50, seed=SEED)
    assert_same_numbers(error_consistency(raw, settings=settings).resampled,
                        error_consistency(reread, settings=settings).resampled)


def test_ood_of_a_pandas_written_table_has_the_raw_folders_intervals(mvh_trials, tmp_path):
    raw = mvh_trials[mvh_trials["experiment"].isin(RESPELLED)]
    reread = reread_as_pandas_wrote_it(raw, tmp_path / "trials.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # few conditions for the regime fit: its warnings are not the point
        spectra = [ood_spectrum(t, n_observer_resamples=20, seed=SEED) for t in (raw, reread)]
    scores = [s.conditions.assign(number=s.conditions["condition"].map(condition_key))
              .sort_values(["experiment", "number"]) for s in spectra]
    assert len(scores[0]) == 16
    for column in ("ood_score", "ood_score_low", "ood_score_high", "bootstrap_stability"):
        np.testing.assert_array_equal(scores[1][column].to_numpy(), scores[0][column].to_numpy())
    settings = ResamplingSettings(n_resamples=50, seed=SEED)
    assert_same_numbers(ood_alignment(raw, spectra[0], settings=settings).resampled,
                        ood_alignment(reread, spectra[1], settings=settings).resampled)


def test_dmc_of_a_pandas_written_table_has_the_raw_folders_intervals(combined_trials, tmp_path):
    raw = combined_trials[combined_trials["experiment"].isin(RESPELLED)]
    reread = reread_as_pandas_wrote_it(raw, tmp_path / "trials.csv")
    settings = ResamplingSettings(n_resamples=50, seed=SEED)
    assert_same_numbers(decision_margin_consistency(raw, settings=settings).resampled,
                        decision_margin_consistency(reread, settings=settings).resampled)


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
    a = error_consistency(trials, settings=ResamplingSettings(n_resamples=30, seed=1)).summary_table
    b = error_consistency(checked, settings=ResamplingSettings(n_resamples=30, seed=1)).summary_table
    pd.testing.assert_frame_equal(a, b)


def test_an_evaluation_folder_written_by_pandas_aligns_with_the_raw_items(tmp_path):
    """A model run saved by pandas spells the raw folder's condition "0" as "0.0": its items still align."""
    import json

    write_raw(tmp_path, "edge", "subject-01", ROWS)
    folder = tmp_path / "evaluated"
    folder.mkdir()
    (folder / "evaluation.json").write_text(json.dumps({"format": "humanlike-evaluation", "trials": "trials.csv"}))
    pd.DataFrame({"observer": "net", "observer_kind": "model", "experiment": "edge", "condition": 0.0,
                  "item": ["run_cat1.png", "run_dog1.png", "run_dog2.png"], "label": ["cat", "dog", "dog"],
                  "response": ["cat", "dog", "dog"], "correct": True}).to_csv(folder / "trials.csv", index=False)
    assert "0.0," in (folder / "trials.csv").read_text()
    trials = load_trials([tmp_path / "raw-data", folder], cache=False)
    items = trials.groupby("observer")["item"].agg(set)
    assert items["net"] == items["subject-01"] == {"cat1.png", "dog1.png", "dog2.png"}
    assert trials["condition"].nunique() == 1


# ---------------------------------------------------------------------------------------------------------
# 2. Reserved group names
# ---------------------------------------------------------------------------------------------------------

def small_benchmark(**kwargs) -> pd.DataFrame:
    return simulate_benchmark(seed=0, n_humans=3, n_items=16, **kwargs)


def with_model_renamed(trials: pd.DataFrame, name: str) -> pd.DataFrame:
    model = trials.loc[trials["observer_kind"] == "model", "observer"].iloc[0]
    return trials.assign(observer=trials["observer"].replace({model: name}))


def test_every_group_label_of_the_analyses_is_reserved():
    from humanlike.measures.pairs import aggregation as pairwise
    from humanlike.measures.dmc import kernel as dmc_kernel
    from humanlike.trials.schema import RESERVED_OBSERVER_NAMES

    assert {pairwise.HUMANS, pairwise.MODEL_MODEL, dmc_kernel.MODEL_HUMAN_MEAN} <= RESERVED_OBSERVER_NAMES


@pytest.mark.parametrize("name", ["humans", "model-model", "model-human (mean)", "Humans"])
def test_an_observer_named_like_a_group_is_refused_naming_it(name):
    with pytest.raises(TrialTableError, match=rf"observer '{re.escape(name)}'.*reserved"):
        validate_trials(with_model_renamed(small_benchmark(), name))


@pytest.mark.parametrize("analysis", ["ec", "benchmark", "dmc", "dvc", "ood"])
def test_every_analysis_refuses_an_observer_named_humans(analysis):
    from humanlike.measures.dmc.analysis import decision_margin_consistency
    from humanlike.measures.dvc.choices import latent_correctness_correlation
    from humanlike.measures.ood.analysis import ood_analysis

    trials = with_model_renamed(small_benchmark(), "humans")
    run = {"ec": lambda: error_consistency(trials, settings=ResamplingSettings(n_resamples=10, seed=0)),
           "benchmark": lambda: run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=10, seed=0)),
           "dmc": lambda: decision_margin_consistency(trials, settings=dmc_settings(n_resamples=10, seed=0)),
           "dvc": lambda: latent_correctness_correlation(trials),
           "ood": lambda: ood_analysis(trials)}[analysis]
    with pytest.raises(TrialTableError, match="observer 'humans'"):
        run()


# ---------------------------------------------------------------------------------------------------------
# 3. Look-alike names, and who is human
# ---------------------------------------------------------------------------------------------------------

HEADER = "subj,session,trial,rt,object_response,category,condition,imagename\n"


def write_raw(root: Path, experiment: str, observer: str, rows: list[tuple[str, str, str]]) -> None:
    """One raw-data file: rows of (response, label, stimulus)."""
    folder = root / "raw-data" / experiment
    folder.mkdir(parents=True, exist_ok=True)
    code = "s01" if "subject" in observer.lower() else "dnn"
    lines = [f"{observer},1,{k + 1},0.5,{r},{lab},0,{k + 1:04d}_x_{code}_{stim}" for k, (r, lab, stim) in enumerate(rows)]
    (folder / f"{experiment}_{observer}_session_1.csv").write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")


ROWS = [("cat", "cat", "cat1.png"), ("dog", "dog", "dog1.png"), ("cat", "dog", "dog2.png")]


def test_invisible_differences_are_normalised_away_and_said():
    trials = small_benchmark()
    human = trials.loc[trials["observer_kind"] == "human", "observer"].iloc[0]
    zero_width = human[:3] + "\u200b" + human[3:]
    decomposed = "Jose\u0301"     # NFD of José
    respelled = trials.assign(observer=np.where(np.arange(len(trials)) % 2 == 0,
                                                trials["observer"].replace({human: zero_width}), trials["observer"]))
    respelled["observer"] = respelled["observer"].replace({trials["observer"].iloc[-1]: decomposed})
    with pytest.warns(UserWarning, match="differ only by invisible characters"):
        checked = validate_trials(respelled)
    assert human in set(checked["observer"]) and zero_width not in set(checked["observer"])
    assert "Jos\u00e9" in set(checked["observer"])
    assert checked["observer"].nunique() == trials["observer"].nunique()


def test_names_that_differ_only_by_case_are_said(tmp_path):
    write_raw(tmp_path, "edge", "subject-01", ROWS)
    write_raw(tmp_path, "edge", "Subject-02", ROWS)
    write_raw(tmp_path, "Edge", "subject-03", ROWS)
    write_raw(tmp_path, "edge", "net", ROWS)
    with pytest.warns(UserWarning, match=r"experiments? \['Edge', 'edge'\] differ only by case"):
        trials = load_trials(tmp_path, cache=False)
    kinds = trials.groupby("observer")["observer_kind"].first().to_dict()
    assert kinds == {"Subject-02": "human", "subject-01": "human", "subject-03": "human", "net": "model"}


@pytest.mark.parametrize("name", ["Subject-01", "SUBJECT_01", "subj01", "participant-7", "P03", "sub-12"])
def test_humans_are_recognised_by_more_than_one_file_name_spelling(tmp_path, name):
    write_raw(tmp_path, "edge", name, ROWS)
    write_raw(tmp_path, "edge", "resnet50", ROWS)
    trials = load_trials(tmp_path, cache=False)
    assert trials.groupby("observer")["observer_kind"].first().to_dict() == {name: "human", "resnet50": "model"}


def test_the_user_declares_which_observers_are_human(tmp_path):
    write_raw(tmp_path, "edge", "alice", ROWS)
    write_raw(tmp_path, "edge", "bob", ROWS)
    write_raw(tmp_path, "edge", "resnet50", ROWS)
    kinds = load_trials(tmp_path, cache=False, humans=["alice", "b*"]).groupby("observer")["observer_kind"].first()
    assert kinds.to_dict() == {"alice": "human", "bob": "human", "resnet50": "model"}
    with pytest.raises(TrialTableError, match="'carol'.*names no observer"):
        load_trials(tmp_path, cache=False, humans=["alice", "carol"])
    tidy = tmp_path / "trials.csv"
    small_benchmark().to_csv(tidy, index=False)
    declared = load_trials(tidy, humans=["model-*"])
    assert set(declared.loc[declared["observer_kind"] == "human", "observer"]) == {
        o for o in declared["observer"].unique() if o.startswith("model-")}


# ---------------------------------------------------------------------------------------------------------
# 4. An observer absent from one condition
# ---------------------------------------------------------------------------------------------------------

def skipped_block() -> pd.DataFrame:
    trials = small_benchmark()
    return trials[~((trials["observer"] == "subject-01") & (trials["experiment"] == "sim-noise")
                    & (trials["condition"] == "0.10"))].reset_index(drop=True)


def disjoint_halves() -> pd.DataFrame:
    """subject-01 saw the first half of every condition's items, subject-02 and -03 the second half."""
    trials = small_benchmark()
    rank = trials.groupby(["experiment", "condition", "observer"])["item"].rank(method="first")
    first_half = rank <= 8
    keep = np.where(trials["observer"] == "subject-01", first_half,
                    np.where(trials["observer_kind"] == "human", ~first_half, True))
    return trials[keep].reset_index(drop=True)


def test_a_skipped_block_gives_nan_with_a_reason_and_the_mean_over_defined_tables():
    result = error_consistency(skipped_block(), settings=ResamplingSettings(n_resamples=30, seed=0))
    pairs = result.pairs
    missing = pairs[(pairs["condition"] == "0.10") & (pairs["experiment"] == "sim-noise")
                    & ((pairs["observer_1"] == "subject-01") | (pairs["observer_2"] == "subject-01"))]
    assert len(missing) == 7 and missing["error_consistency"].isna().all()
    assert missing["reason"].str.contains("no trial shared").all() and missing["p_value"].isna().all()
    # the human-human mean of the experiment: per pair the mean over its defined conditions, then over pairs
    noise = pairs[(pairs["experiment"] == "sim-noise") & (pairs["pair_kind"] == "human-human")]
    per_pair = noise.groupby(["observer_1", "observer_2"])["error_consistency"].mean()   # skips NaN
    summary = result.summary_table
    row = summary[(summary["scope"] == "sim-noise") & (summary["group"] == "humans")
                  & (summary["metric"] == "error_consistency")].iloc[0]
    assert row["estimate"] == pytest.approx(per_pair.mean(), abs=1e-12)
    assert row["n_pairs"] == 3 and np.isfinite(row["ci_low"])


def test_disjoint_halves_leave_the_pairs_that_share_nothing_undefined():
    result = error_consistency(disjoint_halves(), settings=ResamplingSettings(n_resamples=30, seed=0))
    pairs = result.pairs
    across = pairs[(pairs["observer_1"] == "subject-01") & (pairs["kind_2"] == "human")]
    assert across["error_consistency"].isna().all() and across["reason"].str.contains("no trial shared").all()
    # Each experiment's human-human EC is the one pair that shares trials (subject-02 x subject-03).
    defined = pairs[(pairs["observer_1"] == "subject-02") & (pairs["observer_2"] == "subject-03")]
    expected = defined.groupby("experiment")["error_consistency"].mean()
    summary = result.summary_table
    rows = summary[(summary["group"] == "humans") & (summary["metric"] == "error_consistency")
                   & (summary["scope"] != "overall")].set_index("scope")["estimate"]
    pd.testing.assert_series_equal(rows.sort_index(), expected.sort_index(), check_names=False, atol=1e-12)


@pytest.mark.parametrize("command", ["ec", "benchmark", "report"])
@pytest.mark.parametrize("data", ["skipped_block", "disjoint_halves"])
def test_the_commands_go_on_when_an_observer_skipped_a_condition(command, data, tmp_path, capsys):
    from humanlike.app import cli

    path = tmp_path / "trials.csv"
    {"skipped_block": skipped_block, "disjoint_halves": disjoint_halves}[data]().to_csv(path, index=False)
    argv = [command, str(path), "--resamples", "20", "--seed", "1", "--quiet"]
    if command == "benchmark":
        argv.append("--no-exclusions")
    if command == "report":
        argv += ["--no-exclusions", "--out", str(tmp_path / "report.html")]
    else:
        argv += ["--out", str(tmp_path / "out")]
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "a+b+c+d" not in err


# ---------------------------------------------------------------------------------------------------------
# 5. Options the command line could not pass: --labels, --humans
# ---------------------------------------------------------------------------------------------------------

def three_afc(tmp_path: Path) -> Path:
    """3-AFC data where no item's true class is C, though observers sometimes answer C."""
    rng = np.random.default_rng(0)
    rows = []
    for observer, kind in [("alice", "human"), ("bob", "human"), ("carol", "human"), ("net", "model")]:
        for k in range(40):
            label = "AB"[k % 2]
            response = label if rng.random() < 0.7 else rng.choice(list("ABC"))
            rows.append((observer, kind, "afc", "0", f"item{k}", label, response, response == label))
    frame = pd.DataFrame(rows, columns=["observer", "observer_kind", "experiment", "condition", "item", "label",
                                        "response", "correct"])
    path = tmp_path / "afc.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", ["ec", "benchmark", "dmc", "report"])
def test_labels_can_be_declared_on_the_command_line(command, tmp_path, capsys):
    from humanlike.app import cli

    path = three_afc(tmp_path)
    out = str(tmp_path / ("report.html" if command == "report" else "out"))
    base = [command, str(path), "--resamples", "10", "--seed", "0", "--out", out, "--quiet"]
    base += [] if command in ("ec", "dmc") else ["--no-exclusions"]
    assert cli.main(base) == 2
    err = capsys.readouterr().err
    assert "outside the label set" in err and "--labels" in err
    labels_file = tmp_path / "labels.txt"
    labels_file.write_text("A\nB\nC\n")
    for labels in (["A", "B", "C"], [str(labels_file)]):
        assert cli.main([*base, "--labels", *labels]) == 0, capsys.readouterr().err


def test_humans_can_be_declared_on_the_command_line(tmp_path, capsys):
    from humanlike.app import cli

    for observer in ("alice", "bob", "carol", "resnet50"):
        write_raw(tmp_path, "edge", observer, ROWS * 1)
    argv = ["ec", str(tmp_path / "raw-data"), "--resamples", "10", "--seed", "0", "--out", str(tmp_path / "o"),
            "--quiet", "--json"]
    assert cli.main([*argv, "--humans", "alice", "bob", "c*"]) == 0
    assert "alice" in capsys.readouterr().out
    assert cli.main([*argv, "--humans", "dave"]) == 2
    assert "'dave'" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------------
# 6. Planning and output paths
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("accuracy", [(0.75, 0.75), (0.9, 0.6), (0.55, 0.95)])
def test_planned_ec_interval_widths_respect_the_bounds_of_kappa(accuracy):
    from humanlike.measures.pairs.kappa_bounds import kappa_max, kappa_min
    from humanlike.measures.ec.planning import expected_ec_ci_width

    a1, a2 = accuracy
    width = expected_ec_ci_width([2, 3, 5, 10, 10_000], a1, a2, 0.1).width
    assert (width <= kappa_max(a1, a2) - kappa_min(a1, a2) + 1e-12).all() and (width <= 2).all()
    from humanlike.measures.ec.planning import unit_kappa_variance

    wald = 2 * 1.959963984540054 * np.sqrt(float(unit_kappa_variance(a1, a2, 0.1)) / 10_000)
    assert width[-1] == pytest.approx(wald, rel=1e-9)   # far from the bounds: the Wald width itself
    assert np.all(np.diff(width) <= 1e-12)


def test_plan_ec_with_two_trials_prints_a_width_within_the_bounds(capsys):
    import json

    from humanlike.app import cli

    assert cli.main(["plan", "ec", "--trials", "2", "--json"]) == 0
    width = json.loads(capsys.readouterr().out)["ci_width"][0]["width"]
    assert 0 < width <= 2


def test_plan_dmc_takes_its_documented_default_distribution(capsys):
    from humanlike.app import cli

    argv = ["plan", "dmc", "--distribution", "uniform", "--params", "0", "1", "--sims", "5", "--observers", "1", "2",
            "--json"]
    assert cli.main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert cli.main(argv[:5] + ["0.8", "0.2"] + argv[7:]) == 2
    assert "0 <= A < B <= 1" in capsys.readouterr().err
    assert cli.main(["plan", "dmc", "--distribution", "beta", "--params", "0", "2", "--sims", "5", "--json"]) == 2
    assert "A > 0 and B > 0" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["demo"], ["report", "x.csv"], ["evaluate", "--model", "x"]])
def test_an_empty_out_is_refused_not_the_current_folder(argv, tmp_path, capsys, monkeypatch):
    from humanlike.app import cli

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        cli.main([*argv, "--out", ""])
    assert stop.value.code == 2
    assert "empty path" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
