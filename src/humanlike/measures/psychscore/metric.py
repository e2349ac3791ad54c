"""Array kernels of the Psychophysical-Score (RichardWebster et al. 2023): the standard scale and its
skewness.

The stimuli's arithmetic (mask overlap, blends) is in :mod:`humanlike.measures.psychscore.blending`, the trial designs and the
distance-based observer's decision variables in :mod:`humanlike.measures.mlds.observers`.
"""

from __future__ import annotations

import numpy as np


def standard_scale(psi) -> np.ndarray:
    """ψ/ψ_p along the last axis (ψ_1 = 0 anchors the start); NaN where ψ_p is 0 or not finite.

    Parameters
    ----------
    psi : array_like, (..., levels)
        Perceptual scale values with ψ_1 = 0.

    Returns
    -------
    numpy.ndarray, (..., levels)
        The scale divided by its last value (so it ends at 1).

    Examples
    --------
    >>> standard_scale([0.0, 1.0, 4.0]).tolist()
    [0.0, 0.25, 1.0]
    """
    psi = np.asarray(psi, dtype=np.float64)
    last = psi[..., -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((last != 0) & np.isfinite(last), psi / np.where(last != 0, last, 1.0), np.nan)


def scale_skewness(scale) -> np.ndarray:
    """Skewness S of a standard scale (values 0 … 1 at the ends): S = 1 − 2·mean(interior values).

    For 7 levels this is eq. 2 of RichardWebster et al. as printed, S = −2((Σψ_i − 1)/5 − ½). Note the
    sign: a compressive (concave) scale, whose interior lies above the diagonal, gives S < 0, although
    the paper's text says the opposite; a linear scale gives 0. Reversing the sequence (A↔B) flips the
    sign, so every observer's class pairs must be oriented the same way.

    Parameters
    ----------
    scale : array (..., levels)
        Standard scales; any ψ with ψ_1 = 0 is normalised by its last value first.

    Returns
    -------
    numpy.ndarray or float
        The skewness per scale (NaN where the scale cannot be normalised).

    Raises
    ------
    ValueError
        If a scale has fewer than 3 levels.

    Examples
    --------
    >>> round(float(scale_skewness([0, 1/6, 2/6, 3/6, 4/6, 5/6, 1])), 12)        # linear
    0.0
    >>> round(float(scale_skewness(np.sqrt(np.linspace(0, 1, 7)))), 4)   # compressive
    -0.3688
    """
    s = standard_scale(scale)
    if s.shape[-1] < 3:
        raise ValueError("a scale needs at least 3 levels to have an interior")
    out = 1.0 - 2.0 * np.mean(s[..., 1:-1], axis=-1)
    return out[()] if out.ndim == 0 else out
