"""The design of strata: where pandas stops and the arrays of the resampling engine begin.

A *stratum* is the unit within which items are resampled (an experiment x condition, a class, an observer x
sequence). It holds its item ids, its observers and the numeric arrays a metric needs, each with items on the
first axis. A *design* is the tuple of strata of one analysis plus the observer *groups*: the observers that an
observer-level resampling draws jointly (the humans of an experiment), shared by every stratum of the group.

:func:`build_design` makes a design from a trial table in one pass (factorize + bincount, no per-cell pandas):
per stratum, ``n_correct`` and ``n_trials`` (items x observers counts over all presentations) and, where the
table has decision margins, ``margin`` (items x observers, the mean margin; NaN where absent).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .names import stream_label
from .schema import TrialTableError


@dataclass(frozen=True)
class Stratum:
    """One stratum: items resampled together, its observers, and the arrays a metric needs.

    Attributes
    ----------
    key : tuple of str
        The stratum's name, e.g. ``("edge", "0")``; in its :attr:`stream_key` spelling it also names the
        stratum's random stream.
    items : numpy.ndarray
        Item ids, shape (items,).
    observers : tuple of str
        Observer names; columns of the (items x observers) arrays, in this order.
    arrays : Mapping[str, numpy.ndarray]
        Numeric arrays with items on the first axis.
    group : tuple of str
        Key of the observer group this stratum belongs to (``()`` for none).
    group_columns : numpy.ndarray
        For each member of the group (in :attr:`Design.groups` order), its column in :attr:`observers`.

    Raises
    ------
    ValueError
        If an array does not have one row per item.

    Examples
    --------
    >>> s = Stratum(("e", "0"), np.array(["i1", "i2"]), ("a", "b"), {"n_correct": np.array([[1.0, 0.0], [1.0, 1.0]])})
    >>> s.n_items, s.arrays["n_correct"].shape
    (2, (2, 2))
    """

    key: tuple[str, ...]
    items: np.ndarray
    observers: tuple[str, ...]
    arrays: Mapping[str, np.ndarray] = field(repr=False)
    group: tuple[str, ...] = ()
    group_columns: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int), repr=False)

    @property
    def stream_key(self) -> tuple:
        """The key that names the stratum's random stream: :attr:`key` with every label that spells a number in
        its canonical spelling (:func:`humanlike.trials.names.stream_label`), so a condition ``0.00`` re-spelled
        ``0.0`` by pandas draws the same resamples.

        Examples
        --------
        >>> Stratum(("noise", "0.00"), np.array(["i1"]), ("a",), {}).stream_key
        ('noise', '0')
        """
        return tuple(stream_label(part) for part in self.key)

    @property
    def n_items(self) -> int:
        """Number of items in the stratum."""
        return int(self.items.size)

    def __post_init__(self) -> None:
        for name, values in self.arrays.items():
            if np.shape(values)[:1] != (self.items.size,):
                raise ValueError(f"stratum {self.key}: array '{name}' has shape {np.shape(values)}, "
                                 f"expected {self.items.size} items on the first axis")


@dataclass(frozen=True)
class Design:
    """The strata of one analysis and its observer groups.

    Usually built by :func:`build_design`. Iterating over a design yields its strata.

    Attributes
    ----------
    strata : tuple of Stratum
        Sorted by key, so that nothing depends on the order of the data.
    groups : Mapping[tuple, tuple of str]
        Observer group key -> the names of the observers resampled jointly (e.g. the humans of an experiment).

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["a", "b", "a", "b"], "observer_kind": "human", "experiment": "e",
    ...                   "condition": ["0", "0", "1", "1"], "item": ["i1", "i1", "i2", "i2"], "label": "x",
    ...                   "response": ["x", "y", "x", "x"], "correct": [True, False, True, True]})
    >>> d = build_design(t)
    >>> len(d), d.keys, d.groups
    (2, [('e', '0'), ('e', '1')], {('e',): ('a', 'b')})
    """

    strata: tuple[Stratum, ...]
    groups: Mapping[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Stratum]:
        return iter(self.strata)

    def __len__(self) -> int:
        return len(self.strata)

    @property
    def keys(self) -> list[tuple[str, ...]]:
        """The strata keys, in order."""
        return [s.key for s in self.strata]

    def stratum(self, key: tuple[str, ...]) -> Stratum:
        """The stratum with this key (KeyError naming the available keys).

        Parameters
        ----------
        key : tuple of str
            The stratum's key, e.g. ``("edge", "0")``.

        Returns
        -------
        Stratum
            The stratum with that key.

        Raises
        ------
        KeyError
            If no stratum has that key; the message lists the first available keys.
        """
        for s in self.strata:
            if s.key == tuple(key):
                return s
        raise KeyError(f"no stratum {tuple(key)}; strata: {self.keys[:5]}{' ...' if len(self) > 5 else ''}")

    def select(self, keep) -> Design:
        """The design restricted to the strata for which ``keep(stratum)`` is true (groups kept if used).

        Parameters
        ----------
        keep : callable
            ``keep(stratum) -> bool``.

        Returns
        -------
        Design
            A new design with the kept strata, in the same order, and the observer groups they use.
        """
        strata = tuple(s for s in self.strata if keep(s))
        used = {s.group for s in strata}
        return Design(strata, {g: m for g, m in self.groups.items() if g in used})


def build_design(
    trials: pd.DataFrame,
    *,
    by: Sequence[str] = ("experiment", "condition"),
    group_by: Sequence[str] | None = ("experiment",),
    group_kind: str | None = "human",
    observer_order: str = "kind",
    margins: bool = True,
    min_items: int = 1,
) -> Design:
    """Build the design of strata from a (validated) trial table.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (see :mod:`humanlike.trials.schema`); every presentation is counted (filter first
        presentations beforehand where a metric needs single responses).
    by : sequence of str
        Columns whose unique combinations are the strata.
    group_by : sequence of str or None
        Columns (a prefix of ``by``) that define observer groups; ``None`` for no observer groups.
    group_kind : str or None
        Only observers of this ``observer_kind`` belong to a group (``None``: all observers).
    observer_order : {"kind", "name"}
        ``"kind"``: humans first, then models, each sorted by name; ``"name"``: sorted by name.
        The observers of a stratum are all observers of its group key (its experiment), whether or not each
        answered in this stratum, so that columns line up across the strata of a group.
    margins : bool
        Also build ``margin`` (mean decision margin per item and observer) when the table has margins.
    min_items : int
        Strata with fewer items raise a :class:`TrialTableError` naming the stratum.

    Returns
    -------
    Design
        Strata sorted by key, each with arrays ``n_correct`` and ``n_trials`` (items x observers, float64)
        and optionally ``margin``. Observer kinds are not stored in the arrays: see :func:`observer_kinds`.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"observer": ["a", "b", "a", "b"], "observer_kind": "human", "experiment": "e",
    ...                   "condition": "0", "item": ["i1", "i1", "i2", "i2"], "label": "x",
    ...                   "response": ["x", "y", "x", "x"], "correct": [True, False, True, True]})
    >>> d = build_design(t)
    >>> d.keys, d.strata[0].arrays["n_correct"].tolist()
    ([('e', '0')], [[1.0, 0.0], [1.0, 1.0]])
    """
    by = list(by)
    missing = [c for c in by if c not in trials.columns]
    if missing:
        raise TrialTableError(f"cannot build strata: column(s) {missing} missing from the trial table")
    group_cols = list(group_by) if group_by is not None else []
    if group_cols and by[:len(group_cols)] != group_cols:
        raise ValueError(f"group_by {group_cols} must be a prefix of by {by}")
    if observer_order not in ("kind", "name"):
        raise ValueError(f"observer_order must be 'kind' or 'name', not {observer_order!r}")
    if trials.empty:
        raise TrialTableError("cannot build strata from an empty trial table")

    obs_codes, obs_names = pd.factorize(trials["observer"], sort=True)
    item_codes, item_names = pd.factorize(trials["item"], sort=True)
    obs_names = np.asarray(obs_names, dtype=object)
    item_names = np.asarray(item_names, dtype=object)
    kinds = (pd.Series(trials["observer_kind"].to_numpy(), index=obs_codes).groupby(level=0).first()
             .reindex(range(len(obs_names))).to_numpy())
    correct = trials["correct"].to_numpy(dtype=float)
    margin = (trials["decision_margin"].to_numpy(dtype=float)
              if margins and "decision_margin" in trials.columns else None)

    stratum_codes, stratum_keys = _factorize_rows(trials, by)
    group_of_stratum = [tuple(k[:len(group_cols)]) for k in stratum_keys]
    # Observers of each group key (all observers of the group, whether or not they answered in a stratum).
    row_group_codes, group_keys = _factorize_rows(trials, group_cols)
    observers_of_group = {
        tuple(g): _order_observers(np.unique(obs_codes[row_group_codes == code]), obs_names, kinds, observer_order)
        for code, g in enumerate(group_keys)}

    order = np.argsort(stratum_codes, kind="stable")
    bounds = np.searchsorted(stratum_codes[order], np.arange(len(stratum_keys) + 1))
    strata = []
    groups: dict[tuple, tuple[str, ...]] = {}
    for s, key in enumerate(stratum_keys):
        idx = order[bounds[s]:bounds[s + 1]]
        g = group_of_stratum[s]
        columns = observers_of_group[g]
        position = np.full(len(obs_names), -1)
        position[columns] = np.arange(columns.size)
        items, local = np.unique(item_codes[idx], return_inverse=True)
        if items.size < min_items:
            raise TrialTableError(f"stratum {dict(zip(by, key))} has {items.size} item(s); at least "
                                  f"{min_items} needed")
        n_obs = columns.size
        cells = local * n_obs + position[obs_codes[idx]]
        size = items.size * n_obs
        n_trials = np.bincount(cells, minlength=size).reshape(items.size, n_obs).astype(float)
        arrays = {
            "n_trials": n_trials,
            "n_correct": np.bincount(cells, weights=correct[idx], minlength=size).reshape(items.size, n_obs),
        }
        if margin is not None:
            total = np.bincount(cells, weights=np.nan_to_num(margin[idx]), minlength=size)
            count = np.bincount(cells, weights=~np.isnan(margin[idx]), minlength=size)
            with np.errstate(invalid="ignore", divide="ignore"):
                arrays["margin"] = np.where(count > 0, total / np.maximum(count, 1), np.nan).reshape(items.size, n_obs)
        names = tuple(str(o) for o in obs_names[columns])
        if group_cols:
            members = [k for k, c in enumerate(columns) if group_kind is None or kinds[c] == group_kind]
            groups[g] = tuple(names[k] for k in members)
            group_columns = np.asarray(members, dtype=int)
        else:
            group_columns = np.zeros(0, dtype=int)
        strata.append(Stratum(tuple(str(v) for v in key), item_names[items].astype(str), names, arrays,
                              g if group_cols else (), group_columns))
    strata.sort(key=lambda st: st.key)
    return Design(tuple(strata), groups)


def observer_kinds(trials: pd.DataFrame) -> dict[str, str]:
    """Observer name -> observer kind (``human`` / ``model``) of a trial table.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table with columns ``observer`` and ``observer_kind``.

    Returns
    -------
    dict of str to str
        The kind of each observer (from its first row).

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["a", "m", "a"], "observer_kind": ["human", "model", "human"]})
    >>> observer_kinds(t)
    {'a': 'human', 'm': 'model'}
    """
    first = trials.drop_duplicates("observer")
    return dict(zip(first["observer"].astype(str), first["observer_kind"].astype(str)))


def _factorize_rows(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, list[tuple]]:
    """Codes of the unique combinations of ``columns`` (sorted), and the combinations."""
    if not columns:
        return np.zeros(len(frame), dtype=np.int64), [()]
    keys = frame[columns].astype(str)
    combos = keys.drop_duplicates().sort_values(columns).reset_index(drop=True)
    combos["__code"] = np.arange(len(combos))
    codes = keys.merge(combos, on=columns, how="left")["__code"].to_numpy()
    return codes.astype(np.int64), [tuple(r) for r in combos[columns].itertuples(index=False, name=None)]


def _order_observers(members: np.ndarray, names: np.ndarray, kinds: np.ndarray, order: str) -> np.ndarray:
    if order == "name":
        return members[np.argsort(names[members].astype(str))]
    human = [m for m in members if kinds[m] == "human"]
    other = [m for m in members if kinds[m] != "human"]
    by_name = lambda ms: sorted(ms, key=lambda m: str(names[m]))  # noqa: E731
    return np.asarray(by_name(human) + by_name(other), dtype=int)
