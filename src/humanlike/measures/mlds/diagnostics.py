"""MLDS uncertainty and goodness of fit by simulation from the fit (docs/measures/mlds.md).

* :func:`bootstrap_mlds` — parametric bootstrap (R ``boot.mlds``): responses drawn from the fitted
  probabilities, refitted, each replicate on the standard scale; percentile intervals per level and for
  sigma.
* :func:`runs_diagnostics` — R ``binom.diagnostics``: the deviance-residual envelope (sorted residuals
  of simulated refits) and the runs test on the signs of the residuals ordered by fitted value.
* :func:`six_point_test` — additivity (R ``Get6pts`` / ``lik6pt`` / ``simu.6pt``).

Responses come from :func:`humanlike.resampling.draws.bernoulli_responses` (row r depends only on the seed,
the diagnostic's key and r), refits from :func:`humanlike.measures.mlds.refit.refit_many`, chunked by
:func:`humanlike.resampling.engine.resample_chunks`: no Python loop over replicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from ...resampling.draws import bernoulli_responses
from ...resampling.engine import resample_chunks
from .fit import MldsFit
from .glm import R_EPSILON, deviance_residuals
from .refit import BATCH_MAXIT, bytes_per_refit, refit_many
from ...resampling.results import Resampled
from ...resampling.settings import DEFAULT_MEMORY_BUDGET


def _check_fit(fit: MldsFit, what: str) -> None:
    if fit.method != "glm":
        raise ValueError(f"{what} refits the glm; fit with method='glm' (got {fit.method!r})")
    if fit.status not in ("ok", "not_converged"):
        raise ValueError(f"{what} needs a finite maximum-likelihood fit; this fit is {fit.status!r}: {fit.reason}")


BOOTSTRAP_EPSILON = 1e-8  # R's boot.mlds refits with glm.fit's default control: epsilon 1e-8, maxit 25
GLM_FIT_MAXIT = 25
SEPARATED_REPLICATES = ("exclude", "keep")


def _simulate(fit: MldsFit, key: tuple, n_simulations: int, seed: int, memory_budget: int, reduce,
              epsilon: float = R_EPSILON, maxit: int = BATCH_MAXIT) -> list:
    """Draw responses chunk by chunk, refit them in one batch per chunk and hand both to ``reduce``."""
    per = bytes_per_refit(fit.n_trials, fit.design.shape[1])
    parts = []
    for start, stop in resample_chunks(n_simulations, per, memory_budget):
        y = bernoulli_responses(seed, key, fit.fitted, start, stop).astype(np.float64)
        parts.append(reduce(y, refit_many(fit.design, y, fit.link, epsilon=epsilon, maxit=maxit)))
    return parts


@dataclass
class MldsBootstrap:
    """Parametric bootstrap of an MLDS fit.

    Attributes
    ----------
    result : Resampled
        Columns labelled (quantity, level): ``standard_scale`` and ``scale`` per level 1..p and
        ``sigma`` (level 0); NaN rows for separated replicates.
    separated_share, not_converged_share : float
        Shares of replicates without a finite maximum / without meeting R's criterion.

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=4, seed=0))
    >>> boot = bootstrap_mlds(fit, 50, seed=1)
    >>> boot.to_frame().shape, boot.separated_share     # 6 + 6 levels and sigma; 7 columns
    ((13, 7), 0.48)
    """

    result: Resampled
    separated_share: float
    not_converged_share: float

    def interval(self, level: float | None = None, method: str | None = None):
        """Percentile interval of every bootstrapped column (see :meth:`Resampled.interval`).

        Parameters
        ----------
        level : float, optional
            Confidence level (default: the level given to :func:`bootstrap_mlds`).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        low, high : numpy.ndarray
            One entry per column (``standard_scale`` and ``scale`` per level, then ``sigma``).
        """
        return self.result.interval(level, method)

    def to_frame(self, level: float | None = None):
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply).

        Parameters
        ----------
        level : float, optional
            Confidence level of ``ci_low`` / ``ci_high`` (default: the bootstrap's).

        Returns
        -------
        pandas.DataFrame
            Columns ``quantity``, ``level``, ``estimate``, ``ci_low``, ``ci_high``, ``undefined_share``,
            ``reason``.
        """
        return self.result.to_frame(level)

    def to_json_dict(self, level: float | None = None) -> dict:
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings.

        Parameters
        ----------
        level : float, optional
            Confidence level of the intervals (default: the bootstrap's).

        Returns
        -------
        dict
            :meth:`Resampled.to_json_dict` plus ``separated_share`` and ``not_converged_share``.
        """
        out = self.result.to_json_dict(level)
        out.update(separated_share=self.separated_share, not_converged_share=self.not_converged_share)
        return out


def bootstrap_mlds(fit: MldsFit, n_resamples: int = 10_000, *, seed: int = 0, level: float = 0.95,
                   memory_budget: int = DEFAULT_MEMORY_BUDGET, key: tuple = (),
                   separated: str = "exclude") -> MldsBootstrap:
    """Parametric bootstrap: simulate from the fitted probabilities, refit, keep every replicate.

    A replicate whose responses are separated has no maximum-likelihood scale. By default
    (``separated="exclude"``) it is NaN: left out of intervals and standard deviations and counted in
    ``separated_share``. R's ``boot.mlds`` keeps the scale at which ``glm.fit`` stopped (25 iterations
    at most, a finite but arbitrary point on the way to infinity); ``separated="keep"`` does that too,
    for comparison with R (standard deviations then differ, e.g. by up to 11% on Transparency O5).

    Parameters
    ----------
    fit : MldsFit
        A glm fit.
    n_resamples : int
    seed : int
    level : float
        Default level of the percentile intervals.
    memory_budget : int
        Bytes one chunk of refits may use.
    key : tuple
        Extra words of the random stream's key (e.g. observer and scale), so that several fits under one
        seed draw independent responses.
    separated : {"exclude", "keep"}
        What separated replicates contribute (see above); ``"keep"`` also refits with R's ``glm.fit``
        iteration cap (25).

    Returns
    -------
    MldsBootstrap

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=4, seed=0))
    >>> boot = bootstrap_mlds(fit, 200, seed=1)
    >>> low, high = boot.interval()
    >>> bool(low[-1] <= fit.sigma <= high[-1])
    True
    """
    _check_fit(fit, "the bootstrap")
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2, got {n_resamples}")
    if separated not in SEPARATED_REPLICATES:
        raise ValueError(f"separated must be one of {SEPARATED_REPLICATES}, not {separated!r}")
    p = fit.n_levels
    keep = separated == "keep"

    def reduce(y, refits):
        scale = refits.raw_scale if keep else refits.scale
        with np.errstate(invalid="ignore", divide="ignore"):
            columns = np.column_stack([scale / scale[:, -1:], scale, 1.0 / scale[:, -1]])
        return columns, refits.separated, refits.converged

    parts = _simulate(fit, ("mlds-bootstrap", *key), n_resamples, seed, memory_budget, reduce, BOOTSTRAP_EPSILON,
                      GLM_FIT_MAXIT if keep else BATCH_MAXIT)
    replicates = np.concatenate([part[0] for part in parts])
    is_separated = np.concatenate([part[1] for part in parts])
    converged = np.concatenate([part[2] for part in parts])
    labels = ([("standard_scale", k) for k in range(1, p + 1)] + [("scale", k) for k in range(1, p + 1)]
              + [("sigma", 0)])
    estimate = np.concatenate([fit.standard_scale, fit.scale, [fit.sigma]])
    result = Resampled(estimate, replicates, labels, ("quantity", "level"), level=level,
                       settings={"kind": "parametric bootstrap", "n_resamples": n_resamples, "seed": seed,
                                 "link": fit.link, "separated_replicates": separated})
    return MldsBootstrap(result, float(is_separated.mean()), float((~converged & ~is_separated).mean()))


def count_runs(signs: np.ndarray, order_by: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Number of sign changes along each row after a stable sort by ``order_by`` (R's ``sort(...,
    index.return = TRUE)`` keeps ties in their original order).

    ``groups`` marks rows that cannot be told apart (the same trial repeated, with no session or trial
    number to order the repetitions): their order is unknown, so within each group the count is its
    expectation over every order, ``2 n1 n0 / n`` inside the group and ``p (1 - q) + (1 - p) q`` at its
    borders (``p``, ``q`` the shares of positive signs of the neighbouring groups). Without repeated
    rows this is the plain count; sorting repetitions by their response instead would bias the runs
    test towards too few runs.

    Parameters
    ----------
    signs : numpy.ndarray
        Residual signs (bool or 0/1), shape (..., n).
    order_by : numpy.ndarray
        Sort key (fitted probabilities), same shape.
    groups : numpy.ndarray of int, optional
        Shape (n,): rows with one id are indistinguishable; they must be adjacent and tied in ``order_by``.

    Returns
    -------
    numpy.ndarray
        Sign changes per row (integers without groups of more than one row).

    Examples
    --------
    Sorted by the key, the signs read False, True, True, True: one change.

    >>> int(count_runs(np.array([True, False, True, True]), np.array([0.3, 0.1, 0.2, 0.4])))
    1

    Two indistinguishable repetitions, one positive and one negative, between two positives: 1 change
    inside on average, and 0.5 at each border.

    >>> float(count_runs(np.array([True, True, False, True]), np.zeros(4), np.array([0, 1, 1, 2])))
    2.0
    """
    order = np.argsort(order_by, axis=-1, kind="stable")
    ordered = np.take_along_axis(np.asarray(signs), order, axis=-1)
    if groups is None or len(np.unique(groups)) == np.shape(signs)[-1]:
        return np.sum(ordered[..., 1:] != ordered[..., :-1], axis=-1)
    ordered = np.atleast_2d(ordered).astype(float)
    g = np.asarray(groups)[np.atleast_2d(order)]
    start = np.ones(g.shape, bool)
    start[:, 1:] = g[:, 1:] != g[:, :-1]
    block = np.cumsum(start, axis=1) - 1
    n_blocks = int(block[0, -1]) + 1
    flat = (block + np.arange(len(g))[:, None] * n_blocks).ravel()
    ones = np.bincount(flat, weights=ordered.ravel(), minlength=len(g) * n_blocks).reshape(len(g), n_blocks)
    sizes = np.bincount(flat, minlength=len(g) * n_blocks).reshape(len(g), n_blocks)
    share = ones / sizes
    inside = np.sum(2.0 * ones * (sizes - ones) / sizes, axis=1)
    borders = np.sum(share[:, :-1] * (1 - share[:, 1:]) + (1 - share[:, :-1]) * share[:, 1:], axis=1)
    runs = inside + borders
    return runs.reshape(np.shape(signs)[:-1])


