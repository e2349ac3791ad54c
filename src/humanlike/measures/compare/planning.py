"""Planning a model comparison: the power to resolve a difference, by simulation (docs/compare.md).

**EC (copy model).** One human and two models answer the same ``n`` trials. The human is correct with
probability ``a_human``; each model copies the human independently of the other with its own EC and accuracy
(Klein et al.'s copy model, :func:`humanlike.measures.ec.copy_model.cell_probabilities`), so the 8 joint cells
(human, A, B correct) have probabilities ``P(h) P(a | h) P(b | h)``. The comparison's paired bootstrap of a
single table resamples the trials jointly for the three observers, i.e. multinomial counts of the 8 joint
cells with the observed shares: :func:`paired_bootstrap_ec` does exactly that, vectorised over data sets
and resamples. The exact label-exchange test is :func:`humanlike.measures.ec.exchange.exchange_test_from_counts`.

**EC with ``N`` humans.** The models' outcomes ``(A, B)`` are drawn once per trial, from the one-human
joint's margin ``P(a, b)``, and shared by every human; each human's outcome is drawn from ``P(h | a, b)`` of the
one-human joint, the humans conditionally independent given the models (all with the same accuracy, each model
with the same EC to every human). Every (model, human) pair then has exactly the planted accuracies and EC.
A trial is one of ``4 * 2^N`` types ``(h_1 .. h_N, a, b)`` (:func:`joint_cell_probabilities` with
``n_humans``); a model's score is the mean over the humans of its EC with each (the benchmark's aggregation,
undefined kappas skipped), and the paired bootstrap resamples the trials, the same trials for every human
and both models, as multinomial counts of the types. ``N = 1`` is the one-table design above, draw for draw.
There is no exact test for ``N > 1`` (the label-exchange test is of one table).

**DMC (margin model).** ``n_items`` items with true human accuracies ``pi_i ~ Uniform(lo, hi)``; ``n_observers``
humans answer each item once (Bernoulli(pi_i), sampling error only, as :mod:`humanlike.measures.dmc.planning`);
the pooled human index is their mean. A model's margin is ``rho z_i + sqrt(1 - rho^2) e_i`` with ``z_i`` the
standardised true accuracy and ``e_i`` its own standard-normal noise, so its population correlation with the
true accuracy is ``rho``, and its DMC (correlation with the pooled index) is ``rho`` times the square root of
the index's reliability. The paired bootstrap resamples items, the same items for both models.

Every data set ``k`` is drawn from the stream ``stream(seed, "compare-plan", k)``, so numbers depend neither on
chunking nor on the number of data sets asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ec.copy_model import cell_probabilities
from .mover import ec_difference_interval, joint_correlation, replicate_correlation
from ..ec.metric import kappa
from ...stats.comparison import bootstrap_p_value
from ..ec.exchange import exchange_test_from_counts
from ...resampling.rng import stream

TESTS = ("bootstrap", "exact")

#: The most humans an EC plan simulates: a trial is one of ``4 * 2^N`` types and every bootstrap resample holds
#: a count per type (16,384 counts per resample at 12).
MAX_HUMANS = 12


def joint_cell_probabilities(kappa_a, kappa_b, a_human, a_model_a, a_model_b, repeat: float = 0.0,
                             n_humans: int = 1) -> np.ndarray:
    """Probabilities of the joint cells (humans, A, B correct) under the copy model, A and B independent given
    the human (or, with ``repeat``, B repeating A's answer on a share of the trials); with several humans, the
    humans independent given A and B (module docstring).

    Parameters
    ----------
    kappa_a, kappa_b : float
        EC of model A and of model B with (each) human (B's before ``repeat``).
    a_human, a_model_a, a_model_b : float
        Accuracies (B's before ``repeat``).
    repeat : float
        Probability that B gives A's answer on a trial (else it answers by its own copy model): models
        correlated beyond what the human induces. B's EC and accuracy are then mixtures (:func:`joint_kappas`).
    n_humans : int
        Humans ``N`` (1 to :data:`MAX_HUMANS`).

    Returns
    -------
    numpy.ndarray
        Shape ``(2,) * N + (2, 2)``, ``p[h_1, ..., h_N, a, b]``, summing to 1; for one human (2, 2, 2),
        ``p[h, a, b] = P(h) P(a | h) P(b | h)``; for more, ``P(h_1, a, b) P(h_2 | a, b) ... P(h_N | a, b)``.

    Raises
    ------
    ValueError
        When a kappa cannot be realised with the accuracies, or ``n_humans`` is out of range.

    Examples
    --------
    >>> p = joint_cell_probabilities(0.0, 0.0, 0.5, 0.5, 0.5)
    >>> p.round(3).ravel().tolist()
    [0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125]
    >>> joint_cell_probabilities(0.3, 0.1, 0.8, 0.8, 0.8, n_humans=3).shape
    (2, 2, 2, 2, 2)
    """
    n_humans = _checked_humans(n_humans)
    one = _one_human_cells(kappa_a, kappa_b, a_human, a_model_a, a_model_b, repeat)
    models = one.sum(axis=0)   # P(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        human_given_models = np.where(models > 0, one / models, 0.0)   # P(h | a, b), [h, a, b]
    out = one
    for _ in range(n_humans - 1):
        out = out[..., None, :, :] * human_given_models
    return out


def _checked_humans(n_humans) -> int:
    if int(n_humans) != n_humans or not 1 <= n_humans <= MAX_HUMANS:
        raise ValueError(f"the number of humans must be an integer from 1 to {MAX_HUMANS}, got {n_humans}")
    return int(n_humans)


def _one_human_cells(kappa_a, kappa_b, a_human, a_model_a, a_model_b, repeat: float = 0.0) -> np.ndarray:
    """``p[h, a, b]`` of one human and the two models (the copy model's cells, A and B independent given h; B
    repeating A's answer with probability ``repeat``)."""
    out = np.zeros((2, 2, 2))
    conditional = []
    for k, a in ((kappa_a, a_model_a), (kappa_b, a_model_b)):
        p11, p10, p01, p00 = (float(v) for v in cell_probabilities(k, a_human, a))
        given_correct = p11 / (p11 + p10) if p11 + p10 > 0 else 0.0
        given_wrong = p01 / (p01 + p00) if p01 + p00 > 0 else 0.0
        conditional.append((given_wrong, given_correct))   # P(model correct | human wrong / correct)
    for h, ph in ((0, 1 - a_human), (1, a_human)):
        qa, qb = conditional[0][h], conditional[1][h]
        out[h] = ph * np.outer([1 - qa, qa], [1 - qb, qb])
    if repeat:
        if not 0.0 <= repeat <= 1.0:
            raise ValueError(f"repeat must lie in [0, 1], got {repeat}")
        same = np.zeros((2, 2, 2))
        pa = out.sum(axis=2)   # (human, A)
        same[:, 0, 0], same[:, 1, 1] = pa[:, 0], pa[:, 1]
        out = (1.0 - repeat) * out + repeat * same
    return out


def joint_kappas(p: np.ndarray) -> tuple[float, float]:
    """EC of model A and of model B with the human from joint cell probabilities ``p[h, a, b]``.

    Parameters
    ----------
    p : numpy.ndarray
        Shape (2, 2, 2), as :func:`joint_cell_probabilities` gives.

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> [round(k, 6) for k in joint_kappas(joint_cell_probabilities(0.4, 0.0, 0.8, 0.8, 0.8, repeat=0.5))]
    [0.4, 0.2]
    """
    ka, kb = _kappas(np.asarray(p, dtype=float).reshape(1, 8))
    return float(ka[0]), float(kb[0])


def _kappas(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """EC of A and of B with the human from joint counts [..., 8] (cells ordered h, a, b)."""
    c = counts.reshape(*counts.shape[:-1], 2, 2, 2).astype(float)
    ta, tb = c.sum(axis=-1), c.sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ka = kappa(ta[..., 1, 1], ta[..., 1, 0], ta[..., 0, 1], ta[..., 0, 0])
        kb = kappa(tb[..., 1, 1], tb[..., 1, 0], tb[..., 0, 1], tb[..., 0, 0])
    return ka, kb


def _humans_of(n_types: int) -> int:
    """``N`` from the number of trial types ``4 * 2^N``."""
    n = int(n_types).bit_length() - 3
    if n < 1 or n_types != 4 * 2**n:
        raise ValueError(f"joint counts need 4 * 2^N columns (N humans), got {n_types}")
    return _checked_humans(n)


def _human_cells(n_humans: int) -> np.ndarray:
    """For every trial type (h_1 .. h_N, a, b), in C order, and every human i: the cell (h_i, a, b) of the
    human's one-table counts, ``4 h_i + 2 a + b``. Shape (4 * 2^N, N)."""
    bits = (np.arange(4 * 2**n_humans)[:, None] >> np.arange(n_humans + 1, -1, -1)) & 1   # h_1 .. h_N, a, b
    return 4 * bits[:, :n_humans] + 2 * bits[:, [n_humans]] + bits[:, [n_humans + 1]]


def _mean_kappas(counts: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each model's EC averaged over the humans (undefined kappas skipped, as the benchmark's mean), from counts
    of trial types [..., K] whose (type, human) cells are ``cells`` (K, N)."""
    one_hot = (cells[..., None] == np.arange(8)).reshape(cells.shape[0], -1).astype(float)   # (K, N * 8)
    tables = (counts.astype(float) @ one_hot).reshape(*counts.shape[:-1], cells.shape[1], 8)
    ka, kb = _kappas(tables)
    with np.errstate(invalid="ignore"), _quiet_nan():
        return np.nanmean(ka, axis=-1), np.nanmean(kb, axis=-1)


@dataclass(frozen=True)
class SimulatedComparisons:
    """Per simulated data set: the difference, its interval and the p-values of the tests.

    Attributes
    ----------
    difference : numpy.ndarray
        Estimated ``score_A - score_B`` per data set.
    ci_low, ci_high : numpy.ndarray
        The interval ``compare`` reports (NaN where undefined): for EC on one table the MOVER interval
        (:func:`humanlike.measures.compare.mover.ec_difference_interval`), for DMC the percentile interval of
        the paired bootstrap.
    p_bootstrap : numpy.ndarray
        The bootstrap p-value of a zero difference (:func:`humanlike.stats.comparison.bootstrap_p_value`).
    p_exact : numpy.ndarray or None
        The exact label-exchange p-value (EC only, when asked for; possibly of the first data sets only).
    true_difference : float
        The planted population difference.
    alternatives : dict
        Other intervals of the same data sets, ``{name: (low, high)}``, for the calibration (EC: the paired
        bootstrap's ``"percentile"`` interval, ``"mover-bootstrap"``, MOVER with the lower limit of the
        replicates' correlation, and ``"mover-plain"``, MOVER with the replicates' correlation as estimated).

    Examples
    --------
    >>> sim = SimulatedComparisons(np.array([0.1, 0.0]), np.array([0.05, -0.1]), np.array([0.2, 0.1]),
    ...                            np.array([0.01, 0.9]), None, 0.1)
    >>> sim.rejection_rate(0.05), sim.coverage()
    (0.5, 1.0)
    """

    difference: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_bootstrap: np.ndarray
    p_exact: np.ndarray | None
    true_difference: float
    alternatives: dict = field(default_factory=dict)

    def rejection_rate(self, alpha: float = 0.05, test: str = "bootstrap") -> float:
        """Share of data sets in which ``test`` declares the difference resolved (p <= alpha; NaN p: not).

        Parameters
        ----------
        alpha : float
            The level.
        test : {"bootstrap", "exact"}
            Which test.

        Returns
        -------
        float
        """
        p = self.p_bootstrap if test == "bootstrap" else self.p_exact
        if p is None:
            raise ValueError(f"no {test} p-values were simulated")
        return float(np.mean(np.nan_to_num(p, nan=2.0) <= alpha))

    def coverage(self, interval: str = "reported") -> float:
        """Share of data sets whose interval contains the planted difference (an undefined interval misses).

        Parameters
        ----------
        interval : str
            ``"reported"`` (``ci_low``, ``ci_high``: the interval ``compare`` reports) or a key of
            :attr:`alternatives`.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            On an interval that was not simulated.
        """
        if interval == "reported":
            low, high = self.ci_low, self.ci_high
        elif interval in self.alternatives:
            low, high = self.alternatives[interval]
        else:
            raise ValueError(f"no {interval!r} interval; simulated: {['reported', *self.alternatives]}")
        return float(np.mean((low <= self.true_difference) & (self.true_difference <= high)))


def _percentile(reps: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - level) / 2
    with np.errstate(invalid="ignore"), _quiet_nan():
        low, high = np.nanquantile(reps, [alpha, 1 - alpha], axis=1)
    return low, high


class _quiet_nan:
    def __enter__(self):
        import warnings

        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("ignore", category=RuntimeWarning)

    def __exit__(self, *exc):
        return self._c.__exit__(*exc)


def paired_bootstrap_ec(counts: np.ndarray, n_resamples: int, level: float, seeds) -> tuple[np.ndarray, ...]:
    """The paired trial bootstrap of one table per data set: difference, percentile interval, p-value, and the
    correlation of the two kappas' replicates (for the calibration's bootstrap-correlation MOVER variants).

    With ``N`` humans the score of a model is its EC averaged over the humans, and every resample draws the
    same trials for every human and both models (multinomial counts of the trial types).

    Parameters
    ----------
    counts : numpy.ndarray
        Joint counts, shape (S, 8) (cells ordered human, A, B correct bits), or with ``N`` humans (S, 4 * 2^N)
        (types ordered h_1 .. h_N, A, B correct bits, as ``joint_cell_probabilities(...).ravel()``).
    n_resamples : int
        Resamples per data set.
    level : float
        Interval level.
    seeds : sequence of numpy.random.Generator
        One generator per data set.

    Returns
    -------
    (difference, ci_low, ci_high, p_value, correlation) : tuple of numpy.ndarray
        Each of shape (S,).

    Examples
    --------
    >>> counts = np.array([[40, 5, 5, 10, 10, 5, 5, 20]])   # cells (h, a, b) in binary order 000 ... 111
    >>> d, lo, hi, p, r = paired_bootstrap_ec(counts, 200, 0.95, [np.random.default_rng(0)])
    >>> d.round(3).tolist(), bool(lo[0] <= d[0] <= hi[0])
    ([0.0], True)
    """
    counts = np.asarray(counts, dtype=np.int64)
    cells = _human_cells(_humans_of(counts.shape[1]))
    ka, kb = _mean_kappas(counts, cells)
    diff = ka - kb
    n = counts.sum(axis=1)
    reps = np.empty((counts.shape[0], n_resamples))
    r = np.empty(counts.shape[0])
    for s, rng in enumerate(seeds):
        draws = rng.multinomial(n[s], counts[s] / n[s], size=n_resamples)
        seen = counts[s] > 0   # a type never observed is never drawn
        ra, rb = _mean_kappas(draws[:, seen], cells[seen])
        reps[s] = ra - rb
        r[s] = replicate_correlation(ra, rb)[0]
    low, high = _percentile(reps, level)
    defined = np.isfinite(diff)
    p = bootstrap_p_value(reps.T)
    return (diff, np.where(defined, low, np.nan), np.where(defined, high, np.nan), np.where(defined, p, np.nan),
            r)


def mover_ec(counts: np.ndarray, level: float):
    """The interval ``compare`` reports for one table per data set: MOVER on the two profile intervals with the
    lower limit of the multinomial correlation (:mod:`humanlike.measures.compare.mover`).

    Parameters
    ----------
    counts : numpy.ndarray
        Joint counts, shape (S, 8) (cells ordered human, A, B correct bits).
    level : float
        Interval level.

    Returns
    -------
    humanlike.measures.compare.mover.DifferenceInterval

    Examples
    --------
    >>> out = mover_ec(np.array([[40, 5, 5, 10, 10, 5, 5, 20]]), 0.95)
    >>> float(out.difference[0]), bool(out.low[0] < 0 < out.high[0])
    (0.0, True)
    """
    table_a, table_b = _model_tables(counts)
    return ec_difference_interval(table_a, table_b, joint_correlation(counts), _informative(counts), level)


def _informative(counts):
    """Trials on which the human or either model erred: every joint cell but "all three correct"."""
    return np.asarray(counts).reshape(-1, 8)[:, :7].sum(axis=1)


def _bootstrap_mover(counts, correlation, level, limit):
    """MOVER with the replicates' correlation (its lower limit, or as estimated): ``(low, high)``; the
    calibration compares them."""
    table_a, table_b = _model_tables(counts)
    out = ec_difference_interval(table_a, table_b, correlation, _informative(counts), level,
                                 correlation_limit=limit)
    return out.low, out.high


def _model_tables(counts):
    """The human's 2x2 table with model A and with model B, (both correct, only the human, only the model, both
    wrong), from joint counts (S, 8)."""
    c = np.asarray(counts).reshape(-1, 2, 2, 2)
    ta, tb = c.sum(axis=3), c.sum(axis=2)   # [h, model]
    table_a = np.stack([ta[:, 1, 1], ta[:, 1, 0], ta[:, 0, 1], ta[:, 0, 0]], axis=1)
    table_b = np.stack([tb[:, 1, 1], tb[:, 1, 0], tb[:, 0, 1], tb[:, 0, 0]], axis=1)
    return table_a, table_b


def simulate_ec_comparisons(n_trials: int, kappa_a: float, kappa_b: float, a_human: float, a_model_a: float,
                            a_model_b: float | None = None, *, n_sets: int = 1000, n_resamples: int = 1000,
                            level: float = 0.95, exact: bool = True, n_exact: int | None = None,
                            seed: int = 0, repeat: float = 0.0, n_humans: int = 1) -> SimulatedComparisons:
    """Simulate ``n_sets`` comparisons of two models' EC under the copy model, with one or ``n_humans`` humans.

    Parameters
    ----------
    n_trials : int
        Trials (every human and both models answer all of them).
    kappa_a, kappa_b : float
        Planted EC of model A and of model B with (each) human.
    a_human, a_model_a : float
        Accuracies of the human and model A.
    a_model_b : float, optional
        Accuracy of model B (default: A's).
    n_sets : int
        Simulated data sets.
    n_resamples : int
        Bootstrap resamples per data set.
    level : float
        Interval level.
    exact : bool
        Also compute the exact label-exchange p-value per data set (one human only).
    n_exact : int, optional
        Compute the exact test on the first ``n_exact`` data sets only (it enumerates up to
        ``(n / 2)^2`` outcomes per data set at accuracies near 0.5); default all.
    seed : int
        Seed; data set k uses ``stream(seed, "compare-plan", "ec", k)`` with one human, and
        ``stream(seed, "compare-plan", "ec", "humans", N, k)`` with ``N`` humans.
    repeat : float
        B repeats A's answer with this probability (:func:`joint_cell_probabilities`); the planted difference
        is then that of the mixed tables' kappas (:func:`joint_kappas`).
    n_humans : int
        Humans (1 to :data:`MAX_HUMANS`); a model's score is its mean EC over them.

    Returns
    -------
    SimulatedComparisons
        Its interval (``ci_low``, ``ci_high``) is the one ``compare`` reports for one table, MOVER
        (:func:`mover_ec`); ``alternatives`` holds the others of :class:`SimulatedComparisons`.

    Raises
    ------
    ValueError
        When a kappa cannot be realised, ``n_humans`` is out of range, or the exact test is asked for with more
        than one human.

    Examples
    --------
    >>> sim = simulate_ec_comparisons(200, 0.3, 0.3, 0.8, 0.8, n_sets=50, n_resamples=200, seed=0)
    >>> 0.0 <= sim.rejection_rate() <= 0.2, sim.true_difference
    (True, 0.0)
    """
    a_model_b = a_model_a if a_model_b is None else a_model_b
    p = joint_cell_probabilities(kappa_a, kappa_b, a_human, a_model_a, a_model_b, repeat, n_humans).ravel()
    if exact and n_humans > 1:
        raise ValueError("the exact label-exchange test is of one table: it needs one human (pass exact=False)")
    key = ("compare-plan", "ec") if n_humans == 1 else ("compare-plan", "ec", "humans", int(n_humans))
    gens = [stream(seed, *key, k) for k in range(n_sets)]
    counts = np.stack([g.multinomial(int(n_trials), p) for g in gens])
    diff, low, high, pb, r = paired_bootstrap_ec(counts, n_resamples, level, gens)
    pe = None
    if exact:
        pe = np.array([exchange_test_from_counts(c.reshape(2, 2, 2))[1] for c in counts[:n_exact]])
    truth = float(kappa_a) - float(kappa_b)
    if repeat:   # B's kappa is then a mixture: the planted difference is that of the one-human tables
        truth = float(np.subtract(*joint_kappas(_one_human_cells(kappa_a, kappa_b, a_human, a_model_a, a_model_b,
                                                                   repeat))))
    if n_humans > 1:
        # A mean over humans is not one table: compare reports the paired percentile interval there.
        return SimulatedComparisons(diff, low, high, pb, pe, truth, {"percentile": (low, high)})
    mover = mover_ec(counts, level)
    return SimulatedComparisons(mover.difference, mover.low, mover.high, pb, pe, truth,
                                {"percentile": (low, high),
                                 "mover-bootstrap": _bootstrap_mover(counts, r, level, True),
                                 "mover-plain": _bootstrap_mover(counts, r, level, False)})


def _rows_corr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of matching rows (last axis)."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xc * yc).sum(-1) / np.sqrt((xc * xc).sum(-1) * (yc * yc).sum(-1))


def simulate_dmc_comparisons(n_items: int, n_observers: int, rho_a: float, rho_b: float, *,
                             accuracy_range: tuple[float, float] = (0.2, 0.95), n_sets: int = 500,
                             n_resamples: int = 500, level: float = 0.95, seed: int = 0) -> SimulatedComparisons:
    """Simulate ``n_sets`` comparisons of two models' DMC under the margin model (module docstring).

    The planted difference reported is the population ``DMC_A - DMC_B`` = ``(rho_a - rho_b) sqrt(R)`` with
    ``R`` the reliability of the pooled index, ``V / (V + E[pi (1 - pi)] / n_observers)``
    (V the variance of the true accuracies).

    Parameters
    ----------
    n_items : int
        Items (at least 3).
    n_observers : int
        Human observers, each answering every item once.
    rho_a, rho_b : float
        Correlation of each model's margins with the items' true accuracies, in [-1, 1].
    accuracy_range : (float, float)
        True item accuracies are Uniform(lo, hi).
    n_sets : int
        Simulated data sets.
    n_resamples : int
        Item-bootstrap resamples per data set.
    level : float
        Interval level.
    seed : int
        Seed; data set k uses ``stream(seed, "compare-plan", "dmc", k)``.

    Returns
    -------
    SimulatedComparisons
        ``p_exact`` is None.

    Examples
    --------
    >>> sim = simulate_dmc_comparisons(100, 8, 0.5, 0.5, n_sets=40, n_resamples=200, seed=0)
    >>> sim.true_difference, sim.rejection_rate() <= 0.2
    (0.0, True)
    """
    lo, hi = accuracy_range
    if not 0 <= lo < hi <= 1:
        raise ValueError(f"accuracy_range must satisfy 0 <= lo < hi <= 1, got {accuracy_range}")
    if n_items < 3 or n_observers < 1:
        raise ValueError("a DMC comparison needs at least 3 items and 1 observer")
    for rho in (rho_a, rho_b):
        if not -1 <= rho <= 1:
            raise ValueError(f"rho must lie in [-1, 1], got {rho}")
    variance = (hi - lo) ** 2 / 12
    noise = (lo + hi) / 2 - (hi**3 - lo**3) / (3 * (hi - lo))   # E[pi (1 - pi)] for Uniform(lo, hi)
    reliability = variance / (variance + noise / n_observers)
    diff = np.empty(n_sets)
    reps = np.empty((n_sets, n_resamples))
    for k in range(n_sets):
        g = stream(seed, "compare-plan", "dmc", k)
        pi = g.uniform(lo, hi, n_items)
        z = (pi - (lo + hi) / 2) / np.sqrt(variance)
        index = g.binomial(n_observers, pi) / n_observers
        ma = rho_a * z + np.sqrt(1 - rho_a**2) * g.standard_normal(n_items)
        mb = rho_b * z + np.sqrt(1 - rho_b**2) * g.standard_normal(n_items)
        diff[k] = _rows_corr(ma, index) - _rows_corr(mb, index)
        idx = g.integers(0, n_items, size=(n_resamples, n_items))
        reps[k] = _rows_corr(ma[idx], index[idx]) - _rows_corr(mb[idx], index[idx])
    low, high = _percentile(reps, level)
    p = bootstrap_p_value(reps.T)
    return SimulatedComparisons(diff, low, high, p, None, float((rho_a - rho_b) * np.sqrt(reliability)))


@dataclass(frozen=True)
class ComparisonPlan:
    """Power to resolve a planted difference, per design size and number of humans, and the smallest size
    reaching the target.

    Attributes
    ----------
    measure : str
        ``"error_consistency"`` or ``"decision_margin_consistency"``.
    sizes : numpy.ndarray
        Trials (EC) or items (DMC) simulated.
    power : dict
        ``{test: numpy.ndarray of power, shape (len(humans), len(sizes))}``; NaN where the test was not run
        (the exact test with more than one human).
    needed : dict
        ``{test: {humans: smallest simulated size with power >= target, or None}}``, for the humans the test
        was run with.
    target : float
        The power asked for.
    alpha : float
        The level of the (uncorrected) test.
    true_difference : float
        The planted population difference.
    design : dict
        Every other parameter of the simulation.
    humans : tuple of int
        Numbers of humans simulated (EC), or the DMC plan's one number of observers.

    Examples
    --------
    >>> plan = ComparisonPlan("error_consistency", np.array([100, 400]), {"bootstrap": np.array([[0.3, 0.9]])},
    ...                       {"bootstrap": {1: 400}}, 0.8, 0.05, 0.2, {"unit": "trials"})
    >>> plan.to_frame()[["humans", "size", "power", "reaches_target"]].values.tolist()
    [[1, 100, 0.3, False], [1, 400, 0.9, True]]
    """

    measure: str
    sizes: np.ndarray
    power: dict
    needed: dict
    target: float
    alpha: float
    true_difference: float
    design: dict
    humans: tuple = (1,)

    def to_frame(self):
        """One row per (humans, size, test) that was simulated: measure, humans, size, test, power,
        reaches_target, true_difference.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        rows = [{"measure": self.measure, "humans": int(h), "size": int(n), "test": t, "power": float(p[j, k]),
                 "reaches_target": bool(p[j, k] >= self.target), "true_difference": self.true_difference}
                for t, p in self.power.items() for j, h in enumerate(self.humans) for k, n in enumerate(self.sizes)
                if not np.isnan(p[j, k])]
        return pd.DataFrame(rows)


def _smallest_reaching(sizes: np.ndarray, power: np.ndarray, target: float):
    """The first size whose power reaches ``target`` (None when none does)."""
    return int(sizes[np.argmax(power >= target)]) if (power >= target).any() else None


def plan_ec_comparison(delta: float, *, kappa_b: float = 0.2, a_human: float = 0.8, a_model: float = 0.8,
                       trials=(100, 200, 400, 800, 1600, 3200), target: float = 0.8, alpha: float = 0.05,
                       n_sets: int = 400, n_resamples: int = 400, exact: bool = True, seed: int = 0,
                       humans=(1,)) -> ComparisonPlan:
    """Trials needed to resolve ``EC_A - EC_B = delta`` (copy model; one table per human) with power ``target``,
    for each number of humans.

    Parameters
    ----------
    delta : float
        Planted difference; model A's EC is ``kappa_b + delta``.
    kappa_b : float
        Model B's EC with (each) human.
    a_human, a_model : float
        Accuracies (every human alike, both models alike).
    trials : sequence of int
        Numbers of trials simulated.
    target : float
        Power to reach.
    alpha : float
        Level of the test (one comparison; divide by the family size for a Bonferroni/Holm plan).
    n_sets, n_resamples : int
        Simulated data sets per (humans, size) and bootstrap resamples per data set.
    exact : bool
        Also the exact label-exchange test (run for one human only: it is a test of one table).
    seed : int
        Seed.
    humans : sequence of int
        Numbers of humans ``N`` (1 to :data:`MAX_HUMANS`); a model's score is its mean EC over the humans.

    Returns
    -------
    ComparisonPlan

    Raises
    ------
    ValueError
        When a kappa cannot be realised with the accuracies, or a number of humans is out of range.

    Examples
    --------
    >>> plan = plan_ec_comparison(0.3, trials=(100, 400), n_sets=60, n_resamples=200, exact=False)
    >>> bool(plan.power["bootstrap"][0, 1] > plan.power["bootstrap"][0, 0])
    True
    """
    sizes = np.asarray(trials, dtype=int)
    humans = tuple(_checked_humans(h) for h in humans)
    tests = TESTS if exact and 1 in humans else ("bootstrap",)
    power = {t: np.full((len(humans), sizes.size), np.nan) for t in tests}
    for j, n_humans in enumerate(humans):
        exact_here = exact and n_humans == 1
        for k, n in enumerate(sizes):
            sim = simulate_ec_comparisons(int(n), kappa_b + delta, kappa_b, a_human, a_model, n_sets=n_sets,
                                          n_resamples=n_resamples, exact=exact_here, seed=seed, n_humans=n_humans)
            for t in tests:
                if t == "bootstrap" or exact_here:
                    power[t][j, k] = sim.rejection_rate(alpha, t)
    needed = {t: {h: _smallest_reaching(sizes, power[t][j], target) for j, h in enumerate(humans)
                  if not np.isnan(power[t][j]).all()} for t in tests}
    notes = ([f"the exact label-exchange test is of one table (one human): not run for "
              f"{', '.join(str(h) for h in humans if h > 1)} humans"] if exact and any(h > 1 for h in humans) else [])
    return ComparisonPlan("error_consistency", sizes, power, needed, target, alpha, float(delta),
                          dict(kappa_a=kappa_b + delta, kappa_b=kappa_b, a_human=a_human, a_model=a_model,
                               n_sets=n_sets, n_resamples=n_resamples, seed=seed, unit="trials",
                               score="mean EC over the humans", notes=notes),
                          humans)


def plan_dmc_comparison(delta_rho: float, *, rho_b: float = 0.4, n_observers: int = 8,
                        items=(50, 100, 200, 400, 800), accuracy_range=(0.2, 0.95), target: float = 0.8,
                        alpha: float = 0.05, n_sets: int = 300, n_resamples: int = 300,
                        seed: int = 0) -> ComparisonPlan:
    """Items needed to resolve two models' DMC differing by ``delta_rho`` in margin–truth correlation.

    Parameters
    ----------
    delta_rho : float
        Model A's margin–truth correlation is ``rho_b + delta_rho``.
    rho_b : float
        Model B's.
    n_observers : int
        Humans answering every item.
    items : sequence of int
        Numbers of items simulated.
    accuracy_range : (float, float)
        True item accuracies Uniform(lo, hi).
    target, alpha : float
        Power to reach; level of the test.
    n_sets, n_resamples : int
        Data sets per size and bootstrap resamples per data set.
    seed : int
        Seed.

    Returns
    -------
    ComparisonPlan
        ``true_difference`` is the population DMC difference (attenuated by the index's reliability);
        ``humans`` is ``(n_observers,)``.

    Examples
    --------
    >>> plan = plan_dmc_comparison(0.3, items=(50, 400), n_sets=40, n_resamples=200)
    >>> bool(plan.power["bootstrap"][0, 1] > plan.power["bootstrap"][0, 0])
    True
    """
    sizes = np.asarray(items, dtype=int)
    power = {"bootstrap": np.empty((1, sizes.size))}
    true = float("nan")
    for k, n in enumerate(sizes):
        sim = simulate_dmc_comparisons(int(n), n_observers, rho_b + delta_rho, rho_b,
                                       accuracy_range=accuracy_range, n_sets=n_sets, n_resamples=n_resamples,
                                       seed=seed)
        power["bootstrap"][0, k] = sim.rejection_rate(alpha)
        true = sim.true_difference
    needed = {"bootstrap": {int(n_observers): _smallest_reaching(sizes, power["bootstrap"][0], target)}}
    return ComparisonPlan("decision_margin_consistency", sizes, power, needed, target, alpha, true,
                          dict(rho_a=rho_b + delta_rho, rho_b=rho_b, n_observers=n_observers,
                               accuracy_range=list(accuracy_range), n_sets=n_sets, n_resamples=n_resamples,
                               seed=seed, unit="items"),
                          (int(n_observers),))
