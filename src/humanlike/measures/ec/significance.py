"""Is an error consistency larger than chance? Tests and analytic uncertainty for kappa on 2x2 counts.

* :func:`ec_test_beta_posterior` - Klein et al.'s simulation test (docs/measures/error-consistency.md).
* :func:`ec_test_exact` - the exact conditional test given both margins (hypergeometric ``a``).
* :func:`kappa_standard_error`, :func:`analytic_kappa_interval` - Fleiss, Cohen & Everitt (1969).

Every function takes counts ``a`` (both correct), ``b`` (only observer 1 correct), ``c`` (only observer 2
correct), ``d`` (both wrong) as scalars or broadcastable arrays. Scalar input gives scalar fields, array
input arrays of the broadcast shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..pairs.metric import REASON_BOTH_CONSTANT, UndefinedPolicy, kappa
from ...resampling.rng import SeedLike, make_rng

#: Slack when comparing |kappa_null| with |kappa_obs| in the simulation test (floating-point ties).
KAPPA_TIE_TOLERANCE = 1e-9
REASON_ONE_TRIAL = "fewer than two trials"


def _out(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def table_counts(a, b, c, d) -> list[np.ndarray]:
    """The four cells of 2x2 tables as int64 arrays (broadcast); ValueError naming the cell that is not a
    non-negative integer, or for a table without trials.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Trials both correct, only observer 1 correct, only observer 2 correct, both wrong (broadcastable).

    Returns
    -------
    list of numpy.ndarray
        The four cells as int64 arrays of the broadcast shape (0-d for scalar input).

    Raises
    ------
    ValueError
        If a count is negative, non-integer or not finite (the message names the cell), or a table has no
        trials.

    Examples
    --------
    >>> [cell.tolist() for cell in table_counts([3, 4], 1, 0, 2)]
    [[3, 4], [1, 1], [0, 0], [2, 2]]
    >>> table_counts(3, 1.5, 0, 2)
    Traceback (most recent call last):
    ...
    ValueError: count 'b' must hold non-negative integers
    """
    arrays = np.broadcast_arrays(*[np.asarray(x) for x in (a, b, c, d)])
    out = []
    for name, x in zip("abcd", arrays, strict=True):
        xf = np.asarray(x, dtype=float)
        if np.any(~np.isfinite(xf)) or np.any(xf < 0) or np.any(xf != np.round(xf)):
            raise ValueError(f"count '{name}' must hold non-negative integers")
        out.append(xf.astype(np.int64))
    n = out[0] + out[1] + out[2] + out[3]
    if np.any(n <= 0):
        raise ValueError("every table needs at least one trial (a+b+c+d > 0)")
    return out


@dataclass(frozen=True)
class ECTestResult:
    """Result of a significance test of error consistency (fields are arrays for vector input).

    ``p_value``: two-sided (see the test's docstring for the rule); ``p_greater``: one-sided p for
    kappa larger than chance; ``n_simulations``: None for the exact test.

    Attributes
    ----------
    kappa : float or numpy.ndarray
        Observed error consistency (Cohen's kappa) per table; NaN where undefined.
    p_value : float or numpy.ndarray
        Two-sided p-value.
    p_greater : float or numpy.ndarray
        One-sided p-value for kappa above chance.
    method : str
        ``"beta-posterior"`` or ``"exact-conditional"``.
    n_simulations : int or None
        Simulations per table (None for the exact test).

    Examples
    --------
    >>> result = ec_test_exact(8, 2, 1, 9)
    >>> round(float(result.kappa), 2), round(float(result.p_value), 4), result.method
    (0.7, 0.0055, 'exact-conditional')
    """

    kappa: float | np.ndarray
    p_value: float | np.ndarray
    p_greater: float | np.ndarray
    method: str
    n_simulations: int | None = None

    def to_frame(self):
        """One row per table: kappa, p_value, p_greater, method, n_simulations.

        Returns
        -------
        pandas.DataFrame
            One row per table (flattened in C order).
        """
        import pandas as pd

        k = np.atleast_1d(np.asarray(self.kappa, dtype=float)).ravel()
        return pd.DataFrame(
            {
                "kappa": k,
                "p_value": np.atleast_1d(np.asarray(self.p_value, dtype=float)).ravel(),
                "p_greater": np.atleast_1d(np.asarray(self.p_greater, dtype=float)).ravel(),
                "method": self.method,
                "n_simulations": self.n_simulations,
            }
        )


# --------------------------------------------------------------------------------------------------
# Klein et al.'s Beta-posterior simulation test
# --------------------------------------------------------------------------------------------------


def ec_test_beta_posterior(
    a,
    b,
    c,
    d,
    n_simulations: int = 10_000,
    prior: tuple[float, float] = (1.0, 1.0),
    seed: SeedLike = None,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
    chunk_size: int = 2_000_000,
    extreme: str = "at-least",
) -> ECTestResult:
    """Klein et al.'s test of H0 "the two observers are independent" by simulation.

    For every simulation: accuracies ``p_j ~ Beta(k_j + prior[0], n - k_j + prior[1])`` (k_j = correct
    count of observer j), then a 2x2 table of ``n`` independent trials, i.e. Multinomial(n, [p1 p2,
    p1 (1-p2), (1-p1) p2, (1-p1)(1-p2)]) - drawn as ``k1 ~ Bin(n, p1)``, ``a ~ Bin(k1, p2)``,
    ``c ~ Bin(n - k1, p2)`` - and its kappa (:func:`humanlike.measures.pairs.metric.kappa` with ``policy``).

    ``p_value`` (two-sided) = share of simulations with ``|kappa_null| >= |kappa_obs|`` (minus
    :data:`KAPPA_TIE_TOLERANCE`); ``p_greater`` = share with ``kappa_null >= kappa_obs``.

    ``extreme`` chooses how ties count: ``"at-least"`` (default) counts ``>=`` as above; ``"greater"``
    counts only strictly more extreme simulated kappas (``|kappa_null| > |kappa_obs|`` beyond the
    tolerance), the rule of Klein et al.'s published code. The default stays ``>=`` because kappa of a
    finite table is discrete: ties with the observed value have positive probability under H0, and
    dropping them makes the p-value too small (the test rejects more often than its level; with 100
    trials and few errors the two rules differ by up to about 0.02). Simulated tables
    whose kappa is undefined (NaN: both simulated observers constant) count as *not* extreme (they stay in
    the denominator). NaN p when the observed kappa is undefined. The p-value is the plain share, so it can
    be 0; its resolution is ``1 / n_simulations``.

    Prior: the default ``(1, 1)`` (uniform prior, posterior ``Beta(k+1, n-k+1)``) keeps the posterior proper
    when an observer is always right or always wrong. ``prior=(0, 0)`` uses the published posterior
    (``Beta(k, n-k)``) and raises ``ValueError`` when some ``k`` is 0 or ``n`` (improper Beta). The
    published method is ``prior=(0, 0), extreme="greater"``; it is reproduced in distribution (the
    random numbers differ from the published code's, so individual p-values differ by Monte Carlo error).

    Vectorised over tables (arrays of a, b, c, d); ``chunk_size`` caps tables x simulations per draw.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Trials both correct, only observer 1 correct, only observer 2 correct, both wrong (broadcastable).
    n_simulations : int, default 10000
        Simulated tables per observed table.
    prior : tuple of float, default (1.0, 1.0)
        Beta prior ``(alpha, beta)`` added to the correct / wrong counts; ``(0, 0)`` is the published one.
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the simulation.
    policy : UndefinedPolicy or str, default "strict"
        How kappa treats a constant observer (see :func:`humanlike.measures.pairs.metric.kappa`).
    chunk_size : int, default 2000000
        Largest number of tables x simulations drawn at once (bounds memory).
    extreme : {"at-least", "greater"}, default "at-least"
        Whether simulated kappas equal to the observed one count as extreme.

    Returns
    -------
    ECTestResult
        Kappa and the two p-values per table (scalars for scalar input).

    Raises
    ------
    ValueError
        For invalid counts, a negative prior, an improper posterior with ``prior=(0, 0)``,
        ``n_simulations < 1`` or an unknown ``extreme``.

    Notes
    -----
    Klein et al. (2025); docs/measures/error-consistency.md.

    Examples
    --------
    >>> result = ec_test_beta_posterior(6, 4, 3, 7, n_simulations=2000, seed=0)
    >>> round(float(result.kappa), 2), result.n_simulations
    (0.3, 2000)
    >>> 0.0 < float(result.p_greater) <= float(result.p_value) < 0.5
    True
    """
    a, b, c, d = table_counts(a, b, c, d)
    shape = a.shape
    n = (a + b + c + d).ravel()
    k1 = (a + b).ravel()
    k2 = (a + c).ravel()
    alpha0, beta0 = float(prior[0]), float(prior[1])
    if alpha0 < 0 or beta0 < 0:
        raise ValueError(f"prior parameters must be >= 0, got {prior}")
    n_simulations = int(n_simulations)
    if n_simulations < 1:
        raise ValueError("n_simulations must be >= 1")
    for k, name in ((k1, "observer 1"), (k2, "observer 2")):
        if np.any(k + alpha0 <= 0) or np.any(n - k + beta0 <= 0):
            raise ValueError(
                f"{name} is always wrong or always right in some table, so the Beta(k + {alpha0}, n - k + {beta0}) "
                "posterior is improper; use a proper prior such as prior=(1, 1)"
            )
    if extreme not in ("at-least", "greater"):
        raise ValueError(f"extreme must be 'at-least' or 'greater', not {extreme!r}")
    rng = make_rng(seed)
    k_obs = np.asarray(kappa(a, b, c, d, policy=policy), dtype=float).ravel()
    m = n.size
    p_two = np.empty(m)
    p_one = np.empty(m)
    rows = max(1, int(chunk_size) // n_simulations)
    for start in range(0, m, rows):
        sl = slice(start, min(m, start + rows))
        nn = n[sl, None]
        p1 = rng.beta(k1[sl, None] + alpha0, nn - k1[sl, None] + beta0, size=(nn.shape[0], n_simulations))
        p2 = rng.beta(k2[sl, None] + alpha0, nn - k2[sl, None] + beta0, size=(nn.shape[0], n_simulations))
        s1 = rng.binomial(nn, p1)
        sa = rng.binomial(s1, p2)
        sc = rng.binomial(nn - s1, p2)
        k_null = kappa(sa, s1 - sa, sc, nn - s1 - sc, policy=policy)
        ko = k_obs[sl, None]
        with np.errstate(invalid="ignore"):
            if extreme == "at-least":
                beyond = np.abs(k_null) >= np.abs(ko) - KAPPA_TIE_TOLERANCE
                greater = k_null >= ko - KAPPA_TIE_TOLERANCE
            else:
                beyond = np.abs(k_null) > np.abs(ko) + KAPPA_TIE_TOLERANCE
                greater = k_null > ko + KAPPA_TIE_TOLERANCE
        p_two[sl] = beyond.mean(axis=1)  # NaN comparisons are False: undefined null kappas are not extreme
        p_one[sl] = greater.mean(axis=1)
    undefined = np.isnan(k_obs)
    p_two[undefined] = np.nan
    p_one[undefined] = np.nan
    return ECTestResult(
        kappa=_out(k_obs.reshape(shape)),
        p_value=_out(p_two.reshape(shape)),
        p_greater=_out(p_one.reshape(shape)),
        method="beta-posterior",
        n_simulations=n_simulations,
    )


# --------------------------------------------------------------------------------------------------
# exact conditional test
# --------------------------------------------------------------------------------------------------


def _floor_div(x, y):
    return np.floor_divide(x, y)


def _ceil_div(x, y):
    return -np.floor_divide(-x, y)


def _log_choose(N, K):
    from scipy import special
    return special.gammaln(N + 1.0) - special.gammaln(K + 1.0) - special.gammaln(N - K + 1.0)


def _hypergeom_tails(n, k1, k2, lo, hi, a, budget: int = 4_000_000):
    """P(A <= lo) + P(A >= hi) and P(A >= a) for A ~ Hypergeom(n, k1, k2), one entry per table."""
    big = int(n.max()) + 1
    if big < 2_000_000:  # one int64 key per margin: a fast 1-D unique
        keys, inv = np.unique((n * big + k1) * big + k2, return_inverse=True)
        mn, rest = np.divmod(keys, big * big)
        mk1, mk2 = np.divmod(rest, big)
    else:
        margins_, inv = np.unique(np.stack([n, k1, k2], axis=1), axis=0, return_inverse=True)
        mn, mk1, mk2 = (margins_[:, i] for i in range(3))
    inv = inv.ravel()
    s_lo = np.maximum(0, mk1 + mk2 - mn)
    length = np.minimum(mk1, mk2) - s_lo + 1
    order = np.argsort(length, kind="stable")
    p_two = np.empty(n.shape, dtype=float)
    p_one = np.empty(n.shape, dtype=float)
    # Blocks of margins (sorted by support length) with rows x width <= budget.
    blocks, start = [], 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop - start + 1) * int(length[order[stop]]) <= budget:
            stop += 1
        blocks.append(order[start:stop])
        start = stop
    block_of = np.empty(len(mn), dtype=np.int64)
    row_of = np.empty(len(mn), dtype=np.int64)
    for b_id, block in enumerate(blocks):
        block_of[block] = b_id
        row_of[block] = np.arange(len(block))
    table_block = block_of[inv]
    table_order = np.argsort(table_block, kind="stable")
    bounds = np.searchsorted(table_block[table_order], np.arange(len(blocks) + 1))
    for b_id, block in enumerate(blocks):
        width = int(length[block[-1]])
        j = np.arange(width)
        valid = j < length[block, None]
        bn, bk1, bk2 = (v[block, None].astype(float) for v in (mn, mk1, mk2))
        x0 = s_lo[block, None].astype(float)
        log_first = _log_choose(bk1, x0) + _log_choose(bn - bk1, bk2 - x0) - _log_choose(bn, bk2)
        # pmf(y+1)/pmf(y) = (k1-y)(k2-y) / ((y+1)(n-k1-k2+y+1)); cumulate the log ratios along the support.
        y = x0 + j[:-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (bk1 - y) * (bk2 - y) / ((y + 1.0) * (bn - bk1 - bk2 + y + 1.0))
            steps = np.log(np.where(valid[:, 1:], ratio, 1.0))
        logpmf = np.concatenate([log_first, log_first + np.cumsum(steps, axis=1)], axis=1)
        pmf = np.where(valid, np.exp(logpmf), 0.0)
        pmf /= pmf.sum(axis=1, keepdims=True)  # removes the rounding of the log-ratio recursion
        low = np.cumsum(pmf, axis=1)
        up = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
        tables = table_order[bounds[b_id] : bounds[b_id + 1]]
        m = inv[tables]
        r = row_of[m]
        base = s_lo[m]
        il = lo[tables] - base
        ih = hi[tables] - base
        p_low = np.where(il >= 0, low[r, np.clip(il, 0, width - 1)], 0.0)
        p_up = np.where(ih < length[m], up[r, np.clip(ih, 0, width - 1)], 0.0)
        p_two[tables] = p_low + p_up
        p_one[tables] = up[r, np.clip(a[tables] - base, 0, width - 1)]
    return p_two, p_one


def ec_test_exact(a, b, c, d, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT) -> ECTestResult:
    """Exact test of independence conditional on both observers' correct counts.

    Given ``n`` and the margins ``k1 = a + b``, ``k2 = a + c``, independence makes ``a`` hypergeometric
    (population n, k1 successes, k2 draws). Kappa is linear and increasing in ``a``:
    ``kappa = 2 (n a - k1 k2) / (k1 (n - k2) + k2 (n - k1))``, so its conditional null distribution is exact
    and its conditional mean is exactly 0 (``E[a] = k1 k2 / n``).

    Two-sided rule: ``p_value`` = P(|kappa| >= |kappa_obs|) = P(|n A - k1 k2| >= |n a - k1 k2|), evaluated
    in integers (no floating tolerance needed): the lower tail ``A <= floor((k1 k2 - t) / n)`` plus the
    upper tail ``A >= ceil((k1 k2 + t) / n)`` with ``t = |n a - k1 k2|``. This "as far from chance in kappa"
    rule coincides with Fisher's two-sided rule (tables no more probable than the observed one) when the
    hypergeometric distribution is symmetric (``k1 = n/2`` or ``k2 = n/2``), and generally differs a little
    otherwise. ``p_greater`` = P(A >= a) (kappa at least as large).

    NaN p-values when kappa is undefined (both observers always right, or both always wrong); one constant
    observer - including one always right and the other always wrong - gives kappa 0 and p = 1 (the
    null distribution has one point). ``policy`` only affects the reported kappa.

    Vectorised: the hypergeometric pmf is evaluated once per distinct margin (n, k1, k2) over its whole
    support (padded 2-D blocks, log-gamma), cumulated from both ends (so small tails stay accurate), and
    every table reads its two tails from there. Cost grows with the summed support sizes of the distinct
    margins: 1e5 tables of a few hundred trials take well under a second.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Trials both correct, only observer 1 correct, only observer 2 correct, both wrong (broadcastable).
    policy : UndefinedPolicy or str, default "strict"
        How the reported kappa treats a constant observer (the p-values do not depend on it).

    Returns
    -------
    ECTestResult
        Kappa and the two exact p-values per table (``n_simulations`` None).

    Raises
    ------
    ValueError
        For counts that are not non-negative integers or a table without trials.

    Examples
    --------
    >>> result = ec_test_exact([8, 5], [2, 5], [1, 5], [9, 5])
    >>> result.kappa.tolist(), result.p_value.round(4).tolist()
    ([0.7, 0.0], [0.0055, 1.0])
    """
    a, b, c, d = table_counts(a, b, c, d)
    shape = a.shape
    k_obs = np.asarray(kappa(a, b, c, d, policy=policy), dtype=float)
    a = a.ravel()
    n = (a + b.ravel() + c.ravel() + d.ravel())
    k1 = a + b.ravel()
    k2 = a + c.ravel()
    prod = k1 * k2
    t = np.abs(n * a - prod)
    lo = _floor_div(prod - t, n)
    hi = _ceil_div(prod + t, n)
    p_two, p_one = _hypergeom_tails(n, k1, k2, lo, hi, a)
    p_two = np.where(t == 0, 1.0, np.minimum(p_two, 1.0))
    p_one = np.minimum(p_one, 1.0)
    # Undefined only when the expected agreement is 1 (both always right or both always wrong); one
    # observer always right and the other always wrong has kappa 0 and a one-point null: p = 1.
    both_constant = ((k1 == k2) & ((k1 == 0) | (k1 == n))) | (n < 2)  # kappa undefined (strict policy)
    p_two = np.where(both_constant, np.nan, p_two)
    p_one = np.where(both_constant, np.nan, p_one)
    return ECTestResult(
        kappa=_out(k_obs),
        p_value=_out(p_two.reshape(shape)),
        p_greater=_out(p_one.reshape(shape)),
        method="exact-conditional",
        n_simulations=None,
    )


# --------------------------------------------------------------------------------------------------
# analytic standard error (Fleiss, Cohen & Everitt 1969)
# --------------------------------------------------------------------------------------------------


def _fce_variance_unit(p11, p10, p01, p00):
    """n * Var(kappa_hat) from cell probabilities (Fleiss, Cohen & Everitt 1969), NaN when p_e == 1."""
    p11, p10, p01, p00 = np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in (p11, p10, p01, p00)])
    r1, r2 = p11 + p10, p01 + p00  # observer 1 correct / wrong (rows)
    s1, s2 = p11 + p01, p10 + p00  # observer 2 correct / wrong (columns)
    po = p11 + p00
    pe = r1 * s1 + r2 * s2
    diag = p11 * ((1 - pe) - (r1 + s1) * (1 - po)) ** 2 + p00 * ((1 - pe) - (r2 + s2) * (1 - po)) ** 2
    off = (1 - po) ** 2 * (p10 * (s1 + r2) ** 2 + p01 * (s2 + r1) ** 2)
    corr = (po * pe - 2 * pe + po) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.clip(diag + off - corr, 0.0, None) / (1 - pe) ** 4
    return np.where(np.abs(1 - pe) < 1e-12, np.nan, v)


def kappa_standard_error(a, b, c, d):
    """Large-sample standard error of kappa for a 2x2 table (Fleiss, Cohen & Everitt 1969).

    ``Var = [sum_i p_ii ((1-p_e) - (p_i. + p_.i)(1-p_o))^2 + (1-p_o)^2 sum_{i!=j} p_ij (p_.i + p_j.)^2
    - (p_o p_e - 2 p_e + p_o)^2] / (n (1-p_e)^4)`` at the observed cell shares. Counts may be non-integer
    (expected counts, as in planning). NaN when both observers are constant (p_e = 1, kappa undefined);
    0 when agreement is perfect or one observer is constant (the plug-in estimate then has no spread).

    Parameters
    ----------
    a, b, c, d : float or array_like of float
        Cell counts (broadcastable; non-negative, may be non-integer).

    Returns
    -------
    float or numpy.ndarray
        The standard error of kappa per table.

    Raises
    ------
    ValueError
        If a count is negative or a table has no trials.

    Examples
    --------
    >>> round(float(kappa_standard_error(40, 10, 10, 40)), 4)
    0.08
    """
    arrays = np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in (a, b, c, d)])
    a, b, c, d = arrays
    n = a + b + c + d
    if np.any(n <= 0) or any(np.any(x < 0) for x in arrays):
        raise ValueError("counts must be non-negative with a+b+c+d > 0")
    v = _fce_variance_unit(a / n, b / n, c / n, d / n)
    return _out(np.sqrt(v / n))


@dataclass(frozen=True)
class KappaInterval:
    """Wald interval kappa +- z * SE (clipped to [-1, 1]); ``reason`` says why an entry is NaN.

    Attributes
    ----------
    kappa, se, low, high : float or numpy.ndarray
        Kappa, its Fleiss-Cohen-Everitt standard error and the interval bounds per table.
    level : float
        Confidence level.
    reason : str or numpy.ndarray of str
        Empty where defined, else why the entry is NaN.

    Examples
    --------
    >>> interval = analytic_kappa_interval(40, 10, 10, 40)
    >>> round(float(interval.low), 3), round(float(interval.high), 3)
    (0.443, 0.757)
    """

    kappa: float | np.ndarray
    se: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray
    level: float
    reason: str | np.ndarray

    def to_frame(self):
        """The result as a tidy table, one row per table.

        Returns
        -------
        pandas.DataFrame
            Columns ``kappa``, ``se``, ``low``, ``high``, ``level``, ``reason``.
        """
        import pandas as pd

        cols = {k: np.atleast_1d(np.asarray(getattr(self, k))).ravel() for k in ("kappa", "se", "low", "high")}
        cols["level"] = self.level
        cols["reason"] = np.atleast_1d(np.asarray(self.reason, dtype=object)).ravel()
        return pd.DataFrame(cols)


def analytic_kappa_interval(a, b, c, d, level: float = 0.95) -> KappaInterval:
    """Wald interval on kappa with the Fleiss-Cohen-Everitt SE, clipped to [-1, 1].

    NaN with reason ``"both observers constant ..."`` when kappa is undefined, ``"fewer than two trials"``
    for n < 2. A large-sample approximation: poor for small n or kappa near its bounds (its SE is 0 at
    perfect agreement) - prefer the bootstrap or the tests there.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Trials both correct, only observer 1 correct, only observer 2 correct, both wrong (broadcastable).
    level : float, default 0.95
        Confidence level, in (0, 1).

    Returns
    -------
    KappaInterval
        Kappa, SE, interval and reason per table (scalars for scalar input).

    Raises
    ------
    ValueError
        If ``level`` is outside (0, 1) or the counts are invalid.

    Notes
    -----
    Fleiss, Cohen & Everitt (1969); docs/measures/error-consistency.md for kappa itself.

    Examples
    --------
    >>> interval = analytic_kappa_interval([40, 1], [10, 0], [10, 0], [40, 0])
    >>> interval.kappa.round(2).tolist(), interval.se.round(2).tolist()
    ([0.6, nan], [0.08, nan])
    >>> interval.reason.tolist()
    ['', 'fewer than two trials']
    """
    from scipy import stats
    if not 0 < level < 1:
        raise ValueError("level must lie in (0, 1)")
    a, b, c, d = table_counts(a, b, c, d)
    k = np.asarray(kappa(a, b, c, d), dtype=float)
    se = np.asarray(kappa_standard_error(a, b, c, d), dtype=float)
    n = a + b + c + d
    z = stats.norm.ppf(0.5 + level / 2)
    few = n < 2
    k = np.where(few, np.nan, k)
    se = np.where(few | np.isnan(k), np.nan, se)
    low = np.clip(k - z * se, -1.0, 1.0)
    high = np.clip(k + z * se, -1.0, 1.0)
    reason = np.where(few, REASON_ONE_TRIAL, np.where(np.isnan(k), REASON_BOTH_CONSTANT, ""))
    return KappaInterval(_out(k), _out(se), _out(low), _out(high), float(level), _out(reason.astype(object)))
