"""What a measure is: the :class:`Measure` entry every measure folder registers, and :class:`MeasureResult`, the
one result shape every measure's result shares.

A measure folder (``humanlike/measures/<name>/``) holds the measure's metric, kernel, analysis, result, command
line, figures and report section, and registers one :class:`Measure` in its ``measure.py``
(:mod:`humanlike.measures.registry` finds it). The command line, the demo and the report page reach a measure
only through that entry (docs/architecture.md, docs/adding-a-measure.md).

An entry names its parts by dotted path (``"humanlike.measures.ec.cli:register"``) and imports them on first use,
so building the ``humanlike`` parser imports no analysis, no scipy and no matplotlib.
"""

from __future__ import annotations

import importlib
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..resampling.results import Resampled

#: The columns every measure's tidy frame starts with (in this order, around the measure's own label columns).
LABEL_COLUMNS = ("measure", "scope", "group")
VALUE_COLUMNS = ("estimate", "ci_low", "ci_high", "undefined_share", "reason")
CORE_COLUMNS = LABEL_COLUMNS + VALUE_COLUMNS
#: Format tag written into every saved result; :meth:`MeasureResult.load` refuses other tags.
SAVE_FORMAT = "humanlike-result/1"


class MeasureInputError(ValueError):
    """Bad input to a measure: a missing column, an unknown observer, experiment or condition, ... The message
    names what is wrong. A ``ValueError``, so the command line turns it into ``humanlike <cmd>: error: ...``.

    Examples
    --------
    >>> issubclass(MeasureInputError, ValueError)
    True
    """


@dataclass(frozen=True)
class Example:
    """Small simulated data a measure's analysis runs on in about a second, with the options that keep it small.

    Attributes
    ----------
    data : object
        The analysis' first argument (a trial table, a judgement table).
    options : dict
        Keyword options for :meth:`Measure.run`.

    Examples
    --------
    >>> Example([1, 2], {"experiments": ["x"]}).options
    {'experiments': ['x']}
    """

    data: object
    options: dict = field(default_factory=dict)


