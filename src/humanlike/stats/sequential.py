"""Group-sequential tests that keep their level when a study stops early (docs/designs-that-decide.md).

A study that looks at its comparison after every batch of participants and stops as soon as the difference
looks resolved tests many times: with the fixed-sample bound 1.96 at every look the chance of a false "resolved"
grows with the number of looks (five looks: about 14% at a nominal 5%). A group-sequential test spends the level
``alpha`` over the looks instead (Lan & DeMets 1983): at information fraction ``t`` (here participants so far /
the planned maximum) at most ``alpha(t)`` may have been spent, with

* O'Brien-Fleming-type spending, ``alpha/2`` on each side, ``alpha(t) = 2 (2 - 2 Phi(z_{1 - alpha/4} / sqrt(t)))``
  in all: almost nothing early, nearly the whole level at the last look (the last bound is close to 1.96);
* Pocock-type spending ``alpha(t) = alpha ln(1 + (e - 1) t)``: about even bounds at every look.

The bounds ``c_k`` on the standardised statistic ``Z_k`` solve
``P(|Z_1| < c_1, ..., |Z_{k-1}| < c_{k-1}, |Z_k| >= c_k) = alpha(t_k) - alpha(t_{k-1})`` under the null, where the
``Z_k`` have the canonical joint law of a standardised partial sum (``corr(Z_j, Z_k) = sqrt(t_j / t_k)``). The
probabilities are computed by the recursive numerical integration of Armitage, McPherson & Rowe (1969) (Jennison
& Turnbull 2000, ch. 19) on the score scale ``S_k = Z_k sqrt(t_k)``, whose increments are independent
``N(0, t_k - t_{k-1})``. The level then holds whenever the study's ``Z_k`` are close to that law, which is what the
simulation with two equally human-like models checks (benchmarks/adaptive_design.py).
"""

from __future__ import annotations

import numpy as np

SPENDING = ("obrien-fleming", "pocock")

#: Points of the grid on which the continuation density is integrated (per look).
GRID_POINTS = 801


def spent_alpha(fraction, alpha: float = 0.05, spending: str = "obrien-fleming"):
    """The level spent by information fraction ``t`` (Lan-DeMets spending functions, two-sided).

    Parameters
    ----------
    fraction : float or array_like
        Information fractions in (0, 1].
    alpha : float
        The overall two-sided level (spent completely at ``t = 1``).
    spending : {"obrien-fleming", "pocock"}
        The spending function.

    Returns
    -------
    numpy.ndarray or float

    Raises
    ------
    ValueError
        For an unknown spending function or a fraction outside (0, 1].

    Examples
    --------
    >>> round(float(spent_alpha(1.0)), 10), round(float(spent_alpha(1.0, spending="pocock")), 10)
    (0.05, 0.05)
    >>> round(float(spent_alpha(0.25)), 7)   # 2 (2 - 2 Phi(2.241403 / 0.5))
    1.47e-05
    """
    from scipy import stats   # here, not at the top: the command line reads SPENDING at start-up
    t = np.asarray(fraction, dtype=float)
    if np.any(~np.isfinite(t)) or np.any(t <= 0) or np.any(t > 1):
        raise ValueError(f"information fractions must lie in (0, 1], got {np.atleast_1d(t).tolist()}")
    if spending == "obrien-fleming":
        # alpha/2 spent on each side by the one-sided O'Brien-Fleming-type function (DeMets & Lan 1994), so that
        # the bounds are the published two-sided ones (gsDesign, ldbounds)
        return 2.0 * (2.0 - 2.0 * stats.norm.cdf(stats.norm.ppf(1 - alpha / 4) / np.sqrt(t)))
    if spending == "pocock":
        return alpha * np.log1p((np.e - 1.0) * t)
    raise ValueError(f"unknown spending function {spending!r}; choose one of {', '.join(SPENDING)}")


