"""Planning an error-consistency experiment: how many trials for a given precision or power.

Ground truth is Klein et al.'s copy model (:mod:`humanlike.measures.ec.copy_model`): a pair with accuracies
``a1, a2`` and true error consistency ``kappa`` has cell probabilities
:func:`humanlike.measures.ec.copy_model.cell_probabilities`. Two routes:

* ``method="analytic"``: the Fleiss-Cohen-Everitt large-sample variance of kappa
  (:func:`humanlike.measures.ec.significance.kappa_standard_error`) evaluated at those cell probabilities
  (expected counts ``n * p``); ``Var(kappa_hat) = V1 / n``, so widths fall exactly as ``1 / sqrt(n)``.
* ``method="simulation"``: data sets drawn with :func:`humanlike.trials.simulate.simulate_copy_counts`.

Only sampling error over trials is modelled (fixed observers, fixed items).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from ...trials.simulate import simulate_copy_counts
from .copy_model import cell_probabilities
from ..pairs.metric import kappa as kappa_fn
from ...resampling.rng import SeedLike, make_rng
from .significance import kappa_standard_error
from ..pairs.kappa_bounds import kappa_max, kappa_min

_METHODS = ("analytic", "simulation")


def _out(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def _frame(result) -> "object":
    import pandas as pd

    cols = {f.name: getattr(result, f.name) for f in fields(result)}
    arrays = {k: np.asarray(v) for k, v in cols.items() if np.ndim(v) > 0}
    shape = np.broadcast_shapes(*[v.shape for v in arrays.values()]) if arrays else ()
    return pd.DataFrame({k: np.broadcast_to(np.asarray(v), shape).ravel() for k, v in cols.items()} if shape
                        else {k: [v] for k, v in cols.items()})  # fmt: skip


def _z(level: float) -> float:
    from scipy import stats
    if not 0 < level < 1:
        raise ValueError("level must lie in (0, 1)")
    return float(stats.norm.ppf(0.5 + level / 2))


def _n_array(n_trials) -> np.ndarray:
    n = np.asarray(n_trials)
    if np.any(n < 1) or np.any(np.asarray(n, dtype=float) != np.round(np.asarray(n, dtype=float))):
        raise ValueError("n_trials must hold integers >= 1")
    return n.astype(np.int64)


def unit_kappa_variance(a1, a2, kappa):
    """``n * Var(kappa_hat)`` (Fleiss-Cohen-Everitt) at the copy model's cell probabilities.

    Raises ValueError when ``kappa`` is outside [kappa_min, kappa_max] for the accuracies; NaN when both
    observers are constant.

    Parameters
    ----------
    a1, a2 : float or array_like of float
        Accuracies of the two observers, in [0, 1].
    kappa : float or array_like of float
        True error consistency (broadcastable with the accuracies).

    Returns
    -------
    float or numpy.ndarray
        ``V1`` such that ``Var(kappa_hat) = V1 / n`` for ``n`` trials.

    Raises
    ------
    ValueError
        If ``kappa`` is not attainable for the accuracies.

    Examples
    --------
    At independence with both accuracies 0.8, ``V1 = (p_e + p_e^2 - sum p_i (2 p_i)) / (1 - p_e)^2`` with
    ``p_e = 0.68`` is exactly 1:

    >>> round(float(unit_kappa_variance(0.8, 0.8, 0.0)), 6)
    1.0
    """
    cells = cell_probabilities(kappa, a1, a2)
    return _out(np.asarray(kappa_standard_error(*cells), dtype=float) ** 2)


# --------------------------------------------------------------------------------------------------
# precision
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CIWidthResult:
    """Expected width of an EC confidence interval (fields broadcast over the inputs).

    Attributes
    ----------
    n_trials : int or numpy.ndarray
        Trials per pair.
    a1, a2 : float or numpy.ndarray
        Accuracies of the two observers.
    kappa : float or numpy.ndarray
        True error consistency.
    level : float
        Confidence level.
    method : str
        ``"analytic"`` or ``"simulation"``.
    width : float or numpy.ndarray
        Expected interval width (in kappa units).

    Examples
    --------
    >>> result = expected_ec_ci_width([100, 400], 0.8, 0.8, 0.3)
    >>> result.width.round(3).tolist()
    [0.449, 0.224]
    """

    n_trials: int | np.ndarray
    a1: float | np.ndarray
    a2: float | np.ndarray
    kappa: float | np.ndarray
    level: float
    method: str
    width: float | np.ndarray

    def to_frame(self):
        """One row per (n_trials, a1, a2, kappa) combination.

        Returns
        -------
        pandas.DataFrame
            Columns ``n_trials``, ``a1``, ``a2``, ``kappa``, ``level``, ``method``, ``width``.
        """
        return _frame(self)


def expected_ec_ci_width(
    n_trials,
    a1,
    a2,
    kappa,
    level: float = 0.95,
    method: str = "analytic",
    n_sim: int = 4000,
    seed: SeedLike = None,
) -> CIWidthResult:
    """Expected width of a ``level`` confidence interval for EC with ``n_trials`` trials (vectorised).

    ``analytic``: the Wald interval ``kappa ± z SE`` with ``SE = sqrt(V1 / n)`` the Fleiss-Cohen-Everitt standard
    error at the copy model's cell probabilities, clipped to the kappas the two accuracies allow
    (``[kappa_min, kappa_max]``, within [-1, 1]): a bounded kappa never gets a width above the range it can take.

    ``simulation``: the central ``level`` range of kappa over ``n_sim`` data sets simulated from the copy
    model (undefined kappas dropped). A percentile bootstrap interval of one data set spans the central
    range of the bootstrap distribution, which to first order has the spread of the sampling distribution
    of kappa; so this range equals the width such an interval has on average, without bootstrapping.

    Parameters
    ----------
    n_trials : int or array_like of int
        Trials per pair (at least 1).
    a1, a2 : float or array_like of float
        Accuracies of the two observers.
    kappa : float or array_like of float
        True error consistency (all four inputs broadcast together).
    level : float, default 0.95
        Confidence level, in (0, 1).
    method : {"analytic", "simulation"}, default "analytic"
        How the width is computed (see above).
    n_sim : int, default 4000
        Simulated data sets per input combination (``simulation`` only).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the simulation.

    Returns
    -------
    CIWidthResult
        The inputs (broadcast) and the expected width.

    Raises
    ------
    ValueError
        For an unknown ``method``, ``level`` outside (0, 1), non-integer or non-positive ``n_trials``, or an
        unattainable ``kappa``.

    Examples
    --------
    Analytic widths halve when the trials quadruple:

    >>> expected_ec_ci_width([100, 400], 0.8, 0.8, 0.3).width.round(3).tolist()
    [0.449, 0.224]

    With two trials the Wald interval would be 2.97 wide; clipped to the attainable kappas it is at most their range:

    >>> float(expected_ec_ci_width(2, 0.75, 0.75, 0.3).width) <= 2.0
    True
    >>> simulated = expected_ec_ci_width(100, 0.8, 0.8, 0.3, method="simulation", n_sim=500, seed=0)
    >>> 0.35 < float(simulated.width) < 0.55
    True
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    z = _z(level)
    n, a1b, a2b, kb = np.broadcast_arrays(_n_array(n_trials), *[np.asarray(x, dtype=float) for x in (a1, a2, kappa)])
    if method == "analytic":
        half = z * np.sqrt(np.asarray(unit_kappa_variance(a1b, a2b, kb), dtype=float) / n)
        low = np.maximum(kb - half, np.asarray(kappa_min(a1b, a2b), dtype=float))
        high = np.minimum(kb + half, np.asarray(kappa_max(a1b, a2b), dtype=float))
        width = high - low
    else:
        rng = make_rng(seed)
        width = np.empty(n.shape, dtype=float)
        q = [(1 - level) / 2, (1 + level) / 2]
        for idx in np.ndindex(n.shape):
            counts = simulate_copy_counts(int(n[idx]), kb[idx], a1b[idx], a2b[idx], size=n_sim, seed=rng)
            k = np.asarray(kappa_fn(*counts.T), dtype=float)
            k = k[~np.isnan(k)]
            width[idx] = np.diff(np.quantile(k, q))[0] if k.size else np.nan
    return CIWidthResult(_out(n), _out(a1b), _out(a2b), _out(kb), float(level), method, _out(width))


