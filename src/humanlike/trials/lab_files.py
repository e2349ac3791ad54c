"""Data the field's experiment tools write — jsPsych (JSON or CSV), JATOS result files, PsychoPy and Pavlovia
(one CSV per participant), lab.js (CSV) — read into a trial table through a small declared mapping.

A :class:`LabMapping` says which column holds the observer, the item, the response, the correct label, the
condition, the experiment and the reaction time, which rows are the main trials (``keep``) and which are
practice (``drop``). :meth:`LabMapping.for_tool` gives each tool's usual column names as a start; a study's own
names go in a TOML file (:meth:`LabMapping.from_file`, ``--mapping FILE`` on the command line). Every error
names the file, and the mapping key and column at fault (docs/formats.md#data-from-experiment-tools).

How the tools write their data (their documented formats; nothing here reads a tool's code):

- jsPsych: ``jsPsych.data.get().json()`` is a JSON array of trial objects (``trial_type``, ``trial_index``,
  ``rt`` in ms, ``response``, ``stimulus`` and any ``data`` the study added); ``.csv()`` the same as columns.
- JATOS: "Export results: data only" writes a text file with one line per component result, each line the data
  the component submitted (for jsPsych studies one JSON array); the full export is a ``.jzip``/``.zip`` archive
  (or its unpacked folder) of ``study_result_<id>/comp-result_<id>/data.txt`` files. A study result is one
  participant: with no observer column it names the observer (``study_result_17``).
- PsychoPy / Pavlovia: one CSV per session with the loop's columns, ``participant``, ``session``, ``expName``
  and a keyboard component's ``<name>.keys``, ``<name>.corr`` and ``<name>.rt`` (seconds).
- lab.js: a CSV with one row per component (``sender``, ``response``, ``correct``, ``duration`` in ms, and the
  study's own parameters).
"""

from __future__ import annotations

import io
import json
import re
import tomllib
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd

from .schema import TrialTableError

#: The tools :meth:`LabMapping.for_tool` knows, with the columns they write by default.
TOOL_DEFAULTS: dict[str, dict] = {
    "jspsych": {"item": "stimulus", "response": "response", "rt": "rt", "rt_unit": "ms"},
    "jatos": {"item": "stimulus", "response": "response", "rt": "rt", "rt_unit": "ms"},
    "psychopy": {"observer": "participant", "item": "stimulus", "response": "key_resp.keys", "rt": "key_resp.rt",
                 "rt_unit": "s", "correct": "key_resp.corr"},
    "labjs": {"item": "stimulus", "response": "response", "rt": "duration", "rt_unit": "ms", "correct": "correct"},
}
TOOL_DEFAULTS["pavlovia"] = TOOL_DEFAULTS["psychopy"]
RT_UNITS = {"ms": 1e-3, "s": 1.0}
_STUDY_RESULT = re.compile(r"study_result_(\d+)")


class LabMappingError(TrialTableError):
    """A mapping that does not fit its file, or a mapping file that is malformed; the message names the file,
    the mapping key and the column.

    Examples
    --------
    >>> LabMapping(item="stim", response="key", label="answer", rt_unit="minutes")
    Traceback (most recent call last):
        ...
    humanlike.trials.lab_files.LabMappingError: mapping key 'rt_unit': expected one of ['ms', 's'], got 'minutes'
    """


