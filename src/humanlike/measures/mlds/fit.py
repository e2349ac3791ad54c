"""Maximum-likelihood difference scaling (Maloney & Yang 2003; R package MLDS, Knoblauch & Maloney 2008).

Model (docs/measures/mlds.md): a quadruple (a, b; c, d) has decision variable
``delta = psi_a - psi_b - psi_c + psi_d`` (a triad (a, b, c): ``psi_a - 2 psi_b + psi_c``) and
``P(response = 1) = F(delta / sigma)``.

* ``method="glm"`` (R's default): design rows +1/-1/-1/+1 (triads +1/-2/+1) on the level columns,
  column 1 dropped (psi_1 = 0), a binomial GLM without intercept and sigma = 1, fitted by IRLS to R's
  tolerance (epsilon 1e-14); the coefficients are psi / sigma.
* ``method="optim"``: psi_1 = 0, psi_p = 1, interior psi and sigma free, R's parameterisation
  (interior psi = plogis(x), sigma = exp(x_last)), maximised to full precision.
* ``method="power"``: a parametric scale psi(u) = u**exponent on the normalised stimulus values
  u = (x - x_1) / (x_p - x_1), with sigma free (R's formula method with ``~ (sx / max)^p``).

Every method reports the scale in one convention: ``scale`` = psi / sigma with psi_1 = 0 (the GLM
coefficients), ``standard_scale`` = psi / psi_p (0 .. 1) and ``sigma`` = 1 / scale_p.

Perfect separation (a deterministic observer) has no finite maximum likelihood; it is detected by a
linear program and reported as ``status = "separated"`` with NaN scale values and a reason, never as a
huge number (``penalty="firth"`` gives a flagged, finite, Jeffreys-prior penalised fit instead).

A design that cannot determine the scale (fewer distinct triads/quadruples than free scale values, e.g.
one triad repeated; levels never compared with the rest) is ``status = "not_identified"`` (design matrix
of deficient rank; NaN scale). A glm scale that ends below its start (sigma < 0) is ``status =
"reversed"``: the responses are almost certainly coded the wrong way round (pairs swapped without
flipping the response). Neither is ``ok``; neither is bootstrapped.

Rows are fitted in canonical order (:func:`humanlike.trials.judgements.canonical_order`), so a fit and
every simulation from it are the same to the bit however the table's rows are ordered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...trials.judgements import (canonical_order, design_levels, level_arrays, repeat_groups, stimulus_values,
                               validate_judgements)
from .glm import (DOUBLE_EPS, LINKS, R_EPSILON, R_MAXIT, as_link, bernoulli_deviance, irls,
                       is_separable)

METHODS = ("glm", "optim", "power")
QUAD_WEIGHTS = np.array([1.0, -1.0, -1.0, 1.0])
TRIAD_WEIGHTS = np.array([1.0, -2.0, 1.0, 0.0])
PENALTIES = (None, "firth")


def design_matrix(levels: np.ndarray, n_levels: int | None = None, *, drop_first: bool = True) -> np.ndarray:
    """MLDS design matrix: +1/-1/-1/+1 on the columns of a, b, c, d (triads +1/-2/+1 on a, b, c).

    Parameters
    ----------
    levels : (n, 4) or (n, 3) int array
        1-based level indices; a 0 in column 4 marks a triad.
    n_levels : int, optional
        Number of levels p (default: the largest index).
    drop_first : bool
        Drop the column of level 1 (psi_1 = 0), as R's ``make.ix.mat``.

    Returns
    -------
    (n, p - 1) or (n, p) float array

    Examples
    --------
    >>> design_matrix(np.array([[1, 2, 3, 4], [1, 2, 3, 0]]))
    array([[-1., -1.,  1.],
           [-2.,  1.,  0.]])
    """
    levels = np.asarray(levels, dtype=np.int64)
    if levels.shape[1] == 3:
        levels = np.column_stack([levels, np.zeros(len(levels), np.int64)])
    p = int(levels.max()) if n_levels is None else int(n_levels)
    triad = levels[:, 3] == 0
    weights = np.where(triad[:, None], TRIAD_WEIGHTS, QUAD_WEIGHTS)
    x = np.zeros((len(levels), p + 1))
    rows = np.repeat(np.arange(len(levels)), 4)
    np.add.at(x, (rows, levels.ravel()), weights.ravel())
    x = x[:, 1:]  # column 0 collects the triads' unused fourth slot
    return x[:, 1:] if drop_first else x


@dataclass
class MldsFit:
    """A fitted difference scale.

    Attributes
    ----------
    scale : (p,) array
        psi / sigma with psi_1 = 0 (R: ``pscale`` of the glm fit).
    standard_scale : (p,) array
        psi / psi_p, running 0 .. 1 for a monotone scale.
    sigma : float
        1 / scale[-1], the noise on the standard scale.
    stimulus : (p,) array
        Physical value of each level (1..p when unknown).
    link, method : str
    loglik, deviance, null_deviance, aic, daf : float
        logLik; deviance = -2 logLik; null deviance at mu = 0.5 (as R for this no-intercept GLM);
        AIC = deviance + 2 * n_parameters; DAF = (null - deviance) / null.
    n_trials, n_parameters : int
    misclassified : float
        Share of trials whose response disagrees with the sign of the fitted decision variable.
    fitted : (n,) array
        Fitted probabilities of response 1, one per row of the table in canonical order
        (:func:`humanlike.trials.judgements.canonical_order`).
    status : str
        ``"ok"``, ``"separated"`` (no finite maximum; scale NaN), ``"penalized"`` (Firth fit of
        separated data), ``"not_identified"`` (the design cannot determine the scale; scale NaN),
        ``"reversed"`` (the scale ends below its start, sigma < 0: responses coded backwards), or
        ``"not_converged"``.
    reason : str
        Why a status is not ``"ok"``.
    converged : bool
    iterations : int
    standard_errors : (p,) array
        Wald standard errors of ``scale`` (0 for level 1); NaN for non-GLM methods.
    parameters : dict
        Method-specific extras (``exponent`` for the power scale, optim convergence code).
    design, responses, levels : arrays
        What was fitted, rows in canonical order (kept so that diagnostics refit the same design).
    repeat_groups : (n,) int array or None
        Rows with one id are the same trial repeated with nothing (session, trial number) to order the
        repetitions (:func:`humanlike.trials.judgements.repeat_groups`); the runs test averages over their order.

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6) ** 2, sigma=0.3, repeats=3, seed=1))
    >>> fit.status, fit.n_levels, fit.n_trials, round(fit.sigma, 3)
    ('ok', 6, 45, 0.208)
    """

    scale: np.ndarray
    standard_scale: np.ndarray
    sigma: float
    stimulus: np.ndarray
    link: str
    method: str
    loglik: float
    deviance: float
    null_deviance: float
    aic: float
    daf: float
    n_trials: int
    n_parameters: int
    misclassified: float
    fitted: np.ndarray
    status: str
    reason: str
    converged: bool
    iterations: int
    standard_errors: np.ndarray
    design: np.ndarray = field(repr=False)
    responses: np.ndarray = field(repr=False)
    levels: np.ndarray = field(repr=False)
    parameters: dict = field(default_factory=dict)
    repeat_groups: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_levels(self) -> int:
        """Number of stimulus levels of the scale."""
        return len(self.scale)

    @property
    def ok(self) -> bool:
        """Whether the fit has a finite, converged scale (not separated, not failed)."""
        return self.status in ("ok", "penalized")

    def to_frame(self) -> pd.DataFrame:
        """One row per level: level, stimulus, scale, standard_scale, scale_se (Wald standard error of scale).

        Returns
        -------
        pandas.DataFrame
            ``n_levels`` rows.
        """
        return pd.DataFrame({
            "level": np.arange(1, self.n_levels + 1), "stimulus": self.stimulus, "scale": self.scale,
            "standard_scale": self.standard_scale, "scale_se": self.standard_errors})

    def to_json_dict(self) -> dict:
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings.

        Returns
        -------
        dict
            Keys ``method``, ``link``, ``status``, ``reason``, ``stimulus``, ``scale``, ``standard_scale``,
            ``sigma``, ``standard_errors``, the fit statistics, ``converged``, ``iterations`` and, when
            present, ``parameters``.
        """
        return {
            "method": self.method, "link": self.link, "status": self.status, "reason": self.reason,
            "stimulus": self.stimulus.tolist(), "scale": self.scale.tolist(),
            "standard_scale": self.standard_scale.tolist(), "sigma": self.sigma,
            "standard_errors": self.standard_errors.tolist(),
            "loglik": self.loglik, "deviance": self.deviance, "null_deviance": self.null_deviance,
            "aic": self.aic, "daf": self.daf, "n_trials": self.n_trials, "n_parameters": self.n_parameters,
            "misclassified": self.misclassified, "converged": self.converged, "iterations": self.iterations,
            **({"parameters": self.parameters} if self.parameters else {}),
        }


