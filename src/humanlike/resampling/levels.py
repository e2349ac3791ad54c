"""The confidence level of an interval, checked in one place.

Every interval takes a level in (0, 1): the bootstrap's (:mod:`humanlike.resampling.intervals`), the jackknife's
(:mod:`humanlike.resampling.jackknife`), a result's (:class:`~humanlike.resampling.results.Resampled`) and the
paired comparisons' (:mod:`humanlike.stats.comparison`).
"""

from __future__ import annotations


def check_level(level: float) -> None:
    """Raise ValueError unless ``level`` lies in (0, 1).

    Parameters
    ----------
    level : float
        A confidence level.

    Raises
    ------
    ValueError
        If ``level`` is not in the open interval (0, 1).

    Examples
    --------
    >>> check_level(0.95)
    >>> check_level(95)
    Traceback (most recent call last):
    ...
    ValueError: confidence level must lie in (0, 1), got 95
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie in (0, 1), got {level}")
