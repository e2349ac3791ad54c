"""The bad-option corpus (issue 11), generated from the real parser: every numeric option of every command
with values it must refuse (non-numbers, NaN/inf, out of range, absurdly large), every choice option with an
unknown choice, and every path option with a missing file, a folder for a file and a file for a folder.
Each goes through ``main([...])`` in-process and must give exit code 2, ``humanlike <cmd>: error:`` naming
the option (or the path), and no traceback. Tiny simulated data keep it fast."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pytest

from humanlike.trials.simulate import DEFAULT_MODELS, simulate_benchmark
from humanlike import files as io
from humanlike.app.cli import build_parser, main

EXPERIMENTS = {"sim-noise": {"0.00": 1.0, "0.10": 0.75, "0.20": 0.5, "0.35": 0.3},
               "sim-blur": {"0": 1.0, "3": 0.7, "7": 0.45, "15": 0.25}}


def _leaves(parser, prefix=()):
    """(command words, parser) of every runnable command (walks the sub-command tree)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _leaves(sub, (*prefix, name))


PARSER = build_parser()
LEAVES = list(_leaves(PARSER))
# A stand-in for each positional, so that the option under test is the only thing wrong at parse time.
POSITIONAL_FILLERS = {"data": ["x.csv"], "a": ["a.npz"], "b": ["b.npz"], "files": ["j.csv"], "images": ["imgs"],
                      "judgements": [], "inputs": ["model", "stimuli"]}


def _positionals(parser):
    return [v for a in parser._actions if not a.option_strings and a.dest in POSITIONAL_FILLERS
            for v in POSITIONAL_FILLERS[a.dest]]


def _option_actions(parser):
    return [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]


def _values(action, value):
    n = action.nargs if isinstance(action.nargs, int) else 1
    return [value] * n


def _parse_cases():
    cases = []
    for words, parser in LEAVES:
        for action in _option_actions(parser):
            option = action.option_strings[-1]
            for bad in getattr(action.type, "bad_examples", ()):
                cases.append((words, parser, option, _values(action, bad)))
            if action.choices is not None and action.type is None:
                cases.append((words, parser, option, _values(action, "no-such-choice")))
    return cases


PARSE_CASES = _parse_cases()


def _check_refused(argv, capsys, *, names):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2, (argv, err)
    assert "Traceback" not in err
    assert re.search(r"^humanlike [\w -]+: error: ", err, re.M), err
    assert names in err, (names, err)


def test_every_numeric_option_has_a_checked_type():
    """No option takes a bare int or float (which would accept -5, nan, inf, 1e12 without a word)."""
    loose = [f"{' '.join(words)} {action.option_strings[-1]}" for words, parser in LEAVES
             for action in _option_actions(parser) if action.type in (int, float)]
    assert loose == []


def test_the_corpus_is_large():
    assert len(PARSE_CASES) >= 125 and len({tuple(w) for w, *_ in PARSE_CASES}) >= 12


@pytest.mark.parametrize("words,parser,option,values", PARSE_CASES,
                         ids=[f"{' '.join(c[0])} {c[2]} {c[3][0]!r}" for c in PARSE_CASES])
def test_bad_option_values_are_refused_by_the_parser(words, parser, option, values, capsys, monkeypatch):
    from humanlike.app import cli

    monkeypatch.setattr(cli, "build_parser", lambda: PARSER)   # one parser for the whole corpus (speed)
    argv = [*words, *_positionals(parser), option, *values]
    _check_refused(argv, capsys, names=f"argument {option}")


# --- after parsing: files, folders, names that do not exist, absurd sizes ------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    trials = simulate_benchmark(seed=3, n_humans=3, n_items=24, experiments=EXPERIMENTS, models=DEFAULT_MODELS[:2])
    io.write_table(trials, root / "trials.csv")
    from humanlike.trials.representations import Representation, save_representation
    from humanlike.measures.dvc.simulate import planted_representations

    fa, fb, labels = planted_representations(0.6, n_classes=3, n_per_class=20, n_units=12, seed=2)
    items = np.array([f"img{k:03d}" for k in range(labels.size)])
    save_representation(Representation(fa, items, labels, name="net-a"), root / "a.npz")
    save_representation(Representation(fb, items, labels, name="net-b"), root / "b.npz")
    (root / "afile").write_text("x")
    (root / "empty").mkdir()
    (root / "judgements.csv").write_text("resp,S1,S2,S3\n1,1,2,3\n0,2,3,4\n")
    return root


