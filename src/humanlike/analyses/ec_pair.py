"""Error consistency of one pair of aligned correctness vectors, through the resampling engine."""

from __future__ import annotations

import numpy as np

from ..data.design import Design, Stratum
from ..metrics.ec import UndefinedPolicy
from ..stats.engine import Output, ResamplingSettings, bootstrap
from ..stats.results import Resampled
from ..stats.rng import SeedLike
from .errorconsistency import resampling_settings_from
from .pairwise import ErrorConsistencyKernel

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
    correct = np.column_stack([x, y]).astype(float)
    stratum = Stratum(PAIR_KEY, np.arange(x.size).astype(str), ("x", "y"),
                      {"n_correct": correct, "n_trials": np.ones_like(correct)})
    kernel = ErrorConsistencyKernel(policy)
    output = Output([("error_consistency",)], ("metric",))
    return bootstrap(Design((stratum,)), kernel, lambda values: values[PAIR_KEY][:, :1], output,
                     settings if settings is not None else ResamplingSettings())


def bootstrap_pair(x, y, *, n_resamples: int | None = None, level: float | None = None,
                   seed: SeedLike | str = "unset", policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
                   method: str | None = None, settings: ResamplingSettings | None = None):
    """Bootstrap interval of error consistency for one pair: ``(estimate, low, high, replicates)``.

    The tuple form of :func:`pair_error_consistency` (formerly ``humanlike.stats.resampling.bootstrap_pair``);
    ``method`` is the interval method (``"percentile"`` or ``"bca"``). The default seed is the settings' (0).

    Examples
    --------
    >>> est, low, high, reps = bootstrap_pair([1, 1, 0, 0, 1, 0] * 20, [1, 0, 0, 0, 1, 1] * 20, n_resamples=200)
    >>> reps.shape, bool(low < est < high)
    ((200,), True)
    """
    settings = resampling_settings_from(settings, n_resamples=n_resamples, level=level, seed=seed, interval=method)
    result = pair_error_consistency(x, y, settings=settings, policy=policy)
    low, high = result.interval()
    return float(result.estimate[0]), float(low[0]), float(high[0]), result.replicates[:, 0]