def _smallest_n(ok: Callable[[int], bool], n_min: int, n_max: int) -> int:
    """Smallest n in [n_min, n_max] with ok(n), assuming ok is monotone; ValueError when none."""
    lo = n_min
    if ok(lo):
        return lo
    hi = lo
    while not ok(hi):
        if hi >= n_max:
            raise ValueError(f"not reached within n_max={n_max} trials")
        lo = hi
        hi = min(n_max, hi * 2)
    while hi - lo > 1:  # ok(hi) and not ok(lo)
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def trials_for_ci_width(
    target_width: float,
    a1: float,
    a2: float,
    kappa: float,
    level: float = 0.95,
    method: str = "analytic",
    n_max: int = 10_000_000,
    n_sim: int = 4000,
    seed: SeedLike = 0,
) -> int:
    """Smallest number of trials whose expected EC interval width is at most ``target_width``.

    Searches n (doubling, then bisection) over :func:`expected_ec_ci_width`. Analytic widths fall
    monotonically as ``1/sqrt(n)``, so the answer is exact there (about ``4 z^2 V1 / target^2``). With
    ``method="simulation"`` every candidate n is simulated with the same ``seed``; the answer is then
    subject to Monte Carlo error. ValueError when the target is not reached within ``n_max`` trials.

    Parameters
    ----------
    target_width : float
        Largest acceptable expected width (kappa units, > 0).
    a1, a2 : float
        Accuracies of the two observers.
    kappa : float
        True error consistency.
    level : float, default 0.95
        Confidence level.
    method : {"analytic", "simulation"}, default "analytic"
        How widths are computed (see :func:`expected_ec_ci_width`).
    n_max : int, default 10000000
        Largest number of trials searched.
    n_sim : int, default 4000
        Simulated data sets per candidate (``simulation`` only).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None, default 0
        Seed of the simulation.

    Returns
    -------
    int
        The smallest number of trials (at least 2).

    Raises
    ------
    ValueError
        If ``target_width`` is not positive, the width is undefined, or ``n_max`` trials do not suffice.

    Examples
    --------
    >>> n = trials_for_ci_width(0.2, 0.8, 0.8, 0.3)
    >>> n
    504
    >>> float(expected_ec_ci_width(n - 1, 0.8, 0.8, 0.3).width) > 0.2
    True
    """
    if not target_width > 0:
        raise ValueError("target_width must be > 0")

    def ok(n: int) -> bool:
        w = expected_ec_ci_width(n, a1, a2, kappa, level, method, n_sim, seed).width
        if np.isnan(w):
            raise ValueError("the interval width is undefined (both observers constant)")
        return bool(w <= target_width)

    return _smallest_n(ok, 2, int(n_max))


