"""Maximum-likelihood psychometric functions, fitted to many data sets at once (one row per bootstrap resample).

The model of the proportion correct at stimulus level ``x`` (already in the fitting space: log10 or linear) is

    p(x) = guess + (1 - guess - lapse) * F(direction * (x - location) / scale)

with ``F`` a sigmoid through ``F(0) = 0.5``: ``"logistic"``, ``"gaussian"`` (cumulative normal) or ``"weibull"``
(the Gumbel form ``1 - exp(-ln 2 * exp(z))``: the Weibull function when ``x`` is log stimulus, as in Wichmann &
Hill 2001 and psignifit). ``guess`` is fixed (1 / number of classes by default), ``lapse`` is fitted in
``[0, max_lapse]``, ``direction`` is +1 where performance rises with the level (contrast) and -1 where it falls
(noise, low-pass). The likelihood is the binomial one of correct counts ``k`` out of ``n`` per level.

:func:`fit_batch` maximises it for every row of ``k`` and ``n`` (rows x levels) at once: a grid start over
(location, scale, lapse), then Levenberg-damped Fisher scoring with step halving, vectorised over rows, so
thousands of bootstrap fits take a second rather than a Python loop of optimiser calls. Psignifit 4 (the field's
tool) is GPL-3, which an MIT package cannot depend on; docs/measures/psychometric-fits.md compares the two.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SIGMOIDS", "fit_batch", "sigmoid", "sigmoid_density", "sigmoid_inverse", "predicted", "threshold_slope"]

SIGMOIDS = ("logistic", "gaussian", "weibull")
LN2 = math.log(2.0)


def sigmoid(name: str, z):
    """The sigmoid ``F(z)`` with ``F(0) = 0.5``.

    Parameters
    ----------
    name : {"logistic", "gaussian", "weibull"}
        The sigmoid.
    z : array-like
        Standardised level.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> [round(float(sigmoid(n, 0.0)), 3) for n in SIGMOIDS]
    [0.5, 0.5, 0.5]
    >>> round(float(sigmoid("weibull", 1.0)), 4)   # 1 - exp(-ln2 * e)
    0.848
    """
    from scipy import special  # here: importing humanlike must not import scipy (tests/app/test_lean_startup.py)

    z = np.asarray(z, dtype=float)
    if name == "logistic":
        return special.expit(z)
    if name == "gaussian":
        return special.ndtr(z)
    if name == "weibull":
        return -np.expm1(-LN2 * np.exp(np.minimum(z, 50.0)))
    raise ValueError(f"sigmoid must be one of {SIGMOIDS}, not {name!r}")


def sigmoid_density(name: str, z):
    """``dF/dz`` of :func:`sigmoid`.

    Parameters
    ----------
    name : {"logistic", "gaussian", "weibull"}
    z : array-like

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> float(sigmoid_density("logistic", 0.0)), round(float(sigmoid_density("weibull", 0.0)), 4)  # ln2 / 2
    (0.25, 0.3466)
    """
    from scipy import special, stats

    z = np.asarray(z, dtype=float)
    if name == "logistic":
        f = special.expit(z)
        return f * (1.0 - f)
    if name == "gaussian":
        return stats.norm.pdf(z)
    if name == "weibull":
        e = LN2 * np.exp(np.minimum(z, 50.0))
        return e * np.exp(-e)
    raise ValueError(f"sigmoid must be one of {SIGMOIDS}, not {name!r}")


def sigmoid_inverse(name: str, q):
    """``z`` with ``F(z) = q``; NaN outside (0, 1).

    Parameters
    ----------
    name : {"logistic", "gaussian", "weibull"}
    q : array-like

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> [round(float(sigmoid_inverse(n, sigmoid(n, 0.7))), 6) for n in SIGMOIDS]
    [0.7, 0.7, 0.7]
    >>> bool(np.isnan(sigmoid_inverse("logistic", 1.2)))
    True
    """
    from scipy import special

    q = np.asarray(q, dtype=float)
    inside = (q > 0) & (q < 1)
    qq = np.where(inside, q, 0.5)
    if name == "logistic":
        z = special.logit(qq)
    elif name == "gaussian":
        z = special.ndtri(qq)
    elif name == "weibull":
        z = np.log(-np.log1p(-qq) / LN2)
    else:
        raise ValueError(f"sigmoid must be one of {SIGMOIDS}, not {name!r}")
    return np.where(inside, z, np.nan)


def predicted(name: str, x, location, scale, lapse, guess: float, direction: int = 1):
    """Proportion correct ``p(x)`` of the model in the module docstring (broadcasting).

    Parameters
    ----------
    name : {"logistic", "gaussian", "weibull"}
    x : array-like
        Levels in the fitting space.
    location, scale, lapse : array-like
        Parameters (``scale`` > 0).
    guess : float
        The fixed guess rate.
    direction : {1, -1}
        +1: rising with the level; -1: falling.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> float(predicted("logistic", 1.0, 1.0, 0.2, 0.0, 0.5))   # at the location: halfway from guess to 1
    0.75
    """
    z = direction * (np.asarray(x, dtype=float) - location) / scale
    return guess + (1.0 - guess - lapse) * sigmoid(name, z)


def threshold_slope(name: str, location, scale, lapse, guess: float, direction: int, level: float,
                    level_of: str = "accuracy"):
    """Threshold (level in the fitting space where performance reaches ``level``) and slope ``dp/dx`` there.

    Parameters
    ----------
    name : {"logistic", "gaussian", "weibull"}
    location, scale, lapse : array-like
        Fitted parameters.
    guess : float
    direction : {1, -1}
    level : float
        The stated performance level.
    level_of : {"accuracy", "sigmoid"}
        ``"accuracy"``: where ``p(x) = level`` (proportion correct, guess and lapse included; NaN where the fitted
        function never reaches it); ``"sigmoid"``: where ``F = level`` (psignifit's ``threshPC``, independent of
        guess and lapse).

    Returns
    -------
    (threshold, slope) : tuple of numpy.ndarray
        In the fitting space; the slope per unit of it (per log10 unit in log space), negative when falling.

    Examples
    --------
    >>> t, s = threshold_slope("logistic", 1.0, 0.2, 0.0, 0.5, 1, 0.75)
    >>> float(t), float(s)     # (1 - 0.5) * 0.25 / 0.2
    (1.0, 0.625)
    >>> t, s = threshold_slope("logistic", 1.0, 0.2, 0.3, 0.5, 1, 0.75)   # p never exceeds 0.7
    >>> bool(np.isnan(t))
    True
    """
    span = 1.0 - guess - np.asarray(lapse, dtype=float)
    if level_of == "accuracy":
        q = (level - guess) / np.where(span > 0, span, np.nan)
    elif level_of == "sigmoid":
        q = np.full(np.shape(span), float(level))
    else:
        raise ValueError(f"level_of must be 'accuracy' or 'sigmoid', not {level_of!r}")
    z = sigmoid_inverse(name, q)
    scale = np.asarray(scale, dtype=float)
    threshold = np.asarray(location, dtype=float) + direction * scale * z
    slope = span * sigmoid_density(name, z) * direction / scale
    return threshold, slope


def _loglik(k, n, p):
    p = np.clip(p, 1e-12, 1.0 - 1e-12)
    return (k * np.log(p) + (n - k) * np.log1p(-p)).sum(axis=-1)


def fit_batch(k, n, x, *, name: str = "logistic", guess: float, direction: int = 1, max_lapse: float = 0.5,
              iterations: int = 60):
    """Maximum-likelihood (location, scale, lapse) for every row of correct counts ``k`` of ``n`` at levels ``x``.

    Location is bounded to the tested range widened by half of it on both sides, scale to [range / 200,
    2 range], lapse to [0, max_lapse] (bounds keep flat data, e.g. an observer at chance everywhere, from
    running off to infinity; a bound reached is the answer within them).

    Parameters
    ----------
    k, n : array-like
        Correct counts and trials, shape (rows x levels) (weighted counts from resampling are fine).
    x : array-like
        The levels in the fitting space, shape (levels,); at least two distinct.
    name : {"logistic", "gaussian", "weibull"}
        The sigmoid.
    guess : float
        Fixed guess rate in [0, 1).
    direction : {1, -1}
        +1 where performance rises with the level.
    max_lapse : float
        Upper bound of the lapse rate.
    iterations : int
        Fisher-scoring iterations after the grid start.

    Returns
    -------
    dict
        ``location``, ``scale``, ``lapse``, ``loglik``: arrays of shape (rows,).

    Examples
    --------
    Counts that follow a logistic through 0.5 with scale 0.1 exactly (400 trials a level) give it back:

    >>> x = np.linspace(0.0, 1.0, 7)
    >>> n = np.full((1, 7), 400.0)
    >>> k = n * predicted("logistic", x, 0.5, 0.1, 0.02, 1 / 16)
    >>> fit = fit_batch(k, n, x, guess=1 / 16)
    >>> [round(float(fit[p][0]), 4) for p in ("location", "scale", "lapse")]
    [0.5, 0.1, 0.02]
    """
    k = np.atleast_2d(np.asarray(k, dtype=float))
    n = np.atleast_2d(np.asarray(n, dtype=float))
    x = np.asarray(x, dtype=float)
    if name not in SIGMOIDS:
        raise ValueError(f"sigmoid must be one of {SIGMOIDS}, not {name!r}")
    if np.unique(x).size < 2:
        raise ValueError("a psychometric function needs at least two distinct stimulus levels")
    if not 0.0 <= guess < 1.0:
        raise ValueError(f"the guess rate must be in [0, 1), not {guess}")
    if not 0.0 <= max_lapse < 1.0 - guess:
        raise ValueError(f"max_lapse must be in [0, 1 - guess), not {max_lapse}")
    rows = k.shape[0]
    lo_x, hi_x = float(x.min()), float(x.max())
    width = hi_x - lo_x
    bounds = np.array([[lo_x - width / 2, hi_x + width / 2],
                       [math.log(width / 200), math.log(2 * width)],
                       [0.0, max_lapse]])

    def probability(theta):
        return predicted(name, x, theta[..., :1], np.exp(theta[..., 1:2]), theta[..., 2:3], guess, direction)

    # grid start: the best of a coarse grid per row (rows x grid x levels, in slices to bound memory)
    # (fine in location: a steep function placed between two levels is a local optimum the scoring cannot leave)
    grid = np.stack(np.meshgrid(np.linspace(lo_x - width / 4, hi_x + width / 4, 49),
                                np.linspace(math.log(width / 100), math.log(width), 10),
                                np.linspace(0.0, max_lapse, 5)[:4] if max_lapse > 0 else [0.0],
                                indexing="ij"), axis=-1).reshape(-1, 3)
    p_grid = probability(grid)                                        # grid x levels
    log_p, log_q = np.log(np.clip(p_grid, 1e-12, 1)), np.log1p(-np.clip(p_grid, 0, 1 - 1e-12))
    theta = np.empty((rows, 3))
    # elementwise sums rather than a matrix product: a row's numbers never depend on which rows share its batch
    step = max(1, 2**21 // max(grid.shape[0] * x.size, 1))
    for start in range(0, rows, step):
        kk, nn = k[start:start + step, None, :], n[start:start + step, None, :]
        ll = (kk * log_p + (nn - kk) * log_q).sum(axis=-1)            # rows x grid
        theta[start:start + step] = grid[np.argmax(ll, axis=1)]

    current = _loglik(k, n, probability(theta))
    damping = np.full(rows, 1e-3)
    active = np.arange(rows)          # rows still moving; a converged row is left alone (batch-independent)
    for _ in range(iterations):
        if active.size == 0:
            break
        th, kk, nn, cur, lam = theta[active], k[active], n[active], current[active], damping[active]
        s = np.exp(th[:, 1:2])
        z = direction * (x - th[:, :1]) / s
        span = 1.0 - guess - th[:, 2:3]
        p = np.clip(guess + span * sigmoid(name, z), 1e-9, 1 - 1e-9)
        f = sigmoid_density(name, z)
        dp = np.stack([-span * f * direction / s, -span * f * z, -sigmoid(name, z)], axis=-1)   # rows x levels x 3
        residual = (kk - nn * p) / (p * (1 - p))
        gradient = np.einsum("rl,rlj->rj", residual, dp)
        information = np.einsum("rl,rli,rlj->rij", nn / (p * (1 - p)), dp, dp)
        diag = np.einsum("rii->ri", information)
        system = information + (lam[:, None] * (diag + 1e-9))[:, :, None] * np.eye(3)
        try:
            delta = np.linalg.solve(system, gradient[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            delta = gradient / (diag + 1e-9)
        delta = np.nan_to_num(delta)
        improved = np.zeros(active.size, dtype=bool)
        scale_step = np.ones(active.size)
        for _half in range(8):                                     # step halving where the likelihood drops
            trial = np.clip(th + scale_step[:, None] * delta, bounds[:, 0], bounds[:, 1])
            value = _loglik(kk, nn, probability(trial))
            better = (value >= cur - 1e-12) & ~improved
            th[better] = trial[better]
            cur = np.where(better, value, cur)
            improved |= better
            if improved.all():
                break
            scale_step = np.where(improved, scale_step, scale_step / 2)
        theta[active], current[active] = th, cur
        damping[active] = np.where(improved, np.maximum(lam / 3, 1e-9), np.minimum(lam * 10, 1e6))
        moved = np.max(np.abs(delta * scale_step[:, None]), axis=1)
        active = active[(moved >= 1e-10) | ~improved & (lam < 1e6)]
    return {"location": theta[:, 0], "scale": np.exp(theta[:, 1]), "lapse": theta[:, 2], "loglik": current}
