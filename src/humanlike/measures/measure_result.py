"""The one result base: :class:`MeasureResult`, from which every measure's result class derives, and the core
columns its tidy table starts with (:data:`LABEL_COLUMNS`, :data:`VALUE_COLUMNS`).

The base gives every result its estimates, replicates and intervals, the tidy frame, the JSON document, and
saving to one file and back; the file format itself (JSON plus numpy arrays, no pickle) is
:mod:`humanlike.measures.saved_results`. The entry a measure registers (:class:`~humanlike.measures.contract.Measure`)
is in :mod:`humanlike.measures.contract` (docs/architecture.md, docs/adding-a-measure.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np

from ..resampling.results import Resampled
from .saved_results import load_result, save_result

#: The columns every measure's tidy frame starts with (in this order, around the measure's own label columns).
LABEL_COLUMNS = ("measure", "scope", "group")
VALUE_COLUMNS = ("estimate", "ci_low", "ci_high", "undefined_share", "reason")
CORE_COLUMNS = LABEL_COLUMNS + VALUE_COLUMNS


class RegisteredName:
    """The ``measure`` of a result class: the name the entry of the folder defining the class registers.

    Examples
    --------
    >>> from humanlike.measures.dmc.result import DMCResult
    >>> DMCResult.measure
    'dmc'
    """

    def __get__(self, instance, owner) -> str:
        from .registry import name_of_folder   # the registry imports the contract, which imports this module

        return name_of_folder(owner.__module__)


class MeasureResult:
    """The one result shape: every measure's result class derives from it.

    A subclass says where its resampled values are (``resampled_field``, a
    :class:`~humanlike.resampling.results.Resampled`; the measure's name comes from its folder's entry); the
    base then gives

    - :attr:`estimate` (numpy array, one value per row of :meth:`to_frame`) and :attr:`replicates` (R x K),
    - :meth:`interval` at any level and by any method, without recomputing,
    - :meth:`to_frame`: the tidy table, the same core columns for every measure (``measure, scope, group``, the
      measure's other label columns, ``estimate, ci_low, ci_high, undefined_share, reason``, then the measure's
      extra columns from :meth:`frame_rows`),
    - :meth:`to_json_dict` (the measure's own JSON document; the base gives the tidy rows),
    - :meth:`save` / :meth:`load`: the whole result to one file and back, so that it can be reported again
      without recomputation.

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

    #: The measure's registered name: its folder's entry (``humanlike.measures.<folder>.measure``) names it, so the
    #: result class never spells it again (a subclass outside a measure folder may set a string).
    measure = RegisteredName()
    #: The attribute holding the :class:`~humanlike.resampling.results.Resampled` values.
    resampled_field: ClassVar[str] = "resampled"
    #: Label fields that play the part of ``scope`` and ``group`` where the result names them otherwise.
    scope_label: ClassVar[str] = "scope"
    group_label: ClassVar[str] = "group"

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
