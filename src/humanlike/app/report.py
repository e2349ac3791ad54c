"""One self-contained HTML report: every analysis of a data set on one page a person can open, forward and print.

The page is rendered from a Jinja2 template shipped with the package (``templates/report.html.j2``). It has no
external reference of any kind: styles and the small table-sorting script are inline, figures are embedded as
SVG data, so it opens offline from a file or an e-mail attachment. Sections are built by the registered measures
(each measure's ``report.py``, from the blocks of :mod:`humanlike.measures.sections`) and assembled by
:mod:`humanlike.app.report_sections`; this module only knows tables, figures and text.
"""

from __future__ import annotations

import base64
import hashlib
import io
import math
import platform
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ..files import atomic_write_text
from ..measures.sections import ReportSection, ReportTable  # the blocks a page is made of (kept here too)

TEMPLATE = "report.html.j2"


def _figure_svg(figure) -> str:
    """A matplotlib figure as a base64 SVG data URI (fonts as paths: no external font is needed); closes it.
    A URI already made (:func:`_drawn_figures`) passes through."""
    if isinstance(figure, str):
        return figure
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "humanlike"}):
        # No creation date in the SVG: the same run gives the same page, byte for byte.
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    import matplotlib.pyplot as plt

    plt.close(figure)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _drawn_figures(sections) -> list:
    """The sections with every figure drawn; a figure these data cannot draw (no finite value, a degenerate
    layout) is left out with a note in its section saying why, so that the page is still written."""
    import dataclasses

    import matplotlib.pyplot as plt

    out = []
    for section in sections:
        figures, notes = [], list(section.notes)
        for figure in section.figures:
            try:
                figures.append(dataclasses.replace(figure, figure=_figure_svg(figure.figure)))
            except Exception as err:   # noqa: BLE001 - drawing only presents numbers already computed: whatever
                # matplotlib raises on degenerate data (NaN limits, an arrow of NaN ends: StopIteration), the page
                # is still written and says which figure is missing and why
                plt.close(figure.figure)
                notes.append(f"figure '{figure.title}' left out: these data cannot draw it "
                             f"({str(err) or type(err).__name__})")
        out.append(dataclasses.replace(section, figures=figures, notes=notes))
    return out


def format_cell(value, digits: int) -> tuple[str, str]:
    """(shown text, sort/exact value) of one table cell.

    Parameters
    ----------
    value : object
        The cell's value; None, NaN, pandas.NA and infinities show as a dash with an empty exact value.
    digits : int
        Decimals shown for floats.

    Returns
    -------
    tuple of str
        ``(shown, exact)``: the text shown and the value used for sorting (the full ``repr`` of a float).

    Examples
    --------
    >>> format_cell(0.123456, 2), format_cell(12345, 2), format_cell(True, 2), format_cell(float("nan"), 2)
    (('0.12', '0.123456'), ('12,345', '12345'), ('yes', '1'), ('–', ''))
    """
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "–", ""
    if isinstance(value, (bool, np.bool_)):
        return ("yes" if value else "no"), str(int(bool(value)))
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}", str(int(value))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            return "–", ""
        return f"{float(value):.{digits}f}", repr(float(value))
    return str(value), str(value)


#: Columns holding ranks or places (``rank``, ``rank_low``, ``mean rank``, ``place_high``, ...): printed as
#: integers where they are whole (a mean of ranks, or tied ranks, keeps two decimals).
RANK_COLUMN = re.compile(r"(^|[ _])(rank|place)([ _]|$)")


