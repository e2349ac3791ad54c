"""The bad-input corpus, round 2 (issue 31): one test per class of fault, each over every command it reaches.

Data come from the real model-vs-human trials (tests/conftest.py), cut to a few observers so each run takes
about a second.
"""

import json
import re
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanlike.app.cli import main


def _run(argv):
    """``humanlike ARGV``'s exit code (argparse's own refusals included)."""
    try:
        return main([str(a) for a in argv])
    except SystemExit as stop:
        return stop.code


@pytest.fixture(scope="module")
def edge_trials(modelvshuman_dir):
    """The real edge experiment: four humans and three models (one condition, 160 items)."""
    from humanlike.trials.loaders import load_trials

    trials = load_trials(modelvshuman_dir / "edge")
    keep = ["subject-01", "subject-02", "subject-03", "subject-04", "resnet50", "bagnet33", "swag-vit-b16-in1k"]
    return trials[trials["observer"].isin(keep)].reset_index(drop=True)


@pytest.fixture
def edge_csv(edge_trials, tmp_path):
    path = tmp_path / "data" / "edge.csv"
    path.parent.mkdir()
    edge_trials.to_csv(path, index=False)
    return path


# --- class 1: no command writes over one of its inputs ----------------------------------------------------------

# (id, argv from the trial file DATA, its folder and a copy of a judgement file); each output lands on an input
CASES_1 = [
    ("report --out DATA", lambda data, folder, judged: ["report", data, "--out", data, "--analyses", "ec"]),
    ("report --out a file in the DATA folder", lambda data, folder, judged: ["report", folder, "--out",
                                                                             folder / "r.html", "--analyses", "ec"]),
    ("ec --out the folder holding DATA", lambda data, folder, judged: ["ec", data, "--out", folder]),
    ("ec --figure DATA", lambda data, folder, judged: ["ec", data, "--figure", data]),
    ("benchmark --out inside the DATA folder", lambda data, folder, judged: ["benchmark", folder, "--out",
                                                                             folder / "results"]),
    ("dmc --figure DATA", lambda data, folder, judged: ["dmc", data, "--figure", data]),
    ("psychometrics --figures the DATA's folder", lambda data, folder, judged: ["psychometrics", data, "--figures",
                                                                                folder]),
    ("shapebias --out DATA", lambda data, folder, judged: ["shapebias", data, "--out", data]),
    ("compare --figure DATA", lambda data, folder, judged: ["compare", data, "--measure", "ec", "--figure", data]),
    ("mlds --out its judgements' folder", lambda data, folder, judged: ["mlds", judged, "--out", judged.parent]),
    ("psychscore --figure its judgements", lambda data, folder, judged: ["psychscore", judged, "--figure", judged]),
]


