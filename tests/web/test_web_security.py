"""Security and integrity of a served study (issue 30), each test failing on the code before it: the completion
code only after the last trial, resuming by platform id and reusing abandoned design slots, capped request
bodies and refused cross-site requests, exports safe to open in a spreadsheet, the researcher's login without a
secret in any URL, atomic writes, export errors, a movable study folder, several studies on one server, and
``serve``'s subcommands."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import func, select, update

from humanlike.app.cli import main
from humanlike.web import db
from web_bots import answer_all, classifier, scale_judge, start
from web_helpers import RESEARCHER, SECRET, ServerProcess, make_study

PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"


def count(study, table) -> int:
    with study.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


# -- 1. the completion code -------------------------------------------------------------------------------------

def test_the_fixed_completion_code_is_sent_only_after_the_last_trial_is_stored(tmp_path, backend, client_for):
    client, study = client_for(make_study(tmp_path, "classify", completion_code="C0DE4242",
                                          completion_url=PROLIFIC), backend())
    consent_page = client.get("/?PROLIFIC_PID=p1").text
    token = start(client, {"PROLIFIC_PID": "p1"})
    for text in (consent_page, client.get(f"/p/{token}").text, json.dumps(client.get(f"/api/p/{token}/state").json())):
        assert "C0DE4242" not in text and "prolific.com" not in text
    total = client.get(f"/api/p/{token}/state").json()["total"]
    answered = answer_all(client, token, classifier(study), limit=total - 1)
    before = client.get(f"/api/p/{token}/state").json()
    assert len(answered) == total - 1 and not before["done"]
    assert before["completion_code"] == before["completion_url"] == ""
    trial = before["trial"]
    reply = client.post(f"/api/p/{token}/response", json={"trial": trial["id"], "response": trial["options"][0]})
    after = reply.json()["state"]
    assert after["done"] and after["completion_code"] == "C0DE4242"
    assert after["completion_url"] == "https://app.prolific.com/submissions/complete?cc=C0DE4242"
    assert count(study, db.responses) == total       # the code came with the last response stored


def test_per_participant_codes_are_issued_at_the_end_and_exported_for_checking(tmp_path, client_for, capsys):
    folder = make_study(tmp_path, "classify", completion_code="per-participant", practice_trials=0, catch_trials=0)
    client, study = client_for(folder)
    alice, bob, carol = (start(client, {"PROLIFIC_PID": name}) for name in ("alice", "bob", "carol"))
    codes = {}
    for token in (alice, bob):
        answer_all(client, token, classifier(study))
        codes[token] = client.get(f"/api/p/{token}/state").json()["completion_code"]
    answer_all(client, carol, classifier(study), limit=3)
    assert client.get(f"/api/p/{carol}/state").json()["completion_code"] == ""
    assert len(set(codes.values())) == 2 and all(len(c) == 10 for c in codes.values())
    assert client.get(f"/api/p/{alice}/state").json()["completion_code"] == codes[alice]   # the same code again
    out = tmp_path / "with-ids.csv"
    assert main(["export", str(folder), "--out", str(out), "--include-platform-ids"]) == 0
    table = pd.read_csv(out).drop_duplicates("platform_PROLIFIC_PID").set_index("platform_PROLIFIC_PID")
    assert table.loc["alice", "completion_code"] == codes[alice] and table.loc["bob", "completion_code"] == codes[bob]
    assert pd.isna(table.loc["carol", "completion_code"])


def test_a_completion_url_placeholder_needs_a_code(tmp_path):
    from humanlike.web.config import StudyConfig, StudyConfigError

    with pytest.raises(StudyConfigError, match="completion_code"):
        StudyConfig(title="t", task="triads", stimuli="s", completion_url=PROLIFIC)
    with pytest.raises(StudyConfigError, match="completion_code"):
        StudyConfig(title="t", task="triads", stimuli="s", completion_code="<script>")


# -- 2. resuming, and abandoned slots back in the rotation --------------------------------------------------------

def test_a_second_start_with_the_same_platform_id_resumes_the_session(tmp_path, backend, client_for):
    client, study = client_for(make_study(tmp_path, "classify"), backend())
    token = start(client, {"PROLIFIC_PID": "5f0c0ffee", "SESSION_ID": "first"})
    answer_all(client, token, classifier(study), limit=3)
    again = start(client, {"PROLIFIC_PID": "5f0c0ffee", "SESSION_ID": "second"})
    assert again == token and client.get(f"/api/p/{again}/state").json()["answered"] == 3
    assert start(client, {"PROLIFIC_PID": "someone-else"}) != token
    assert start(client, {}) != start(client, {})                     # no platform id: new participants
    n_trials = count(study, db.trials)
    # concurrent starts of one person (a double click, two tabs) make one participant too
    tokens = []
    threads = [threading.Thread(target=lambda: tokens.append(start(client, {"PROLIFIC_PID": "racer"})))
               for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(tokens)) == 1
    assert count(study, db.participants) == 5
    assert count(study, db.trials) == n_trials + client.get(f"/api/p/{tokens[0]}/state").json()["total"]


def test_resume_param_empty_makes_every_start_a_new_participant(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify", resume_param=""))
    assert start(client, {"PROLIFIC_PID": "same"}) != start(client, {"PROLIFIC_PID": "same"})
    assert count(study, db.participants) == 2


def _main_cells(study, tokens) -> Counter:
    """(sequence, levels) of every main trial of these participants."""
    with study.engine.connect() as conn:
        ids = conn.execute(select(db.participants.c.id).where(db.participants.c.token.in_(tokens))).scalars().all()
        specs = conn.execute(select(db.trials.c.spec).where(db.trials.c.participant_id.in_(ids),
                                                            db.trials.c.kind == "main")).scalars().all()
    return Counter((json.loads(s)["info"]["sequence"], tuple(json.loads(s)["info"]["levels"])) for s in specs)


@pytest.mark.parametrize("abandon_after_minutes", [30, 0])
def test_abandoned_sessions_return_their_design_cell_so_finished_participants_stay_balanced(
        tmp_path, backend, client_for, abandon_after_minutes):
    """30 triads in blocks of 12: four participants who finish cover blocks 1-4 of the rotation. When two of the
    first four abandon (one answer, then silence past ``abandon_after_minutes``), the two who start next take
    their slots: the four who finish cover exactly the cells four finishers cover without any dropout. With 0
    (never abandon) the next two take slots 5 and 6 and the finishers' cells differ."""
    options = dict(practice_trials=0, catch_trials=0, trials_per_participant=12,
                   abandon_after_minutes=abandon_after_minutes)
    url = backend()
    client, reference = client_for(make_study(tmp_path / "reference", "triads", **options), url)
    finishers = [start(client) for _ in range(4)]
    for token in finishers:
        answer_all(client, token, scale_judge(reference))
    expected = _main_cells(reference, finishers)
    assert sum(expected.values()) == 48

    client, study = client_for(make_study(tmp_path / "dropouts", "triads", **options), backend())
    first = [start(client, {"PROLIFIC_PID": f"p{k}"}) for k in range(4)]
    for token in first[1:3]:
        answer_all(client, token, scale_judge(study), limit=1)
    with study.engine.begin() as conn:     # an hour of silence from the two who left
        conn.execute(update(db.participants).where(db.participants.c.token.in_(first[1:3]))
                     .values(last_seen_at=datetime.now(timezone.utc) - timedelta(hours=1)))
    late = [start(client, {"PROLIFIC_PID": f"p{k}"}) for k in range(4, 6)]
    finished = [first[0], first[3], *late]
    for token in finished:
        answer_all(client, token, scale_judge(study))
    with study.engine.connect() as conn:
        statuses = Counter(conn.execute(select(db.participants.c.status)).scalars())
    if abandon_after_minutes:
        assert _main_cells(study, finished) == expected
        assert statuses == {"finished": 4, "abandoned": 2}
        # one who left comes back (same Prolific id): the same session, which they may finish
        assert start(client, {"PROLIFIC_PID": "p1"}) == first[1]
        answer_all(client, first[1], scale_judge(study))
        assert client.get(f"/api/p/{first[1]}/state").json()["done"]
    else:
        assert _main_cells(study, finished) != expected
        assert statuses == {"finished": 4, "active": 2}


