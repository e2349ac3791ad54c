"""Trials from known psychometric functions: planted thresholds, slopes and lapses to recover."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...resampling.rng import stream
from ...trials.schema import validate_trials
from .fit import predicted, sigmoid_inverse

CLASSES = ("airplane", "bear", "bicycle", "bird", "boat", "bottle", "car", "cat", "chair", "clock", "dog",
           "elephant", "keyboard", "knife", "oven", "truck")
LEVELS = (1, 2, 3, 5, 8, 13, 25, 50, 100)


def planted_location(threshold: float, scale: float, lapse: float, guess: float, *, sigmoid: str = "weibull",
                     direction: int = 1, level: float = 0.5) -> float:
    """The location (log10 space) that puts the accuracy ``level`` at ``threshold``.

    Parameters
    ----------
    threshold : float
        Stimulus level where the accuracy is ``level``.
    scale, lapse, guess : float
        The function's other parameters (scale in log10 units).
    sigmoid : str
    direction : {1, -1}
    level : float

    Returns
    -------
    float

    Examples
    --------
    >>> round(planted_location(10.0, 0.2, 0.0, 0.0, sigmoid="logistic"), 6)   # F = 0.5 at the location
    1.0
    """
    z = float(sigmoid_inverse(sigmoid, (level - guess) / (1.0 - guess - lapse)))
    return float(np.log10(threshold) - direction * scale * z)


def simulate_psychometric(seed: int = 0, *, threshold: float = 8.0, scale: float = 0.2, lapse: float = 0.03,
                          n_humans: int = 3, trials_per_level: int = 40, levels=LEVELS,
                          models: dict | None = None, sigmoid: str = "weibull",
                          experiment: str = "sim-contrast", validate: bool = True) -> pd.DataFrame:
    """A 16-class experiment whose conditions are contrast levels (``c01`` ...), each observer answering from a
    known psychometric function (guess 1/16, accuracy 0.5 at its threshold).

    Parameters
    ----------
    seed : int
        Seed (one stream per observer).
    threshold, scale, lapse : float
        The humans' function (every human the same); ``model-planted`` shares it.
    n_humans : int
    trials_per_level : int
        Trials per observer and level.
    levels : sequence of int
        Contrast levels in percent.
    models : dict, optional
        Model name -> (threshold, scale, lapse); default ``model-planted`` (the humans' function) and
        ``model-worse`` (threshold 4 times higher).
    sigmoid : str
        The sigmoid the responses follow (in log10 contrast).
    experiment : str
    validate : bool

    Returns
    -------
    pandas.DataFrame
        A trial table.

    Examples
    --------
    >>> t = simulate_psychometric(seed=0)
    >>> sorted(t["observer"].unique())[:2], t["condition"].nunique(), len(t)
    (['model-planted', 'model-worse'], 9, 1800)
    """
    models = {"model-planted": (threshold, scale, lapse), "model-worse": (4 * threshold, scale, lapse)} \
        if models is None else models
    guess = 1.0 / len(CLASSES)
    observers = {f"subject-{i + 1:02d}": ("human", threshold, scale, lapse) for i in range(n_humans)}
    observers.update({name: ("model", *p) for name, p in models.items()})
    x = np.log10(np.asarray(levels, dtype=float))
    frames = []
    for name, (kind, t, s, lam) in observers.items():
        rng = stream(seed, "psychfit-simulation", name)
        p = predicted(sigmoid, x, planted_location(t, s, lam, guess, sigmoid=sigmoid), s, lam, guess)
        n = len(levels) * trials_per_level
        level_index = np.repeat(np.arange(len(levels)), trials_per_level)
        label = np.arange(n) % len(CLASSES)          # an image's class is the same for every observer
        correct = rng.random(n) < p[level_index]
        wrong = (label + rng.integers(1, len(CLASSES), n)) % len(CLASSES)
        frames.append(pd.DataFrame({
            "observer": name, "observer_kind": kind, "experiment": experiment,
            "condition": [f"c{levels[i]:02d}" for i in level_index],
            "item": [f"img{j:04d}" for j in range(n)], "label": np.asarray(CLASSES)[label],
            "response": np.asarray(CLASSES)[np.where(correct, label, wrong)], "correct": correct}))
    trials = pd.concat(frames, ignore_index=True)
    return validate_trials(trials) if validate else trials
