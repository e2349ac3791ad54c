"""The bad-data corpus through the commands (issue 11), beside tests/test_bad_input_corpus.py (the readers):
malformed trial files, raw-data folders, judgement files and representations given to the CLI. Every input
gives exit 2 with ``humanlike <cmd>: error:`` naming the file and what is wrong, or a documented result."""

from __future__ import annotations

import re

import numpy as np
import pytest

from humanlike.app.cli import main

HEADER = "observer,observer_kind,experiment,condition,item,label,response,correct"
RAW_HEADER = "subj,session,trial,rt,object_response,category,condition,imagename"


def _rows(n=6, observers=(("s1", "human"), ("s2", "human"), ("m1", "model"))):
    out = []
    for name, kind in observers:
        for i in range(n):
            label = ["cat", "dog"][i % 2]
            response = label if (i + len(name) + (kind == "model")) % 3 else ("dog" if label == "cat" else "cat")
            out.append(f"{name},{kind},e,0,img{i},{label},{response},{response == label}")
    return out


GOOD = "\n".join([HEADER, *_rows()]) + "\n"


def _with_column(name, value):
    return "\n".join([f"{HEADER},{name}", *(f"{r},{value}" for r in _rows())]) + "\n"


# (id, file name, content (str or bytes), command, text the error must contain)
TRIAL_FILE_CASES = [
    ("semicolons", "t.csv", GOOD.replace(",", ";"), "ec", "missing required column"),
    ("column twice", "t.csv", _with_column("label", "cat"), "ec", "['label'] appear more than once"),
    ("correct yes/no", "t.csv", GOOD.replace("True", "yes").replace("False", "no"), "dmc",
     "'correct' must be boolean"),
    ("kind capitalised", "t.csv", GOOD.replace(",human,", ",Human,"), "ood", "unknown value(s) ['Human']"),
    ("ragged row", "t.csv", GOOD + "s1,human,e\n", "ec", "blank cells"),
    ("exact duplicate row", "t.csv", GOOD + _rows()[0] + "\n", "dmc", "more than once"),
    ("margin not numeric", "t.csv", _with_column("decision_margin", "big"), "ec", "'decision_margin' must be numeric"),
    ("rt not numeric", "t.csv", _with_column("rt", "slow"), "ec", "'rt' must be numeric"),
    ("blank condition", "t.csv", GOOD.replace(",e,0,img1,", ",e,,img1,"), "ood", "'condition' has blank"),
    ("blank label", "t.csv", GOOD.replace(",img2,cat,", ",img2,,"), "dvc", "'label' has blank"),
    ("blank experiment", "t.csv", GOOD.replace(",human,e,0,img3", ",human,,0,img3"), "ec", "'experiment' has blank"),
    ("response NaN text", "t.csv", GOOD.replace(",img3,dog,dog,True", ",img3,dog,NaN,False"), "ec",
     "outside the label set"),
    ("UTF-16", "t.csv", GOOD.encode("utf-16"), "dmc", "not UTF-8"),
    ("Latin-1", "t.csv", GOOD.replace("s1", "s\u00e9").encode("latin-1"), "ec", "not UTF-8"),
    ("whitespace only", "t.csv", "   \n\n", "ood", "the file is empty"),
    ("header only", "t.csv", HEADER + "\n", "dvc", "no rows"),
    ("unknown suffix", "t.xlsx", GOOD, "ec", "unknown file type"),
    ("not parquet", "t.parquet", "plain text", "ood", "cannot be read"),
    ("ood: one observer", "t.csv", "\n".join([HEADER, *_rows(observers=(("s1", "human"),))]) + "\n", "ood",
     "at least two observers"),
    ("ood: models only", "t.csv", "\n".join([HEADER, *_rows(observers=(("m1", "model"), ("m2", "model")))]) + "\n",
     "ood", "needs human observers"),
    ("ec: one observer", "t.csv", "\n".join([HEADER, *_rows(observers=(("s1", "human"),))]) + "\n", "ec",
     "at least two observers"),
    ("dmc: one item", "t.csv", "\n".join([HEADER, *_rows(n=1)]) + "\n", "dmc", "at least 2 items"),
    ("item with two labels", "t.csv", "\n".join([HEADER, *(r for r in _rows() if not r.startswith("m1,model,e,0,img0,")),
                                                "m1,model,e,0,img0,dog,dog,True"]) + "\n", "ec", "different labels"),
    ("observer in two kinds", "t.csv", GOOD.replace("m1,model", "s1,model"), "ec", "both human and model"),
]

RAW_CASES = [
    ("raw: empty file", "", "the file is empty"),
    ("raw: UTF-16", f"{RAW_HEADER}\n1,1,1,0.5,cat,cat,0,a.png\n".encode("utf-16"), "not UTF-8"),
    ("raw: missing columns", "subj,session,trial,rt,object_response,category\n1,1,1,0.5,cat,cat\n",
     "missing column(s) ['condition', 'imagename']"),
]

JUDGEMENT_CASES = [
    ("mlds: empty file", "", "mlds", "the file is empty"),
    ("mlds: response 2", "resp,S1,S2,S3\n2,1,2,3\n0,2,3,4\n", "mlds", "must be 0 or 1"),
    ("mlds: blank response", "resp,S1,S2,S3\n,1,2,3\n0,2,3,4\n", "mlds", "must be 0 or 1"),
    ("mlds: stimulus text", "resp,S1,S2,S3\n1,a,2,3\n0,2,3,4\n", "mlds", "'s1' is not numeric"),
    ("mlds: no S3", "resp,S1,S2\n1,1,2\n", "mlds", "missing column(s) ['S3']"),
    ("mlds: repeated level", "resp,S1,S2,S3\n1,1,1,1\n0,1,1,1\n", "mlds", "s1 < s2 < s3"),
    ("mlds: unknown layout", "x,y\n1,2\n", "mlds", "unknown judgement layout"),
    ("mlds: UTF-16", "resp,S1,S2,S3\n1,1,2,3\n".encode("utf-16"), "mlds", "not UTF-8"),
    ("psychscore: empty file", "", "psychscore", "the file is empty"),
]