@dataclass(frozen=True)
class LabMapping:
    """Which column of an experiment tool's data holds each column of the trial table.

    Attributes
    ----------
    item, response, label : str
        Columns of the stimulus id (a path is fine: it is used as written), the response given and the correct
        response. ``correct`` is ``response == label`` after :attr:`responses` translated the response.
    observer : str or None
        Column of the participant id; None: one participant per file (the file's name, or a JATOS study
        result's id).
    condition, experiment : str or None
        Columns of the condition and the experiment; None: :attr:`condition_value` / :attr:`experiment_value`.
    condition_value, experiment_value : str
        The condition and experiment of every trial where no column is named.
    rt : str or None
        Column of the reaction time, in :attr:`rt_unit` (``"ms"`` or ``"s"``); stored in seconds.
    correct : str or None
        A column the tool computed correctness in (PsychoPy's ``key_resp.corr``, lab.js' ``correct``): checked
        against ``response == label``, and a disagreement is an error naming the rows.
    keep : dict of str to list of str
        Only rows whose column holds one of the values (e.g. ``{"trial_type": ["image-button-response"]}``,
        ``{"task": ["main"]}``); rows of other components (instructions, fixation) fall away.
    drop : dict of str to list of str
        Rows to leave out (practice: ``{"phase": ["practice"]}``; PsychoPy's practice loop: ``{"practice.thisN":
        ["*"]}``, where ``"*"`` means any non-empty value).
    responses : dict of str to str
        Responses translated before comparing (a key to its label: ``{"f": "cat", "j": "dog"}``); the
        same map applies to :attr:`label` (PsychoPy's ``corrAns`` holds a key too).
    human : bool
        The observers are people (default) or models.

    Examples
    --------
    >>> mapping = LabMapping.for_tool("psychopy", label="corrAns", condition="contrast")
    >>> mapping.observer, mapping.response, mapping.rt_unit
    ('participant', 'key_resp.keys', 's')
    """

    item: str = "stimulus"
    response: str = "response"
    label: str = "label"
    observer: str | None = None
    condition: str | None = None
    condition_value: str = "0"
    experiment: str | None = None
    experiment_value: str = "experiment"
    rt: str | None = None
    rt_unit: str = "ms"
    correct: str | None = None
    keep: dict[str, list[str]] = field(default_factory=dict)
    drop: dict[str, list[str]] = field(default_factory=dict)
    responses: dict[str, str] = field(default_factory=dict)
    human: bool = True

    def __post_init__(self):
        if self.rt_unit not in RT_UNITS:
            raise LabMappingError(f"mapping key 'rt_unit': expected one of {sorted(RT_UNITS)}, got {self.rt_unit!r}")
        for name in ("keep", "drop"):
            value = getattr(self, name)
            if not isinstance(value, dict) or not all(isinstance(v, list) and v for v in value.values()):
                raise LabMappingError(f"mapping key {name!r}: expected a table of column = [values], got {value!r}")
            object.__setattr__(self, name, {str(k): [str(v) for v in vs] for k, vs in value.items()})
        if not isinstance(self.responses, dict):
            raise LabMappingError(f"mapping key 'responses': expected a table of response = label, "
                                  f"got {self.responses!r}")
        object.__setattr__(self, "responses", {str(k): str(v) for k, v in self.responses.items()})

    @classmethod
    def for_tool(cls, tool: str, **overrides) -> LabMapping:
        """The columns ``tool`` writes by default, with the study's own names as ``overrides``.

        Parameters
        ----------
        tool : {"jspsych", "jatos", "psychopy", "pavlovia", "labjs"}
            The tool.
        **overrides
            Any :class:`LabMapping` field.

        Returns
        -------
        LabMapping

        Examples
        --------
        >>> LabMapping.for_tool("jspsych", label="correct_response").rt
        'rt'
        """
        key = str(tool).lower().replace(".", "").replace("-", "")
        if key not in TOOL_DEFAULTS:
            raise LabMappingError(f"mapping key 'tool': expected one of {sorted(TOOL_DEFAULTS)}, got {tool!r}")
        return cls(**{**TOOL_DEFAULTS[key], **overrides})

    @classmethod
    def from_file(cls, path) -> LabMapping:
        r"""Read a mapping from a TOML file: ``tool = "..."`` (optional) and any field of :class:`LabMapping`.

        Parameters
        ----------
        path : path-like
            The TOML file.

        Returns
        -------
        LabMapping

        Raises
        ------
        LabMappingError
            For a missing or malformed file or an unknown key, naming the file.

        Examples
        --------
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "mapping.toml"
        >>> _ = path.write_text('tool = "jspsych"\nlabel = "correct_response"\n[keep]\ntrial_type = ["image-keyboard-response"]\n')
        >>> LabMapping.from_file(path).keep
        {'trial_type': ['image-keyboard-response']}
        """
        path = Path(path)
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise LabMappingError(f"{path}: no such mapping file") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise LabMappingError(f"{path}: not valid TOML ({err})") from None
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known - {"tool"})
        if unknown:
            raise LabMappingError(f"{path}: unknown mapping key(s) {unknown}; known keys: {sorted(known | {'tool'})}")
        tool = raw.pop("tool", None)
        try:
            return cls.for_tool(tool, **raw) if tool else cls(**raw)
        except LabMappingError as err:
            raise LabMappingError(f"{path}: {err}") from None
        except TypeError as err:
            raise LabMappingError(f"{path}: {err}") from None

    def to_dict(self) -> dict:
        """The mapping as a plain dict (recorded in a run's manifest).

        Returns
        -------
        dict
        """
        return asdict(self)


