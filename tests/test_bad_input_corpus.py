"""The bad-input corpus (issue 11): every malformed input -> a clear error naming what is wrong, or a
documented correct result. Goes through the public readers (load_trials / validate_trials)."""

import numpy as np
import pandas as pd
import pytest

from humanlike.trials.loaders import load_trials
from humanlike.trials.schema import TrialTableError, first_presentations, number_repeats, validate_trials
from humanlike.resampling.settings import ResamplingSettings


def _good(n_items=4, conditions=("0.90",)):
    rows = []
    for obs, kind in (("subject-01", "human"), ("resnet50", "model")):
        for cond in conditions:
            for i in range(n_items):
                label = ["cat", "dog"][i % 2]
                response = label if (i + len(obs)) % 3 else ("dog" if label == "cat" else "cat")
                rows.append({"observer": obs, "observer_kind": kind, "experiment": "noise",
                             "condition": cond, "item": f"img{i}", "label": label, "response": response,
                             "correct": response == label})
    return pd.DataFrame(rows)


def _with(frame, row, **changes):
    frame = frame.copy()
    for col, value in changes.items():
        frame[col] = frame[col].astype(object)
        frame.loc[row, col] = value
    return frame


# (id, frame builder, pattern the error must contain)
FRAME_CASES = [
    ("missing column", lambda: _good().drop(columns="response"), "response"),
    ("NaN label", lambda: _with(_good(), 2, label=np.nan), "label.*NaN|NaN.*label"),
    ("blank item", lambda: _with(_good(), 1, item=""), "'item' has blank.*subject-01"),
    ("blank observer", lambda: _with(_good(), 5, observer="  "), "'observer' has blank"),
    ("blank response", lambda: _with(_good(), 0, response="", correct=False), "'response' has blank.*'na'"),
    ("unknown kind", lambda: _with(_good(), 0, observer_kind="robot"), "robot"),
    ("correct not boolean", lambda: _with(_good(), 0, correct="maybe"), "'correct' must be boolean"),
    ("correct disagrees", lambda: _with(_good(), 0, correct=not _good().loc[0, "correct"]), "disagrees"),
    ("duplicate answer", lambda: pd.concat([_good(), _good().iloc[[0]]]), "more than once.*img0"),
    ("item with two labels across observers",
     lambda: _with(_good(), 4, label="dog", response="dog", correct=True), "item 'img0'.*different labels"),
    ("item with two labels across conditions",
     lambda: _with(_good(conditions=("0.1", "0.2")), 4, label="dog", response="dog", correct=True),
     "item 'img0'.*different labels"),
    ("response outside label set", lambda: _with(_good(), 0, response="toaster", correct=False), "toaster"),
    ("float condition", lambda: _good().assign(condition=0.9), "'condition' holds floating-point.*strings"),
    ("float item ids", lambda: _good().assign(item=np.arange(8) / 10), "'item' holds floating-point"),
    ("observer in two kinds", lambda: _with(_good(), 0, observer="resnet50"), "both human and model"),
    ("empty table", lambda: _good().iloc[:0], "no rows"),
    ("not a frame", lambda: [1, 2, 3], "DataFrame"),
    ("margin sign wrong", lambda: _good().assign(decision_margin=np.where(_good()["correct"], -1.0, 1.0)),
     "decision_margin"),
    ("repeat NaN", lambda: _good().assign(repeat=np.nan), "'repeat' has NaN"),
    ("rt not numeric", lambda: _good().assign(rt="fast"), "'rt' must be numeric"),
]


@pytest.mark.parametrize("build,pattern", [c[1:] for c in FRAME_CASES], ids=[c[0] for c in FRAME_CASES])
def test_malformed_frames_give_clear_errors(build, pattern):
    with pytest.raises(TrialTableError, match=pattern):
        validate_trials(build())


