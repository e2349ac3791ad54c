"""Planning a comparison of two models' EC: the copy model's joint cells and the paired bootstrap, simulated.

**One human.** One human and two models answer the same ``n`` trials. The human is correct with
probability ``a_human``; each model copies the human independently of the other with its own EC and accuracy
(Klein et al.'s copy model, :func:`humanlike.measures.ec.copy_model.cell_probabilities`), so the 8 joint cells
(human, A, B correct) have probabilities ``P(h) P(a | h) P(b | h)``. The comparison's paired bootstrap of a
single table resamples the trials jointly for the three observers, i.e. multinomial counts of the 8 joint
cells with the observed shares: :func:`paired_bootstrap_ec` does exactly that, vectorised over data sets
and resamples. The exact label-exchange test is :func:`humanlike.measures.ec.exchange.exchange_test_from_counts`.

**``N`` humans.** The models' outcomes ``(A, B)`` are drawn once per trial, from the one-human
joint's margin ``P(a, b)``, and shared by every human; each human's outcome is drawn from ``P(h | a, b)`` of the
one-human joint, the humans conditionally independent given the models (all with the same accuracy, each model
with the same EC to every human). Every (model, human) pair then has exactly the planted accuracies and EC.
A trial is one of ``4 * 2^N`` types ``(h_1 .. h_N, a, b)`` (:func:`joint_cell_probabilities` with
``n_humans``); a model's score is the mean over the humans of its EC with each (the benchmark's aggregation,
undefined kappas skipped), and the paired bootstrap resamples the trials, the same trials for every human
and both models, as multinomial counts of the types. ``N = 1`` is the one-table design above, draw for draw.
There is no exact test for ``N > 1`` (the label-exchange test is of one table).

:func:`simulate_ec_comparisons` simulates data sets and gives their differences, intervals (MOVER,
:func:`mover_ec`, for one table) and p-values as a
:class:`~humanlike.measures.compare.planning_simulation.SimulatedComparisons`; the plans over design sizes are in
:mod:`humanlike.measures.compare.planning`.
"""

from __future__ import annotations

import numpy as np

from ..ec.copy_model import cell_probabilities
from .mover import ec_difference_interval, joint_correlation, replicate_correlation
from .planning_simulation import SimulatedComparisons, replicate_percentiles
from ..pairs.metric import kappa
from ...stats.comparison import bootstrap_p_value
from ..ec.exchange import exchange_test_from_counts
from ...resampling.rng import stream
from ...resampling.weights import nanmean_quiet

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
    n_humans = checked_humans(n_humans)
    one = _one_human_cells(kappa_a, kappa_b, a_human, a_model_a, a_model_b, repeat)
    models = one.sum(axis=0)   # P(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        human_given_models = np.where(models > 0, one / models, 0.0)   # P(h | a, b), [h, a, b]
    out = one
    for _ in range(n_humans - 1):
        out = out[..., None, :, :] * human_given_models
    return out


def checked_humans(n_humans) -> int:
    """The number of humans of an EC plan, checked: an integer from 1 to :data:`MAX_HUMANS`.

    Parameters
    ----------
    n_humans : int or float
        Humans asked for (a float must be a whole number).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        When ``n_humans`` is not a whole number from 1 to :data:`MAX_HUMANS`.

    Examples
    --------
    >>> checked_humans(3.0)
    3
    >>> checked_humans(0)
    Traceback (most recent call last):
    ...
    ValueError: the number of humans must be an integer from 1 to 12, got 0
    """
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
    return checked_humans(n)


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
    return nanmean_quiet(ka, axis=-1), nanmean_quiet(kb, axis=-1)


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
    low, high = replicate_percentiles(reps, level)
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
        (:func:`mover_ec`); ``alternatives`` holds the others of
        :class:`~humanlike.measures.compare.planning_simulation.SimulatedComparisons`.

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
