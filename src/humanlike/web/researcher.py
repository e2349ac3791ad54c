"""The researcher's page: progress, attention checks, and the analysis of the data as it stands, computed by the
package's own functions (:func:`humanlike.error_consistency` for classification, :func:`humanlike.analyse_mlds`
with its bootstrap for triads and quadruples), rendered on the server (HTML and one PNG figure).

Platform ids never appear here: participants are named by their pseudonym only.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sqlalchemy import func, select

from . import db
from .export import catch_failures, study_table
from .service import Study
from ..resampling.settings import ResamplingSettings

#: Bootstrap sizes of the live analysis (the page is recomputed whenever a response arrives).
EC_RESAMPLES = 1000
MLDS_BOOTSTRAP = 100
MAX_SCALES_IN_FIGURE = 9


@dataclass
class Analysis:
    """What the researcher page shows.

    Attributes
    ----------
    progress : dict
        ``started, finished, excluded, responses``.
    per_condition : pandas.DataFrame
        Responses (and accuracy) per experiment and condition, or per scale.
    catch : pandas.DataFrame
        Attention checks per participant (:func:`humanlike.web.export.catch_failures`).
    results : pandas.DataFrame or None
        Human-human error consistency with intervals, or the MLDS scales with their bootstrap band.
    figure : bytes or None
        The PNG figure of ``results``.
    notes : list of str
        Why something is not shown yet.

    Examples
    --------
    >>> Analysis({"started": 0, "finished": 0, "excluded": 0, "responses": 0}, pd.DataFrame(), pd.DataFrame()).figure
    """

    progress: dict
    per_condition: pd.DataFrame
    catch: pd.DataFrame
    results: pd.DataFrame | None = None
    figure: bytes | None = None
    notes: list[str] = field(default_factory=list)


def _progress(study: Study, excluded: set[str]) -> dict:
    with study.engine.connect() as conn:
        counts = dict(conn.execute(select(db.participants.c.status, func.count())
                                   .group_by(db.participants.c.status)).all())
        responses = conn.execute(select(func.count()).select_from(db.responses)).scalar_one()
    return {"started": int(sum(counts.values())), "finished": int(counts.get("finished", 0)),
            "excluded": len(excluded), "responses": int(responses)}


def _figure(draw) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = draw(plt)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _classification(study: Study, table: pd.DataFrame, out: Analysis) -> None:
    from ..measures.ec.analysis import error_consistency

    accuracy = table.groupby(["experiment", "condition"])["correct"].agg(["size", "mean"]).reset_index()
    out.per_condition = accuracy.rename(columns={"size": "responses", "mean": "accuracy"})
    if table["observer"].nunique() < 2:
        out.notes.append("Error consistency needs at least two participants with data.")
        return
    try:
        with np.errstate(invalid="ignore", divide="ignore"):   # pairs without shared trials: NaN, with a reason
            frame = error_consistency(table, settings=ResamplingSettings(n_resamples=EC_RESAMPLES, seed=study.config.seed)).summary_frame()
    except ValueError as err:   # e.g. no two participants have seen an item in the same condition yet
        out.notes.append(f"Error consistency is not defined yet: {err}")
        return
    ec = frame[(frame["group"] == "humans") & (frame["metric"] == "error_consistency")]
    out.results = ec[["scope", "kind", "estimate", "ci_low", "ci_high", "n_pairs", "reason"]].reset_index(drop=True)

    def draw(plt):
        fig, ax = plt.subplots(figsize=(5, 3))
        x = np.arange(len(out.results))
        est = out.results["estimate"].to_numpy(float)
        # drawn from the interval's ends: a percentile interval need not contain its estimate
        ax.vlines(x, out.results["ci_low"], out.results["ci_high"], lw=1.5)
        ax.plot(x, est, "o")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(x, out.results["scope"], rotation=30, ha="right")
        ax.set_ylabel("human-human error consistency")
        ax.set_title(f"{EC_RESAMPLES} bootstrap resamples, 95% intervals", fontsize=9)
        return fig

    out.figure = _figure(draw)


def _judgements(study: Study, table: pd.DataFrame, out: Analysis) -> None:
    from ..measures.mlds.analysis import analyse_mlds

    out.per_condition = table.groupby("scale").size().rename("responses").reset_index()
    pooled = table.assign(observer="all participants")
    results = []
    for scale_id, frame in pooled.groupby("scale"):
        if len(frame) < 2 * int(frame[["s1", "s2", "s3"]].max().max()):
            out.notes.append(f"scale {scale_id}: too few judgements yet ({len(frame)})")
            continue
        result = analyse_mlds(frame, settings=ResamplingSettings(n_resamples=MLDS_BOOTSTRAP, seed=study.config.seed))[0]
        if result.status != "ok":
            out.notes.append(f"scale {scale_id}: {result.reason}")
        results.append(result)
    if not results:
        return
    out.results = pd.concat([r.scale_table() for r in results], ignore_index=True)
    shown = results[:MAX_SCALES_IN_FIGURE]

    def draw(plt):
        cols = min(3, len(shown))
        rows = int(np.ceil(len(shown) / cols))
        fig, axes = plt.subplots(rows, cols, figsize=(3 * cols, 2.4 * rows), squeeze=False)
        for ax, result in zip(axes.flat, shown):
            levels = np.arange(1, result.n_levels + 1)
            ax.plot(levels, result.standard_scale, "o-", color="C0")
            band = result.intervals().get("standard_scale")
            if band is not None:
                ax.fill_between(levels, band[0], band[1], color="C0", alpha=0.25, lw=0)
            ax.set_title(result.scale_id, fontsize=8)
            ax.set_xlabel("level", fontsize=8)
        for ax in list(axes.flat)[len(shown):]:
            ax.axis("off")
        fig.suptitle(f"MLDS scales, {MLDS_BOOTSTRAP}-refit bootstrap band (95%)", fontsize=9)
        fig.tight_layout()
        return fig

    out.figure = _figure(draw)


def analyse(study: Study) -> Analysis:
    """Progress and the analysis so far, by the package's own functions.

    Parameters
    ----------
    study : humanlike.web.service.Study
        The prepared study.

    Returns
    -------
    Analysis

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> from humanlike.web.service import record_response, start_participant, state
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> for _ in range(3):
    ...     token = start_participant(study, {})
    ...     while not (now := state(study, token))["done"]:
    ...         _ = record_response(study, token, {"trial": now["trial"]["id"], "response": "right"})
    >>> analysis = analyse(study)
    >>> analysis.progress
    {'started': 3, 'finished': 3, 'excluded': 0, 'responses': 42}
    >>> analysis.per_condition.values.tolist()
    [['circle-cross-00', 12], ['circle-square-00', 12], ['cross-square-00', 12]]
    >>> analysis.results.columns[:4].tolist(), analysis.figure[:4]
    (['observer', 'scale_id', 'level', 'stimulus'], b'\x89PNG')
    >>> study.engine.dispose()
    """
    catch = catch_failures(study.engine, study.config)
    excluded = set(catch.loc[catch["excluded"], "observer"])
    out = Analysis(_progress(study, excluded), pd.DataFrame(), catch)
    table = study_table(study.engine, study.config, study.stimuli)
    if table.empty:
        out.notes.append("No responses to main trials yet.")
        return out
    if study.config.task == "classify":
        _classification(study, table, out)
    else:
        _judgements(study, table, out)
    return out


def _table(frame: pd.DataFrame | None, name: str) -> str:
    if frame is None or frame.empty:
        return '<p class="empty">none yet</p>'
    return frame.to_html(index=False, float_format=lambda v: f"{v:.3f}", classes="data", border=0,
                         na_rep="NaN").replace("<table", f'<table data-table="{name}"', 1)


def render_page(study: Study, analysis: Analysis, base: str) -> str:
    """The researcher page as one HTML document (its figure and export links need the login cookie, never a
    secret in the URL).

    Parameters
    ----------
    study : humanlike.web.service.Study
        The prepared study.
    analysis : Analysis
        :func:`analyse` of it.
    base : str
        The URL prefix the study is served under.

    Returns
    -------
    str

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.web.app import open_study
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> page = render_page(study, analyse(study), "")
    >>> "<h2>Progress</h2>" in page, "No responses to main trials yet." in page
    (True, True)
    >>> study.engine.dispose()
    """
    p = analysis.progress
    what = ("Human-human error consistency (humanlike.error_consistency)" if study.config.task == "classify"
            else "MLDS scales pooled over participants (humanlike.analyse_mlds)")
    figure = (f'<img src="{base}/researcher/figure.png" alt="analysis figure">'
              if analysis.figure else "")
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in analysis.notes)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(study.config.title)} \u2013 researcher</title>
<link rel="stylesheet" href="{base}/static/style.css"></head><body class="researcher">
<h1>{html.escape(study.config.title)}</h1>
<p>Task: <b>{study.config.task}</b>. The numbers below are recomputed from the database whenever a response arrives.</p>
<h2>Progress</h2>
<table class="data" data-table="progress"><tr><th>started</th><th>finished</th><th>excluded</th><th>responses</th></tr>
<tr><td>{p['started']}</td><td>{p['finished']}</td><td>{p['excluded']}</td><td>{p['responses']}</td></tr></table>
<h2>Responses per condition</h2>{_table(analysis.per_condition, "per-condition")}
<h2>Attention checks</h2><p>Participants failing more than {study.config.max_catch_failures} are excluded from
the analysis and the export.</p>{_table(analysis.catch, "catch")}
<h2>Analysis so far</h2><p>{what}</p>{figure}{_table(analysis.results, "results")}<ul>{notes}</ul>
<p><a href="{base}/researcher/export.csv">Download the table (CSV)</a> \u2013 without the
platform's ids; <code>humanlike export STUDY --include-platform-ids</code> adds them.</p>
</body></html>"""
