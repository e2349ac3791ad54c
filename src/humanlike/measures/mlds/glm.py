"""The binomial GLM behind MLDS, batched: links as R computes them and IRLS on a fixed design.

MLDS refits one design matrix with many response vectors (bootstrap, residual envelope, six-point
test). :func:`irls` therefore takes a (replicates x trials) response matrix and runs R's ``glm.fit``
iteration for all replicates at once: per iteration, the weighted normal equations of every replicate
are formed with one matrix product and solved as a stack of small (k x k) systems. Each replicate
stops on R's own criterion ``|dev - dev_old| / (|dev| + 0.1) < epsilon``; converged replicates leave
the active set.

The links clamp exactly as R's ``binomial()`` family does, so fitted probabilities near 0 or 1, and
the deviance there, agree with R.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

DOUBLE_EPS = np.finfo(float).eps
LINKS = ("probit", "logit", "cauchit")
# R: glm.control(epsilon = 1e-14, maxit = 50000) in MLDS.
R_EPSILON = 1e-14
R_MAXIT = 50_000
_LOGIT_THRESH = 30.0
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


# R's thresholds of the probit and cauchit inverse links, -qnorm(eps) and -qcauchy(eps), computed on first use:
# scipy.stats is slow to import
@cache
def _probit_threshold() -> float:
    from scipy import special

    return float(-special.ndtri(DOUBLE_EPS))   # = -scipy.stats.norm.ppf(eps), to the bit


@cache
def _cauchit_threshold() -> float:
    from scipy import stats

    return float(-stats.cauchy.ppf(DOUBLE_EPS))


@dataclass(frozen=True)
class Link:
    """A binomial link: ``mu = inverse(eta)``, ``d mu / d eta = derivative(eta)``, ``eta = link(mu)``,
    with R's clamping (``binomial(link)$linkinv``, ``$mu.eta``).

    Parameters
    ----------
    name : {"probit", "logit", "cauchit"}
        The link.

    Raises
    ------
    ValueError
        For an unknown link name.

    Examples
    --------
    >>> logit = Link("logit")
    >>> logit.inverse(np.array([0.0, np.log(3.0)])).round(12).tolist(), logit.derivative(np.array([0.0])).tolist()
    ([0.5, 0.75], [0.25])
    >>> Link("probit").link(np.array([0.5, 0.975])).round(4).tolist()
    [0.0, 1.96]
    """

    name: str

    def __post_init__(self):
        if self.name not in LINKS:
            raise ValueError(f"unknown link {self.name!r}; use one of {LINKS}")

    @property
    def threshold(self) -> float:
        """|eta| beyond which R clamps the fitted probability to eps or 1 - eps."""
        if self.name == "probit":
            return _probit_threshold()
        return _cauchit_threshold() if self.name == "cauchit" else _LOGIT_THRESH

    def inverse(self, eta: np.ndarray) -> np.ndarray:
        """The inverse link: mean from linear predictor.

        Parameters
        ----------
        eta : numpy.ndarray
            Linear predictor.

        Returns
        -------
        numpy.ndarray
            Probabilities, clamped as R clamps them (within eps of 0 and 1 at most).
        """
        if self.name == "probit":
            from scipy import special

            threshold = _probit_threshold()
            return special.ndtr(np.clip(eta, -threshold, threshold))
        if self.name == "cauchit":
            from scipy import stats

            threshold = _cauchit_threshold()
            return stats.cauchy.cdf(np.clip(eta, -threshold, threshold))
        # R's C logit_linkinv: exp clamped to [eps, 1/eps] outside +-30.
        tmp = np.where(eta < -_LOGIT_THRESH, DOUBLE_EPS,
                       np.where(eta > _LOGIT_THRESH, 1 / DOUBLE_EPS, np.exp(np.clip(eta, -_LOGIT_THRESH, _LOGIT_THRESH))))
        return tmp / (1 + tmp)

    def derivative(self, eta: np.ndarray) -> np.ndarray:
        """Derivative of the inverse link with respect to the linear predictor.

        Parameters
        ----------
        eta : numpy.ndarray
            Linear predictor.

        Returns
        -------
        numpy.ndarray
            ``d mu / d eta``, at least machine eps (as R's ``mu.eta``).
        """
        if self.name == "probit":
            return np.maximum(np.exp(-0.5 * eta * eta) * _INV_SQRT_2PI, DOUBLE_EPS)
        if self.name == "cauchit":
            from scipy import stats

            return np.maximum(stats.cauchy.pdf(eta), DOUBLE_EPS)
        outside = np.abs(eta) > _LOGIT_THRESH
        e = np.exp(np.clip(eta, -_LOGIT_THRESH, _LOGIT_THRESH))
        return np.where(outside, DOUBLE_EPS, e / (1 + e) ** 2)

    def link(self, mu: np.ndarray) -> np.ndarray:
        """The link function: linear predictor from mean.

        Parameters
        ----------
        mu : numpy.ndarray
            Probabilities in (0, 1).

        Returns
        -------
        numpy.ndarray
            Linear predictor.
        """
        if self.name == "probit":
            from scipy import special

            return special.ndtri(mu)
        if self.name == "cauchit":
            from scipy import stats

            return stats.cauchy.ppf(mu)
        from scipy import special

        return special.logit(mu)


def as_link(link: str | Link) -> Link:
    """The link object for a link name (``probit``, ``logit``, ``cauchit``) or a link passed through.

    Parameters
    ----------
    link : str or Link
        A link name, or a Link (returned unchanged).

    Returns
    -------
    Link

    Raises
    ------
    ValueError
        For an unknown link name.

    Examples
    --------
    >>> as_link("cauchit")
    Link(name='cauchit')
    """
    return link if isinstance(link, Link) else Link(str(link))


def bernoulli_deviance(y: np.ndarray, mu: np.ndarray, axis: int = -1) -> np.ndarray:
    """Binomial deviance of 0/1 responses, summed over ``axis`` (R's ``binomial()$dev.resids``).

    Parameters
    ----------
    y : numpy.ndarray
        Responses, 0 or 1.
    mu : numpy.ndarray
        Fitted probabilities of response 1 (broadcastable with ``y``).
    axis : int, default -1
        Axis of the trials.

    Returns
    -------
    numpy.ndarray
        ``-2 sum log P(y | mu)`` per remaining entry.

    Examples
    --------
    -2 (ln 0.5 + ln 0.5 + ln 0.8):

    >>> round(float(bernoulli_deviance(np.array([1, 0, 1]), np.array([0.5, 0.5, 0.8]))), 6)
    3.218876
    """
    # One log per trial: the probability of the response given. 1 - mu is exact for mu near 1.
    return -2.0 * np.sum(np.log(np.where(y > 0, mu, 1.0 - mu)), axis=axis)


def r_deviance(y: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """The deviance as R's C ``binomial_dev_resids`` and ``sum`` compute it: ``2 log(1 / mu)`` or
    ``2 log(1 / (1 - mu))`` per trial, summed in extended precision. Used by single fits so that R's
    1e-14 stopping rule sees the same rounding as in R and stops at the same iteration.

    Parameters
    ----------
    y : numpy.ndarray
        Responses, 0 or 1, shape (..., n).
    mu : numpy.ndarray
        Fitted probabilities of response 1, same shape.

    Returns
    -------
    numpy.ndarray
        The deviance summed over the last axis.

    Examples
    --------
    >>> round(float(r_deviance(np.array([1, 0, 1]), np.array([0.5, 0.5, 0.8]))), 6)
    3.218876
    """
    terms = 2.0 * np.where(y > 0, np.log(1.0 / mu), np.log(1.0 / (1.0 - mu)))
    return np.sum(terms.astype(np.longdouble), axis=-1).astype(float)


def deviance_residuals(y: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Signed deviance residuals ``sign(y - mu) * sqrt(d_i)`` (R ``residuals(type = "deviance")``).

    Parameters
    ----------
    y : numpy.ndarray
        Responses, 0 or 1.
    mu : numpy.ndarray
        Fitted probabilities of response 1 (broadcastable with ``y``).

    Returns
    -------
    numpy.ndarray
        One residual per trial; their squares sum to the deviance.

    Examples
    --------
    >>> deviance_residuals(np.array([1, 0]), np.array([0.5, 0.5])).round(4).tolist()
    [1.1774, -1.1774]
    """
    d = -2.0 * np.where(y > 0, np.log(mu), np.log1p(-mu))
    return np.sign(y - mu) * np.sqrt(np.maximum(d, 0.0))


@dataclass
class IrlsResult:
    """Batched IRLS output, one row per replicate.

    Attributes
    ----------
    coefficients : (R, k) array
    deviance : (R,) array
    iterations : (R,) int array
    converged : (R,) bool array — R's relative-deviance criterion met within ``maxit``
    boundary : (R,) bool array — some fitted probability clamped at eps or 1 - eps (R's warning
        "fitted probabilities numerically 0 or 1 occurred"); a hint of separation

    Examples
    --------
    >>> fit = irls(np.array([[1.0], [1.0], [1.0], [-1.0]]), np.array([[1, 1, 0, 0], [1, 0, 0, 1]]), "logit")
    >>> fit.coefficients.shape, fit.converged.tolist()
    ((2, 1), [True, True])
    """

    coefficients: np.ndarray
    deviance: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray
    boundary: np.ndarray


def _solve_stack(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(a, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        # A singular system (weights underflowing under separation): least squares keeps the batch going.
        return np.einsum("rij,rj->ri", np.linalg.pinv(a), b)


def irls(design: np.ndarray, responses: np.ndarray, link: str | Link = "probit", *,
         epsilon: float = R_EPSILON, maxit: int = 100, solver: str = "normal") -> IrlsResult:
    """Fit ``responses ~ design - 1`` (binomial) for many response vectors at once, as R's ``glm.fit``.

    Parameters
    ----------
    design : (n, k) array
        The fixed design matrix (no intercept column).
    responses : (n,) or (R, n) array of 0/1
        One response vector per replicate.
    link : {"probit", "logit", "cauchit"} or Link
    epsilon : float
        R's ``glm.control(epsilon)``; MLDS uses 1e-14.
    maxit : int
        Iteration cap per replicate (R MLDS: 50000; separated data would hit it, so batch callers use
        fewer and treat non-convergence as a separation suspect).
    solver : {"normal", "qr"}
        ``"normal"``: weighted normal equations, one matrix product for all replicates (fast; batch use).
        ``"qr"``: least squares by QR of ``sqrt(w) X`` per replicate, as R's ``Cdqrls`` (single fits:
        the iterates then settle to ~1e-15 instead of ~1e-13, so R's 1e-14 criterion is met as in R).

    Returns
    -------
    IrlsResult
        Coefficient rows for every replicate (a 1-row result for a single vector).

    Examples
    --------
    >>> x = np.array([[1.0], [1.0], [1.0], [-1.0]])
    >>> fit = irls(x, np.array([1, 1, 0, 0]), "logit")
    >>> round(float(fit.coefficients[0, 0]), 6)  # log(3) for 3 of 4 "successes" on +-x
    1.098612
    """
    lk = as_link(link)
    x = np.asarray(design, dtype=float)
    y = np.atleast_2d(np.asarray(responses, dtype=float))
    n_rep, n = y.shape
    if x.shape[0] != n:
        raise ValueError(f"design has {x.shape[0]} rows but responses have {n} columns")
    k = x.shape[1]
    if solver not in ("normal", "qr"):
        raise ValueError(f"solver must be 'normal' or 'qr', not {solver!r}")
    outer = (x[:, :, None] * x[:, None, :]).reshape(n, k * k) if solver == "normal" else None
    coef = np.zeros((n_rep, k))
    deviance = np.full(n_rep, np.nan)
    iterations = np.zeros(n_rep, dtype=np.int64)
    converged = np.zeros(n_rep, dtype=bool)
    # R's binomial initialize: mustart = (y + 0.5) / 2, eta = linkfun(mustart).
    mu = (y + 0.5) / 2.0
    eta = lk.link(mu)
    deviance_of = r_deviance if solver == "qr" else bernoulli_deviance
    dev_old = deviance_of(y, mu)
    active = np.arange(n_rep)
    for it in range(1, maxit + 1):
        ya, eta_a, mu_a = y[active], eta, mu
        d = lk.derivative(eta_a)
        z = eta_a + (ya - mu_a) / d
        w = d * d / (mu_a * (1.0 - mu_a))
        if solver == "qr":
            root = np.sqrt(w)
            q, r = np.linalg.qr(root[:, :, None] * x[None, :, :])
            new = np.linalg.solve(r, np.einsum("rnk,rn->rk", q, root * z)[..., None])[..., 0]
        else:
            a = (w @ outer).reshape(len(active), k, k)
            b = (w * z) @ x
            new = _solve_stack(a, b)
        eta_new = new @ x.T
        mu_new = lk.inverse(eta_new)
        dev = deviance_of(ya, mu_new)
        coef[active] = new
        deviance[active] = dev
        iterations[active] = it
        done = np.abs(dev - dev_old[active]) / (np.abs(dev) + 0.1) < epsilon
        converged[active[done]] = True
        dev_old[active] = dev
        keep = ~done
        active = active[keep]
        if active.size == 0:
            break
        eta, mu = eta_new[keep], mu_new[keep]
    eta_all = coef @ x.T
    boundary = np.any(np.abs(eta_all) >= lk.threshold, axis=1)
    return IrlsResult(coef, deviance, iterations, converged, boundary)


def is_separable(design: np.ndarray, responses: np.ndarray, tolerance: float = 1e-7) -> bool:
    """Whether the responses are (quasi-)completely separated by the design, i.e. the likelihood has no
    finite maximum: some direction ``beta != 0`` has ``x_i . beta >= 0`` on every 1-response and ``<= 0``
    on every 0-response, with at least one strict (the linear program of Konis 2007, ``detectseparation``).

    Parameters
    ----------
    design : (n, k) array
    responses : (n,) array of 0/1
    tolerance : float
        Optimum of the box-constrained program above which the data count as separated.

    Returns
    -------
    bool

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [-1.0]])
    >>> is_separable(x, np.array([1, 1, 0])), is_separable(x, np.array([1, 0, 0]))
    (True, False)
    """
    from scipy import optimize

    x = np.asarray(design, dtype=float)
    sign = 2.0 * np.asarray(responses, dtype=float) - 1.0
    signed = sign[:, None] * x
    result = optimize.linprog(-signed.sum(axis=0), A_ub=-signed, b_ub=np.zeros(len(x)),
                              bounds=[(-1.0, 1.0)] * x.shape[1], method="highs")
    if result.status != 0:
        return False
    return -result.fun > tolerance * max(1.0, float(np.abs(signed).sum()))
