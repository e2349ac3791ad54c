"""Shared pieces of the OOD-spectrum analysis: defaults, condition order, settings, JSON values."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...trials.schema import NO_ANSWER

METRICS = ("ec", "ma", "cled")

#: The undistorted conditions of model-vs-human used as the reference (4 observers each).
DEFAULT_REFERENCE: dict[str, str] = {
    "contrast": "c100",
    "rotation": "0",
    "high-pass": "inf",
    "low-pass": "0",
    "phase-scrambling": "0",
    "power-equalisation": "0",
    "colour": "bw",
}

#: A default family guess for the nine model-vs-human models: architecture lineage and training recipe.
#: The SWAG-pretrained vision transformers, the SWAG-pretrained RegNetYs, and the ResNet-50-style
#: networks (BagNet-33 is a ResNet-50 with small receptive fields; SimCLR uses a ResNet-50 backbone).
DEFAULT_FAMILIES: dict[str, str] = {
    "swag-vit-b16-in1k": "swag-vit",
    "swag-vit-l16-in1k": "swag-vit",
    "swag-vit-h14-in1k": "swag-vit",
    "swag-regnety-16gf-in1k": "swag-regnety",
    "swag-regnety-32gf-in1k": "swag-regnety",
    "swag-regnety-128gf-in1k": "swag-regnety",
    "bagnet33": "resnet",
    "resnet50": "resnet",
    "simclr-resnet50x1": "resnet",
}


def families_for(models: Sequence[str], families: Mapping[str, str] | None = None) -> dict[str, str]:
    """Family of each model: ``families`` where given, else :data:`DEFAULT_FAMILIES`, else the model itself.

    Parameters
    ----------
    models : sequence of str
        Model names.
    families : mapping of str to str, optional
        ``{model: family}``; replaces :data:`DEFAULT_FAMILIES` entirely when given.

    Returns
    -------
    dict of str to str
        ``{model: family}`` for every model (a model not in the table is its own family).

    Examples
    --------
    >>> families_for(["resnet50", "mine"])
    {'resnet50': 'resnet', 'mine': 'mine'}
    """
    table = DEFAULT_FAMILIES if families is None else families
    return {m: str(table.get(m, m)) for m in models}


def _level_key(condition: str):
    s = str(condition).strip().lower()
    if s == "inf":
        return (0, np.inf, s)
    match = re.search(r"-?\d+(?:\.\d+)?", s)
    if match:
        return (0, float(match.group()), s)
    return (1, 0.0, s)


def condition_order(conditions: Sequence[str], reference: str | None = None,
                    accuracy: Mapping[str, float] | None = None) -> list[str]:
    """Distortion levels in order, least distorted first.

    Levels are sorted by the first number in the condition string (``'inf'`` = infinity; non-numeric
    strings after the numeric ones, alphabetically); the order is then reversed when the ``reference``
    condition is last, or (without a reference in the list) when the human ``accuracy`` at the first level
    is below the accuracy at the last.

    Parameters
    ----------
    conditions : sequence of str
        The distortion levels of one experiment.
    reference : str, optional
        The undistorted condition, if it is among them.
    accuracy : mapping of str to float, optional
        Human accuracy per condition, used for the direction when there is no reference.

    Returns
    -------
    list of str
        The conditions, least distorted first.

    Examples
    --------
    >>> condition_order(["c05", "c100", "c50"], reference="c100")
    ['c100', 'c50', 'c05']
    """
    order = sorted((str(c) for c in conditions), key=_level_key)
    if len(order) < 2:
        return order
    if reference is not None and str(reference) in order:
        if order[-1] == str(reference):
            order = order[::-1]
    elif accuracy is not None:
        a0, a1 = accuracy.get(order[0], np.nan), accuracy.get(order[-1], np.nan)
        if np.isfinite(a0) and np.isfinite(a1) and a0 < a1:
            order = order[::-1]
    return order


def class_names(trials: pd.DataFrame, na_as_class: bool = False) -> tuple:
    """Sorted class names: the labels and every chosen class (the no-answer code only with ``na_as_class``).

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (``label`` and ``response`` columns).
    na_as_class : bool
        Count the no-answer code as a class.

    Returns
    -------
    tuple of str
        Sorted class names.

    Examples
    --------
    >>> import pandas as pd
    >>> class_names(pd.DataFrame({"label": ["dog", "cat"], "response": ["cat", "na"]}))
    ('cat', 'dog')
    >>> class_names(pd.DataFrame({"label": ["dog", "cat"], "response": ["cat", "na"]}), na_as_class=True)
    ('cat', 'dog', 'na')
    """
    found = set(trials["label"].unique().tolist()) | set(trials["response"].unique().tolist())
    if not na_as_class:
        found -= {NO_ANSWER}
    return tuple(sorted(found))


def check_choice(value, choices, name):
    """Raise a ValueError naming the option ``name`` and its choices unless ``value`` is one of ``choices``.

    Parameters
    ----------
    value : object
        The value given.
    choices : tuple
        The allowed values.
    name : str
        The option's name, for the message.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        When ``value`` is not among ``choices``.

    Examples
    --------
    >>> check_choice("ec", ("ec", "ma"), "metric")
    >>> check_choice("kappa", ("ec", "ma"), "metric")
    Traceback (most recent call last):
    ...
    ValueError: metric must be one of ('ec', 'ma'), got 'kappa'
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def plain(v):
    """A JSON-ready Python value (NaN -> None).

    Parameters
    ----------
    v : object
        A value, possibly a numpy scalar.

    Returns
    -------
    object
        A Python bool, int or float (None for a non-finite float); other values unchanged.

    Examples
    --------
    >>> plain(np.float64("nan")), plain(np.int64(3)), plain(np.float32(0.5)), plain("ec")
    (None, 3, 0.5, 'ec')
    """
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if not np.isfinite(v) else float(v)
    return v