def test_concurrent_starts_take_distinct_slots_the_lowest_ones(tmp_path, backend, client_for):
    """Twelve starts at once (PostgreSQL: each claims its slot with an advisory lock, none waits for the others'
    commits): twelve participants in slots 1-12, no slot twice; two who abandon free theirs for the next two."""
    from humanlike.web.service import start_participant

    _, study = client_for(make_study(tmp_path, "triads", practice_trials=0, catch_trials=0,
                                     trials_per_participant=12, abandon_after_minutes=30), backend())
    barrier = threading.Barrier(12)
    tokens, errors = [], []

    def one(k):
        barrier.wait()
        try:
            tokens.append(start_participant(study, {"PROLIFIC_PID": f"c{k}"}))
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(tokens)) == 12
    with study.engine.begin() as conn:
        slots = dict(conn.execute(select(db.participants.c.token, db.participants.c.slot)).all())
        assert sorted(slots.values()) == list(range(1, 13))
        left = [token for token, slot in slots.items() if slot in (4, 9)]
        conn.execute(update(db.participants).where(db.participants.c.token.in_(left))
                     .values(last_seen_at=datetime.now(timezone.utc) - timedelta(hours=1)))
    late = [start_participant(study, {"PROLIFIC_PID": f"late{k}"}) for k in range(3)]
    with study.engine.connect() as conn:
        slots = dict(conn.execute(select(db.participants.c.token, db.participants.c.slot)).all())
    assert [slots[token] for token in late] == [4, 9, 13]