def resolve(path: str) -> Callable:
    """The object a dotted ``"package.module:name"`` path names (imported on first use).

    Parameters
    ----------
    path : str
        ``"module:attribute"``.

    Returns
    -------
    object
        The attribute.

    Examples
    --------
    >>> resolve("humanlike.resampling.results:Resampled").__name__
    'Resampled'
    """
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Measure:
    """One measure as the command line, the demo and the report page see it.

    Parts are dotted paths (``"module:function"``), imported when first called, so registering a measure costs
    nothing at start-up.

    Attributes
    ----------
    name : str
        Short name, also the report's ``--analyses`` name and the key of its results (``"ec"``).
    title : str
        Human name (``"Error consistency"``).
    summary : str
        One line: what it measures.
    docs : str
        Its page in the documentation (``"docs/api/ec.md"``).
    order : int
        Place in the demo, the report page and ``humanlike --help`` (smaller first).
    analysis : str
        ``run(data, *, settings, **options) -> MeasureResult``: the measure's main analysis.
    cli : str
        ``register(subparsers, plan_subparsers)``: adds the measure's commands to the ``humanlike`` parser.
    report_run : str or None
        ``run(data, *, settings, exclusions) -> MeasureResult``: what the report page computes, or None when the
        measure has no analysis of its own on the report.
    report_section : str or None
        ``section(result) -> SectionResult``: the result as a section of the report page.
    report_input : {"trials", "judgements"}
        What :attr:`report_run` is given.
    demo : str or None
        ``demo(trials, args) -> list[Path]``: the measure's part of ``humanlike demo`` (it writes through
        ``args.run_outputs`` and may leave its result in ``args.demo_results[name]`` for the demo's report page).
    simulate : str or None
        ``simulate(seed) -> Example``: small data (and options) on which :attr:`analysis` runs in about a second
        (the common test, tests/measures/test_common.py).
    bad_inputs : str or None
        ``bad_inputs(example) -> list[(what, Example)]``: broken copies of the simulated example, each of which the
        analysis must refuse with a ValueError whose message names ``what`` (the common test).
    depends_on : tuple of str
        Other measures' modules this measure imports, and why it may (tests/test_architecture.py checks them).
    interval : {"percentile", "bca", "jackknife", "jackknife-t"}
        The measure's own interval method, used wherever the user chooses none (``--interval`` not given, the
        report, the demo): ``"jackknife-t"`` for error consistency, whose aggregates the percentile interval
        under-covers (docs/measures/error-consistency.md), the percentile interval for the others.

    Examples
    --------
    >>> from humanlike.measures.registry import get_measure
    >>> get_measure("ec").title
    'Error consistency'
    """

    name: str
    title: str
    summary: str
    docs: str
    order: int
    analysis: str
    cli: str
    report_run: str | None = None
    report_section: str | None = None
    report_input: str = "trials"
    demo: str | None = None
    simulate: str | None = None
    bad_inputs: str | None = None
    depends_on: tuple[str, ...] = ()
    interval: str = "percentile"

    def run(self, data, *, settings=None, **options) -> MeasureResult:
        """Run :attr:`analysis` (``settings`` keyword-only, measure options as keywords).

        Parameters
        ----------
        data : object
            The analysis' input (a trial table, a judgement table).
        settings : ResamplingSettings, optional
            The one settings object (default: the analysis' default).
        **options
            The measure's own options.

        Returns
        -------
        MeasureResult
        """
        return resolve(self.analysis)(data, settings=settings, **options)

    def register_cli(self, subparsers, plan_subparsers) -> None:
        """Add the measure's commands to the ``humanlike`` parser (see :attr:`cli`).

        Parameters
        ----------
        subparsers, plan_subparsers : argparse._SubParsersAction
            The subcommands of ``humanlike`` and of ``humanlike plan``.
        """
        resolve(self.cli)(subparsers, plan_subparsers)

    def run_for_report(self, data, *, settings, exclusions=None):
        """What the report page computes for this measure (see :attr:`report_run`).

        Parameters
        ----------
        data : object
            The input of kind :attr:`report_input`.
        settings : ResamplingSettings
            The report's one settings object, passed on unchanged.
        exclusions : dict or None
            Conditions to drop per experiment.

        Returns
        -------
        MeasureResult
        """
        if self.report_run is None:
            raise ValueError(f"{self.name} has no analysis of its own on the report")
        return resolve(self.report_run)(data, settings=settings, exclusions=exclusions)

    def section(self, result):
        """The result as a section of the report page (see :attr:`report_section`).

        Parameters
        ----------
        result : MeasureResult
            What :meth:`run_for_report` (or the demo part) gave.

        Returns
        -------
        SectionResult
        """
        if self.report_section is None:
            raise ValueError(f"{self.name} has no report section")
        return resolve(self.report_section)(result)

    def run_demo(self, trials, args) -> list[Path]:
        """The measure's part of ``humanlike demo`` (see :attr:`demo`).

        Parameters
        ----------
        trials : pandas.DataFrame
            The demo's simulated trial table.
        args : argparse.Namespace
            The demo's namespace (``run_outputs``, ``demo_results``, ``demo_json``, ``demo_summary``).

        Returns
        -------
        list of pathlib.Path
            The files written (none where the measure has no demo part).
        """
        return [] if self.demo is None else list(resolve(self.demo)(trials, args))

    def simulated(self, seed: int = 0) -> Example:
        """Small simulated data for the measure's analysis (see :attr:`simulate`).

        Parameters
        ----------
        seed : int
            Seed of the simulation.

        Returns
        -------
        Example
        """
        if self.simulate is None:
            raise ValueError(f"{self.name} declares no simulated data")
        return resolve(self.simulate)(seed)

    def broken_inputs(self, example: Example) -> list[tuple[str, Example]]:
        """Broken copies of ``example`` with the name the error must mention (see :attr:`bad_inputs`).

        Parameters
        ----------
        example : Example
            From :meth:`simulated`.

        Returns
        -------
        list of (str, Example)
        """
        return [] if self.bad_inputs is None else list(resolve(self.bad_inputs)(example))


