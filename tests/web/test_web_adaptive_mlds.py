"""Design ``adaptive`` (triads): simulated participants with a known scale through the HTTP API, on SQLite and on
a real PostgreSQL server; the trials change once the first batch has finished, the fit is stored once per batch,
and the export is analysed by ``humanlike mlds`` as any pooled study."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from humanlike.app.cli import main
from humanlike.web.adaptive_mlds import stored_fits
from humanlike.web.config import StudyConfig, StudyConfigError, load_config, write_config
from humanlike.web.design import judgement_trials
from web_bots import answer_all, scale_judge, start, stimulus_rows

N_LEVELS = 6
SEQUENCES = (("a", "b"), ("a", "c"))
PER_PARTICIPANT, BATCH, PARTICIPANTS = 16, 4, 20
SIGMA = 0.1


def sequence_study(folder, **keys):
    rows = []
    for a, b in SEQUENCES:
        for level in range(1, N_LEVELS + 1):
            path = folder / "sequences" / f"{a}-{b}-{level}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.new("L", (4, 4), 40 * level).save(path)
            alpha = (level - 1) / (N_LEVELS - 1)
            rows.append({"item": f"{a}-{b}-{level}", "path": path.name, "label": f"{a}-{b}",
                         "experiment": "psychophysical-score", "condition": f"{alpha:.4f}", "sequence": f"{a}-{b}",
                         "class_a": a, "class_b": b, "level": level, "alpha": alpha, "instance_a": a,
                         "instance_b": b, "jaccard": 0.5})
    pd.DataFrame(rows).to_csv(folder / "sequences" / "manifest.csv", index=False)
    config = dict(title="t", task="triads", stimuli="sequences/manifest.csv", seed=5, practice_trials=0,
                  catch_trials=1, design="adaptive", trials_per_participant=PER_PARTICIPANT, refit_every=BATCH) | keys
    write_config(StudyConfig(**config), folder)
    return folder


def judge(prepared, k):
    choose = scale_judge(prepared, sigma=SIGMA, seed=k)

    def answer(trial):
        if trial["kind"] == "catch":       # an identical pair against the sequence's ends
            rows = stimulus_rows(prepared, trial)
            return "left" if rows[0]["level"] != rows[1]["level"] else "right"
        return choose(trial)
    return answer


def main_units(answered, prepared):
    units = []
    for item in answered:
        if item["trial"]["kind"] != "main":
            continue
        rows = stimulus_rows(prepared, item["trial"])
        levels = sorted({int(r["level"]) for r in rows})
        units.append((rows[0]["sequence"], tuple(levels)))
    return sorted(units)


@pytest.mark.parametrize("backend_name", ["sqlite", "postgresql"])
def test_adaptive_study_from_the_api_to_the_pooled_scale(tmp_path, client_for, capsys, request, backend_name):
    url = None if backend_name == "sqlite" else request.getfixturevalue("postgres_server").database()
    study = sequence_study(tmp_path / "study")
    client, prepared = client_for(study, url)
    lists = []
    for k in range(PARTICIPANTS):
        token = start(client, {"PROLIFIC_PID": f"sim-{k}"})
        lists.append(main_units(answer_all(client, token, judge(prepared, k)), prepared))
    assert all(len(units) == PER_PARTICIPANT and len(set(units)) == PER_PARTICIPANT for units in lists)

    # one fit per batch of finished participants, stored once, from the first BATCH * g participants
    fits = stored_fits(prepared.engine)
    assert [f["generation"] for f in fits] == list(range(1, PARTICIPANTS // BATCH))
    assert [len(f["participants"]) for f in fits] == [BATCH * g for g in range(1, PARTICIPANTS // BATCH)]
    assert all(sum(c[-1] for counts in f["counts"].values() for c in counts) == PER_PARTICIPANT * len(f["participants"])
               for f in fits)
    assert all(status == "ok" for status in fits[-1]["status"].values()), fits[-1]["status"]

    # the first batch gets the pooled design's blocks; after it the lists are chosen from the fit
    index = prepared.design
    pooled = [sorted((s, tuple(lv)) for s, lv in ((t.info["sequence"], t.info["levels"])
                                                  for t in judgement_trials(prepared.stimuli, prepared.config, slot,
                                                                            index) if t.kind == "main"))
              for slot in range(1, PARTICIPANTS + 1)]
    assert lists[:BATCH] == pooled[:BATCH]
    assert all(lists[k] != pooled[k] for k in range(BATCH, PARTICIPANTS))
    # the chosen trials are closer to even odds under the truth (the point of the criterion): the later lists'
    # triads have their two differences nearer each other than the first batch's
    truth = np.linspace(0, 1, N_LEVELS) ** 2

    def imbalance(units):
        return np.mean([abs(truth[c - 1] - 2 * truth[b - 1] + truth[a - 1]) for _, (a, b, c) in units])

    assert np.mean([imbalance(u) for u in lists[BATCH:]]) < np.mean([imbalance(u) for u in lists[:BATCH]])

    assert main(["export", url or str(study), "--out", str(study)]) == 0
    report = json.loads((study / "design.json").read_text())
    assert report["design"] == "adaptive" and report["participants"] == PARTICIPANTS
    table = pd.read_csv(study / "judgements.csv")
    assert len(table) == PARTICIPANTS * PER_PARTICIPANT and table["observer"].nunique() == PARTICIPANTS

    out = tmp_path / "mlds"
    # SQLite: `humanlike mlds STUDY` reads the study folder and pools by itself (design adaptive); the PostgreSQL
    # study's data are in the server, so its exported table is analysed, pooled by --pool always
    source = [str(study)] if url is None else [str(study / "judgements.csv"), "--pool", "always"]
    assert main(["mlds", *source, "--resamples", "50", "--seed", "1", "--out", str(out)]) == 0
    scales = pd.read_csv(out / "mlds.csv")
    assert set(scales["observer"]) == {"pooled"}
    for _, rows in scales.groupby("scale_id"):
        np.testing.assert_allclose(rows["standard_scale"], truth, atol=0.08)


def test_the_config_and_init_check_the_adaptive_keys(tmp_path, capsys):
    for keys, message in ((dict(design="adaptive", trials_per_participant=0), "needs the number of trials"),
                          (dict(design="adaptive", trials_per_participant=5, refit_every=0), "'refit_every'"),
                          (dict(design="adaptive", trials_per_participant=5, refit_every=True), "'refit_every'"),
                          (dict(design="adaptive", task="classify", trials_per_participant=5), r"suits task\(s\)")):
        with pytest.raises(StudyConfigError, match=message):
            StudyConfig(**(dict(title="t", task="triads", stimuli=".") | keys))
    source = sequence_study(tmp_path / "source", design="pooled") / "sequences" / "manifest.csv"
    assert main(["serve", "init", str(tmp_path / "s1"), "--stimuli", str(source), "--task", "triads",
                 "--design", "adaptive", "--per-participant", "12", "--batch", "5"]) == 0
    config = load_config(tmp_path / "s1")
    assert (config.design, config.trials_per_participant, config.refit_every) == ("adaptive", 12, 5)
    assert main(["serve", "init", str(tmp_path / "s2"), "--stimuli", str(source), "--task", "triads",
                 "--design", "pooled", "--per-participant", "12", "--batch", "5"]) == 2
    assert "--batch applies with --design adaptive only" in capsys.readouterr().err
    # a block as large as the study is refused as for the pooled design (30 triads of 2 sequences)
    assert main(["serve", "init", str(tmp_path / "s3"), "--stimuli", str(source), "--task", "triads",
                 "--design", "adaptive", "--per-participant", "40"]) == 2
    assert "takes part of the 40 judgements" in capsys.readouterr().err


@pytest.mark.parametrize("backend_name", ["sqlite", "postgresql"])
def test_concurrent_starts_fit_a_generation_once(tmp_path, client_for, request, backend_name):
    """Starts racing for a new generation (threads, as a crowd arriving at once) all succeed, and its fit is
    computed and stored once: on PostgreSQL the advisory lock makes the others wait and read it."""
    from concurrent.futures import ThreadPoolExecutor

    from humanlike.web.service import start_participant, state

    url = None if backend_name == "sqlite" else request.getfixturevalue("postgres_server").database()
    study = sequence_study(tmp_path / "study", refit_every=2)
    client, prepared = client_for(study, url)
    for k in range(2):
        answer_all(client, start(client, {"PROLIFIC_PID": f"first-{k}"}), judge(prepared, k))
    with ThreadPoolExecutor(6) as pool:
        tokens = list(pool.map(lambda k: start_participant(prepared, {"PROLIFIC_PID": f"crowd-{k}"}), range(6)))
    assert len(set(tokens)) == 6 and all(state(prepared, t)["total"] == PER_PARTICIPANT + 1 for t in tokens)
    fits = stored_fits(prepared.engine)
    assert [f["generation"] for f in fits] == [1] and len(fits[0]["participants"]) == 2