# -- 3. request bodies capped, cross-site requests refused ---------------------------------------------------------

def test_request_bodies_are_capped(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify"))
    big = json.dumps({"consent": True, "params": {"PROLIFIC_PID": "x"}, "padding": "x" * (31 * 2 ** 20)})
    response = client.post("/api/start", content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and "too large" in response.json()["error"]
    token = start(client)
    trial = client.get(f"/api/p/{token}/state").json()["trial"]
    body = json.dumps({"trial": trial["id"], "response": trial["options"][0], "padding": "x" * 70_000})
    response = client.post(f"/api/p/{token}/response", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert client.post("/researcher/login", content=b"secret=" + b"x" * 70_000,
                       headers={"Content-Type": "application/x-www-form-urlencoded"}).status_code == 413
    assert count(study, db.participants) == 1 and count(study, db.responses) == 0


def test_a_large_body_is_refused_before_it_is_sent(tmp_path):
    """Against the real server: the headers announce 31 MB, 1 kB follows; the 413 comes without the rest."""
    folder = make_study(tmp_path, "classify")
    server = ServerProcess(folder)
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"POST /api/start HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % (31 * 2 ** 20) + b"{" + b" " * 1023)
            reply = sock.recv(4096).decode()
        assert reply.startswith("HTTP/1.1 413"), reply
    finally:
        server.kill()


def test_cross_site_requests_are_refused(tmp_path, backend, client_for):
    client, study = client_for(make_study(tmp_path, "classify"), backend())
    consent = json.dumps({"consent": True})
    # what a page on another site can send without asking (a "simple" request): refused, nothing created
    for headers in ({"Content-Type": "text/plain", "Origin": "https://evil.example"},
                    {"Content-Type": "text/plain"},
                    {"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"},
                    {"Content-Type": "application/json", "Origin": "https://evil.example"},
                    {"Content-Type": "application/json", "Origin": "null"},
                    {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
                    {"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}):
        response = client.post("/api/start", content=consent, headers=headers)
        assert response.status_code in (403, 415), (headers, response.status_code)
    assert count(study, db.participants) == 0
    # the study's own page (same origin, JSON) and programs without a browser's headers are served
    for headers in ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin",
                     "Origin": "http://testserver"},
                    {"Content-Type": "application/json", "Origin": "http://testserver"},
                    {"Content-Type": "application/json"}):
        assert client.post("/api/start", content=consent, headers=headers).status_code == 200
    token = start(client)
    trial = client.get(f"/api/p/{token}/state").json()["trial"]
    answer = json.dumps({"trial": trial["id"], "response": trial["options"][0]})
    for headers in ({"Content-Type": "text/plain"}, {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}):
        assert client.post(f"/api/p/{token}/response", content=answer, headers=headers).status_code in (403, 415)
    assert count(study, db.responses) == 0


# -- 4. exports safe in a spreadsheet ---------------------------------------------------------------------------

def test_exports_escape_cells_a_spreadsheet_would_run_as_formulas(tmp_path, client_for):
    folder = make_study(tmp_path, "classify", practice_trials=0, catch_trials=0)
    client, study = client_for(folder)
    payloads = {"PROLIFIC_PID": '=HYPERLINK("http://evil.example","x")', "STUDY_ID": "@SUM(1+1)*cmd|' /C calc'!A0",
                "SESSION_ID": "-2+3"}
    answer_all(client, start(client, payloads), classifier(study))
    answer_all(client, start(client, {"PROLIFIC_PID": "+44 20 7946 0000", "STUDY_ID": "-7", "SESSION_ID": "ok"}),
               classifier(study))
    out = tmp_path / "export.csv"
    assert main(["export", str(folder), "--out", str(out), "--include-platform-ids"]) == 0
    served = client.get("/researcher/export.csv?platform_ids=1", headers=RESEARCHER).text
    for text in (out.read_text(), served):
        table = pd.read_csv(pd.io.common.StringIO(text), dtype=str, keep_default_na=False)
        cells = [c for column in table.columns for c in table[column]]
        assert not [c for c in cells if c[:1] in ("=", "+", "@") or (c.startswith("-") and c != "-7")]
        assert "'=HYPERLINK(\"http://evil.example\",\"x\")" in cells and "'-2+3" in cells
        assert "'+44 20 7946 0000" in cells and "-7" in cells          # a number stays a number
        numbers = pd.read_csv(pd.io.common.StringIO(text))
        assert pd.api.types.is_float_dtype(numbers["rt"]) and numbers["platform_STUDY_ID"].astype(str).str.contains("-7").any()
    parquet = tmp_path / "export.parquet"
    assert main(["export", str(folder), "--out", str(parquet), "--include-platform-ids"]) == 0
    assert payloads["PROLIFIC_PID"] in set(pd.read_parquet(parquet)["platform_PROLIFIC_PID"])   # verbatim


# -- 5. the researcher's login ----------------------------------------------------------------------------------

def test_the_researcher_logs_in_with_a_form_and_an_httponly_cookie(tmp_path, client_for):
    client, study = client_for(make_study(tmp_path, "classify"))
    keyed = client.get(f"/researcher?key={SECRET}", follow_redirects=False)
    assert keyed.status_code == 303 and keyed.headers["location"] == "/researcher"     # the key leaves the URL
    assert "Progress" not in client.get(f"/researcher?key={SECRET}").text                 # and opens nothing
    wrong = client.post("/researcher/login", data={"secret": "wrong"})
    assert wrong.status_code == 403 and "not the researcher secret of this study" in wrong.text
    assert not client.cookies
    login = client.post("/researcher/login", data={"secret": SECRET}, follow_redirects=False)
    assert login.status_code == 303 and login.headers["location"] == "/researcher"
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/researcher" in cookie
    assert SECRET not in cookie
    page = client.get("/researcher")
    assert "<h2>Progress</h2>" in page.text and SECRET not in page.text and "key=" not in page.text
    assert client.get("/researcher/export.csv").status_code == 200
    client.post("/researcher/logout")
    assert client.get("/researcher/export.csv").status_code == 403
    # the login form from another site is refused like any cross-site POST
    assert client.post("/researcher/login", data={"secret": SECRET},
                       headers={"Origin": "https://evil.example"}).status_code == 403


def test_web_files_are_written_atomically(tmp_path, monkeypatch):
    from humanlike.web.config import researcher_secret
    from humanlike.web.demo import make_demo

    replaced = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (replaced.append(Path(dst).name), real_replace(src, dst))[1])
    studies = make_demo(tmp_path)
    researcher_secret(tmp_path)
    monkeypatch.undo()
    assert Counter(replaced)["study.toml"] == 2 and "manifest.csv" in replaced and "researcher-secret" in replaced
    pngs = list((studies["classify"] / "stimuli").rglob("*.png"))
    assert sum(name.endswith(".png") and "-" not in name for name in replaced) >= len(pngs) == 24
    assert oct((tmp_path / "researcher-secret").stat().st_mode)[-3:] == "600"


# -- 6. export's errors and --out -------------------------------------------------------------------------------

def test_export_names_a_corrupt_or_unreachable_database_in_one_line(tmp_path, capsys):
    folder = make_study(tmp_path, "classify")
    (folder / "study.sqlite").write_bytes(b"this is not a database " * 100)
    assert main(["export", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert str((folder / "study.sqlite").resolve()) in err and "cannot read the database" in err
    with socket.socket() as s:       # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://lab:hunter2@127.0.0.1:{port}/study"
    assert main(["export", url, "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"127.0.0.1:{port}/study" in err and "hunter2" not in err and "cannot read the database" in err


def test_export_out_writes_inside_a_folder_and_prints_what_it_wrote(tmp_path, capsys):
    from test_web_cli import run_participants

    folder = make_study(tmp_path, "classify", practice_trials=0, catch_trials=0)
    run_participants(folder, "classify", 2)
    capsys.readouterr()
    target = tmp_path / "exports"
    target.mkdir()
    assert main(["export", str(folder), "--out", str(target)]) == 0
    assert f"wrote {target / 'trials.csv'}:" in capsys.readouterr().out
    assert len(pd.read_csv(target / "trials.csv")) == 24 and not (tmp_path / "exports.csv").exists()
    assert main(["export", str(folder), "--out", str(tmp_path / "plain")]) == 0
    assert f"wrote {tmp_path / 'plain.csv'}:" in capsys.readouterr().out and (tmp_path / "plain.csv").is_file()


# -- 7. a movable study folder ----------------------------------------------------------------------------------

def test_init_writes_relative_paths_so_the_study_can_be_moved(tmp_path, capsys):
    from starlette.testclient import TestClient

    from humanlike.web.app import create_app, open_study
    from humanlike.web.config import load_config
    from humanlike.web.demo import write_classification_stimuli

    project = tmp_path / "project"
    manifest = write_classification_stimuli(project / "stimuli")
    assert main(["serve", "init", str(project / "study"), "--stimuli", str(manifest), "--task", "classify"]) == 0
    assert load_config(project / "study").stimuli == "../stimuli/manifest.csv"
    moved = tmp_path / "elsewhere" / "moved-project"
    moved.parent.mkdir()
    shutil.move(project, moved)
    study = open_study(moved / "study")
    client = TestClient(create_app(study, SECRET))
    answer_all(client, start(client), classifier(study))
    study.engine.dispose()
    capsys.readouterr()
    assert main(["export", str(moved / "study")]) == 0
    assert len(pd.read_csv(moved / "study" / "trials.csv")) == 12


# -- 8. several studies on one server ---------------------------------------------------------------------------

def test_several_studies_are_served_by_one_process(tmp_path):
    import httpx

    a = make_study(tmp_path / "a", "classify")
    b = make_study(tmp_path / "b", "triads")
    a = Path(shutil.move(a, tmp_path / "study-a"))
    b = Path(shutil.move(b, tmp_path / "study-b"))
    server = ServerProcess([a, b])
    try:
        tokens = {}
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for name, option in (("study-a", "circle"), ("study-b", "left")):
                reply = client.post(f"/{name}/api/start", json={"consent": True})
                assert reply.status_code == 200 and reply.json()["url"].startswith(f"/{name}/p/")
                tokens[name] = reply.json()["token"]
                trial = client.get(f"/{name}/api/p/{tokens[name]}/state").json()["trial"]
                assert client.post(f"/{name}/api/p/{tokens[name]}/response",
                                   json={"trial": trial["id"], "response": option}).status_code == 200
            assert client.get(f"/study-a/api/p/{tokens['study-b']}/state").status_code == 404
            assert client.get("/").status_code == 404      # no list of studies for strangers
            secrets = {name: (folder / "researcher-secret").read_text().strip()
                       for name, folder in (("study-a", a), ("study-b", b))}
            assert secrets["study-a"] != secrets["study-b"]
            own = client.get("/study-a/researcher/export.csv",
                             headers={"Authorization": f"Bearer {secrets['study-a']}"})
            other = client.get("/study-a/researcher/export.csv",
                               headers={"Authorization": f"Bearer {secrets['study-b']}"})
            assert own.status_code == 200 and other.status_code == 403
            login = client.post("/study-b/researcher/login", data={"secret": secrets["study-b"]},
                                follow_redirects=False)
            assert "Path=/study-b/researcher" in login.headers["set-cookie"]
            assert client.get("/study-b/researcher/export.csv").status_code == 200     # the cookie
            assert client.get("/study-a/researcher/export.csv").status_code == 403     # is study-b's only
    finally:
        server.kill()
    assert f"study-a: researcher    {server.url}/study-a/researcher" in server.output()
    from humanlike.web.app import open_study

    for folder in (a, b):                 # each study's data in its own database
        study = open_study(folder)
        assert count(study, db.participants) == 1 and count(study, db.responses) == 1
        study.engine.dispose()


def test_several_studies_need_distinct_folder_names(tmp_path, capsys):
    a = make_study(tmp_path / "one", "classify")
    b = make_study(tmp_path / "two", "classify")       # both folders are named "classify"
    assert main(["serve", str(a), str(b)]) == 2
    assert "two studies with the folder name 'classify'" in capsys.readouterr().err


# -- 9. serve's subcommands -------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, has, lacks", [
    # withdraw's PARTICIPANT argument (its help names the pseudonym) is not init's (init has --per-participant)
    (["serve", "init", "--help"], ["--stimuli", "--task", "--title", "--design"], ["--workers", "--demo", "pseudonym"]),
    (["serve", "withdraw", "--help"], ["participant", "--db"], ["--stimuli", "--workers"]),
    (["serve", "--help"], ["init", "withdraw", "--workers", "--demo"], []),
])
def test_serve_init_and_withdraw_are_subcommands_with_their_own_help(capsys, argv, has, lacks):
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 0
    text = capsys.readouterr().out
    assert all(word in text for word in has) and not any(word in text for word in lacks), text


def test_a_database_of_the_first_schema_is_upgraded_and_keeps_its_participants_slots(tmp_path, backend):
    """A study served before this schema (migration 0001) gets 0002 when the server starts: its participants
    keep the slot they were planned for (their id), and a new participant takes the next free one."""
    from alembic import command
    from alembic.config import Config
    from starlette.testclient import TestClient

    from humanlike.web.app import create_app, open_study

    folder = make_study(tmp_path, "triads", practice_trials=0, catch_trials=0)
    postgres = backend()
    url = postgres or db.sqlite_url(folder / "study.sqlite")
    engine = db.make_engine(url)
    config = Config()
    config.set_main_option("script_location", db.MIGRATIONS)
    with engine.connect() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.commit()
        connection.exec_driver_sql(
            "INSERT INTO participants (token, pseudonym, status, created_at, finished_at, n_trials) VALUES "
            "('old-token-0123456789abcdef', 'P00001-aaaaaa', 'finished', '2026-01-01 10:00:00', "
            "'2026-01-01 10:30:00', 12)")
        connection.commit()
    engine.dispose()
    study = open_study(folder, postgres)
    try:
        token = start(TestClient(create_app(study, SECRET)))
        with study.engine.connect() as conn:
            slots = dict(conn.execute(select(db.participants.c.token, db.participants.c.slot)).all())
        assert slots == {"old-token-0123456789abcdef": 1, token: 2}
    finally:
        study.engine.dispose()
