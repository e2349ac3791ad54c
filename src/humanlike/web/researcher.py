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
import io
from dataclasses import dataclass, field
from pathlib import Path

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

#: The page's template (jinja2, autoescaped).
TEMPLATES = Path(__file__).parent / "templates"

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
    adaptive: dict | None = None     # an adaptive study's looks (humanlike.web.adaptive_report)

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
    from .adaptive_report import adaptive_summary

    out.adaptive = adaptive_summary(study)
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


def _table_rows(table) -> dict:
    """A section's table as the report page shows it: each interval in one cell, "estimate [low, high]"."""
    headers, rows = table_view(table)
    return {"key": table.key, "title": table.title, "caption": table.caption, "headers": headers,
            "rows": [[(shown, interval) for shown, _, _, _, _, interval in row] for row in rows]}


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
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    # autoescaped: every title, label and note a study or a measure supplies is text, never markup
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
    sections = [{"key": s.key, "title": s.title, "summary": s.summary, "figures": s.figures,
                 "tables": [_table_rows(t) for t in s.tables if not t.frame.empty], "methods": s.methods,
                 "notes": s.notes} for s in analysis.sections]
    return env.get_template("researcher.html").render(
        title=study.config.title, task=study.config.task, base=base, progress=analysis.progress,
        per_condition=Markup(_table(analysis.per_condition, "per-condition")),   # pandas escapes the cells
        catch=Markup(_table(analysis.catch, "catch")), max_catch_failures=study.config.max_catch_failures,
        resamples=LIVE_RESAMPLES,
        pooled_observer=POOLED_OBSERVER if TABLE_KIND[study.config.task] == "judgements" else "",
        sections=sections, notes=analysis.notes, adaptive=analysis.adaptive)
