"""The one result base: :class:`MeasureResult`, from which every measure's result class derives, and the core
columns its tidy table starts with (:data:`LABEL_COLUMNS`, :data:`VALUE_COLUMNS`).

The base gives every result its estimates, replicates and intervals, the tidy frame, the JSON document, and
saving to one file and back; the file format itself (JSON plus numpy arrays, no pickle) is
:mod:`humanlike.measures.saved_results`. The entry a measure registers (:class:`~humanlike.measures.contract.Measure`)
is in :mod:`humanlike.measures.contract` (docs/architecture.md, docs/adding-a-measure.md).
"""

from __future__ import annotations

import html
import importlib
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..resampling.results import Resampled
from .saved_results import load_result, save_result

#: The columns every measure's tidy frame starts with (in this order, around the measure's own label columns).
LABEL_COLUMNS = ("measure", "scope", "group")
VALUE_COLUMNS = ("estimate", "ci_low", "ci_high", "undefined_share", "reason")
CORE_COLUMNS = LABEL_COLUMNS + VALUE_COLUMNS
#: The longest ``repr`` of a result (a notebook cell or a terminal shows it whole): the summary is cut there.
REPR_CHARS = 2000
#: Rows the generic summary and the notebook table show before pointing to :meth:`MeasureResult.to_frame`.
SUMMARY_ROWS = 15