def _csv(tmp_path, text, name="trials.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


HEADER = "observer,observer_kind,experiment,condition,item,label,response,correct\n"
FILE_CASES = [
    ("empty file", lambda p: _csv(p, ""), "trials.csv: the file is empty"),
    ("header only", lambda p: _csv(p, HEADER), "trials.csv: trial table has no rows"),
    ("not utf-8", lambda p: _csv(p, (HEADER + "s\u00e9,human,e,0,i,cat,cat,True\n").encode("latin-1")),
     "trials.csv: not UTF-8"),
    ("missing column", lambda p: _csv(p, "observer,item\ns1,i1\n"), "trials.csv: .*missing required column"),
    ("blank observer cell", lambda p: _csv(p, HEADER + ",human,e,0,i1,cat,cat,True\n"),
     "trials.csv: column 'observer' has blank"),
    ("blank item cell", lambda p: _csv(p, HEADER + "s1,human,e,0,,cat,cat,True\n"),
     "trials.csv: column 'item' has blank"),
    ("unknown suffix", lambda p: _csv(p, HEADER, name="trials.xlsx"), "unknown file type"),
    ("no such file", lambda p: p / "nope.csv", "nope.csv: no such file"),
    ("garbage parquet", lambda p: _csv(p, "not parquet", name="t.parquet"), "t.parquet: cannot be read"),
]


@pytest.mark.parametrize("make,pattern", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
def test_malformed_files_give_errors_naming_the_file(tmp_path, make, pattern):
    with pytest.raises(TrialTableError, match=pattern):
        load_trials(make(tmp_path))


# --- documented correct results ----------------------------------------------------------------------

def test_csv_conditions_keep_their_spelling(tmp_path):
    path = tmp_path / "t.csv"
    _good(conditions=("0.90", "1.0")).to_csv(path, index=False)
    assert sorted(load_trials(path)["condition"].unique()) == ["0.90", "1.0"]


def test_parquet_string_conditions_keep_their_spelling_and_float_ones_are_refused(tmp_path):
    pytest.importorskip("pyarrow")
    good = tmp_path / "good.parquet"
    _good().to_parquet(good, index=False)
    assert set(load_trials(good)["condition"]) == {"0.90"}
    bad = tmp_path / "bad.parquet"
    _good().assign(condition=0.9).to_parquet(bad, index=False)
    with pytest.raises(TrialTableError, match="bad.parquet: column 'condition' holds floating-point"):
        load_trials(bad)


def test_integer_item_ids_are_exact_and_accepted():
    out = validate_trials(_good().assign(item=np.tile(np.arange(4), 2)))
    assert set(out["item"]) == {"0", "1", "2", "3"}


def test_sixteen_choice_data_covering_few_classes_is_valid():
    frame = _with(_good(), 0, response="elephant", correct=False)  # a benchmark class no item has
    assert len(validate_trials(frame)) == 8
    frame = _with(_good(), 0, response="toaster", correct=False)
    assert len(validate_trials(frame, labels=["cat", "dog", "toaster"])) == 8
    with pytest.raises(TrialTableError, match="declared label set"):
        validate_trials(_good(), labels=["cat"])


def test_repeats_are_numbered_per_experiment_and_no_experiment_vanishes():
    edge = _good().assign(experiment="edge")
    silhouette = _good().assign(experiment="silhouette")  # same item ids as edge
    both = number_repeats(pd.concat([edge, silhouette], ignore_index=True))
    assert (both["repeat"] == 0).all()
    # A mis-numbered table (repeats counted across experiments) still keeps both experiments.
    wrong = pd.concat([edge.assign(repeat=0), silhouette.assign(repeat=1)], ignore_index=True)
    kept = first_presentations(validate_trials(wrong))
    assert set(kept["experiment"]) == {"edge", "silhouette"} and len(kept) == len(wrong)
    # Real repeats within one experiment: only the first presentation is kept.
    twice = number_repeats(pd.concat([edge, edge], ignore_index=True))
    assert sorted(twice["repeat"].unique()) == [0, 1]
    assert len(first_presentations(validate_trials(twice))) == len(edge)


def test_one_item_condition_gives_undefined_ec_with_its_reason():
    from humanlike.measures.pairs.metric import counts_from_correctness, kappa_reason
    counts = counts_from_correctness([True], [False])
    assert kappa_reason(*counts).item() == "fewer than two trials"


def test_one_item_condition_is_not_averaged_in_as_zero():
    from humanlike.measures.ec.analysis import error_consistency
    frame = _good(n_items=1)
    frame.loc[frame["observer"] == "resnet50", ["response", "correct"]] = ["dog", False]  # 1 right, 1 wrong
    pairs = error_consistency(frame, settings=ResamplingSettings(n_resamples=10, seed=0)).pairs
    assert pairs["reason"].tolist() == ["fewer than two trials"]
    assert pairs["error_consistency"].isna().all()  # not kappa 0 (which would be averaged in)


def _two_humans_one_model(tmp_path):
    good = _good(n_items=20)
    extra = good[good["observer_kind"] == "human"].assign(observer="subject-02")
    path = tmp_path / "t.csv"
    pd.concat([good, extra]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", ["ec", "dmc"])
def test_cli_out_pointing_at_a_file_is_a_clear_error(command, tmp_path, capsys):
    from humanlike.app.cli import main
    data = _two_humans_one_model(tmp_path)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code = _run_cli(main, [command, str(data), "--experiment", "noise", "--resamples", "20", "--out", str(blocker)])
    assert code == 2
    assert "afile: exists and is not a folder" in capsys.readouterr().err


def test_cli_interrupt_is_reported_not_a_traceback(monkeypatch, tmp_path, capsys):
    from humanlike.measures.ec import analysis as errorconsistency
    from humanlike.app.cli import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(errorconsistency, "error_consistency", interrupted)
    code = main(["ec", str(_two_humans_one_model(tmp_path)), "--experiment", "noise", "--out", str(tmp_path / "o")])
    assert code == 130
    assert "humanlike ec: interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("resamples", ["1", "-5"])
def test_cli_ec_rejects_absurd_resample_counts(resamples, tmp_path):
    from humanlike.app.cli import main
    data = _two_humans_one_model(tmp_path)
    code = _run_cli(main, ["ec", str(data), "--experiment", "noise", "--resamples", resamples,
                           "--out", str(tmp_path / "o")])
    assert code == 2


def _run_cli(main, argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


# --- difference judgements (MLDS, Psychophysical-Score), issue 22 -----------------------------------------
# Every class through the command line as a new user meets it: exit 2 and one line naming the file, column,
# row or observer at fault; or a documented non-ok status with its reason (never a number that looks fine).

JUDGEMENT_HEADER = "observer,scale,s1,s2,s3,response\n"
_ALL_TRIADS = [(a, b, c) for a in range(1, 6) for b in range(a + 1, 6) for c in range(b + 1, 6)]


def _triad_file(tmp_path, rows, name="judgements.csv", header=JUDGEMENT_HEADER):
    path = tmp_path / name
    path.write_text(header + "".join(rows))
    return path


def _good_triads():
    return [f"o,s,{a},{b},{c},{(a + b + c + k) % 2}\n" for k in range(3) for a, b, c in _ALL_TRIADS]


JUDGEMENT_FILE_CASES = [
    ("descending tidy triad", lambda rows: rows[:1] + ["o,s,3,2,1,1\n"] + rows[1:],
     r"judgements\.csv: triads must have s1 < s2 < s3 \(physical order.*row 2 "),
    ("response 2", lambda rows: rows[:4] + ["o,s,1,2,3,2\n"] + rows[4:], r"judgements\.csv: .*must be 0 or 1.*row 5 "),
    ("level 0", lambda rows: ["o,s,0,2,3,1\n"] + rows, r"judgements\.csv: column 's1' has level indices below 1.*row 1 "),
    ("level not a number", lambda rows: ["o,s,one,2,3,1\n"] + rows, r"judgements\.csv: column 's1' is not numeric"),
    ("missing observer", lambda rows: [",s,1,2,3,1\n"] + rows, r"column 'observer' is missing in 1 row"),
    ("level never judged", lambda rows: [r for r in rows if ",4," not in r and not r.startswith("o,s,4")],
     r"level\(s\) \[4\] appear in no trial"),
]


@pytest.mark.parametrize("edit,pattern", [c[1:] for c in JUDGEMENT_FILE_CASES], ids=[c[0] for c in JUDGEMENT_FILE_CASES])
def test_cli_mlds_bad_judgement_files_name_the_fault(tmp_path, capsys, edit, pattern):
    import re

    from humanlike.app.cli import main
    path = _triad_file(tmp_path, edit(_good_triads()))
    assert _run_cli(main, ["mlds", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("humanlike mlds: error: ") and "Traceback" not in err
    assert re.search(pattern, err), err


@pytest.mark.parametrize("rows,status,reason", [
    (["o,s,1,2,3,1\n", "o,s,1,2,3,0\n", "o,s,1,2,3,1\n"] * 3, "not_identified", "1 distinct triad"),
    (["o,s,1,2,3,1\n", "o,s,1,2,3,0\n", "o,s,4,5,6,1\n", "o,s,4,5,6,0\n"], "not_identified",
     "levels 1, 2, 3 | 4, 5, 6 are never compared"),
], ids=["one repeated triad", "two unconnected groups of levels"])
def test_cli_mlds_undetermined_scales_are_not_ok(tmp_path, capsys, rows, status, reason):
    from humanlike.app.cli import main
    code = _run_cli(main, ["mlds", str(_triad_file(tmp_path, rows))])
    out = capsys.readouterr().out
    assert code == 0 and f"status {status}" in out and reason in out
    assert "e+30" not in out


@pytest.mark.realdata
def test_cli_mlds_backwards_responses_say_so(tmp_path, capsys, shared_data):
    from humanlike.app.cli import main
    autumn = pd.read_csv(shared_data / "mlds" / "AutumnLab.csv")
    path = tmp_path / "swapped.csv"
    autumn.assign(resp=1 - autumn["resp"]).to_csv(path, index=False)   # pairs swapped, responses not flipped
    assert _run_cli(main, ["mlds", str(path)]) == 0
    out = capsys.readouterr().out
    assert "status reversed" in out and "coded backwards" in out


def _psych_file(tmp_path, edit=None):
    from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    table = simulate_psychscore_demo(n_classes=3, n_humans=2)
    path = tmp_path / "psych.csv"
    (edit(table) if edit else table).to_csv(path, index=False)
    return path


def _stray_level(table):
    table = table.copy()
    table.loc[7, "s3"] = 9
    return table


def _blank_class(table):
    table = table.copy()
    table["class_a"] = table["class_a"].astype(object)
    table.loc[2, "class_a"] = None
    return table


PSYCH_CASES = [
    ("no class columns", lambda t: t.drop(columns=["class_a", "class_b"]), r"psych\.csv: judgement table lacks columns"),
    ("blank class", _blank_class, r"psych\.csv: column 'class_a' is missing in 1 row\(s\), e\.g\. row 3 "),
    ("stray level", _stray_level, r"level\(s\) 9 used by only 1 row\(s\), e\.g\. row 8 "),
    ("descending triads", lambda t: t.assign(s1=t["s3"], s3=t["s1"]), r"psych\.csv: triads must have s1 < s2 < s3"),
]


@pytest.mark.parametrize("edit,pattern", [c[1:] for c in PSYCH_CASES], ids=[c[0] for c in PSYCH_CASES])
def test_cli_psychscore_refuses_what_mlds_refuses(tmp_path, capsys, edit, pattern):
    import re

    from humanlike.app.cli import main
    code = _run_cli(main, ["psychscore", str(_psych_file(tmp_path, edit)), "--resamples", "0",
                           "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("humanlike psychscore: error: ") and "Traceback" not in err
    assert re.search(pattern, err), err
# --- issue 22: the data people really have ------------------------------------------------------------------
# Each class ends as a documented result (docs/formats.md) or a clear error naming what is at fault.

RESERVED_CASES = [
    ("model named humans", "humans"),
    ("model named model-model", "model-model"),
    ("model named model-human (mean)", "model-human (mean)"),
    ("model named HUMANS", "HUMANS"),
]


@pytest.mark.parametrize("name", [c[1] for c in RESERVED_CASES], ids=[c[0] for c in RESERVED_CASES])
def test_observers_named_like_a_group_are_refused(name):
    import re

    frame = _good().assign(observer=lambda f: f["observer"].replace({"resnet50": name}))
    with pytest.raises(TrialTableError, match=f"observer '{re.escape(name)}' has a reserved name"):
        validate_trials(frame)


def _respelled(frame, column, mapping, rows=None):
    out = frame.copy()
    pick = np.ones(len(out), bool) if rows is None else rows(out)
    out.loc[pick, column] = out.loc[pick, column].replace(mapping)
    return out


# (id, builder, column, expected distinct values after validation, warning it must give or None)
ACCEPTED_CASES = [
    ("condition 0.9 beside 0.90", lambda: _respelled(_good(), "condition", {"0.90": "0.9"},
                                                     lambda f: f["observer"] == "resnet50"),
     "condition", {"0.90"}, "spell the same number"),
    ("condition 0 written 0.0 everywhere", lambda: _good(conditions=("0",)).assign(condition="0.0"),
     "condition", {"0.0"}, None),
    ("condition False beside false", lambda: _respelled(_good(conditions=("false",)), "condition", {"false": "False"},
                                                        lambda f: (f["observer"] == "resnet50") & (f["item"] == "img0")),
     "condition", {"false"}, "differ only by case"),
    ("zero-width space in an observer", lambda: _respelled(_good(), "observer", {"subject-01": "subject\u200b-01"},
                                                           lambda f: f["item"].isin(["img0", "img1"])),
     "observer", {"subject-01", "resnet50"}, "invisible"),
    ("NFD spelling of an observer", lambda: _respelled(_good(), "observer", {"subject-01": "Jose\u0301"}),
     "observer", {"Jos\u00e9", "resnet50"}, None),
    ("byte-order mark in an experiment", lambda: _good().assign(experiment="\ufeffnoise"),
     "experiment", {"noise"}, None),
    ("observers differing only by case", lambda: pd.concat([_good(), _good().assign(observer=lambda f: f[
        "observer"].replace({"subject-01": "Subject-01", "resnet50": "ResNet50"}))], ignore_index=True),
     "observer", {"subject-01", "Subject-01", "resnet50", "ResNet50"}, "differ only by case"),
]


@pytest.mark.parametrize("build,column,expected,warning", [c[1:] for c in ACCEPTED_CASES],
                         ids=[c[0] for c in ACCEPTED_CASES])
def test_look_alike_spellings_end_as_documented(build, column, expected, warning):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = validate_trials(build())
    assert set(out[column]) == expected
    said = " | ".join(str(w.message) for w in caught)
    if warning is None:
        assert not said
    else:
        assert warning in said


@pytest.mark.parametrize("file_name,kind", [("subject-01", "human"), ("Subject-01", "human"), ("SUBJ_02", "human"),
                                            ("participant3", "human"), ("p04", "human"), ("resnet50", "model"),
                                            ("subject\u200b-05", "human")])
def test_raw_file_names_say_who_is_human(tmp_path, file_name, kind):
    folder = tmp_path / "raw-data" / "edge"
    folder.mkdir(parents=True)
    header = "subj,session,trial,rt,object_response,category,condition,imagename\n"
    (folder / f"edge_{file_name}_session_1.csv").write_text(
        header + "x,1,1,0.5,cat,cat,0,0001_edg_s01_cat1.png\nx,1,2,0.5,cat,dog,0,0002_edg_s01_dog1.png\n",
        encoding="utf-8")
    out = load_trials(tmp_path, cache=False)
    assert out["observer_kind"].unique().tolist() == [kind]
    assert "\u200b" not in out["observer"].iloc[0]


def test_declared_humans_that_name_nobody_are_refused(tmp_path):
    path = tmp_path / "t.csv"
    _good().to_csv(path, index=False)
    with pytest.raises(TrialTableError, match="declared human 'alice' names no observer"):
        load_trials(path, humans=["alice"])
    assert set(load_trials(path, humans=["resnet*"]).query("observer_kind == 'human'")["observer"]) == {"resnet50"}


def test_exclusions_naming_nothing_are_said():
    from humanlike.trials.selection import apply_exclusions

    with pytest.warns(UserWarning, match=r"\['0.5'\] of experiment 'noise' name nothing"):
        apply_exclusions(_good(), {"noise": ("0.5",)})
    assert len(apply_exclusions(_good(), {"noise": ("0.9",)})) == 0   # 0.9 names the data's 0.90


def test_a_pair_sharing_no_trial_is_nan_with_its_reason():
    from humanlike.measures.ec.analysis import error_consistency

    frame = pd.concat([_good(conditions=("0.1",)), _good(conditions=("0.2",)).query("observer == 'resnet50'"),
                       _good(conditions=("0.2",)).query("observer == 'subject-01'").assign(item=lambda f: "x" + f["item"])],
                      ignore_index=True)
    result = error_consistency(frame, settings=ResamplingSettings(n_resamples=10, seed=0))
    row = result.pairs.set_index("condition").loc["0.2"]
    assert np.isnan(row["error_consistency"]) and "no trial shared" in row["reason"]
    assert np.isfinite(result.pairs.set_index("condition").loc["0.1", "error_consistency"])


@pytest.mark.parametrize("argv,pattern", [
    (["demo", "--out", ""], "empty path"),
    (["plan", "dmc", "--distribution", "uniform", "--params", "0.9", "0.1"], "0 <= A < B <= 1"),
    (["plan", "dmc", "--distribution", "beta", "--params", "0", "2"], "A > 0 and B > 0"),
])
def test_cli_refuses_bad_plans_and_empty_outputs(argv, pattern, capsys):
    from humanlike.app.cli import main

    assert _run_cli(main, argv) == 2
    assert pattern in capsys.readouterr().err


def test_cli_three_afc_data_needs_and_takes_labels(tmp_path, capsys):
    from humanlike.app.cli import main

    frame = _with(_good(n_items=8), 0, response="bird", correct=False)
    frame.loc[frame["label"] == "dog", "label"] = "cow"
    frame["correct"] = frame["response"] == frame["label"]
    frame.loc[frame["response"] == "dog", "response"] = "cow"
    frame["correct"] = frame["response"] == frame["label"]
    path = tmp_path / "afc.csv"
    frame.to_csv(path, index=False)
    argv = ["ec", str(path), "--resamples", "10", "--out", str(tmp_path / "o"), "--quiet"]
    assert _run_cli(main, argv) == 2
    assert "--labels" in capsys.readouterr().err
    assert _run_cli(main, [*argv, "--labels", "cat", "cow", "bird"]) == 0
