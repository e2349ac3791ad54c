"""Saved results: a measure's whole result as one file and back, without pickle.

A saved result is a zip of ``result.json`` (the result's values, nested as they are: dataclasses, frames,
enums, ...; tagged with :data:`SAVE_FORMAT`) and ``arrays.npz`` (every numpy array the JSON refers to), so that it
can be reported again without recomputation and a file cannot run code when read. Only humanlike's own classes
are rebuilt. :meth:`humanlike.measures.measure_result.MeasureResult.save` and ``.load`` are the way in.
"""

from __future__ import annotations

import importlib
import io
import json
import zipfile
from dataclasses import fields, is_dataclass
from enum import Enum
from pathlib import Path

import numpy as np

#: Format tag written into every saved result; :func:`load_result` refuses other tags.
SAVE_FORMAT = "humanlike-result/1"

#: Classes a saved result may hold that have moved since files were written, old path -> new path. A file
#: names each class by its module, so a move would otherwise break every file saved before it. Add a line
#: whenever such a class moves (tests/measures/test_common.py loads a file written with the old paths).
MOVED_CLASSES = {
    "humanlike.measures.contract:MeasureResult": "humanlike.measures.measure_result:MeasureResult",
    "humanlike.resampling.intervals:JackknifeMoments": "humanlike.resampling.jackknife:JackknifeMoments",
    "humanlike.resampling.intervals:RowMoments": "humanlike.resampling.jackknife:RowMoments",
    "humanlike.stats.comparison:Scores": "humanlike.stats.scores:Scores",
    "humanlike.measures.ood.alignment_metric:CLEDResult": "humanlike.measures.ood.alignment_divergence:CLEDResult",
    "humanlike.measures.ood.regimes:RegimeStability": "humanlike.measures.ood.regime_stability:RegimeStability",
    "humanlike.measures.dvc.representations:DVCOptions": "humanlike.measures.dvc.representations_options:DVCOptions",
    "humanlike.measures.dvc.choices:LatentBenchmarkResult":
        "humanlike.measures.dvc.choices_benchmark:LatentBenchmarkResult",
    "humanlike.measures.compare.planning:SimulatedComparisons":
        "humanlike.measures.compare.planning_simulation:SimulatedComparisons",
}
#: Fields a saved result may hold under a name they no longer have, class path -> {old name: new name}
#: (``summary`` became the text of :meth:`MeasureResult.summary`, so the tables it named were renamed).
RENAMED_FIELDS = {
    "humanlike.measures.dmc.result:DMCResult": {"summary": "summary_table"},
    "humanlike.measures.dvc.representations:DVCResult": {"summary": "resampled"},
}


def save_result(result, path: str | Path) -> Path:
    """Write a result to one file (a zip: ``result.json`` and ``arrays.npz``), atomically.

    Parameters
    ----------
    result : MeasureResult
        The result (any value inside it that is no number, string, array, frame, enum, path, dataclass or
        container of those is refused).
    path : str or pathlib.Path
        The file to write (conventionally ``*.humanlike.zip``).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    TypeError
        For a value the format cannot hold.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.measures.ec.result import ErrorConsistencyResult
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = error_consistency(simulate_benchmark(seed=0, n_humans=3, n_items=24), experiments=["sim-blur"],
    ...                            settings=ResamplingSettings(n_resamples=20))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = save_result(result, Path(folder) / "ec.humanlike.zip")
    ...     again = load_result(path, ErrorConsistencyResult)
    >>> type(again).__name__, bool(np.array_equal(again.replicates, result.replicates, equal_nan=True))
    ('ErrorConsistencyResult', True)
    """
    from ..files import atomic_write_bytes

    arrays: dict[str, np.ndarray] = {}
    doc = {"format": SAVE_FORMAT, "measure": result.measure, "result": _encode(result, arrays)}
    npz = io.BytesIO()
    np.savez(npz, **arrays)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("result.json", json.dumps(doc, allow_nan=False))
        z.writestr("arrays.npz", npz.getvalue())
    return atomic_write_bytes(Path(path), archive.getvalue())


def load_result(path: str | Path, kind: type):
    """Read a result written by :func:`save_result`, refusing one of another class.

    Parameters
    ----------
    path : str or pathlib.Path
        A file written by :func:`save_result`.
    kind : type
        The class the result must be an instance of (``MeasureResult`` for any measure's).

    Returns
    -------
    MeasureResult
        The result, of the class that was saved.

    Raises
    ------
    ValueError
        For a file that is not a saved humanlike result, or a result that is not a ``kind``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "notes.zip"
    ...     _ = path.write_text("not a zip")
    ...     try:
    ...         load_result(path, object)
    ...     except ValueError as err:
    ...         print(str(err).split(": ", 1)[1])
    not a saved humanlike result (File is not a zip file)
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
    try:
        result = _decode(doc["result"], arrays)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    if not isinstance(result, kind):
        raise ValueError(f"{path} holds a {type(result).__name__}, not a {kind.__name__}")
    return result


def _class_path(obj) -> str:
    kind = type(obj)
    return f"{kind.__module__}:{kind.__qualname__}"


def _humanlike_class(path: str):
    module, _, name = MOVED_CLASSES.get(path, path).partition(":")
    if module != "humanlike" and not module.startswith("humanlike."):
        raise ValueError(f"a saved result names the class {path!r}, which is not humanlike's")
    try:
        target = importlib.import_module(module)
        for part in name.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        raise ValueError(f"a saved result names the class {path!r}, which this version of humanlike does not "
                         "have (see MOVED_CLASSES in humanlike.measures.saved_results)") from None
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
        renamed = RENAMED_FIELDS.get(f"{kind.__module__}:{kind.__qualname__}", {})
        return kind(**{renamed.get(k, k): _decode(v, arrays) for k, v in doc["fields"].items()})
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