def read_lab_frames(path) -> list[tuple[str, pd.DataFrame]]:
    """The raw tables in one file or folder of an experiment tool, each with the name of its participant
    (the file's name, or the JATOS study result), every cell as text.

    Parameters
    ----------
    path : path-like
        A jsPsych ``.json``/``.csv``, a JATOS results ``.txt``, a JATOS ``.jzip``/``.zip`` archive or unpacked
        folder, a PsychoPy/Pavlovia/lab.js ``.csv``, or a folder of such files.

    Returns
    -------
    list of (str or None, pandas.DataFrame)
        None where the file does not say whose data it is (a JATOS data-only export of several component results).

    Raises
    ------
    LabMappingError
        For a missing, empty or unreadable file, naming it.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "P01.json"
    >>> _ = path.write_text('[{"trial_type": "html-keyboard-response", "rt": 512, "response": "f"}]')
    >>> [(name, frame["rt"].tolist()) for name, frame in read_lab_frames(path)]
    [('P01', ['512'])]
    """
    path = Path(path)
    if not path.exists():
        raise LabMappingError(f"{path}: no such file or folder")
    if path.is_dir():
        jatos = sorted(path.rglob("data.txt"))
        if jatos:
            return _by_study_result([(_study_result_name(p, path), _jatos_text(p.read_text(encoding="utf-8-sig"), p))
                                     for p in jatos])
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".csv", ".json", ".txt", ".tsv"))
        if not files:
            raise LabMappingError(f"{path}: a folder without .csv, .json or JATOS data.txt files")
        return [frame for p in files for frame in read_lab_frames(p)]
    suffix = path.suffix.lower()
    if suffix in (".jzip", ".zip"):
        return _read_jatos_archive(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise LabMappingError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    if not text.strip():
        raise LabMappingError(f"{path}: the file is empty")
    if suffix == ".json":
        return [(path.stem, _records_frame(_json(text, path), path))]
    if suffix == ".txt" and text.lstrip()[:1] in "[{":
        # JATOS' data-only export: one line per component result, of any participant; with several lines the
        # participant must come from a column (None says so)
        lines = [line for line in text.splitlines() if line.strip()]
        return [(path.stem if len(lines) == 1 else None, _jatos_text(text, path))]
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, sep="\t" if suffix == ".tsv" else ",")
    except (pd.errors.ParserError, ValueError) as err:
        raise LabMappingError(f"{path}: cannot be read as a CSV table: {err}") from None
    return [(path.stem, frame)]


def _json(text: str, path: Path):
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise LabMappingError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from None


def _records_frame(records, path: Path) -> pd.DataFrame:
    if isinstance(records, dict):   # one trial, or jsPsych data wrapped in {"trials": [...]}
        records = records.get("trials", [records]) if isinstance(records.get("trials"), list) else [records]
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise LabMappingError(f"{path}: expected a JSON array of trial objects (jsPsych's data.get().json())")
    frame = pd.DataFrame.from_records(records)
    return frame.apply(lambda column: column.map(_cell_text)).astype(object) if len(frame) else frame


