"""A single-pair interval for error consistency that holds its level when errors are few.

The bootstrap intervals (percentile, BCa) of one pair's kappa under-cover where both observers make few
errors: with 100 trials, accuracies 0.9 / 0.95 and a true kappa of 0.2 they cover 83% at a nominal 95%
(issue 11). The reason is that the sampling distribution of kappa is then discrete and skewed, and the
bootstrap resamples a table whose error cells are themselves noisy estimates (a cell observed as 0 is
never resampled as anything else).

:func:`ec_profile_interval` inverts the likelihood-ratio test of ``kappa = k0`` instead. The 2x2 table of
one pair is multinomial with three free parameters; parametrised by the two accuracies and kappa (docs/measures/error-consistency.md;
the copy model of :mod:`humanlike.measures.ec.copy_model` is one process realising every such triple),
the cell probabilities are ``p11 = p1 p2 + k (p1 (1-p2) + p2 (1-p1)) / 2``, ``p10 = p1 - p11``,
``p01 = p2 - p11``, ``p00 = 1 - p1 - p2 + p11``. The profile log-likelihood ``l(k)`` maximises over the
two accuracies for each ``k``; the interval is ``{k : 2 (l_max - l(k)) <= chi2_1(level)}``.
Profiling over the accuracies (rather than plugging in the observed ones) is what keeps the level when
an observer makes 0-3 errors: the accuracies are then uncertain and kappa depends strongly on them.

Because the interval is the test's acceptance set, whether it contains a given kappa takes one profile fit
(:func:`ec_profile_contains`), and its coverage at a copy-model truth is an exact sum over the enumerated
tables (:func:`ec_profile_coverage`, :func:`copy_model_tables`). The coverage of this interval and of the
bootstrap intervals over trials x accuracies x kappa is computed by ``benchmarks/ec_coverage.py`` and
tabulated in ``docs/ec_coverage.md``. It is the default interval of a single pair's EC in ``humanlike ec``
(pairs whose EC is one 2x2 table).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .copy_model import cell_probabilities
from ..pairs.metric import kappa, kappa_reason
from .significance import table_counts

#: Most damped Newton steps of the inner maximisation over both accuracies (it stops when a step is < 1e-13).
NEWTON_STEPS = 100
#: Bisection steps for each end point of the ``"score"`` statistic (resolution 2 / 2**steps).
BISECTION_STEPS = 24
#: Safeguarded Newton steps for each end point at most (each one profile fit, warm-started).
ENDPOINT_STEPS = 100
#: An end point is final once its Newton step (or its bracket) is shorter than this.
ENDPOINT_TOLERANCE = 1e-12
#: Added to every cell before profiling (not to the estimate): chosen by exact coverage (docs/ec_coverage.md).
PSEUDO_COUNT = 0.3


@dataclass(frozen=True)
class ECInterval:
    """Interval for the error consistency of single pairs (arrays for vector input).

    ``estimate``: kappa of the table (NaN when both observers are constant); ``low``, ``high``: the
    interval; ``level``; ``method``; ``reason``: '' or why the estimate is undefined (the interval is then
    still defined: it says what kappa values the data cannot exclude).

    Attributes
    ----------
    estimate : float or numpy.ndarray
        Kappa of each table (NaN when both observers are constant).
    low, high : float or numpy.ndarray
        Interval bounds, in [-1, 1].
    level : float
        Confidence level.
    method : str
        ``"profile-likelihood"``.
    reason : str or numpy.ndarray of object
        Why the estimate is undefined ("" when defined).

    Examples
    --------
    >>> r = ec_profile_interval([86, 100], [4, 0], [9, 0], [1, 0])
    >>> r.estimate.round(3).tolist(), r.low.round(3).tolist(), r.high.round(3).tolist()
    ([0.071, nan], [-0.066, -0.008], [0.401, 0.992])
    >>> r.reason.tolist()
    ['', 'both observers constant (expected agreement is 1)']
    """

    estimate: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray
    level: float
    method: str
    reason: str | np.ndarray

    def to_frame(self):
        """Tidy table: estimate, ci_low, ci_high, level, method, reason (one row per pair).

        Returns
        -------
        pandas.DataFrame
            One row per pair (flattened in C order).
        """
        import pandas as pd

        def col(x):
            return np.atleast_1d(np.asarray(x)).ravel()

        return pd.DataFrame({
            "estimate": col(self.estimate).astype(float),
            "ci_low": col(self.low).astype(float),
            "ci_high": col(self.high).astype(float),
            "level": self.level,
            "method": self.method,
            "reason": col(np.asarray(self.reason, dtype=object)),
        })


def _cells(p1, p2, k):
    """Copy-model cell probabilities (both right, only 1, only 2, both wrong) at accuracies p1, p2 and kappa k."""
    p11 = p1 * p2 * (1.0 - k) + 0.5 * k * (p1 + p2)
    return p11, p1 - p11, p2 - p11, 1.0 - p1 - p2 + p11


def _loglik(counts, p1, p2, k):
    """Multinomial log-likelihood of ``counts`` (t x 4) at per-table accuracies and kappa; -inf where infeasible."""
    q = np.stack(_cells(p1, p2, k), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = (counts * np.log(np.where(q > 0, q, np.nan))).sum(axis=-1)
    return np.where(np.isnan(ll), -np.inf, ll)


def _pinned_cells(counts, k):
    """Accuracy pairs at kappa ``k`` that keep one pair of the table's cell frequencies (up to four candidates).

    Kappa ``k`` fixes the product of the diagonal cells given the off-diagonal ones:
    ``p11 p00 = p10 p01 + k (p10 + p01) / (2 (1 - k))`` with ``p11 + p00 = 1 - p10 - p01``. So keeping the
    observed off-diagonal frequencies, ``p11`` and ``p00`` are the two roots of a quadratic (either way
    round), and keeping the observed diagonal ones, ``p10`` and ``p01`` are. Where a cell is nearly empty
    the likelihood is a thin ridge along that cell's frequency; these starts lie on it, where the blends of
    :func:`_start` can lie far off it (Newton then crawls along the ridge). NaN where a quadratic has no
    real roots.
    """
    n = counts.sum(axis=1)
    f11, f10, f01, f00 = (counts / n[:, None]).T
    out = []
    with np.errstate(invalid="ignore", divide="ignore"):
        tilt = k / (2.0 * (1.0 - k))
        off = f10 + f01   # keep the off-diagonal cells: the diagonal ones are the roots
        root = np.sqrt((1.0 - off) ** 2 - 4.0 * (f10 * f01 + tilt * off))
        for p11 in (0.5 * (1.0 - off + root), 0.5 * (1.0 - off - root)):
            out.append((p11 + f10, p11 + f01))
        diagonal_free = 1.0 - f11 - f00   # keep the diagonal cells: the off-diagonal ones are the roots
        product = f11 * f00 - tilt * diagonal_free   # p10 p01, with p10 + p01 fixed
        root = np.sqrt(diagonal_free ** 2 - 4.0 * product)
        for p10 in (0.5 * (diagonal_free + root), 0.5 * (diagonal_free - root)):
            out.append((f11 + p10, f11 + diagonal_free - p10))
    return out


def _start(counts, k, warm=None):
    """A feasible starting point near the best fit for every table at kappa ``k``: ``(value, p1, p2)``.

    Candidates: ``warm`` (the accuracies fitted at a nearby kappa) where given, the starts on the ridges of
    the observed cell frequencies (:func:`_pinned_cells`), the observed accuracies, their mean for both
    observers (feasible for every k >= 0, where the likelihood is a narrow ridge along p1 = p2 as k
    approaches 1), and blends of both towards 1/2 (feasible for every k in (-1, 1)); the most likely one wins.
    """
    n = counts.sum(axis=1)
    m1 = (counts[:, 0] + counts[:, 1]) / n
    m2 = (counts[:, 0] + counts[:, 2]) / n
    mean = 0.5 * (m1 + m2)
    best_p1, best_p2 = np.full(len(n), 0.5), np.full(len(n), 0.5)
    best = _loglik(counts, best_p1, best_p2, k)
    candidates = [] if warm is None else [warm]
    candidates += _pinned_cells(counts, k)
    for towards_mean in (0.0, 0.5, 1.0):
        b1, b2 = m1 + towards_mean * (mean - m1), m2 + towards_mean * (mean - m2)
        for towards_half in (0.0, 0.5, 0.8, 0.95):
            candidates.append((b1 + towards_half * (0.5 - b1), b2 + towards_half * (0.5 - b2)))
    for c1, c2 in candidates:
        with np.errstate(invalid="ignore"):   # NaN candidates (no real root) are infeasible: -inf
            value = _loglik(counts, c1, c2, k)
        better = value > best
        best = np.where(better, value, best)
        best_p1, best_p2 = np.where(better, c1, best_p1), np.where(better, c2, best_p2)
    return best, best_p1, best_p2


def _profile_fit(counts, k, p1=None, p2=None):
    """Maximise the log-likelihood over both accuracies at kappa ``k`` (per table): ``(value, p1, p2)``.

    Damped Newton steps (the Hessian shifted to be negative definite where it is not, then halved until the
    likelihood rises), from ``(p1, p2)`` where given and feasible (a warm start: the fit at a nearby kappa),
    else from :func:`_start`. Every cell count must be positive (the pseudo-count sees to it), so the maximum
    lies inside the feasible set and the likelihood falls to -inf at its border.
    """
    ll, p1, p2 = _start(counts, k, None if p1 is None else (p1, p2))
    sign = np.array([1.0, -1.0, -1.0, 1.0])
    active = np.flatnonzero(np.isfinite(ll))
    for _ in range(NEWTON_STEPS):
        if active.size == 0:
            break
        c, a1, a2, kk = counts[active], p1[active], p2[active], k[active]
        q = np.stack(_cells(a1, a2, kk), axis=-1)
        u1 = a2 * (1.0 - kk) + 0.5 * kk
        u2 = a1 * (1.0 - kk) + 0.5 * kk
        d1 = np.stack([u1, 1.0 - u1, -u1, u1 - 1.0], axis=-1)
        d2 = np.stack([u2, -u2, 1.0 - u2, u2 - 1.0], axis=-1)
        w, w2 = c / q, c / q ** 2
        g1, g2 = (w * d1).sum(-1), (w * d2).sum(-1)
        h11, h22 = -(w2 * d1 * d1).sum(-1), -(w2 * d2 * d2).sum(-1)
        h12 = (1.0 - kk) * (w * sign).sum(-1) - (w2 * d1 * d2).sum(-1)
        half_trace = 0.5 * (h11 + h22)
        top = half_trace + np.sqrt(0.25 * (h11 - h22) ** 2 + h12 ** 2)
        rising = top >= -1e-9 * np.abs(half_trace)   # some direction of non-negative curvature
        # Its direction (the eigenvector of the top eigenvalue), pointing uphill.
        v1 = np.where(h12 != 0, h12, np.where(h11 >= h22, 1.0, 0.0))
        v2 = np.where(h12 != 0, top - h11, np.where(h11 >= h22, 0.0, 1.0))
        norm = np.hypot(v1, v2)
        v1, v2 = v1 / norm, v2 / norm
        uphill = np.where(v1 * g1 + v2 * g2 < 0, -1.0, 1.0)
        shift = np.where(rising, top + 1e-3 * np.abs(half_trace) + 1e-12, 0.0)
        h11, h22 = h11 - shift, h22 - shift
        det = h11 * h22 - h12 ** 2
        s1 = -(h22 * g1 - h12 * g2) / det
        s2 = -(h11 * g2 - h12 * g1) / det
        # A stationary point that is no maximum (a saddle, e.g. on the symmetry axis p1 = p2 of a table with
        # equal off-diagonal counts, where every blend start lies): leave it along that direction.
        saddle = (top > 1e-6 * np.abs(half_trace)) & (np.abs(s1) + np.abs(s2) < 1e-7)
        s1 = np.where(saddle, 0.1 * uphill * v1, s1)
        s2 = np.where(saddle, 0.1 * uphill * v2, s2)
        current = ll[active]
        step = np.ones(active.size)
        new = _loglik(c, a1 + s1, a2 + s2, kk)
        gain = 1e-12 * (1.0 + np.abs(current))   # a saddle step must gain more than rounding
        # Converged: the Newton step promises less than rounding (g.s / 2 is its predicted gain).
        converged = ~saddle & (0.5 * (g1 * s1 + g2 * s2) < 1e-3 * gain) & np.isfinite(new)
        worse = ~(new >= current) | (saddle & ~(new > current + gain))
        worse &= ~converged
        for _halving in range(50):
            if not worse.any():
                break
            idx = np.flatnonzero(worse)
            step[idx] *= 0.5
            trial = _loglik(c[idx], a1[idx] + step[idx] * s1[idx], a2[idx] + step[idx] * s2[idx], kk[idx])
            new[idx] = trial
            worse[idx] = ~(trial >= current[idx]) | (saddle[idx] & ~(trial > current[idx] + gain[idx]))
        ok = ~worse
        p1[active] = np.where(ok, a1 + step * s1, a1)
        p2[active] = np.where(ok, a2 + step * s2, a2)
        ll[active] = np.where(ok, new, current)
        moved = np.abs(step * s1) + np.abs(step * s2)
        active = active[ok & ~converged & ((moved > 1e-13) | saddle)]
    return ll, p1, p2


def _profile(counts, k0, statistic="lr"):
    """Test statistic of ``kappa = k0`` per table, with both accuracies profiled out.

    ``"lr"``: the profile log-likelihood (max over both accuracies); ``"score"``: minus half of
    Pearson's X2 of the counts against the restricted fit (so both compare with ``l_max`` alike).
    """
    value, p1, p2 = _profile_fit(counts, np.asarray(k0, dtype=float))
    if statistic == "lr":
        return value
    n = counts.sum(axis=1)
    fitted = np.stack(_cells(p1, p2, k0), axis=1) * n[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        x2 = np.where(fitted > 0, (counts - fitted) ** 2 / fitted, np.inf).sum(axis=1)
    x2 = np.where(np.isfinite(value), x2, np.inf)
    return -0.5 * x2


def _max_loglik(counts, statistic="lr"):
    if statistic == "score":
        return np.zeros(len(counts))
    n = counts.sum(axis=1)
    return (counts * np.log(counts / n[:, None])).sum(axis=1)


def _critical_value(level):
    """The chi-square(1) quantile at ``level``: the squared normal quantile (no scipy needed)."""
    return NormalDist().inv_cdf(0.5 + 0.5 * level) ** 2


def _endpoint(counts, l_max, crit, inside, outside, statistic):
    """Bisection between a kappa inside the interval and one outside it (arrays, one per table)."""
    inside, outside = inside.copy(), outside.copy()
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (inside + outside)
        ok = 2.0 * (l_max - _profile(counts, mid, statistic)) <= crit
        inside = np.where(ok, mid, inside)
        outside = np.where(ok, outside, mid)
    return inside


def _slope(counts, p1, p2, k):
    """d l(k) / dk of the profile log-likelihood at the profiled accuracies (envelope theorem: the partial in k).

    ``d p11 / dk = (p1 + p2) / 2 - p1 p2``; the other cells move by minus, minus and plus that.
    """
    q = np.stack(_cells(p1, p2, k), axis=-1)
    ratio = counts / q
    return (0.5 * (p1 + p2) - p1 * p2) * (ratio[:, 0] - ratio[:, 1] - ratio[:, 2] + ratio[:, 3])


def _lr_endpoints(counts, l_max, crit, inside, outside):
    """Where the signed root deviance reaches ``sqrt(crit)``, between ``inside`` and ``outside`` (per table).

    Solves ``r(k) = sqrt(2 (l_max - l(k))) = sqrt(crit)`` on every table at once by safeguarded Newton steps
    (``r`` is nearly linear in kappa, so a step lands close; its slope ``-l'(k) / r`` comes from
    :func:`_slope`), keeping a bracket (``r < sqrt(crit)`` at ``inside``, above at ``outside``) and bisecting
    where a step would leave it or shrink it too little. Each fit starts from the accuracies of the table's
    previous one. Tables drop out once the step or the bracket is below :data:`ENDPOINT_TOLERANCE`.
    """
    target = np.sqrt(crit)
    # Rounding of the log-likelihoods (about 1e-16 of l_max) limits r: closer than this to the target is final.
    resolution = 1e-14 * (1.0 + np.abs(l_max))
    inside, outside = inside.copy(), outside.copy()
    x = inside + 0.1 * (outside - inside)
    # The accuracies of largest likelihood at the centre are the table's margins: the first fit starts there.
    n = counts.sum(axis=1)
    p1, p2 = (counts[:, 0] + counts[:, 1]) / n, (counts[:, 0] + counts[:, 2]) / n
    result = inside.copy()
    last_step = np.abs(outside - inside)
    step_before_last = 2.0 * last_step
    active = np.arange(len(counts))
    for _ in range(ENDPOINT_STEPS):
        c, kk = counts[active], x[active]
        ll, a1, a2 = _profile_fit(c, kk, p1[active], p2[active])
        p1[active], p2[active] = a1, a2
        deviance = np.maximum(2.0 * (l_max[active] - ll), 0.0)
        r = np.sqrt(deviance)
        below = r <= target
        inside[active] = np.where(below, kk, inside[active])
        outside[active] = np.where(below, outside[active], kk)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = -_slope(c, a1, a2, kk) / r
            newton = kk - (r - target) / slope
        lo = np.minimum(inside[active], outside[active])
        hi = np.maximum(inside[active], outside[active])
        width = hi - lo
        # Newton where it stays strictly inside the bracket and at least halves the step before last
        # (it then converges quadratically); otherwise bisect.
        ok = np.isfinite(newton) & (newton > lo) & (newton < hi)
        ok &= (np.abs(newton - kk) <= 0.5 * step_before_last[active]) | (np.abs(newton - kk) < 1e-9)
        step = np.where(ok, newton, 0.5 * (lo + hi)) - kk
        step_before_last[active] = last_step[active]
        last_step[active] = np.abs(step)
        x[active] = kk + step
        result[active] = np.where(np.isfinite(r), kk, inside[active])
        done = (np.abs(step) < ENDPOINT_TOLERANCE) | (width < ENDPOINT_TOLERANCE) | (np.abs(r - target) < resolution[active])
        done &= np.isfinite(r)
        active = active[~done]
        if active.size == 0:
            break
    return result


def ec_profile_interval(a, b, c, d, level: float = 0.95, chunk_size: int = 4096, statistic: str = "lr",
                        pseudo_count: float = PSEUDO_COUNT) -> ECInterval:
    """Profile-likelihood interval for the error consistency (kappa) of single pairs, vectorised.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        2x2 counts per pair (both correct, only observer 1 correct, only observer 2 correct, both wrong);
        broadcast against each other.
    level : float
        Confidence level in (0, 1).
    statistic : {"lr", "score"}
        ``"lr"`` (default) inverts the likelihood-ratio test, ``"score"`` Pearson's X2 against the
        restricted fit (worse coverage at large kappa; kept for comparison).
    pseudo_count : float
        Added to each of the four cells before profiling (the estimate is the kappa of the raw counts and
        always lies inside the interval); must be positive. Without it the interval is too short on the side
        of an empty cell (no shared error). Chosen by exact coverage over the 126 cells of
        docs/ec_coverage.md among 0.1-0.5: 0.3 has the smallest total distance outside 0.93-0.97 and no
        cell below 0.93 (0.1 and 0.5 let cells fall to 0.938 and 0.935).
    chunk_size : int
        Distinct tables handled per vectorised step (bounds memory).

    Returns
    -------
    ECInterval
        ``estimate`` (kappa), ``low``, ``high`` (shape of the broadcast counts), ``reason``.

    Raises
    ------
    ValueError
        On negative or non-integer counts, a level outside (0, 1), an unknown statistic or a pseudo-count <= 0.

    Notes
    -----
    Inverts the likelihood-ratio test of ``kappa = k0`` with the two accuracies profiled out (see the
    module docstring). The inner maximisation over both accuracies is a damped Newton iteration (with every
    cell positive the maximum is interior) from the best of several feasible starts, among them points on
    the ridge of a nearly empty cell, and it leaves a saddle (a table with equal off-diagonal counts) along
    its rising direction. Each end point solves ``sqrt(deviance) = sqrt(chi2_1(level))`` by safeguarded
    Newton steps in kappa (the slope of the profile comes from the envelope theorem), every table's both
    ends at once, each fit warm-started from the table's previous one, to ``1e-12`` (``statistic="score"``
    bisects to ``2 / 2**24``). Identical tables are computed once; ``benchmarks/ec_profile.py`` times it
    (about 0.04-0.08 ms per distinct table in bulk, 8 ms for a lone table). Where both
    observers are constant the estimate is NaN with its reason, and the interval is every kappa the data
    cannot exclude (e.g. about [0, 1] for two observers that never err: high equal accuracies allow any
    non-negative kappa). Exact coverage over trials 50-1600, accuracies 0.55-0.98 and kappa -0.2..0.8
    (:func:`ec_profile_coverage`): ``docs/ec_coverage.md``.

    Examples
    --------
    >>> r = ec_profile_interval(86, 4, 9, 1)
    >>> bool(r.low < r.estimate < r.high)
    True
    """
    table, estimate, reason, shape = _tables(a, b, c, d, level, statistic, pseudo_count)
    unique, inverse = np.unique(table, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    crit = _critical_value(level)
    low_u = np.empty(len(unique))
    high_u = np.empty(len(unique))
    for start in range(0, len(unique), int(chunk_size)):
        counts = unique[start:start + int(chunk_size)] + float(pseudo_count)
        l_max = _max_loglik(counts, statistic)
        centre = _centre(counts)
        # Kappa = +-1 needs an empty cell, so with the pseudo-count both edges lie outside the interval.
        edges = np.concatenate([np.full(len(counts), -1.0), np.full(len(counts), 1.0)])
        if statistic == "lr":   # both ends of every table in one vectorised root search
            ends = _lr_endpoints(np.concatenate([counts, counts]), np.concatenate([l_max, l_max]), crit,
                                 np.concatenate([centre, centre]), edges)
        else:
            ends = _endpoint(np.concatenate([counts, counts]), np.concatenate([l_max, l_max]), crit,
                             np.concatenate([centre, centre]), edges, statistic)
        low, high = ends[:len(counts)], ends[len(counts):]
        sl = slice(start, start + len(counts))
        low_u[sl], high_u[sl] = low, high
    low = low_u[inverse].reshape(shape)
    high = high_u[inverse].reshape(shape)
    # The pseudo-count pulls the likelihood slightly inwards: keep the estimate inside its interval.
    with np.errstate(invalid="ignore"):
        low = np.where(estimate < low, estimate, low)
        high = np.where(estimate > high, estimate, high)
    return ECInterval(_out(estimate), _out(low), _out(high), float(level), "profile-likelihood", _out(reason))


def ec_profile_contains(a, b, c, d, kappa0, level: float = 0.95, statistic: str = "lr",
                        pseudo_count: float = PSEUDO_COUNT, chunk_size: int = 65_536):
    """Whether :func:`ec_profile_interval` of each table contains ``kappa0``, from one likelihood fit per table.

    The interval is the set of kappas the likelihood-ratio test accepts, widened where needed to reach the
    estimate; so it contains ``kappa0`` exactly when the test of ``kappa = kappa0`` accepts, or ``kappa0``
    lies between the estimate and the kappa of largest likelihood (the centre of the acceptance set). This
    needs one profile fit at ``kappa0`` instead of the 48 of the two bisections: it is how
    ``benchmarks/ec_coverage.py`` computes exact coverage by enumerating tables.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        2x2 counts per pair (both correct, only observer 1 correct, only observer 2 correct, both wrong).
    kappa0 : float or array_like of float
        The kappa to test, broadcast against the counts.
    level, statistic, pseudo_count
        As in :func:`ec_profile_interval`.
    chunk_size : int
        Tables per vectorised step.

    Returns
    -------
    bool or numpy.ndarray of bool
        True where the interval contains ``kappa0`` (the shape of the broadcast input).

    Examples
    --------
    >>> r = ec_profile_interval(86, 4, 9, 1)
    >>> bool(ec_profile_contains(86, 4, 9, 1, 0.2)), bool(r.low <= 0.2 <= r.high)
    (True, True)
    >>> ec_profile_contains(86, 4, 9, 1, [r.low - 1e-4, r.high + 1e-4]).tolist()
    [False, False]
    """
    a, b, c, d, kappa0 = np.broadcast_arrays(*(np.asarray(x) for x in (a, b, c, d)), np.asarray(kappa0, float))
    table, estimate, _, shape = _tables(a, b, c, d, level, statistic, pseudo_count)
    k0 = kappa0.ravel().astype(float)
    estimate = np.asarray(estimate, dtype=float).ravel()
    crit = _critical_value(level)
    inside = np.empty(len(table), dtype=bool)
    for start in range(0, len(table), int(chunk_size)):
        sl = slice(start, start + int(chunk_size))
        counts = table[sl] + float(pseudo_count)
        accept = 2.0 * (_max_loglik(counts, statistic) - _profile(counts, k0[sl], statistic)) <= crit
        centre = _centre(counts)
        with np.errstate(invalid="ignore"):
            between = (np.fmin(estimate[sl], centre) <= k0[sl]) & (k0[sl] <= np.fmax(estimate[sl], centre))
        inside[sl] = accept | between
    return _out(inside.reshape(shape))


def _tables(a, b, c, d, level, statistic, pseudo_count):
    """Checked input: ``(tables n x 4, estimate, reason, shape)``."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if statistic not in ("lr", "score"):
        raise ValueError(f"statistic must be 'lr' or 'score', not {statistic!r}")
    if not pseudo_count > 0:
        raise ValueError(f"pseudo_count must be positive (the profile fit needs every cell above 0), got {pseudo_count}")
    a, b, c, d = (cell.astype(float) for cell in table_counts(a, b, c, d))
    estimate = np.asarray(kappa(a, b, c, d), dtype=float)
    reason = np.asarray(kappa_reason(a, b, c, d), dtype=object)
    table = np.stack([x.ravel() for x in (a, b, c, d)], axis=1)
    return table, estimate, reason, a.shape