@pytest.mark.parametrize("build", [c[1] for c in CASES_1], ids=[c[0] for c in CASES_1])
def test_no_command_writes_over_one_of_its_inputs(build, edge_csv, shared_data, tmp_path, capsys):
    judgements = tmp_path / "judged" / "kk1.csv"
    judgements.parent.mkdir()
    shutil.copy(shared_data / "mlds" / "kk1.csv", judgements)
    argv = build(edge_csv, edge_csv.parent, judgements)
    before = {p: p.read_bytes() for p in (edge_csv, judgements)}
    code = _run([*argv, "--resamples", "20", "--quiet"] if argv[0] != "psychscore" else [*argv, "--resamples", "20"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert re.search(r"would write over the input|holds the input|would write into the input folder", err), err
    assert "--" in err.split("error:")[1].split()[0]   # the message names the output option ...
    assert ("edge.csv" in err or "kk1.csv" in err or str(edge_csv.parent) in err)   # ... and the input
    assert all(p.read_bytes() == content for p, content in before.items())
    assert not list(edge_csv.parent.glob("*.html")) and not (edge_csv.parent / "results").exists()


# --- class 3: no observer may take the name of a summary row any measure writes --------------------------------

def test_every_summary_row_the_measures_write_is_reserved_and_refused(edge_trials, modelvshuman_dir, tmp_path):
    from humanlike.trials.loaders import load_trials
    from humanlike.trials.schema import RESERVED_OBSERVER_NAMES, TrialTableError, validate_trials

    conflict = load_trials(modelvshuman_dir / "cue-conflict")
    conflict = conflict[conflict["observer"].isin(["subject-01", "subject-02", "resnet50", "bagnet33"])]
    data = tmp_path / "trials.csv"
    pd.concat([edge_trials, conflict], ignore_index=True).to_csv(data, index=False)
    observers = set(pd.read_csv(data, dtype=str)["observer"])
    # The result tables are the source: every row label a measure writes that is no observer is a summary row.
    written = set()
    for command in (["ec"], ["dmc"], ["benchmark"], ["shapebias"], ["psychometrics"], ["ood"]):
        out = tmp_path / command[0]
        argv = [*command, data, "--out", out, "--resamples", "20", "--quiet"]
        if command[0] == "ood":
            argv += ["--reference", "edge=0", "cue-conflict=0"]
        assert _run(argv) == 0, command
        for table in out.glob("*.csv"):
            frame = pd.read_csv(table, dtype=str)
            for column in ("observer", "group", "model", "observer_1", "observer_2"):
                if column in frame:
                    written |= set(frame[column].dropna()) - observers
    written -= {"model-human", "human-human", "model-model (mean)"} & written   # kinds, never observer-like
    assert {"humans", "human mean", "model-model"} <= written
    assert written <= RESERVED_OBSERVER_NAMES, written - RESERVED_OBSERVER_NAMES
    for name in sorted(written):
        frame = edge_trials.assign(observer=edge_trials["observer"].replace({"resnet50": name}))
        with pytest.raises(TrialTableError, match=f"observer '{re.escape(name)}' has a reserved name"):
            validate_trials(frame)


# --- class 7: a missing extra is the one-line message, whichever command needs it ------------------------------

@pytest.mark.parametrize("argv", [
    ["psychscore", "--sequences", "seqs", "--network", "torchvision:alexnet=features.2", "--resamples", "20"],
    ["evaluate", "torchvision:resnet18", "stimuli", "--out", "o"],
])
def test_a_missing_extra_is_one_line_naming_the_extra(argv, monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)   # import torch raises ImportError, as without the extra
    monkeypatch.chdir(tmp_path)
    assert _run(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err, err
    assert err.endswith("needs torch and torchvision: install humanlike[models] (pip install 'humanlike[models]')")


# --- class 8: numbers never depend on how a label that spells a number was written -----------------------------

def test_the_ranking_bootstrap_does_not_depend_on_spelling(edge_trials, tmp_path, capsys):
    docs = []
    for spelling in ("1", "1.0"):
        data = tmp_path / f"experiment-{spelling}.csv"
        edge_trials.assign(experiment=spelling).to_csv(data, index=False)
        assert _run(["benchmark", data, "--resamples", "50", "--observer-level", "bootstrap", "--json",
                     "--quiet"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    # the observer bootstrap drew its humans from a stream named by the experiment as spelled
    entries = [dict(doc["observers"]["resnet50"]) for doc in docs]
    per_experiment = [list(entry.pop("experiments", {}).values()) for entry in entries]   # keyed as spelled
    assert entries[0] == entries[1] and per_experiment[0] == per_experiment[1]
    assert docs[0]["ranking"] == docs[1]["ranking"]   # P(best), rank intervals: the same resamples


# --- class 9: every message names options the command has and the values the user gave -------------------------

def _options_of(argv):
    from humanlike.app.cli import build_parser, command_options

    parser = build_parser()
    return command_options(parser, parser.parse_args([str(a) for a in argv]))


# (id, argv (DATA: the real uniform-noise trials), what the message must say)
CASES_9 = [
    ("ec --condition the exclusions removed", ["ec", "DATA", "--condition", "0.90"], ["0.90", "--no-exclusions"]),
    ("dmc --condition the exclusions removed", ["dmc", "DATA", "--condition", "0.90"], ["0.90", "--no-exclusions"]),
    ("compare --condition the exclusions removed", ["compare", "DATA", "--measure", "ec", "--condition", "0.9"],
     ["0.9", "--no-exclusions"]),
    ("plan compare --rho 1 (with --delta)", ["plan", "compare", "--measure", "dmc", "--rho", "1", "--delta", "0.1"],
     ["--rho 1 ", "--delta 0.1"]),
    ("plan compare --kappa 0.95 (with --delta)", ["plan", "compare", "--kappa", "0.95", "--delta", "0.1"],
     ["--kappa 0.95", "--delta 0.1"]),
    ("plan compare --trials 10^9, checked up front", ["plan", "compare", "--delta", "0.1", "--trials", "1000000000"],
     ["--trials 1000000000", "--no-exact"]),
    ("plan compare out of memory", ["plan", "compare", "--delta", "0.1", "--no-exact", "MEMORY"], ["--trials"]),
]


@pytest.mark.parametrize("argv,said", [c[1:] for c in CASES_9], ids=[c[0] for c in CASES_9])
def test_messages_name_the_commands_options_and_the_values_given(argv, said, modelvshuman_dir, tmp_path,
                                                                 monkeypatch, capsys):
    from humanlike.measures.compare import planning

    if "DATA" in argv:
        argv = [str(modelvshuman_dir / "uniform-noise") if a == "DATA" else a for a in argv]
        argv += ["--resamples", "20", "--quiet"]
    if "MEMORY" in argv:
        argv.remove("MEMORY")

        def out_of_memory(*args, **kwargs):
            raise MemoryError

        monkeypatch.setattr(planning, "plan_ec_comparison", out_of_memory)
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    message = err.split(": error: ", 1)[1]
    for text in said:
        assert text in message, (text, message)
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", message))
    assert named <= _options_of(argv), named - _options_of(argv)


def test_the_command_modules_name_only_their_commands_options():
    """Every ``--option`` in a string of a module that handles commands is an option of one of its commands."""
    import argparse
    import ast
    import importlib
    from pathlib import Path

    from humanlike.app.cli import build_parser

    options = {}

    def walk(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
        handler = parser._defaults.get("handler")
        if handler is not None:
            options.setdefault(handler.__module__, set()).update(o for a in parser._actions for o in a.option_strings)

    walk(build_parser())
    wrong = []
    for module, allowed in options.items():
        tree = ast.parse(Path(importlib.import_module(module).__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" not in node.value:
                wrong += [f"{module}: {o}" for o in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", node.value)
                          if o not in allowed]
    assert len(options) >= 10 and not wrong, wrong


# --- class 5: one observer where a measure needs two: defined parts run, undefined ones are NaN with a reason -----

@pytest.mark.parametrize("command", ["dvc choices", "psychometrics", "report"])
def test_one_observer_runs_what_is_defined_and_says_why_the_rest_is_not(command, edge_trials, tmp_path, capsys):
    data = tmp_path / "one.csv"
    edge_trials[edge_trials["observer"] == "subject-01"].to_csv(data, index=False)
    argv = [*command.split(), data, "--resamples", "20", "--quiet"]
    if command == "report":
        argv += ["--out", tmp_path / "page.html", "--analyses", "ec,dvc,psychometrics"]
    code = _run(argv + (["--json"] if command == "psychometrics" else []))
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "IndexError" not in err
    if command == "dvc choices":     # nothing is defined: one line naming the experiment and its lone observer
        assert code == 2 and "no experiment has a pair (experiment 'edge': subject-01)" in err
    elif command == "psychometrics":  # accuracy and entropy run; consistency is NaN with its reason
        doc = json.loads(out)
        assert code == 0 and doc["consistency"][0]["error_consistency"] is None
        assert "one observer" in doc["consistency"][0]["reason"]
        defined = {r["metric"] for r in doc["rows"] if r["estimate"] is not None and np.isfinite(r["estimate"])}
        assert {"accuracy", "entropy"} <= defined, defined
    else:
        assert code == 0 and (tmp_path / "page.html").stat().st_size > 0
        assert "decision-variable correlation not computed: a pairwise correlation needs two observers" in out


# --- class 6: a report section that cannot be drawn is left out with a note; the page is written -----------------

@pytest.mark.parametrize("cut", ["models only", "one item per condition"])
def test_a_report_section_without_data_is_left_out_and_the_page_written(cut, modelvshuman_dir, tmp_path, capsys):
    from humanlike.trials.loaders import load_trials

    trials = load_trials(modelvshuman_dir / "contrast")
    if cut == "models only":
        trials = trials[trials["observer_kind"] == "model"]
    else:
        trials = trials[trials["item"] == trials.groupby("condition")["item"].transform("min")]
    data = tmp_path / "cut.csv"
    trials.to_csv(data, index=False)
    page = tmp_path / "page.html"
    code = _run(["report", data, "--out", page, "--resamples", "20", "--quiet", "--analyses", "ec,psychometrics"])
    err = capsys.readouterr().err
    assert code == 0, err
    html = page.read_text()
    assert "not compared: no model has a defined score" in html or "section left out" in html


# --- class 4: items that match nobody are said by every measure, with the observer, condition and count ----------

# (the command, then its options after DATA)
COMMANDS_4 = [("ec",), ("benchmark",), ("dmc",), ("dvc choices",), ("ood", "--reference", "edge=0"), ("shapebias",),
              ("psychometrics",), ("compare", "--measure", "ec"), ("report", "--analyses", "ec,dvc,psychometrics")]


@pytest.mark.parametrize("command", COMMANDS_4, ids=[c[0] for c in COMMANDS_4])
def test_items_that_match_nobody_are_said_by_every_measure(command, edge_trials, modelvshuman_dir, tmp_path, capsys):
    from humanlike.trials.loaders import load_trials

    trials = edge_trials
    if command[0] == "shapebias":
        trials = load_trials(modelvshuman_dir / "cue-conflict")
        trials = trials[trials["observer"].isin(["subject-01", "subject-02", "resnet50", "bagnet33"])]
    experiment = trials["experiment"].iloc[0]
    condition = trials["condition"].iloc[0]
    own = trials["observer"] == "resnet50"
    n_items = trials.loc[own & (trials["condition"] == condition), "item"].nunique()
    # resnet50's items renamed: they match no other observer's; and one item of bagnet33 filed under a new condition
    moved = trials[trials["observer"] == "bagnet33"].index[:1]
    bad = trials.assign(item=trials["item"].where(~own, "x-" + trials["item"]))
    bad.loc[moved, "condition"] = "other"
    moved_item = bad.loc[moved[0], "item"]
    data = tmp_path / "bad.csv"
    bad.to_csv(data, index=False)
    out = tmp_path / ("page.html" if command[0] == "report" else "out")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run([*command[0].split(), data, *command[1:], "--resamples", "20", "--quiet", "--out", out])
    said = " | ".join(str(w.message) for w in caught) + capsys.readouterr().err
    assert (f"experiment '{experiment}', condition '{condition}': observer 'resnet50' shares none of its "
            f"{n_items} items with another observer") in said, said
    assert f"experiment '{experiment}': 1 item filed under 2 conditions (e.g. item '{moved_item}'" in said, said


# --- class 2: an existing folder given for a file is a folder; a command prints only paths it wrote --------------

# (the command, then its options after the input; FOLDER: an existing folder given for the one file asked for)
COMMANDS_2 = [("report", "--analyses", "ec", "--out", "FOLDER"), ("ec", "--figure", "FOLDER"),
              ("benchmark", "--figure", "FOLDER"), ("dmc", "--figure", "FOLDER"), ("dvc choices", "--figure", "FOLDER"),
              ("shapebias", "--figure", "FOLDER"), ("compare", "--measure", "ec", "--figure", "FOLDER"),
              ("mlds", "--figure", "FOLDER")]


@pytest.mark.parametrize("command", COMMANDS_2, ids=[c[0] for c in COMMANDS_2])
def test_an_existing_folder_for_a_file_is_a_folder_and_printed_paths_exist(command, edge_trials, modelvshuman_dir,
                                                                            dmc_dir, shared_data, tmp_path, capsys):
    from humanlike.trials.loaders import load_trials

    name = command[0].split()[0]
    if name == "mlds":
        data = shared_data / "mlds" / "kk1.csv"
    else:
        trials = edge_trials
        if name == "shapebias":
            trials = load_trials(modelvshuman_dir / "cue-conflict")
        elif name == "dmc":
            trials = load_trials([modelvshuman_dir / "edge", dmc_dir / "edge"])
            trials = trials[trials["observer"].isin(["subject-01", "subject-02", "subject-03", "alexnet", "resnet50"])]
        data = tmp_path / "trials.csv"
        trials.to_csv(data, index=False)
    folder = tmp_path / "figures"
    folder.mkdir()
    argv = [*command[0].split(), data, *[folder if a == "FOLDER" else a for a in command[1:]], "--resamples", "20"]
    code = _run(argv + ["--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    written = sorted(p.name for p in folder.iterdir())
    assert written and all(n.startswith(("report", name)) for n in written), written
    printed = re.findall(r"(/\S+?)(?=[\s,;:)]|$)", out)
    assert all(Path(p).exists() for p in printed if str(tmp_path) in p), printed
