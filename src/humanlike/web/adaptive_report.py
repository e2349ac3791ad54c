"""An adaptive study's looks as the export and the researcher page show them, and their offline recomputation
(docs/designs-that-decide.md).

``humanlike export STUDY`` writes ``adaptive.json`` beside ``trials.csv``: the settings, every look (its
participants by pseudonym, in the order they were counted, the estimate, interval, Z, bound and decision) and
why recruiting stopped. ``trials.csv`` carries each trial's ``probability`` (the inclusion probability it was
drawn with) and ``look`` (the look whose refit drew it; 0: the design file's). :func:`replay_adaptive_study`
recomputes every look from those files with the server's own function
(:func:`humanlike.web.adaptive.look_statistics`) and checks that the participants after each look were drawn
from its refit.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..measures.compare.discriminating import ItemDesign
from .adaptive import REPORT_NAME, closed_reason, look_statistics, stored_looks
from .adaptive_settings import planned_counts

#: A look's numbers as the export and the page show them.
LOOK_FIELDS = ("look", "participants", "estimate", "se", "ci_low", "ci_high", "z", "bound", "decision")


def _with_interval(look: dict) -> dict:
    """A stored look with its 95% interval (the table keeps the estimate and se)."""
    from scipy import stats

    half = None if look["se"] is None else float(stats.norm.ppf(0.975)) * look["se"]
    low = None if half is None or look["estimate"] is None else look["estimate"] - half
    high = None if half is None or look["estimate"] is None else look["estimate"] + half
    return {**look, "ci_low": low, "ci_high": high}


def adaptive_report(engine, config) -> dict:
    """What ``adaptive.json`` holds: the settings, the looks (members by pseudonym) and the stop.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        The study database.
    config : humanlike.web.config.StudyConfig
        The study (adaptive).

    Returns
    -------
    dict
        ``settings`` (with ``design_file`` and ``planned``), ``looks`` (:data:`LOOK_FIELDS` and ``members``, the
        pseudonyms added at that look), ``closed`` and ``reason``.

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web import db
    >>> from humanlike.web.config import StudyConfig
    >>> engine = db.make_engine(db.sqlite_url(Path(tempfile.mkdtemp()) / "s.sqlite"))
    >>> db.upgrade(engine)
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", design="discriminate", design_file="d.csv",
    ...                      trials_per_participant=4, adaptive={"batch": 5, "max_participants": 20})
    >>> report = adaptive_report(engine, config)
    >>> report["settings"]["planned"], report["looks"], report["closed"]
    ([5, 10, 15, 20], [], False)
    >>> engine.dispose()
    """
    from sqlalchemy import select

    from . import db

    with engine.connect() as conn:
        looks = stored_looks(conn)
        names = dict(conn.execute(select(db.participants.c.id, db.participants.c.pseudonym)).all())
    out, counted = [], []
    for look in looks:
        added = look["members"][len(counted):]
        counted = look["members"]
        # a withdrawn participant has no pseudonym any more: named so, so that a replay says why it differs
        out.append({**{k: _with_interval(look)[k] for k in LOOK_FIELDS},
                    "members": [names.get(pid, f"withdrawn-{pid}") for pid in added]})
    settings = {**config.adaptive, "design_file": config.design_file, "planned": planned_counts(config.adaptive)}
    return {"settings": settings, "looks": out, "closed": bool(looks) and looks[-1]["decision"] != "continue",
            "reason": closed_reason(looks, config.adaptive)}


def adaptive_summary(study) -> dict | None:
    """The researcher page's view of an adaptive study: its looks and whether (and why) recruiting stopped.

    Parameters
    ----------
    study : humanlike.web.service.Study
        The study.

    Returns
    -------
    dict or None
        :func:`adaptive_report` (None for a study that does not adapt).

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> adaptive_summary(study) is None
    True
    >>> study.engine.dispose()
    """
    if not study.config.adaptive:
        return None
    return adaptive_report(study.engine, study.config)


def replay_adaptive_study(folder) -> dict:
    """Recompute an adaptive study's looks from its export: ``trials.csv``, ``adaptive.json`` and the design file
    in ``folder``.

    Every look is recomputed from the responses of the participants ``adaptive.json`` lists for it, each trial
    weighted by the probability it was drawn with; the refit of each look that went on is compared with the
    probabilities the following participants' trials were drawn with.

    Parameters
    ----------
    folder : path
        The study folder after ``humanlike export STUDY`` (or any folder holding the three files).

    Returns
    -------
    dict
        ``looks`` (:data:`LOOK_FIELDS` of each), ``closed``, ``reason``: what the server decided, recomputed.

    Raises
    ------
    ValueError
        When a file is missing, a listed participant has no trials in the export (withdrawn, or excluded by
        the attention checks since), or a later look's trials were not drawn from the previous look's refit.

    Examples
    --------
    >>> import tempfile
    >>> replay_adaptive_study(tempfile.mkdtemp())   # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: .../adaptive.json is missing: export the study first (`humanlike export STUDY`)
    """
    folder = Path(folder)
    path = folder / REPORT_NAME
    if not path.is_file():
        raise ValueError(f"{path} is missing: export the study first (`humanlike export STUDY`)")
    report = json.loads(path.read_text(encoding="utf-8"))
    settings = {k: v for k, v in report["settings"].items() if k not in ("design_file", "planned")}
    design = replace(ItemDesign.read(folder / report["settings"]["design_file"]), floor=settings["floor"])
    trials = pd.read_csv(folder / "trials.csv", dtype={k: str for k in ("experiment", "condition", "item",
                                                                         "observer")})
    trials = trials[trials["item"].notna()]
    members, looks = [], []
    for stored in report["looks"]:
        members = members + stored["members"]
        missing = sorted(set(members) - set(trials["observer"]))
        if missing:
            raise ValueError(f"look {stored['look']}: participant(s) {missing} have no trials in the export "
                             "(withdrawn, or excluded by the attention checks): the look cannot be recomputed")
        look = look_statistics(design, trials, members, settings, stored["look"])
        drawn = trials[trials["look"] == stored["look"]]
        if len(drawn) and look["probability"]:
            index = pd.MultiIndex.from_frame(design.pool[["experiment", "condition", "item"]])
            where = index.get_indexer(pd.MultiIndex.from_frame(drawn[["experiment", "condition", "item"]]))
            if not np.allclose(np.asarray(look["probability"])[where], drawn["probability"], rtol=1e-9, atol=0):
                raise ValueError(f"the trials after look {stored['look']} were not drawn with its refit's "
                                 "probabilities")
        looks.append({k: look[k] for k in LOOK_FIELDS})
    return {"looks": looks, "closed": bool(looks) and looks[-1]["decision"] != "continue",
            "reason": closed_reason(looks, settings)}