class MeasureResult:
    """The one result shape: every measure's result class derives from it.

    A subclass names the measure (``measure = "ec"``) and where its resampled values are (``resampled_field``, a
    :class:`~humanlike.resampling.results.Resampled`); the base then gives

    - :attr:`estimate` (numpy array, one value per row of :meth:`to_frame`) and :attr:`replicates` (R x K),
    - :meth:`interval` at any level and by any method, without recomputing,
    - :meth:`to_frame`: the tidy table, the same core columns for every measure (``measure, scope, group``, the
      measure's other label columns, ``estimate, ci_low, ci_high, undefined_share, reason``, then the measure's
      extra columns from :meth:`frame_rows`),
    - :meth:`to_json_dict` (the measure's own JSON document; the base gives the tidy rows),
    - :meth:`save` / :meth:`load`: the whole result to one file and back, so that it can be reported again
      without recomputation,
    - :meth:`summary`: what was measured, the headline numbers with their intervals and the settings, as text
      (what the measure's command prints); ``repr`` shows it cut to :data:`REPR_CHARS` characters, and a
      notebook shows :meth:`_repr_html_`, a small table of the same rows.

    A subclass that is a dataclass declares ``repr=False`` so that the summary, not a dump of its arrays, is
    its ``repr`` (the common test checks every registered measure's result).

    Wide tables that users read (one column per statistic) are separate methods (``to_wide``), never
    ``to_frame``.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = error_consistency(simulate_benchmark(seed=0, n_humans=3, n_items=24), experiments=["sim-blur"],
    ...                            settings=ResamplingSettings(n_resamples=20))
    >>> list(result.to_frame().columns[:3]), result.to_frame()["measure"].iloc[0]
    (['measure', 'scope', 'group'], 'ec')
    """

    measure: ClassVar[str] = ""
    #: The attribute holding the :class:`~humanlike.resampling.results.Resampled` values.
    resampled_field: ClassVar[str] = "resampled"
    #: Label fields that play the part of ``scope`` and ``group`` where the result names them otherwise.
    scope_label: ClassVar[str] = "scope"
    group_label: ClassVar[str] = "group"
    #: ``"module:function"`` turning the result into the text its command prints, or None for the generic
    #: summary of the headline rows (:meth:`summary`).
    text_formatter: ClassVar[str | None] = None

    def resampled_values(self) -> Resampled:
        """The :class:`~humanlike.resampling.results.Resampled` behind the tidy frame.

        Returns
        -------
        Resampled
            The values named by :attr:`resampled_field` (empty where the result has none).
        """
        values = getattr(self, self.resampled_field)
        if values is None:
            return Resampled(np.zeros(0), np.zeros((0, 0)), [], ("scope", "group"))
        return values

    @property
    def estimate(self) -> np.ndarray:
        """Point estimates, one per row of :meth:`to_frame`."""
        return self.resampled_values().estimate

    @property
    def replicates(self) -> np.ndarray:
        """The kept bootstrap replicates (resamples x rows of :meth:`to_frame`); NaN where undefined."""
        return self.resampled_values().replicates

    def interval(self, level: float | None = None, method: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of every row of :meth:`to_frame`, at ``level`` by ``method`` (``"percentile"``/``"bca"``).

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the result's.
        method : {"percentile", "bca"}, optional
            ``"bca"`` needs the jackknife rows kept; defaults to the result's.

        Returns
        -------
        (low, high) : tuple of numpy.ndarray
            NaN where undefined.
        """
        return self.resampled_values().interval(level, method)

    def frame_rows(self, level: float | None = None, method: str | None = None):
        """The measure's rows before :meth:`to_frame` puts the core columns first: by default the
        :class:`~humanlike.resampling.results.Resampled` table (label columns, estimate, ci_low, ci_high,
        undefined_share, reason); a measure overrides it to add columns (counts, the interval's name, ...).

        Parameters
        ----------
        level : float, optional
            Confidence level of ``ci_low``/``ci_high`` (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        pandas.DataFrame
            One row per estimate.
        """
        return self.resampled_values().to_frame(level, method)

    def to_frame(self, level: float | None = None, method: str | None = None):
        """The tidy table: one row per estimate, the core columns first (the same for every measure).

        Parameters
        ----------
        level : float, optional
            Confidence level of ``ci_low``/``ci_high`` (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        pandas.DataFrame
            Columns :data:`LABEL_COLUMNS`, the measure's other label columns, :data:`VALUE_COLUMNS`, then extras.
        """
        frame = self.frame_rows(level, method).copy()
        renames = {}
        if self.scope_label != "scope" and self.scope_label in frame and "scope" not in frame:
            renames[self.scope_label] = "scope"
        if self.group_label != "group" and self.group_label in frame and "group" not in frame:
            renames[self.group_label] = "group"
        frame = frame.rename(columns=renames)
        frame.insert(0, "measure", self.measure)
        for name in ("scope", "group"):
            if name not in frame:
                frame[name] = ""
        label_names = [renames.get(c, c) for c in self.resampled_values().label_names]
        labels = [c for c in label_names if c in frame and c not in CORE_COLUMNS]
        extras = [c for c in frame.columns if c not in CORE_COLUMNS and c not in labels]
        return frame[[*LABEL_COLUMNS, *labels, *VALUE_COLUMNS, *extras]].reset_index(drop=True)

    def to_json_dict(self) -> dict:
        """JSON-ready dict: the measure, the interval in force and the tidy rows (measures have their own).

        Returns
        -------
        dict
            Keys measure, settings, level, interval, n_resamples, rows.
        """
        values = self.resampled_values()
        return {"measure": self.measure, **values.to_json_dict(), "rows": _records(self.to_frame())}

    def save(self, path: str | Path) -> Path:
        """Write the whole result to one file (a zip: ``result.json`` and ``arrays.npz``), atomically.

        Everything is kept: estimates, replicates, jackknife rows, tables and settings, so :meth:`load` gives a
        result that reports, and computes intervals at any level, exactly as this one does. No pickle: the
        file holds JSON and numpy arrays only (:func:`humanlike.measures.saved_results.save_result`).

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write (conventionally ``*.humanlike.zip``).

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return save_result(self, path)

    @classmethod
    def load(cls, path: str | Path) -> MeasureResult:
        """Read a result written by :meth:`save` (:func:`humanlike.measures.saved_results.load_result`).

        Parameters
        ----------
        path : str or pathlib.Path
            A file written by :meth:`save`.

        Returns
        -------
        MeasureResult
            The result, of the class that was saved (called on a subclass, it must be that class).

        Raises
        ------
        ValueError
            For a file that is not a saved humanlike result, or a result of another class.
        """
        return load_result(path, cls)


    def headline(self):
        """The rows a reader looks at first: the ``overall`` scope where the result has one, else every row.

        Returns
        -------
        pandas.DataFrame
            :meth:`to_frame`'s rows of the headline scope.
        """
        frame = self.to_frame()
        if "scope" in frame and (frame["scope"] == "overall").any():
            frame = frame[frame["scope"] == "overall"]
        return frame.reset_index(drop=True)

    def _title(self) -> str:
        from .registry import measures

        titles = {entry.name: entry.title for entry in measures()}
        return titles.get(self.measure, self.measure or type(self).__name__)

    def _settings_line(self) -> str:
        values = self.resampled_values()
        settings = dict(values.settings)
        parts = [f"{settings['n_resamples']} resamples" if "n_resamples" in settings else "",
                 f"{round(values.level * 100, 4):g}% {values.method} interval",
                 f"observer level {settings['observer_level']}" if settings.get("observer_level") else "",
                 f"seed {settings['seed']}" if "seed" in settings else ""]
        return "settings: " + ", ".join(p for p in parts if p)

    def _label_columns(self, frame) -> list[str]:
        value_start = list(frame.columns).index("estimate")
        return [c for c in frame.columns[:value_start] if c not in ("measure", "scope") and
                frame[c].astype(str).str.len().gt(0).any()]

    def summary(self) -> str:
        """What was measured, the headline numbers with their intervals, and the settings, as text.

        The measure's own text where it has one (:attr:`text_formatter`: what its command prints), else the
        headline rows (:meth:`headline`), at most :data:`SUMMARY_ROWS` of them.

        Returns
        -------
        str
            Lines of text; ``repr(result)`` is this text, cut to :data:`REPR_CHARS` characters.

        Examples
        --------
        >>> from humanlike.measures.shapebias.analysis import shape_bias_analysis
        >>> from humanlike.measures.shapebias.measure import simulate
        >>> from humanlike.resampling.settings import ResamplingSettings
        >>> example = simulate(0)
        >>> result = shape_bias_analysis(example.data, settings=ResamplingSettings(n_resamples=50, seed=0))
        >>> result.summary() == repr(result)[len("<ShapeBiasResult> "):]
        True
        """
        if self.text_formatter is not None:
            module, _, function = self.text_formatter.partition(":")
            return getattr(importlib.import_module(module), function)(self)
        frame = self.headline()
        labels = self._label_columns(frame)
        values = self.resampled_values()
        lines = [f"{self._title()}: estimate [{round(values.level * 100, 4):g}% interval]", self._settings_line()]
        for row in frame.head(SUMMARY_ROWS).itertuples(index=False):
            record = row._asdict()
            name = " ".join(str(record[c]) for c in labels if str(record[c]))
            lines.append(f"  {name:<32} {_interval_text(record)}")
        if len(frame) > SUMMARY_ROWS:
            lines.append(f"  ... {len(frame) - SUMMARY_ROWS} more rows: result.to_frame()")
        return "\n".join(lines)

    def __repr__(self) -> str:
        text = self.summary()
        if len(text) > REPR_CHARS:
            text = text[:REPR_CHARS - 40].rsplit("\n", 1)[0] + "\n  ... (result.summary() has the rest)"
        return f"<{type(self).__name__}> {text}"

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        """A small HTML table of the headline rows (what Jupyter shows for a result).

        Returns
        -------
        str
            An HTML ``<table>`` with a caption naming the measure and the settings, every cell escaped.
        """
        frame = self.headline()
        labels = self._label_columns(frame)
        values = self.resampled_values()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in labels)
        head += f"<th>estimate [{round(values.level * 100, 4):g}% interval]</th><th>note</th>"
        rows = []
        for row in frame.head(SUMMARY_ROWS).itertuples(index=False):
            record = row._asdict()
            cells = "".join(f"<td>{html.escape(str(record[c]))}</td>" for c in labels)
            cells += f"<td>{html.escape(_interval_text(record))}</td><td>{html.escape(str(record['reason']))}</td>"
            rows.append(f"<tr>{cells}</tr>")
        more = (f"<p>{len(frame) - SUMMARY_ROWS} more rows: <code>result.to_frame()</code></p>"
                if len(frame) > SUMMARY_ROWS else "")
        caption = f"{html.escape(self._title())} ({html.escape(self._settings_line())})"
        return (f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>{more}")


def _interval_text(record: dict) -> str:
    estimate, low, high = (record.get(k) for k in ("estimate", "ci_low", "ci_high"))
    if estimate is None or not np.isfinite(estimate):
        return "undefined"
    if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)):
        return f"{estimate:.3f}"
    return f"{estimate:.3f} [{low:.3f}, {high:.3f}]"


def _records(frame) -> list[dict]:
    out = []
    for row in frame.to_dict(orient="records"):
        out.append({k: _plain(v) for k, v in row.items()})
    return out


def _plain(value):
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value
