"""The server's HTTP API on SQLite and on a real PostgreSQL server: whole sessions of each task, resuming,
every rejection (nothing stored), privacy, and the exported tables against the responses written by hand."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import func, select

from humanlike.trials.judgements import validate_judgements
from humanlike.trials.schema import validate_trials
from humanlike.web import db
from humanlike.web.export import read_study, study_table

from web_bots import answer_all, classifier, scale_judge, start, stimulus_rows
from web_helpers import RESEARCHER, SECRET, make_study


def count(study, table) -> int:
    with study.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


@pytest.mark.parametrize("task", ["classify", "triads", "quads"])
def test_a_whole_session_is_stored_and_exported_as_answered(tmp_path, backend, client_for, task):
    folder = make_study(tmp_path, task)
    client, study = client_for(folder, backend())
    token = start(client)
    choose = classifier(study) if task == "classify" else scale_judge(study)
    answered = answer_all(client, token, choose)
    state = client.get(f"/api/p/{token}/state").json()
    assert state["done"] and state["answered"] == len(answered) == state["total"]
    assert count(study, db.responses) == len(answered)
    table = study_table(study.engine, study.config, study.stimuli)
    main = [a for a in answered if a["trial"]["kind"] == "main"]
    assert len(table) == len(main)
    if task == "classify":
        validate_trials(table)
        # by hand: each main response with the label the server knows for its stimulus
        expected = pd.DataFrame([{"item": stimulus_rows(study, a["trial"])[0]["item"],
                                  "label": stimulus_rows(study, a["trial"])[0]["label"],
                                  "condition": stimulus_rows(study, a["trial"])[0]["condition"],
                                  "response": a["response"]} for a in main])
        got = table[["item", "label", "condition", "response"]].reset_index(drop=True)
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)
        assert (table["correct"] == (table["response"] == table["label"])).all()
        assert table["item"].is_unique            # each item at most once per participant
        assert np.allclose(table["rt"], [0.400 + answered.index(a) / 1000 for a in main])
    else:
        checked = validate_judgements(table)
        # by hand: physical levels ascending; response 1 exactly when the second physical pair differs more
        for row, a in zip(checked.itertuples(), main):
            rows = stimulus_rows(study, a["trial"])
            shown = [r["level"] for r in rows]
            levels = [row.s1, row.s2, row.s3] + ([row.s4] if task == "quads" else [])
            pairs = ([(levels[0], levels[1]), (levels[1], levels[2])] if task == "triads"
                     else [(levels[0], levels[1]), (levels[2], levels[3])])
            assert sorted(pairs) == sorted([tuple(shown[:2]), tuple(shown[2:])])
            alpha = {lv: r["alpha"] for lv, r in zip(shown, rows)}
            d = [abs(alpha[b] ** 2 - alpha[a] ** 2) for a, b in pairs]
            assert row.response == int(d[1] > d[0])
        assert (checked["s4"].notna() == (task == "quads")).all()


def test_sides_are_balanced_and_the_design_differs_between_participants(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "triads", practice_trials=0, catch_trials=0))
    lists = []
    for _ in range(2):
        token = start(client)
        with study.engine.connect() as conn:
            pid = conn.execute(select(db.participants.c.id).where(db.participants.c.token == token)).scalar_one()
            specs = [json.loads(s) for s in conn.execute(select(db.trials.c.spec).where(
                db.trials.c.participant_id == pid).order_by(db.trials.c.position)).scalars()]
        swapped = [s["info"]["swapped"] for s in specs]
        assert abs(sum(swapped) - len(swapped) / 2) <= 0.5
        lists.append([s["stimuli"] for s in specs])
    assert lists[0] != lists[1]


def test_classification_conditions_rotate_across_participants(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify", practice_trials=0, catch_trials=0))
    seen = []
    for _ in range(2):
        token = start(client)
        answered = answer_all(client, token, classifier(study))
        seen.append({stimulus_rows(study, a["trial"])[0]["item"]: stimulus_rows(study, a["trial"])[0]["condition"]
                     for a in answered})
    assert set(seen[0]) == set(seen[1]) and len(seen[0]) == 12        # every item once each
    assert all(seen[0][item] != seen[1][item] for item in seen[0])     # two conditions: a Latin square


def test_a_reload_resumes_at_the_next_unanswered_trial(tmp_path, backend, client_for):
    client, study = client_for(make_study(tmp_path, "classify"), backend())
    token = start(client)
    answered = answer_all(client, token, classifier(study), limit=5)
    page = client.get(f"/p/{token}")
    assert page.status_code == 200
    state = client.get(f"/api/p/{token}/state").json()
    assert state["answered"] == 5 and state["trial"]["position"] == 5
    assert state["trial"]["id"] not in {a["trial"]["id"] for a in answered}
    rest = answer_all(client, token, classifier(study))
    assert len(answered) + len(rest) == state["total"]
    assert count(study, db.responses) == state["total"]


def test_rejections_store_nothing(tmp_path, backend, client_for):
    client, study = client_for(make_study(tmp_path, "classify"), backend())
    alice, bob = start(client), start(client)
    answer_all(client, alice, classifier(study), limit=2)
    alice_state = client.get(f"/api/p/{alice}/state").json()
    bob_trial = client.get(f"/api/p/{bob}/state").json()["trial"]
    trial = alice_state["trial"]
    option = trial["options"][0]
    before = count(study, db.responses)

    def post(token, body, raw=None):
        if raw is not None:
            return client.post(f"/api/p/{token}/response", content=raw, headers={"Content-Type": "application/json"})
        return client.post(f"/api/p/{token}/response", json=body)

    cases = [
        (post(alice, {"trial": bob_trial["id"], "response": option}), 403, "not a trial of this participant"),
        (post(alice, {"trial": 10 ** 9, "response": option}), 403, "not a trial of this participant"),
        (post(alice, {"trial": trial["id"], "response": "no-such-label"}), 422, "not one of the trial's options"),
        (post(alice, {"trial": trial["id"] + 1, "response": option}), 409, "not this participant's current trial"),
        (post(alice, None, raw=b"{not json"), 400, "malformed body"),
        (post(alice, None, raw=b"[1, 2]"), 400, "malformed body"),
        (post(alice, {"response": option}), 400, "'trial' must be an integer"),
        (post(alice, {"trial": str(trial["id"]), "response": option}), 400, "'trial' must be an integer"),
        (post(alice, {"trial": trial["id"], "response": 3}), 400, "'response' must be a string"),
        (post(alice, {"trial": trial["id"], "response": option, "rt_ms": -5}), 400, "'rt_ms'"),
        (post(alice, None, raw=b'{"trial": %d, "response": "%s", "rt_ms": NaN}' % (trial["id"], option.encode())),
         400, "malformed body"),
        (post(alice, {"trial": trial["id"], "response": option, "label": "x"}), 400, "unknown field"),
        (post("A" * 32, {"trial": trial["id"], "response": option}), 404, "unknown participant"),
    ]
    for response, status, message in cases:
        assert response.status_code == status, (status, response.text)
        assert message in response.json()["error"]
    assert count(study, db.responses) == before
    # a replayed trial: the first answer is stored, the replay refused and not stored
    first = post(alice, {"trial": trial["id"], "response": option})
    assert first.status_code == 200
    replay = post(alice, {"trial": trial["id"], "response": option})
    assert replay.status_code == 409 and "answered already" in replay.json()["error"]
    assert count(study, db.responses) == before + 1


def test_consent_is_required_and_tokens_are_unguessable(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify"))
    refused = client.post("/api/start", json={"consent": False})
    assert refused.status_code == 400 and "consent" in refused.json()["error"]
    assert count(study, db.participants) == 0
    tokens = {start(client) for _ in range(20)}
    assert len(tokens) == 20 and all(len(t) >= 32 for t in tokens)


def test_pages_never_reveal_labels_or_file_names(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify", catch_trials=0))
    token = start(client)
    page = client.get(f"/p/{token}").text
    assert "Content-Security-Policy" in client.get(f"/p/{token}").headers
    for script in ("/static/experiment.js", "/static/style.css"):
        assert client.get(script).status_code == 200
    keys = list(study.stimuli["key"]) + [p.rsplit("/", 1)[-1] for p in study.stimuli["path"]]
    state = client.get(f"/api/p/{token}/state").json()
    while not state["done"]:
        trial = state["trial"]
        text = json.dumps(trial)
        label = stimulus_rows(study, trial)[0]["label"]
        # the label appears only among the options (all labels), never as the answer or in a URL
        assert text.count(label) == 1
        assert not any(key in text for key in keys) and ".png" not in text
        image = client.get(trial["stimuli"][0])
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        state = client.post(f"/api/p/{token}/response", json={"trial": trial["id"], "response": label}).json()["state"]
    assert not any(key in page for key in keys)


def test_stimuli_are_served_only_by_opaque_id_from_inside_the_stimulus_folder(tmp_path, client_for):
    folder = make_study(tmp_path, "classify")
    client, study = client_for(folder)
    for path in ("/stimulus/..%2F..%2Fstudy.toml", "/stimulus/../study.toml", "/stimulus/clean%2Fcircle%2Fcircle1.png",
                 "/stimulus/" + "x" * 22, "/static/../study.toml", "/static/..%2F..%2Fstudy.toml"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "title" not in response.text
    # a manifest naming a file outside the stimulus folder is refused when the study is opened
    manifest = folder / "stimuli" / "manifest.csv"
    table = pd.read_csv(manifest, dtype=str)
    (tmp_path / "secret.png").write_bytes((folder / "stimuli" / table.loc[0, "path"]).read_bytes())
    table.loc[0, "path"] = "../../../secret.png"
    table.to_csv(manifest, index=False)
    from humanlike.web.app import open_study
    from humanlike.web.config import StudyConfigError

    with pytest.raises(StudyConfigError, match="outside the stimulus folder"):
        open_study(folder)


def test_researcher_pages_need_the_secret(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify"))
    for path in ("/researcher/export.csv", "/researcher/figure.png"):
        for headers in ({}, {"Authorization": "Bearer "}, {"Authorization": "Bearer wrong"},
                        {"Authorization": f"Bearer {SECRET[:-1]}"}, {"Authorization": SECRET}):
            response = client.get(path, headers=headers)
            assert response.status_code == 403 and "secret" in response.text
    login = client.get("/researcher")
    assert login.status_code == 200 and 'action="/researcher/login"' in login.text and "Progress" not in login.text
    assert "<h2>Progress</h2>" in client.get("/researcher", headers=RESEARCHER).text


def test_platform_ids_stay_apart_and_withdraw_deletes_a_participant(tmp_path, backend, client_for):
    client, study = client_for(make_study(tmp_path, "classify"), backend())
    alice = start(client, {"PROLIFIC_PID": "5f0c0ffee0ddba11", "STUDY_ID": "st-42", "SESSION_ID": "se-7",
                           "OTHER": "not-stored"})
    bob = start(client, {"PROLIFIC_PID": "60aabbccddeeff00"})
    for token in (alice, bob):
        answer_all(client, token, classifier(study))
    export = client.get("/researcher/export.csv", headers=RESEARCHER).text
    page = client.get("/researcher", headers=RESEARCHER).text
    for text in (export, page):
        assert "5f0c0ffee0ddba11" not in text and "60aabbccddeeff00" not in text and "st-42" not in text
    with study.engine.connect() as conn:
        stored = [json.loads(p) for p in conn.execute(select(db.platform_ids.c.params)).scalars()]
        assert "not-stored" not in json.dumps(stored)
        assert not any("5f0c0ffee0ddba11" in json.dumps(list(r), default=str) for r in conn.execute(select(db.responses)))
    with_ids = client.get("/researcher/export.csv?platform_ids=1", headers=RESEARCHER).text
    assert "5f0c0ffee0ddba11" in with_ids and "platform_PROLIFIC_PID" in with_ids
    table = study_table(study.engine, study.config, study.stimuli)
    assert set(table["observer"].str.match(r"^P\d{5}-[0-9a-f]{6}$")) == {True}
    alice_name = table["observer"].iloc[0]
    from humanlike.web.service import withdraw

    n = withdraw(study.engine, "5f0c0ffee0ddba11")     # by the platform id the participant wrote from
    assert n > 0
    after = study_table(study.engine, study.config, study.stimuli)
    assert alice_name not in set(after["observer"]) and after["observer"].nunique() == 1
    with study.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(db.participants)).scalar_one() == 1
        assert conn.execute(select(func.count()).select_from(db.platform_ids)).scalar_one() == 1
        left = conn.execute(select(func.count()).select_from(db.trials)).scalar_one()
    assert left == client.get(f"/api/p/{bob}/state").json()["total"]
    assert client.get(f"/api/p/{alice}/state").status_code == 404
    with pytest.raises(ValueError, match="no participant"):
        withdraw(study.engine, "nobody")


def test_failed_attention_checks_exclude_a_participant(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify", catch_trials=2))
    good, careless = start(client), start(client)
    answer_all(client, good, classifier(study))
    wrong = classifier(study)
    answer_all(client, careless, lambda t: ([x for x in t["options"] if x not in t["prompt"]][0]
                                             if t["kind"] == "catch" else wrong(t)))
    table = study_table(study.engine, study.config, study.stimuli)
    assert table["observer"].nunique() == 1
    kept = study_table(study.engine, study.config, study.stimuli, keep_excluded=True)
    assert kept["observer"].nunique() == 2
    page = client.get("/researcher", headers=RESEARCHER).text
    assert '<td>2</td><td>2</td><td>1</td>' in page.replace("\n", "")


def test_practice_trials_give_feedback_and_are_not_exported(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify", practice_trials=2))
    token = start(client)
    trial = client.get(f"/api/p/{token}/state").json()["trial"]
    assert trial["kind"] == "practice"
    label = stimulus_rows(study, trial)[0]["label"]
    wrong = [x for x in trial["options"] if x != label][0]
    reply = client.post(f"/api/p/{token}/response", json={"trial": trial["id"], "response": wrong}).json()
    assert reply["feedback"] == {"correct": False, "answer": label}
    main = reply["state"]["trial"]
    answer_all(client, token, classifier(study))
    assert len(study_table(study.engine, study.config, study.stimuli)) == 12
    assert main["kind"] == "practice"


def test_read_study_takes_the_folder_or_the_database_url(tmp_path, backend, client_for):
    url = backend()
    folder = make_study(tmp_path, "triads")
    client, study = client_for(folder, url)
    for _ in range(2):
        answer_all(client, start(client), scale_judge(study))
    table = read_study(url or folder)
    validate_judgements(table)
    assert table["observer"].nunique() == 2 and {"v1", "v2", "v3", "class_a"} <= set(table.columns)
    assert "platform_PROLIFIC_PID" not in table.columns
