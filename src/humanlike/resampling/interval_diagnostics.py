"""What a bootstrap interval does not say by itself: undefined resamples and zero-width intervals.

A resample in which a statistic is undefined (kappa of two constant observers) is dropped from the
percentile interval; when many are dropped the interval describes only the resamples where the statistic
exists. A zero-width interval ("1.000 [1.000, 1.000]" for models sharing a single error, "[0, 0]" with a
constant observer, or any interval from one resample) is not a certainty but a sign that the resampling
cannot vary the statistic. :func:`interval_diagnostics` reports both per column (pair or aggregate) so a
pipeline can print them, and warns once per call.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

#: Undefined share above which :func:`interval_diagnostics` warns.
UNDEFINED_WARN_SHARE = 0.05
#: Fewest resamples an interval may be computed from.
MIN_RESAMPLES = 2


class ResamplingWarning(UserWarning):
    """An interval is degenerate or rests on a reduced share of the resamples.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = interval_diagnostics(np.array([[1.0], [1.0]]), [1.0], [1.0])
    >>> caught[0].category.__name__, str(caught[0].message)
    ('ResamplingWarning', '1 of 1 intervals need care: column 0: zero-width interval')
    """


def check_resample_count(n_resamples, minimum: int = MIN_RESAMPLES) -> int:
    """Return ``n_resamples`` as an int, or raise ValueError for non-integers, negatives and too few.

    Parameters
    ----------
    n_resamples : int
        Requested number of resamples.
    minimum : int
        Fewest accepted (one resample gives a zero-width "interval").

    Returns
    -------
    int

    Examples
    --------
    >>> check_resample_count(1000)
    1000
    >>> check_resample_count(1)
    Traceback (most recent call last):
    ValueError: the number of resamples must be an integer >= 2, got 1 (one resample gives a zero-width interval)
    """
    value = float(n_resamples) if not isinstance(n_resamples, (int, np.integer)) else n_resamples
    if isinstance(value, float) and (not np.isfinite(value) or value != int(value)):
        raise ValueError(f"the number of resamples must be an integer >= {minimum}, got {n_resamples!r}")
    value = int(value)
    if value < minimum:
        why = " (one resample gives a zero-width interval)" if value == 1 else ""
        raise ValueError(f"the number of resamples must be an integer >= {minimum}, got {value}{why}")
    return value


def undefined_share(replicates, axis: int = 0) -> np.ndarray:
    """Share of undefined (NaN) replicates along ``axis`` (resamples), per remaining entry.

    Parameters
    ----------
    replicates : array_like of float
        Bootstrap replicates, NaN where the statistic was undefined.
    axis : int, default 0
        The resample axis.

    Returns
    -------
    numpy.ndarray
        Share in [0, 1] per entry of the other axes.

    Raises
    ------
    ValueError
        If there are no replicates along ``axis``.

    Examples
    --------
    >>> undefined_share(np.array([[1.0, np.nan], [np.nan, np.nan], [0.5, 1.0], [0.2, 0.3]])).tolist()
    [0.25, 0.5]
    """
    replicates = np.asarray(replicates, dtype=float)
    if replicates.shape[axis] == 0:
        raise ValueError("no replicates")
    return np.isnan(replicates).mean(axis=axis)


def degenerate_interval(low, high, atol: float = 0.0) -> np.ndarray:
    """True where an interval has zero width (``high - low <= atol``, both ends defined).

    Parameters
    ----------
    low, high : array_like of float
        Interval ends (broadcastable).
    atol : float, default 0.0
        Largest width still counted as zero.

    Returns
    -------
    numpy.ndarray of bool
        True for zero-width intervals; False where an end is NaN.

    Examples
    --------
    >>> degenerate_interval([1.0, 0.2, np.nan], [1.0, 0.5, np.nan]).tolist()
    [True, False, False]
    """
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.isfinite(low) & np.isfinite(high) & (high - low <= atol)


@dataclass(frozen=True)
class IntervalDiagnostics:
    """Per column: ``undefined_share`` of the replicates, ``degenerate`` (zero-width interval), ``note``.

    Attributes
    ----------
    undefined_share : numpy.ndarray
        Share of undefined replicates per column.
    degenerate : numpy.ndarray of bool
        Zero-width interval per column.
    note : numpy.ndarray of object
        "" for an unremarkable column, else what needs care.

    Examples
    --------
    >>> reps = np.array([[1.0, 0.1], [1.0, np.nan], [1.0, 0.3], [1.0, np.nan]])
    >>> d = interval_diagnostics(reps, [1.0, 0.1], [1.0, 0.3], warn=False)
    >>> d.undefined_share.tolist()
    [0.0, 0.5]
    """

    undefined_share: np.ndarray
    degenerate: np.ndarray
    note: np.ndarray

    def to_frame(self, names=None):
        """Tidy table with columns undefined_share, degenerate, note (``names`` as the index).

        Parameters
        ----------
        names : sequence of str, optional
            Row labels (one per column of the replicates); default a range index.

        Returns
        -------
        pandas.DataFrame
            One row per column.

        Examples
        --------
        >>> reps = np.array([[1.0, 0.1], [1.0, np.nan], [1.0, 0.3], [1.0, np.nan]])
        >>> d = interval_diagnostics(reps, [1.0, 0.1], [1.0, 0.3], warn=False)
        >>> d.to_frame(["a-b", "a-c"]).loc["a-c", "note"]
        '50% of resamples undefined'
        """
        import pandas as pd

        return pd.DataFrame({"undefined_share": self.undefined_share, "degenerate": self.degenerate,
                             "note": self.note}, index=names)


def interval_diagnostics(replicates, low, high, *, names=None, warn: bool = True,
                         warn_share: float = UNDEFINED_WARN_SHARE) -> IntervalDiagnostics:
    """Undefined share and zero-width flag per column of a (resamples x columns) replicate matrix.

    Parameters
    ----------
    replicates : array_like
        Bootstrap replicates, resamples along axis 0, one column per pair or aggregate (1-D: one column).
    low, high : array_like
        The interval ends per column.
    names : sequence of str, optional
        Column names used in the notes and the warning.
    warn : bool
        Emit one :class:`ResamplingWarning` summarising the flagged columns.
    warn_share : float
        Undefined share above which a column is flagged.

    Returns
    -------
    IntervalDiagnostics
        ``note`` is '' for an unremarkable column, else e.g. ``"zero-width interval"`` or
        ``"37% of resamples undefined"``.

    Examples
    --------
    >>> reps = np.array([[1.0, 0.1], [1.0, np.nan], [1.0, 0.3], [1.0, np.nan]])
    >>> d = interval_diagnostics(reps, [1.0, 0.1], [1.0, 0.3], names=["a-b", "a-c"], warn=False)
    >>> d.degenerate.tolist(), d.note.tolist()
    ([True, False], ['zero-width interval', '50% of resamples undefined'])
    """
    replicates = np.asarray(replicates, dtype=float)
    if replicates.ndim == 1:
        replicates = replicates[:, None]
    share = undefined_share(replicates, axis=0)
    flat = degenerate_interval(np.atleast_1d(low), np.atleast_1d(high))
    notes = []
    for s, zero in zip(share, flat, strict=True):
        parts = []
        if zero:
            parts.append("zero-width interval")
        if s >= 1.0:
            parts.append("every resample undefined")
        elif s > warn_share:
            parts.append(f"{100 * s:.0f}% of resamples undefined")
        notes.append("; ".join(parts))
    note = np.array(notes, dtype=object)
    if warn and any(notes):
        labels = list(names) if names is not None else [f"column {i}" for i in range(len(notes))]
        flagged = [f"{labels[i]}: {n}" for i, n in enumerate(notes) if n]
        more = f" (and {len(flagged) - 5} more)" if len(flagged) > 5 else ""
        warnings.warn(f"{len(flagged)} of {len(notes)} intervals need care: " + "; ".join(flagged[:5]) + more,
                      ResamplingWarning, stacklevel=2)
    return IntervalDiagnostics(share, flat, note)