@dataclass(frozen=True)
class Tool:
    """A cross-measure command family: commands (and a report section) that work on several measures' results
    and are not a measure themselves (no analysis of their own, no result shape, no common test).

    Paired model comparisons (``humanlike compare``, ``humanlike plan compare``) are one: they take the result
    of EC, DMC, DVC or OOD and compare its models. A folder ``humanlike/measures/<name>/`` registers one as
    ``TOOL`` in its ``tool.py``; :func:`humanlike.measures.registry.command_families` lists it beside the measures,
    so the command line reaches it through the registry as it reaches a measure (docs/architecture.md).

    Attributes
    ----------
    name : str
        Short name (``"compare"``).
    title : str
        Human name.
    summary : str
        One line: what it does.
    docs : str
        Its page in the documentation.
    order : int
        Place in ``humanlike --help`` among the measures (smaller first); its report section comes after every
        measure's.
    cli : str
        ``register(subparsers, plan_subparsers)``: adds its commands to the ``humanlike`` parser.
    report_section : str or None
        ``section(results) -> SectionResult or None``: a section of the report page from the measures' results
        (``{measure name: result}``, as the report computed them), None where they hold nothing for it.
    depends_on : tuple of str
        The measures' modules it imports, and why it may (tests/test_architecture.py checks them).

    Examples
    --------
    >>> from humanlike.measures.registry import tools
    >>> [tool.name for tool in tools()]
    ['compare']
    """

    name: str
    title: str
    summary: str
    docs: str
    order: int
    cli: str
    report_section: str | None = None
    depends_on: tuple[str, ...] = ()

    def register_cli(self, subparsers, plan_subparsers) -> None:
        """Add the tool's commands to the ``humanlike`` parser (see :attr:`cli`).

        Parameters
        ----------
        subparsers, plan_subparsers : argparse._SubParsersAction
            The subcommands of ``humanlike`` and of ``humanlike plan``.
        """
        resolve(self.cli)(subparsers, plan_subparsers)

    def section(self, results: dict):
        """The tool's section of the report page from the measures' results (see :attr:`report_section`).

        Parameters
        ----------
        results : dict
            ``{measure name: result}``; a missing entry, None or a string (why a measure was not computed) is
            no result.

        Returns
        -------
        SectionResult or None
            None where the tool has no section or the results hold nothing for it.
        """
        return None if self.report_section is None else resolve(self.report_section)(results)


def trial_table_bad_inputs(example: Example) -> list[tuple[str, Example]]:
    """Broken copies of a trial-table example: a missing column and an unknown experiment.

    Shared by the measures that take a trial table (their analyses take ``experiments=``).

    Parameters
    ----------
    example : Example
        A trial table and the analysis' options.

    Returns
    -------
    list of (str, Example)
        ``("correct", the table without its correct column)`` and ``("no-such-experiment", ...)``.

    Examples
    --------
    >>> import pandas as pd
    >>> example = Example(pd.DataFrame({"correct": [True]}), {"experiments": ["a"]})
    >>> [what for what, _ in trial_table_bad_inputs(example)]
    ['correct', 'no-such-experiment']
    """
    trials = example.data
    return [("correct", Example(trials.drop(columns=["correct"]), example.options)),
            ("no-such-experiment", Example(trials, {**example.options, "experiments": ["no-such-experiment"]}))]


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

    measure: ClassVar[str] = ""
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
        file holds JSON and numpy arrays only.

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write (conventionally ``*.humanlike.zip``).

        Returns
        -------
        pathlib.Path
            The path written.
        """
        from ..files import atomic_write_bytes

        arrays: dict[str, np.ndarray] = {}
        doc = {"format": SAVE_FORMAT, "measure": self.measure, "result": _encode(self, arrays)}
        npz = io.BytesIO()
        np.savez(npz, **arrays)
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("result.json", json.dumps(doc, allow_nan=False))
            z.writestr("arrays.npz", npz.getvalue())
        return atomic_write_bytes(Path(path), archive.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> MeasureResult:
        """Read a result written by :meth:`save`.

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
        path = Path(path)
        try:
            with zipfile.ZipFile(path) as z:
                doc = json.loads(z.read("result.json"))
                with np.load(io.BytesIO(z.read("arrays.npz")), allow_pickle=False) as npz:
                    arrays = {k: npz[k] for k in npz.files}
        except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as err:
            raise ValueError(f"{path}: not a saved humanlike result ({err})") from None
        if doc.get("format") != SAVE_FORMAT:
            raise ValueError(f"{path}: not a saved humanlike result (format {doc.get('format')!r})")
        result = _decode(doc["result"], arrays)
        if not isinstance(result, cls):
            raise ValueError(f"{path} holds a {type(result).__name__}, not a {cls.__name__}")
        return result


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


