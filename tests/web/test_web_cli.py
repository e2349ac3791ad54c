"""``humanlike serve init / withdraw`` and ``humanlike export`` through the command line, and the exported
tables going unchanged through ``humanlike ec`` / ``humanlike mlds`` / ``humanlike psychscore``."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from humanlike.trials.schema import CLASSES_16
from humanlike.app.cli import main
from humanlike.web.config import load_config
from web_bots import answer_all, classifier, scale_judge, start
from web_helpers import make_study
from humanlike.resampling.settings import ResamplingSettings


def category_folder(root, labels, per_label=2):
    for label in labels:
        (root / label).mkdir(parents=True)
        for k in range(per_label):
            Image.new("RGB", (16, 16), (40 * k, 0, 0)).save(root / label / f"{label}{k + 1}.png")
    return root


def test_init_writes_a_config_with_the_documented_defaults(tmp_path, capsys):
    images = category_folder(tmp_path / "images", ["cat", "dog", "fish"])
    assert main(["serve", "init", str(tmp_path / "study"), "--stimuli", str(images), "--task", "classify"]) == 0
    raw = tomllib.loads((tmp_path / "study" / "study.toml").read_text())
    assert (raw["fixation_ms"], raw["stimulus_ms"], raw["mask_ms"]) == (300, 200, 200)
    assert raw["labels"] == ["cat", "dog", "fish"]          # the study's own labels
    assert raw["platform_params"] == ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"]
    assert {"trials_per_participant", "practice_trials", "break_every", "catch_trials", "consent_text",
            "completion_url"} <= set(raw)
    assert "wrote" in capsys.readouterr().out
    # a second init refuses to overwrite
    assert main(["serve", "init", str(tmp_path / "study"), "--stimuli", str(images), "--task", "classify"]) == 2
    assert "exists already" in capsys.readouterr().err


def test_init_takes_the_16_classes_when_the_labels_are_among_them(tmp_path):
    images = category_folder(tmp_path / "images", ["airplane", "bear"])
    assert main(["serve", "init", str(tmp_path / "s"), "--stimuli", str(images), "--task", "classify"]) == 0
    assert load_config(tmp_path / "s").labels == list(CLASSES_16)


def test_init_reads_a_sequence_manifest_and_an_evaluation_folder(tmp_path):
    from humanlike.web.app import open_study
    from humanlike.web.demo import write_sequence_stimuli

    manifest = write_sequence_stimuli(tmp_path / "seq")
    assert main(["serve", "init", str(tmp_path / "q"), "--stimuli", str(manifest.parent), "--task", "quads"]) == 0
    study = open_study(tmp_path / "q")
    assert study.config.task == "quads" and len(study.stimuli) == 15
    study.engine.dispose()
    # an evaluation folder lists images that lie elsewhere: the stimulus root becomes their common folder
    images = category_folder(tmp_path / "data" / "images", ["cat", "dog"])
    evaluation = tmp_path / "data" / "run"
    evaluation.mkdir()
    (evaluation / "evaluation.json").write_text(json.dumps({"format": "humanlike-evaluation", "runs": []}))
    pd.DataFrame({"item": ["cat1.png", "dog1.png"], "path": [str(images / "cat" / "cat1.png"),
                                                             str(images / "dog" / "dog1.png")],
                  "label": ["cat", "dog"]}).to_csv(evaluation / "stimuli.csv", index=False)
    assert main(["serve", "init", str(tmp_path / "e"), "--stimuli", str(evaluation), "--task", "classify"]) == 0
    config = load_config(tmp_path / "e")
    assert config.stimulus_root == str(images.resolve()) or config.stimulus_root.endswith("images")
    study = open_study(tmp_path / "e")
    assert sorted(study.stimuli["label"]) == ["cat", "dog"]
    study.engine.dispose()


@pytest.mark.parametrize("argv, message", [
    (["serve", "init", "S"], "the following arguments are required: --stimuli, --task"),
    (["serve", "init", "S", "--stimuli", "no/such/folder", "--task", "classify"], "no such stimulus folder"),
    (["serve"], "give a STUDY folder"),
    (["serve", "no/such/study"], "no study config"),
    (["export", "no/such/study"], "no study config"),
    (["serve", "withdraw", "S"], "the following arguments are required: participant"),
    (["serve", "--demo", "S"], "--demo serves its own studies"),
])
def test_bad_command_lines_are_one_line_errors(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exit:      # argparse's own usage errors
        code = exit.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_several_workers_need_postgresql(tmp_path, capsys):
    study = make_study(tmp_path, "classify")
    assert main(["serve", str(study), "--workers", "2"]) == 2
    assert "needs a PostgreSQL database" in capsys.readouterr().err


def test_config_errors_name_the_key(tmp_path, capsys):
    study = make_study(tmp_path, "classify")
    path = study / "study.toml"
    path.write_text(path.read_text().replace("mask_ms = 200", "mask_ms = -1"))
    assert main(["export", str(study)]) == 2
    assert "mask_ms" in capsys.readouterr().err
    path.write_text(path.read_text().replace("mask_ms = -1", "mask_ms = 200\ncolour = 3"))
    assert main(["export", str(study)]) == 2
    assert "unknown key(s) ['colour']" in capsys.readouterr().err


def run_participants(study_folder, task, n, **judge):
    from starlette.testclient import TestClient

    from humanlike.web.app import create_app, open_study

    study = open_study(study_folder)
    client = TestClient(create_app(study, "k" * 24))
    tokens = []
    for k in range(n):
        token = start(client, {"PROLIFIC_PID": f"pid-{k:04d}"})
        choose = (classifier(study, accuracy_seed=k) if task == "classify"
                  else scale_judge(study, seed=1000 + k, **judge))
        answer_all(client, token, choose)
        tokens.append(token)
    study.engine.dispose()
    return tokens


def test_export_then_ec_equals_the_analysis_of_the_exported_file(tmp_path, capsys):
    study = make_study(tmp_path, "classify", practice_trials=0, catch_trials=0)
    run_participants(study, "classify", 4)
    assert main(["export", str(study)]) == 0
    trials = pd.read_csv(study / "trials.csv", dtype={"condition": str})
    assert trials["observer"].nunique() == 4 and len(trials) == 48
    assert "platform_PROLIFIC_PID" not in trials.columns
    capsys.readouterr()
    assert main(["ec", str(study), "--resamples", "200", "--json"]) == 0
    from_study = json.loads(capsys.readouterr().out)
    assert main(["ec", str(study / "trials.csv"), "--resamples", "200", "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    # every number equal; only where the observers came from differs (the study against its exported file)
    assert {o["source_kind"] for o in from_study.pop("sources")} == {"serve study"}
    assert {o["source_kind"] for o in from_file.pop("sources")} == {"trial file"}
    assert from_study == from_file
    assert main(["export", str(study), "--out", str(tmp_path / "with-ids.csv"), "--include-platform-ids"]) == 0
    assert set(pd.read_csv(tmp_path / "with-ids.csv")["platform_PROLIFIC_PID"]) == {f"pid-{k:04d}" for k in range(4)}


def test_export_then_mlds_and_withdraw(tmp_path, capsys):
    study = make_study(tmp_path, "triads", practice_trials=0, catch_trials=0, trials_per_participant=0)
    run_participants(study, "triads", 2, sigma=0.1)
    assert main(["export", str(study)]) == 0
    capsys.readouterr()
    assert main(["mlds", str(study), "--json"]) == 0
    from_study = json.loads(capsys.readouterr().out)
    assert main(["mlds", str(study / "judgements.csv"), "--json"]) == 0
    assert from_study == json.loads(capsys.readouterr().out)
    table = pd.read_csv(study / "judgements.csv")
    name = table["observer"].iloc[0]
    assert main(["serve", "withdraw", str(study), name]) == 0
    assert "deleted participant" in capsys.readouterr().out
    assert main(["export", str(study), "--out", str(tmp_path / "after.csv")]) == 0
    after = pd.read_csv(tmp_path / "after.csv")
    assert name not in set(after["observer"]) and len(after) == len(table) / 2
    assert main(["serve", "withdraw", str(study), name]) == 2


def test_psychscore_reads_the_study_and_recovers_the_bots_scale(tmp_path, capsys):
    """Bots whose judgements follow alpha ** 2 plus Gaussian noise (sigma 0.2 on the decision variable) give
    back that scale within its MLDS bootstrap band (pooled over the three sequences, which share the scale; a
    pointwise 95% band over three interior levels holds the truth in about 86% of such runs, and the linear
    scale lies outside it: a pointwise check at one seed would fail in about one run in seven, so the three interior
    levels are checked together, Bonferroni-corrected), and the Psychophysical-Score reads the study folder
    directly."""
    from humanlike.measures.mlds.analysis import analyse_mlds
    from humanlike.web.export import read_study

    study = make_study(tmp_path, "triads", practice_trials=0, catch_trials=0, trials_per_participant=0)
    run_participants(study, "triads", 24, sigma=0.2)
    table = read_study(study)
    assert table["observer"].nunique() == 24 and len(table) == 24 * 30
    result = analyse_mlds(table.assign(observer="pooled", scale="all"), settings=ResamplingSettings(n_resamples=200, seed=0))[0]
    low, high = result.intervals(level=1 - 0.05 / 3)["standard_scale"]   # simultaneous over 3 interior levels
    alphas = np.linspace(0, 1, 5)
    truth = alphas ** 2
    inner = slice(1, -1)   # the anchors (0 and 1 by construction) have no interval
    assert ((low[inner] - 1e-9 <= truth[inner]) & (truth[inner] <= high[inner] + 1e-9)).all(), (
        truth, low, high, result.standard_scale)
    assert not ((low[inner] <= alphas[inner]) & (alphas[inner] <= high[inner])).all()
    assert main(["psychscore", str(study), "--observers", "pixel", "--sequences",
                 str(study / "sequences"), "--resamples", "50", "--simulate-humans", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "pixel" in json.dumps(out)


def test_keep_excluded_keeps_participants_who_failed_the_attention_checks(tmp_path, capsys):
    from starlette.testclient import TestClient

    from humanlike.web.app import create_app, open_study

    study_folder = make_study(tmp_path, "classify", practice_trials=0, catch_trials=1)
    study = open_study(study_folder)
    client = TestClient(create_app(study, "k" * 24))
    answer_all(client, start(client), classifier(study))                               # passes the check
    answer_all(client, start(client), lambda t: [x for x in t["options"] if x not in t["prompt"]][0])
    study.engine.dispose()
    assert main(["export", str(study_folder), "--out", str(tmp_path / "kept.csv"), "--keep-excluded"]) == 0
    assert main(["export", str(study_folder), "--out", str(tmp_path / "default.csv")]) == 0
    assert pd.read_csv(tmp_path / "kept.csv")["observer"].nunique() == 2
    assert pd.read_csv(tmp_path / "default.csv")["observer"].nunique() == 1


def test_the_demo_serves_both_tasks_with_one_command(tmp_path):
    import os
    import re
    import signal
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    src = Path(__file__).resolve().parents[2] / "src"
    process = subprocess.Popen([sys.executable, "-m", "humanlike.app.cli", "serve", "--demo", "--port",
                                str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "PYTHONPATH": str(src)})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/classify/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        index = httpx.get(f"http://127.0.0.1:{port}/").text
        assert 'href="/classify/"' in index and 'href="/triads/"' in index
        for task, option in (("classify", "circle"), ("triads", "left")):
            base = f"http://127.0.0.1:{port}/{task}"
            token = httpx.post(f"{base}/api/start", json={"consent": True}).json()["token"]
            trial = httpx.get(f"{base}/api/p/{token}/state").json()["trial"]
            assert httpx.get(f"http://127.0.0.1:{port}{trial['stimuli'][0]}").headers["content-type"] == "image/png"
            reply = httpx.post(f"{base}/api/p/{token}/response", json={"trial": trial["id"], "response": option})
            assert reply.status_code == 200
            page = httpx.get(f"{base}/p/{token}").text
            assert f'"base": "/{task}"' in page
    finally:
        process.send_signal(signal.SIGINT)
        try:
            out, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
    secret_file = Path(re.search(r"log in with the secret in (\S+)\)", out).group(1))
    assert f"classify: researcher    http://127.0.0.1:{port}/classify/researcher   (log in" in out
    secret = secret_file.read_text().strip()
    assert secret not in out and secret not in index