def _cell_text(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def _jatos_text(text: str, path: Path) -> pd.DataFrame:
    """JATOS' data-only export: one component result per line, each the JSON the component submitted."""
    parts = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            parts.append(_records_frame(json.loads(line), path))
        except json.JSONDecodeError as err:
            raise LabMappingError(f"{path}: line {number} is not the JSON of a component result ({err.msg})") from None
    if not parts:
        raise LabMappingError(f"{path}: no component result in the file")
    return pd.concat(parts, ignore_index=True).fillna("")


def _study_result_name(data_file: Path, root: Path) -> str:
    found = _STUDY_RESULT.search(data_file.relative_to(root).as_posix())
    return f"study_result_{found.group(1)}" if found else data_file.parent.name


def _read_jatos_archive(path: Path) -> list[tuple[str, pd.DataFrame]]:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise LabMappingError(f"{path}: not a JATOS results archive (not a zip file)") from None
    with archive:
        names = sorted(n for n in archive.namelist() if n.endswith("data.txt"))
        if not names:
            raise LabMappingError(f"{path}: the archive holds no study_result_*/comp-result_*/data.txt")
        out = []
        for name in names:
            found = _STUDY_RESULT.search(name)
            out.append((f"study_result_{found.group(1)}" if found else Path(name).parent.name,
                        _jatos_text(archive.read(name).decode("utf-8-sig"), Path(f"{path}!{name}"))))
    return _by_study_result(out)


def _by_study_result(parts: list[tuple[str, pd.DataFrame]]) -> list[tuple[str, pd.DataFrame]]:
    """One table per study result (a participant): the component results' data in component order."""
    names = list(dict.fromkeys(name for name, _ in parts))
    return [(name, pd.concat([frame for n, frame in parts if n == name], ignore_index=True).fillna(""))
            for name in names]


def _matches(column: pd.Series, values: Sequence[str]) -> np.ndarray:
    wanted = set(values)
    stripped = column.astype(str).str.strip()
    return (stripped.isin(wanted) | (stripped.ne("") & ("*" in wanted))).to_numpy()


def _column(frame: pd.DataFrame, name: str, key: str, where: str) -> pd.Series:
    if name not in frame.columns:
        close = [c for c in frame.columns if c.lower() == name.lower()]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise LabMappingError(f"{where}: mapping key {key!r} names column {name!r}, which the file does not "
                              f"have{hint}; its columns are {[c for c in frame.columns if c != '__row__']}")
    return frame[name].astype(str).str.strip()


def lab_trials(path, mapping: LabMapping) -> pd.DataFrame:
    r"""One experiment tool's file (or folder) as trial-table rows (not yet validated).

    Parameters
    ----------
    path : path-like
        See :func:`read_lab_frames`.
    mapping : LabMapping
        Which column holds what.

    Returns
    -------
    pandas.DataFrame
        Columns observer, observer_kind, experiment, condition, item, label, response, correct, trial and rt.

    Raises
    ------
    LabMappingError
        Naming the file, the mapping key and the column: a column the file lacks, no row left after ``keep`` and
        ``drop``, an empty item, response or label, a ``correct`` column that disagrees with ``response ==
        label``, an unreadable reaction time.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "P01.csv"
    >>> _ = path.write_text("participant,image,key_resp.keys,corrAns,key_resp.rt\nP01,a.png,f,f,0.61\nP01,b.png,f,j,0.72\n")
    >>> mapping = LabMapping.for_tool("psychopy", item="image", label="corrAns", correct=None,
    ...                               responses={"f": "cat", "j": "dog"})
    >>> lab_trials(path, mapping)[["observer", "item", "label", "response", "correct", "rt"]].values.tolist()
    [['P01', 'a.png', 'cat', 'cat', True, 0.61], ['P01', 'b.png', 'dog', 'cat', False, 0.72]]
    """
    parts = []
    for name, frame in read_lab_frames(path):
        where = f"{path}" if name in (None, Path(path).stem) else f"{path} ({name})"
        if name is None and mapping.observer is None:
            raise LabMappingError(
                f"{where}: a JATOS data-only export holds several component results, which may be several "
                "participants: name the column of the participant id (mapping key 'observer', e.g. the subject id "
                "a jsPsych study adds with jsPsych.data.addProperties), or export the full results archive (.jzip), "
                "where each study result is one participant")
        parts.append(_trials_of(frame, name, mapping, where))
    return pd.concat(parts, ignore_index=True)


def _trials_of(frame: pd.DataFrame, name: str, mapping: LabMapping, where: str) -> pd.DataFrame:
    frame = frame.reset_index(drop=True)
    frame["__row__"] = np.arange(len(frame)) + 2 if len(frame) else []   # the file's line (after the header)
    mask = np.ones(len(frame), bool)
    for column, values in mapping.keep.items():
        mask &= _matches(_column(frame, column, "keep", where), values)
    for column, values in mapping.drop.items():
        mask &= ~_matches(_column(frame, column, "drop", where), values)
    frame = frame[mask]
    if frame.empty:
        raise LabMappingError(f"{where}: no row left after the mapping's keep {mapping.keep} and drop "
                              f"{mapping.drop}")
    translate = (lambda s: s.map(lambda v: mapping.responses.get(v, v))) if mapping.responses else (lambda s: s)
    out = pd.DataFrame({
        "observer": _column(frame, mapping.observer, "observer", where) if mapping.observer else name,
        "observer_kind": "human" if mapping.human else "model",
        "experiment": (_column(frame, mapping.experiment, "experiment", where) if mapping.experiment
                       else mapping.experiment_value),
        "condition": (_column(frame, mapping.condition, "condition", where) if mapping.condition
                      else mapping.condition_value),
        "item": _column(frame, mapping.item, "item", where),
        "label": translate(_column(frame, mapping.label, "label", where)),
        "response": translate(_column(frame, mapping.response, "response", where)),
    })
    for key in ("observer", "item", "label"):
        empty = out[key].astype(str).str.strip().eq("").to_numpy()
        if empty.any():
            column = getattr(mapping, key) or "(file name)"
            raise LabMappingError(f"{where}: mapping key {key!r} (column {column!r}) is empty in "
                                  f"{int(empty.sum())} row(s), first at line {int(frame['__row__'].iloc[empty.argmax()])}")
    # no answer (a timeout: jsPsych writes null) counts as wrong, as 'na' does in the trial table
    out["response"] = out["response"].where(out["response"].ne(""), "na")
    out["correct"] = (out["response"] == out["label"]).to_numpy()
    if mapping.correct:
        told = _column(frame, mapping.correct, "correct", where).str.lower()
        told_bool = told.map({"1": True, "1.0": True, "true": True, "0": False, "0.0": False, "false": False})
        disagree = (told_bool.notna() & (told_bool != out["correct"])).to_numpy()
        if disagree.any():
            line = int(frame["__row__"].iloc[disagree.argmax()])
            raise LabMappingError(
                f"{where}: column {mapping.correct!r} (mapping key 'correct') disagrees with response == label in "
                f"{int(disagree.sum())} row(s), first at line {line} (response {out['response'].iloc[disagree.argmax()]!r}, "
                f"label {out['label'].iloc[disagree.argmax()]!r}): check 'label' and 'responses'")
    out["trial"] = np.arange(len(out))
    if mapping.rt:
        text = _column(frame, mapping.rt, "rt", where)
        values = pd.to_numeric(text.replace({"": np.nan, "null": np.nan, "None": np.nan}), errors="coerce")
        bad = (values.isna() & text.ne("") & ~text.isin(["null", "None"])).to_numpy()
        if bad.any():
            raise LabMappingError(f"{where}: column {mapping.rt!r} (mapping key 'rt') holds {text.iloc[bad.argmax()]!r} "
                                  f"at line {int(frame['__row__'].iloc[bad.argmax()])}, not a number")
        out["rt"] = values.to_numpy(float) * RT_UNITS[mapping.rt_unit]
    return out.reset_index(drop=True)


def load_lab_trials(paths, mapping: LabMapping) -> pd.DataFrame:
    """Files of an experiment tool as one trial table (rows of :func:`lab_trials`, not yet validated).

    Parameters
    ----------
    paths : path-like or sequence of path-like
        Files or folders (:func:`read_lab_frames`).
    mapping : LabMapping
        Which column holds what.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for p in ("P01", "P02"):
    ...     _ = (folder / f"{p}.json").write_text('[{"stimulus": "a.png", "response": "cat", "answer": "cat"}]')
    >>> load_lab_trials(folder, LabMapping.for_tool("jspsych", label="answer", rt=None))["observer"].tolist()
    ['P01', 'P02']
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return pd.concat([lab_trials(path, mapping) for path in paths], ignore_index=True)
