"""Many MLDS scales at once from binomial counts: the class-level scales of the Psychophysical-Score.

Pooling all trials of a class pair (every instance sequence, every person) leaves only the counts per
distinct trial (how often a triad or quadruple was shown, how often R = 1). All scales of all observers
and all bootstrap replicates then share one design matrix and differ only in their counts, so one
batched Fisher-scoring loop fits them together: the information matrix of every problem is one matrix
product ``weights @ outer(X)``, the update a batched 6x6 (p−1) solve. The model is R MLDS's GLM: probit
link, ψ_1 = 0, σ = 1, no intercept; the standard scale is ψ/ψ_p.

Perfect separation (a deterministic observer whose pooled answers a monotone scale can reproduce
exactly) has no finite maximum: the iterates run off to infinity. It is detected per scale (no
convergence: the iterates run off until a fitted probability is within 1e-300 of 0 or 1; the analyses
confirm point estimates with the exact LP test of ``mlds_glm.is_separable``) and then, as a
deliberate, documented choice, the scale is refitted with half a success and half a failure added to
every trial type that was shown (a Jeffreys-style smoothing of each count); such scales are flagged
``separated`` and their number is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_ITER = 100
TOLERANCE = 1e-10
ETA_CLIP = 30.0
SMOOTHING = 0.5
RUNAWAY_ETA = 37.0
DEVIANCE_TOLERANCE = 1e-14


def design_matrix(trials, n_levels: int) -> np.ndarray:
    """GLM design rows for triads (+1, −2, +1) or quadruples (+1, −1, −1, +1), column of level 1 dropped.

    Parameters
    ----------
    trials : int array (m, 3) or (m, 4)
        Ascending 1-based levels; a quadruple's S4 may be 0 to mark a triad in a mixed table.
    n_levels : int

    Returns
    -------
    array (m, n_levels − 1)

    Examples
    --------
    >>> design_matrix([[1, 2, 3, 0], [1, 2, 3, 4]], 4)     # a triad (S4 = 0) and a quadruple
    array([[-2.,  1.,  0.],
           [-1., -1.,  1.]])
    """
    trials = np.atleast_2d(np.asarray(trials, dtype=np.int64))
    x = np.zeros((len(trials), n_levels))
    rows = np.arange(len(trials))
    if trials.shape[1] == 3:
        t = np.concatenate([trials, np.zeros((len(trials), 1), np.int64)], axis=1)
    elif trials.shape[1] == 4:
        t = trials
    else:
        raise ValueError(f"trials must have 3 (triads) or 4 (quadruples) columns, got {trials.shape[1]}")
    is_triad = t[:, 3] == 0
    np.add.at(x, (rows[is_triad], t[is_triad, 0] - 1), 1.0)
    np.add.at(x, (rows[is_triad], t[is_triad, 1] - 1), -2.0)
    np.add.at(x, (rows[is_triad], t[is_triad, 2] - 1), 1.0)
    q = ~is_triad
    if q.any():
        for col, sign in zip(range(4), (1.0, -1.0, -1.0, 1.0)):
            np.add.at(x, (rows[q], t[q, col] - 1), sign)
    return x[:, 1:]


@dataclass(frozen=True)
class ScaleFits:
    """Fitted scales of a batch of count problems.

    ``psi`` (..., levels) with ψ_1 = 0 on the GLM scale (σ = 1); ``loglik`` the Bernoulli
    log-likelihood of the trials; ``separated`` where the plain fit had no finite maximum (the
    reported ``psi`` is then the smoothed fit); ``n_trials`` per problem.

    Attributes
    ----------
    psi : numpy.ndarray
        Fitted scale values, shape (..., n_levels), ψ_1 = 0, σ = 1.
    loglik : numpy.ndarray
        Bernoulli log-likelihood per problem (NaN for problems passed in as separated).
    separated : numpy.ndarray of bool
        Where the plain fit had no finite maximum.
    n_trials : numpy.ndarray
        Trials per problem.
    converged : numpy.ndarray of bool
        Whether the (plain or smoothed) fit converged.

    Examples
    --------
    >>> fits = fit_count_scales([[1, 2, 3]], 3, [[7]], [[10]])
    >>> fits.psi.shape, fits.n_trials.tolist(), fits.separated.tolist()
    ((1, 3), [10.0], [False])
    """

    psi: np.ndarray
    loglik: np.ndarray
    separated: np.ndarray
    n_trials: np.ndarray
    converged: np.ndarray

    @property
    def standard(self) -> np.ndarray:
        """ψ/ψ_p (NaN where ψ_p is 0)."""
        last = self.psi[..., -1:]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(last != 0, self.psi / np.where(last != 0, last, 1.0), np.nan)

    @property
    def sigma(self) -> np.ndarray:
        """σ = 1/ψ_p of the standard scale (the noise of the observer in scale units)."""
        with np.errstate(divide="ignore"):
            return 1.0 / self.psi[..., -1]


def _probit_terms(eta):
    from scipy import special
    log_p = special.log_ndtr(eta)
    log_q = special.log_ndtr(-eta)
    log_phi = -0.5 * eta * eta - 0.5 * np.log(2 * np.pi)
    # φ/(μ(1−μ)) and φ²/(μ(1−μ)), computed in logs so that large |η| neither underflows nor divides by 0.
    ratio = np.exp(log_phi - log_p - log_q)
    weight = np.exp(2 * log_phi - log_p - log_q)
    return log_p, log_q, ratio, weight


def _fisher_scoring(x: np.ndarray, k: np.ndarray, n: np.ndarray, start=None, tol: float = TOLERANCE):
    from scipy import special
    n_problems, m = k.shape
    q = x.shape[1]
    outer = (x[:, :, None] * x[:, None, :]).reshape(m, q * q)
    beta = np.zeros((n_problems, q)) if start is None else np.array(start, dtype=np.float64)
    active = np.ones(n_problems, dtype=bool)
    converged = np.zeros(n_problems, dtype=bool)
    ridge = 1e-12 * np.eye(q)
    dev_old = np.full(n_problems, np.inf)
    for _ in range(MAX_ITER):
        if not active.any():
            break
        idx = np.flatnonzero(active)
        raw = beta[idx] @ x.T
        # Clipping at |η| = 30 (probabilities within 1e-197 of 0 or 1) keeps μ(1−μ) a normal float; a
        # fit that gets there is running off to infinity anyway.
        eta = np.clip(raw, -ETA_CLIP, ETA_CLIP)
        mu = special.ndtr(eta)
        var = mu * special.ndtr(-eta)           # 1 − μ computed directly: exact in the far tail
        phi = np.exp(-0.5 * eta * eta) * (1.0 / np.sqrt(2.0 * np.pi))
        score = ((k[idx] - n[idx] * mu) * (phi / var)) @ x
        info = ((n[idx] * (phi * phi / var)) @ outer).reshape(-1, q, q) + ridge
        try:
            step = np.linalg.solve(info, score[..., None])[..., 0]
        except np.linalg.LinAlgError:
            step = np.einsum("bij,bj->bi", np.linalg.pinv(info), score)
        old_beta = beta[idx]
        dev_before = -2.0 * _loglik(eta, k[idx], n[idx])
        dev = -2.0 * _loglik(np.clip((old_beta + step) @ x.T, -ETA_CLIP, ETA_CLIP), k[idx], n[idx])
        # Step halving (as R's glm.fit does on a rising deviance): from a warm start on a flat,
        # smoothed likelihood a full Fisher step can overshoot and run away.
        for _halving in range(20):
            worse = dev > dev_before * (1 + 1e-12) + 1e-12
            if not worse.any():
                break
            step[worse] *= 0.5
            dev[worse] = -2.0 * _loglik(np.clip((old_beta[worse] + step[worse]) @ x.T, -ETA_CLIP, ETA_CLIP),
                                        k[idx[worse]], n[idx[worse]])
        beta[idx] = old_beta + step
        size = np.max(np.abs(beta[idx]), axis=1)
        # Converged when the coefficients stop moving, or (as R's glm.fit) when the deviance stops
        # changing: on flat likelihoods (smoothed near-separated scales) the coefficients can wander in
        # the last digits long after the fit is settled.
        done = (np.max(np.abs(step), axis=1) < tol * (1.0 + size)) | (
            np.abs(dev - dev_old[idx]) / (np.abs(dev) + 0.1) < DEVIANCE_TOLERANCE)
        dev_old[idx] = dev
        # A fitted probability beyond 1e-300 of 0 or 1 on a shown trial type: no finite fit gets there,
        # the iterates are running off to infinity (separation); continuing only burns time.
        runaway = (size > 1e6) | np.any((n[idx] > 0) & (np.abs(raw) > RUNAWAY_ETA), axis=1)
        converged[idx[done & ~runaway]] = True
        active[idx[done | runaway]] = False
    return beta, converged


def fit_count_scales(trials, n_levels: int, successes, totals, start=None,
                     tol: float = TOLERANCE, separated=None) -> ScaleFits:
    """Fit MLDS GLM scales to many sets of counts over one set of trial types.

    Parameters
    ----------
    trials : int array (m, 3) or (m, 4)
        The distinct trial types (ascending 1-based levels).
    n_levels : int
    successes, totals : arrays (..., m)
        How often each trial type was answered R = 1, and how often it was shown.
    start : array (..., n_levels), optional
        Starting ψ (e.g. the point estimate when fitting bootstrap replicates: a few steps then suffice).
    tol : float
        Convergence when no coefficient moves by more than ``tol`` relative to the largest.
    separated : bool array (...), optional
        Problems known to be separated (bootstrap replicates of a separated scale: resampled trials
        of separable data stay separable); they go straight to the smoothed fit and their
        ``loglik`` is NaN.

    Returns
    -------
    ScaleFits
        Arrays with the leading shape of ``successes``.

    Examples
    --------
    >>> from humanlike.measures.mlds.observers import triad_design
    >>> t = triad_design(5)
    >>> psi = np.linspace(0, 3, 5)                           # a linear scale, σ = 1
    >>> x = design_matrix(t, 5)
    >>> from scipy.special import ndtr
    >>> p = ndtr(x @ psi[1:])
    >>> fit = fit_count_scales(t, 5, 1000 * p, np.full(len(t), 1000.0))   # expected counts
    >>> np.round(fit.psi, 6).tolist()
    [0.0, 0.75, 1.5, 2.25, 3.0]
    """
    x = design_matrix(trials, n_levels)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(totals, dtype=np.float64)
    k, n = np.broadcast_arrays(k, n)
    lead = k.shape[:-1]
    k2 = k.reshape(-1, k.shape[-1])
    n2 = n.reshape(-1, n.shape[-1])
    if np.any(k2 < 0) or np.any(k2 > n2):
        raise ValueError("successes must lie between 0 and the number of trials")
    if start is not None:
        start = np.broadcast_to(np.asarray(start, dtype=np.float64), lead + (n_levels,)).reshape(-1, n_levels)
        start = np.where(np.isfinite(start), start, 0.0)[:, 1:]
    known = (np.zeros(len(k2), bool) if separated is None
             else np.broadcast_to(np.asarray(separated, bool), lead).reshape(-1))
    beta = np.zeros((len(k2), x.shape[1]))
    converged = np.zeros(len(k2), bool)
    loglik = np.full(len(k2), np.nan)
    shown = n2 > 0
    plain = np.flatnonzero(~known)
    if len(plain):
        b, c = _fisher_scoring(x, k2[plain], n2[plain], None if start is None else start[plain], tol)
        beta[plain], converged[plain] = b, c
        eta = b @ x.T
        loglik[plain] = _loglik(eta, k2[plain], n2[plain])
        found = ~c
    else:
        found = np.zeros(0, bool)
    is_separated = known.copy()
    is_separated[plain] = found
    if is_separated.any():
        idx = np.flatnonzero(is_separated)
        add = np.where(shown[idx], SMOOTHING, 0.0)
        smooth_beta, smooth_conv = _fisher_scoring(x, k2[idx] + add, n2[idx] + 2 * add,
                                                   None if start is None else start[idx], tol)
        beta[idx] = smooth_beta
        converged[idx] = smooth_conv
    separated = is_separated
    psi = np.concatenate([np.zeros((len(beta), 1)), beta], axis=1)
    return ScaleFits(psi.reshape(lead + (n_levels,)), loglik.reshape(lead), separated.reshape(lead),
                     n2.sum(axis=1).reshape(lead), converged.reshape(lead))


def _loglik(eta, k, n):
    log_p, log_q, _, _ = _probit_terms(eta)
    return np.sum(np.where(k > 0, k * log_p, 0.0) + np.where(n - k > 0, (n - k) * log_q, 0.0), axis=1)


def flat_scale_test(loglik, n_trials, n_levels: int):
    """Likelihood-ratio test of a fitted scale against the flat scale (all ψ equal: P(R = 1) = ½).

    G = 2(ℓ_fit − ℓ_flat) with ℓ_flat = −N ln 2 is χ² with n_levels − 1 degrees of freedom under the
    flat (chance) scale. Returns ``(G, df, p)``; for a separated scale ℓ_fit is the supremum
    approached by the plain fit, so G stays finite.

    Parameters
    ----------
    loglik : array_like of float
        Log-likelihood of the fitted scales (:attr:`ScaleFits.loglik`).
    n_trials : array_like of float
        Trials per scale N.
    n_levels : int
        Number of stimulus levels.

    Returns
    -------
    G : numpy.ndarray
        The likelihood-ratio statistic (clipped at 0).
    df : int
        Degrees of freedom, ``n_levels - 1``.
    p : numpy.ndarray
        Chi-squared upper-tail p-value.

    Examples
    --------
    ℓ = −60 on 100 trials: G = 2(−60 + 100 ln 2) = 18.63 on 4 degrees of freedom.

    >>> g, df, p = flat_scale_test([-100.0, -60.0], [100, 100], 5)
    >>> g.round(2).tolist(), df, p.round(5).tolist()
    ([0.0, 18.63], 4, [1.0, 0.00093])
    """
    from scipy import stats as sps
    loglik = np.asarray(loglik, dtype=float)
    g = np.maximum(2.0 * (loglik + np.asarray(n_trials, dtype=float) * np.log(2.0)), 0.0)
    df = n_levels - 1
    return g, df, sps.chi2.sf(g, df)
