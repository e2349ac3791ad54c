"""Error consistency of one pair of aligned correctness vectors, through the resampling engine."""

from __future__ import annotations

import numpy as np

from ...trials.design import Design, Stratum
from ..pairs.metric import UndefinedPolicy, kappa_from_counts_and_margins
from ...resampling.engine import bootstrap
from ...resampling.intervals import bca_interval, percentile_interval
from ...resampling.kernels import Output
from ...resampling.results import Resampled
from ...resampling.rng import SeedLike, make_rng
from ...resampling.settings import ResamplingSettings
from ..pairs.kernels import ErrorConsistencyKernel

PAIR_KEY = ("pair",)


def pair_error_consistency(x, y, *, settings: ResamplingSettings | None = None,
                           policy: UndefinedPolicy | str = UndefinedPolicy.STRICT) -> Resampled:
    """Error consistency of two observers on the same items, with its bootstrap replicates.

    Parameters
    ----------
    x, y : array_like of bool
        Correctness of the two observers on the same items, in the same order.
    settings : ResamplingSettings, optional
        Resamples, level, interval method (``"bca"`` adds the exact item jackknife) and seed.
    policy : {"strict", "model-vs-human"}
        What kappa is where it is undefined.

    Returns
    -------
    Resampled
        One column, ``("error_consistency",)``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random(200) < 0.7
    >>> y = np.where(rng.random(200) < 0.5, x, rng.random(200) < 0.7)
    >>> r = pair_error_consistency(x, y, settings=ResamplingSettings(n_resamples=500))
    >>> low, high = r.interval()
    >>> bool(low[0] < r.estimate[0] < high[0])
    True
    """
    x = np.asarray(x, dtype=bool)
    y = np.asarray(y, dtype=bool)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D correctness vectors of the same length, got {x.shape} and {y.shape}")
    if x.size == 0:
        raise ValueError("x and y are empty: error consistency needs at least one item")
    stratum = _pair_stratum(x, y)
    kernel = ErrorConsistencyKernel(policy)
    output = Output([("error_consistency",)], ("metric",))
    return bootstrap(Design((stratum,)), kernel, lambda values: values[PAIR_KEY][:, :1], output,
                     settings if settings is not None else ResamplingSettings())


def bootstrap_pair(x, y, *, n_resamples: int = 10_000, level: float = 0.95, seed: SeedLike = None,
                   policy: UndefinedPolicy | str = UndefinedPolicy.STRICT, method: str = "percentile"):
    """Bootstrap interval of error consistency for one pair: ``(estimate, low, high, replicates)``.

    Formerly ``humanlike.resampling.weights.bootstrap_pair``, numbers unchanged. Resampling the items of one
    pair is a multinomial draw of the four 2x2 counts, so no per-item work is needed: this is the fast form
    for simulation studies that call it thousands of times (``benchmarks/ec_coverage.py``);
    :func:`pair_error_consistency` is the same bootstrap on the engine (per-item weights, one result shape).
    ``method`` is ``"percentile"`` or ``"bca"`` (acceleration from the exact item jackknife of the EC kernel).

    Parameters
    ----------
    x, y : array_like of bool
        The two observers' correctness on the same items, 1-D and of equal length.
    n_resamples : int
        Bootstrap resamples.
    level : float
        Confidence level in (0, 1).
    seed : int, numpy.random.Generator or None
        Seed of the multinomial draws.
    policy : {"strict", "model-vs-human"}
        How kappa is defined when the expected agreement is 1 (see :class:`~humanlike.measures.pairs.metric.UndefinedPolicy`).
    method : {"percentile", "bca"}
        Interval method.

    Returns
    -------
    estimate : float
        Cohen's kappa of the pair on all items.
    low, high : float
        The interval bounds.
    replicates : numpy.ndarray
        The bootstrap kappas, shape (n_resamples,); NaN where undefined.

    Raises
    ------
    ValueError
        When ``x`` and ``y`` are not 1-D of the same length, or ``method`` is unknown.

    Examples
    --------
    >>> est, low, high, reps = bootstrap_pair([1, 1, 0, 0, 1, 0] * 20, [1, 0, 0, 0, 1, 1] * 20, n_resamples=200,
    ...                                       seed=0)
    >>> reps.shape, bool(low < est < high)
    ((200,), True)
    >>> round(est, 4)  # observed agreement 4/6, expected 1/2: kappa = (2/3 - 1/2) / (1/2)
    0.3333
    """
    x = np.asarray(x, dtype=bool)
    y = np.asarray(y, dtype=bool)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D correctness vectors of the same length")
    n = x.size
    counts = np.array([np.sum(x & y), np.sum(x & ~y), np.sum(~x & y), np.sum(~x & ~y)], dtype=float)
    rng = make_rng(seed)
    draws = rng.multinomial(n, counts / n, size=n_resamples).astype(float)
    a, b, c, d = draws.T
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = kappa_from_counts_and_margins(a, a + b, a + c, n, policy)
        estimate = kappa_from_counts_and_margins(counts[0], counts[0] + counts[1], counts[0] + counts[2], n, policy)
    if method == "percentile":
        low, high = percentile_interval(replicates, level)
    elif method == "bca":
        stratum = _pair_stratum(x, y)
        jack = ErrorConsistencyKernel(policy).leave_one_out(stratum)[:, :1]
        low, high = bca_interval(replicates[:, None], np.atleast_1d(estimate), jack, level)
        low, high = low[0], high[0]
    else:
        raise ValueError(f"method must be 'percentile' or 'bca', not {method!r}")
    return float(estimate), float(low), float(high), replicates


def _pair_stratum(x: np.ndarray, y: np.ndarray) -> Stratum:
    correct = np.column_stack([x, y]).astype(float)
    return Stratum(PAIR_KEY, np.arange(x.size).astype(str), ("x", "y"),
                   {"n_correct": correct, "n_trials": np.ones_like(correct)})
