"""Study data as the package's tables: the trial table (classification, docs/formats.md#the-trial-table) and
the difference-judgement table (triads/quads, docs/formats.md#the-difference-judgement-table).

Only main trials are exported (practice and catch trials are not data); observers carry their pseudonym.
The platform's ids are personal data: they are joined in only when asked for (``include_platform_ids``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
from sqlalchemy import select

from . import db
from .config import StudyConfig, load_config, study_paths
from .design import physical_response

#: Columns of the exported judgement table beyond the required ones (the Psychophysical-Score reads these).
JUDGEMENT_EXTRA = ("observer_kind", "class_a", "class_b")
#: A text cell starting with one of these is run as a formula by a spreadsheet (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _safe_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell that a spreadsheet would run as a formula escaped by a leading ``'``
    (cells starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return); numbers, and text that is a
    number (``-0.5``), are left as they are.

    Parameters
    ----------
    table : pandas.DataFrame
        A table about to be written as CSV.

    Returns
    -------
    pandas.DataFrame
        A copy, text cells escaped.

    Examples
    --------
    >>> table = pd.DataFrame({"platform_PROLIFIC_PID": ["=1+2", "@SUM(A1)", "5f0c"],
    ...                       "condition": ["-10", "+3", "-x"], "rt": [-0.25, 0.5, 1.0]})
    >>> spreadsheet_safe(table).values.tolist()
    [["'=1+2", '-10', -0.25], ["'@SUM(A1)", '+3', 0.5], ['5f0c', "'-x", 1.0]]
    """
    out = table.copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]) and not pd.api.types.is_bool_dtype(out[column]):
            out[column] = out[column].map(_safe_cell)
    return out


def _rows(engine) -> pd.DataFrame:
    query = (select(db.participants.c.pseudonym.label("observer"), db.participants.c.id.label("participant_id"),
                    db.trials.c.position, db.trials.c.kind, db.trials.c.spec, db.responses.c.response,
                    db.responses.c.correct, db.responses.c.rt_ms, db.responses.c.stimulus_ms,
                    db.responses.c.frames, db.responses.c.refresh_hz)
             .select_from(db.responses.join(db.trials, db.responses.c.trial_id == db.trials.c.id)
                          .join(db.participants, db.responses.c.participant_id == db.participants.c.id))
             .order_by(db.participants.c.id, db.trials.c.position))
    with engine.connect() as conn:
        return pd.DataFrame(conn.execute(query).mappings().all(),
                            columns=["observer", "participant_id", "position", "kind", "spec", "response", "correct",
                                     "rt_ms", "stimulus_ms", "frames", "refresh_hz"])


def catch_failures(engine, config: StudyConfig) -> pd.DataFrame:
    """Attention checks per participant.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.
    config : StudyConfig
        The study (``max_catch_failures``).

    Returns
    -------
    pandas.DataFrame
        ``observer, catch_trials, failures, excluded`` (observers by pseudonym).

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> def take_part(choose):
    ...     token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    ...     while not (now := state(study, token))["done"]:
    ...         record_response(study, token, {"trial": now["trial"]["id"], "response": choose(now["trial"])})
    >>> take_part(lambda trial: trial["options"][0])     # fails the attention check unless asked for "circle"
    >>> catch_failures(study.engine, study.config)[["catch_trials", "failures", "excluded"]].values.tolist()
    [[1, 1, True]]
    >>> study.engine.dispose()
    """
    rows = _rows(engine)
    catch = rows[rows["kind"] == "catch"]
    table = (catch.groupby("observer")["correct"].agg(catch_trials="size", failures=lambda c: int((~c.astype(bool)).sum()))
             .reset_index())
    table["excluded"] = table["failures"] > config.max_catch_failures
    return table


def _excluded_observers(engine, config: StudyConfig) -> set[str]:
    """Pseudonyms of participants who failed more attention checks than ``max_catch_failures``."""
    table = catch_failures(engine, config)
    return set(table.loc[table["excluded"], "observer"])


