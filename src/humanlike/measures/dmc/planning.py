"""Planning a DMC study: how many trials and observers (Alvarez & Konkle 2024, Appendix B).

Sampling error only (docs/measures/decision-margin-consistency.md): an item of true accuracy π measured with t trials has an estimated
accuracy distributed as Binomial(t, π) / t. Nothing here models observer differences or item-by-observer
interactions, so the numbers are best cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...stats.correlation import pearson_rows, spearman_brown
from ...stats.reliability import choose_splits
from ...resampling.rng import SeedLike, make_rng

_T_CHUNK = 2048
_SIM_CELLS = 1 << 22  # simulations x (observers or splits) x items cells per chunk


def _check_accuracy(p) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if np.any(~((p >= 0) & (p <= 1))):
        raise ValueError("true accuracies must lie in [0, 1]")
    return p


def item_accuracy_interval(true_accuracy, n_trials, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Central ``level`` interval of the estimated accuracy Binomial(t, π) / t (exact binomial quantiles).

    Returns ``(low, high)``, broadcast over ``true_accuracy`` and ``n_trials``. Because the binomial is
    discrete, the interval covers at least ``level`` (each tail holds at most (1 - level) / 2).

    Parameters
    ----------
    true_accuracy : float or array_like of float
        True item accuracy π, in [0, 1].
    n_trials : int or array_like of int
        Trials t per item (at least 1; broadcastable with ``true_accuracy``).
    level : float, default 0.95
        Central probability, in (0, 1).

    Returns
    -------
    low, high : float or numpy.ndarray
        Bounds of the estimated accuracy (proportions in [0, 1]).

    Raises
    ------
    ValueError
        If ``level`` is outside (0, 1), an accuracy outside [0, 1], or ``n_trials`` not integers >= 1.

    Notes
    -----
    docs/measures/decision-margin-consistency.md (Alvarez & Konkle 2024, Appendix B).

    Examples
    --------
    >>> low, high = item_accuracy_interval([0.5, 0.9], [10, 100])
    >>> low.tolist(), high.tolist()
    ([0.2, 0.84], [0.8, 0.95])
    """
    from scipy import stats
    if not 0 < level < 1:
        raise ValueError("level must lie in (0, 1)")
    p = _check_accuracy(true_accuracy)
    t = np.asarray(n_trials, dtype=float)
    if np.any(~(t >= 1)) or np.any(t != np.round(t)):
        raise ValueError("n_trials must be integers >= 1")
    alpha = 1.0 - level
    low = stats.binom.ppf(alpha / 2, t, p) / t
    high = stats.binom.ppf(1 - alpha / 2, t, p) / t
    # scipy's ppf at π = 0 gives -1 for the lower quantile (its "before support" value); the estimate is 0.
    low, high = np.clip(low, 0, 1), np.clip(high, 0, 1)
    return (low[()], high[()]) if low.ndim == 0 else (low, high)


def within_tolerance_probability(true_accuracy, n_trials, tolerance) -> np.ndarray:
    """P(|p̂ - π| <= tolerance) for p̂ ~ Binomial(t, π) / t, broadcast over the inputs.

    Parameters
    ----------
    true_accuracy : float or array_like of float
        True item accuracy π, in [0, 1].
    n_trials : int or array_like of int
        Trials t per item.
    tolerance : float
        Largest acceptable absolute error of the estimated accuracy.

    Returns
    -------
    float or numpy.ndarray
        The probability, broadcast over ``true_accuracy`` and ``n_trials``.

    Raises
    ------
    ValueError
        If an accuracy lies outside [0, 1].

    Examples
    --------
    With π = 0.5, t = 10 and tolerance 0.1 the estimate must be 4, 5 or 6 correct out of 10:
    (210 + 252 + 210) / 1024.

    >>> within_tolerance_probability(0.5, [10, 100], 0.1).round(5).tolist()
    [0.65625, 0.9648]
    """
    from scipy import stats
    p = _check_accuracy(true_accuracy)
    t = np.asarray(n_trials, dtype=float)
    tol = float(tolerance)
    # A 1e-9 slack stops floating error from dropping a count that lies exactly on the boundary.
    hi = np.floor(t * (p + tol) + 1e-9)
    lo = np.ceil(t * (p - tol) - 1e-9)
    out = stats.binom.cdf(hi, t, p) - stats.binom.cdf(lo - 1, t, p)
    return out[()] if out.ndim == 0 else out


