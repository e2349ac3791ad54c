"""Decision-variable correlation (DVC) from binary choices (Sebastian & Geisler 2018): the array kernels.

Pure numpy, broadcasting over leading axes (docs/measures/decision-variable-correlation.md): d' and criterion, the bivariate-normal CDF (Owen's
T, vectorised), the maximum-likelihood correlation of a 2x2 joint-response table on (-1, 1) (the tetrachoric
correlation when the thresholds come from the table's own margins), and the probit variant for a known
continuous DV. DVC from representations is in :mod:`humanlike.measures.dvc.metric`.
"""

from __future__ import annotations

import numpy as np


def clipped_rate(successes, trials):
    """Proportion with 0 and 1 replaced by 1/(2n) and 1 - 1/(2n) (Macmillan & Creelman's rule).

    Parameters
    ----------
    successes : array_like
        Counts.
    trials : array_like
        Number of trials behind each count.

    Returns
    -------
    numpy.ndarray
        The clipped proportions.

    Examples
    --------
    >>> clipped_rate(np.array([0, 5, 10]), 10).tolist()
    [0.05, 0.5, 0.95]
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = successes / trials
        half = 0.5 / trials
    return np.clip(rate, half, 1.0 - half)


def dprime_criterion(hits, n_b, false_alarms, n_a):
    """d' and criterion gamma from 'b' responses: H = hits/n_b = P('b'|b), F = false_alarms/n_a.

    ``d' = z(H) - z(F)``, ``gamma = -(z(H) + z(F))/2`` with rates clipped by :func:`clipped_rate`.

    Parameters
    ----------
    hits : array_like
        'b' responses to category b.
    n_b : array_like
        Trials of category b.
    false_alarms : array_like
        'b' responses to category a.
    n_a : array_like
        Trials of category a.

    Returns
    -------
    dprime, gamma : numpy.ndarray
        Sensitivity and criterion.
    clipped : numpy.ndarray of bool
        Where a rate was 0 or 1 (and was clipped).

    Examples
    --------
    >>> d, g, c = dprime_criterion(84, 100, 30, 100)
    >>> round(float(d), 3), round(float(g), 3), bool(c)
    (1.519, -0.235, False)
    """
    from scipy import special
    hit_rate = clipped_rate(hits, n_b)
    fa_rate = clipped_rate(false_alarms, n_a)
    raw_h = np.asarray(hits, dtype=float) / np.asarray(n_b, dtype=float)
    raw_f = np.asarray(false_alarms, dtype=float) / np.asarray(n_a, dtype=float)
    clipped = (raw_h <= 0) | (raw_h >= 1) | (raw_f <= 0) | (raw_f >= 1)
    zh, zf = special.ndtri(hit_rate), special.ndtri(fa_rate)
    return zh - zf, -(zh + zf) / 2.0, clipped


def category_thresholds(dprime, gamma):
    """Each category's threshold measured from its own mean: (t_a, t_b) = (gamma + d'/2, gamma - d'/2).

    P('a' | category a) = Phi(t_a), P('a' | category b) = Phi(t_b).

    Parameters
    ----------
    dprime, gamma : array_like
        Sensitivity and criterion (see :func:`dprime_criterion`).

    Returns
    -------
    t_a, t_b : numpy.ndarray
        The thresholds of categories a and b.

    Examples
    --------
    >>> t_a, t_b = category_thresholds(1.0, 0.25)
    >>> float(t_a), float(t_b)
    (0.75, -0.25)
    """
    dprime, gamma = np.asarray(dprime, dtype=float), np.asarray(gamma, dtype=float)
    return gamma + dprime / 2.0, gamma - dprime / 2.0


def bivariate_normal_cdf(h, k, rho):
    """P(X <= h, Y <= k) for a standard bivariate normal with correlation rho, vectorised (Owen's T).

    Uses ``Phi2 = (Phi(h) + Phi(k))/2 - T(h, a_h) - T(k, a_k) - beta`` with scipy's Owen's T; rho = +-1
    are the degenerate limits.

    Parameters
    ----------
    h, k : array_like
        Upper limits.
    rho : array_like
        Correlations in [-1, 1].

    Returns
    -------
    numpy.ndarray or float
        The probability, broadcast over the inputs.

    Examples
    --------
    >>> round(float(bivariate_normal_cdf(0.0, 0.0, 0.5)), 6)  # 1/4 + asin(0.5)/(2 pi)
    0.333333
    """
    from scipy import special
    h, k, rho = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (h, k, rho)))
    # Exact zeros make the Owen's T arguments infinite; a 1e-12 shift moves Phi2 by ~1e-13.
    h = np.where(h == 0, 1e-12, h)
    k = np.where(k == 0, 1e-12, k)
    inside = np.abs(rho) < 1
    r = np.where(inside, rho, 0.0)
    s = np.sqrt(1.0 - r * r)
    with np.errstate(invalid="ignore", divide="ignore"):
        a_h = (k - r * h) / (h * s)
        a_k = (h - r * k) / (k * s)
    beta = np.where(h * k > 0, 0.0, 0.5)
    value = 0.5 * (special.ndtr(h) + special.ndtr(k)) - special.owens_t(h, a_h) - special.owens_t(k, a_k) - beta
    upper = special.ndtr(np.minimum(h, k))
    lower = np.maximum(0.0, special.ndtr(h) + special.ndtr(k) - 1.0)
    value = np.where(rho >= 1, upper, np.where(rho <= -1, lower, value))
    value = np.clip(value, lower, upper)
    return value[()] if value.ndim == 0 else value


def bivariate_normal_density(h, k, rho):
    """Density of the standard bivariate normal at (h, k): d Phi2 / d rho (Plackett's identity).

    Parameters
    ----------
    h, k : array_like
        The point.
    rho : array_like
        Correlations in (-1, 1).

    Returns
    -------
    numpy.ndarray
        The density.

    Examples
    --------
    >>> round(float(bivariate_normal_density(0.0, 0.0, 0.0)), 6)  # 1 / (2 pi)
    0.159155
    """
    h, k, rho = (np.asarray(x, dtype=float) for x in (h, k, rho))
    one = 1.0 - rho * rho
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.exp(-(h * h - 2 * rho * h * k + k * k) / (2 * one)) / (2 * np.pi * np.sqrt(one))


def rho_from_orthant(h, k, p, iterations: int = 60, tol: float = 1e-12):
    """The rho with ``Phi2(h, k; rho) = p``: safeguarded Newton, vectorised; +-1 where p is at a bound.

    ``p`` below the smallest attainable value ``max(0, Phi(h)+Phi(k)-1)`` gives -1, above the largest
    ``min(Phi(h), Phi(k))`` gives +1; NaN inputs give NaN.

    Parameters
    ----------
    h, k : array_like
        Thresholds.
    p : array_like
        Target orthant probabilities.
    iterations : int, default 60
        Most Newton / bisection steps.
    tol : float, default 1e-12
        Convergence tolerance on the probability.

    Returns
    -------
    numpy.ndarray or float
        The correlation in [-1, 1] (inverse of :func:`bivariate_normal_cdf` in rho).

    Examples
    --------
    >>> round(float(rho_from_orthant(0.0, 0.0, 1 / 3)), 9)
    0.5
    >>> float(rho_from_orthant(0.0, 0.0, 0.5))  # the largest attainable value: rho = 1
    1.0
    """
    from scipy import special
    h, k, p = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (h, k, p)))
    shape = h.shape
    h, k, p = h.ravel(), k.ravel(), p.ravel()
    lower = np.maximum(0.0, special.ndtr(h) + special.ndtr(k) - 1.0)
    upper = np.minimum(special.ndtr(h), special.ndtr(k))
    out = np.full(h.shape, np.nan)
    out[p <= lower + 1e-15] = -1.0
    out[p >= upper - 1e-15] = 1.0
    todo = np.flatnonzero(np.isnan(out) & np.isfinite(h) & np.isfinite(k) & np.isfinite(p))
    if todo.size:
        hh, kk, pp = h[todo], k[todo], p[todo]
        lo, hi = np.full(todo.size, -1.0), np.full(todo.size, 1.0)
        rho = _tetrachoric_start(special.ndtr(hh), special.ndtr(kk), pp)
        active = np.arange(todo.size)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            for _ in range(iterations):
                # Newton on the entries not yet converged only; bisection whenever a step leaves the bracket.
                r, a, b = rho[active], hh[active], kk[active]
                f = bivariate_normal_cdf(a, b, r) - pp[active]
                lo[active] = np.where(f < 0, r, lo[active])
                hi[active] = np.where(f > 0, r, hi[active])
                done = np.abs(f) < tol
                step = r - f / bivariate_normal_density(a, b, r)
                inside = np.isfinite(step) & (step > lo[active]) & (step < hi[active])
                rho[active] = np.where(done, r, np.where(inside, step, 0.5 * (lo[active] + hi[active])))
                active = active[~done]
                if active.size == 0:
                    break
        out[todo] = rho
    out = out.reshape(shape)
    return out[()] if out.ndim == 0 else out


def _tetrachoric_start(phi1, phi2, p_aa):
    """Starting value cos(pi / (1 + sqrt(ad / bc))) (Pearson's approximation) from the four cell shares."""
    b = phi1 - p_aa
    c = phi2 - p_aa
    d = 1.0 - phi1 - phi2 + p_aa
    with np.errstate(invalid="ignore", divide="ignore"):
        start = np.cos(np.pi / (1.0 + np.sqrt(p_aa * d / (b * c))))
    return np.clip(np.nan_to_num(start), -0.999, 0.999)


def joint_cell_probability_ml(counts, phi1, phi2, iterations: int = 80):
    """ML estimate of P(aa) for a 2x2 table with fixed margins P('a') = phi1, phi2.

    The log likelihood is concave in P(aa) on the feasible interval, so its root is found by vectorised
    bisection of the (decreasing) score.

    Parameters
    ----------
    counts : array_like, (..., 4)
        (n_aa, n_ab, n_ba, n_bb).
    phi1, phi2 : array_like
        The fixed probabilities of 'a' for the two observers.
    iterations : int, default 80
        Bisection steps.

    Returns
    -------
    numpy.ndarray
        The ML estimate of P(aa), within ``[max(0, phi1 + phi2 - 1), min(phi1, phi2)]``.

    Examples
    --------
    >>> round(float(joint_cell_probability_ml([40, 10, 10, 40], 0.5, 0.5)), 9)
    0.4
    """
    counts = np.asarray(counts, dtype=float)
    n_aa, n_ab, n_ba, n_bb = np.moveaxis(counts, -1, 0)
    phi1, phi2 = np.broadcast_arrays(np.asarray(phi1, dtype=float), np.asarray(phi2, dtype=float))
    lo = np.maximum(0.0, phi1 + phi2 - 1.0)
    hi = np.minimum(phi1, phi2)
    a, b = lo.copy(), hi.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(iterations):
            p = 0.5 * (a + b)
            score = n_aa / p - n_ab / (phi1 - p) - n_ba / (phi2 - p) + n_bb / (1.0 - phi1 - phi2 + p)
            a = np.where(score > 0, p, a)
            b = np.where(score > 0, b, p)
    return 0.5 * (a + b)


def latent_correlation(counts, thresholds_1=None, thresholds_2=None):
    """Bivariate-normal ML correlation of a 2x2 joint-response table (Sebastian & Geisler 2018).

    Parameters
    ----------
    counts : (..., 4) array
        (n_aa, n_ab, n_ba, n_bb): observer 1's response first.
    thresholds_1, thresholds_2 : arrays broadcasting to counts[..., 0], optional
        Each observer's criterion measured from the category mean (P('a') = Phi(t)), e.g. from
        :func:`dprime_criterion` and :func:`category_thresholds`. When omitted they come from the
        table's own margins, and the result is the tetrachoric correlation (the model is saturated, so
        ML reproduces P(aa) = n_aa / n exactly).

    Returns
    -------
    rho : array on [-1, 1]
        +-1 where the likelihood increases to the boundary (an empty off-diagonal or diagonal pair of
        cells); NaN where an observer's margin is 0 or 1 (no threshold: the table says nothing about
        correlation).

    Examples
    --------
    >>> round(float(latent_correlation([40, 10, 10, 40])), 4)
    0.809
    """
    from scipy import special
    counts = np.asarray(counts, dtype=float)
    n = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if thresholds_1 is None and thresholds_2 is None:
            phi1 = (counts[..., 0] + counts[..., 1]) / n
            phi2 = (counts[..., 0] + counts[..., 2]) / n
            p_aa = counts[..., 0] / n
        else:
            if thresholds_1 is None or thresholds_2 is None:
                raise ValueError("give both observers' thresholds, or neither (tetrachoric)")
            phi1 = special.ndtr(np.asarray(thresholds_1, dtype=float))
            phi2 = special.ndtr(np.asarray(thresholds_2, dtype=float))
            p_aa = joint_cell_probability_ml(counts, phi1, phi2)
    degenerate = (phi1 <= 0) | (phi1 >= 1) | (phi2 <= 0) | (phi2 >= 1) | ~(n > 0)
    rho = rho_from_orthant(special.ndtri(np.clip(phi1, 1e-300, 1)), special.ndtri(np.clip(phi2, 1e-300, 1)),
                           p_aa)
    rho = np.where(degenerate, np.nan, rho)
    return rho[()] if np.ndim(rho) == 0 else rho


def tetrachoric(counts):
    """Tetrachoric correlation of 2x2 tables (..., 4) = (n_11, n_10, n_01, n_00), vectorised.

    The latent correlation with thresholds from the table's margins; see :func:`latent_correlation`.

    Parameters
    ----------
    counts : array_like, (..., 4)
        The tables.

    Returns
    -------
    numpy.ndarray or float
        The correlation in [-1, 1]; NaN where a margin is 0 or 1.

    Examples
    --------
    >>> round(float(tetrachoric([30, 20, 20, 30])), 4)
    0.309
    """
    return latent_correlation(counts)


def probit_fit(z, y, weights=None, iterations: int = 30):
    """Probit regression ``P(y=1 | z) = Phi(alpha + beta z)`` by Newton-Raphson, vectorised over problems.

    Perfect separation drives |beta| to the large values where the iteration stops.

    Parameters
    ----------
    z : array_like, (..., n)
        Predictor (e.g. a standardised DV).
    y : array_like, (..., n)
        Responses in {0, 1}.
    weights : array_like, (..., n), optional
        Trial weights (bootstrap counts), broadcasting.
    iterations : int, default 30
        Most Fisher-scoring steps.

    Returns
    -------
    alpha, beta : numpy.ndarray
        Intercept and slope per problem; NaN where the fit does not exist (y constant).

    Examples
    --------
    >>> z = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1.5])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 1, 0])
    >>> alpha, beta = probit_fit(z, y)
    >>> round(float(alpha), 4), round(float(beta), 4)
    (-0.1245, 0.5278)
    >>> float(np.abs(probit_score(alpha, beta, z, y, 1.0)[0]).max()) < 1e-8  # the score vanishes at the fit
    True
    """
    z = np.asarray(z, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones_like(z) if weights is None else np.asarray(weights, dtype=float)
    z, y, w = np.broadcast_arrays(z, y, w)
    alpha = np.zeros(z.shape[:-1])
    beta = np.zeros(z.shape[:-1])
    for _ in range(iterations):
        grad, hess = probit_score(alpha, beta, z, y, w)
        det = hess[0] * hess[2] - hess[1] ** 2
        with np.errstate(invalid="ignore", divide="ignore"):
            d_alpha = (hess[2] * grad[0] - hess[1] * grad[1]) / det
            d_beta = (hess[0] * grad[1] - hess[1] * grad[0]) / det
        ok = np.isfinite(d_alpha) & np.isfinite(d_beta)
        alpha = np.where(ok, np.clip(alpha + d_alpha, -40, 40), alpha)
        beta = np.where(ok, np.clip(beta + d_beta, -40, 40), beta)
        if np.all(~ok | ((np.abs(d_alpha) < 1e-10) & (np.abs(d_beta) < 1e-10))):
            break
    total = w.sum(axis=-1)
    positives = (w * y).sum(axis=-1)
    constant = (positives <= 0) | (positives >= total)
    return np.where(constant, np.nan, alpha), np.where(constant, np.nan, beta)


def probit_score(alpha, beta, z, y, w):
    """Gradient and expected information of the weighted probit log likelihood at (alpha, beta).

    Sums over the last axis of z, y, w.

    Parameters
    ----------
    alpha, beta : array_like, (...)
        Current intercept and slope.
    z, y, w : array_like, (..., n)
        Predictor, 0/1 responses and trial weights.

    Returns
    -------
    grad : numpy.ndarray, (2, ...)
        Derivatives of the log likelihood in alpha and beta.
    hess : numpy.ndarray, (3, ...)
        The negative Hessian (Fisher information) entries (h_aa, h_ab, h_bb).

    Examples
    --------
    >>> grad, hess = probit_score(0.0, 0.0, np.array([-1.0, 1.0]), np.array([0, 1]), 1.0)
    >>> grad.round(4).tolist(), hess.round(4).tolist()  # at 0: phi(0)/Phi(0) = 0.7979 per trial
    ([0.0, 1.5958], [1.2732, 0.0, 1.2732])
    """
    from scipy import special
    eta = np.asarray(alpha)[..., None] + np.asarray(beta)[..., None] * z
    log_cdf = special.log_ndtr(eta)
    log_sf = special.log_ndtr(-eta)
    log_pdf = -0.5 * eta * eta - 0.5 * np.log(2 * np.pi)
    ratio_pos = np.exp(log_pdf - log_cdf)      # phi/Phi
    ratio_neg = np.exp(log_pdf - log_sf)       # phi/(1-Phi)
    resid = np.where(y > 0, ratio_pos, -ratio_neg)
    # Expected information (Fisher scoring): phi^2 / (Phi (1-Phi)), stable through log terms.
    info = np.exp(2 * log_pdf - log_cdf - log_sf)
    grad = np.stack([(w * resid).sum(-1), (w * resid * z).sum(-1)])
    hess = np.stack([(w * info).sum(-1), (w * info * z).sum(-1), (w * info * z * z).sum(-1)])
    return grad, hess


def rho_from_probit(beta):
    """Latent correlation from a probit slope on a standardised DV: rho = beta / sqrt(1 + beta^2).

    Parameters
    ----------
    beta : array_like
        Probit slopes.

    Returns
    -------
    numpy.ndarray
        Correlations in (-1, 1).

    Examples
    --------
    >>> round(float(rho_from_probit(1.0)), 6), float(rho_from_probit(0.0))
    (0.707107, 0.0)
    """
    beta = np.asarray(beta, dtype=float)
    return beta / np.sqrt(1.0 + beta * beta)


def standardise_within(values, groups):
    """Standardise ``values`` to mean 0, SD 1 (ddof 0) within each group label; NaN for constant groups.

    Parameters
    ----------
    values : array_like, (n,)
        Values.
    groups : array_like, (n,)
        Group label of each value.

    Returns
    -------
    numpy.ndarray, (n,)
        The standardised values.

    Examples
    --------
    >>> standardise_within([1.0, 2.0, 3.0, 10.0, 10.0], ["a", "a", "a", "b", "b"]).round(4).tolist()
    [-1.2247, 0.0, 1.2247, nan, nan]
    """
    values = np.asarray(values, dtype=float)
    groups = np.asarray(groups)
    out = np.empty_like(values)
    for g in np.unique(groups):
        m = groups == g
        sd = values[m].std()
        out[m] = (values[m] - values[m].mean()) / sd if sd > 0 else np.nan
    return out
