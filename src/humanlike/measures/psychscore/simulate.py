"""A simulated human population for the Psychophysical-Score: people judging blend sequences by MLDS.

Every class pair (A, B) has a planted class-level perceptual scale ψ(α) = α^γ with
log γ ~ N(0, ``exponent_sd``²) (γ < 1 compressive, γ > 1 expansive), so its planted skewness is
1 − 2·mean(interior α_i^γ). Each instance sequence deviates from it (log γ_seq = log γ + N(0,
``instance_sd``²)), and each person judges every triad (or quadruple) of every sequence once with
their own noise σ_o ~ U(``noise``) in standard-scale units: P(R = 1) = Φ(δ/σ_o), δ = ψ_a − 2ψ_b + ψ_c
(quadruples ψ_a − ψ_b − ψ_c + ψ_d). This is the MLDS observer model, so pooling a class pair's trials
and fitting MLDS recovers the planted scale up to the instance spread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .blending import blend_alphas
from ..mlds.observers import design_for, seeded_stream


@dataclass(frozen=True)
class SimulatedPopulation:
    """Judgements of a simulated population and the truth they were drawn from.

    Built by :func:`simulate_population`.

    Attributes
    ----------
    judgements : pandas.DataFrame
        One row per trial in the judgement-table layout (observer, scale = the sequence, s1..s4,
        response) plus observer_kind = "human", class_a, class_b.
    planted : pandas.DataFrame
        One row per class pair with the planted exponent ``gamma`` and skewness ``skewness``.
    noise : pandas.Series
        σ per observer (standard-scale units), indexed by observer name.

    Examples
    --------
    >>> pairs = pd.DataFrame({"sequence": ["a-b-0"], "class_a": "a", "class_b": "b"})
    >>> pop = simulate_population(pairs, n_observers=3, seed=1)
    >>> pop.planted[["class_a", "class_b"]].values.tolist(), pop.noise.index.tolist()
    ([['a', 'b']], ['subject-01', 'subject-02', 'subject-03'])
    >>> bool(((pop.noise >= 0.08) & (pop.noise <= 0.2)).all())
    True
    """

    judgements: pd.DataFrame
    planted: pd.DataFrame
    noise: pd.Series


def simulate_population(pairs: pd.DataFrame, n_levels: int = 7, n_observers: int = 10,
                        design: str = "triads", exponent_sd: float = 0.5, instance_sd: float = 0.15,
                        noise: tuple[float, float] = (0.08, 0.2), seed: int = 0,
                        response_seed: int | None = None) -> SimulatedPopulation:
    """Simulate a population judging every trial of every sequence once.

    Parameters
    ----------
    pairs : DataFrame
        One row per sequence with ``sequence, class_a, class_b`` (``SequenceSet.pairs`` or the unique
        sequences of a manifest).
    n_levels : int
        Levels per sequence.
    n_observers : int
        People (``subject-01`` …).
    design : {"triads", "quads"}
    exponent_sd, instance_sd : float
        Spread of log γ between class pairs, and between the sequences of one class pair.
    noise : (low, high)
        Range of the people's σ (standard-scale units).
    seed : int
        Seed of the planted scales (and, by default, of everything else).
    response_seed : int, optional
        Seed of the people's noise levels and responses: the same planted scales judged anew.

    Returns
    -------
    SimulatedPopulation

    Examples
    --------
    >>> pairs = pd.DataFrame({"sequence": ["a-b-0", "a-b-1"], "class_a": "a", "class_b": "b"})
    >>> pop = simulate_population(pairs, n_observers=2, seed=1)
    >>> len(pop.judgements), sorted(pop.judgements["observer"].unique())
    (140, ['subject-01', 'subject-02'])
    """
    from scipy import special
    if n_observers < 1:
        raise ValueError("n_observers must be at least 1")
    lo, hi = noise
    if not 0 < lo <= hi:
        raise ValueError(f"noise must be a range 0 < low <= high, got {noise}")
    for col in ("sequence", "class_a", "class_b"):
        if col not in pairs:
            raise ValueError(f"pairs lack the column {col!r}")
    pairs = pairs.drop_duplicates("sequence").reset_index(drop=True)
    alphas = blend_alphas(n_levels)
    trials = design_for(design, n_levels) - 1
    class_pairs = sorted(set(zip(pairs["class_a"], pairs["class_b"])))
    log_gamma = {cp: seeded_stream(seed, "planted", *cp).normal(0.0, exponent_sd) for cp in class_pairs}
    seq_log_gamma = np.array([
        log_gamma[(a, b)] + seeded_stream(seed, "instance", s).normal(0.0, instance_sd)
        for s, a, b in zip(pairs["sequence"], pairs["class_a"], pairs["class_b"])])
    psi = alphas[None, :] ** np.exp(seq_log_gamma)[:, None]                      # (sequences, levels)
    if trials.shape[1] == 3:
        delta = psi[:, trials[:, 0]] - 2 * psi[:, trials[:, 1]] + psi[:, trials[:, 2]]
    else:
        delta = psi[:, trials[:, 0]] - psi[:, trials[:, 1]] - psi[:, trials[:, 2]] + psi[:, trials[:, 3]]
    names = [f"subject-{k + 1:02d}" for k in range(n_observers)]
    seed_r = seed if response_seed is None else response_seed
    sigma = np.array([seeded_stream(seed_r, "noise", n).uniform(lo, hi) for n in names])
    frames = []
    n_seq, n_trials = delta.shape
    for name, s in zip(names, sigma):
        u = seeded_stream(seed_r, "responses", name).random(delta.shape)
        response = (u < special.ndtr(delta / s)).astype(np.int8)
        frame = pd.DataFrame({"observer": name, "scale": np.repeat(pairs["sequence"].to_numpy(), n_trials)})
        for k in range(4):
            frame[f"s{k + 1}"] = (pd.array(np.tile(trials[:, k] + 1, n_seq), dtype="Int64") if k < trials.shape[1]
                                  else pd.array([pd.NA] * len(frame), dtype="Int64"))
        frame["response"] = response.ravel().astype(int)
        frame["observer_kind"] = "human"
        frame["class_a"] = np.repeat(pairs["class_a"].to_numpy(), n_trials)
        frame["class_b"] = np.repeat(pairs["class_b"].to_numpy(), n_trials)
        frames.append(frame)
    gamma = np.exp([log_gamma[cp] for cp in class_pairs])
    # The planted standard scale alphas ** gamma runs from 0 to 1 already, so its skewness is 1 - 2 mean(interior):
    # humanlike.measures.psychscore.metric.scale_skewness, written out because the data layer does not import metrics
    # (a test holds the two equal).
    planted_skewness = 1.0 - 2.0 * np.mean(alphas[None, 1:-1] ** gamma[:, None], axis=1)
    planted = pd.DataFrame({
        "class_a": [cp[0] for cp in class_pairs], "class_b": [cp[1] for cp in class_pairs],
        "gamma": gamma, "skewness": planted_skewness})
    return SimulatedPopulation(pd.concat(frames, ignore_index=True), planted,
                               pd.Series(sigma, index=names, name="sigma"))


def simulate_psychscore_demo(n_classes: int = 8, sequences_per_pair: int = 3, n_humans: int = 6,
                             seed: int = 0) -> pd.DataFrame:
    """Judgements for the built-in demo, no images needed: a human population and two model observers
    on abstract class pairs (``class-01`` …).

    ``model-humanlike`` shares the humans' planted scales and judges anew (its score should be high);
    ``model-alien`` has scales of its own (score near 0).

    Parameters
    ----------
    n_classes : int, default 8
        Number of classes; every pair of them is a class pair.
    sequences_per_pair : int, default 3
        Sequences per class pair.
    n_humans : int, default 6
        Simulated people (``subject-01`` …).
    seed : int, default 0
        Seed of everything.

    Returns
    -------
    pandas.DataFrame
        Triad judgements of all observers in the judgement-table layout (see
        :class:`SimulatedPopulation`); each model is two pooled simulated observers renamed.

    Examples
    --------
    >>> demo = simulate_psychscore_demo(n_classes=3, n_humans=1)
    >>> sorted(demo["observer"].unique())
    ['model-alien', 'model-humanlike', 'subject-01']
    >>> int(demo["scale"].nunique()), len(demo)  # 3 class pairs x 3 sequences; 35 triads, 5 simulated people
    (9, 1575)
    """
    import itertools

    classes = [f"class-{k + 1:02d}" for k in range(n_classes)]
    pairs = pd.DataFrame([{"sequence": f"{a}-{b}-{k:02d}", "class_a": a, "class_b": b}
                          for a, b in itertools.combinations(classes, 2) for k in range(sequences_per_pair)])
    humans = simulate_population(pairs, n_observers=n_humans, seed=seed).judgements
    like = simulate_population(pairs, n_observers=2, seed=seed, response_seed=seed + 1).judgements
    alien = simulate_population(pairs, n_observers=2, seed=seed + 2).judgements
    like = like.assign(observer="model-humanlike", observer_kind="model")
    alien = alien.assign(observer="model-alien", observer_kind="model")
    return pd.concat([humans, like, alien], ignore_index=True)