def trials_for_tolerance(true_accuracy, tolerance: float, probability: float = 0.95, max_trials: int = 100_000):
    """Smallest number of trials t with P(|p̂ - π| <= tolerance) >= ``probability`` (exact binomial).

    Vectorised over ``true_accuracy``; returns an int (scalar input) or an int array. Because of the
    binomial's discreteness the probability is not monotone in t: a few larger t can fall below the target
    again; this returns the first t that reaches it. Raises ``ValueError`` naming the accuracy when no
    t <= ``max_trials`` reaches the target.

    Parameters
    ----------
    true_accuracy : float or array_like of float
        True item accuracy π, in [0, 1].
    tolerance : float
        Largest acceptable absolute error (> 0).
    probability : float, default 0.95
        Required probability of staying within the tolerance, in (0, 1).
    max_trials : int, default 100000
        Largest t searched.

    Returns
    -------
    int or numpy.ndarray of int
        The smallest t per accuracy.

    Raises
    ------
    ValueError
        For a non-positive ``tolerance``, ``probability`` outside (0, 1), an accuracy outside [0, 1], or
        when no t <= ``max_trials`` suffices.

    Examples
    --------
    >>> trials_for_tolerance([0.5, 0.9], 0.1).tolist()
    [90, 20]
    >>> float(within_tolerance_probability(0.5, 89, 0.1)) < 0.95 <= float(within_tolerance_probability(0.5, 90, 0.1))
    True
    """
    if not tolerance > 0:
        raise ValueError("tolerance must be > 0")
    if not 0 < probability < 1:
        raise ValueError("probability must lie in (0, 1)")
    p = _check_accuracy(true_accuracy)
    flat = p.ravel()
    result = np.zeros(flat.shape, dtype=np.int64)
    for lo in range(1, max_trials + 1, _T_CHUNK):
        todo = np.flatnonzero(result == 0)
        if todo.size == 0:
            break
        t = np.arange(lo, min(lo + _T_CHUNK, max_trials + 1))
        ok = within_tolerance_probability(flat[todo, None], t[None, :], tolerance) >= probability
        hit = ok.any(axis=1)
        result[todo[hit]] = t[np.argmax(ok[hit], axis=1)]
    if np.any(result == 0):
        bad = flat[np.flatnonzero(result == 0)[0]]
        raise ValueError(
            f"true accuracy {bad:g}: no t <= {max_trials} trials keeps |p̂ - π| <= {tolerance:g} with "
            f"probability {probability:g}"
        )
    result = result.reshape(p.shape)
    return int(result) if result.ndim == 0 else result


