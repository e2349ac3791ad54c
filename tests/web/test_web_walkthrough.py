"""The walk-through of docs/run-your-own-experiment.md ("A whole study, start to finish"), run as written.

Real stimuli (the model-vs-human edge and silhouette images of ../shared/data/stimuli, two per category): a
classification study of each object as an edge drawing or a silhouette, each participant a balanced block of
the items in their Latin-square conditions (``--design subset``), and a triad study of silhouette blends
(``humanlike sequences``, ``--design pooled``). ``humanlike serve`` runs as a subprocess; simulated participants
with a planted truth take part through its HTTP API as the page does; ``humanlike export``, ``ec``, ``mlds``
and ``report`` run through the command line. The numbers are checked against an offline recomputation from
the exported responses, and the study's safety on the way: no completion code before the last trial is
stored, and one person (one PROLIFIC_PID) cannot take part twice.
"""

from __future__ import annotations

import json
import math
import re
import tomllib

import httpx
import numpy as np
import pandas as pd
import pytest
import tomli_w

from humanlike.app.cli import main
from humanlike.web.app import open_study
from test_web_designs import hand_pooled_ec
from web_bots import catch_answer, stimulus_rows
from web_helpers import ServerProcess

CLASSES = ("airplane", "bear", "bicycle", "bird", "boat", "bottle", "car", "cat", "chair", "clock", "dog",
           "elephant", "keyboard", "knife", "oven", "truck")
SETS = {"edge": "edges", "silhouette": "filled-silhouettes"}
PER_PARTICIPANT, PARTICIPANTS = 16, 12
P_EASY, P_HARD = 0.9, 0.2           # right on the objects numbered 1 / 2: a planted EC of 0.495 between two people
TRUE_EC = (0.75 - 0.505) / (1 - 0.505)


@pytest.fixture(scope="module")
def stimuli_dir(shared_data):
    return shared_data / "stimuli"


