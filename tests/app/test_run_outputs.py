"""Output integrity of every command that writes a folder (issue 11): one manifest, written last, listing
exactly the run's files with their sha256; an interrupted run leaves no complete manifest and no temporary
file; the previous run's leftovers are named stale; files follow the umask."""

from __future__ import annotations

import hashlib
import json
import os

import pandas as pd
import pytest

from humanlike.trials.simulate import DEFAULT_MODELS, simulate_benchmark
from humanlike import files as io
from humanlike.files import run_outputs
from humanlike.app.cli import main

EXPERIMENTS = {"sim-noise": {"0.00": 1.0, "0.10": 0.75, "0.20": 0.5, "0.35": 0.3},
               "sim-blur": {"0": 1.0, "3": 0.7, "7": 0.45, "15": 0.25}}
OOD = ["--reference", "sim-noise=0.00", "sim-blur=0", "--observer-resamples", "10", "--permutations", "19",
       "--regimes", "1"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    trials = simulate_benchmark(seed=3, n_humans=3, n_items=24, experiments=EXPERIMENTS, models=DEFAULT_MODELS[:2])
    return io.write_table(trials, tmp_path_factory.mktemp("tiny") / "trials.csv")


def _commands(data):
    return {
        "ec": ["ec", str(data)],
        "benchmark": ["benchmark", str(data)],
        "dmc": ["dmc", str(data)],
        "ood": ["ood", str(data), *OOD],
        "dvc choices": ["dvc", "choices", str(data)],
    }


def _manifest(folder):
    return json.loads((folder / io.MANIFEST_NAME).read_text())


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("name", ["ec", "benchmark", "dmc", "ood", "dvc choices"])
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_every_command_writes_a_manifest_of_exactly_its_files(tiny, tmp_path, capsys, name, fmt):
    out = tmp_path / "out"
    argv = [*_commands(tiny)[name], "--out", str(out), "--resamples", "20", "--quiet", "--format", fmt]
    assert main(argv) == 0, capsys.readouterr().err
    doc = _manifest(out)
    assert doc["complete"] is True and doc["format"] == io.MANIFEST_FORMAT
    listed = sorted(f["path"] for f in doc["files"])
    assert listed == [f for f in _files(out) if f != io.MANIFEST_NAME]
    assert len(listed) >= 2 and not any(f.startswith(".") for f in _files(out))
    for entry in doc["files"]:
        data = (out / entry["path"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["bytes"] == len(data)
    assert doc["settings"]["n_resamples"] == 20 and doc["settings"]["seed"] == 0
    assert doc["command"].startswith(f"humanlike {name}") and "--resamples 20" in doc["command"]
    assert doc["options"]["format"] == fmt and doc["humanlike_version"]
    assert doc["stale"] == []
    if fmt == "json":   # tables never overwrite the run's JSON document of the same name
        assert all(f.endswith(".table.json") or f.count(".") == 1 for f in listed)


def test_figure_outside_the_folder_is_listed_with_its_path(tiny, tmp_path, capsys):
    out, figure = tmp_path / "out", tmp_path / "figs" / "ec.png"
    assert main(["ec", str(tiny), "--out", str(out), "--figure", str(figure), "--resamples", "0", "--quiet"]) == 0
    paths = [f["path"] for f in _manifest(out)["files"]]
    for experiment in EXPERIMENTS:   # one figure per experiment, beside the name given
        drawn = figure.with_name(f"ec-{experiment}.png")
        assert str(drawn) in paths and drawn.is_file()


def test_interrupted_run_leaves_no_complete_manifest_and_no_tmp(tiny, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert main(["ec", str(tiny), "--out", str(out), "--resamples", "0", "--quiet"]) == 0
    first = _manifest(out)
    assert first["complete"] is True
    real = io.write_table
    calls = []

    def interrupted(frame, path, fmt=None):
        calls.append(path)
        if len(calls) == 2:   # after the first file: Ctrl-C in the middle of writing the second
            def half(tmp):
                tmp.write_text("half")
                raise KeyboardInterrupt
            return io.atomic_write(io.table_path(path, fmt), half)
        return real(frame, path, fmt)

    monkeypatch.setattr(run_outputs, "write_table", interrupted)   # where RunOutputs looks it up
    assert main(["ec", str(tiny), "--out", str(out), "--resamples", "0", "--quiet", "--seed", "5"]) == 130
    assert "interrupted" in capsys.readouterr().err
    doc = _manifest(out)
    assert doc["complete"] is False and "--seed 5" in doc["command"]
    assert [f["path"] for f in doc["files"]] == ["ec_summary.csv"]     # what this run did write
    assert not [p for p in out.iterdir() if p.name.startswith(".") or p.suffix == ".tmp"]
    # The old run's other files are still there, and named as the previous run's.
    assert set(doc["stale"]) == {f["path"] for f in first["files"]}
    # A complete rerun: complete again, nothing stale.
    monkeypatch.setattr(run_outputs, "write_table", real)
    assert main(["ec", str(tiny), "--out", str(out), "--resamples", "0", "--quiet"]) == 0
    doc = _manifest(out)
    assert doc["complete"] is True and doc["stale"] == []


def test_previous_files_not_rewritten_are_listed_as_stale_not_deleted(tiny, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["ec", str(tiny), "--out", str(out), "--resamples", "0", "--quiet", "--format", "parquet"]) == 0
    assert main(["ec", str(tiny), "--out", str(out), "--resamples", "0", "--quiet"]) == 0
    doc = _manifest(out)
    assert doc["complete"] is True
    assert sorted(doc["stale"]) == ["ec_pairs.parquet", "ec_pairs_by_condition.parquet", "ec_summary.parquet",
                                    "sources.parquet"]
    assert all((out / p).is_file() for p in doc["stale"])           # never deleted
    assert "ec.json" not in doc["stale"]                             # rewritten by this run
    # A file of someone else's in the folder is neither listed nor touched.
    (out / "notes.txt").write_text("mine")
    assert main(["ec", str(tiny), "--out", str(out), "--resamples", "0", "--quiet"]) == 0
    assert "notes.txt" not in json.dumps(_manifest(out)) and (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("mask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_command_outputs_follow_the_umask(tiny, tmp_path, capsys, mask, mode):
    old = os.umask(mask)
    try:
        assert main(["ec", str(tiny), "--out", str(tmp_path / "o"), "--resamples", "0", "--quiet"]) == 0
    finally:
        os.umask(old)
    for path in (tmp_path / "o").iterdir():
        assert (path.stat().st_mode & 0o777) == mode, path.name


def test_unwritable_out_fails_before_the_work(tiny, tmp_path, monkeypatch, capsys):
    import humanlike.measures.ec.cli as cli_ec

    def never(*a, **k):
        raise AssertionError("the data was loaded before the output folder was checked")

    monkeypatch.setattr(cli_ec, "load_data_with_sources", never)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert main(["ec", str(tiny), "--out", str(blocker / "sub"), "--quiet"]) == 2
    assert "afile" in capsys.readouterr().err
    assert main(["ec", str(tiny), "--figure", str(tiny), "--quiet"]) == 2   # an output over the input
    assert "the input" in capsys.readouterr().err
    if os.geteuid() != 0:   # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert main(["ec", str(tiny), "--out", str(locked / "o"), "--quiet"]) == 2
        assert "permission denied" in capsys.readouterr().err


def test_run_outputs_without_folder_and_record(tmp_path):
    run = io.RunOutputs(None)
    path = run.table(pd.DataFrame({"x": [1]}), tmp_path / "t.csv")
    assert run.finish() is None and path.is_file() and not (tmp_path / io.MANIFEST_NAME).exists()
    run = io.RunOutputs(tmp_path / "seq", command="humanlike sequences")
    run.start()
    assert _manifest(tmp_path / "seq")["complete"] is False
    (tmp_path / "seq" / "a.png").write_bytes(b"png")
    run.record(tmp_path / "seq" / "a.png")
    doc = json.loads(run.finish().read_text())
    assert doc["complete"] is True and [f["path"] for f in doc["files"]] == ["a.png"]
    assert doc["files"][0]["sha256"] == hashlib.sha256(b"png").hexdigest()