def decision_variable(scale: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """delta per trial for a full scale (psi_1 included) and (n, 4) levels (0 = triad slot).

    Parameters
    ----------
    scale : numpy.ndarray
        Scale values psi_1 .. psi_p, shape (p,).
    levels : numpy.ndarray of int
        1-based levels (a, b, c, d) per trial, shape (n, 4); d = 0 marks a triad (a, b, c).

    Returns
    -------
    numpy.ndarray
        ``psi_a - psi_b - psi_c + psi_d`` (triads ``psi_a - 2 psi_b + psi_c``) per trial.

    Notes
    -----
    docs/measures/mlds.md.

    Examples
    --------
    >>> decision_variable(np.array([0.0, 1.0, 2.0, 4.0]), np.array([[1, 2, 3, 4], [1, 2, 3, 0]])).tolist()
    [1.0, 0.0]
    """
    padded = np.concatenate([[0.0], np.asarray(scale, float)])
    lv = np.asarray(levels, np.int64)
    triad = lv[:, 3] == 0
    w = np.where(triad[:, None], TRIAD_WEIGHTS, QUAD_WEIGHTS)
    return np.sum(padded[lv] * w, axis=1)


def _summaries(design, y, fitted, eta, n_parameters):
    deviance = float(bernoulli_deviance(y, fitted))
    null_deviance = float(bernoulli_deviance(y, np.full(len(y), 0.5)))
    return {
        "loglik": -deviance / 2.0, "deviance": deviance, "null_deviance": null_deviance,
        "aic": deviance + 2.0 * n_parameters, "daf": (null_deviance - deviance) / null_deviance,
        "misclassified": float(np.mean((eta > 0) != (y > 0))),
    }


def _standardise(scale: np.ndarray) -> tuple[np.ndarray, float]:
    top = scale[-1]
    if not np.isfinite(top) or top == 0:
        return np.full_like(scale, np.nan), float("nan")
    return scale / top, float(1.0 / top)


def _wald_errors(design, link, eta):
    lk = as_link(link)
    mu = lk.inverse(eta)
    d = lk.derivative(eta)
    w = d * d / (mu * (1 - mu))
    info = design.T @ (w[:, None] * design)
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return np.full(design.shape[1] + 1, np.nan)
    return np.concatenate([[0.0], np.sqrt(np.clip(np.diag(cov), 0, None))])


def prepare(table: pd.DataFrame, n_levels: int | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Levels (n, 4), responses (n,) and the number of levels of a judgement table, checked for fitting.

    Parameters
    ----------
    table : pandas.DataFrame
        A judgement table (:mod:`humanlike.trials.judgements`).
    n_levels : int, optional
        Number of levels p (default: the largest level index).

    Returns
    -------
    levels : numpy.ndarray of int
        1-based levels per trial, shape (n, 4) (0 in the last column for a triad).
    responses : numpy.ndarray
        The 0/1 responses, shape (n,).
    n_levels : int
        The number of levels p.

    Raises
    ------
    ValueError
        (:class:`~humanlike.trials.judgements.JudgementTableError`) When the table is invalid, has fewer
        than 3 levels, uses a level above ``n_levels``, or some level 1..p appears in no trial (its scale
        value is not identified): :func:`humanlike.trials.judgements.design_levels`.

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> levels, responses, n_levels = prepare(simulate_judgements(np.linspace(0, 1, 6), sigma=0.3, seed=1))
    >>> levels.shape[1], levels.shape[0] == responses.shape[0], n_levels
    (4, True, 6)
    """
    frame = canonical_order(validate_judgements(table))
    p = design_levels(frame, n_levels=n_levels)
    levels, y = level_arrays(frame)
    return levels, y, p


def fit_mlds(table: pd.DataFrame, *, link: str = "probit", method: str = "glm",
             n_levels: int | None = None, stimulus=None, penalty: str | None = None,
             start_exponent: float = 1.0) -> MldsFit:
    """Fit a difference scale to a judgement table (all rows pooled into one scale).

    Parameters
    ----------
    table : pandas.DataFrame
        A judgement table (:mod:`humanlike.trials.judgements`), rows in physical order. Select one
        observer / scale before calling; every row counts.
    link : {"probit", "logit", "cauchit"}
    method : {"glm", "optim", "power"}
        See the module docstring.
    n_levels : int, optional
        Number of levels p (default: the largest level index).
    stimulus : array-like, optional
        Physical level values (default: from the table's ``v*`` columns, else 1..p).
    penalty : {None, "firth"}
        ``"firth"``: maximise the Jeffreys-prior penalised likelihood (Firth 1993) when the data are
        separated, so that a finite, clearly flagged (``status="penalized"``) scale comes back. Only for
        ``method="glm"``.
    start_exponent : float
        Starting exponent of the power scale.

    Returns
    -------
    MldsFit

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 6) ** 2, sigma=0.3, repeats=3, seed=1)
    >>> fit = fit_mlds(table)
    >>> fit.status, float(fit.standard_scale[0]), float(fit.standard_scale[-1])
    ('ok', 0.0, 1.0)
    """
    if link not in LINKS:
        raise ValueError(f"unknown link {link!r}; use one of {LINKS}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
    if penalty not in PENALTIES:
        raise ValueError(f"unknown penalty {penalty!r}; use one of {PENALTIES}")
    if penalty is not None and method != "glm":
        raise ValueError("penalty='firth' is only defined for method='glm'")
    frame = canonical_order(validate_judgements(table))
    levels, y, p = prepare(frame, n_levels)
    fit = _fit_design(frame, levels, y, p, link, method, stimulus, penalty, start_exponent)
    fit.repeat_groups = repeat_groups(frame)
    return fit


def _fit_design(frame, levels, y, p, link, method, stimulus, penalty, start_exponent) -> MldsFit:
    if stimulus is None:
        stim = stimulus_values(frame, p)
        if np.isnan(stim).any():
            stim = np.arange(1.0, p + 1)
    else:
        stim = np.asarray(stimulus, dtype=float)
        if len(stim) != p:
            raise ValueError(f"stimulus has {len(stim)} values for {p} levels")
    x = design_matrix(levels, p)
    unidentified = identification_problem(x, levels)
    if unidentified:
        return _undefined_fit(x, y, levels, link, stim, method, p - 1, "not_identified", unidentified)
    if method == "glm":
        return _reversal_checked(_fit_glm(x, y, levels, link, stim, penalty))
    # optim and power keep sigma > 0 by construction: the sign of the glm scale tells whether the
    # responses run backwards.
    glm_sign = _reversal_checked(_fit_glm(x, y, levels, link, stim, None))
    if glm_sign.status == "reversed":
        return _undefined_fit(x, y, levels, link, stim, method, p - 1 if method == "optim" else 2, "reversed",
                              glm_sign.reason)
    if method == "optim":
        # The same likelihood as the glm, reparameterised: separated data have no finite optimum here either.
        if is_separable(x, y):
            return _separated_fit(x, y, levels, link, stim, "optim", p - 1, 0)
        return _fit_optim(x, y, levels, link, stim)
    fit = _fit_power(x, y, levels, link, stim, start_exponent)
    if fit.sigma < 1e-8 * max(1.0, float(np.nanmax(np.abs(fit.standard_scale)))):
        fit.status = "separated"
        fit.reason = "sigma ran to 0: the power-function scale separates the responses (no finite maximum)"
    return fit


def identification_problem(design: np.ndarray, levels: np.ndarray) -> str:
    """Why a design cannot determine a difference scale, or ``""`` when it can.

    The scale (psi_2 .. psi_p with psi_1 = 0, in units of sigma) is identified only when the design
    matrix has full column rank p - 1: then no two scales give the same decision variable on every
    trial. It has not when there are fewer distinct triads/quadruples than free values (one triad
    repeated), or when some levels are never compared with the others (disconnected groups of levels).

    Parameters
    ----------
    design : numpy.ndarray
        The design matrix of :func:`design_matrix` (level 1 dropped), shape (n, p - 1).
    levels : numpy.ndarray of int
        The (n, 4) levels it was made from (0 in column 4 for triads).

    Returns
    -------
    str
        The reason, naming the rank, the distinct trials and any groups of levels never compared.

    Examples
    --------
    >>> one_triad = np.array([[1, 2, 3, 0]] * 5)
    >>> identification_problem(design_matrix(one_triad, 3), one_triad)[:60]
    'the design cannot determine the scale: its 1 distinct triad('
    >>> identification_problem(design_matrix(np.array([[1, 2, 3, 0], [1, 2, 4, 0], [2, 3, 4, 0]]), 4),
    ...                        np.array([[1, 2, 3, 0], [1, 2, 4, 0], [2, 3, 4, 0]]))
    ''
    """
    x = np.asarray(design, float)
    k = x.shape[1]
    rank = int(np.linalg.matrix_rank(x)) if len(x) else 0
    if rank >= k:
        return ""
    lv = np.asarray(levels, np.int64)
    distinct = len(np.unique(lv, axis=0))
    kind = "triad(s)" if np.any(lv[:, 3] == 0) else "quadruple(s)"
    groups = _level_groups(lv, k + 1)
    split = (f"; levels {' | '.join(', '.join(map(str, g)) for g in groups)} are never compared with each "
             "other" if len(groups) > 1 else "")
    return (f"the design cannot determine the scale: its {distinct} distinct {kind} give a design matrix of "
            f"rank {rank} for {k} free scale values (psi_2..psi_{k + 1}){split}; every scale value needs "
            "trials that compare it with the others (e.g. all triads or quadruples of the levels)")


def _level_groups(levels: np.ndarray, p: int) -> list[list[int]]:
    """Connected groups of levels, two levels joined when one trial shows both."""
    parent = list(range(p + 1))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for row in levels:
        used = [int(v) for v in row if v > 0]
        for v in used[1:]:
            parent[root(v)] = root(used[0])
    groups: dict[int, list[int]] = {}
    for level in range(1, p + 1):
        groups.setdefault(root(level), []).append(level)
    return sorted(groups.values())


def _reversal_checked(fit: MldsFit) -> MldsFit:
    """Flag a finite glm scale that ends below its start (sigma < 0): the responses run backwards."""
    if fit.status in ("ok", "not_converged", "penalized") and np.isfinite(fit.sigma) and fit.sigma < 0:
        fit.status = "reversed"
        fit.reason = (f"the fitted scale ends below its start (sigma = {fit.sigma:.4g} < 0): the responses "
                      "look coded backwards. response = 1 must mean that the SECOND pair (s3, s4; for a "
                      "triad s2, s3) looked more different; rows stored with their pairs swapped (s1 > s4) "
                      "need their response flipped too (to_physical_order does both)")
    return fit


def _undefined_fit(x, y, levels, link, stim, method, n_parameters, status, reason, iterations=0) -> MldsFit:
    p = x.shape[1] + 1
    nan = np.full(p, np.nan)
    null = float(bernoulli_deviance(y, np.full(len(y), 0.5)))
    separated = status == "separated"
    return MldsFit(
        scale=nan, standard_scale=nan.copy(), sigma=float("nan"), stimulus=stim, link=link, method=method,
        loglik=0.0 if separated else float("nan"), deviance=0.0 if separated else float("nan"),
        null_deviance=null, aic=2.0 * n_parameters if separated else float("nan"),
        daf=1.0 if separated else float("nan"), n_trials=len(y),
        n_parameters=n_parameters, misclassified=float("nan"), fitted=np.full(len(y), np.nan),
        status=status, reason=reason, converged=False, iterations=iterations, standard_errors=nan.copy(),
        design=x, responses=y, levels=levels)


def _separated_fit(x, y, levels, link, stim, method, n_parameters, iterations) -> MldsFit:
    return _undefined_fit(
        x, y, levels, link, stim, method, n_parameters, "separated",
        ("the responses are perfectly separable by a difference scale (a deterministic observer): "
         "the likelihood has no finite maximum, so the scale is undefined; the supremum of the "
         "log-likelihood is 0. Pool more observers/sequences or use penalty='firth'"), iterations)


def _fit_glm(x, y, levels, link, stim, penalty) -> MldsFit:
    k = x.shape[1]
    result = irls(x, y, link, epsilon=R_EPSILON, maxit=R_MAXIT if len(y) * k < 5e6 else 1000, solver="qr")
    coef = result.coefficients[0]
    suspicious = bool(result.boundary[0] or not result.converged[0])
    if suspicious and is_separable(x, y):
        if penalty == "firth":
            return _fit_firth(x, y, levels, link, stim)
        return _separated_fit(x, y, levels, link, stim, "glm", k, int(result.iterations[0]))
    scale = np.concatenate([[0.0], coef])
    eta = x @ coef
    fitted = as_link(link).inverse(eta)
    standard, sigma = _standardise(scale)
    status = "ok" if result.converged[0] else "not_converged"
    return MldsFit(
        scale=scale, standard_scale=standard, sigma=sigma, stimulus=stim, link=link, method="glm",
        **_summaries(x, y, fitted, eta, k), n_trials=len(y), n_parameters=k, fitted=fitted, status=status,
        reason="" if status == "ok" else f"IRLS did not meet R's criterion within {int(result.iterations[0])} iterations",
        converged=bool(result.converged[0]), iterations=int(result.iterations[0]),
        standard_errors=_wald_errors(x, link, eta), design=x, responses=y, levels=levels)


def _fit_firth(x, y, levels, link, stim) -> MldsFit:
    """Jeffreys-prior penalised likelihood: l(beta) + 0.5 log det I(beta) (Firth 1993)."""
    from scipy import optimize
    lk = as_link(link)
    k = x.shape[1]

    def objective(beta):
        eta = x @ beta
        mu = np.clip(lk.inverse(eta), DOUBLE_EPS, 1 - DOUBLE_EPS)
        d = lk.derivative(eta)
        w = d * d / (mu * (1 - mu))
        sign, logdet = np.linalg.slogdet(x.T @ (w[:, None] * x))
        penalty = 0.5 * logdet if sign > 0 else -1e10
        return 0.5 * bernoulli_deviance(y, mu) - penalty

    res = optimize.minimize(objective, np.zeros(k), method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000})
    coef = res.x
    scale = np.concatenate([[0.0], coef])
    eta = x @ coef
    fitted = lk.inverse(eta)
    standard, sigma = _standardise(scale)
    return MldsFit(
        scale=scale, standard_scale=standard, sigma=sigma, stimulus=stim, link=link, method="glm",
        **_summaries(x, y, fitted, eta, k), n_trials=len(y), n_parameters=k, fitted=fitted, status="penalized",
        reason=("separated data: Jeffreys-prior (Firth) penalised estimate, biased towards 0 by design; "
                "not a maximum-likelihood scale"),
        converged=bool(res.success), iterations=int(res.nit), standard_errors=_wald_errors(x, link, eta),
        design=x, responses=y, levels=levels)


def _fit_optim(x, y, levels, link, stim) -> MldsFit:
    """R's method="optim": psi = (0, plogis(t_2..t_{p-1}), 1), sigma = exp(t_p); maximise the
    likelihood (R clips fitted probabilities to [eps, 1 - eps])."""
    from scipy import optimize, special
    lk = as_link(link)
    p = x.shape[1] + 1
    full = np.column_stack([np.zeros(len(x)), x])  # columns for levels 1..p

    def unpack(t):
        from scipy import special
        psi = np.concatenate([[0.0], special.expit(t[:-1]), [1.0]])
        return psi, np.exp(t[-1])

    def objective(t):
        psi, sigma = unpack(t)
        eta = (full @ psi) / sigma
        mu = np.clip(lk.inverse(eta), DOUBLE_EPS, 1 - DOUBLE_EPS)
        nll = 0.5 * bernoulli_deviance(y, mu)
        d = lk.derivative(eta)
        score = np.where(y > 0, d / mu, -d / (1 - mu))  # d loglik / d eta
        dpsi = full.T @ score / sigma
        dlogsigma = -np.sum(score * eta)
        grad_psi = dpsi[1:-1] * psi[1:-1] * (1 - psi[1:-1])
        return nll, -np.concatenate([grad_psi, [dlogsigma]])

    # Start from the glm scale when it lies inside (0, 1) after normalising, else a linear scale.
    glm = irls(x, y, link, epsilon=1e-10, maxit=200)
    coef = np.concatenate([[0.0], glm.coefficients[0]])
    inner = coef[1:-1] / coef[-1] if coef[-1] != 0 else np.full(p - 2, np.nan)
    if glm.converged[0] and np.all((inner > 0) & (inner < 1)) and coef[-1] > 0:
        t0 = np.concatenate([special.logit(inner), [np.log(1 / coef[-1])]])
    else:
        t0 = np.concatenate([special.logit(np.linspace(0, 1, p)[1:-1]), [np.log(0.2)]])
    res = optimize.minimize(objective, t0, jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 50_000})
    psi, sigma = unpack(res.x)
    eta = (full @ psi) / sigma
    fitted = lk.inverse(eta)
    scale = psi / sigma
    summaries = _summaries(x, y, np.clip(fitted, DOUBLE_EPS, 1 - DOUBLE_EPS), eta, p - 1)
    # BFGS reports "precision loss" when an interior value runs to 0 or 1 (a glm scale leaving (0, 1)):
    # the optimum is then on the boundary of R's parameterisation; a vanishing gradient still means done.
    gradient = float(np.linalg.norm(res.jac, np.inf))
    status = "ok" if res.success or gradient < 1e-6 * max(1.0, abs(float(res.fun))) else "not_converged"
    return MldsFit(
        scale=scale, standard_scale=psi, sigma=float(sigma), stimulus=stim, link=link, method="optim",
        **summaries, n_trials=len(y), n_parameters=p - 1, fitted=fitted, status=status,
        reason="" if status == "ok" else f"BFGS: {res.message}", converged=status == "ok",
        iterations=int(res.nit), standard_errors=np.full(p, np.nan), design=x, responses=y, levels=levels,
        parameters={"optimizer": "BFGS", "gradient_norm": gradient, "interior_logit": res.x[:-1].tolist(),
                    "log_sigma": float(res.x[-1])})


def _fit_power(x, y, levels, link, stim, start_exponent) -> MldsFit:
    """psi(u) = u ** exponent on u = (stimulus - stimulus_1) / (stimulus_p - stimulus_1), sigma free."""
    from scipy import optimize
    lk = as_link(link)
    p = x.shape[1] + 1
    span = stim[-1] - stim[0]
    if not np.isfinite(span) or span == 0:
        raise ValueError("the power scale needs distinct physical stimulus values for the first and last level")
    u = (stim - stim[0]) / span
    if np.any(u < 0):
        raise ValueError("the power scale needs stimulus values not below the first level's")
    full = np.column_stack([np.zeros(len(x)), x])

    def objective(t):
        exponent, sigma = t
        if exponent <= 0 or sigma <= 0:
            return np.inf
        eta = (full @ np.power(u, exponent)) / sigma
        mu = np.clip(lk.inverse(eta), DOUBLE_EPS, 1 - DOUBLE_EPS)
        return 0.5 * bernoulli_deviance(y, mu)

    best = None
    for start in ((start_exponent, 0.2), (start_exponent, 1.0), (0.5, 0.2), (2.0, 0.2)):
        res = optimize.minimize(objective, np.array(start, float), method="Nelder-Mead",
                                options={"xatol": 1e-12, "fatol": 1e-13, "maxiter": 20_000, "maxfev": 40_000})
        if best is None or res.fun < best.fun:
            best = res
    exponent, sigma = best.x
    psi = np.power(u, exponent)
    eta = (full @ psi) / sigma
    fitted = lk.inverse(eta)
    summaries = _summaries(x, y, np.clip(fitted, DOUBLE_EPS, 1 - DOUBLE_EPS), eta, 2)
    return MldsFit(
        scale=psi / sigma, standard_scale=psi, sigma=float(sigma), stimulus=stim, link=link, method="power",
        **summaries, n_trials=len(y), n_parameters=2, fitted=fitted, status="ok" if best.success else "not_converged",
        reason="" if best.success else str(best.message), converged=bool(best.success), iterations=int(best.nit),
        standard_errors=np.full(p, np.nan), design=x, responses=y, levels=levels,
        parameters={"exponent": float(exponent)})