def _platform(engine) -> pd.DataFrame:
    """The platform's ids and the completion code of each participant (to check a code a participant gave)."""
    from sqlalchemy import inspect, literal

    # a database last served by a version without completion codes is read as it is (an export never migrates)
    has_codes = "completion_code" in {c["name"] for c in inspect(engine).get_columns("participants")}
    code = db.participants.c.completion_code if has_codes else literal(None)
    query = select(db.participants.c.pseudonym.label("observer"), db.platform_ids.c.params,
                   code.label("completion_code")).select_from(
        db.participants.outerjoin(db.platform_ids, db.platform_ids.c.participant_id == db.participants.c.id))
    with engine.connect() as conn:
        records = [{"observer": r.observer, "completion_code": r.completion_code,
                    **{f"platform_{k}": v for k, v in json.loads(r.params or "{}").items()}}
                   for r in conn.execute(query)]
    return pd.DataFrame(records, columns=["observer"] if not records else None)


def trial_table(engine, config: StudyConfig, *, include_platform_ids: bool = False,
                keep_excluded: bool = False) -> pd.DataFrame:
    """The classification responses as a trial table (one row per main trial answered).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.
    config : StudyConfig
        The study.
    include_platform_ids : bool
        Add the platform's ids (personal data) as ``platform_*`` columns.
    keep_excluded : bool
        Keep participants who failed more attention checks than ``max_catch_failures``.

    Returns
    -------
    pandas.DataFrame
        The trial table (docs/formats.md#the-trial-table) with ``trial``, ``rt`` (seconds), ``stimulus_ms`` (the
        measured duration) and ``refresh_hz``; ``repeat`` when items are repeated.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> def take_part(choose):
    ...     token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    ...     while not (now := state(study, token))["done"]:
    ...         record_response(study, token, {"trial": now["trial"]["id"], "response": choose(now["trial"])})
    >>> take_part(lambda trial: trial["options"][0])
    >>> table = trial_table(study.engine, study.config, keep_excluded=True)
    >>> len(table), table.columns[:8].tolist()
    (12, ['observer', 'observer_kind', 'experiment', 'condition', 'item', 'label', 'response', 'correct'])
    >>> study.engine.dispose()
    """
    rows = _rows(engine)
    rows = rows[rows["kind"] == "main"]
    if not keep_excluded:
        rows = rows[~rows["observer"].isin(_excluded_observers(engine, config))]
    info = [json.loads(spec)["info"] for spec in rows["spec"]]
    table = pd.DataFrame({
        "observer": rows["observer"].to_numpy(), "observer_kind": "human",
        "experiment": [i["experiment"] for i in info], "condition": [str(i["condition"]) for i in info],
        "item": [i["item"] for i in info], "label": [i["label"] for i in info],
        "response": rows["response"].to_numpy(), "correct": rows["correct"].astype(bool).to_numpy(),
        "trial": rows["position"].astype(int).to_numpy() + 1, "rt": rows["rt_ms"].astype(float).to_numpy() / 1000.0,
        "stimulus_ms": rows["stimulus_ms"].astype(float).to_numpy(),
        "refresh_hz": rows["refresh_hz"].astype(float).to_numpy(),
    })
    if config.repeats > 1:
        table.insert(table.columns.get_loc("trial"), "repeat", [int(i["repeat"]) for i in info])
    for key in ("probability", "look"):   # design discriminate: each trial's inclusion probability (and look)
        if info and key in info[0]:
            table[key] = [i.get(key) for i in info]
    return _with_platform(table, engine, include_platform_ids)