# --------------------------------------------------------------------------------------------------
# power
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerResult:
    """Power to detect ``kappa1 != kappa2`` (two models vs the same human), per number of trials.

    Attributes
    ----------
    n_trials : int or numpy.ndarray
        Trials per pair.
    kappa1, kappa2 : float
        True error consistency of model 1 and of model 2 with the human.
    a_human, a_model1, a_model2 : float
        Accuracies.
    alpha : float
        Significance level of the test.
    method : str
        ``"simulation"`` or ``"analytic"``.
    n_simulations : int or None
        Simulated data-set pairs (None for ``analytic``).
    power : float or numpy.ndarray
        Probability of rejecting ``kappa1 == kappa2``, per ``n_trials``.

    Examples
    --------
    >>> result = power_ec_difference([100, 400], 0.5, 0.2, 0.8, 0.8, 0.8, method="analytic")
    >>> result.power.round(3).tolist()
    [0.482, 0.969]
    """

    n_trials: int | np.ndarray
    kappa1: float
    kappa2: float
    a_human: float
    a_model1: float
    a_model2: float
    alpha: float
    method: str
    n_simulations: int | None
    power: float | np.ndarray

    def to_frame(self):
        """One row per n_trials.

        Returns
        -------
        pandas.DataFrame
            One column per field (``n_trials`` ... ``power``).
        """
        return _frame(self)


