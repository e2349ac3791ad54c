"""A server killed with SIGKILL in the middle of a study (requests in flight) and started again loses no
committed response, and every participant resumes at the next unanswered trial."""

from __future__ import annotations

import threading
import time

import httpx
from sqlalchemy import select

from humanlike.web import db
from humanlike.web.app import open_study
from web_bots import answer_all, classifier, start
from web_helpers import ServerProcess, make_study


def keep_answering(base_url, token, choose, acknowledged, stop):
    """Answer until the server dies; record each trial id whose response the server acknowledged (200). The last
    trial is left unanswered, so that every participant has a next trial to resume at after the restart (a fast
    participant could otherwise finish between the count the test waits for and the kill)."""
    with httpx.Client(base_url=base_url, timeout=10) as client:
        try:
            state = client.get(f"/api/p/{token}/state").json()
            while state["answered"] < state["total"] - 1 and not stop.is_set():
                trial = state["trial"]
                reply = client.post(f"/api/p/{token}/response", json={"trial": trial["id"], "response": choose(trial)})
                if reply.status_code != 200:
                    return
                acknowledged.append(trial["id"])
                state = reply.json()["state"]
        except httpx.HTTPError:
            return                              # the server was killed


def stored(study, participant_token):
    with study.engine.connect() as conn:
        pid = conn.execute(select(db.participants.c.id).where(db.participants.c.token == participant_token)).scalar_one()
        return set(conn.execute(select(db.responses.c.trial_id).where(db.responses.c.participant_id == pid)).scalars())


def test_sigkill_mid_study_loses_no_committed_response(tmp_path, backend):
    url = backend()
    folder = make_study(tmp_path, "classify", catch_trials=0)
    extra = ("--db", url) if url else ()
    study = open_study(folder, url)          # the test's own view of the stimuli (the oracle) and the database
    server = ServerProcess(folder, *extra)
    stop = threading.Event()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            tokens = [start(client) for _ in range(4)]
        acknowledged = {t: [] for t in tokens}
        threads = [threading.Thread(target=keep_answering, args=(server.url, t, classifier(study, k), acknowledged[t],
                                                                 stop)) for k, t in enumerate(tokens)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while sum(map(len, acknowledged.values())) < 12 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        server.kill()                         # SIGKILL, requests in flight
        stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert server.process.returncode == -9
    printed = server.output()
    secret = (folder / "researcher-secret").read_text().strip()
    assert f"participants  http://127.0.0.1:{server.port}/" in printed
    assert f"researcher    http://127.0.0.1:{server.port}/researcher   (log in with the secret in" in printed
    assert secret not in printed
    acked_total = sum(map(len, acknowledged.values()))
    assert acked_total >= 12
    for token in tokens:
        in_db = stored(study, token)
        assert set(acknowledged[token]) <= in_db                   # no acknowledged response lost
        assert len(in_db - set(acknowledged[token])) <= 1         # at most the one in flight, committed unacknowledged
    restarted = ServerProcess(folder, *extra, port=server.port)
    try:
        with httpx.Client(base_url=restarted.url, timeout=30) as client:
            for k, token in enumerate(tokens):
                in_db = stored(study, token)
                state = client.get(f"/api/p/{token}/state").json()
                assert state["answered"] == len(in_db) and state["trial"]["position"] == len(in_db)
                assert state["trial"]["id"] not in in_db
                rest = answer_all(client, token, classifier(study, k))
                assert len(in_db) + len(rest) == state["total"]
                assert len(stored(study, token)) == state["total"]
    finally:
        restarted.kill()
    study.engine.dispose()