# --- saving: a result as JSON plus numpy arrays, no pickle -------------------------------------------------------

def _class_path(obj) -> str:
    kind = type(obj)
    return f"{kind.__module__}:{kind.__qualname__}"


def _humanlike_class(path: str):
    module, _, name = path.partition(":")
    if module != "humanlike" and not module.startswith("humanlike."):
        raise ValueError(f"a saved result names the class {path!r}, which is not humanlike's")
    target = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    return target


def _store(array: np.ndarray, arrays: dict) -> str:
    key = f"a{len(arrays)}"
    arrays[key] = array
    return key


def _encode(obj, arrays: dict):  # noqa: C901 - one case per kind of value
    import pandas as pd

    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, Enum):
        return {"__enum__": _class_path(obj), "value": _encode(obj.value, arrays)}
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, np.bool_):
        return {"__int__": str(type(obj).__name__) if isinstance(obj, np.integer) else "int", "value": int(obj)}
    if isinstance(obj, (float, np.floating, np.bool_, np.complexfloating)):
        return {"__scalar__": np.asarray(obj).dtype.str, "value": _store(np.asarray(obj), arrays)}
    if isinstance(obj, Path):
        return {"__path__": str(obj)}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "biufcUSmM":
            return {"__array__": _store(obj, arrays)}
        return {"__objects__": [_encode(v, arrays) for v in obj.ravel().tolist()], "shape": list(obj.shape)}
    if isinstance(obj, pd.DataFrame):
        return {"__frame__": [_encode(obj.columns, arrays), [_encode_series_values(obj.iloc[:, k], arrays)
                                                              for k in range(obj.shape[1])],
                              _encode(obj.index, arrays)], "attrs": _encode(dict(obj.attrs), arrays)}
    if isinstance(obj, pd.Series):
        return {"__series__": _encode_series_values(obj, arrays), "index": _encode(obj.index, arrays),
                "name": _encode(obj.name, arrays)}
    if isinstance(obj, pd.RangeIndex):
        return {"__range__": [obj.start, obj.stop, obj.step], "name": _encode(obj.name, arrays)}
    if isinstance(obj, pd.MultiIndex):
        return {"__multiindex__": [_encode(list(t), arrays) for t in obj.tolist()],
                "names": _encode(list(obj.names), arrays)}
    if isinstance(obj, pd.Index):
        return {"__index__": _encode_series_values(pd.Series(obj), arrays), "name": _encode(obj.name, arrays)}
    if is_dataclass(obj) and not isinstance(obj, type):
        values = {f.name: _encode(getattr(obj, f.name), arrays) for f in fields(obj) if f.init}
        return {"__dataclass__": _class_path(obj), "fields": values}
    if isinstance(obj, list) and type(obj) is not list:
        return {"__list__": _class_path(obj), "items": [_encode(v, arrays) for v in obj],
                "attrs": _encode(dict(vars(obj)), arrays)}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, arrays) for v in obj]
        return items if type(obj) is list else {"__tuple__": items}
    if isinstance(obj, dict):
        return {"__dict__": [[_encode(k, arrays), _encode(v, arrays)] for k, v in obj.items()]}
    if isinstance(obj, (set, frozenset)):
        return {"__set__": [_encode(v, arrays) for v in sorted(obj, key=repr)], "frozen": isinstance(obj, frozenset)}
    raise TypeError(f"cannot save a {type(obj).__name__} inside a result")


