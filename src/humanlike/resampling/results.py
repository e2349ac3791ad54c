"""One result shape for every resampled statistic, in the style of scipy.stats results.

A :class:`Resampled` holds the point estimates of K output columns, the kept bootstrap replicates (R x K),
optionally the moments of the jackknife rows (BCa and the jackknife intervals), a reason for every undefined
estimate, the labels that name each
column, and the settings that produced it. Intervals are computed on demand, at any level and by any method,
without rerunning anything.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .intervals import bca_interval, nan_counts, percentile_interval
from .jackknife import JackknifeMoments, jackknife_interval, jackknife_t_interval
from .levels import check_level

INTERVAL_METHODS = ("percentile", "bca", "jackknife", "jackknife-t")
#: The intervals computed from the leave-one-item-out jackknife alone, not from the replicates: they cannot carry
#: an observer level (which acts on the replicates), so the settings and :meth:`Resampled.interval` refuse both.
ITEM_JACKKNIFE_INTERVALS = ("jackknife", "jackknife-t")

#: The reason of a defined estimate whose bootstrap replicates all take one value: no interval is given.
REASON_DEGENERATE = ("no interval: every bootstrap resample gives the same value (nothing varies between "
                     "resamples, e.g. one item per resampled stratum), so the bootstrap says nothing about "
                     "its uncertainty")
#: Relative spread of the replicates (max - min over max(1, |estimate|)) at or below which they are one value.
DEGENERATE_SPREAD = 1e-12


@dataclass(frozen=True)
class Resampled:
    """Estimates with their bootstrap replicates and everything needed to rebuild an interval.

    Attributes
    ----------
    estimate : numpy.ndarray
        Point estimates, shape (K,).
    replicates : numpy.ndarray
        Bootstrap replicates, shape (R, K) (R = 0 when no resampling was asked for), float64 or float32. NaN
        marks a replicate in which the statistic is undefined.
    labels : list of tuple
        One tuple per column naming it, with fields :attr:`label_names`.
    label_names : tuple of str
        Names of the label fields, e.g. ``("scope", "group", "metric")``.
    reasons : numpy.ndarray
        Why an estimate is undefined (``""`` where it is defined), shape (K,).
    jackknife : JackknifeMoments or None
        The moments of the leave-one-out rows, for the BCa acceleration and the jackknife intervals (rows (n, K)
        given are turned into their :class:`~humanlike.resampling.jackknife.JackknifeMoments`).
    settings : dict
        The settings that produced the result (a :class:`~humanlike.resampling.settings.ResamplingSettings` as dict).
    level, method : float, str
        Defaults for :meth:`interval` and :meth:`to_frame`.

    Examples
    --------
    >>> import numpy as np
    >>> r = Resampled(np.array([0.5]), np.linspace(0.4, 0.6, 101)[:, None], [("kappa",)], ("metric",))
    >>> [round(float(v), 3) for v in r.interval(0.9)[0]], r.to_frame()["estimate"].tolist()
    ([0.41], [0.5])
    """

    estimate: np.ndarray
    replicates: np.ndarray
    labels: list[tuple] = field(default_factory=list)
    label_names: tuple[str, ...] = ()
    reasons: np.ndarray | None = None
    jackknife: JackknifeMoments | None = field(default=None, repr=False)
    settings: dict = field(default_factory=dict)
    level: float = 0.95
    method: str = "percentile"
    # intervals and NaN counts already computed: the replicates are fixed, and a table, its frame and its JSON
    # all ask for the same interval (each a pass over a matrix of 10,000 x many columns)
    _computed: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        estimate = np.atleast_1d(np.asarray(self.estimate, dtype=float))
        replicates = np.asarray(self.replicates)
        if replicates.dtype != np.float32:   # float32 replicates (a kernel evaluated in float32) stay float32
            replicates = replicates.astype(np.float64, copy=False)
        if replicates.ndim == 1:
            replicates = replicates[:, None] if estimate.size == 1 else replicates[None, :]
        if replicates.size == 0:
            replicates = np.zeros((0, estimate.size))
        if replicates.shape[1] != estimate.size:
            raise ValueError(f"replicates have {replicates.shape[1]} columns for {estimate.size} estimates")
        labels = list(self.labels) if self.labels else [(k,) for k in range(estimate.size)]
        if len(labels) != estimate.size:
            raise ValueError(f"{len(labels)} labels for {estimate.size} estimates")
        names = tuple(self.label_names) if self.label_names else tuple(f"label_{k}" for k in range(len(labels[0])))
        reasons = (np.full(estimate.size, "", dtype=object) if self.reasons is None
                   else np.asarray(self.reasons, dtype=object))
        if self.method not in INTERVAL_METHODS:
            raise ValueError(f"interval method must be one of {INTERVAL_METHODS}, not {self.method!r}")
        check_level(self.level)
        object.__setattr__(self, "estimate", estimate)
        object.__setattr__(self, "replicates", replicates)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "label_names", names)
        object.__setattr__(self, "reasons", reasons)
        if self.jackknife is not None:
            object.__setattr__(self, "jackknife", JackknifeMoments.of(self.jackknife, estimate))

    @property
    def n_resamples(self) -> int:
        """Number of kept bootstrap replicates."""
        return int(self.replicates.shape[0])

    def __len__(self) -> int:
        return int(self.estimate.size)

    def undefined_share(self) -> np.ndarray:
        """Share of replicates in which each statistic is undefined (NaN), shape (K,); NaN without replicates.

        Returns
        -------
        numpy.ndarray
            Shares in [0, 1], shape (K,).

        Examples
        --------
    >>> replicates = np.column_stack([np.linspace(0.4, 0.6, 101), np.r_[np.nan, np.linspace(0.1, 0.3, 100)]])
    >>> r = Resampled(np.array([0.5, 0.2]), replicates, [("a", "kappa"), ("b", "kappa")], ("pair", "metric"))
        >>> r.undefined_share().round(4).tolist()
        [0.0, 0.0099]
        """
        if self.n_resamples == 0:
            return np.full(self.estimate.size, np.nan)
        return self._nan_counts() / self.n_resamples

    def degenerate(self) -> np.ndarray:
        """Whether each column's resampling distribution is degenerate: a defined estimate, at least two
        defined replicates, and all of them one value (within :data:`DEGENERATE_SPREAD`).

        A zero-width bootstrap interval claims certainty the data do not give: it arises where the resampled
        unit has a single member (one item per stratum, one observer per group), so every resample is the
        original data. :meth:`interval` gives NaN there and :meth:`to_frame` says why
        (:data:`REASON_DEGENERATE`); every measure gets this check through this class.

        Returns
        -------
        numpy.ndarray of bool
            Shape (K,); all False without replicates.

        Examples
        --------
        >>> r = Resampled(np.array([0.3, 0.3]), np.column_stack([np.full(50, 0.3), np.linspace(0.2, 0.4, 50)]))
        >>> r.degenerate().tolist(), r.interval()[0].round(3).tolist()
        ([True, False], [nan, 0.205])
        """
        if "degenerate" not in self._computed:
            flags = np.zeros(self.estimate.size, dtype=bool)
            if self.n_resamples >= 2:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", category=RuntimeWarning)   # all-NaN columns
                    spread = np.nanmax(self.replicates, axis=0) - np.nanmin(self.replicates, axis=0)
                scale = np.maximum(1.0, np.abs(self.estimate))
                defined = (self.n_resamples - self._nan_counts() >= 2) & np.isfinite(self.estimate)
                flags = defined & (spread <= DEGENERATE_SPREAD * scale)
            self._computed["degenerate"] = flags
        return self._computed["degenerate"]

    def _nan_counts(self) -> np.ndarray:
        if "nan_counts" not in self._computed:
            self._computed["nan_counts"] = nan_counts(self.replicates)
        return self._computed["nan_counts"]

    def interval(self, level: float | None = None, method: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Confidence interval of every column.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the result's level.
        method : {"percentile", "bca", "jackknife", "jackknife-t"}, optional
            ``"bca"``, ``"jackknife"`` (:func:`~humanlike.resampling.jackknife.jackknife_interval`) and
            ``"jackknife-t"`` (:func:`~humanlike.resampling.jackknife.jackknife_t_interval`) need jackknife
            rows; defaults to the result's method.

        Returns
        -------
        (low, high) : tuple of numpy.ndarray
            Each of shape (K,). NaN where fewer than two replicates are defined, the estimate is undefined, or
            every replicate is one value (:meth:`degenerate`). A jackknife interval is centred on the
            bias-corrected estimate, so it can exclude the estimate; tables that show both widen it
            (:func:`~humanlike.resampling.intervals.containing_estimate`).
        """
        level = self.level if level is None else level
        method = self.method if method is None else method
        check_level(level)
        nan = np.full(self.estimate.size, np.nan)
        if self.n_resamples < 2:
            return nan, nan.copy()
        key = ("interval", float(level), method)
        if key not in self._computed:
            self._computed[key] = self._interval(level, method)
        low, high = self._computed[key]
        return low.copy(), high.copy()

    def _interval(self, level: float, method: str) -> tuple[np.ndarray, np.ndarray]:
        observers = self.settings.get("observer_level", "none")
        if method in ITEM_JACKKNIFE_INTERVALS and observers != "none":
            raise ValueError(f"a {method} interval comes from the item jackknife alone and would leave out the "
                             f"observer level ({observers}) these replicates carry; use 'percentile' or 'bca'")
        if method == "percentile":
            counts = None if "nan_counts" in self._computed else np.empty(self.estimate.size, dtype=np.int64)
            low, high = percentile_interval(self.replicates, level, nan_counts_out=counts)
            if counts is not None:
                self._computed["nan_counts"] = counts
        elif method == "bca":
            if self.jackknife is None:
                raise ValueError("a BCa interval needs jackknife rows; rerun with interval='bca'")
            low, high = bca_interval(self.replicates, self.estimate, self.jackknife, level)
        elif method == "jackknife":
            if self.jackknife is None:
                raise ValueError("a jackknife interval needs jackknife rows; rerun with interval='jackknife'")
            low, high = jackknife_interval(self.estimate, self.jackknife, level)
        elif method == "jackknife-t":
            if self.jackknife is None:
                raise ValueError("a jackknife-t interval needs jackknife rows; rerun with interval='jackknife-t'")
            low, high = jackknife_t_interval(self.estimate, self.jackknife, level)
        else:
            raise ValueError(f"interval method must be one of {INTERVAL_METHODS}, not {method!r}")
        defined = (self.n_resamples - self._nan_counts() >= 2) & np.isfinite(self.estimate) & ~self.degenerate()
        return np.where(defined, low, np.nan), np.where(defined, high, np.nan)

    def standard_error(self) -> np.ndarray:
        """Bootstrap standard error of every column (NaN replicates skipped).

        Returns
        -------
        numpy.ndarray
            SD (ddof=1) of the defined replicates per column, shape (K,); NaN with fewer than 2 replicates.
        """
        if self.n_resamples < 2:
            return np.full(self.estimate.size, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            return np.nanstd(self.replicates, axis=0, ddof=1)

    def select(self, columns: Sequence[int] | np.ndarray) -> Resampled:
        """The result restricted to some columns (indices or a boolean mask).

        Parameters
        ----------
        columns : sequence of int or numpy.ndarray of bool
            Column indices, or a mask of length K.

        Returns
        -------
        Resampled
            The same settings, with estimates, replicates, labels, reasons and jackknife moments of those columns.

        Examples
        --------
    >>> replicates = np.column_stack([np.linspace(0.4, 0.6, 101), np.r_[np.nan, np.linspace(0.1, 0.3, 100)]])
    >>> r = Resampled(np.array([0.5, 0.2]), replicates, [("a", "kappa"), ("b", "kappa")], ("pair", "metric"))
        >>> r.select([1]).labels
        [('b', 'kappa')]
        """
        idx = np.arange(self.estimate.size)[np.asarray(columns)]
        return replace(self, estimate=self.estimate[idx], replicates=self.replicates[:, idx],
                       labels=[self.labels[k] for k in idx], reasons=self.reasons[idx],
                       jackknife=None if self.jackknife is None else self.jackknife.select(idx))

    def where(self, **fields) -> Resampled:
        """The columns whose labels match every ``name=value`` given (a value may be a list of values).

        Parameters
        ----------
        **fields
            Label field names with the value (or list of values) to keep.

        Returns
        -------
        Resampled
            The matching columns (see :meth:`select`).

        Raises
        ------
        KeyError
            For a name that is not a label field.

        Examples
        --------
    >>> replicates = np.column_stack([np.linspace(0.4, 0.6, 101), np.r_[np.nan, np.linspace(0.1, 0.3, 100)]])
    >>> r = Resampled(np.array([0.5, 0.2]), replicates, [("a", "kappa"), ("b", "kappa")], ("pair", "metric"))
        >>> r.where(pair="b").estimate.tolist()
        [0.2]
        """
        mask = np.ones(self.estimate.size, dtype=bool)
        for name, value in fields.items():
            if name not in self.label_names:
                raise KeyError(f"no label field {name!r}; fields: {self.label_names}")
            pos = self.label_names.index(name)
            allowed = set(value) if isinstance(value, (list, tuple, set)) else {value}
            mask &= np.array([lab[pos] in allowed for lab in self.labels], dtype=bool)
        return self.select(mask)

    def to_frame(self, level: float | None = None, method: str | None = None):
        """Tidy table: the label fields, estimate, ci_low, ci_high, undefined_share, reason.

        Parameters
        ----------
        level : float, optional
            Confidence level (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        pandas.DataFrame
            One row per column.

        Examples
        --------
    >>> replicates = np.column_stack([np.linspace(0.4, 0.6, 101), np.r_[np.nan, np.linspace(0.1, 0.3, 100)]])
    >>> r = Resampled(np.array([0.5, 0.2]), replicates, [("a", "kappa"), ("b", "kappa")], ("pair", "metric"))
        >>> r.to_frame(0.9)[["pair", "ci_low", "ci_high"]].round(2).values.tolist()
        [['a', 0.41, 0.59], ['b', 0.11, 0.29]]
        """
        import pandas as pd

        low, high = self.interval(level, method)
        frame = pd.DataFrame(self.labels, columns=list(self.label_names))
        frame["estimate"] = self.estimate
        frame["ci_low"] = low
        frame["ci_high"] = high
        frame["undefined_share"] = self.undefined_share()
        frame["reason"] = np.where(self.degenerate() & (self.reasons == ""), REASON_DEGENERATE,
                                   self.reasons).astype(str)
        return frame

    def to_json_dict(self, level: float | None = None, method: str | None = None) -> dict:
        """JSON-ready dict: the settings, the interval in force and one record per column.

        Parameters
        ----------
        level : float, optional
            Confidence level (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        dict
            Keys ``settings``, ``level``, ``interval``, ``n_resamples`` and ``rows`` (the :meth:`to_frame`
            records, NaN as None).

        Examples
        --------
    >>> replicates = np.column_stack([np.linspace(0.4, 0.6, 101), np.r_[np.nan, np.linspace(0.1, 0.3, 100)]])
    >>> r = Resampled(np.array([0.5, 0.2]), replicates, [("a", "kappa"), ("b", "kappa")], ("pair", "metric"))
        >>> out = r.to_json_dict(0.9)
        >>> out["n_resamples"], [row["pair"] for row in out["rows"]]
        (101, ['a', 'b'])
        """
        frame = self.to_frame(level, method)
        records = [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
        return {"settings": dict(self.settings), "level": level or self.level, "interval": method or self.method,
                "n_resamples": self.n_resamples, "rows": records}


def _plain(value):
    if isinstance(value, (np.floating, float)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value