def rank_cell(value) -> tuple[str, str] | None:
    """(shown, exact) of a rank: a whole number as an integer, else two decimals; None where not a number.

    Parameters
    ----------
    value : object
        A rank, place or mean rank (tied or averaged ranks are not whole).

    Returns
    -------
    tuple of str or None
        ``(shown, exact)`` as :func:`format_cell` gives them; None for anything but a finite number.

    Examples
    --------
    >>> rank_cell(2.0), rank_cell(2.3333), rank_cell(3), rank_cell(float("nan")), rank_cell("a")
    (('2', '2.0'), ('2.33', '2.3333'), ('3', '3'), None, None)
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}", str(int(value))
    number = float(value)
    if not math.isfinite(number):
        return None
    shown = f"{int(round(number)):,}" if abs(number - round(number)) < 1e-9 else f"{number:.2f}"
    return shown, repr(number)


def _cell(value, column: str, digits: int) -> tuple[str, str]:
    """(shown, exact) of one cell of ``column``: ranks as integers (:func:`rank_cell`), the rest by
    :func:`format_cell`."""
    if RANK_COLUMN.search(column):
        ranked = rank_cell(value)
        if ranked is not None:
            return ranked
    return format_cell(value, digits)


def table_view(table: ReportTable) -> tuple[list[str], list[list[tuple[str, str, bool, str, str, str]]]]:
    """The headers and rows a table shows: each interval in one cell, "estimate [low, high]".

    Parameters
    ----------
    table : ReportTable
        The table; its ``intervals`` (or, when None, :func:`humanlike.measures.sections.interval_columns`) say
        which columns hold which column's bounds.

    Returns
    -------
    tuple
        ``(headers, rows)``; each cell is ``(shown, exact, numeric, low, high, interval)``: the text shown, the
        value used for sorting, whether it is a number, the exact bounds and the interval's text ``[low, high]``
        shown after the estimate (the last three empty without an interval).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"observer": ["a"], "estimate": [0.5], "ci_low": [0.25], "ci_high": [0.75],
    ...                       "rank": [1.0]})
    >>> headers, rows = table_view(ReportTable("t", "T", frame, digits=2))
    >>> headers
    ['observer', 'estimate', 'rank']
    >>> rows[0][1], rows[0][2][:2]
    (('0.50', '0.5', True, '0.25', '0.75', '[0.25, 0.75]'), ('1', '1.0'))
    """
    from ..measures.sections import interval_columns

    columns = [str(c) for c in table.frame.columns]
    intervals = interval_columns(columns) if table.intervals is None else dict(table.intervals)
    bounds = {b for pair in intervals.values() for b in pair}
    shown_columns = [c for c in columns if c not in bounds]
    rows = []
    for record in table.frame.itertuples(index=False, name=None):
        values = dict(zip(columns, record))
        cells = []
        for column in shown_columns:
            value = values[column]
            shown, exact = _cell(value, column, table.digits)
            numeric = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
            low = high = interval = ""
            if column in intervals and exact != "":
                (low_text, low), (high_text, high) = (_cell(values[b], column, table.digits)
                                                      for b in intervals[column])
                if low != "" or high != "":
                    interval = f"[{low_text}, {high_text}]"
            cells.append((shown, exact, numeric, low, high, interval))
        rows.append(cells)
    return shown_columns, rows


def content_hash(paths: Sequence[Path | str]) -> dict:
    """Provenance of input files or folders: their paths, file count, bytes and a SHA-256 over all contents.

    Parameters
    ----------
    paths : sequence of path-like
        Files, or folders (every file below them, sorted, is read).

    Returns
    -------
    dict
        ``paths`` (as given), ``n_files``, ``bytes`` and ``sha256`` (over each file's name and content
        hash, so renaming or editing any file changes it).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.csv").write_text("x\\n1\\n")
    >>> info = content_hash([folder])
    >>> info["n_files"], info["bytes"], len(info["sha256"])
    (1, 4, 64)
    """
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p])
    digest = hashlib.sha256()
    total = 0
    for f in files:
        data = f.read_bytes()
        total += len(data)
        digest.update(str(f.name).encode() + b"\0" + hashlib.sha256(data).digest())
    return {"paths": [str(p) for p in paths], "n_files": len(files), "bytes": total, "sha256": digest.hexdigest()}


def _slug(text: str) -> str:
    """A lower-case, hyphenated id for ``text`` (used for anchors); ``"section"`` when nothing is left."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "section"


