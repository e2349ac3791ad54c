"""Adaptive studies (``serve init --design discriminate --adaptive``): refit the design after every batch of
participants and stop recruiting when the group-sequential test resolves the comparison
(docs/designs-that-decide.md).

The study plans looks after every ``batch`` completed participants (finished, and not excluded by the attention
checks) up to ``max_participants``: counts ``batch, 2 batch, ..., max_participants``. At look *k* the server takes
the first ``n_k`` of them in order of finishing (those of the earlier looks first) and computes

* the pool-level difference ``D = EC_A - EC_B`` and its participants' jackknife ``se``
  (:func:`humanlike.measures.compare.design_estimate.jackknife`), each trial weighted by ``1 / pi`` of the
  design it was drawn from (stored with the trial);
* ``Z = D / se`` against the bound ``c_k`` of :func:`humanlike.stats.sequential.group_sequential_bounds` of the
  planned information fractions ``n_k / max_participants``: ``|Z| >= c_k`` stops with "resolved", the last
  look stops with "maximum" otherwise;
* while it continues, the next design: :func:`humanlike.measures.compare.design_adaptive.refitted_design` of the
  participants' sums, whose inclusion probabilities the following participants are drawn with.

A look is a row of ``adaptive_looks`` written once, in a write transaction that first takes the study's look
lock (SQLite: the one writer; PostgreSQL: an advisory lock) and reads the looks again, so concurrent workers
compute each look once. Once a look stops, ``/api/start`` answers 410 (the page shows that the study is closed,
before consent); participants in a session finish. :func:`replay_adaptive_study` recomputes the looks from an
export (``trials.csv``, ``adaptive.json``, the design file).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..measures.compare.design_adaptive import refitted_design
from ..measures.compare.design_estimate import jackknife, participant_sums, strata_layout
from ..measures.compare.discriminating import ItemDesign
from ..stats.sequential import group_sequential_bounds
from .adaptive_settings import planned_counts

#: The first key of the PostgreSQL advisory lock that serialises the looks (service.SLOT_LOCK + 1).
LOOK_LOCK = 30_5108
#: The export's record of the looks, beside ``trials.csv``.
REPORT_NAME = "adaptive.json"
_KEYS = ["experiment", "condition", "item"]


def look_statistics(design: ItemDesign, responses: pd.DataFrame, members: list, settings: dict, look: int) -> dict:
    """Look ``look`` of an adaptive study: the estimate, its Z and bound, the decision and the next design.

    Parameters
    ----------
    design : ItemDesign
        The study's first design (its pool; the floor is ``settings["floor"]``).
    responses : pandas.DataFrame
        Main trials: ``observer``, ``experiment``, ``condition``, ``item``, ``correct``, ``probability`` (the
        inclusion probability the trial was drawn with), ``look`` (the design it was drawn from).
    members : list
        The observers counted at this look, in order (their trials are the ones used).
    settings : dict
        :func:`humanlike.web.adaptive_settings.check_adaptive`'s.
    look : int
        The look's number (1-based).

    Returns
    -------
    dict
        ``look, participants, estimate, se, ci_low, ci_high, z, bound, decision`` ("continue", "resolved",
        "maximum") and ``probability`` (the next design's, pool order; ``[]`` once stopped). Undefined numbers
        are None.

    Examples
    --------
    >>> pool = pd.DataFrame({"experiment": "e", "condition": "c", "item": list("wxyz"),
    ...                      "correct_a": [1, 1, 0, 0], "correct_b": [1, 0, 1, 0]})
    >>> d = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=4)
    >>> r = pd.DataFrame({"observer": np.repeat(["p1", "p2", "p3"], 4), "experiment": "e", "condition": "c",
    ...                   "item": list("wxyz") * 3, "correct": [1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0],
    ...                   "probability": 1.0, "look": 0})
    >>> from humanlike.web.adaptive_settings import check_adaptive
    >>> out = look_statistics(d, r, ["p1", "p2", "p3"], check_adaptive({"batch": 3, "max_participants": 6},
    ...                       "discriminate"), 1)
    >>> round(out["estimate"], 3), out["decision"], len(out["probability"])   # by hand: kappa 2/3 for A, 0 for B
    (0.667, 'continue', 4)
    """
    design = replace(design, floor=settings["floor"])
    index = pd.MultiIndex.from_frame(design.pool[_KEYS].astype(str))
    chosen = responses[responses["observer"].astype(str).isin([str(m) for m in members])]
    where = index.get_indexer(pd.MultiIndex.from_frame(chosen[_KEYS].astype(str)))
    if (where < 0).any():
        raise ValueError("a response to an item outside the design's pool")
    order = {str(m): k for k, m in enumerate(members)}
    person = chosen["observer"].astype(str).map(order).to_numpy()
    shown = np.zeros((len(members), len(design.pool)))
    correct = np.zeros_like(shown)
    np.add.at(shown, (person, where), 1.0)
    np.add.at(correct, (person, where), chosen["correct"].astype(float).to_numpy())
    # each participant's trials weigh 1 / pi of the design they were drawn from: the sums per design
    version = pd.Series(chosen["look"].to_numpy(), index=person).groupby(level=0).first()
    sums = np.zeros((len(members), *strata_layout(design)[1].shape, 4))
    for drawn_from in pd.unique(version):
        rows = version.index[version == drawn_from].to_numpy()
        probability = design.pool["probability"].to_numpy().copy()
        mine = chosen[np.isin(person, rows)]
        probability[index.get_indexer(pd.MultiIndex.from_frame(mine[_KEYS].astype(str)))] = mine["probability"].to_numpy()
        pool = design.pool.assign(probability=probability)
        sums[rows] = participant_sums(replace(design, pool=pool), shown[rows], correct[rows])
    _, shares, _ = strata_layout(design)
    estimate, se = (float(v) for v in jackknife(sums, shares))
    z = estimate / se if se > 0 else float("nan")
    counts = planned_counts(settings)
    bounds = group_sequential_bounds(np.array(counts) / settings["max_participants"], settings["alpha"],
                                     settings["spending"])
    bound = float(bounds[look - 1])
    if np.isfinite(z) and abs(z) >= bound:
        decision = "resolved"
    elif look >= len(counts):
        decision = "maximum"
    else:
        decision = "continue"
    half = float(stats.norm.ppf(0.975)) * se
    probability = (refitted_design(design, sums).pool["probability"].tolist() if decision == "continue" else [])

    def number(value):
        return float(value) if np.isfinite(value) else None

    return {"look": look, "participants": len(members), "estimate": number(estimate), "se": number(se),
            "ci_low": number(estimate - half), "ci_high": number(estimate + half), "z": number(z),
            "bound": number(bound), "decision": decision, "probability": probability}


# --- the server: the looks in the database ---------------------------------------------------------------------

def base_design(study) -> ItemDesign:
    """The study's first design (its design file), with the adaptive floor; read once per server.

    Parameters
    ----------
    study : humanlike.web.service.Study
        An adaptive study.

    Returns
    -------
    ItemDesign

    Examples
    --------
    >>> base_design.__name__
    'base_design'
    """
    cached = study.__dict__.get("adaptive_base")
    if cached is None:
        cached = replace(ItemDesign.read(Path(study.folder) / study.config.design_file),
                         floor=study.config.adaptive["floor"])
        study.__dict__["adaptive_base"] = cached
    return cached


def stored_looks(conn) -> list[dict]:
    """The looks taken so far, in order (``members`` as a list of participant ids, ``probability`` a list).

    Parameters
    ----------
    conn : sqlalchemy.engine.Connection
        A connection to the study database.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web import db
    >>> engine = db.make_engine(db.sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> db.upgrade(engine)
    >>> with engine.connect() as conn:
    ...     stored_looks(conn)
    []
    >>> engine.dispose()
    """
    from sqlalchemy import select

    from . import db

    rows = conn.execute(select(db.adaptive_looks).order_by(db.adaptive_looks.c.look)).mappings().all()
    return [{**row, "members": json.loads(row["members"]), "probability": json.loads(row["probability"])}
            for row in rows]


def eligible_participants(conn, config) -> list[int]:
    """Finished participants who passed the attention checks, in order of finishing (ids).

    Parameters
    ----------
    conn : sqlalchemy.engine.Connection
        A connection to the study database.
    config : humanlike.web.config.StudyConfig
        The study (``max_catch_failures``).

    Returns
    -------
    list of int

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web import db
    >>> from humanlike.web.config import StudyConfig
    >>> engine = db.make_engine(db.sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> db.upgrade(engine)
    >>> with engine.connect() as conn:
    ...     eligible_participants(conn, StudyConfig(title="t", task="triads", stimuli="."))
    []
    >>> engine.dispose()
    """
    from sqlalchemy import false, func, select

    from . import db

    failures = dict(conn.execute(
        select(db.responses.c.participant_id, func.count())
        .select_from(db.responses.join(db.trials, db.responses.c.trial_id == db.trials.c.id))
        .where(db.trials.c.kind == "catch", db.responses.c.correct == false())
        .group_by(db.responses.c.participant_id)).all())
    finished = conn.execute(select(db.participants.c.id).where(db.participants.c.status == "finished")
                            .order_by(db.participants.c.finished_at, db.participants.c.id)).scalars().all()
    return [pid for pid in finished if failures.get(pid, 0) <= config.max_catch_failures]


def _main_trials(conn, ids: list[int]) -> pd.DataFrame:
    """The main trials answered by participants ``ids``: observer (the id), keys, correct, probability, look."""
    from sqlalchemy import select

    from . import db

    rows = conn.execute(select(db.responses.c.participant_id, db.responses.c.correct, db.trials.c.spec)
                        .select_from(db.responses.join(db.trials, db.responses.c.trial_id == db.trials.c.id))
                        .where(db.trials.c.kind == "main", db.responses.c.participant_id.in_(ids))
                        .order_by(db.responses.c.participant_id, db.trials.c.position)).all()
    info = [json.loads(spec)["info"] for _, _, spec in rows]
    return pd.DataFrame({"observer": [pid for pid, _, _ in rows], **{k: [i[k] for i in info] for k in _KEYS},
                         "correct": [bool(c) for _, c, _ in rows], "probability": [i["probability"] for i in info],
                         "look": [i["look"] for i in info]})


def current_design(study, conn):
    """The design a new participant is drawn from (the latest look's refit), or a refusal once recruiting
    stopped.

    Parameters
    ----------
    study : humanlike.web.service.Study
        An adaptive study.
    conn : sqlalchemy.engine.Connection
        The start's write transaction.

    Returns
    -------
    humanlike.web.design.DiscriminateIndex
        ``probability`` and ``look`` of the latest look.

    Raises
    ------
    humanlike.web.service.Rejected
        410 when a look stopped the study, or when the planned maximum of participants have finished or are
        in a session.

    Examples
    --------
    >>> current_design.__name__
    'current_design'
    """
    from sqlalchemy import func, select

    from . import db
    from .service import Rejected

    looks = stored_looks(conn)
    if looks and looks[-1]["decision"] != "continue":
        raise Rejected(410, f"this study is closed: {closed_reason(looks, study.config.adaptive)}")
    n_max = study.config.adaptive["max_participants"]
    active = conn.execute(select(func.count()).select_from(db.participants)
                          .where(db.participants.c.status == "active")).scalar_one()
    if active + len(eligible_participants(conn, study.config)) >= n_max:
        raise Rejected(410, f"this study is closed to new participants: its planned maximum of {n_max} have taken "
                            "part or are taking part")
    if not looks:
        return replace(study.design, look=0)
    return replace(study.design, probability=np.asarray(looks[-1]["probability"]), look=looks[-1]["look"])


def closed_reason(looks: list[dict], settings: dict) -> str:
    """Why recruiting stopped, in words ("" while it goes on).

    Parameters
    ----------
    looks : list of dict
        The looks so far.
    settings : dict
        The study's ``adaptive`` settings.

    Returns
    -------
    str

    Examples
    --------
    >>> closed_reason([{"look": 2, "participants": 20, "z": 3.1, "bound": 2.96, "decision": "resolved"}], {})
    'resolved at look 2 with 20 participants (|Z| = 3.10 >= bound 2.96)'
    """
    if not looks or looks[-1]["decision"] == "continue":
        return ""
    last = looks[-1]
    if last["decision"] == "resolved":
        return (f"resolved at look {last['look']} with {last['participants']} participants "
                f"(|Z| = {abs(last['z']):.2f} >= bound {last['bound']:.2f})")
    return (f"the planned maximum of {last['participants']} participants was reached without resolving the "
            "comparison")


def take_looks(study) -> list[dict]:
    """Take every look that is due (after a participant finished): computed once, in one write transaction.

    Parameters
    ----------
    study : humanlike.web.service.Study
        An adaptive study.

    Returns
    -------
    list of dict
        The looks taken now (usually none).

    Examples
    --------
    >>> take_looks.__name__
    'take_looks'
    """
    from sqlalchemy import func, select

    from . import db

    settings, counts = study.config.adaptive, planned_counts(study.config.adaptive)
    with study.reader.connect() as conn:     # a cheap read first: most finishes are not a look
        finished = conn.execute(select(func.count()).select_from(db.participants)
                                .where(db.participants.c.status == "finished")).scalar_one()
        done = conn.execute(select(func.count()).select_from(db.adaptive_looks)).scalar_one()
    if done >= len(counts) or finished < counts[done]:
        return []

    def work(conn) -> list[dict]:
        if conn.dialect.name != "sqlite":   # SQLite's writers are serialised already
            conn.execute(select(func.pg_advisory_xact_lock(LOOK_LOCK)))
        looks = stored_looks(conn)          # read again under the lock: another worker may have taken it
        counted = looks[-1]["members"] if looks else []
        if looks and looks[-1]["decision"] != "continue":
            return []
        waiting = [pid for pid in eligible_participants(conn, study.config) if pid not in set(counted)]
        taken = []
        while len(looks) + len(taken) < len(counts):
            need = counts[len(looks) + len(taken)] - len(counted)
            if len(waiting) < need:
                break
            counted, waiting = counted + waiting[:need], waiting[need:]
            look = look_statistics(base_design(study), _main_trials(conn, counted), counted, settings,
                                   len(looks) + len(taken) + 1)
            conn.execute(db.adaptive_looks.insert().values(
                **{k: look[k] for k in ("look", "participants", "estimate", "se", "z", "bound", "decision")},
                members=json.dumps(counted), probability=json.dumps(look["probability"]),
                created_at=datetime.now(timezone.utc)))
            taken.append(look)
            if look["decision"] != "continue":
                break
        return taken

    return db.write(study.engine, work)


def is_closed(study) -> bool:
    """Whether a look stopped recruiting.

    Parameters
    ----------
    study : humanlike.web.service.Study
        The study.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_closed.__name__
    'is_closed'
    """
    if not study.config.adaptive:
        return False
    with study.reader.connect() as conn:
        looks = stored_looks(conn)
    return bool(looks) and looks[-1]["decision"] != "continue"
