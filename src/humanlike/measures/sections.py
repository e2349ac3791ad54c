"""The report page's building blocks that measures fill: tables, figures, sections and headline columns.

A measure's report section (``measures/<name>/report.py``) builds a :class:`SectionResult` from its result;
:mod:`humanlike.app.report` renders the sections into one page. Section builders only read the results' public
tables (``to_frame`` and the like); they compute nothing statistical.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

class NotApplicable(ValueError):
    """The data do not carry what a measure needs (e.g. no model has decision margins): the report leaves the
    measure out and says so in a note. Any other error of a measure's report analysis is shown in its section.

    Examples
    --------
    >>> str(NotApplicable("no model has decision margins"))
    'no model has decision margins'
    """


#: The headline table's row of the human–human value (the ceiling).
HUMAN_ROW = "humans"


@dataclass
class ReportTable:
    """A table of the report: a tidy frame shown as a sortable HTML table.

    Parameters
    ----------
    key : str
        Names the table in the page (``data-table`` attribute) so tests and readers can find it.
    title : str
        Heading shown above the table.
    frame : pandas.DataFrame
        The rows, shown as they are (column names as headers).
    caption : str
        Text below the table (the heading is not repeated there).
    digits : int
        Decimals shown for floats (the exact values stay in ``data-value``).
    intervals : dict or None
        ``{column: (low column, high column)}``: the column's cell shows "estimate [low, high]" and the bound
        columns are not shown apart (their values stay in the cell's ``data-low`` and ``data-high``). None: found
        from the column names (:func:`interval_columns`).

    Examples
    --------
    >>> import pandas as pd
    >>> table = ReportTable("ec", "Error consistency", pd.DataFrame({"observer": ["a"], "estimate": [0.25]}))
    >>> table.key, table.digits, len(table.frame)
    ('ec', 3, 1)
    """

    key: str
    title: str
    frame: pd.DataFrame
    caption: str = ""
    digits: int = 3
    intervals: dict[str, tuple[str, str]] | None = None


def interval_columns(columns) -> dict[str, tuple[str, str]]:
    """Which columns hold an interval's bounds, by the names the measures' tables use.

    ``x`` with ``x_low``/``x_high``, ``x_ci_low``/``x_ci_high`` or ``x low``/``x high``; and ``ci_low``/``ci_high``
    belong to the first of ``estimate``, ``difference`` or ``score`` present.

    Parameters
    ----------
    columns : sequence of str
        A table's column names.

    Returns
    -------
    dict
        ``{column: (low column, high column)}``.

    Examples
    --------
    >>> interval_columns(["observer", "estimate", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "n"])
    {'rank': ('rank_low', 'rank_high'), 'estimate': ('ci_low', 'ci_high')}
    >>> interval_columns(["EC", "EC low", "EC high", "rho", "rho_ci_low", "rho_ci_high"])
    {'EC': ('EC low', 'EC high'), 'rho': ('rho_ci_low', 'rho_ci_high')}
    """
    names = [str(c) for c in columns]
    present = set(names)
    found: dict[str, tuple[str, str]] = {}
    for name in names:
        for low, high in ((f"{name}_low", f"{name}_high"), (f"{name}_ci_low", f"{name}_ci_high"),
                          (f"{name} low", f"{name} high")):
            if low in present and high in present:
                found[name] = (low, high)
                break
    owner = next((n for n in ("estimate", "difference", "score") if n in present and n not in found), None)
    if owner is not None and {"ci_low", "ci_high"} <= present:
        found[owner] = ("ci_low", "ci_high")
    return found


@dataclass
class ReportFigure:
    """A figure of the report: a matplotlib figure embedded as SVG, with its alt text and caption.

    Parameters
    ----------
    key : str
        Names the figure in the page.
    title : str
        Heading shown above the figure.
    figure : matplotlib.figure.Figure
        Rendered to an inline SVG (and closed) when the page is rendered.
    alt : str
        Alternative text of the image.
    caption : str
        Text below the figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> item = ReportFigure("ranking", "Ranking", fig, alt="models ranked by EC")
    >>> item.alt, item.caption
    ('models ranked by EC', '')
    >>> plt.close(fig)
    """

    key: str
    title: str
    figure: object
    alt: str
    caption: str = ""


@dataclass
class ReportSection:
    """One analysis: what it measures, its headline numbers, tables, figures and the choices in force.

    Parameters
    ----------
    key : str
        Anchor id of the section.
    title : str
        Section heading.
    summary : str
        One paragraph: what the analysis measures and its headline result.
    tables : list of ReportTable
        Tables in page order.
    figures : list of ReportFigure
        Figures in page order.
    methods : dict
        The choices in force (name -> value), shown as a definition list.
    notes : list of str
        Caveats shown below the section.

    Examples
    --------
    >>> section = ReportSection("mlds", "Difference scaling", "One scale per observer.")
    >>> section.tables, section.methods
    ([], {})
    """

    key: str
    title: str
    summary: str
    tables: list[ReportTable] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    methods: dict[str, object] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class HeadlineMeasure:
    """One measure's column group in the headline table: per observer (models and ``humans``) the overall
    estimate with its interval.

    Parameters
    ----------
    name : str
        Column name of the measure in the headline table (e.g. ``"EC"``).
    values : pandas.DataFrame
        Columns ``observer, estimate, ci_low, ci_high``; the row ``humans`` is the human–human value.
    higher_is_better : bool
        The direction the headline sorts in when this measure orders it (the first measure of the page's first
        section with headline measures: the leaderboard's mean rank, lower first, where it was computed).
    key : bool
        Shown in the headline table; False: a component a reader finds in the measure's own section (the
        leaderboard's accuracy difference and observed consistency), so the headline fits a screen.

    Examples
    --------
    >>> import pandas as pd
    >>> m = HeadlineMeasure("EC", pd.DataFrame({"observer": ["humans", "m"], "estimate": [0.4, 0.2],
    ...                                         "ci_low": [0.3, 0.1], "ci_high": [0.5, 0.3]}))
    >>> m.name, list(m.values["observer"])
    ('EC', ['humans', 'm'])
    """

    name: str
    values: pd.DataFrame  # columns: observer, estimate, ci_low, ci_high
    higher_is_better: bool = True
    key: bool = True


@dataclass
class SectionResult:
    """One analysis' contribution to the report: its section and its rows of the headline table.

    Parameters
    ----------
    section : ReportSection
        The analysis' section of the page.
    headline : list of HeadlineMeasure
        Its measures for the headline table (empty when the analysis ranks no models).
    more_sections : list of ReportSection
        Further sections of the same result, shown right after :attr:`section` (error consistency's leaderboard).

    Examples
    --------
    >>> made = SectionResult(ReportSection("x", "X", "A summary."))
    >>> made.section.key, made.headline, made.more_sections
    ('x', [], [])
    """

    section: ReportSection
    headline: list[HeadlineMeasure] = field(default_factory=list)
    more_sections: list[ReportSection] = field(default_factory=list)


def settings_text(settings: dict) -> dict[str, object]:
    """The choices in force that a section's methods list shows (resamples, level, interval, seed, ...).

    Parameters
    ----------
    settings : dict
        A result's settings.

    Returns
    -------
    dict
        The entries of ``settings`` a reader needs to repeat the numbers.

    Examples
    --------
    >>> settings_text({"n_resamples": 200, "seed": 3, "memory_budget": 2**31})
    {'n_resamples': 200, 'seed': 3}
    """
    keep = ("n_resamples", "level", "interval", "observer_level", "seed", "policy", "exclusions", "experiments")
    return {k: settings[k] for k in keep if k in settings}


def not_computed_section(key: str, title: str, reason: str) -> ReportSection:
    """The section of an analysis that could not be computed: it says why, on the page.

    Parameters
    ----------
    key, title : str
        The section's anchor and heading.
    reason : str
        Why it could not be computed (the analysis' error message).

    Returns
    -------
    ReportSection
        A section with no tables and the reason as its summary and note.

    Examples
    --------
    >>> not_computed_section("ood-spectrum", "OOD spectrum", "no reference condition").summary
    'Not computed: no reference condition'
    """
    return ReportSection(key, title, f"Not computed: {reason}", notes=[f"{title} could not be computed: {reason}"])


def figure_axes(ax=None, shape: tuple[int, int] | None = None, **subplots_options):
    """The figure and axes a plot function draws into: the caller's ``ax`` (to place the plot in a figure of
    their own), or a new figure made by ``matplotlib.pyplot.subplots``.

    Every plot function of the measures takes ``ax=`` and passes it here, so that a notebook user can draw into
    their own axes; it returns the figure holding them.

    Parameters
    ----------
    ax : matplotlib Axes, sequence of Axes, or None
        None: a new figure. One Axes where the plot has one panel; where it has several (``shape``), as many
        Axes as panels, in row order (a list, a tuple or an array of any shape).
    shape : (int, int), optional
        Rows and columns of panels; None: one panel.
    **subplots_options
        Passed to ``pyplot.subplots`` for a new figure (``figsize``, ``squeeze``, ``gridspec_kw``, ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
        The new figure, or the figure of the caller's axes.
    axes : Axes or numpy.ndarray of Axes
        One Axes for one panel; else an array of ``shape`` (or as ``pyplot.subplots`` gives it, when new).

    Raises
    ------
    ValueError
        When the caller gives a number of axes other than the panels.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, mine = plt.subplots(1, 3)
    >>> figure_axes(mine[1])[1] is mine[1]
    True
    >>> figure_axes(mine[:2], (1, 2))[1].shape, figure_axes(mine[:2], (1, 2), squeeze=False)[1].shape
    ((2,), (1, 2))
    >>> figure_axes(mine, (1, 2))
    Traceback (most recent call last):
        ...
    ValueError: this plot has 1 x 2 panels: give 2 axes (ax=), not 3
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt
    import numpy as np

    if ax is None:
        return plt.subplots(*(shape or ()), **subplots_options)
    rows, columns = shape or (1, 1)
    given = np.asarray(ax, dtype=object).ravel()
    if given.size != rows * columns:
        raise ValueError(f"this plot has {rows} x {columns} panels: give {rows * columns} axes (ax=), "
                         f"not {given.size}")
    if shape is None:
        return given[0].figure, given[0]
    grid = given.reshape(rows, columns)
    if not subplots_options.get("squeeze", True):
        return grid[0, 0].figure, grid
    return grid[0, 0].figure, (grid.ravel() if 1 in (rows, columns) else grid)
