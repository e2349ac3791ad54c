"""Adaptive difference-scaling designs: the next triads / quadruples chosen from the current MLDS fit.

**Criterion.** Under the fitted scale (GLM coefficients ``beta = psi / sigma``, psi_1 = 0) a trial with design
row ``x`` (+1/-2/+1 for a triad, +1/-1/-1/+1 for a quadruple, level 1 dropped) has expected Fisher information
``w x x'`` with ``w = F'(eta)^2 / (F(eta) (1 - F(eta)))`` and ``eta = x' beta``: largest where the predicted
probability is near 0.5. With ``M`` the information of the trials observed so far plus a ridge ``lambda I`` (a
Gaussian prior on beta, so that ``M`` is invertible from the first trial on), the covariance of the *standard*
scale (psi / psi_p, the 0..1 scale the analyses report; interior levels) is about ``J M^-1 J'`` with ``J`` its
Jacobian in beta. A trial reduces the summed variance of the standard scale (A-optimality) by

    gain(x) = w ||J C x||^2 / (1 + w x' C x),      C = M^-1,

and the batch is chosen greedily: the trial of largest gain, ``C`` updated by Sherman-Morrison
(``C <- C - w C x x' C / (1 + w x' C x)``, a rank-one update), the next, and so on, each candidate at most once
per batch. Several scales (the sequences of a study) are one block-diagonal problem, so the batch goes to the
scales whose standard scale is least known.

**Randomness floor.** A share ``random_share`` (default 0.2) of every batch is drawn uniformly from the
candidates. The criterion trusts the additive MLDS model at the current estimate; the random trials keep every
triad with a chance above 0, so the data still check the model (the six-point test, residuals) where the
criterion would never look, and an early wrong estimate cannot steer the design away from the trials that would
correct it. **Cold start**: until the fit is identified (a finite, non-separated scale), every trial is random.

**Why the analysis stays the usual one.** The trials are chosen from earlier responses, never from the responses
to themselves: the likelihood of all the data factorises into the model's probabilities of the responses times
the design's probabilities of the choices, and the second factor does not depend on the scale. So the MLDS
likelihood of adaptively chosen trials is the same function of the scale as for a fixed design (the likelihood
principle; e.g. Berger & Wolpert 1988, ch. 4; for adaptive designs Rosenberger & Hu 2006), and the maximum
likelihood fit (``humanlike mlds``) is the right one, unchanged. Its Wald and bootstrap intervals rest on
large-sample arguments that hold for such sequential designs too (a martingale central limit theorem); whether
they cover at realistic sizes is measured in ``benchmarks/adaptive_mlds.py`` (docs/designs-that-decide.md).

Every random choice is from ``humanlike.resampling.rng.stream(seed, "adaptive-mlds", *key)``: the same seed,
key, fit and candidates give the same trials.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...resampling.rng import stream
from .fit import decision_variable, design_matrix
from .glm import Link
from .observers import quad_design, triad_design
from .refit import refit_many

#: Default ridge (prior precision on beta = psi / sigma, whose values run up to 1 / sigma, about 3-30).
RIDGE = 0.01
#: Default share of every batch drawn at random (see the module docstring).
RANDOM_SHARE = 0.2
STRATEGIES = ("adaptive", "random")


def _levels4(levels) -> np.ndarray:
    lv = np.asarray(levels, dtype=np.int64)
    if lv.ndim != 2 or lv.shape[1] not in (3, 4):
        raise ValueError(f"levels must be an (n, 3) or (n, 4) array of 1-based levels, got shape {lv.shape}")
    return np.column_stack([lv, np.zeros(len(lv), np.int64)]) if lv.shape[1] == 3 else lv


def trial_weights(scale, levels, link: str = "probit") -> tuple[np.ndarray, np.ndarray]:
    """Each trial's GLM weight ``F'(eta)^2 / (F (1 - F))`` and predicted probability under a scale.

    Parameters
    ----------
    scale : array_like, (p,)
        psi / sigma with psi_1 = 0 (``MldsFit.scale``).
    levels : array_like of int, (n, 3) or (n, 4)
        1-based levels; a 0 in column 4 marks a triad.
    link : {"probit", "logit", "cauchit"}

    Returns
    -------
    weights, probability : numpy.ndarray, (n,)

    Examples
    --------
    >>> w, prob = trial_weights([0.0, 1.0, 2.0], [[1, 2, 3], [1, 1, 3]])
    >>> prob.round(3).tolist(), w.round(3).tolist()      # a triad at eta = 0 carries 2 / pi
    ([0.5, 0.977], [0.637, 0.131])
    """
    f = Link(link)
    eta = decision_variable(np.asarray(scale, float), _levels4(levels))
    prob = f.inverse(eta)
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = f.derivative(eta) ** 2 / (prob * (1.0 - prob))
    return np.nan_to_num(weights, nan=0.0), prob


def information_matrix(scale, levels, link: str = "probit", ridge: float = 0.0) -> np.ndarray:
    """Expected Fisher information of beta (``scale[1:]``) from trials ``levels``, plus ``ridge * I``.

    Parameters
    ----------
    scale : array_like, (p,)
        psi / sigma with psi_1 = 0.
    levels : array_like of int, (n, 3) or (n, 4)
        The trials.
    link : str
    ridge : float
        Prior precision added to the diagonal.

    Returns
    -------
    numpy.ndarray, (p - 1, p - 1)

    Examples
    --------
    >>> information_matrix([0.0, 1.0, 2.0], [[1, 2, 3]], ridge=1.0).round(3).tolist()
    [[3.546, -1.273], [-1.273, 1.637]]
    """
    psi = np.asarray(scale, float)
    x = design_matrix(_levels4(levels), len(psi))
    w, _ = trial_weights(psi, levels, link)
    return (x * w[:, None]).T @ x + ridge * np.eye(len(psi) - 1)


def standard_scale_jacobian(scale) -> np.ndarray:
    """Jacobian of the interior standard scale ``beta_k / beta_last`` (levels 2..p-1) in beta = ``scale[1:]``.

    Parameters
    ----------
    scale : array_like, (p,)
        psi / sigma with psi_1 = 0 (p >= 3).

    Returns
    -------
    numpy.ndarray, (p - 2, p - 1)

    Examples
    --------
    >>> standard_scale_jacobian([0.0, 1.0, 4.0]).tolist()
    [[0.25, -0.0625]]
    """
    beta = np.asarray(scale, float)[1:]
    top = beta[-1]
    jac = np.zeros((len(beta) - 1, len(beta)))
    jac[:, :-1] = np.eye(len(beta) - 1) / top
    jac[:, -1] = -beta[:-1] / top ** 2
    return jac


def standard_scale_covariance(scale, levels, link: str = "probit", ridge: float = 0.0) -> np.ndarray:
    """Covariance of the interior standard scale by the delta method, ``J M^-1 J'`` (Wald).

    Parameters
    ----------
    scale : array_like, (p,)
        The fitted psi / sigma.
    levels : array_like of int
        The trials fitted.
    link : str
    ridge : float
        Prior precision (0 for the plain maximum-likelihood covariance).

    Returns
    -------
    numpy.ndarray, (p - 2, p - 2)

    Examples
    --------
    >>> levels = triad_design(5).repeat(20, axis=0)
    >>> cov = standard_scale_covariance(np.linspace(0, 5, 5), levels)
    >>> np.sqrt(np.diag(cov)).round(3).tolist()
    [0.024, 0.021, 0.024]
    """
    jac = standard_scale_jacobian(scale)
    return jac @ np.linalg.solve(information_matrix(scale, levels, link, ridge), jac.T)


def add_trial(inverse: np.ndarray, row: np.ndarray, weight: float) -> np.ndarray:
    """The inverse information after one more trial (Sherman-Morrison): ``(M + w x x')^-1`` from ``M^-1``.

    Parameters
    ----------
    inverse : numpy.ndarray, (k, k)
        ``M^-1``.
    row : numpy.ndarray, (k,)
        The trial's design row ``x``.
    weight : float
        Its weight ``w``.

    Returns
    -------
    numpy.ndarray, (k, k)

    Examples
    --------
    >>> m = np.array([[2.0, 0.5], [0.5, 1.0]]); x = np.array([1.0, -2.0])
    >>> bool(np.allclose(add_trial(np.linalg.inv(m), x, 0.6), np.linalg.inv(m + 0.6 * np.outer(x, x))))
    True
    """
    u = inverse @ row
    return inverse - weight * np.outer(u, u) / (1.0 + weight * row @ u)


def greedy_batch(rows: np.ndarray, weights: np.ndarray, inverse: np.ndarray, jacobian: np.ndarray, n: int,
                 chosen: Sequence[int] = ()) -> list[int]:
    """Add ``n`` distinct candidates greedily, each the one that most reduces ``trace(J C J')``.

    Parameters
    ----------
    rows : numpy.ndarray, (m, k)
        The candidates' design rows.
    weights : numpy.ndarray, (m,)
        Their weights under the current fit.
    inverse : numpy.ndarray, (k, k)
        ``C``: the inverse information of the trials so far (with the ridge).
    jacobian : numpy.ndarray, (q, k)
        ``J``: what the variance is of (the standard scale's interior levels).
    n : int
        How many candidates to add.
    chosen : sequence of int
        Candidates in the batch already (their information is counted, and they are not chosen again).

    Returns
    -------
    list of int
        The candidates added, in the order chosen.

    Examples
    --------
    >>> rows = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> greedy_batch(rows, np.ones(3), np.diag([4.0, 1.0]), np.eye(2), 2)   # the uncertain value, then both
    [0, 2]
    """
    c = np.array(inverse, float)
    taken = np.zeros(len(rows), bool)
    # per candidate: J C x (m, q) and x' C x (m,), kept current by the rank-one update of C, so a step costs
    # O(m k) instead of the O(m k^2) of recomputing C x for every candidate (thousands of candidates, k ~ 200)
    projected = rows @ c @ jacobian.T
    quadratic = np.einsum("ij,jk,ik->i", rows, c, rows)

    def take(index: int) -> None:
        nonlocal c, projected, quadratic
        v = c @ rows[index]
        scale = weights[index] / (1.0 + weights[index] * rows[index] @ v)
        along = rows @ v                                    # x_i' C x for every candidate i
        projected = projected - scale * np.outer(along, jacobian @ v)
        quadratic = quadratic - scale * along ** 2
        c = c - scale * np.outer(v, v)
        taken[index] = True

    for index in chosen:
        take(index)
    added: list[int] = []
    for _ in range(min(n, int((~taken).sum()))):
        gain = weights * np.sum(projected ** 2, axis=1) / (1.0 + weights * quadratic)
        gain[taken] = -np.inf
        best = int(np.argmax(gain))
        take(best)
        added.append(best)
    return added


@dataclass
class AdaptiveChoice:
    """A batch of trials chosen from the candidates.

    Attributes
    ----------
    indices : numpy.ndarray of int
        Candidates chosen, in the order chosen (random floor first).
    informative : numpy.ndarray of bool
        Chosen by the criterion (False: by the random floor or the cold start).
    probability : numpy.ndarray
        Each chosen trial's predicted probability of response 1 under the fit (NaN at the cold start).
    cold : bool
        No identified fit: every trial random.

    Examples
    --------
    >>> AdaptiveChoice(np.array([3]), np.array([True]), np.array([0.5]), False).indices.tolist()
    [3]
    """

    indices: np.ndarray
    informative: np.ndarray
    probability: np.ndarray
    cold: bool


def _usable(scale) -> bool:
    psi = None if scale is None else np.asarray(scale, float)
    return psi is not None and bool(np.all(np.isfinite(psi))) and psi[-1] > 0


def choose_trials(scales: Mapping[str, object], candidates: Sequence[tuple[str, Sequence[int]]], n: int, *,
                  observed: Mapping[str, object] | None = None, link: str = "probit", ridge: float = RIDGE,
                  random_share: float = RANDOM_SHARE, seed: int = 0, key: tuple = ()) -> AdaptiveChoice:
    """Choose ``n`` distinct trials of ``candidates`` that most reduce the variance of the standard scales.

    Parameters
    ----------
    scales : mapping of scale id to array_like or None
        The current fit of each scale (psi / sigma with psi_1 = 0, ``MldsFit.scale``); None or a non-finite /
        reversed scale where the fit is not identified (then every trial is random: the cold start).
    candidates : sequence of (scale id, levels)
        The trials to choose from (levels: a triad (a, b, c) or quadruple (a, b, c, d), 1-based).
    n : int
        Batch size (at most the number of candidates).
    observed : mapping of scale id to (t, 3|4) levels, optional
        The trials each scale was fitted to (their information is counted).
    link : str
    ridge : float
        Prior precision on beta, > 0 keeps the information invertible.
    random_share : float in [0, 1]
        Expected share of the batch drawn uniformly at random (stochastic rounding of ``random_share * n``).
    seed : int
    key : tuple
        Names the random stream (``stream(seed, "adaptive-mlds", *key)``), e.g. the participant's slot.

    Returns
    -------
    AdaptiveChoice

    Raises
    ------
    ValueError
        For a batch larger than the candidates, a share outside [0, 1], a ridge <= 0, or a candidate of a scale
        not in ``scales``.

    Examples
    --------
    >>> psi = 8 * np.linspace(0, 1, 7) ** 2                       # sigma 1/8 on the standard scale
    >>> candidates = [("s", tuple(t)) for t in triad_design(7)]
    >>> seen = triad_design(7)                                     # every triad answered once so far
    >>> choice = choose_trials({"s": psi}, candidates, 10, observed={"s": seen}, seed=1, random_share=0.0)
    >>> _, everyone = trial_weights(psi, seen)
    >>> bool(np.abs(choice.probability - 0.5).mean() < np.abs(everyone - 0.5).mean()), choice.cold
    (True, False)
    >>> choose_trials({"s": None}, candidates, 5, seed=1).cold
    True
    """
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"random_share must be in [0, 1], got {random_share!r}")
    if not ridge > 0:
        raise ValueError(f"ridge must be above 0, got {ridge!r}")
    if not 0 <= n <= len(candidates):
        raise ValueError(f"cannot choose {n} distinct trials from {len(candidates)} candidates")
    unknown = sorted({str(s) for s, _ in candidates} - {str(s) for s in scales})
    if unknown:
        raise ValueError(f"candidates of scale(s) {unknown} that have no entry in scales")
    rng = stream(seed, "adaptive-mlds", *key)
    order = rng.permutation(len(candidates))
    cold = not all(_usable(scales[s]) for s in {s for s, _ in candidates})
    n_random = n if cold else min(n, int(np.floor(random_share * n + rng.random())))
    random_part = [int(i) for i in order[:n_random]]
    if cold:
        return AdaptiveChoice(np.array(random_part, dtype=np.int64), np.zeros(n, bool), np.full(n, np.nan), True)
    ids = sorted({s for s, _ in candidates})
    offsets, sizes = {}, {}
    for s in ids:
        offsets[s] = sum(sizes.values())
        sizes[s] = len(np.asarray(scales[s])) - 1
    k = sum(sizes.values())
    rows = np.zeros((len(candidates), k))
    weights = np.zeros(len(candidates))
    prob = np.zeros(len(candidates))
    for s in ids:
        members = [i for i, (c, _) in enumerate(candidates) if c == s]
        levels = _levels4([tuple(candidates[i][1]) + (0,) * (4 - len(candidates[i][1])) for i in members])
        psi = np.asarray(scales[s], float)
        rows[np.ix_(members, range(offsets[s], offsets[s] + sizes[s]))] = design_matrix(levels, len(psi))
        weights[members], prob[members] = trial_weights(psi, levels, link)
    information = ridge * np.eye(k)
    jacobian = np.zeros((k - len(ids), k))
    for j, s in enumerate(ids):
        psi = np.asarray(scales[s], float)
        block = slice(offsets[s], offsets[s] + sizes[s])
        past = None if observed is None else observed.get(s)
        if past is not None and len(past):
            information[block, block] += information_matrix(psi, past, link)
        jacobian[offsets[s] - j: offsets[s] - j + sizes[s] - 1, block] = standard_scale_jacobian(psi)
    # candidates are visited in the stream's order, so ties in the gain are broken at random, not by position
    added = greedy_batch(rows[order], weights[order], np.linalg.inv(information), jacobian, n - n_random,
                         chosen=list(range(n_random)))
    indices = np.array(random_part + [int(order[i]) for i in added], dtype=np.int64)
    informative = np.arange(len(indices)) >= n_random
    return AdaptiveChoice(indices, informative, prob[indices], False)


def fit_scale(levels, responses, n_levels: int, link: str = "probit") -> np.ndarray | None:
    """The maximum-likelihood scale (psi / sigma, psi_1 = 0) of trials and responses, or None where it is not
    identified, separated or reversed: the quick glm fit of :func:`simulate_run` (no table, no diagnostics).

    Parameters
    ----------
    levels : array_like of int, (n, 3) or (n, 4)
        The trials.
    responses : array_like of 0/1, (n,)
    n_levels : int
        Levels of the scale.
    link : str

    Returns
    -------
    numpy.ndarray, (n_levels,), or None

    Examples
    --------
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> from humanlike.measures.mlds.fit import fit_mlds
    >>> table = simulate_judgements(np.linspace(0, 1, 6) ** 2, 0.2, design="triad", repeats=4, seed=2)
    >>> levels = table[["s1", "s2", "s3"]].to_numpy(int)
    >>> bool(np.allclose(fit_scale(levels, table["response"], 6), fit_mlds(table).scale, atol=1e-6))
    True
    """
    levels = _levels4(levels)
    responses = np.asarray(responses, dtype=np.int64)
    x = design_matrix(levels, n_levels)
    if np.linalg.matrix_rank(x) < n_levels - 1:
        return None
    refit = refit_many(x, responses[None].astype(float), link, epsilon=1e-10)
    scale = refit.scale[0]
    return scale if _usable(scale) else None


@dataclass
class AdaptiveRun:
    """One simulated observer answering a design, refitted after every batch.

    Attributes
    ----------
    trials : numpy.ndarray of int
        Trials answered at each checkpoint.
    rmse : numpy.ndarray
        RMSE of the fitted standard scale's interior levels against the truth at each checkpoint (NaN while the
        fit is not identified).
    levels, responses : numpy.ndarray
        Every trial (n, 4) and response, in the order answered.
    scale : numpy.ndarray or None
        The final fit's psi / sigma.

    Examples
    --------
    >>> run = simulate_run(np.linspace(0, 1, 6) ** 2, 0.15, 60, strategy="random", batch=20, seed=0)
    >>> run.trials.tolist(), len(run.responses)
    ([20, 40, 60], 60)
    """

    trials: np.ndarray
    rmse: np.ndarray
    levels: np.ndarray
    responses: np.ndarray
    scale: np.ndarray | None


def simulate_run(truth, sigma: float, n_trials: int, *, strategy: str = "adaptive", design: str = "triad",
                 batch: int = 10, start: int | None = None, link: str = "probit", ridge: float = RIDGE,
                 random_share: float = RANDOM_SHARE, seed: int = 0) -> AdaptiveRun:
    """Simulate one observer with scale ``truth`` and noise ``sigma`` on an adaptive or a random design.

    ``random``: every triad (quadruple) once in a random order, then again in another, ... (the usual MLDS
    method of constant stimuli, balanced). ``adaptive``: the first ``start`` trials from the same random order,
    then batches of ``batch`` trials from :func:`choose_trials` on the fit of everything answered so far (random
    while that fit is not identified).

    Parameters
    ----------
    truth : array_like, (p,)
        The observer's scale (any unit; the standard scale is ``(truth - truth_1) / (truth_p - truth_1)``).
    sigma : float
        Decision noise on the unit of ``truth``.
    n_trials : int
        Trials in all (a multiple of ``batch`` is reported at every checkpoint).
    strategy : {"adaptive", "random"}
    design : {"triad", "quad"}
    batch : int
        Trials between refits (and checkpoints).
    start : int, optional
        Random trials before the first adaptive batch (default: ``2 * batch``).
    link, ridge, random_share
        As :func:`choose_trials`.
    seed : int
        The observer's responses and the design's random choices (separate streams).

    Returns
    -------
    AdaptiveRun

    Raises
    ------
    ValueError
        For an unknown strategy or design.

    Examples
    --------
    >>> truth = np.linspace(0, 1, 8) ** 2
    >>> runs = [simulate_run(truth, 0.1, 200, strategy=s, batch=20, seed=3) for s in ("adaptive", "random")]
    >>> [len(r.rmse) for r in runs], bool(all(r.rmse[-1] < 0.1 for r in runs))
    ([10, 10], True)
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {STRATEGIES}")
    if design not in ("triad", "quad"):
        raise ValueError(f"unknown design {design!r}; use 'triad' or 'quad'")
    psi = np.asarray(truth, float)
    p = len(psi)
    true_standard = (psi - psi[0]) / (psi[-1] - psi[0])
    base = triad_design(p) if design == "triad" else quad_design(p)
    base4 = _levels4(base)
    design_rng = stream(seed, "adaptive-mlds-simulation", "design")
    cycle = np.concatenate([design_rng.permutation(len(base)) for _ in range(n_trials // len(base) + 1)])
    response_rng = stream(seed, "adaptive-mlds-simulation", "responses")
    start = 2 * batch if start is None else start
    levels = np.zeros((0, 4), np.int64)
    responses = np.zeros(0, np.int64)
    candidates = [("s", tuple(int(v) for v in row)) for row in base]
    trials, rmse, scale, step = [], [], None, 0
    f = Link(link)
    while len(responses) < n_trials:
        take = min(batch, n_trials - len(responses))
        if strategy == "random" or len(responses) < start or scale is None:    # the cold start: random
            picked = cycle[len(responses): len(responses) + take]
        else:
            picked = choose_trials({"s": scale}, candidates, take, observed={"s": levels}, link=link, ridge=ridge,
                                   random_share=random_share, seed=seed, key=("simulation", step)).indices
        new = base4[picked]
        delta = decision_variable(psi, new) / sigma
        answer = (response_rng.random(len(new)) < f.inverse(delta)).astype(np.int64)
        levels, responses = np.vstack([levels, new]), np.concatenate([responses, answer])
        scale = fit_scale(levels, responses, p, link)
        step += 1
        trials.append(len(responses))
        rmse.append(np.nan if scale is None else
                    float(np.sqrt(np.mean((scale[1:-1] / scale[-1] - true_standard[1:-1]) ** 2))))
    return AdaptiveRun(np.array(trials), np.array(rmse), levels, responses, scale)