def _encode_series_values(series, arrays: dict) -> dict:
    import pandas as pd

    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return {"categorical": _encode(np.asarray(series.cat.codes), arrays),
                "categories": _encode(series.cat.categories, arrays), "ordered": bool(dtype.ordered)}
    if isinstance(dtype, np.dtype) and dtype.kind in "biufcmM":
        return {"dtype": dtype.str, "values": _encode(series.to_numpy(), arrays)}
    values = series.to_numpy(dtype=object)
    return {"dtype": str(dtype), "objects": [None if v is pd.NA else _encode(v, arrays) for v in values],
            "na": [v is pd.NA for v in values]}


def _decode_series_values(doc: dict, arrays: dict):
    import pandas as pd

    if "categorical" in doc:
        return pd.Categorical.from_codes(_decode(doc["categorical"], arrays), _decode(doc["categories"], arrays),
                                         ordered=doc["ordered"])
    if "values" in doc:
        return _decode(doc["values"], arrays)
    values = [pd.NA if na else _decode(v, arrays) for v, na in zip(doc["objects"], doc["na"])]
    if doc["dtype"] == "object":
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return pd.array(values, dtype=doc["dtype"])


def _decode(doc, arrays: dict):  # noqa: C901 - one case per kind of value
    import pandas as pd

    if doc is None or isinstance(doc, (bool, str)):
        return doc
    if isinstance(doc, list):
        return [_decode(v, arrays) for v in doc]
    if "__int__" in doc:
        return int(doc["value"]) if doc["__int__"] == "int" else getattr(np, doc["__int__"])(doc["value"])
    if "__scalar__" in doc:
        return arrays[doc["value"]][()]
    if "__enum__" in doc:
        return _humanlike_class(doc["__enum__"])(_decode(doc["value"], arrays))
    if "__path__" in doc:
        return Path(doc["__path__"])
    if "__array__" in doc:
        return arrays[doc["__array__"]]
    if "__objects__" in doc:
        out = np.empty(len(doc["__objects__"]), dtype=object)
        out[:] = [_decode(v, arrays) for v in doc["__objects__"]]
        return out.reshape(doc["shape"])
    if "__frame__" in doc:
        columns, data, index = doc["__frame__"]
        columns = _decode(columns, arrays)
        frame = pd.DataFrame({k: _decode_series_values(v, arrays) for k, v in enumerate(data)})
        frame.columns = columns
        frame.index = _decode(index, arrays)
        frame.attrs.update(_decode(doc["attrs"], arrays))
        return frame
    if "__series__" in doc:
        return pd.Series(_decode_series_values(doc["__series__"], arrays), index=_decode(doc["index"], arrays),
                         name=_decode(doc["name"], arrays))
    if "__range__" in doc:
        return pd.RangeIndex(*doc["__range__"], name=_decode(doc["name"], arrays))
    if "__multiindex__" in doc:
        return pd.MultiIndex.from_tuples([tuple(_decode(t, arrays)) for t in doc["__multiindex__"]],
                                         names=_decode(doc["names"], arrays))
    if "__index__" in doc:
        return pd.Index(_decode_series_values(doc["__index__"], arrays), name=_decode(doc["name"], arrays))
    if "__dataclass__" in doc:
        kind = _humanlike_class(doc["__dataclass__"])
        return kind(**{k: _decode(v, arrays) for k, v in doc["fields"].items()})
    if "__list__" in doc:
        kind = _humanlike_class(doc["__list__"])
        out = kind(_decode(v, arrays) for v in doc["items"])
        vars(out).update(_decode(doc["attrs"], arrays))
        return out
    if "__tuple__" in doc:
        return tuple(_decode(v, arrays) for v in doc["__tuple__"])
    if "__dict__" in doc:
        return {_decode(k, arrays): _decode(v, arrays) for k, v in doc["__dict__"]}
    if "__set__" in doc:
        items = [_decode(v, arrays) for v in doc["__set__"]]
        return frozenset(items) if doc["frozen"] else set(items)
    raise ValueError(f"a saved result holds an unknown value {sorted(doc)[:3]}")
