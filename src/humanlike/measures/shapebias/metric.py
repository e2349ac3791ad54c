"""Shape bias on cue-conflict images (Geirhos et al. 2019), as model-vs-human defines it.

A cue-conflict image carries the shape of one class and the texture of another. Its name ends with
``<shape><k>-<texture><m>.png`` (``dog10-bird2.png``: a dog's shape with a bird's texture); the shape class
is the trial's true label (model-vs-human's ``category`` column), the texture class is the name's last
part with its digits removed. Over the trials whose shape and texture classes differ, the shape bias is

    shape decisions / (shape decisions + texture decisions)

Every function works on arrays of counts, so a whole bootstrap (resamples x observers) goes through one call.
See docs/measures/model-vs-human-report.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...trials.schema import TrialTableError

__all__ = ["REASON_NO_CUE_DECISION", "shape_bias", "shape_bias_table", "texture_class", "texture_classes"]

#: Why a shape bias is undefined: neither the shape nor the texture class was ever chosen.
REASON_NO_CUE_DECISION = "no shape or texture decision"


def texture_class(image_name: str) -> str:
    """The texture class of a cue-conflict image name, parsed as model-vs-human parses it.

    The part after the last ``_`` (a human file's trial prefix is dropped), without its extension, after
    its last ``-``, without digits.

    Parameters
    ----------
    image_name : str
        E.g. ``"0002_s5n_s01_0_bird_00_bird2-clock3.png"`` or ``"bird2-clock3.png"``.

    Returns
    -------
    str
        The texture class (``"clock"``).

    Raises
    ------
    TrialTableError
        When the name has no ``-`` (it is not a cue-conflict image name).

    Examples
    --------
    >>> texture_class("0002_s5n_s01_0_bird_00_bird2-clock3.png"), texture_class("dog10-bird2.png")
    ('clock', 'bird')
    """
    return str(texture_classes(pd.Series([image_name])).iloc[0])


def texture_classes(image_names: pd.Series) -> pd.Series:
    """:func:`texture_class` of every name of a Series (vectorised string operations).

    Parameters
    ----------
    image_names : pandas.Series of str
        Cue-conflict image names.

    Returns
    -------
    pandas.Series of str
        The texture classes, same index.

    Raises
    ------
    TrialTableError
        Naming the first image whose name has no ``<shape>-<texture>`` part.

    Examples
    --------
    >>> texture_classes(pd.Series(["cat1-dog3.png", "oven10-oven2.png"])).tolist()
    ['dog', 'oven']
    """
    last = image_names.astype(str).str.rsplit("_", n=1).str[-1]
    stem = last.str.split(".", n=1).str[0]
    bad = ~stem.str.contains("-", regex=False)
    if bad.any():
        raise TrialTableError(f"image '{image_names[bad].iloc[0]}' is not a cue-conflict image name: the shape "
                              "bias needs names ending in '<shape><k>-<texture><m>.png' (e.g. 'dog10-bird2.png')")
    return stem.str.rsplit("-", n=1).str[-1].str.replace(r"\d", "", regex=True)


def shape_bias(shape_decisions, texture_decisions) -> np.ndarray:
    """Shape decisions / (shape + texture decisions), elementwise; NaN where both are 0.

    Parameters
    ----------
    shape_decisions, texture_decisions : array-like
        Counts (or weighted counts) of trials answered with the shape class and with the texture class,
        over cue-conflict trials whose two classes differ.

    Returns
    -------
    numpy.ndarray of float
        The shape bias; NaN (reason :data:`REASON_NO_CUE_DECISION`) where no trial was answered with either.

    Examples
    --------
    >>> shape_bias([3, 0, 0], [1, 2, 0]).tolist()
    [0.75, 0.0, nan]
    """
    s = np.asarray(shape_decisions, dtype=float)
    t = np.asarray(texture_decisions, dtype=float)
    total = s + t
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, s / np.where(total > 0, total, 1.0), np.nan)


def shape_bias_table(trials: pd.DataFrame) -> pd.DataFrame:
    """Per observer and shape class, and per observer overall: the counts and the shape bias, plainly.

    The straightforward pandas computation (no resampling) that the resampled analysis
    (:func:`humanlike.measures.shapebias.analysis.shape_bias_analysis`) must reproduce; the rows with equal shape
    and texture class are dropped, as model-vs-human drops them.

    Parameters
    ----------
    trials : pandas.DataFrame
        Cue-conflict trials with columns observer, item, label, response.

    Returns
    -------
    pandas.DataFrame
        Columns observer, shape_class (``"overall"`` for all classes), trials, shape_decisions,
        texture_decisions, shape_bias.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": "a", "item": ["cat1-dog1.png", "cat2-dog2.png", "cat3-cat1.png"],
    ...                   "label": "cat", "response": ["cat", "dog", "cat"]})
    >>> shape_bias_table(t)[["shape_class", "trials", "shape_decisions", "shape_bias"]].values.tolist()
    [['cat', 2, 1, 0.5], ['overall', 2, 1, 0.5]]
    """
    texture = texture_classes(trials["item"])
    keep = (trials["label"] != texture).to_numpy()
    frame = pd.DataFrame({"observer": trials["observer"].to_numpy()[keep],
                          "shape_class": trials["label"].to_numpy()[keep],
                          "shape_decisions": (trials["response"] == trials["label"]).to_numpy()[keep].astype(int),
                          "texture_decisions": (trials["response"] == texture).to_numpy()[keep].astype(int)})
    frame["trials"] = 1
    per_class = frame.groupby(["observer", "shape_class"], as_index=False)[
        ["trials", "shape_decisions", "texture_decisions"]].sum()
    overall = per_class.groupby("observer", as_index=False)[["trials", "shape_decisions", "texture_decisions"]].sum()
    overall["shape_class"] = "overall"
    out = pd.concat([per_class, overall], ignore_index=True).sort_values(["observer", "shape_class"],
                                                                         ignore_index=True)
    out["shape_bias"] = shape_bias(out["shape_decisions"], out["texture_decisions"])
    return out[["observer", "shape_class", "trials", "shape_decisions", "texture_decisions", "shape_bias"]]