def judgement_table(engine, config: StudyConfig, *, include_platform_ids: bool = False,
                    keep_excluded: bool = False, levels: dict | None = None) -> pd.DataFrame:
    """The triad/quadruple responses as a difference-judgement table, in physical order.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.
    config : StudyConfig
        The study.
    include_platform_ids, keep_excluded : bool
        As in :func:`trial_table`.
    levels : dict, optional
        (sequence, level) -> stimulus value (the blend's alpha), written as ``v1..v4``.

    Returns
    -------
    pandas.DataFrame
        The difference-judgement table (docs/formats.md#the-difference-judgement-table): ``observer, scale,
        s1..s4, response, session, trial, rt``, the values, and ``observer_kind, class_a, class_b`` (what the
        Psychophysical-Score reads).

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> def take_part(choose):
    ...     token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    ...     while not (now := state(study, token))["done"]:
    ...         record_response(study, token, {"trial": now["trial"]["id"], "response": choose(now["trial"])})
    >>> take_part(lambda trial: "left")
    >>> table = judgement_table(study.engine, study.config, keep_excluded=True)
    >>> len(table), table.columns[:7].tolist(), bool((table["s1"] < table["s2"]).all())
    (12, ['observer', 'scale', 's1', 's2', 's3', 's4', 'response'], True)
    >>> study.engine.dispose()
    """
    rows = _rows(engine)
    rows = rows[rows["kind"] == "main"]
    if not keep_excluded:
        rows = rows[~rows["observer"].isin(_excluded_observers(engine, config))]
    info = [json.loads(spec)["info"] for spec in rows["spec"]]
    quad = config.task == "quads"
    s = np.array([i["levels"] + ([] if quad else [0]) for i in info], dtype=np.int64).reshape(-1, 4)
    table = pd.DataFrame({"observer": rows["observer"].to_numpy(), "scale": [i["sequence"] for i in info]})
    for k in range(4):
        table[f"s{k + 1}"] = pd.array(s[:, k], dtype="Int64") if (quad or k < 3) else pd.array([pd.NA] * len(s), dtype="Int64")
    table["response"] = [physical_response(r, i["swapped"]) for r, i in zip(rows["response"], info)]
    table["session"] = rows["observer"].to_numpy()
    table["trial"] = rows["position"].astype(int).to_numpy() + 1
    table["rt"] = rows["rt_ms"].astype(float).to_numpy() / 1000.0
    if levels:
        for k in range(4 if quad else 3):
            table[f"v{k + 1}"] = [levels.get((i["sequence"], i["levels"][k]), np.nan) for i in info]
    table["observer_kind"] = "human"
    table["class_a"] = [i["class_a"] for i in info]
    table["class_b"] = [i["class_b"] for i in info]
    return _with_platform(table, engine, include_platform_ids)


def _with_platform(table: pd.DataFrame, engine, include: bool) -> pd.DataFrame:
    if not include:
        return table.reset_index(drop=True)
    return table.merge(_platform(engine), on="observer", how="left")


def _stimulus_levels(stimuli: pd.DataFrame | None) -> dict | None:
    """(sequence, level) -> alpha of a sequence study's stimuli."""
    if stimuli is None or "alpha" not in stimuli:
        return None
    return {(str(s), int(lv)): float(a) for s, lv, a in stimuli[["sequence", "level", "alpha"]].itertuples(index=False)}


def study_table(engine, config: StudyConfig, stimuli: pd.DataFrame | None = None, **options) -> pd.DataFrame:
    """The task's table: the trial table (classify) or the difference-judgement table (triads, quads).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.
    config : StudyConfig
        The study.
    stimuli : pandas.DataFrame, optional
        The study's stimuli (their blend values become ``v1..v4`` of a judgement table).
    **options
        ``include_platform_ids``, ``keep_excluded``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> def take_part(choose):
    ...     token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    ...     while not (now := state(study, token))["done"]:
    ...         record_response(study, token, {"trial": now["trial"]["id"], "response": choose(now["trial"])})
    >>> take_part(lambda trial: "right")
    >>> study_table(study.engine, study.config, study.stimuli, keep_excluded=True)[["v1", "v2", "v3"]].notna().all().all()
    np.True_
    >>> study.engine.dispose()
    """
    if config.task == "classify":
        return trial_table(engine, config, **options)
    return judgement_table(engine, config, levels=_stimulus_levels(stimuli), **options)


