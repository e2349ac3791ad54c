"""Simulated cue-conflict observers with a planted shape bias: the ground truth of the shape-bias tests.

Each observer answers every cue-conflict image (a shape class and a different texture class, named
``<shape><k>-<texture><m>.png``) with the shape class with probability ``p_shape``, with the texture class
with probability ``p_texture`` and with one of the other classes otherwise; its true shape bias is
``p_shape / (p_shape + p_texture)``. See docs/measures/model-vs-human-report.md.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...resampling.rng import normalise_seed, stream
from ...trials.schema import CLASSES_16, validate_trials

__all__ = ["simulate_cue_conflict"]


def simulate_cue_conflict(seed=0, *, n_images_per_class: int = 10, n_same_class: int = 1,
                          observers: Mapping[str, tuple[str, float, float]] | None = None,
                          classes=CLASSES_16, validate: bool = True) -> pd.DataFrame:
    """A cue-conflict trial table with planted shape and texture decision probabilities.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the responses (and of the texture classes of the images). Each observer's responses come from
        a stream of their own (``humanlike.resampling.rng.stream(seed, "shapebias-responses", name)``) and the
        images from another, so an observer's responses do not depend on which others are simulated. A
        Generator is asked for one root seed (:func:`humanlike.resampling.rng.normalise_seed`).
    n_images_per_class : int
        Conflict images per shape class.
    n_same_class : int
        Images per class whose texture class equals the shape class (the analysis must drop them).
    observers : mapping, optional
        ``{name: (kind, p_shape, p_texture)}``; default: 5 humans (0.9, 0.04) and two models (0.2, 0.7)
        and (0.5, 0.4).
    classes : sequence of str
        The classes.
    validate : bool
        Return a validated trial table.

    Returns
    -------
    pandas.DataFrame
        Trial table (experiment ``cue-conflict``, condition ``0``).

    Examples
    --------
    >>> t = simulate_cue_conflict(seed=0)
    >>> len(t), t["observer"].nunique(), t["item"].iloc[0]
    (1232, 7, 'airplane1-bear1.png')

    An observer's responses are the same whoever else is simulated:

    >>> one = simulate_cue_conflict(seed=0, observers={"model-texture": ("model", 0.2, 0.7)})
    >>> one["response"].tolist() == t.loc[t["observer"] == "model-texture", "response"].tolist()
    True
    """
    root = seed if isinstance(seed, np.random.SeedSequence) else normalise_seed(seed)
    images = stream(root, "shapebias-images")
    if observers is None:
        observers = {**{f"subject-{k:02d}": ("human", 0.9, 0.04) for k in range(1, 6)},
                     "model-texture": ("model", 0.2, 0.7), "model-balanced": ("model", 0.5, 0.4)}
    classes = list(classes)
    items, shapes, textures = [], [], []
    for c, shape in enumerate(classes):
        others = [x for x in classes if x != shape]
        for k in range(n_images_per_class):
            texture = others[(c + k) % len(others)] if k < len(others) else others[images.integers(len(others))]
            items.append(f"{shape}{k + 1}-{texture}{k % 3 + 1}.png")
            shapes.append(shape)
            textures.append(texture)
        for k in range(n_same_class):
            items.append(f"{shape}{n_images_per_class + k + 1}-{shape}{k + 1}.png")
            shapes.append(shape)
            textures.append(shape)
    shapes_arr, textures_arr = np.array(shapes), np.array(textures)
    names = np.array(classes)
    code = {c: k for k, c in enumerate(classes)}
    s_code, t_code = np.array([code[x] for x in shapes]), np.array([code[x] for x in textures])
    lo, hi = np.minimum(s_code, t_code), np.maximum(s_code, t_code)
    frames = []
    for name, (kind, p_shape, p_texture) in observers.items():
        if not (0 <= p_shape and 0 <= p_texture and p_shape + p_texture <= 1):
            raise ValueError(f"observer {name}: need p_shape, p_texture >= 0 with sum <= 1")
        responses = stream(root, "shapebias-responses", name)
        u = responses.random(len(items))
        # a third class, uniform over the classes other than shape and texture: skip past lo and hi
        r = responses.integers(0, len(classes) - 2, size=len(items))
        r = r + (r >= lo)
        r = r + (r >= hi)
        third = names[r]
        response = np.where(u < p_shape, shapes_arr, np.where(u < p_shape + p_texture, textures_arr, third))
        frames.append(pd.DataFrame({"observer": name, "observer_kind": kind, "experiment": "cue-conflict",
                                    "condition": "0", "item": items, "label": shapes_arr, "response": response,
                                    "correct": response == shapes_arr}))
    trials = pd.concat(frames, ignore_index=True)
    return validate_trials(trials) if validate else trials
