"""The researcher's page: progress, attention checks, and the analysis of the data as it stands.

The analyses are the report page's (``humanlike report``): every registered measure whose report takes the
study's table (:attr:`humanlike.measures.contract.Measure.report_input`: the trial table of a classification
study, the judgement table of a triad or quadruple study) computes its report section through the registry
(:func:`humanlike.app.report_sections.run_report_analyses`, :func:`humanlike.app.report_sections.build_sections`),
so a new measure appears here by registering, without an edit in ``web/``. The page is rendered on the server
(HTML, and each section's figures as PNG).

Platform ids never appear here: participants are named by their pseudonym only.
"""

from __future__ import annotations

import dataclasses
import html
import io
from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import func, select

from . import db
from .export import catch_failures, study_table
from .service import Study
from ..app.report import table_view
from ..app.report_sections import build_sections, run_report_analyses
from ..measures.registry import measures
from ..measures.sections import ReportSection
from ..resampling.settings import ResamplingSettings

#: Bootstrap resamples of every live analysis (the page is recomputed whenever a response arrives).
LIVE_RESAMPLES = 200
#: What each task's table is, as a measure's ``report_input`` names it.
TABLE_KIND = {"classify": "trials", "triads": "judgements", "quads": "judgements"}
#: The name the participants of a judgement study share on the page: each answers a few judgements per scale,
#: too few for a scale of their own, so the page pools them (``humanlike export`` keeps them apart).
POOLED_OBSERVER = "all participants"


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
    sections : list of humanlike.measures.sections.ReportSection
        The report sections of the measures that analyse the study's table, in registry order, their figures
        drawn as PNG bytes (:attr:`figures` in page order).
    figures : list of bytes
        The sections' figures as PNG, in page order (``/researcher/figure.png?n=K``).
    notes : list of str
        Why something is not shown yet (a measure that does not apply to these data, too few responses).

    Examples
    --------
    >>> Analysis({"started": 0, "finished": 0, "excluded": 0, "responses": 0}, pd.DataFrame(), pd.DataFrame()).figures
    []
    """

    progress: dict
    per_condition: pd.DataFrame
    catch: pd.DataFrame
    sections: list[ReportSection] = field(default_factory=list)
    figures: list[bytes] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def figure(self) -> bytes | None:
        """The page's first figure as PNG, None while there is none."""
        return self.figures[0] if self.figures else None


def _progress(study: Study, excluded: set[str]) -> dict:
    with study.engine.connect() as conn:
        counts = dict(conn.execute(select(db.participants.c.status, func.count())
                                   .group_by(db.participants.c.status)).all())
        responses = conn.execute(select(func.count()).select_from(db.responses)).scalar_one()
    return {"started": int(sum(counts.values())), "finished": int(counts.get("finished", 0)),
            "excluded": len(excluded), "responses": int(responses)}