@dataclass
class RunsDiagnostics:
    """R ``binom.diagnostics``: runs test and deviance-residual envelope.

    Attributes
    ----------
    observed_runs : float
        Sign changes of the residuals ordered by fitted value (an integer unless repeated trials cannot
        be told apart: :func:`count_runs`).
    simulated_runs : (R,) float array (NaN for separated refits)
    p_value : float
        Share of simulated runs <= the observed (R: ``1 - mean(sim > obs)``), over defined refits.
    observed_residuals : (n,) array
        Sorted deviance residuals of the fit.
    envelope_low, envelope_high : (n,) arrays
        Pointwise quantiles of the simulated sorted residuals at ``(1 - level) / 2`` and ``(1 + level) / 2``.
    outside_envelope : int
        Sorted observed residuals outside the envelope.
    level : float
        Coverage of the envelope.
    separated_share : float

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=4, seed=0))
    >>> runs = runs_diagnostics(fit, 50, seed=1)
    >>> runs.observed_runs, runs.observed_residuals.shape
    (13, (60,))
    """

    observed_runs: float
    simulated_runs: np.ndarray = field(repr=False)
    p_value: float
    observed_residuals: np.ndarray = field(repr=False)
    envelope_low: np.ndarray = field(repr=False)
    envelope_high: np.ndarray = field(repr=False)
    outside_envelope: int
    level: float
    separated_share: float

    def to_json_dict(self) -> dict:
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings.

        Returns
        -------
        dict
            Keys ``observed_runs``, ``p_value``, ``outside_envelope``, ``envelope_level``, ``n_simulations``,
            ``separated_share``.
        """
        return {"observed_runs": self.observed_runs, "p_value": self.p_value,
                "outside_envelope": self.outside_envelope, "envelope_level": self.level,
                "n_simulations": int(len(self.simulated_runs)), "separated_share": self.separated_share}


def runs_diagnostics(fit: MldsFit, n_simulations: int = 10_000, *, seed: int = 0, level: float = 0.95,
                     memory_budget: int = DEFAULT_MEMORY_BUDGET, key: tuple = ()) -> RunsDiagnostics:
    """Residual envelope and runs test by simulation from the fit (R ``binom.diagnostics``).

    Parameters
    ----------
    fit : MldsFit
        A glm fit.
    n_simulations : int
    seed : int
    level : float
        Coverage of the pointwise envelope (R plots 0.025 .. 0.975).
    memory_budget : int
    key : tuple
        Extra words of the random stream's key.

    Returns
    -------
    RunsDiagnostics

    Raises
    ------
    ValueError
        If ``fit`` is not a finite glm fit.

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=4, seed=0))
    >>> runs = runs_diagnostics(fit, 50, seed=1)
    >>> runs.to_json_dict()["n_simulations"], runs.envelope_low.shape
    (50, (60,))
    >>> round(runs.p_value, 3)
    0.708
    """
    _check_fit(fit, "the runs test")
    y, mu = fit.responses.astype(float), fit.fitted
    residuals = deviance_residuals(y, mu)
    groups = fit.repeat_groups
    observed = float(count_runs(residuals > 0, mu, groups))
    observed = int(observed) if observed == int(observed) else observed

    def reduce(ys, refits):
        res = deviance_residuals(ys, refits.fitted)
        runs = count_runs(res > 0, refits.fitted, groups).astype(float)
        runs[refits.separated] = np.nan
        ordered = np.sort(res, axis=1).astype(np.float32)
        ordered[refits.separated] = np.nan
        return runs, ordered

    parts = _simulate(fit, ("mlds-runs", *key), n_simulations, seed, memory_budget, reduce)
    runs = np.concatenate([part[0] for part in parts])
    ordered = np.concatenate([part[1] for part in parts])
    defined = ~np.isnan(runs)
    alpha = (1 - level) / 2
    low, high = np.nanquantile(ordered, [alpha, 1 - alpha], axis=0) if defined.any() else (
        np.full(fit.n_trials, np.nan), np.full(fit.n_trials, np.nan))
    sorted_obs = np.sort(residuals)
    return RunsDiagnostics(
        observed_runs=observed, simulated_runs=runs,
        # Fractional counts (repeated trials) are sums in another order: equal up to rounding.
        p_value=float(np.mean(runs[defined] <= observed + 1e-9)) if defined.any() else float("nan"),
        observed_residuals=sorted_obs, envelope_low=low.astype(float), envelope_high=high.astype(float),
        outside_envelope=int(np.sum((sorted_obs < low) | (sorted_obs > high))), level=level,
        separated_share=float(1 - defined.mean()))


def _six_point_lookup(levels: np.ndarray, n_levels: int):
    """Distinct quadruples (codes, counts, each row's quadruple) and, per six-point condition, the indices
    of its three quadruples (A, B, E) among the distinct ones (-1 where absent)."""
    levels = np.asarray(levels, np.int64)
    if np.any(levels[:, 3] == 0):
        raise ValueError("the six-point test is defined for quadruples; this design has triads")
    base = n_levels + 1
    codes = ((levels[:, 0] * base + levels[:, 1]) * base + levels[:, 2]) * base + levels[:, 3]
    unique, inverse, counts = np.unique(codes, return_inverse=True, return_counts=True)
    first_triples = np.array(list(combinations(range(1, n_levels + 1), 3)), np.int64)
    second_triples = first_triples[first_triples[:, 0] >= 2]
    i, j = np.meshgrid(np.arange(len(first_triples)), np.arange(len(second_triples)), indexing="ij")
    six = np.column_stack([first_triples[i.ravel()], second_triples[j.ravel()]])
    six = six[six[:, 0] < six[:, 3]]

    def lookup(cols):
        q = six[:, cols]
        code = ((q[:, 0] * base + q[:, 1]) * base + q[:, 2]) * base + q[:, 3]
        pos = np.minimum(np.searchsorted(unique, code), len(unique) - 1)
        return np.where(unique[pos] == code, pos, -1)

    abe = np.column_stack([lookup([0, 1, 3, 4]), lookup([1, 2, 4, 5]), lookup([0, 2, 3, 5])])
    return inverse.ravel(), counts, abe[np.all(abe >= 0, axis=1)]


def six_point_rows(levels: np.ndarray, n_levels: int) -> np.ndarray:
    """Trial indices (m, 3) of the six-point conditions in the data, R's ``Get6pts(fit, nrep)``.

    For every a < b < c and a' < b' < c' with a < a', the quadruples (a, b; a', b'), (b, c; b', c') and
    (a, c; a', c') must all occur. Where quadruples repeat (sessions pooled, an experiment run twice), the
    k-th occurrence of each of the three is paired, in row order, as R's ``Get6pts(fit, nrep)`` pairs
    the k-th repetitions: a design with every quadruple twice has twice the conditions. Where the three
    occur unequally often, only as many conditions as the rarest allows.

    Parameters
    ----------
    levels : (n, 4) int array
        Quadruples in physical order.
    n_levels : int

    Returns
    -------
    (m, 3) int array of row indices (A, B, E), condition by condition, repetition k within each.

    Raises
    ------
    ValueError
        If the design holds triads.

    Examples
    --------
    >>> levels = np.array([[1, 2, 4, 5], [2, 3, 5, 6], [1, 3, 4, 6], [1, 2, 3, 4]])
    >>> six_point_rows(levels, 6).tolist()
    [[0, 1, 2]]
    >>> six_point_rows(np.concatenate([levels, levels]), 6).tolist()    # every quadruple twice
    [[0, 1, 2], [4, 5, 6]]
    """
    inverse, counts, abe = _six_point_lookup(levels, n_levels)
    order = np.argsort(inverse, kind="stable")              # rows of each quadruple, in row order
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    repeats = counts[abe].min(axis=1)
    condition = np.repeat(np.arange(len(abe)), repeats)
    k = np.arange(len(condition)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    return np.column_stack([order[starts[abe[condition, j]] + k] for j in range(3)]).reshape(-1, 3)


def six_point_weights(levels: np.ndarray, n_levels: int) -> tuple[np.ndarray, int]:
    """How often each trial enters the six-point log-likelihood, and the number of conditions.

    R's ``lik6pt`` sums the log-likelihood of every trial of :func:`six_point_rows`; the sum does not
    depend on which repetition is paired with which, only on how many conditions each quadruple enters.
    Every repetition of a quadruple therefore gets the same share (its conditions divided by its count;
    an integer, equal to R's multiplicity, when every quadruple occurs equally often), so the test does
    not depend on the order of the rows.

    Parameters
    ----------
    levels : (n, 4) int array
        Quadruples in physical order.
    n_levels : int

    Returns
    -------
    weights : (n,) float array
    n_conditions : int
        Six-point conditions, repetitions counted (R's ``nrow(attr(Get6pts(fit, nrep), "indices"))``).

    Examples
    --------
    >>> levels = np.array([[1, 2, 4, 5], [2, 3, 5, 6], [1, 3, 4, 6], [1, 2, 3, 4]])
    >>> weights, n = six_point_weights(np.concatenate([levels, levels]), 6)
    >>> weights.tolist(), n
    ([1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0], 2)
    """
    inverse, counts, abe = _six_point_lookup(levels, n_levels)
    repeats = counts[abe].min(axis=1)
    per_quadruple = np.bincount(abe.ravel(), weights=np.repeat(repeats, 3), minlength=len(counts))
    return per_quadruple[inverse] / counts[inverse], int(repeats.sum())


@dataclass
class SixPointTest:
    """Six-point (additivity) test.

    Attributes
    ----------
    n_conditions : int
        Six-point conditions in the data, repetitions counted: the k-th occurrences of the three
        quadruples of a condition form its k-th repetition (R's ``Get6pts(fit, nrep)``).
    observed : float
        Log-likelihood of the observed responses on the six-point trials under the fit.
    simulated : (R,) array
        The same under refits of simulated data (NaN for separated refits).
    p_value : float
        Share of simulated values <= observed (reject additivity when small).
    separated_share : float

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=4, seed=0))
    >>> test = six_point_test(fit, 50, seed=1)
    >>> test.n_conditions, round(test.observed, 4)     # one condition of 6 levels, each of 4 repetitions
    (4, -8.4087)
    """

    n_conditions: int
    observed: float
    simulated: np.ndarray = field(repr=False)
    p_value: float
    separated_share: float

    def to_json_dict(self) -> dict:
        """The result as a JSON-ready dict (numbers as plain floats, NaN as None), with the settings.

        Returns
        -------
        dict
            Keys ``n_conditions``, ``lik6pt`` (the observed log-likelihood), ``p_value``, ``n_simulations``,
            ``separated_share``.
        """
        return {"n_conditions": self.n_conditions, "lik6pt": self.observed, "p_value": self.p_value,
                "n_simulations": int(len(self.simulated)), "separated_share": self.separated_share}


def six_point_loglik(responses: np.ndarray, fitted: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """R's ``lik6pt``: sum over the six-point trials (with multiplicity ``weights``) of the Bernoulli
    log-likelihood; rows of ``responses``/``fitted`` are replicates.

    Parameters
    ----------
    responses : numpy.ndarray
        0/1 responses, shape (R, n).
    fitted : numpy.ndarray
        Fitted probabilities of response 1, shape (R, n).
    weights : numpy.ndarray
        How often each trial enters the six-point conditions, shape (n,).

    Returns
    -------
    numpy.ndarray
        The weighted log-likelihood per replicate, shape (R,).

    Examples
    --------
    2 ln 0.8 + ln 0.6 and 2 ln 0.8 + ln 0.4:

    >>> fitted = np.array([[0.8, 0.4], [0.8, 0.4]])
    >>> six_point_loglik(np.array([[1.0, 0.0], [1.0, 1.0]]), fitted, np.array([2.0, 1.0])).round(4).tolist()
    [-0.9571, -1.3626]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(responses > 0, np.log(fitted), np.log1p(-fitted))
    return terms @ weights


def six_point_test(fit: MldsFit, n_simulations: int = 10_000, *, seed: int = 0,
                   memory_budget: int = DEFAULT_MEMORY_BUDGET, key: tuple = ()) -> SixPointTest:
    """Six-point test of additivity by simulation from the fit (R ``simu.6pt(fit, nsim, nrep)``).

    Every repetition of a six-point condition counts (:func:`six_point_weights`), as R's ``Get6pts`` with
    ``nrep`` set to the number of repetitions: pooled sessions and repeated quadruples are not reduced
    to their first occurrence.

    Parameters
    ----------
    fit : MldsFit
        A glm fit of quadruples.
    n_simulations : int
        R uses about 10,000.
    seed : int
    memory_budget : int
    key : tuple
        Extra words of the random stream's key.

    Returns
    -------
    SixPointTest

    Raises
    ------
    ValueError
        For triads, or data without any complete six-point condition.

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=4, seed=0))
    >>> test = six_point_test(fit, 50, seed=1)
    >>> test.to_json_dict()["n_conditions"], test.p_value
    (4, 0.14814814814814814)
    """
    _check_fit(fit, "the six-point test")
    weights, n_conditions = six_point_weights(fit.levels, fit.n_levels)
    if n_conditions == 0:
        raise ValueError("no six-point condition occurs in this design (it needs the three quadruples "
                         "(a,b;a',b'), (b,c;b',c'), (a,c;a',c') for some a<b<c, a'<b'<c', a<a')")
    observed = float(six_point_loglik(fit.responses[None, :].astype(float), fit.fitted[None, :], weights)[0])

    def reduce(ys, refits):
        value = six_point_loglik(ys, refits.fitted, weights)
        value[refits.separated] = np.nan
        return value

    simulated = np.concatenate(_simulate(fit, ("mlds-six-point", *key), n_simulations, seed, memory_budget, reduce))
    defined = ~np.isnan(simulated)
    return SixPointTest(
        n_conditions=n_conditions, observed=observed, simulated=simulated,
        p_value=float(np.mean(simulated[defined] <= observed)) if defined.any() else float("nan"),
        separated_share=float(1 - defined.mean()))
