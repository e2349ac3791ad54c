"""Refitting one MLDS design to many simulated response vectors at once.

Every MLDS diagnostic (parametric bootstrap, residual envelope and runs test, six-point test) draws
responses from the fitted probabilities and refits the *same* design. :func:`refit_many` does that for a
whole (replicates x trials) response matrix with the batched IRLS of :mod:`.mlds_glm`, and decides for
every replicate whether its likelihood has a finite maximum: replicates that hit R's boundary clamp or do
not converge are checked for (quasi-)complete separation with one block-diagonal linear program for all
of them together (:func:`separated_rows`), after two cheap exact checks that settle almost all of
them (:func:`finite_certificate`, and a fit that classifies every trial correctly). Separated replicates get NaN scales and are counted, never
kept as huge numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .glm import R_EPSILON, as_link, irls

BATCH_MAXIT = 100
LP_BLOCKS = 200
SEPARATION_TOLERANCE = 1e-6


@dataclass
class Refits:
    """Batched refits of one design.

    Attributes
    ----------
    scale : (R, p) array
        psi / sigma with psi_1 = 0 per replicate; NaN rows for separated replicates.
    fitted : (R, n) array
        Fitted probabilities (NaN rows for separated replicates).
    converged : (R,) bool
        R's IRLS criterion met within the iteration cap.
    separated : (R,) bool
        No finite maximum-likelihood scale (checked by linear programming).
    iterations : (R,) int
    raw_scale : (R, p) array
        The scales where IRLS stopped, separated replicates included (R's ``glm.fit`` keeps these).

    Examples
    --------
    >>> x = np.array([[1.0], [1.0], [1.0], [-1.0]])
    >>> refits = refit_many(x, np.array([[1, 1, 0, 0], [1, 1, 1, 0]]), "logit")
    >>> refits.fitted[0].round(2).tolist(), refits.separated.tolist()
    ([0.75, 0.75, 0.75, 0.25], [False, True])
    """

    scale: np.ndarray
    fitted: np.ndarray
    converged: np.ndarray
    separated: np.ndarray
    iterations: np.ndarray
    raw_scale: np.ndarray | None = None

    @property
    def standard_scale(self) -> np.ndarray:
        """Every refit's scale divided by its last value (R x levels)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.scale / self.scale[:, -1:]

    @property
    def sigma(self) -> np.ndarray:
        """Every refit's noise sigma = 1 / last scale value."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return 1.0 / self.scale[:, -1]


def separated_rows(design: np.ndarray, responses: np.ndarray, tolerance: float = SEPARATION_TOLERANCE) -> np.ndarray:
    """For each response vector, whether the design separates it (no finite MLE).

    All vectors are checked with one linear program whose blocks are independent: maximise
    ``sum_i s_i x_i . beta_r`` subject to ``s_i x_i . beta_r >= 0`` and ``|beta_r| <= 1`` (``s_i = 2 y_i - 1``)
    for every replicate r; the optimum of block r is positive exactly when replicate r is separated.

    Parameters
    ----------
    design : (n, k) array
    responses : (S, n) array of 0/1
    tolerance : float

    Returns
    -------
    (S,) bool array

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [-1.0]])
    >>> separated_rows(x, np.array([[1, 1, 0], [1, 0, 0]])).tolist()
    [True, False]
    """
    from scipy import optimize, sparse
    x = np.asarray(design, float)
    y = np.atleast_2d(np.asarray(responses, float))
    n, k = x.shape
    out = np.zeros(len(y), bool)
    rows_nz, cols_nz = np.nonzero(x)
    values = x[rows_nz, cols_nz]
    for lo in range(0, len(y), LP_BLOCKS):  # bounded LP size; one program per block of replicates
        sign = 2.0 * y[lo:lo + LP_BLOCKS] - 1.0
        s = len(sign)
        block = np.repeat(np.arange(s), len(values))
        data = -(sign[:, rows_nz] * values).ravel()
        a_ub = sparse.csr_matrix((data, (block * n + np.tile(rows_nz, s), block * k + np.tile(cols_nz, s))),
                                 shape=(s * n, s * k))
        c = -(sign @ x).ravel()
        result = optimize.linprog(c, A_ub=a_ub, b_ub=np.zeros(s * n), bounds=(-1.0, 1.0), method="highs")
        if result.status != 0:
            continue
        gain = -(c * result.x).reshape(s, k).sum(axis=1)
        out[lo:lo + s] = gain > tolerance
    return out


def refit_many(design: np.ndarray, responses: np.ndarray, link: str = "probit", *,
               maxit: int = BATCH_MAXIT, epsilon: float = R_EPSILON) -> Refits:
    """Fit the MLDS GLM to every row of ``responses`` on one fixed design (no loop over replicates).

    Parameters
    ----------
    design : (n, p - 1) array
        The design of the original fit (``MldsFit.design``).
    responses : (R, n) array of 0/1
    link : {"probit", "logit", "cauchit"}
    maxit : int
        IRLS iteration cap.
    epsilon : float
        IRLS relative-deviance criterion: R's MLDS refits use 1e-14 (``simu.6pt``, ``binom.diagnostics``);
        R's ``boot.mlds`` calls ``glm.fit`` with its default 1e-8.

    Returns
    -------
    Refits

    Examples
    --------
    >>> x = np.array([[1.0], [1.0], [-1.0], [-1.0]])
    >>> r = refit_many(x, np.array([[1, 0, 0, 1], [1, 1, 0, 0]]), "logit")
    >>> r.separated.tolist(), bool(np.isnan(r.scale[1]).all())
    ([False, True], True)
    """
    x = np.asarray(design, float)
    y = np.atleast_2d(np.asarray(responses, float))
    result = irls(x, y, link, maxit=maxit, epsilon=epsilon)
    suspect = np.flatnonzero(result.boundary | ~result.converged)
    separated = np.zeros(len(y), bool)
    if suspect.size:
        # Cheap exact answers first: a certificate of finiteness, or a perfect classification (a
        # separating witness); only the undecided rest goes to the linear program.
        coef = result.coefficients[suspect]
        finite = finite_certificate(x, y[suspect], coef, link)
        witness = np.all((2.0 * y[suspect] - 1.0) * (coef @ x.T) > 0, axis=1)
        separated[suspect[witness]] = True
        undecided = suspect[~finite & ~witness]
        if undecided.size:
            separated[undecided] = separated_rows(x, y[undecided])
    raw_scale = np.column_stack([np.zeros(len(y)), result.coefficients])
    scale = raw_scale.copy()
    scale[separated] = np.nan
    with np.errstate(over="ignore", invalid="ignore"):
        fitted = as_link(link).inverse(scale[:, 1:] @ x.T)
    return Refits(scale=scale, fitted=fitted, converged=result.converged & ~separated, separated=separated,
                  iterations=result.iterations, raw_scale=raw_scale)


def bytes_per_refit(n_trials: int, n_parameters: int) -> int:
    """Working memory of one replicate in :func:`refit_many` (a dozen n-vectors and the k x k system).

    Parameters
    ----------
    n_trials : int
        Trials n of the design.
    n_parameters : int
        Free scale values k (columns of the design).

    Returns
    -------
    int
        Bytes per replicate, used to size batches.

    Examples
    --------
    >>> bytes_per_refit(1000, 5)    # 8 * (14 * 1000 + 2 * 25 + 4 * 5)
    112560
    """
    return 8 * (14 * n_trials + 2 * n_parameters * n_parameters + 4 * n_parameters)


def finite_certificate(design: np.ndarray, responses: np.ndarray, coefficients: np.ndarray, link: str) -> np.ndarray:
    """Per replicate, a proof that the likelihood has a finite maximum (no separation), where one is found.

    By Gordan's theorem the data are not (quasi-)separable exactly when strictly positive weights lambda
    give ``sum_i lambda_i s_i x_i = 0`` (``s_i = 2 y_i - 1``). The score equations of a converged fit
    supply them up to rounding: ``lambda_i = |d loglik_i / d eta_i|``. Two batched corrections make them
    exact: the convergence residual is projected out through the trials with non-negligible weight (U),
    and the trials whose weight vanished (clamped, C) get weight ``epsilon`` each, balanced by a null-space
    vector supported on U. If the result is strictly positive the replicate is certified finite; False
    means only "no certificate found".

    Parameters
    ----------
    design : numpy.ndarray
        The design, shape (n, k).
    responses : numpy.ndarray
        0/1 responses, shape (R, n) (a 1-d vector is one replicate).
    coefficients : numpy.ndarray
        Fitted coefficients per replicate, shape (R, k).
    link : {"probit", "logit", "cauchit"}
        The link of the fit.

    Returns
    -------
    numpy.ndarray of bool
        Shape (R,): True where finiteness is certified.

    Examples
    --------
    The second response vector is separated (every +x trial is 1, the -x trial 0), so no certificate
    exists for it:

    >>> x = np.array([[1.0], [1.0], [1.0], [-1.0]])
    >>> y = np.array([[1, 1, 0, 0], [1, 1, 1, 0]])
    >>> coefficients = irls(x, y, "logit").coefficients
    >>> finite_certificate(x, y, coefficients, "logit").tolist()
    [True, False]
    """
    x = np.asarray(design, float)
    y = np.atleast_2d(np.asarray(responses, float))
    lk = as_link(link)
    eta = np.atleast_2d(coefficients) @ x.T
    mu = np.clip(lk.inverse(eta), 1e-300, 1 - 1e-16)
    d = lk.derivative(eta)
    weight = np.where(y > 0, d / mu, d / (1 - mu))
    top = np.max(weight, axis=1, keepdims=True)
    clamped = weight < 1e-3 * top  # tiny weights cannot absorb the rounding correction
    used = ~clamped
    sign = 2.0 * y - 1.0
    k = x.shape[1]
    outer = (x[:, :, None] * x[:, None, :]).reshape(len(x), k * k)
    gram = (used.astype(float) @ outer).reshape(len(y), k, k)
    residual = (sign * weight) @ x                      # A^T lambda, ~0 at convergence
    pull = (clamped * sign) @ x                         # A_C^T 1
    eigen = np.linalg.eigvalsh(gram)
    solvable = eigen[:, 0] > 1e-10 * np.maximum(eigen[:, -1], 1e-300)
    gram[~solvable] = np.eye(k)  # no certificate for these rows; keep the batch solvable
    solved = np.linalg.solve(gram, np.stack([residual, pull], axis=2))
    corrected = weight - used * sign * (solved[:, :, 0] @ x.T)
    balance = np.where(used, -sign * (solved[:, :, 1] @ x.T), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(used & (balance < 0), corrected / -balance, np.inf)
    epsilon = 0.5 * np.min(room, axis=1, keepdims=True)
    epsilon = np.where(np.isfinite(epsilon), epsilon, top)
    final = np.where(used, corrected + epsilon * balance, epsilon)
    return (solvable & np.all(final > 1e-12 * top, axis=1)
            & np.all(np.where(used, corrected, 1.0) > 0, axis=1))
