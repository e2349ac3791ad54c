"""Design ``adaptive`` (triads, quads): each participant's judgements chosen from the current pooled MLDS fit.

A participant who starts when ``n`` participants have finished gets the trials of fit *generation*
``g = n // refit_every``. Generation 0 (fewer than ``refit_every`` finished) is the ``pooled`` design: the
participant's block of the study order. Generation ``g >= 1`` is the pooled maximum-likelihood scale of every
sequence (:func:`humanlike.measures.mlds.fit.fit_mlds`, probit) fitted to the main judgements of the first
``g * refit_every`` participants to finish (in order of finishing; participants who failed more attention checks
than ``max_catch_failures`` left out, as the export leaves them out), and the participant's
``trials_per_participant`` distinct judgements are those that most reduce the variance of the standard scales
given everything answered so far (:func:`humanlike.measures.mlds.adaptive.choose_trials`: expected Fisher
information, greedy with rank-one updates, a 20% random floor; all random where a sequence's fit is not
identified yet), from the stream ``stream(seed, "adaptive-mlds", "slot", slot, "generation", g)``.

Each generation's fit is computed once, by the first participant start that needs it, and stored in the study
database (``study_meta`` key ``adaptive-mlds/G``: the scales, the judgement counts it was fitted to, and the
participants' pseudonyms); every later start, in any worker process, plans from the stored one. On PostgreSQL
the computing start holds a transaction-scoped advisory lock on the generation, so concurrent workers wait for
it and then read it instead of fitting it twice (SQLite's writers are serialised anyway). The analysis of the
export is the usual pooled MLDS fit (``humanlike mlds STUDY``): the likelihood of adaptively chosen trials is
that of a fixed design (docs/designs-that-decide.md).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from sqlalchemy import func, insert, select

from ..measures.mlds.adaptive import choose_trials
from ..measures.mlds.fit import fit_mlds
from . import db
from .config import StudyConfig
from .design import judgement_trials, physical_response

#: The first key of the PostgreSQL advisory lock held while a generation's fit is computed (the second is it).
FIT_LOCK = 30_5109
#: ``study_meta`` keys of the stored fits.
FIT_PREFIX = "adaptive-mlds/"


def generation(finished: int, config: StudyConfig) -> int:
    """The fit generation a participant starting now gets: completed participants // ``refit_every``.

    Parameters
    ----------
    finished : int
        Participants who finished so far.
    config : StudyConfig
        The study (``refit_every``).

    Returns
    -------
    int
        0 before the first refit (the pooled random design).

    Examples
    --------
    >>> config = StudyConfig(title="t", task="triads", stimuli=".", design="adaptive", trials_per_participant=5,
    ...                      refit_every=4)
    >>> [generation(n, config) for n in (0, 3, 4, 9)]
    [0, 0, 1, 2]
    """
    return finished // config.refit_every


def pooled_judgements(conn, config: StudyConfig, participant_ids: list[int]) -> pd.DataFrame:
    """The main judgements of some participants as a difference-judgement table (those who failed more
    attention checks than ``max_catch_failures`` left out).

    Parameters
    ----------
    conn : sqlalchemy.engine.Connection
        An open connection to the study database.
    config : StudyConfig
        The study.
    participant_ids : list of int
        The participants (database ids).

    Returns
    -------
    pandas.DataFrame
        ``observer, scale, s1..s4, response`` in physical order (``s4`` missing for triads).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> token = start_participant(study, {})
    >>> while not (now := state(study, token))["done"]:
    ...     _ = record_response(study, token, {"trial": now["trial"]["id"], "response": "left"})
    >>> with study.engine.connect() as conn:                 # "left" failed the attention check: left out
    ...     len(pooled_judgements(conn, study.config, [1])), len(pooled_judgements(conn, study.config.__class__(
    ...         **{**study.config.__dict__, "max_catch_failures": 1}), [1]))
    (0, 12)
    >>> study.engine.dispose()
    """
    rows = conn.execute(
        select(db.participants.c.pseudonym, db.trials.c.kind, db.trials.c.spec, db.responses.c.response,
               db.responses.c.correct)
        .select_from(db.responses.join(db.trials, db.responses.c.trial_id == db.trials.c.id)
                     .join(db.participants, db.responses.c.participant_id == db.participants.c.id))
        .where(db.participants.c.id.in_(participant_ids))
        .order_by(db.participants.c.id, db.trials.c.position)).all()
    failures: dict[str, int] = {}
    for row in rows:
        if row.kind == "catch" and not row.correct:
            failures[row.pseudonym] = failures.get(row.pseudonym, 0) + 1
    records = []
    for row in rows:
        if row.kind != "main" or failures.get(row.pseudonym, 0) > config.max_catch_failures:
            continue
        info = json.loads(row.spec)["info"]
        levels = list(info["levels"]) + [pd.NA] * (4 - len(info["levels"]))
        records.append({"observer": row.pseudonym, "scale": info["sequence"],
                        **{f"s{k + 1}": v for k, v in enumerate(levels)},
                        "response": physical_response(row.response, info["swapped"])})
    table = pd.DataFrame(records, columns=["observer", "scale", "s1", "s2", "s3", "s4", "response"])
    return table.astype({f"s{k}": "Int64" for k in range(1, 5)})


def pooled_fit(table: pd.DataFrame, top: dict[str, int]) -> dict:
    """Every sequence's pooled scale (psi / sigma, psi_1 = 0) and the judgement counts it was fitted to.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`pooled_judgements`.
    top : dict
        Sequence -> its number of levels.

    Returns
    -------
    dict
        ``scales`` (sequence -> list, or None where the fit is not ``ok``: not identified, separated, reversed),
        ``status`` (sequence -> the fit's status), ``reasons`` (why a status is not ``ok``) and ``counts``
        (sequence -> [[levels..., count], ...]).

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 5) ** 2, 0.1, design="triad", repeats=3, seed=0)
    >>> fit = pooled_fit(table.assign(scale="s"), {"s": 5, "t": 5})
    >>> fit["status"], len(fit["scales"]["s"]), fit["scales"]["t"], fit["counts"]["s"][0]
    ({'s': 'ok', 't': 'no judgements'}, 5, None, [1, 2, 3, 3])
    """
    scales, status, reasons, counts = {}, {}, {}, {}
    for sequence, n_levels in sorted(top.items()):
        rows = table[table["scale"].astype(str) == sequence]
        reasons[sequence] = ""
        if rows.empty:
            scales[sequence], status[sequence], counts[sequence] = None, "no judgements", []
            continue
        columns = ["s1", "s2", "s3"] + (["s4"] if rows["s4"].notna().any() else [])
        counted = rows[columns].astype(int).value_counts().sort_index()
        counts[sequence] = [[*map(int, levels), int(n)] for levels, n in counted.items()]
        try:
            fit = fit_mlds(rows, n_levels=n_levels)
            scales[sequence] = fit.scale.tolist() if fit.status == "ok" else None
            status[sequence], reasons[sequence] = fit.status, fit.reason
        except ValueError as err:          # a level without judgements yet: not identified
            scales[sequence], status[sequence], reasons[sequence] = None, "not_identified", str(err)
    return {"scales": scales, "status": status, "reasons": reasons, "counts": counts}


def current_fit(conn, config: StudyConfig, top: dict[str, int]) -> dict | None:
    """The stored fit of the generation a participant starting now gets, computed and stored if it is the first
    start that needs it; None in generation 0.

    Parameters
    ----------
    conn : sqlalchemy.engine.Connection
        The participant start's write transaction.
    config : StudyConfig
        The study (design ``adaptive``).
    top : dict
        Sequence -> its number of levels.

    Returns
    -------
    dict or None
        :func:`pooled_fit` with ``generation`` and ``participants`` (pseudonyms, in order of finishing).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> with study.engine.begin() as conn:                   # nobody has finished: generation 0, no fit
    ...     current_fit(conn, study.config, study.design[1]) is None
    True
    >>> study.engine.dispose()
    """
    finished = conn.execute(select(func.count()).select_from(db.participants)
                            .where(db.participants.c.status == "finished")).scalar_one()
    g = generation(finished, config)
    if g == 0:
        return None
    key = f"{FIT_PREFIX}{g}"
    if conn.dialect.name != "sqlite":     # a concurrent start computing this generation: wait, then read its fit
        conn.execute(select(func.pg_advisory_xact_lock(FIT_LOCK, g)))
    stored = conn.execute(select(db.study_meta.c.value).where(db.study_meta.c.key == key)).scalar_one_or_none()
    if stored is not None:
        return json.loads(stored)
    first = conn.execute(select(db.participants.c.id, db.participants.c.pseudonym)
                         .where(db.participants.c.status == "finished")
                         .order_by(db.participants.c.finished_at, db.participants.c.id)
                         .limit(g * config.refit_every)).all()
    fit = pooled_fit(pooled_judgements(conn, config, [row.id for row in first]), top)
    fit.update(generation=g, participants=[row.pseudonym for row in first])
    conn.execute(insert(db.study_meta).values(key=key, value=json.dumps(fit)))
    return fit


def adaptive_trials(conn, stimuli: pd.DataFrame, config: StudyConfig, slot: int, index) -> list:
    """The trial list of participant ``slot`` of an adaptive study, planned from the current fit.

    Parameters
    ----------
    conn : sqlalchemy.engine.Connection
        The participant start's write transaction.
    stimuli : pandas.DataFrame
        The study's stimuli.
    config : StudyConfig
        The study (design ``adaptive``).
    slot : int
        The participant's design slot.
    index : tuple
        :func:`humanlike.web.design.design_index` of the stimuli.

    Returns
    -------
    list of humanlike.web.design.PlannedTrial
        As :func:`humanlike.web.design.judgement_trials`, the main judgements chosen from the fit.

    Examples
    --------
    >>> import dataclasses, tempfile
    >>> from pathlib import Path
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> config = dataclasses.replace(study.config, design="adaptive", trials_per_participant=6)
    >>> with study.engine.begin() as conn:                   # generation 0: the pooled design's block
    ...     trials = adaptive_trials(conn, study.stimuli, config, 1, study.design)
    >>> [t.kind for t in trials].count("main")
    6
    >>> study.engine.dispose()
    """
    top, units = index[1], index[3]
    fit = current_fit(conn, config, top)
    if fit is None:                                   # generation 0: the pooled design's block
        return judgement_trials(stimuli, config, slot, index)
    scales = {s: None if v is None else np.asarray(v, float) for s, v in fit["scales"].items()}
    observed = {s: np.repeat(np.array([c[:-1] for c in counts], dtype=np.int64).reshape(len(counts), -1),
                             [c[-1] for c in counts], axis=0) for s, counts in fit["counts"].items() if counts}
    n = min(config.trials_per_participant, len(units))
    choice = choose_trials(scales, units, n, observed=observed, seed=config.seed,
                           key=("slot", slot, "generation", fit["generation"]))
    return judgement_trials(stimuli, config, slot, index, chosen=[units[int(i)] for i in choice.indices])


def stored_fits(engine) -> list[dict]:
    """Every stored generation's fit, in generation order (what the participants' lists were planned from).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.

    Returns
    -------
    list of dict
        :func:`current_fit`'s records.

    Examples
    --------
    >>> import tempfile, tomllib, tomli_w
    >>> from pathlib import Path
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> folder = make_demo(Path(tempfile.mkdtemp()))["triads"]
    >>> raw = tomllib.loads((folder / "study.toml").read_text())
    >>> raw.update(design="adaptive", trials_per_participant=6, refit_every=1, catch_trials=0)
    >>> _ = (folder / "study.toml").write_text(tomli_w.dumps(raw))
    >>> study = open_study(folder)
    >>> for _ in range(2):
    ...     token = start_participant(study, {})
    ...     while not (now := state(study, token))["done"]:
    ...         _ = record_response(study, token, {"trial": now["trial"]["id"], "response": "left"})
    >>> [(fit["generation"], len(fit["participants"]), sorted(set(fit["status"].values()))) for fit in stored_fits(study.engine)]
    [(1, 1, ['not_identified'])]
    >>> study.engine.dispose()
    """
    with engine.connect() as conn:
        rows = conn.execute(select(db.study_meta.c.value)
                            .where(db.study_meta.c.key.like(f"{FIT_PREFIX}%"))).scalars().all()
    return sorted((json.loads(value) for value in rows), key=lambda fit: fit["generation"])