def _write(path, content):
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def _check(argv, capsys, names):
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert "Traceback" not in err
    assert re.search(r"^humanlike \w+: error: ", err, re.M), err
    assert names in err, (names, err)
    return err


def _command(name):
    return {"dvc": ["dvc", "choices"]}.get(name, [name])


def _fast(name):
    return {"mlds": [], "psychscore": ["--resamples", "0"]}.get(
        name, ["--resamples", "0", "--quiet"] + (["--reference", "e=0"] if name == "ood" else []))


@pytest.mark.parametrize("name,content,command,names", [c[1:] for c in TRIAL_FILE_CASES],
                         ids=[c[0] for c in TRIAL_FILE_CASES])
def test_bad_trial_files_through_the_commands(tmp_path, capsys, name, content, command, names):
    path = _write(tmp_path / name, content)
    _check([*_command(command), str(path), *_fast(command)], capsys, names)


@pytest.mark.parametrize("content,names", [c[1:] for c in RAW_CASES], ids=[c[0] for c in RAW_CASES])
def test_bad_raw_data_files_name_the_file(tmp_path, capsys, content, names):
    (tmp_path / "raw" / "e").mkdir(parents=True)
    path = _write(tmp_path / "raw" / "e" / "e_subject-01_session_1.csv", content)
    err = _check(["ec", str(tmp_path / "raw"), "--resamples", "0", "--quiet"], capsys, names)
    assert str(path) in err


@pytest.mark.parametrize("content,command,names", [c[1:] for c in JUDGEMENT_CASES], ids=[c[0] for c in JUDGEMENT_CASES])
def test_bad_judgement_files_name_the_file(tmp_path, capsys, content, command, names):
    path = _write(tmp_path / "j.csv", content)
    err = _check([command, str(path), *_fast(command)], capsys, names)
    assert str(path) in err


def _representations(tmp_path):
    from humanlike.trials.representations import Representation, save_representation
    from humanlike.measures.dvc.simulate import planted_representations

    fa, _, labels = planted_representations(0.6, n_classes=3, n_per_class=20, n_units=12, seed=2)
    items = np.array([f"img{k:03d}" for k in range(labels.size)])
    return save_representation(Representation(fa, items, labels, name="net-a"), tmp_path / "a.npz")


REPRESENTATION_CASES = [
    ("no features", lambda: {"labels": np.array(["a", "b"])}, "missing array(s) ['features']"),
    ("NaN features", lambda: {"features": np.full((6, 4), np.nan), "labels": np.array(list("aabbcc"))},
     "NaN or inf"),
    ("labels too short", lambda: {"features": np.ones((6, 4)), "labels": np.array(list("aab"))},
     "one entry per image"),
    ("no shared items", lambda: {"features": np.random.default_rng(0).normal(size=(60, 12)),
                                 "labels": np.repeat(["c0", "c1", "c2"], 20),
                                 "items": np.array([f"x{k}" for k in range(60)])}, "share no item ids"),
]


@pytest.mark.parametrize("arrays,names", [c[1:] for c in REPRESENTATION_CASES], ids=[c[0] for c in REPRESENTATION_CASES])
def test_bad_representations_are_clear_errors(tmp_path, capsys, arrays, names):
    a = _representations(tmp_path)
    np.savez(tmp_path / "b.npz", **arrays())
    _check(["dvc", "represent", str(a), str(tmp_path / "b.npz"), "--resamples", "0", "--pcs", "2", "--quiet"],
           capsys, names)


# --- documented correct results -----------------------------------------------------------------------------

@pytest.mark.parametrize("name,content", [
    ("UTF-8 with BOM", GOOD.encode("utf-8-sig")),
    ("extra column", _with_column("session", "1").encode()),
    ("correct as 1/0", GOOD.replace("True", "1").replace("False", "0").encode()),
])
def test_harmless_variants_are_accepted_with_the_same_numbers(tmp_path, capsys, name, content):
    import json

    reference = _write(tmp_path / "good.csv", GOOD)
    variant = _write(tmp_path / "variant.csv", content)
    docs = []
    for path in (reference, variant):
        assert main(["ec", str(path), "--resamples", "0", "--json", "--quiet"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    drop = {"settings", "sources"}  # sources name the file and its digest, which differ by construction
    assert {k: v for k, v in docs[0].items() if k not in drop} == {k: v for k, v in docs[1].items() if k not in drop}
    assert docs[1]["sources"][0]["source"] == str(variant)


def test_models_only_give_model_model_ec_and_no_human_numbers(tmp_path, capsys):
    import json

    path = _write(tmp_path / "m.csv", "\n".join([HEADER, *_rows(observers=(("m1", "model"), ("m2", "model")))]))
    assert main(["ec", str(path), "--resamples", "0", "--json", "--quiet", "--experiment", "e"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model_model"]["n_pairs"] == 1 and doc["human_human"]["n_pairs"] == 0
    assert all(e["n_pairs"] == 0 and e["mean"] is None for e in doc["model_human"].values())
