"""Where each observer came from, and what happens when two sources name an observer alike.

Every command reads its DATA from several sources at once: raw-data folders, tidy trial files and
evaluation folders written by ``humanlike evaluate``. While they are combined each row remembers its
source (:data:`SOURCE_COLUMNS`); an observer name found in two sources is resolved by ``on_conflict``
(:data:`ON_CONFLICT`), and :func:`sources_table` says for every observer where it came from (folder, file
digest, model) and on which experiments it was scored. See docs/your-model-against-the-benchmark.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .schema import TrialTableError

RAW_DATA, TRIAL_FILE, EVALUATION = "raw-data folder", "trial file", "evaluation folder"
#: Per-row source columns while sources are combined (dropped from the trial table afterwards).
SOURCE_COLUMNS = ["source_kind", "source", "source_file", "source_digest"]
#: Values of ``on_conflict``.
ON_CONFLICT = ("prefer-margins", "first", "last", "rename", "error")
#: Columns of :func:`sources_table`.
SOURCES_COLUMNS = ["observer", "observer_kind", "source_kind", "source", "digest", "model", "weights",
                   "model_key", "n_experiments", "experiments"]


def check_on_conflict(on_conflict: str) -> str:
    """Refuse an unknown ``on_conflict`` value up front (not only once two sources clash).

    Parameters
    ----------
    on_conflict : str
        One of :data:`ON_CONFLICT`.

    Returns
    -------
    str
        ``on_conflict``.

    Raises
    ------
    ValueError
        For any other value.

    Examples
    --------
    >>> check_on_conflict("rename")
    'rename'
    >>> check_on_conflict("merge")
    Traceback (most recent call last):
        ...
    ValueError: on_conflict must be one of prefer-margins, first, last, rename, error, not 'merge'
    """
    if on_conflict not in ON_CONFLICT:
        raise ValueError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}, not {on_conflict!r}")
    return on_conflict


def source_label(path) -> str:
    """The short name of a data source used in ``<observer>@<label>``: a file's stem, a folder's name, or
    for a folder named ``raw-data`` the name of the folder above it.

    Parameters
    ----------
    path : path-like
        A trial file, raw-data folder or evaluation folder.

    Returns
    -------
    str
        The label.

    Examples
    --------
    >>> source_label("data/modelvshuman-dmc/raw-data"), source_label("runs/edge"), source_label("t/trials.csv")
    ('modelvshuman-dmc', 'edge', 'trials')
    """
    path = Path(path)
    if path.suffix.lower() in (".csv", ".parquet", ".pq", ".tsv", ".txt"):
        return path.stem
    resolved = path.resolve()
    if resolved.name == "raw-data" and resolved.parent.name:
        return resolved.parent.name
    return resolved.name or str(path)


def source_labels(paths: Sequence) -> list[str]:
    """:func:`source_label` of each path, numbered where two paths share a label.

    Parameters
    ----------
    paths : sequence of path-like
        The sources, in the order given.

    Returns
    -------
    list of str
        One distinct label per path.

    Examples
    --------
    >>> source_labels(["a/runs", "b/runs", "c/edge"])
    ['runs1', 'runs2', 'edge']
    """
    labels = [source_label(p) for p in paths]
    return [f"{label}{k + 1}" if labels.count(label) > 1 else label for k, label in enumerate(labels)]


def _free_name(name: str, taken: set) -> str:
    candidate, k = name, 2
    while candidate in taken:
        candidate, k = f"{name}-{k}", k + 1
    return candidate


def rename_later_sources(frame: pd.DataFrame, observers, order_column: str, labels: Sequence[str]) -> pd.DataFrame:
    """``on_conflict="rename"``: each clashing observer keeps its name in its first source and is
    ``<observer>@<label>`` in every later one (in all its experiments, so two models never share a name).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows with ``observer`` and the source position ``order_column``.
    observers : iterable of str
        The clashing observer names.
    order_column : str
        Column holding each row's source position (an index into ``labels``).
    labels : sequence of str
        The label of each source position.

    Returns
    -------
    pandas.DataFrame
        A copy with the observers of later sources renamed.

    Examples
    --------
    >>> frame = pd.DataFrame({"observer": ["resnet50", "resnet50", "alexnet"], "order": [0, 1, 1]})
    >>> rename_later_sources(frame, ["resnet50"], "order", ["raw-data", "runs"])["observer"].tolist()
    ['resnet50', 'resnet50@runs', 'alexnet']
    """
    frame = frame.copy()
    taken = set(frame["observer"].unique())
    for observer in observers:
        rows = (frame["observer"] == observer).to_numpy()
        orders = sorted(set(frame.loc[rows, order_column]))
        for order in orders[1:]:
            new = _free_name(f"{observer}@{labels[order]}", taken)
            taken.add(new)
            frame.loc[rows & (frame[order_column] == order).to_numpy(), "observer"] = new
    return frame


def _describe(frame: pd.DataFrame, group: int) -> str:
    rows = frame[frame["source_group"] == group]
    kinds = sorted(set(rows["source_kind"]))
    return " and ".join(f"the {kind} {', '.join(sorted(set(rows.loc[rows['source_kind'] == kind, 'source'])))}"
                        for kind in kinds)


def separate_sources(frame: pd.DataFrame, on_conflict: str) -> pd.DataFrame:
    """Resolve observer names found in more than one source group (a tidy file, the raw-data folders
    together, an evaluation folder), whole observers at a time: two sources are never merged into one
    observer.

    ``"rename"`` keeps every source (later ones as ``<observer>@<label>``); ``"first"``/``"last"`` keep the
    observer of the first/last source given; ``"error"`` refuses, naming the two sources. ``"prefer-margins"``
    (the default) keeps the one source with decision margins on every row where the sources hold the
    observer on the same experiments and none is an evaluation folder (the same responses, once with
    margins); otherwise the observers are kept apart (renamed; an evaluation folder's model, which *you*
    ran, is the one renamed rather than assumed to be the published model of the same name).

    Parameters
    ----------
    frame : pandas.DataFrame
        The combined rows, with :data:`SOURCE_COLUMNS` and ``source_group`` (the position of the source among
        the paths given).
    on_conflict : str
        One of :data:`ON_CONFLICT`.

    Returns
    -------
    pandas.DataFrame
        The rows kept, observers renamed where asked.

    Raises
    ------
    TrialTableError
        For ``"error"``, or ``"prefer-margins"`` between sources of the same experiments without an
        evaluation folder where not exactly one has margins; the message names both sources and how to
        name one.

    Examples
    --------
    >>> frame = pd.DataFrame({"observer": ["resnet50", "resnet50"], "experiment": "edge", "source_group": [0, 1],
    ...                       "source_kind": ["raw-data folder", "evaluation folder"],
    ...                       "source": ["mvh/raw-data", "runs/edge"], "source_file": ["a.csv", "b.csv"]})
    >>> separate_sources(frame, "prefer-margins")["observer"].tolist()
    ['resnet50', 'resnet50@edge']
    >>> separate_sources(frame, "last")["source"].tolist()
    ['runs/edge']
    """
    check_on_conflict(on_conflict)
    groups = frame.groupby("observer", sort=True)["source_group"].unique()
    clashes = groups[groups.map(len) > 1]
    if clashes.empty:
        return frame
    firsts = frame.drop_duplicates("source_group").sort_values("source_group")
    labels = dict(zip(firsts["source_group"], source_labels(firsts["source"].tolist())))
    keep = np.ones(len(frame), dtype=bool)
    rename = []
    for observer, members in clashes.items():
        members = sorted(members)
        rows = (frame["observer"] == observer).to_numpy()
        evaluation = any((frame.loc[rows & (frame["source_group"] == g).to_numpy(), "source_kind"] == EVALUATION).any()
                         for g in members)
        if on_conflict == "error":
            raise TrialTableError(
                f"observer '{observer}' is in two sources: {_describe(frame, members[0])} and "
                f"{_describe(frame, members[1])}; they may be different models. Name one differently "
                "(humanlike evaluate ... --name NAME), or pass on_conflict='rename' (CLI: --on-conflict rename) to "
                f"keep both ('{observer}' and '{observer}@{labels[members[1]]}'), 'first' or 'last' to keep one")
        same_experiments = len({frozenset(frame.loc[rows & (frame["source_group"] == g).to_numpy(), "experiment"])
                                for g in members}) == 1
        if on_conflict == "rename" or (on_conflict == "prefer-margins" and (evaluation or not same_experiments)):
            rename.append(observer)
            continue
        if on_conflict in ("first", "last"):
            chosen = members[0] if on_conflict == "first" else members[-1]
        else:
            complete = [g for g in members if "decision_margin" in frame
                        and frame.loc[rows & (frame["source_group"] == g).to_numpy(), "decision_margin"].notna().all()]
            if len(complete) != 1:
                raise TrialTableError(
                    f"observer '{observer}' is in two sources, {_describe(frame, members[0])} and "
                    f"{_describe(frame, members[1])}, and {'none' if not complete else 'more than one'} of them "
                    "has decision margins on every row; pass on_conflict='rename' (CLI: --on-conflict rename) to keep "
                    "both, 'first' or 'last' to keep one")
            chosen = complete[0]
        keep &= ~(rows & (frame["source_group"] != chosen).to_numpy())
    frame = frame.loc[keep]
    if rename:
        # Under prefer-margins a raw-data folder's observer (the published one) keeps its name, wherever
        # it was given; evaluation folders' observers are renamed first.
        shift = 0 if on_conflict == "rename" else 1 + int(frame["source_group"].max())
        kind = frame["source_kind"].astype(object)
        order = frame["source_group"] + shift * ((kind != RAW_DATA).astype(int) + (kind == EVALUATION).astype(int))
        frame = rename_later_sources(frame.assign(rename_order=order), rename, "rename_order",
                                     {g + s: label for g, label in labels.items() for s in (0, shift, 2 * shift)})
        frame = frame.drop(columns="rename_order")
    return frame


def file_digest(paths) -> str:
    """BLAKE2b digest (128 bits, hex) of the bytes of one file or of several files in the order given.

    Parameters
    ----------
    paths : path-like or sequence of path-like
        The file(s).

    Returns
    -------
    str
        32 hex characters.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_bytes(b"abc")
    >>> file_digest(path) == hashlib.blake2b(b"abc", digest_size=16).hexdigest()
    True
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    h = hashlib.blake2b(digest_size=16)
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def combined_digest(digests: Sequence[str]) -> str:
    r"""One digest for several files: the file's own digest for one file, else BLAKE2b-128 of the files'
    digests (in the order given, e.g. sorted by path).

    Parameters
    ----------
    digests : sequence of str
        :func:`file_digest` of each file.

    Returns
    -------
    str
        32 hex characters.

    Examples
    --------
    >>> combined_digest(["ab" * 16]) == "ab" * 16
    True
    >>> combined_digest(["a", "b"]) == hashlib.blake2b(b"a\nb", digest_size=16).hexdigest()
    True
    """
    if len(digests) == 1:
        return digests[0]
    return hashlib.blake2b("\n".join(digests).encode(), digest_size=16).hexdigest()


