"""What the server does, apart from HTTP: prepare the database, start a participant, serve the next trial,
record a response (checked, in one transaction), withdraw a participant.

Every rejection is a :class:`Rejected` carrying the HTTP status and a message; nothing is written when one is
raised (the transaction is rolled back).
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from . import db
from .adaptive_mlds import adaptive_trials
from .config import StudyConfig
from .design import check_design_size, design_index, plan_trials

#: Numeric fields a response may carry, with their allowed range.
RESPONSE_NUMBERS = {"rt_ms": (0.0, 3_600_000.0), "stimulus_ms": (0.0, 600_000.0), "refresh_hz": (1.0, 1000.0)}
RESPONSE_INTEGERS = {"frames": (0, 100_000), "window_w": (0, 100_000), "window_h": (0, 100_000)}
RESPONSE_KEYS = {"trial", "response", *RESPONSE_NUMBERS, *RESPONSE_INTEGERS}


class Rejected(Exception):
    """A request the server refuses: ``status`` (HTTP) and ``message``; nothing was stored.

    Parameters
    ----------
    status : int
        The HTTP status (400 malformed, 403 not yours, 404 unknown, 409 answered/not current, 422 not an option).
    message : str
        What was wrong, for the client.

    Examples
    --------
    >>> err = Rejected(409, "trial 7 was answered already")
    >>> err.status, str(err)
    (409, 'trial 7 was answered already')
    """

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Study:
    """A prepared study: its config, stimuli (with opaque ids) and database engine.

    Made by :func:`humanlike.web.app.open_study`.

    Attributes
    ----------
    folder : pathlib.Path or None
        The study folder.
    config : StudyConfig
        The study's configuration.
    stimuli : pandas.DataFrame
        :func:`humanlike.web.stimuli.read_stimuli` with an ``opaque`` column (the id the pages use).
    engine : sqlalchemy.engine.Engine
        The study database.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> study.config.task, len(study.stimuli), len(study.by_opaque)
    ('classify', 24, 24)
    >>> study.engine.dispose()
    """

    folder: Path | None
    config: StudyConfig
    stimuli: pd.DataFrame          # key, path, ..., opaque
    engine: Engine

    def __post_init__(self):
        self.design = design_index(self.stimuli, self.config, self.folder)
        check_design_size(self.stimuli, self.config, self.design)
        self.opaque_of = dict(zip(self.stimuli["key"], self.stimuli["opaque"]))
        self.reader = db.reader(self.engine)        # read-only transactions (SQLite: no write lock)

    @property
    def by_opaque(self) -> dict[str, str]:
        """Opaque id -> absolute path of every stimulus (what ``/stimulus/{opaque}`` serves)."""
        return dict(zip(self.stimuli["opaque"], self.stimuli["path"]))


def sync_stimuli(engine: Engine, stimuli: pd.DataFrame, config: StudyConfig) -> pd.DataFrame:
    """Give every stimulus an opaque id (kept across restarts) and record the config in the database.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database (migrated).
    stimuli : pandas.DataFrame
        :func:`humanlike.web.stimuli.read_stimuli`.
    config : StudyConfig
        The study (stored as JSON, so that the database alone can be exported).

    Returns
    -------
    pandas.DataFrame
        The stimuli with an ``opaque`` column (22 random URL-safe characters each).

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> again = sync_stimuli(study.engine, study.stimuli.drop(columns="opaque"), study.config)
    >>> (again["opaque"] == study.stimuli["opaque"]).all()
    np.True_
    >>> study.engine.dispose()
    """
    with engine.begin() as conn:
        known = dict(conn.execute(select(db.stimuli.c.key, db.stimuli.c.opaque)).all())
        new = [{"key": key, "opaque": secrets.token_urlsafe(16)} for key in stimuli["key"] if key not in known]
        if new:
            conn.execute(insert(db.stimuli), new)
            known.update({row["key"]: row["opaque"] for row in new})
        _put_meta(conn, "config", json.dumps(asdict(config)))
        if "alpha" in stimuli:
            _put_meta(conn, "levels", json.dumps(
                [[str(q), int(lv), float(a)] for q, lv, a in stimuli[["sequence", "level", "alpha"]].itertuples(index=False)]))
    out = stimuli.copy()
    out["opaque"] = [known[key] for key in out["key"]]
    return out


def _put_meta(conn, key: str, value: str) -> None:
    if conn.execute(select(db.study_meta.c.key).where(db.study_meta.c.key == key)).first():
        conn.execute(update(db.study_meta).where(db.study_meta.c.key == key).values(value=value))
    else:
        conn.execute(insert(db.study_meta).values(key=key, value=value))


def stored_config(engine: Engine) -> StudyConfig:
    """The study config recorded in a database (so that a database URL alone can be exported).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.

    Returns
    -------
    StudyConfig

    Raises
    ------
    ValueError
        When the database holds no study.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> stored_config(study.engine) == study.config
    True
    >>> study.engine.dispose()
    """
    with engine.connect() as conn:
        row = conn.execute(select(db.study_meta.c.value).where(db.study_meta.c.key == "config")).first()
    if row is None:
        raise ValueError("the database holds no study (no config recorded): was it made by `humanlike serve`?")
    return StudyConfig(**json.loads(row[0]))


def start_participant(study: Study, platform: dict[str, str]) -> str:
    """Create a participant with their whole trial list (one transaction), or resume the session of the
    participant whose platform id (``resume_param``, e.g. PROLIFIC_PID) started already.

    The trial list is planned for the lowest free design slot (the participant ordinal of
    :mod:`humanlike.web.design`): a slot is held by a finished participant or by an active one who answered
    within ``abandon_after_minutes``; an abandoned session's slot goes back to the rotation, so that the
    finished participants cover the design as a study without dropouts would.

    Parameters
    ----------
    study : Study
        The prepared study.
    platform : dict of str to str
        The platform's ids from the query string (stored apart, in ``platform_ids``).

    Returns
    -------
    str
        The participant's token (:func:`secrets.token_urlsafe`, 32 characters): the only key to their trials.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    >>> progress = state(study, token)
    >>> len(token), progress["answered"], progress["total"], progress["trial"]["kind"]
    (32, 0, 15, 'practice')
    >>> start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"}) == token      # the same person: resumed
    True
    >>> study.engine.dispose()
    """
    value = platform.get(study.config.resume_param) if study.config.resume_param else None
    # a fixed-length key for the unique index, however long the parameter's name and value
    key = hashlib.sha256(f"{study.config.resume_param}={value}".encode()).hexdigest() if value else None
    # read without the write lock (SQLite: a start does not wait behind every queued answer to learn it is new)
    if key is not None and (token := _resumed(study.reader, key)) is not None:
        return token
    try:
        return _new_participant(study, platform, key)
    except IntegrityError:
        # a concurrent start with the same platform id committed first: this one resumes it
        token = _resumed(study.reader, key) if key is not None else None
        if token is None:
            raise
        return token


def _resumed(engine: Engine, key: str) -> str | None:
    with engine.connect() as conn:
        return conn.execute(select(db.participants.c.token).select_from(
            db.platform_ids.join(db.participants, db.platform_ids.c.participant_id == db.participants.c.id))
            .where(db.platform_ids.c.participant_key == key)).scalar_one_or_none()


#: The first key of the PostgreSQL advisory locks that claim design slots (the second is the slot).
SLOT_LOCK = 30_5107
_HELD = (select(db.participants.c.slot).where(db.participants.c.status.in_(("active", "finished"))))
_SLOT_HELD = _HELD.where(db.participants.c.slot == bindparam("slot"))


def _free_slot(conn, config: StudyConfig, now: datetime) -> int:
    """The lowest design slot no live participant holds and no concurrent start is claiming; active sessions
    silent for longer than ``abandon_after_minutes`` become "abandoned" first (their slot is free again).

    SQLite's writers are serialised (one transaction at a time), so the lowest free slot is simply read. On
    PostgreSQL concurrent starts claim a slot with a transaction-scoped advisory lock on it and skip the slots
    others are claiming, instead of all waiting on one study-wide lock held until each commit (which made a
    crowd's starts queue for seconds): whoever holds a slot's lock has checked that no committed participant
    holds it, and keeps the lock until its own participant is committed."""
    if config.abandon_after_minutes:
        cutoff = now - timedelta(minutes=config.abandon_after_minutes)
        # rows another start is abandoning (or an answer is touching) are locked: skipped, not waited for
        stale = (select(db.participants.c.id).where(db.participants.c.status == "active",
                                                    db.participants.c.last_seen_at < cutoff)
                 .with_for_update(skip_locked=True))
        conn.execute(update(db.participants).where(db.participants.c.id.in_(stale))
                     .values(status="abandoned"))
    held = set(conn.execute(_HELD).scalars())
    slot = 0
    while True:
        slot += 1
        if slot in held:
            continue
        if conn.dialect.name == "sqlite":
            return slot
        if not conn.execute(select(func.pg_try_advisory_xact_lock(SLOT_LOCK, slot))).scalar_one():
            continue                        # another start is claiming it
        # a start that claimed it before has committed by now, and this statement sees its participant
        if conn.execute(_SLOT_HELD, {"slot": slot}).first() is None:
            return slot


def _new_participant(study: Study, platform: dict[str, str], key: str | None) -> str:
    token = secrets.token_urlsafe(24)
    now = _now()

    def create(conn) -> None:
        slot = _free_slot(conn, study.config, now)      # stale sessions marked abandoned first: they hold no place
        index = study.design
        if study.config.adaptive:   # the latest look's design; a stopped study refuses (410), nothing is written
            from .adaptive import current_design

            index = current_design(study, conn)
        pid = conn.execute(insert(db.participants).values(
            token=token, pseudonym="pending-" + secrets.token_hex(8), status="active", created_at=now,
            n_trials=0, slot=slot, last_seen_at=now).returning(db.participants.c.id)).scalar_one()
        if study.config.design == "adaptive":     # chosen from the current pooled MLDS fit (read in this transaction)
            planned = adaptive_trials(conn, study.stimuli, study.config, slot, study.design)
        else:
            planned = plan_trials(study.stimuli, study.config, slot, index)
        conn.execute(update(db.participants).where(db.participants.c.id == pid).values(
            pseudonym=f"P{pid:05d}-{secrets.token_hex(3)}", n_trials=len(planned)))
        if platform:
            conn.execute(insert(db.platform_ids).values(participant_id=pid, params=json.dumps(platform),
                                                        participant_key=key))
        conn.execute(insert(db.trials), [
            {"participant_id": pid, "position": position, "kind": trial.kind,
             "spec": json.dumps({"stimuli": trial.stimuli, "options": trial.options, "answer": trial.answer,
                                 "info": trial.info, "prompt": trial.prompt, "break_before": trial.break_before})}
            for position, trial in enumerate(planned)])

    db.write(study.engine, create)      # SQLite: committed together with other writers' (one disk flush)
    return token


# The statements of the hot paths are built once, with bound parameters, and run on the driver's connection
# (humanlike.web.db.DriverStatement): building a statement with its values on each request, or even running a
# prebuilt one through SQLAlchemy's execution, cost more CPU than running it.
_LOCK_PARTICIPANT = db.DriverStatement(select(db.participants.c.id).where(db.participants.c.token == bindparam("token"))
                                       .with_for_update())
_INSERT_RESPONSE = db.DriverStatement(insert(db.responses).values(
    {name: bindparam(name) for name in ("trial_id", "participant_id", "response", "correct", "rt_ms", "stimulus_ms",
                                        "frames", "refresh_hz", "window_w", "window_h", "created_at")}))
_FINISH = db.DriverStatement(update(db.participants).where(db.participants.c.id == bindparam("participant"))
                             .values(status="finished", finished_at=bindparam("now"), last_seen_at=bindparam("now"),
                                     completion_code=bindparam("code")))
_TOUCH = db.DriverStatement(update(db.participants).where(db.participants.c.id == bindparam("participant"))
                            .values(status="active", last_seen_at=bindparam("now")))


# Responses are accepted in list order only (the current trial, then the next), so a participant's answered
# trials are always the first ones of their list and the next trial is the one at position "number answered":
# one indexed lookup instead of "the lowest position NOT IN the answered trials" (the hot path of every request).
_ANSWERED = (select(func.count()).select_from(db.responses)
             .where(db.responses.c.participant_id == db.participants.c.id).scalar_subquery())
_TRIAL_COLUMNS = (db.trials.c.id.label("trial_id"), db.trials.c.position.label("trial_position"),
                  db.trials.c.kind.label("trial_kind"), db.trials.c.spec.label("trial_spec"))
#: The participant (every column), how many trials they answered, and their next trial (None when done).
_PROGRESS = db.DriverStatement(
    select(db.participants, _ANSWERED.label("answered"), *_TRIAL_COLUMNS)
    .select_from(db.participants.outerjoin(db.trials, (db.trials.c.participant_id == db.participants.c.id)
                                           & (db.trials.c.position == _ANSWERED)))
    .where(db.participants.c.token == bindparam("token")))
#: For an answer: the same, and the trial after the current one (``next_*``; None after the last).
_NEXT = db.trials.alias("next_trial")
_ANSWERING = db.DriverStatement(
    select(db.participants, _ANSWERED.label("answered"), *_TRIAL_COLUMNS,
           _NEXT.c.id.label("next_id"), _NEXT.c.position.label("next_position"),
           _NEXT.c.kind.label("next_kind"), _NEXT.c.spec.label("next_spec"))
    .select_from(db.participants
                 .outerjoin(db.trials, (db.trials.c.participant_id == db.participants.c.id)
                            & (db.trials.c.position == _ANSWERED))
                 .outerjoin(_NEXT, (_NEXT.c.participant_id == db.participants.c.id)
                            & (_NEXT.c.position == _ANSWERED + 1)))
    .where(db.participants.c.token == bindparam("token")))


def _progress(conn, token: str, statement=_PROGRESS):
    if not isinstance(token, str) or not 16 <= len(token) <= 64:
        raise Rejected(404, "unknown participant")
    row = statement.first(conn, {"token": token})
    if row is None:
        raise Rejected(404, "unknown participant (withdrawn, or a mistyped link)")
    return row


def _payload(study: Study, trial_id: int, position: int, kind: str, spec: dict, base: str) -> dict:
    opaque = study.opaque_of
    return {"id": trial_id, "position": position, "kind": kind,
            "stimuli": [f"{base}/stimulus/{opaque[key]}" for key in spec["stimuli"]],
            "options": spec["options"], "prompt": spec["prompt"], "break_before": spec["break_before"]}


def _state(study: Study, participant, answered: int, trial, base: str, code: str | None = None) -> dict:
    """The state the page gets: ``trial`` the next trial's (id, position, kind, spec as JSON) or None when
    done; ``code`` the participant's completion code when it was issued after ``participant`` was read."""
    done = trial is None or trial[0] is None
    code, url = study.config.completion(code or participant.completion_code) if done else ("", "")
    return {"done": done, "answered": answered, "total": participant.n_trials,
            "trial": None if done else _payload(study, trial[0], trial[1], trial[2], json.loads(trial[3]), base),
            "completion_code": code, "completion_url": url}


def trial_payload(study: Study, row, base: str = "") -> dict:
    """What the page gets of a trial: opaque stimulus URLs, options, kind, prompt; never the answer.

    Parameters
    ----------
    study : Study
        The prepared study.
    row : sqlalchemy Row
        A row of the ``trials`` table.
    base : str
        The URL prefix the study is served under.

    Returns
    -------
    dict
        ``id, position, kind, stimuli, options, prompt, break_before``.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> trial = state(study, start_participant(study, {}))["trial"]   # made by trial_payload
    >>> sorted(trial), trial["stimuli"][0].startswith("/stimulus/")
    (['break_before', 'id', 'kind', 'options', 'position', 'prompt', 'stimuli'], True)
    >>> study.engine.dispose()
    """
    return _payload(study, row.id, row.position, row.kind, json.loads(row.spec), base)


def state(study: Study, token: str, base: str = "") -> dict:
    """The participant's progress and next unanswered trial (``trial`` is None when done).

    Parameters
    ----------
    study : Study
        The prepared study.
    token : str
        The participant's token.
    base : str
        The URL prefix the study is served under.

    Returns
    -------
    dict
        ``done, answered, total, trial`` (:func:`trial_payload`), and ``completion_code`` and ``completion_url``:
        empty until the last trial is stored, then the study's code (or the participant's own) and URL.

    Raises
    ------
    Rejected
        404 for an unknown token.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> state(study, "no-such-participant-token-at-all")
    Traceback (most recent call last):
        ...
    humanlike.web.service.Rejected: unknown participant (withdrawn, or a mistyped link)
    >>> study.engine.dispose()
    """
    with study.reader.connect() as conn:                  # one statement; SQLite: no write lock taken
        row = _progress(conn, token)
    return _state(study, row, row.answered, (row.trial_id, row.trial_position, row.trial_kind, row.trial_spec), base)


def _check_body(body) -> dict:
    if not isinstance(body, dict):
        raise Rejected(400, "malformed body: expected a JSON object")
    unknown = sorted(set(body) - RESPONSE_KEYS)
    if unknown:
        raise Rejected(400, f"malformed body: unknown field(s) {unknown}")
    if not isinstance(body.get("trial"), int) or isinstance(body.get("trial"), bool):
        raise Rejected(400, "malformed body: 'trial' must be an integer trial id")
    if not isinstance(body.get("response"), str):
        raise Rejected(400, "malformed body: 'response' must be a string")
    clean = {"trial": body["trial"], "response": body["response"]}
    for fields, kind in ((RESPONSE_NUMBERS, (int, float)), (RESPONSE_INTEGERS, (int,))):
        for name, (low, high) in fields.items():
            value = body.get(name)
            if value is None:
                clean[name] = None
                continue
            if isinstance(value, bool) or not isinstance(value, kind) or not math.isfinite(value) \
                    or not low <= value <= high:
                raise Rejected(400, f"malformed body: {name!r} must be a number in [{low}, {high}], got {value!r}")
            clean[name] = value
    return clean


def record_response(study: Study, token: str, body, base: str = "") -> dict:
    """Check and store one response in one transaction; return the feedback and the participant's next state.

    Parameters
    ----------
    study : Study
        The prepared study.
    token : str
        The participant's token.
    body : object
        The request's JSON: ``trial`` (id), ``response`` and optional timing (``rt_ms, stimulus_ms, frames,
        refresh_hz, window_w, window_h``).
    base : str
        The URL prefix the study is served under.

    Returns
    -------
    dict
        ``feedback``: ``{"correct": bool, "answer": label}`` after a practice trial, else None; ``state``: what
        :func:`state` returns now, read in the same transaction (the page needs no second request).

    Raises
    ------
    Rejected
        400 malformed body; 404 unknown participant; 403 a trial of another participant (or none);
        409 a trial answered already, or not the participant's current trial; 422 a response outside the
        trial's options. Nothing is stored.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> token = start_participant(study, {})
    >>> trial = state(study, token)["trial"]
    >>> record_response(study, token, {"trial": trial["id"], "response": "circle", "rt_ms": 512.0})["feedback"].keys()
    dict_keys(['correct', 'answer'])
    >>> state(study, token)["answered"]
    1
    >>> record_response(study, token, {"trial": trial["id"], "response": "circle"})
    Traceback (most recent call last):
        ...
    humanlike.web.service.Rejected: trial 1 was answered already (a replayed response)
    >>> study.engine.dispose()
    """
    clean = _check_body(body)

    def store(conn):
        if conn.dialect.name != "sqlite":
            # the participant's row locked first, so that what is read next is what this participant's previous
            # response left (SQLite's writers are serialised already: BEGIN IMMEDIATE)
            _progress(conn, token, _LOCK_PARTICIPANT)
        current = _progress(conn, token, _ANSWERING)     # the participant, their current and next trial
        if current.trial_id != clean["trial"]:
            raise _refusal(conn, current.id, clean["trial"], current.trial_id)
        spec = json.loads(current.trial_spec)
        if clean["response"] not in spec["options"]:
            raise Rejected(422, f"response {clean['response']!r} is not one of the trial's options")
        correct = None if spec["answer"] is None else clean["response"] == spec["answer"]
        _INSERT_RESPONSE.run(conn, {
            "trial_id": current.trial_id, "participant_id": current.id, "response": clean["response"],
            "correct": correct, "rt_ms": clean["rt_ms"], "stimulus_ms": clean["stimulus_ms"],
            "frames": clean["frames"], "refresh_hz": clean["refresh_hz"], "window_w": clean["window_w"],
            "window_h": clean["window_h"], "created_at": _now()})
        following = (current.next_id, current.next_position, current.next_kind, current.next_spec)
        now, code = _now(), current.completion_code
        if current.next_id is None:
            code = secrets.token_hex(5).upper()
            _FINISH.run(conn, {"participant": current.id, "now": now, "code": code})
        else:   # an abandoned participant who comes back holds their slot again
            _TOUCH.run(conn, {"participant": current.id, "now": now})
        feedback = None
        if current.trial_kind == "practice" and spec["answer"] is not None:
            feedback = {"correct": correct, "answer": spec["answer"]}
        return {"feedback": feedback,
                "state": _state(study, current, current.answered + 1, following, base, code)}

    try:
        result = db.write(study.engine, store)      # returns once committed
    except (IntegrityError, study.engine.dialect.loaded_dbapi.IntegrityError):   # the driver's, unwrapped
        raise Rejected(409, f"trial {clean['trial']} was answered already (a replayed response)") from None
    if study.config.adaptive and result["state"]["done"]:   # a participant finished: a look may be due
        from .adaptive import take_looks

        take_looks(study)
    return result


def _refusal(conn, participant_id: int, trial_id: int, current_id: int | None) -> Rejected:
    """Why a response to ``trial_id`` is refused: another participant's trial (or none), answered already,
    or not the current trial."""
    owner = conn.execute(select(db.trials.c.participant_id).where(db.trials.c.id == trial_id)).scalar()
    if owner != participant_id:
        return Rejected(403, f"trial {trial_id} is not a trial of this participant")
    if conn.execute(select(db.responses.c.id).where(db.responses.c.trial_id == trial_id)).first() is not None:
        return Rejected(409, f"trial {trial_id} was answered already (a replayed response)")
    return Rejected(409, f"trial {trial_id} is not this participant's current trial (expected {current_id})")


def withdraw(engine: Engine, participant: str) -> int:
    """Delete every row of one participant (by pseudonym, token or a platform id such as the Prolific id the
    participant wrote from).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.
    participant : str
        Pseudonym (as in the export), token, or a platform id.

    Returns
    -------
    int
        The number of responses deleted (with them: the trials, the platform ids, the participant).

    Raises
    ------
    ValueError
        When no participant has that pseudonym or token.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    >>> withdraw(study.engine, "5f0c0ffee")
    0
    >>> state(study, token)
    Traceback (most recent call last):
        ...
    humanlike.web.service.Rejected: unknown participant (withdrawn, or a mistyped link)
    >>> study.engine.dispose()
    """
    with engine.begin() as conn:
        row = conn.execute(select(db.participants.c.id).where(
            (db.participants.c.pseudonym == participant) | (db.participants.c.token == participant))).first()
        if row is None:
            matches = [r.participant_id for r in conn.execute(select(db.platform_ids))
                       if participant in json.loads(r.params).values()]
            if len(matches) > 1:
                raise ValueError(f"platform id {participant!r} belongs to {len(matches)} participants; withdraw "
                                 "them by pseudonym")
            row = type("Row", (), {"id": matches[0]}) if matches else None
        if row is None:
            raise ValueError(f"no participant {participant!r} in this study (give the pseudonym from the export "
                             "or the researcher page)")
        pid = row.id
        n = conn.execute(delete(db.responses).where(db.responses.c.participant_id == pid)).rowcount
        conn.execute(delete(db.trials).where(db.trials.c.participant_id == pid))
        conn.execute(delete(db.platform_ids).where(db.platform_ids.c.participant_id == pid))
        conn.execute(delete(db.participants).where(db.participants.c.id == pid))
    return n