REF = ["--reference", "sim-noise=0.00", "sim-blur=0"]
# (argv with {root} for the fixture folder, text the error must contain)
RUN_CASES = [
    # missing, wrong kind or unreadable inputs, for every command that reads DATA
    *[([cmd, "{root}/missing.csv"], "missing.csv") for cmd in ("ec", "benchmark", "dmc", "ood", "report")],
    (["dvc", "choices", "{root}/missing.csv"], "missing.csv"),
    (["ec", "{root}/empty"], "no raw-data files"),
    (["dmc", "{root}/empty"], "no raw-data files"),
    (["ec", "{root}/afile"], "afile"),
    (["ood", "{root}/a.npz"], "a.npz"),
    (["dvc", "represent", "{root}/a.npz", "{root}/missing.npz"], "missing.npz"),
    (["dvc", "represent", "{root}/a.npz", "{root}/trials.csv"], "trials.csv"),
    (["mlds", "{root}/missing.csv"], "missing.csv"),
    (["psychscore", "{root}/missing.csv"], "missing.csv"),
    (["psychscore", "--sequences", "{root}/missing"], "missing"),
    (["sequences", "{root}/missing", "--out", "{root}/seq"], "missing"),
    (["report", "--judgements", "{root}/missing.csv", "--analyses", "mlds"], "missing.csv"),
    (["plan", "dmc", "--distribution", "data", "--data", "{root}/missing.csv", "--experiment", "x"], "missing.csv"),
    # --out / --figure / --figures: a file where a folder is needed, a folder where a file is needed
    *[([*cmd, "--out", "{root}/afile/sub"], "afile") for cmd in (
        ["ec", "{root}/trials.csv"], ["benchmark", "{root}/trials.csv"], ["dmc", "{root}/trials.csv"],
        ["ood", "{root}/trials.csv"], ["dvc", "choices", "{root}/trials.csv"],
        ["dvc", "represent", "{root}/a.npz", "{root}/b.npz"], ["demo"], ["psychscore", "{root}/judgements.csv"],
        ["sequences", "{root}/empty"])],
    (["ec", "{root}/trials.csv", "--out", "{root}/afile"], "afile"),
    # (an existing folder given to --figure or to report's --out is a folder: tests/test_bad_input_round2.py)
    (["mlds", "{root}/judgements.csv", "--out", "{root}/afile"], "afile"),
    (["ec", "{root}/trials.csv", "--figure", "{root}/afile/fig.png"], "afile"),
    (["ood", "{root}/trials.csv", "--figures", "{root}/afile"], "afile"),
    (["report", "{root}/trials.csv", "--out", "{root}/trials.csv"], "would write over the input"),
    (["report", "{root}/trials.csv", "--out", "{root}/afile/r.html"], "afile"),
    # names not in the data, malformed option text
    (["ec", "{root}/trials.csv", "--experiment", "nosuch", "--resamples", "0"], "nosuch"),
    (["ec", "{root}/trials.csv", "--condition", "nosuch", "--resamples", "0"], "nosuch"),
    (["dmc", "{root}/trials.csv", "--experiment", "nosuch", "--resamples", "0"], "nosuch"),
    (["dmc", "{root}/trials.csv", "--condition", "nosuch", "--resamples", "0"], "nosuch"),
    (["dvc", "choices", "{root}/trials.csv", "--experiment", "nosuch", "--resamples", "0"], "nosuch"),
    (["ood", "{root}/trials.csv", "--reference", "contrast"], "EXPERIMENT=CONDITION"),
    (["ood", "{root}/trials.csv", "--reference", "nosuch=1"], "nosuch=1"),
    (["ood", "{root}/trials.csv", *REF, "--families", "{bad"], "--families"),
    (["ood", "{root}/trials.csv", *REF, "--families", "[1, 2]"], "--families"),
    (["ood", "{root}/trials.csv", *REF, "--regimes", "50", "--resamples", "0"], "n_components=50"),
    (["ec", "{root}/trials.csv", "--two-level", "--observer-level", "jackknife"], "--two-level"),
    # psychscore offers no --observer-level (tests/app/test_shared_options.py); a table it cannot use is named
    (["psychscore", "{root}/judgements.csv", "--resamples", "0"], "lacks columns"),
    (["psychscore", "{root}/judgements.csv", "--network", "alexnet"], "need --sequences"),
    (["plan", "dmc", "--distribution", "data"], "--distribution data needs"),
    (["plan", "ec", "--accuracy", "0.5", "0.99", "--kappa", "-1"], "cannot be realised"),
    (["dvc", "represent", "{root}/a.npz", "{root}/b.npz", "--pcs", "1000", "--resamples", "0"], "principal components"),
    (["evaluate", "onlyone", "--out", "{root}/ev"], "at least one MODEL"),
    (["evaluate", "torchvision:resnet18", "{root}/empty", "--out", "{root}/afile/ev"], "afile"),
    (["report"], "give DATA"),
    # absurd sizes: refused before the work, with the memory they would need
    *[([*cmd, "--resamples", "100000000"], "GiB") for cmd in (
        ["ec", "{root}/trials.csv"], ["benchmark", "{root}/trials.csv"], ["dmc", "{root}/trials.csv"],
        ["ood", "{root}/trials.csv", *REF], ["dvc", "choices", "{root}/trials.csv"])],
]


@pytest.mark.parametrize("argv,names", RUN_CASES, ids=[" ".join(c[0])[:70] for c in RUN_CASES])
def test_bad_inputs_and_paths_are_clear_errors(files, argv, names, capsys):
    argv = [a.replace("{root}", str(files)) for a in argv]
    code = main([*argv, "--quiet"] if _takes_quiet(argv) else argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert "Traceback" not in err
    assert re.search(r"^humanlike [\w -]+: error: ", err, re.M), err
    assert names.replace("{root}", str(files)) in err, (names, err)


def _takes_quiet(argv):
    words = tuple(a for a in argv[:2] if not a.startswith("-") and "/" not in a)
    parser = dict(LEAVES).get(words) or dict(LEAVES).get(words[:1])
    return parser is not None and any("--quiet" in a.option_strings for a in _option_actions(parser))


def test_corpus_size_in_all():
    assert len(PARSE_CASES) + len(RUN_CASES) >= 125 + 50


def test_unwritable_folder_is_refused_before_the_work(files, tmp_path, capsys):
    import os

    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    for argv in (["ec", str(files / "trials.csv")], ["dmc", str(files / "trials.csv")]):
        assert main([*argv, "--out", str(locked / "o"), "--quiet"]) == 2
        assert "permission denied" in capsys.readouterr().err
    assert not Path(locked / "o").exists()