def group_sequential_bounds(fractions, alpha: float = 0.05, spending: str = "obrien-fleming") -> np.ndarray:
    """Two-sided bounds ``c_k`` on ``|Z_k|``: reject at the first look where ``|Z_k| >= c_k``.

    Parameters
    ----------
    fractions : sequence of float
        Information fractions of the looks, increasing, the last 1 (participants so far / the planned maximum).
    alpha : float
        Overall two-sided level.
    spending : {"obrien-fleming", "pocock"}
        The spending function (:func:`spent_alpha`).

    Returns
    -------
    numpy.ndarray
        One bound per look (``inf`` where a look spends nothing).

    Raises
    ------
    ValueError
        When the fractions do not increase to 1.

    Examples
    --------
    One look is the fixed-sample test:

    >>> group_sequential_bounds([1.0]).round(4).tolist()
    [1.96]

    Five equally spaced looks with O'Brien-Fleming-type spending (the published values are 4.877, 3.357, 2.680,
    2.290, 2.031) and with Pocock-type spending (2.438, 2.427, 2.410, 2.397, 2.386):

    >>> group_sequential_bounds([0.2, 0.4, 0.6, 0.8, 1.0]).round(3).tolist()
    [4.877, 3.357, 2.68, 2.29, 2.031]
    >>> group_sequential_bounds([0.2, 0.4, 0.6, 0.8, 1.0], spending="pocock").round(3).tolist()
    [2.438, 2.427, 2.41, 2.397, 2.386]
    """
    from scipy import optimize, stats   # here, not at the top: the command line reads SPENDING at start-up
    t = np.asarray(fractions, dtype=float)
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0) or not np.isclose(t[-1], 1.0) or t[0] <= 0:
        raise ValueError(f"the looks' information fractions must increase from above 0 to 1, got {t.tolist()}")
    t[-1] = 1.0
    spend = np.diff(np.concatenate([[0.0], spent_alpha(t, alpha, spending)]))
    bounds = np.empty(t.size)
    bounds[0] = stats.norm.isf(spend[0] / 2) if spend[0] > 0 else np.inf
    # continuation density of the score S_1 = Z_1 sqrt(t_1) on a grid of (-b, b)
    grid, weights = _grid(bounds[0] * np.sqrt(t[0]))
    density = stats.norm.pdf(grid, scale=np.sqrt(t[0]))
    for k in range(1, t.size):
        sd = np.sqrt(t[k] - t[k - 1])
        mass = weights * density

        def crossing(b):
            return float(mass @ (stats.norm.cdf((-b - grid) / sd) + stats.norm.cdf((grid - b) / sd)))

        if spend[k] <= 0 or crossing(12.0 * np.sqrt(t[k])) >= spend[k]:
            bounds[k] = np.inf
            b = 12.0 * np.sqrt(t[k])
        else:
            b = optimize.brentq(lambda x: crossing(x) - spend[k], 1e-9, 12.0 * np.sqrt(t[k]), xtol=1e-12)
            bounds[k] = b / np.sqrt(t[k])
        new_grid, new_weights = _grid(b)
        density = stats.norm.pdf((new_grid[:, None] - grid[None, :]) / sd) / sd @ mass
        grid, weights = new_grid, new_weights
    return bounds


def _grid(half_width: float) -> tuple[np.ndarray, np.ndarray]:
    """Points and trapezoid weights on (-half_width, half_width); an infinite bound is cut at 12 SDs of S."""
    half_width = min(float(half_width), 12.0)
    grid = np.linspace(-half_width, half_width, GRID_POINTS)
    weights = np.full(GRID_POINTS, grid[1] - grid[0])
    weights[[0, -1]] /= 2
    return grid, weights


def sequential_decision(z, bounds) -> tuple[bool, int]:
    """Where a group-sequential test stops: the first look whose ``|Z|`` reaches its bound.

    Parameters
    ----------
    z : sequence of float
        The standardised statistic at each look so far (NaN: not computable there; never stops).
    bounds : sequence of float
        :func:`group_sequential_bounds` of the planned looks.

    Returns
    -------
    (rejected, look) : (bool, int)
        Whether the null is rejected and the index of the look where the test stopped (the last look given
        when it did not).

    Examples
    --------
    >>> sequential_decision([1.0, 2.5, 3.0], [4.877, 2.4, 2.0])
    (True, 1)
    >>> sequential_decision([1.0, float("nan")], [2.8, 1.98])
    (False, 1)
    """
    z = np.abs(np.asarray(z, dtype=float))
    hit = np.nan_to_num(z, nan=-1.0) >= np.asarray(bounds, dtype=float)[: z.size]
    if hit.any():
        return True, int(np.argmax(hit))
    return False, int(z.size - 1)