def sources_table(frame: pd.DataFrame, models: dict | None = None) -> pd.DataFrame:
    """One row per observer and source: where it came from and on which experiments it was scored.

    Parameters
    ----------
    frame : pandas.DataFrame
        The combined rows with :data:`SOURCE_COLUMNS` (after :func:`separate_sources`).
    models : dict, optional
        ``(source, observer as written there) -> {"model", "weights", "model_key"}`` for evaluation folders.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SOURCES_COLUMNS`: ``digest`` identifies the observer's files in that source (its
        raw-data CSV files, the trial file, the evaluation's ``trials.csv``; :func:`combined_digest` of their
        :func:`file_digest`); ``experiments`` is ``;``-separated.

    Examples
    --------
    >>> frame = pd.DataFrame({"observer": ["net", "net"], "observer_kind": "model", "experiment": ["edge", "sketch"],
    ...                       "source_kind": "trial file", "source": "t.csv", "source_file": "t.csv",
    ...                       "source_digest": "d" * 32})
    >>> sources_table(frame)[["observer", "n_experiments", "experiments", "digest"]].values.tolist()
    [['net', 2, 'edge;sketch', 'dddddddddddddddddddddddddddddddd']]
    """
    models = models or {}
    columns = ["observer", "source", "experiment", "source_file", "source_digest", "source_kind", "observer_kind"]
    if "original_observer" in frame:
        columns.append("original_observer")
    # The distinct combinations first (a few hundred), then plain Python over them. A raw-data file holds one
    # observer in one experiment, so its first row stands for all (a cheap pass over categorical codes).
    raw = (frame["source_kind"] == RAW_DATA).to_numpy()
    keys = pd.concat([frame.loc[raw, columns].drop_duplicates("source_file"),
                      frame.loc[~raw, columns].drop_duplicates(["source", "observer", "experiment"])])
    keys = keys.astype({c: object for c in columns})
    rows = []
    for (observer, source), group in keys.groupby(["observer", "source"], sort=True):
        files = group.drop_duplicates("source_file").sort_values("source_file")
        experiments = sorted(set(group["experiment"]))
        original = group["original_observer"].iloc[0] if "original_observer" in group else observer
        model = models.get((source, original), {})
        rows.append({"observer": observer, "observer_kind": group["observer_kind"].iloc[0],
                     "source_kind": group["source_kind"].iloc[0], "source": source,
                     "digest": combined_digest(files["source_digest"].tolist()),
                     "model": model.get("model", ""), "weights": model.get("weights", ""),
                     "model_key": model.get("model_key", ""), "n_experiments": len(experiments),
                     "experiments": ";".join(experiments)})
    return pd.DataFrame(rows, columns=SOURCES_COLUMNS)