def resamples_by_section(sections: Sequence[ReportSection]) -> dict[str, object]:
    """The bootstrap resamples each section used, by section title (from its "choices in force").

    A page shows these rather than one number: a measure may use fewer than asked (the demo caps the OOD
    spectrum at 1,000 and the Psychophysical-Score at 200).

    Parameters
    ----------
    sections : sequence of ReportSection
        The page's sections.

    Returns
    -------
    dict
        ``{section title: n_resamples}`` of the sections that state them.

    Examples
    --------
    >>> resamples_by_section([ReportSection("a", "A", "", methods={"n_resamples": 200}),
    ...                       ReportSection("b", "B", "")])
    {'A': 200}
    """
    return {s.title: s.methods["n_resamples"] for s in sections
            if s.methods.get("n_resamples") not in (None, "")}


def _shown_settings(settings: dict, sections: Sequence[ReportSection]) -> dict:
    """The page's settings, with the resamples asked for and those each section used (never one number)."""
    used = resamples_by_section(sections)
    if "n_resamples" not in settings or not used:
        return dict(settings)
    shown = {}
    for name, value in settings.items():
        if name == "n_resamples":
            shown["n_resamples asked"] = value
            shown["n_resamples used"] = "; ".join(
                f"{title}: {n:,}" if isinstance(n, (int, np.integer)) else f"{title}: {n}"
                for title, n in used.items())
        else:
            shown[name] = value
    return shown


def render_report(sections: Sequence[ReportSection], *, title: str, headline: ReportTable | None,
                  provenance: dict, settings: dict, command: str = "", version: str | None = None) -> str:
    """The report's HTML text.

    Parameters
    ----------
    sections : sequence of ReportSection
        One per analysis, in page order.
    title : str
        The page title.
    headline : ReportTable or None
        The headline table (models ranked by each measure, with intervals and the human ceiling).
    provenance : dict
        Inputs (files, trial counts, content hash).
    settings : dict
        Settings in force (seed, resamples, interval, policy, exclusions, ...).
    command : str
        The command line that reruns the report.
    version : str, optional
        Package version (default: the installed humanlike's).

    Returns
    -------
    str
        A complete, self-contained HTML document.

    Examples
    --------
    >>> import pandas as pd
    >>> table = ReportTable("t", "A table", pd.DataFrame({"observer": ["a"], "estimate": [0.5]}))
    >>> html = render_report([ReportSection("ec", "Error consistency", "EC.", tables=[table])],
    ...                      title="Demo", headline=None, provenance={}, settings={"seed": 0}, version="0")
    >>> html.startswith("<!DOCTYPE html>"), 'data-table="t"' in html
    (True, True)
    """
    import jinja2

    if version is None:
        from .. import __version__ as version
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("humanlike.app", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]), undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True)
    env.filters["svg"] = _figure_svg
    env.filters["view"] = table_view
    env.filters["slug"] = _slug
    template = env.get_template(TEMPLATE)
    return template.render(
        title=title, sections=_drawn_figures(sections), headline=headline, provenance=provenance,
        settings=_shown_settings(settings, sections),
        command=command, version=version, python=platform.python_version(),
        created=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


def write_report(html: str, path: Path | str) -> Path:
    """Write the report atomically; the folder is created if needed.

    Parameters
    ----------
    html : str
        The page (:func:`render_report`).
    path : path-like
        The file to write (not a folder).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    IsADirectoryError
        When ``path`` is an existing folder.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = write_report("<html></html>", Path(tempfile.mkdtemp()) / "out" / "report.html")
    >>> path.name, path.read_text()
    ('report.html', '<html></html>')
    """
    path = Path(path)
    if path.exists() and path.is_dir():
        raise IsADirectoryError(f"--out {path} is a folder; give a file name such as {path / 'report.html'}")
    return atomic_write_text(path, html)