@dataclass(frozen=True, eq=False)
class ObserverPlanningResult:
    """Correlation of estimated with true item accuracies, per number of observers.

    Per entry of ``n_observers``: ``mean_corr_truth`` / ``sd_corr_truth`` (over simulations) of the
    Pearson correlation between the pooled estimate and the truth; ``mean_split_half`` the mean split-half
    Spearman–Brown reliability (what a study would report as its ceiling); ``sqrt_split_half`` its square
    root, the estimate of ``corr_truth``; ``expected_reliability`` the sampling-theory value
    V / (V + E[π(1-π)] / (N t)) and ``expected_corr_truth`` its square root. ``n_undefined_truth`` /
    ``n_undefined_split`` count simulations where a correlation was undefined (excluded from the means),
    with ``reasons``.

    Attributes
    ----------
    n_observers : numpy.ndarray of int
        The numbers of observers simulated.
    mean_corr_truth, sd_corr_truth : numpy.ndarray
        Mean and SD over simulations of corr(pooled estimate, truth).
    mean_split_half, sqrt_split_half : numpy.ndarray
        Mean split-half (Spearman-Brown) reliability and its square root (NaN for one observer).
    expected_reliability, expected_corr_truth : numpy.ndarray
        Sampling-theory reliability and its square root.
    n_undefined_truth, n_undefined_split : numpy.ndarray of int
        Simulations with an undefined correlation.
    reasons : tuple of str
        Per number of observers, why values are missing or excluded ("" when none).
    trials_per_observer, n_items, n_sim : int
        The design simulated.
    distribution : str
        The true accuracies (``"explicit"`` or the distribution drawn from).

    Examples
    --------
    >>> result = accuracy_correlation_vs_observers(("uniform", 0.2, 0.9), [1, 4], n_items=50, n_sim=20, seed=0)
    >>> result.expected_reliability.round(3).tolist(), result.reasons[0]
    ([0.165, 0.441], 'split-half needs >= 2 observers')
    """

    n_observers: np.ndarray
    mean_corr_truth: np.ndarray
    sd_corr_truth: np.ndarray
    mean_split_half: np.ndarray
    sqrt_split_half: np.ndarray
    expected_reliability: np.ndarray
    expected_corr_truth: np.ndarray
    n_undefined_truth: np.ndarray
    n_undefined_split: np.ndarray
    reasons: tuple[str, ...]
    trials_per_observer: int
    n_items: int
    n_sim: int
    distribution: str

    def to_frame(self):
        """One row per number of observers.

        Returns
        -------
        pandas.DataFrame
            Columns ``n_observers``, the design (``trials_per_observer``, ``n_items``, ``n_sim``,
            ``distribution``), the correlations and reliabilities, the undefined counts and ``reason``.
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "n_observers": self.n_observers,
                "trials_per_observer": self.trials_per_observer,
                "n_items": self.n_items,
                "n_sim": self.n_sim,
                "distribution": self.distribution,
                "mean_corr_truth": self.mean_corr_truth,
                "sd_corr_truth": self.sd_corr_truth,
                "mean_split_half": self.mean_split_half,
                "sqrt_split_half": self.sqrt_split_half,
                "expected_reliability": self.expected_reliability,
                "expected_corr_truth": self.expected_corr_truth,
                "n_undefined_truth": self.n_undefined_truth,
                "n_undefined_split": self.n_undefined_split,
                "reason": list(self.reasons),
            }
        )


def _parse_truth(spec, n_items):
    """Return (draw(rng, n) -> (n x items) truths, n_items, description, mean, variance)."""
    if isinstance(spec, (tuple, list)) and spec and isinstance(spec[0], str):
        kind, *args = spec
        if n_items is None or n_items < 2:
            raise ValueError("a distribution of true accuracies needs n_items >= 2")
        if kind == "uniform" and len(args) == 2:
            lo, hi = map(float, args)
            if not 0 <= lo < hi <= 1:
                raise ValueError("('uniform', lo, hi) needs 0 <= lo < hi <= 1")
            mean, var = (lo + hi) / 2, (hi - lo) ** 2 / 12
            return (lambda rng, n: rng.uniform(lo, hi, (n, n_items))), n_items, f"uniform({lo:g}, {hi:g})", mean, var
        if kind == "beta" and len(args) == 2:
            a, b = map(float, args)
            if not (a > 0 and b > 0):
                raise ValueError("('beta', a, b) needs a, b > 0")
            mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
            return (lambda rng, n: rng.beta(a, b, (n, n_items))), n_items, f"beta({a:g}, {b:g})", mean, var
        raise ValueError(f"unknown distribution {spec!r}: use ('uniform', lo, hi) or ('beta', a, b)")
    p = _check_accuracy(spec)
    if p.ndim != 1 or p.size < 2:
        raise ValueError("explicit true accuracies must be a 1-D array of at least 2 items")
    if n_items is not None and n_items != p.size:
        raise ValueError(f"n_items={n_items} but {p.size} true accuracies were given")
    if np.ptp(p) == 0:
        raise ValueError("explicit true accuracies are all equal: their correlation with anything is undefined")
    # E[π(1-π)] = mean - (var + mean^2); with fixed items these are the items' own moments (ddof=0).
    return (lambda rng, n: np.broadcast_to(p, (n, p.size))), p.size, "explicit", p.mean(), p.var()


def accuracy_correlation_vs_observers(
    true_accuracies,
    n_observers,
    trials_per_observer: int = 1,
    *,
    n_items: int | None = None,
    n_sim: int = 200,
    max_splits: int = 50,
    seed: SeedLike = None,
) -> ObserverPlanningResult:
    """Simulate how well N observers' pooled item accuracies track the true ones, for each N.

    ``true_accuracies``: an explicit 1-D array (e.g. item accuracies from data; fixed across simulations)
    or a spec ``("uniform", lo, hi)`` / ``("beta", a, b)`` from which ``n_items`` accuracies are drawn
    afresh in every simulation. Each of N observers gives ``trials_per_observer`` Bernoulli(π) responses
    per item (sampling error only).

    Relation between the reported numbers (classical test theory): the reliability of the pooled estimate
    X = T + E is var(T) / var(X), which equals both the correlation between two independent full-size
    measurements and corr(X, T)^2. The split-half Spearman–Brown value estimates that reliability, so its
    square root estimates corr(estimate, truth); ``expected_*`` give the large-item-set values. The
    split-half uses halves of N/2 observers (factor-2 step-up; approximate for odd N) and is undefined for
    N = 1. Vectorised over simulations (chunked); one set of splits (at most ``max_splits``) per N.

    Parameters
    ----------
    true_accuracies : array_like of float or tuple
        Explicit item accuracies (1-d, at least 2 items, not all equal), or ``("uniform", lo, hi)`` /
        ``("beta", a, b)``.
    n_observers : int or array_like of int
        Numbers of observers N to simulate (each >= 1).
    trials_per_observer : int, default 1
        Trials per observer and item.
    n_items : int, optional
        Items per simulation; required (>= 2) for a distribution spec, must match explicit accuracies.
    n_sim : int, default 200
        Simulations per N (>= 2).
    max_splits : int, default 50
        Most observer splits used for the split-half reliability.
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the simulation.

    Returns
    -------
    ObserverPlanningResult
        Simulated and expected correlations and reliabilities per N.

    Raises
    ------
    ValueError
        For an invalid accuracy spec, ``n_observers``, ``trials_per_observer`` or ``n_sim``.

    Notes
    -----
    docs/measures/decision-margin-consistency.md (Alvarez & Konkle 2024, Appendix B). With ``("uniform", 0.2, 0.9)`` the variance of
    the truth is 0.7²/12 and E[π(1-π)] = 0.2067, so one observer with one trial has expected reliability
    0.0408 / (0.0408 + 0.2067) = 0.165.

    Examples
    --------
    >>> result = accuracy_correlation_vs_observers(("uniform", 0.2, 0.9), [1, 4], n_items=50, n_sim=20, seed=0)
    >>> result.expected_reliability.round(3).tolist()
    [0.165, 0.441]
    >>> result.to_frame()[["n_observers", "n_undefined_split"]].values.tolist()
    [[1, 20], [4, 0]]
    """
    rng = make_rng(seed)
    draw, n_items, description, mean, var = _parse_truth(true_accuracies, n_items)
    ns = np.atleast_1d(np.asarray(n_observers))
    if ns.ndim != 1 or np.any(ns < 1) or np.any(ns != np.round(ns)):
        raise ValueError("n_observers must be integers >= 1")
    ns = ns.astype(np.int64)
    t = int(trials_per_observer)
    if t < 1 or t != trials_per_observer:
        raise ValueError("trials_per_observer must be an integer >= 1")
    if n_sim < 2:
        raise ValueError("n_sim must be >= 2")
    noise = mean - (var + mean**2)  # E[π(1-π)]

    out = {k: np.full(ns.size, np.nan) for k in ("mean", "sd", "split")}
    und_truth = np.zeros(ns.size, dtype=np.int64)
    und_split = np.zeros(ns.size, dtype=np.int64)
    reasons = []
    for j, n in enumerate(ns):
        splits = choose_splits(int(n), max_splits, rng)[0].astype(float) if n >= 2 else None
        width = max(int(n), splits.shape[0] if splits is not None else 1)
        chunk = max(1, _SIM_CELLS // (width * n_items))
        corr_truth = np.empty(n_sim)
        split_rel = np.full(n_sim, np.nan)
        for lo in range(0, n_sim, chunk):
            k = min(chunk, n_sim - lo)
            truth = draw(rng, k)  # (k x items)
            counts = rng.binomial(t, truth[:, None, :], size=(k, int(n), n_items)).astype(float)
            estimate = counts.sum(axis=1) / (n * t)
            corr_truth[lo : lo + k] = pearson_rows(estimate, truth)
            if splits is not None:
                # (splits x observers) @ (sims x observers x items) -> sims x splits x items, all at once.
                half_a = np.einsum("so,koi->ksi", splits, counts) / splits.sum(axis=1)[None, :, None]
                rest = 1.0 - splits
                half_b = np.einsum("so,koi->ksi", rest, counts) / rest.sum(axis=1)[None, :, None]
                sb = spearman_brown(pearson_rows(half_a, half_b), 2.0)
                defined = ~np.isnan(sb)
                with np.errstate(invalid="ignore", divide="ignore"):
                    split_rel[lo : lo + k] = np.where(
                        defined.any(axis=1), np.where(defined, sb, 0.0).sum(axis=1) / defined.sum(axis=1), np.nan
                    )
        ok = ~np.isnan(corr_truth)
        und_truth[j] = int((~ok).sum())
        und_split[j] = int(np.isnan(split_rel).sum())
        if ok.any():
            out["mean"][j] = corr_truth[ok].mean()
            out["sd"][j] = corr_truth[ok].std(ddof=1) if ok.sum() > 1 else np.nan
        if und_split[j] < n_sim:
            out["split"][j] = np.nanmean(split_rel)
        why = []
        if n < 2:
            why.append("split-half needs >= 2 observers")
        elif und_split[j]:
            why.append(f"{und_split[j]} simulations with every split undefined (constant halves)")
        if out["split"][j] < 0:
            why.append("mean split-half reliability negative (no square root)")
        if und_truth[j]:
            why.append(f"{und_truth[j]} simulations with a constant estimate (corr with truth undefined)")
        reasons.append("; ".join(why))

    expected = var / (var + noise / (ns * t))
    with np.errstate(invalid="ignore"):
        sqrt_split = np.where(out["split"] >= 0, np.sqrt(np.clip(out["split"], 0, None)), np.nan)
    return ObserverPlanningResult(
        n_observers=ns,
        mean_corr_truth=out["mean"],
        sd_corr_truth=out["sd"],
        mean_split_half=out["split"],
        sqrt_split_half=sqrt_split,
        expected_reliability=expected,
        expected_corr_truth=np.sqrt(expected),
        n_undefined_truth=und_truth,
        n_undefined_split=und_split,
        reasons=tuple(reasons),
        trials_per_observer=t,
        n_items=n_items,
        n_sim=n_sim,
        distribution=description,
    )