def write_manifest(path, stimuli_dir):
    """The docs' manifest: each object (item) in two conditions, its edge drawing and its silhouette."""
    rows = [{"item": f"{c}{k}.png", "path": str(stimuli_dir / folder / c / f"{c}{k}.png"), "label": c,
             "experiment": "edge-vs-silhouette", "condition": condition}
            for condition, folder in SETS.items() for c in CLASSES for k in (1, 2)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def edit_config(study, **keys):
    path = study / "study.toml"
    config = tomllib.loads(path.read_text())
    config.update(keys)
    path.write_text(tomli_w.dumps(config))


def take_part(url, pid, choose):
    """One participant, as the page does: consent with a Prolific id, answer every trial. Returns the states
    seen (the completion code must be in none before the last answer)."""
    with httpx.Client(base_url=url, timeout=30) as client:
        start = client.post("/api/start", json={"consent": True, "params": {"PROLIFIC_PID": pid}})
        assert start.status_code == 200, start.text
        token = start.json()["token"]
        state = client.get(f"/api/p/{token}/state").json()
        states = [state]
        while not state["done"]:
            trial = state["trial"]
            reply = client.post(f"/api/p/{token}/response", json={
                "trial": trial["id"], "response": choose(trial), "rt_ms": 500.0, "stimulus_ms": 200.0, "frames": 12,
                "refresh_hz": 60.0, "window_w": 1280, "window_h": 800})
            assert reply.status_code == 200, reply.text
            state = reply.json()["state"]
            states.append(state)
        return token, states


def test_a_classification_study_from_real_stimuli_to_the_report(tmp_path, stimuli_dir, capsys):
    manifest = write_manifest(tmp_path / "stimuli.csv", stimuli_dir)
    study = tmp_path / "edges-study"
    assert main(["serve", "init", str(study), "--stimuli", str(manifest), "--task", "classify",
                 "--design", "subset", "--per-participant", str(PER_PARTICIPANT)]) == 0
    edit_config(study, seed=7, practice_trials=2, catch_trials=1, completion_code="per-participant",
                completion_url="https://app.prolific.com/submissions/complete?cc={code}")
    prepared = open_study(study)     # the test's oracle of the stimuli (the server never tells the page)
    server = ServerProcess(study)
    try:
        consent = httpx.get(server.url + "/").text
        codes = {}
        for k in range(PARTICIPANTS):
            rng = np.random.default_rng(k)

            def choose(trial):
                if trial["kind"] == "catch":
                    return catch_answer(trial)
                row = stimulus_rows(prepared, trial)[0]
                p = P_EASY if row["item"].endswith("1.png") else P_HARD
                return row["label"] if rng.random() < p else next(c for c in CLASSES if c != row["label"])

            token, states = take_part(server.url, f"prolific-{k}", choose)
            # the completion code and URL come only with the state that follows the last stored response
            assert all(s["completion_code"] in ("", None) and not s["completion_url"] for s in states[:-1])
            code = states[-1]["completion_code"]
            assert len(code) == 10 and code in states[-1]["completion_url"]
            page = httpx.get(f"{server.url}/p/{token}").text
            assert code not in consent and code not in page
            codes[k] = (token, code)
        # one person cannot take part twice: the same PROLIFIC_PID resumes their finished session
        again = httpx.post(server.url + "/api/start", json={"consent": True, "params": {"PROLIFIC_PID": "prolific-0"}})
        assert again.status_code == 200 and again.json()["token"] == codes[0][0]
        state = httpx.get(f"{server.url}/api/p/{codes[0][0]}/state").json()
        assert state["done"] and state["completion_code"] == codes[0][1]
    finally:
        server.kill()
        prepared.engine.dispose()

    capsys.readouterr()
    assert main(["export", str(study)]) == 0
    assert "design subset" in capsys.readouterr().out
    table = pd.read_csv(study / "trials.csv")
    design = json.loads((study / "design.json").read_text())
    assert design["design"] == "subset" and design["participants"] == PARTICIPANTS   # nobody twice
    assert design["trials_per_participant_answered"] == {str(PER_PARTICIPANT): PARTICIPANTS}
    assert set(table["condition"]) == set(SETS) and table["label"].isin(CLASSES).all()

    out = tmp_path / "ec"
    assert main(["ec", str(study), "--resamples", "300", "--seed", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "groups pooled" in printed
    manifest_settings = json.loads((out / "humanlike-manifest.json").read_text())["settings"]
    assert manifest_settings["pool_pairs"] is True
    assert [d["design"] for d in manifest_settings["study_designs"].values()] == ["subset"]
    summary = pd.read_csv(out / "ec_summary.csv").query(
        "scope == 'overall' and group == 'humans' and metric == 'error_consistency'").iloc[0]
    assert summary["estimate"] == pytest.approx(hand_pooled_ec(table), abs=1e-12)
    assert summary["ci_low"] <= TRUE_EC <= summary["ci_high"]
    pairs = pd.read_csv(out / "ec_pairs_by_condition.csv")
    shared = pairs[["both_correct", "only_1_correct", "only_2_correct", "both_wrong"]].sum(axis=1)
    assert (shared == 0).any() and pairs.loc[shared == 0, "reason"].str.startswith("no trial shared").all()
    # the export gives the same numbers as the study (its design.json beside it: pooled too)
    out_export = tmp_path / "ec-export"
    assert main(["ec", str(study / "trials.csv"), "--resamples", "300", "--seed", "1", "--out", str(out_export)]) == 0
    assert pd.read_csv(out_export / "ec_summary.csv").equals(pd.read_csv(out / "ec_summary.csv"))

    report = tmp_path / "report.html"
    assert main(["report", str(study), "--analyses", "ec", "--resamples", "300", "--seed", "1",
                 "--out", str(report)]) == 0
    html = report.read_text()
    assert "design subset, 16 trial(s) per participant" in html and f"{PARTICIPANTS} participant(s)" in html
    assert "error consistency is pooled" in html
    assert f"{summary['estimate']:.3f}"[:4] in html


def test_a_triad_study_of_silhouette_blends_from_real_stimuli_to_the_report(tmp_path, stimuli_dir, capsys):
    from test_web_designs import N_LEVELS, hand_probit_scale
    from web_bots import scale_judge

    sequences = tmp_path / "silhouette-blends"
    assert main(["sequences", str(stimuli_dir / "filled-silhouettes"), "--out", str(sequences), "--levels",
                 str(N_LEVELS), "--pairs-per-class-pair", "1", "--classes", "cat", "dog", "car"]) == 0
    study = tmp_path / "blends-study"
    assert main(["serve", "init", str(study), "--stimuli", str(sequences), "--task", "triads",
                 "--design", "pooled", "--per-participant", "20"]) == 0
    edit_config(study, seed=5, practice_trials=0, catch_trials=1)
    prepared = open_study(study)
    server = ServerProcess(study)
    n_participants = 16
    try:
        for k in range(n_participants):
            judge = scale_judge(prepared, sigma=0.3, seed=k)       # psi = alpha^2, decision noise 0.3

            def choose(trial):
                if trial["kind"] == "catch":       # an identical pair against the sequence's two ends
                    rows = stimulus_rows(prepared, trial)
                    return "left" if rows[0]["level"] != rows[1]["level"] else "right"
                return judge(trial)

            take_part(server.url, f"prolific-{k}", choose)
    finally:
        server.kill()
        prepared.engine.dispose()

    capsys.readouterr()
    assert main(["export", str(study)]) == 0
    table = pd.read_csv(study / "judgements.csv")
    design = json.loads((study / "design.json").read_text())
    assert design["design"] == "pooled" and design["participants"] == n_participants

    out = tmp_path / "mlds"
    assert main(["mlds", str(study), "--pool", "auto", "--resamples", "200", "--seed", "1", "--out", str(out)]) == 0
    fits = json.loads((out / "humanlike-manifest.json").read_text())["settings"]["fits"]
    assert {f["fit"] for f in fits} == {"pooled"} and len(fits) == 3
    scales = pd.read_csv(out / "mlds.csv")
    truth = np.linspace(0, 1, N_LEVELS) ** 2
    misses = 0
    for scale_id, fitted in scales.groupby("scale_id"):
        np.testing.assert_allclose(fitted["standard_scale"], hand_probit_scale(table[table["scale"] == scale_id]),
                                   atol=2e-4)
        interior = fitted.iloc[1:-1]
        misses += int((~((interior["ci_low"] <= truth[1:-1]) & (truth[1:-1] <= interior["ci_high"]))).sum())
    assert misses <= 2     # of 12 interior levels; calibrated 95% intervals miss 3 or more about 2% of the time

    report = tmp_path / "report.html"
    assert main(["report", str(study), "--resamples", "50", "--seed", "1", "--out", str(report)]) == 0
    html = report.read_text()
    assert "design pooled, 20 trial(s) per participant" in html and "MLDS" in html
    assert re.search(r">\s*pooled\s*<", html)           # the scales' observer: one fit pooled across participants
    assert math.isfinite(scales["standard_scale"].sum())