def read_study(source, *, include_platform_ids: bool = False, keep_excluded: bool = False) -> pd.DataFrame:
    """The data of a study as the package's table, read from its folder or its database URL.

    Parameters
    ----------
    source : path or str
        A study folder (with ``study.toml``; its database is ``study.sqlite`` inside it) or a database URL
        (``sqlite:///...``, ``postgresql://...``).
    include_platform_ids : bool
        Join the platform's ids (personal data) as ``platform_*`` columns.
    keep_excluded : bool
        Keep participants who failed more attention checks than the study allows.

    Returns
    -------
    pandas.DataFrame
        The trial table (classification) or the difference-judgement table (triads, quads); its
        ``attrs["study_design"]`` is the study's :func:`humanlike.web.design_report.design_report`.

    Raises
    ------
    ValueError
        For a folder or database without a study, or a study without answered main trials.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> def take_part(choose):
    ...     token = start_participant(study, {"PROLIFIC_PID": "5f0c0ffee"})
    ...     while not (now := state(study, token))["done"]:
    ...         record_response(study, token, {"trial": now["trial"]["id"], "response": choose(now["trial"])})
    >>> take_part(lambda trial: "left")
    >>> table = read_study(study.folder, keep_excluded=True)
    >>> table["observer"].nunique(), "platform_PROLIFIC_PID" in table, table.attrs["study_design"]["design"]
    (1, False, 'subset')
    >>> read_study(study.folder, include_platform_ids=True, keep_excluded=True)["platform_PROLIFIC_PID"].unique().tolist()
    ['5f0c0ffee']
    >>> study.engine.dispose()
    """
    from sqlalchemy import inspect
    from sqlalchemy.exc import SQLAlchemyError

    if db.is_database_url(str(source)):
        url = str(source)
    else:
        folder = Path(source)
        config_file = load_config(folder)      # checks the folder is a study
        del config_file
        database = study_paths(folder)["database"]
        if not database.is_file():
            raise ValueError(f"{folder}: the study has no data yet ({database.name} is missing; start it with "
                             f"`humanlike serve {folder}`, or give its --db URL)")
        url = db.sqlite_url(database)
    stimuli = None
    try:
        engine = db.make_engine(url)
    except SQLAlchemyError as err:
        raise db.unreadable(url, err) from None
    try:
        if "study_meta" not in inspect(engine).get_table_names():
            raise ValueError(f"{source}: the database holds no humanlike study")
        from .service import stored_config

        config = stored_config(engine)
        if config.task != "classify":
            with engine.connect() as conn:
                known = conn.execute(select(db.study_meta.c.value).where(db.study_meta.c.key == "levels")).first()
            if known is not None:
                stimuli = pd.DataFrame(json.loads(known[0]), columns=["sequence", "level", "alpha"])
        table = study_table(engine, config, stimuli, include_platform_ids=include_platform_ids,
                            keep_excluded=keep_excluded)
        adaptive = None
        if config.adaptive:
            from .adaptive_report import adaptive_report

            adaptive = adaptive_report(engine, config)
        if table.empty and not keep_excluded and not study_table(engine, config, stimuli, keep_excluded=True).empty:
            # answers exist, but the attention checks excluded everyone who gave them (a dry run's random bots)
            raise ValueError(f"{source}: every participant who answered failed more attention checks than "
                             f"max_catch_failures = {config.max_catch_failures} allows and is excluded; "
                             "`humanlike export --keep-excluded` keeps them")
    except SQLAlchemyError as err:     # corrupt, unreachable, refused: one line naming the database
        raise db.unreadable(url, err) from None
    finally:
        engine.dispose()
    if table.empty:
        raise ValueError(f"{source}: the study has no answered main trials yet")
    from .design_report import design_report

    # what the analyses read to choose per-participant or pooled fits, and what `export` writes as design.json
    table.attrs["study_design"] = design_report(table, config.design, config.trials_per_participant)
    if adaptive is not None:
        table.attrs["adaptive"] = adaptive     # what `export` writes as adaptive.json
    return table