def _png(figure) -> bytes:
    """A matplotlib figure as PNG bytes; closes it."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def _responses_per_condition(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    if kind == "trials":
        accuracy = table.groupby(["experiment", "condition"])["correct"].agg(["size", "mean"]).reset_index()
        return accuracy.rename(columns={"size": "responses", "mean": "accuracy"})
    return table.groupby("scale").size().rename("responses").reset_index()


def _measure_sections(study: Study, table: pd.DataFrame, kind: str, out: Analysis) -> None:
    """Every registered measure that analyses a table of this kind, as its report section."""
    import matplotlib

    matplotlib.use("Agg")   # a server draws without a display
    import matplotlib.pyplot as plt

    names = [m.name for m in measures() if m.report_input == kind and m.report_run is not None]
    data = table.assign(observer=POOLED_OBSERVER) if kind == "judgements" else table
    settings = ResamplingSettings(n_resamples=LIVE_RESAMPLES, seed=study.config.seed)
    results, notes = run_report_analyses({kind: data}, names, settings, exclusions=None)
    out.notes += notes
    sections, _ = build_sections(results)
    for section in sections:
        shown, notes = [], list(section.notes)
        for figure in section.figures:
            try:
                out.figures.append(_png(figure.figure))
            except Exception as err:   # noqa: BLE001 - as on the report page: a figure these data cannot draw is
                # left out with a note saying why, and the page is still written
                plt.close(figure.figure)
                notes.append(f"figure '{figure.title}' left out: these data cannot draw it "
                             f"({str(err) or type(err).__name__})")
                continue
            # the figure becomes its address below the researcher page (as the report's becomes an SVG URI)
            shown.append(dataclasses.replace(figure, figure=f"figure.png?n={len(out.figures) - 1}"))
        out.sections.append(dataclasses.replace(section, figures=shown, notes=notes))


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
    >>> [section.key for section in analysis.sections], analysis.figure[:4]
    (['difference-scaling'], b'\x89PNG')
    >>> study.engine.dispose()
    """
    catch = catch_failures(study.engine, study.config)
    excluded = set(catch.loc[catch["excluded"], "observer"])
    out = Analysis(_progress(study, excluded), pd.DataFrame(), catch)
    table = study_table(study.engine, study.config, study.stimuli)
    if table.empty:
        out.notes.append("No responses to main trials yet.")
        return out
    kind = TABLE_KIND[study.config.task]
    out.per_condition = _responses_per_condition(table, kind)
    _measure_sections(study, table, kind, out)
    return out


def _table(frame: pd.DataFrame | None, name: str) -> str:
    if frame is None or frame.empty:
        return '<p class="empty">none yet</p>'
    return frame.to_html(index=False, float_format=lambda v: f"{v:.3f}", classes="data", border=0,
                         na_rep="NaN").replace("<table", f'<table data-table="{name}"', 1)


def _report_table(table) -> str:
    """A section's table as the report page shows it: each interval in one cell, "estimate [low, high]"."""
    if table.frame.empty:
        return ""
    headers, rows = table_view(table)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(shown)}{(' ' + html.escape(interval)) if interval else ''}"
                                    "</td>" for shown, _, _, _, _, interval in row) + "</tr>" for row in rows)
    caption = f"<p>{html.escape(table.caption)}</p>" if table.caption else ""
    return (f'<h4>{html.escape(table.title)}</h4><table class="data" data-table="{html.escape(table.key)}">'
            f"<tr>{head}</tr>{body}</table>{caption}")


def _section(section: ReportSection, base: str) -> str:
    """One measure's report section: summary, figures, tables, the choices in force and its notes."""
    figures = "".join(f'<figure><img src="{base}/researcher/{figure.figure}" alt="{html.escape(figure.alt)}">'
                      f"<figcaption>{html.escape(figure.title)}. {html.escape(figure.caption)}</figcaption></figure>"
                      for figure in section.figures)
    tables = "".join(_report_table(table) for table in section.tables)
    methods = "".join(f"<dt>{html.escape(str(name))}</dt><dd>{html.escape(str(value))}</dd>"
                      for name, value in section.methods.items())
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in section.notes)
    return (f'<section data-section="{html.escape(section.key)}"><h3>{html.escape(section.title)}</h3>'
            f"<p>{html.escape(section.summary)}</p>{figures}{tables}"
            f"{f'<dl>{methods}</dl>' if methods else ''}{f'<ul>{notes}</ul>' if notes else ''}</section>")


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
    what = ("The report page's analyses of the table as it stands (<code>humanlike report</code>), "
            f"{LIVE_RESAMPLES} bootstrap resamples each"
            + (f"; the participants pooled as '{POOLED_OBSERVER}'" if TABLE_KIND[study.config.task] == "judgements"
               else "") + ".")
    sections = "".join(_section(section, base) for section in analysis.sections)
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
<h2>Analysis so far</h2><p>{what}</p>{sections}<ul>{notes}</ul>
<p><a href="{base}/researcher/export.csv">Download the table (CSV)</a> \u2013 without the
platform's ids; <code>humanlike export STUDY --include-platform-ids</code> adds them.</p>
</body></html>"""