def power_ec_difference(
    n_trials,
    kappa1: float,
    kappa2: float,
    a_human: float,
    a_model1: float,
    a_model2: float,
    alpha: float = 0.05,
    n_sim: int = 4000,
    seed: SeedLike = None,
    method: str = "simulation",
) -> PowerResult:
    """Power of a two-sided z-test of ``kappa1 == kappa2`` (EC of model 1 and of model 2 with one human).

    Design assumed: the two model-human pairs are independent data sets of ``n_trials`` trials each
    (copy model with accuracies ``(a_human, a_model1)``, ``(a_human, a_model2)``), and the test statistic is
    ``(k1 - k2) / sqrt(SE1^2 + SE2^2)`` with the Fleiss-Cohen-Everitt SEs. In a real benchmark both models
    answer the *same* human trials; that usually correlates the two estimates positively, and a paired
    analysis (joint bootstrap over items) then has at least this power - so these numbers are a
    conservative plan.

    ``simulation``: share of ``n_sim`` simulated data-set pairs whose |z| exceeds the critical value
    (undefined z counted as no rejection); with ``kappa1 == kappa2`` this is the test's actual size.
    ``analytic``: the normal approximation ``Phi(delta/SE - z) + Phi(-delta/SE - z)`` with the SEs at the
    true cell probabilities (exactly ``alpha`` when the kappas are equal). Vectorised over ``n_trials``.

    Parameters
    ----------
    n_trials : int or array_like of int
        Trials per pair (at least 1).
    kappa1, kappa2 : float
        True error consistency of model 1 and of model 2 with the human.
    a_human, a_model1, a_model2 : float
        Accuracies of the human and the two models.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    n_sim : int, default 4000
        Simulated data-set pairs per ``n_trials`` (``simulation`` only).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the simulation.
    method : {"simulation", "analytic"}, default "simulation"
        How power is computed (see above).

    Returns
    -------
    PowerResult
        The design and the power per ``n_trials``.

    Raises
    ------
    ValueError
        For an unknown ``method``, ``alpha`` outside (0, 1), invalid ``n_trials`` or an unattainable kappa.

    Examples
    --------
    >>> power_ec_difference([100, 400], 0.5, 0.2, 0.8, 0.8, 0.8, method="analytic").power.round(3).tolist()
    [0.482, 0.969]
    >>> simulated = power_ec_difference([100, 400], 0.5, 0.2, 0.8, 0.8, 0.8, n_sim=500, seed=0)
    >>> simulated.n_simulations, bool(0.4 < simulated.power[0] < 0.6 and simulated.power[1] > 0.9)
    (500, True)
    """
    from scipy import stats
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie in (0, 1)")
    n = _n_array(n_trials)
    zc = float(stats.norm.ppf(1 - alpha / 2))
    v1 = float(unit_kappa_variance(a_human, a_model1, kappa1))
    v2 = float(unit_kappa_variance(a_human, a_model2, kappa2))
    if method == "analytic":
        se = np.sqrt((v1 + v2) / n)
        delta = float(kappa1) - float(kappa2)
        with np.errstate(divide="ignore", invalid="ignore"):
            power = stats.norm.cdf(delta / se - zc) + stats.norm.cdf(-delta / se - zc)
        n_simulations = None
    else:
        rng = make_rng(seed)
        c1 = simulate_copy_counts(n, kappa1, a_human, a_model1, size=n_sim, seed=rng)
        c2 = simulate_copy_counts(n, kappa2, a_human, a_model2, size=n_sim, seed=rng)
        k1 = kappa_fn(*np.moveaxis(c1, -1, 0))
        k2 = kappa_fn(*np.moveaxis(c2, -1, 0))
        se1 = kappa_standard_error(*np.moveaxis(c1, -1, 0))
        se2 = kappa_standard_error(*np.moveaxis(c2, -1, 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (k1 - k2) / np.sqrt(se1**2 + se2**2)
            reject = np.abs(z) > zc  # NaN -> False
        power = reject.mean(axis=0)
        n_simulations = int(n_sim)
    return PowerResult(
        _out(n), float(kappa1), float(kappa2), float(a_human), float(a_model1), float(a_model2),
        float(alpha), method, n_simulations, _out(power),
    )  # fmt: skip


def trials_for_power(
    target_power: float,
    kappa1: float,
    kappa2: float,
    a_human: float,
    a_model1: float,
    a_model2: float,
    alpha: float = 0.05,
    n_max: int = 10_000_000,
) -> int:
    """Smallest number of trials per pair reaching ``target_power`` (analytic power, monotone in n).

    Same design as :func:`power_ec_difference`. ValueError when the kappas are equal (power stays at
    ``alpha``), when ``target_power`` is not in (alpha, 1), or when ``n_max`` trials do not suffice.

    Parameters
    ----------
    target_power : float
        Power to reach, in (alpha, 1).
    kappa1, kappa2 : float
        True error consistency of model 1 and of model 2 with the human (must differ).
    a_human, a_model1, a_model2 : float
        Accuracies of the human and the two models.
    alpha : float, default 0.05
        Significance level.
    n_max : int, default 10000000
        Largest number of trials searched.

    Returns
    -------
    int
        The smallest number of trials per pair (at least 2).

    Raises
    ------
    ValueError
        See above.

    Examples
    --------
    >>> n = trials_for_power(0.8, 0.5, 0.2, 0.8, 0.8, 0.8)
    >>> n
    215
    >>> def power(k):
    ...     return float(power_ec_difference(k, 0.5, 0.2, 0.8, 0.8, 0.8, method="analytic").power)
    >>> power(n - 1) < 0.8 <= power(n)
    True
    """
    if not alpha < target_power < 1:
        raise ValueError("target_power must lie in (alpha, 1)")
    if kappa1 == kappa2:
        raise ValueError("equal kappas: power equals alpha for every n")

    def ok(n: int) -> bool:
        p = power_ec_difference(n, kappa1, kappa2, a_human, a_model1, a_model2, alpha, method="analytic").power
        return bool(p >= target_power)

    return _smallest_n(ok, 2, int(n_max))
