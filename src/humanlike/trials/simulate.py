"""Simulated observers: humanlike's built-in data and the ground truth the tests check against.

Two generators:

* the **copy model** (Klein et al., docs/measures/error-consistency.md) for one pair of correctness sequences with a planted
  error consistency (:func:`simulate_copy_pair`, :func:`simulate_copy_counts`);
* **signal-detection observers** for whole trial tables (:func:`simulate_sdt_observers`) and a seeded
  simulated benchmark (:func:`simulate_benchmark`, the default data of ``humanlike demo``).

Layering: ``data`` imports nothing of ours but ``data``, so the few lines of copy-model algebra needed here
are repeated (they agree with :mod:`humanlike.measures.ec.copy_model`, which the tests check), and randomness
comes from :func:`humanlike.trials.streams.generator` (``numpy.random.default_rng``'s derivation, which
``humanlike.resampling.rng.make_rng`` is too: an int / SeedSequence seeds a new Generator, a Generator passes
through).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from humanlike.trials.schema import CLASSES_16, validate_trials
from humanlike.trials.streams import generator

_TOL = 1e-9


# --------------------------------------------------------------------------------------------------
# copy model
# --------------------------------------------------------------------------------------------------


def _copy_cells(kappa: float, a1: float, a2: float) -> np.ndarray:
    """Cell probabilities (p11, p10, p01, p00) for accuracies a1, a2 and kappa; ValueError if impossible."""
    kappa, a1, a2 = float(kappa), float(a1), float(a2)
    if not (0.0 <= a1 <= 1.0 and 0.0 <= a2 <= 1.0):
        raise ValueError(f"accuracies must lie in [0, 1]; got a1={a1}, a2={a2}")
    if not np.isfinite(kappa) or not -1.0 <= kappa <= 1.0:
        raise ValueError(f"kappa must be a number in [-1, 1]; got {kappa}")
    one_minus_cexp = a1 * (1 - a2) + a2 * (1 - a1)
    if one_minus_cexp == 0.0 and kappa != 0.0:
        raise ValueError(f"kappa={kappa} cannot be realised: both observers are constant (a1={a1}, a2={a2})")
    p11 = a1 * a2 + kappa * one_minus_cexp / 2.0
    cells = np.array([p11, a1 - p11, a2 - p11, 1.0 - a1 - a2 + p11])
    if np.any(cells < -_TOL):
        raise ValueError(
            f"kappa={kappa:.6g} cannot be realised with accuracies a1={a1:.6g}, a2={a2:.6g} "
            "(outside [kappa_min, kappa_max])"
        )
    cells = np.clip(cells, 0.0, 1.0)
    return cells / cells.sum()


def _copy_parameters(kappa: float, a1: float, a2: float) -> tuple[float, float]:
    """(c, u2) of the copy model; c < 0 means inverted copies (see humanlike.measures.ec.copy_model)."""
    _copy_cells(kappa, a1, a2)  # range check
    den = 2.0 * a1 * (1.0 - a1)
    if den == 0.0:
        return 0.0, a2  # constant observer 1: kappa is 0, represent as independent
    c = float(np.clip(kappa * (a1 * (1 - a2) + a2 * (1 - a1)) / den, -1.0, 1.0))
    if abs(c) >= 1.0 - 1e-12:
        return c, a2
    copied = abs(c) * (a1 if c >= 0 else 1.0 - a1)
    return c, float(np.clip((a2 - copied) / (1.0 - abs(c)), 0.0, 1.0))


def exact_copy_counts(n_trials: int, kappa: float, a1: float, a2: float) -> tuple[int, int, int, int]:
    """The 2x2 counts (a, b, c, d) closest to accuracies a1, a2 and kappa for ``n_trials`` trials.

    Correct counts ``k1 = round(n a1)``, ``k2 = round(n a2)``; then ``a`` solves
    ``c_obs = c_exp + kappa (1 - c_exp)`` with ``a = (n c_obs - n + k1 + k2) / 2`` using the *realised*
    margins, and of the two neighbouring integers (inside the feasible range) the one whose kappa is closer
    to the target is taken. Kappa of the result equals the target up to that rounding.

    Parameters
    ----------
    n_trials : int
        Number of trials (at least 1).
    kappa : float
        Target error consistency.
    a1, a2 : float
        Target accuracies in [0, 1].

    Returns
    -------
    a, b, c, d : int
        Both correct, only the first correct, only the second correct, both wrong.

    Raises
    ------
    ValueError
        If ``n_trials < 1`` or the accuracies cannot produce ``kappa``.

    Examples
    --------
    >>> exact_copy_counts(100, 0.5, 0.8, 0.8)  # kappa = 2(72*12 - 8*8) / (80*20 + 80*20) = 0.5
    (72, 8, 8, 12)
    """
    n = int(n_trials)
    if n < 1:
        raise ValueError("n_trials must be at least 1")
    _copy_cells(kappa, a1, a2)
    k1, k2 = int(round(n * a1)), int(round(n * a2))
    p1, p2 = k1 / n, k2 / n
    c_exp = p1 * p2 + (1 - p1) * (1 - p2)
    lo, hi = max(0, k1 + k2 - n), min(k1, k2)
    if c_exp >= 1.0:
        a = lo  # both realised observers constant: the table is forced
    else:
        c_obs = c_exp + kappa * (1 - c_exp)
        target = (n * c_obs - n + k1 + k2) / 2.0
        candidates = {int(np.clip(np.floor(target), lo, hi)), int(np.clip(np.ceil(target), lo, hi))}

        def kap(x):
            return (2.0 * x + n - k1 - k2) / n - c_exp

        a = min(sorted(candidates), key=lambda x: abs(kap(x) / (1 - c_exp) - kappa))
    return a, k1 - a, k2 - a, n - k1 - k2 + a


def simulate_copy_pair(n_trials: int, kappa: float, a1: float, a2: float, seed=None, exact: bool = False):
    """Two aligned boolean correctness arrays from the copy model with accuracies a1, a2 and kappa ``kappa``.

    ``exact=False``: observer 1 ~ Bernoulli(u1 = a1); each item is copied (kappa >= 0) or inverted
    (kappa < 0) with probability ``|c|``; the others ~ Bernoulli(u2), with (u2, c) from
    :func:`humanlike.measures.ec.copy_model.latent_accuracies`. Accuracies and kappa hold in expectation.

    ``exact=True``: the trials of the table :func:`exact_copy_counts` (kappa and accuracies equal to the
    targets up to rounding to whole trials), in random order.

    Parameters
    ----------
    n_trials : int
        Number of trials (at least 1).
    kappa : float
        Planted error consistency.
    a1, a2 : float
        Accuracies of the two observers, in [0, 1].
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of the draws.
    exact : bool, default False
        Whether the table is exact (see above) rather than drawn.

    Returns
    -------
    x, y : numpy.ndarray of bool, (n_trials,)
        Correctness of observer 1 and observer 2 on each trial.

    Raises
    ------
    ValueError
        When the accuracies cannot produce ``kappa``, or ``n_trials < 1``.

    Examples
    --------
    >>> x, y = simulate_copy_pair(100, 0.5, 0.8, 0.8, seed=0, exact=True)
    >>> int((x & y).sum()), int(x.sum()), int(y.sum())
    (72, 80, 80)
    >>> x, y = simulate_copy_pair(20000, 0.5, 0.8, 0.8, seed=0)
    >>> abs(float(x.mean()) - 0.8) < 0.02, abs(float((x == y).mean()) - 0.84) < 0.02
    (True, True)
    """
    rng = generator(seed)
    n = int(n_trials)
    if n < 1:
        raise ValueError("n_trials must be at least 1")
    if exact:
        a, b, c, d = exact_copy_counts(n, kappa, a1, a2)
        x = np.repeat([True, True, False, False], [a, b, c, d])
        y = np.repeat([True, False, True, False], [a, b, c, d])
        order = rng.permutation(n)
        return x[order], y[order]
    c, u2 = _copy_parameters(kappa, a1, a2)
    x = rng.random(n) < a1
    copy = rng.random(n) < abs(c)
    own = rng.random(n) < u2
    y = np.where(copy, x if c >= 0 else ~x, own)
    return x, y


def simulate_copy_counts(n_trials, kappa, a1, a2, size: int, seed=None) -> np.ndarray:
    """``size`` independent 2x2 tables (a, b, c, d) drawn from the copy model's cell probabilities.

    The draw is multinomial(n, cells), done as ``k1 ~ Bin(n, a1)``, ``a ~ Bin(k1, p11/a1)``,
    ``c ~ Bin(n-k1, p01/(1-a1))``.

    Parameters
    ----------
    n_trials : int or array_like of int
        Trials per table (at least 1); an array gives one set of tables per entry.
    kappa : float
        Planted error consistency.
    a1, a2 : float
        Accuracies in [0, 1].
    size : int
        Number of tables per ``n_trials`` entry.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of the draws.

    Returns
    -------
    numpy.ndarray of int64
        Shape ``(size, 4)`` (columns a, b, c, d) for a scalar ``n_trials``, ``(size, len(n_trials), 4)``
        for an array.

    Raises
    ------
    ValueError
        When the accuracies cannot produce ``kappa``, or some ``n_trials < 1``.

    Examples
    --------
    >>> tables = simulate_copy_counts(100, 0.5, 0.8, 0.8, size=5, seed=0)
    >>> tables.shape, tables.sum(axis=1).tolist()
    ((5, 4), [100, 100, 100, 100, 100])
    >>> simulate_copy_counts([50, 200], 0.5, 0.8, 0.8, size=3, seed=0).sum(axis=-1).tolist()
    [[50, 200], [50, 200], [50, 200]]
    """
    rng = generator(seed)
    p11, p10, p01, p00 = _copy_cells(kappa, a1, a2)
    n = np.asarray(n_trials, dtype=np.int64)
    if np.any(n < 1):
        raise ValueError("n_trials must be at least 1")
    shape = (int(size),) + n.shape
    p1 = p11 + p10
    k1 = rng.binomial(np.broadcast_to(n, shape), p1)
    q_a = p11 / p1 if p1 > 0 else 0.0
    q_c = p01 / (1.0 - p1) if p1 < 1 else 0.0
    a = rng.binomial(k1, min(max(q_a, 0.0), 1.0))
    c = rng.binomial(n - k1, min(max(q_c, 0.0), 1.0))
    return np.stack([a, k1 - a, c, n - k1 - c], axis=-1).astype(np.int64)


# --------------------------------------------------------------------------------------------------
# signal-detection observers
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SDTObserver:
    """One simulated observer of an n-alternative choice task (see :func:`simulate_sdt_observers`).

    Parameters
    ----------
    name : str
        Observer name in the trial table.
    kind : {"human", "model"}, default "human"
        Observer kind.
    noise_sd : float, default 1.0
        Internal noise added to every class evidence on every trial (humans > 0; models 0, so they are
        deterministic).
    sensitivity : float, default 1.0
        Multiplies the item's d'.
    bias : float, default 0.0
        SD of the observer's fixed additive class biases (drawn once per observer and experiment).
    shared : float, default 1.0
        Weight in [0, 1] of the item evidence shared with every other observer; ``1 - shared`` goes to
        item evidence of the observer's own (variance preserving mix), so ``shared = 1`` sees exactly the
        items humans see and ``shared = 0`` errs on unrelated items.
    rt_median : float, default 0.9
        Median reaction time in seconds (humans only).

    Raises
    ------
    ValueError
        For an unknown kind, ``shared`` outside [0, 1], or negative ``noise_sd`` / ``bias``.

    Examples
    --------
    >>> SDTObserver("model-a", "model", noise_sd=0.0, shared=0.5).shared
    0.5
    >>> SDTObserver("model-b", "robot")
    Traceback (most recent call last):
        ...
    ValueError: observer 'model-b': kind must be 'human' or 'model', got 'robot'
    """

    name: str
    kind: str = "human"
    noise_sd: float = 1.0
    sensitivity: float = 1.0
    bias: float = 0.0
    shared: float = 1.0
    rt_median: float = 0.9

    def __post_init__(self):
        if self.kind not in ("human", "model"):
            raise ValueError(f"observer {self.name!r}: kind must be 'human' or 'model', got {self.kind!r}")
        if not 0.0 <= self.shared <= 1.0:
            raise ValueError(f"observer {self.name!r}: shared must lie in [0, 1], got {self.shared}")
        if self.noise_sd < 0 or self.bias < 0:
            raise ValueError(f"observer {self.name!r}: noise_sd and bias must be >= 0")


def simulate_sdt_observers(
    observers: Sequence[SDTObserver],
    *,
    n_items: int = 160,
    classes: Sequence[str] = CLASSES_16,
    conditions: Mapping[str, float] | None = None,
    experiment: str = "sdt",
    dprime_mean: float = 2.5,
    dprime_sd: float = 1.0,
    confusion_sd: float = 0.6,
    margins: bool = True,
    seed=None,
    validate: bool = True,
) -> pd.DataFrame:
    """A trial table of signal-detection observers answering the same items (one row per response).

    Each condition (name -> d' multiplier, e.g. ``{"0": 1.0, "1": 0.6}``; the distortion lowers d') has
    ``n_items`` items with balanced labels. Item i of class y has a difficulty ``d_i ~ Normal(dprime_mean,
    dprime_sd)`` and confusion evidences ``z_ik ~ Normal(0, confusion_sd)`` shared by all observers. An
    observer with its own item draws ``(d'_i, z'_ik)`` sees, on each class k,

        e_k = sensitivity * m * D_i * [k == y] + Z_ik + bias_k + noise_sd * eps_k,

    with ``D_i = mu + sqrt(w) (d_i - mu) + sqrt(1 - w)(d'_i - mu)``, ``Z = sqrt(w) z + sqrt(1 - w) z'``,
    ``w = shared``, ``m`` the condition's multiplier, ``bias_k ~ Normal(0, bias)`` fixed per observer, and
    fresh ``eps ~ Normal(0, 1)`` per trial. The response is the class with the largest evidence.

    Models (``kind="model"``) get a ``decision_margin`` column when ``margins``: (e_y - max_{k != y} e_k) /
    sqrt(2), > 0 exactly when correct; humans get NaN there, a lognormal ``rt`` (slower when the margin is
    small) and a random trial order over the experiment. Item ids are ``{experiment}_{condition}_{i:04d}``.

    Parameters
    ----------
    observers : sequence of SDTObserver
        The observers (unique names).
    n_items : int, default 160
        Items per condition.
    classes : sequence of str, default the 16 model-vs-human classes
        Class names (at least two).
    conditions : mapping of str to float, optional
        Condition name -> d' multiplier; default ``{"0": 1.0}``.
    experiment : str, default "sdt"
        Value of the ``experiment`` column.
    dprime_mean, dprime_sd : float
        Mean and SD of the item difficulties d_i.
    confusion_sd : float, default 0.6
        SD of the confusion evidences.
    margins : bool, default True
        Whether to add the ``decision_margin`` column.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of every draw.
    validate : bool, default True
        Pass the table through :func:`humanlike.trials.schema.validate_trials`.

    Returns
    -------
    pandas.DataFrame
        One row per observer and item, in the trial-table layout.

    Raises
    ------
    ValueError
        For fewer than two classes, no observer or repeated observer names.

    Examples
    --------
    >>> table = simulate_sdt_observers([SDTObserver("h1"), SDTObserver("m1", "model", noise_sd=0.0)],
    ...                                n_items=32, classes=["a", "b", "c", "d"], seed=0)
    >>> len(table), sorted(table["observer"].unique())
    (64, ['h1', 'm1'])
    >>> model = table[table["observer"] == "m1"]
    >>> bool(((model["decision_margin"] > 0) == model["correct"]).all())
    True
    """
    rng = generator(seed)
    classes = np.asarray(list(classes), dtype=object)
    k = len(classes)
    if k < 2:
        raise ValueError("need at least two classes")
    if len(observers) == 0:
        raise ValueError("need at least one observer")
    names = [o.name for o in observers]
    if len(set(names)) != len(names):
        raise ValueError(f"observer names must be unique: {names}")
    conditions = {"0": 1.0} if conditions is None else dict(conditions)
    n_items = int(n_items)
    n_cond = len(conditions)
    n_total = n_cond * n_items

    multipliers = np.repeat(np.array(list(conditions.values()), dtype=float), n_items)
    cond_names = np.repeat(np.array([str(c) for c in conditions], dtype=object), n_items)
    item_index = np.tile(np.arange(n_items), n_cond)
    labels_idx = np.concatenate([rng.permutation(np.arange(n_items) % k) for _ in range(n_cond)])
    items = np.array(
        [f"{experiment}_{c}_{i:04d}" for c, i in zip(cond_names, item_index, strict=True)], dtype=object
    )
    onehot = np.zeros((n_total, k))
    onehot[np.arange(n_total), labels_idx] = 1.0

    shared_d = rng.normal(0.0, dprime_sd, n_total)
    shared_z = rng.normal(0.0, confusion_sd, (n_total, k))

    frames = []
    for obs in observers:
        own_d = rng.normal(0.0, dprime_sd, n_total)
        own_z = rng.normal(0.0, confusion_sd, (n_total, k))
        w = obs.shared
        dprime = dprime_mean + np.sqrt(w) * shared_d + np.sqrt(1.0 - w) * own_d
        confusion = np.sqrt(w) * shared_z + np.sqrt(1.0 - w) * own_z
        bias = rng.normal(0.0, obs.bias, k) if obs.bias > 0 else np.zeros(k)
        evidence = (obs.sensitivity * multipliers * dprime)[:, None] * onehot + confusion + bias
        if obs.noise_sd > 0:
            evidence = evidence + rng.normal(0.0, obs.noise_sd, (n_total, k))
        response_idx = np.argmax(evidence, axis=1)
        target = evidence[np.arange(n_total), labels_idx]
        others = np.where(onehot > 0, -np.inf, evidence).max(axis=1)
        margin = (target - others) / np.sqrt(2.0)
        correct = response_idx == labels_idx
        # Ties (probability zero) would make argmax pick a wrong class with margin 0: keep them consistent.
        margin = np.where(correct, np.maximum(margin, np.finfo(float).tiny), np.minimum(margin, 0.0))
        frame = {
            "observer": obs.name,
            "observer_kind": obs.kind,
            "experiment": experiment,
            "condition": cond_names,
            "item": items,
            "label": classes[labels_idx],
            "response": classes[response_idx],
            "correct": correct,
        }
        if obs.kind == "human":
            frame["trial"] = rng.permutation(n_total) + 1
            log_rt = np.log(obs.rt_median) - 0.15 * np.tanh(margin) + rng.normal(0.0, 0.3, n_total)
            frame["rt"] = np.exp(log_rt)
            if margins:
                frame["decision_margin"] = np.nan
        else:
            frame["trial"] = np.arange(n_total) + 1
            frame["rt"] = np.nan
            if margins:
                frame["decision_margin"] = margin
        frames.append(pd.DataFrame(frame))
    table = pd.concat(frames, ignore_index=True)
    return validate_trials(table) if validate else table


#: Default simulated models (noiseless; different shared weights, sensitivities and class biases).
#: "model-humanlike" comes close to the humans' own consistency; the others err on increasingly unrelated
#: items ("model-alien" shares nothing with the humans).
DEFAULT_MODELS: tuple[SDTObserver, ...] = (
    SDTObserver("model-humanlike", "model", noise_sd=0.0, sensitivity=0.65, bias=0.15, shared=0.7),
    SDTObserver("model-strong", "model", noise_sd=0.0, sensitivity=0.8, bias=0.1, shared=0.35),
    SDTObserver("model-medium", "model", noise_sd=0.0, sensitivity=0.6, bias=0.2, shared=0.25),
    SDTObserver("model-texture", "model", noise_sd=0.0, sensitivity=0.55, bias=0.3, shared=0.12),
    SDTObserver("model-alien", "model", noise_sd=0.0, sensitivity=0.6, bias=0.2, shared=0.0),
)

#: Default simulated experiments: name -> {condition (distortion level): d' multiplier}.
DEFAULT_EXPERIMENTS: dict[str, dict[str, float]] = {
    "sim-noise": {"0.00": 1.0, "0.10": 0.75, "0.20": 0.5, "0.35": 0.3},
    "sim-blur": {"0": 1.0, "3": 0.7, "7": 0.45, "15": 0.25},
    "sim-contrast": {"100": 1.0, "30": 0.8, "10": 0.55, "5": 0.35},
    "sim-rotation": {"0": 1.0, "90": 0.8, "180": 0.6, "270": 0.8},
}


def simulate_benchmark(
    seed=0,
    *,
    n_humans: int = 6,
    models: Sequence[SDTObserver] | None = None,
    experiments: Mapping[str, Mapping[str, float]] | None = None,
    n_items: int = 160,
    classes: Sequence[str] = CLASSES_16,
    human_noise_sd: float = 1.0,
    human_sensitivity_sd: float = 0.1,
    human_bias: float = 0.15,
    dprime_mean: float = 4.0,
    dprime_sd: float = 1.5,
    confusion_sd: float = 0.6,
) -> pd.DataFrame:
    """A seeded simulated model-vs-human-style benchmark (the default data of ``humanlike demo``).

    ``n_humans`` humans (``subject-01``...; internal noise ``human_noise_sd``, sensitivities
    ``~ Normal(1, human_sensitivity_sd)``, all on the shared item evidence) and ``models``
    (default :data:`DEFAULT_MODELS`) answer every item of every condition of ``experiments`` (default
    :data:`DEFAULT_EXPERIMENTS`: four experiments, four distortion levels each, lower d' with stronger
    distortion), ``n_items`` items per condition over the 16 model-vs-human classes. Models carry decision
    margins, humans reaction times. With the defaults human-human error consistency is clearly above
    model-human consistency for all models but ``model-humanlike``, which comes close to the humans.
    Same seed, same table (validated by :func:`humanlike.trials.schema.validate_trials`).

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, default 0
        Seed of the whole table.
    n_humans : int, default 6
        Number of simulated humans (>= 0).
    models : sequence of SDTObserver, optional
        The models; default :data:`DEFAULT_MODELS`.
    experiments : mapping, optional
        Experiment -> {condition: d' multiplier}; default :data:`DEFAULT_EXPERIMENTS`.
    n_items : int, default 160
        Items per condition.
    classes : sequence of str, default the 16 model-vs-human classes
        Class names.
    human_noise_sd, human_sensitivity_sd, human_bias : float
        The humans' internal noise, the spread of their sensitivities and their class-bias SD.
    dprime_mean, dprime_sd, confusion_sd : float
        Item difficulty and confusion parameters (see :func:`simulate_sdt_observers`).

    Returns
    -------
    pandas.DataFrame
        A validated trial table, one row per observer and item.

    Raises
    ------
    ValueError
        If ``n_humans < 0``.

    Examples
    --------
    >>> small = dict(n_humans=2, n_items=16, experiments={"sim-blur": {"0": 1.0, "7": 0.45}})
    >>> table = simulate_benchmark(0, **small)
    >>> len(table), table["observer"].nunique(), sorted(table["condition"].unique())  # (2 + 5) x 2 x 16
    (224, 7, ['0', '7'])
    >>> table.equals(simulate_benchmark(0, **small))
    True
    """
    rng = generator(seed)
    models = DEFAULT_MODELS if models is None else tuple(models)
    experiments = DEFAULT_EXPERIMENTS if experiments is None else experiments
    if n_humans < 0:
        raise ValueError("n_humans must be >= 0")
    sens = np.clip(rng.normal(1.0, human_sensitivity_sd, n_humans), 0.3, None)
    rt_median = np.exp(rng.normal(np.log(0.9), 0.15, n_humans))
    humans = [
        SDTObserver(f"subject-{i + 1:02d}", "human", noise_sd=human_noise_sd, sensitivity=float(sens[i]),
                    bias=human_bias, shared=1.0, rt_median=float(rt_median[i]))
        for i in range(n_humans)
    ]  # fmt: skip
    observers = humans + list(models)
    children = rng.spawn(len(experiments))
    frames = [
        simulate_sdt_observers(
            observers, n_items=n_items, classes=classes, conditions=conds, experiment=name,
            dprime_mean=dprime_mean, dprime_sd=dprime_sd, confusion_sd=confusion_sd, margins=True,
            seed=child, validate=False,
        )
        for (name, conds), child in zip(experiments.items(), children, strict=True)
    ]  # fmt: skip
    return validate_trials(pd.concat(frames, ignore_index=True))