def experiments_scored(trials: pd.DataFrame, experiments: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Which models were scored on every one of ``experiments``, and the experiments each other model has.

    A model scored on 2 of 17 experiments is never ranked beside full-benchmark models: its overall values
    average other experiments. The ranking keeps the models with every experiment of the run; the others
    are reported with the experiments they have (rank them by restricting the run to those experiments).

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (``observer``, ``observer_kind``, ``experiment``).
    experiments : sequence of str
        The experiments of the run.

    Returns
    -------
    complete : list of str
        Models with every experiment, sorted.
    partial : dict of str to list of str
        Every other model -> the experiments it was scored on, sorted.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["a", "a", "b"], "observer_kind": "model", "experiment": ["x", "y", "x"]})
    >>> experiments_scored(t, ["x", "y"])
    (['a'], {'b': ['x']})
    """
    models = trials.loc[trials["observer_kind"] == "model", ["observer", "experiment"]].drop_duplicates()
    have = models.groupby("observer")["experiment"].agg(lambda e: sorted(set(e)))
    wanted = set(experiments)
    complete = sorted(m for m, e in have.items() if wanted <= set(e))
    partial = {m: [x for x in e if x in wanted] for m, e in have.items() if not wanted <= set(e)}
    return complete, dict(sorted(partial.items()))
