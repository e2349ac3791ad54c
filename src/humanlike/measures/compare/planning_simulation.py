"""The outcome of simulated model comparisons, shared by the EC and the DMC planning (docs/compare.md).

:class:`SimulatedComparisons` holds, per simulated data set, the estimated difference, the interval ``compare``
reports and the tests' p-values, and gives the rejection rate (power) and the coverage;
:func:`replicate_percentiles` is the paired bootstrap's percentile interval of each data set. The EC
simulation (copy model) is in :mod:`humanlike.measures.compare.planning_ec`, the DMC one (margin model) in
:mod:`humanlike.measures.compare.planning_dmc`, the plans built on both in
:mod:`humanlike.measures.compare.planning`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SimulatedComparisons:
    """Per simulated data set: the difference, its interval and the p-values of the tests.

    Attributes
    ----------
    difference : numpy.ndarray
        Estimated ``score_A - score_B`` per data set.
    ci_low, ci_high : numpy.ndarray
        The interval ``compare`` reports (NaN where undefined): for EC on one table the MOVER interval
        (:func:`humanlike.measures.compare.mover.ec_difference_interval`), for DMC the percentile interval of
        the paired bootstrap.
    p_bootstrap : numpy.ndarray
        The bootstrap p-value of a zero difference (:func:`humanlike.stats.comparison.bootstrap_p_value`).
    p_exact : numpy.ndarray or None
        The exact label-exchange p-value (EC only, when asked for; possibly of the first data sets only).
    true_difference : float
        The planted population difference.
    alternatives : dict
        Other intervals of the same data sets, ``{name: (low, high)}``, for the calibration (EC: the paired
        bootstrap's ``"percentile"`` interval, ``"mover-bootstrap"``, MOVER with the lower limit of the
        replicates' correlation, and ``"mover-plain"``, MOVER with the replicates' correlation as estimated).

    Examples
    --------
    >>> sim = SimulatedComparisons(np.array([0.1, 0.0]), np.array([0.05, -0.1]), np.array([0.2, 0.1]),
    ...                            np.array([0.01, 0.9]), None, 0.1)
    >>> sim.rejection_rate(0.05), sim.coverage()
    (0.5, 1.0)
    """

    difference: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_bootstrap: np.ndarray
    p_exact: np.ndarray | None
    true_difference: float
    alternatives: dict = field(default_factory=dict)

    def rejection_rate(self, alpha: float = 0.05, test: str = "bootstrap") -> float:
        """Share of data sets in which ``test`` declares the difference resolved (p <= alpha; NaN p: not).

        Parameters
        ----------
        alpha : float
            The level.
        test : {"bootstrap", "exact"}
            Which test.

        Returns
        -------
        float
        """
        p = self.p_bootstrap if test == "bootstrap" else self.p_exact
        if p is None:
            raise ValueError(f"no {test} p-values were simulated")
        return float(np.mean(np.nan_to_num(p, nan=2.0) <= alpha))

    def coverage(self, interval: str = "reported") -> float:
        """Share of data sets whose interval contains the planted difference (an undefined interval misses).

        Parameters
        ----------
        interval : str
            ``"reported"`` (``ci_low``, ``ci_high``: the interval ``compare`` reports) or a key of
            :attr:`alternatives`.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            On an interval that was not simulated.
        """
        if interval == "reported":
            low, high = self.ci_low, self.ci_high
        elif interval in self.alternatives:
            low, high = self.alternatives[interval]
        else:
            raise ValueError(f"no {interval!r} interval; simulated: {['reported', *self.alternatives]}")
        return float(np.mean((low <= self.true_difference) & (self.true_difference <= high)))


def replicate_percentiles(reps: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of each data set's bootstrap replicates, NaN replicates skipped.

    Parameters
    ----------
    reps : numpy.ndarray
        Replicates, shape (data sets, resamples); NaN marks an undefined replicate.
    level : float
        Interval level.

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        Each of shape (data sets,); NaN where a data set has no defined replicate.

    Examples
    --------
    >>> low, high = replicate_percentiles(np.array([[0.0, 1.0, 2.0, 3.0, 4.0, np.nan]]), 0.5)
    >>> low.tolist(), high.tolist()
    ([1.0], [3.0])
    """
    alpha = (1 - level) / 2
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        low, high = np.nanquantile(reps, [alpha, 1 - alpha], axis=1)
    return low, high
