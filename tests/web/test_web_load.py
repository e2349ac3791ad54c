"""200 simulated participants answering at once against the loopback server: nothing lost, nothing duplicated,
each sees only their own trials (bounded: 3 answers each, 120 s at most). Speed figures are in
benchmarks/serve_load.py, not here."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from humanlike.web import db
from humanlike.web.app import open_study
from humanlike.web.simulate import simulate_participants
from web_helpers import ServerProcess, make_study

PARTICIPANTS = 200
ANSWERS = 3


def test_200_concurrent_participants(tmp_path, backend):
    url = backend()
    folder = make_study(tmp_path, "classify", practice_trials=0, catch_trials=0)
    extra = ("--db", url, "--workers", "2") if url else ()
    study = open_study(folder, url)
    server = ServerProcess(folder, *extra)
    try:
        records, _ = asyncio.run(simulate_participants(server.url, PARTICIPANTS, answers=ANSWERS, timeout=120))
    finally:
        server.kill()
    assert [r.error for r in records if r.error] == []
    with study.engine.connect() as conn:
        participants = dict(conn.execute(select(db.participants.c.token, db.participants.c.id)).all())
        trials = dict(conn.execute(select(db.trials.c.id, db.trials.c.participant_id)).all())
        responses = conn.execute(select(db.responses.c.trial_id, db.responses.c.participant_id)).all()
    assert len(participants) == PARTICIPANTS
    assert len(responses) == PARTICIPANTS * ANSWERS                       # nothing lost
    assert len({trial for trial, _ in responses}) == len(responses)       # nothing duplicated
    stored = {}
    for trial, pid in responses:
        assert trials[trial] == pid
        stored.setdefault(pid, set()).add(trial)
    for record in records:
        pid = participants[record.token]
        assert all(trials[t] == pid for t in record.served)                # only their own trials
        assert set(record.answered) == stored[pid] and len(record.answered) == ANSWERS
    study.engine.dispose()