def _centre(counts):
    """The kappa of largest likelihood of the pseudo-counted tables (inside every acceptance set).

    With every cell positive no observer is constant, so this kappa is always defined (also where the raw
    table's is not).
    """
    return np.asarray(kappa(*counts.T), dtype=float)


def _out(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def copy_model_tables(n_trials: int, kappa0: float, a1: float, a2: float, threshold: float = 1e-12,
                      limit: int | None = None):
    """Every 2x2 table of ``n_trials`` copy-model trials with probability above ``threshold``.

    The cell probabilities are those of the module docstring (accuracies ``a1``, ``a2``, kappa ``kappa0``);
    the counts are multinomial. A kept table's marginal counts have binomial probability at least its own,
    so the search runs over the product of the three binomial supports above the threshold.

    Parameters
    ----------
    n_trials : int
        Trials per table.
    kappa0 : float
        The kappa of the copy model.
    a1, a2 : float
        The two accuracies.
    threshold : float
        Smallest table probability kept; ``1 - probabilities.sum()`` is the neglected mass.
    limit : int, optional
        Return None as soon as more tables than this would be kept (or the search box is 100 times larger).

    Returns
    -------
    (tables, probabilities) or None
        ``tables``: int array (m x 4: both correct, only 1, only 2, both wrong); ``probabilities``: shape (m,).

    Examples
    --------
    >>> tables, prob = copy_model_tables(10, 0.3, 0.8, 0.7)
    >>> len(tables), round(float(prob.sum()), 9)   # all C(13, 3) tables of 10 trials
    (286, 1.0)
    """
    from scipy.special import gammaln

    probs = np.array(cell_probabilities(kappa0, a1, a2), dtype=float)
    n = int(n_trials)

    def log_pmf(counts, p):
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(counts > 0, counts * np.log(np.where(p > 0, p, 1.0)), 0.0)
            terms = np.where((counts > 0) & (p <= 0), -np.inf, terms)
        return gammaln(n + 1) - gammaln(counts + 1).sum(axis=-1) + terms.sum(axis=-1)

    log_t = np.log(threshold)
    x = np.arange(n + 1)
    supports = [x[log_pmf(np.column_stack([x, n - x]), np.array([p, 1 - p])) > log_t] for p in probs[:3]]
    if limit is not None and np.prod([len(s) for s in supports], dtype=float) > 100 * limit:
        return None
    bb, cc = (g.ravel() for g in np.meshgrid(supports[1], supports[2], indexing="ij"))
    tables, weights, kept = [], [], 0
    for a in supports[0]:
        d = n - a - bb - cc
        ok = d >= 0
        block = np.column_stack([np.full(ok.sum(), a), bb[ok], cc[ok], d[ok]])
        logp = log_pmf(block, probs)
        keep = logp > log_t
        kept += int(keep.sum())
        if limit is not None and kept > limit:
            return None
        tables.append(block[keep])
        weights.append(np.exp(logp[keep]))
    return np.concatenate(tables), np.concatenate(weights)


def ec_profile_coverage(n_trials: int, kappa0: float, a1: float, a2: float, level: float = 0.95,
                        statistic: str = "lr", pseudo_count: float = PSEUDO_COUNT, threshold: float = 1e-12):
    """Exact coverage of :func:`ec_profile_interval` at a copy-model truth: ``(coverage, neglected)``.

    The sum of the probabilities of the tables whose interval contains ``kappa0``
    (:func:`ec_profile_contains` on :func:`copy_model_tables`): no simulation noise; tables below
    ``threshold`` are left out, and their total probability ``neglected`` bounds the error
    (the coverage lies in ``[coverage, coverage + neglected]``).

    Parameters
    ----------
    n_trials : int
        Trials.
    kappa0 : float
        The true kappa.
    a1, a2 : float
        The two accuracies.
    level, statistic, pseudo_count
        As in :func:`ec_profile_interval`.
    threshold : float
        Smallest table probability enumerated.

    Returns
    -------
    coverage : float
        The probability that the interval contains ``kappa0`` (up to the neglected mass).
    neglected : float
        Probability of the tables not enumerated.

    Examples
    --------
    >>> coverage, neglected = ec_profile_coverage(100, 0.2, 0.9, 0.95)   # issue 11's hard cell
    >>> round(coverage, 3), neglected < 1e-8
    (0.966, True)
    """
    tables, prob = copy_model_tables(n_trials, kappa0, a1, a2, threshold)
    inside = ec_profile_contains(*tables.T, kappa0, level=level, statistic=statistic, pseudo_count=pseudo_count)
    return float(np.sum(prob * inside)), max(0.0, 1.0 - float(prob.sum()))
