"""Machine observers of difference-scaling sequences and the difference-judgement rows they produce.

A distance-based observer answers a triad (a, b, c) with R = 1 when the ℓ2 distance between the feature
vectors of b and c exceeds that of a and b (quadruples: (c, d) against (a, b)). Exact ties are common
for simple observers on blends (a pixel observer sees equal steps as equal) and are broken by a seeded
coin flip, as a forced-choice participant would. Observers here:

- ``pixel``: the blurred grey image itself;
- ``gabor``: the energy of a Gabor filter bank (quadrature pairs, 3 wavelengths × 4 orientations,
  sampled every 4 px);
- ``random``: a coin flip on every trial (the chance baseline);
- networks cut at a layer: :mod:`humanlike.models.observer` (optional torch extra).

Pixel and Gabor features of a blend are computed from the two end images: the filter responses are
linear in the image, so the blend's responses are the blend of the end responses, and only the
energy (a modulus) is taken per level. This is exact and 100x cheaper than filtering every level.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics.psychophysics import pair_differences, pairwise_distances, quad_design, tie_mask, triad_design

DESIGNS = ("triads", "quads")


def seeded_stream(seed: int, *key) -> np.random.Generator:
    """A Generator determined by ``seed`` and ``key`` alone (the same construction as
    ``humanlike.stats.rng.stream``, which the data layer may not import)."""
    words: list[int] = []
    for part in key:
        digest = hashlib.blake2b(repr(part).encode("utf-8"), digest_size=8).digest()
        words.extend(int.from_bytes(digest[i:i + 4], "little") for i in (0, 4))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=tuple(words))))


def design_for(kind: str, n_levels: int) -> np.ndarray:
    """All triads or all quadruples of ``n_levels`` levels (1-based)."""
    if kind not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, not {kind!r}")
    return triad_design(n_levels) if kind == "triads" else quad_design(n_levels)


@dataclass(frozen=True)
class GaborBank:
    """A bank of complex Gabor filters (quadrature pairs) applied through the FFT.

    Parameters
    ----------
    wavelengths : tuple of float
        Carrier wavelengths in pixels.
    orientations : int
        Equally spaced orientations in [0, π).
    bandwidth : float
        Envelope σ as a multiple of the wavelength (0.56 ≈ one octave).
    stride : int
        Sampling step of the energy maps.
    """

    wavelengths: tuple = (4.0, 8.0, 16.0)
    orientations: int = 4
    bandwidth: float = 0.56
    stride: int = 4

    def kernels_fft(self, shape: tuple[int, int]) -> np.ndarray:
        """Frequency responses (filters, H, W) of the zero-mean complex Gabors for images of ``shape``."""
        h, w = shape
        y = np.fft.fftfreq(h)[:, None] * h
        x = np.fft.fftfreq(w)[None, :] * w
        out = []
        for lam in self.wavelengths:
            sigma = self.bandwidth * lam
            for k in range(self.orientations):
                theta = np.pi * k / self.orientations
                xr = x * np.cos(theta) + y * np.sin(theta)
                envelope = np.exp(-(x ** 2 + y ** 2) / (2 * sigma ** 2))
                g = envelope * np.exp(2j * np.pi * xr / lam)
                g -= envelope * (g.sum() / envelope.sum())   # zero mean: blind to uniform brightness
                g /= np.abs(g).sum()
                out.append(np.fft.fft2(g))
        return np.stack(out)

    def responses(self, image: np.ndarray, kernels_fft: np.ndarray) -> np.ndarray:
        """Complex responses (filters, H/stride, W/stride) of one grey image."""
        spectrum = np.fft.fft2(np.asarray(image, dtype=np.float64))
        full = np.fft.ifft2(spectrum[None] * kernels_fft)
        return full[:, ::self.stride, ::self.stride]


def _end_features(sequences, observer: str, bank: GaborBank):
    cache: dict = {}
    kernels = None
    for rec in sequences.pairs.itertuples(index=False):
        ends = []
        for cls, idx in ((rec.class_a, rec.index_a), (rec.class_b, rec.index_b)):
            key = (cls, int(idx))
            if key not in cache:
                img = sequences.blurred_image(cls, int(idx))
                if observer == "pixel":
                    cache[key] = img.ravel()
                else:
                    if kernels is None:
                        kernels = bank.kernels_fft(img.shape)
                    cache[key] = bank.responses(img, kernels).ravel()
            ends.append(cache[key])
        yield ends


def sequence_distances(sequences, observer: str = "pixel", bank: GaborBank | None = None) -> np.ndarray:
    """ℓ2 distances between the levels of every sequence for the ``pixel`` or ``gabor`` observer.

    Parameters
    ----------
    sequences : humanlike.data.sequences.SequenceSet
    observer : {"pixel", "gabor"}
    bank : GaborBank, optional

    Returns
    -------
    array (sequences, levels, levels)
    """
    if observer not in ("pixel", "gabor"):
        raise ValueError(f"observer must be 'pixel' or 'gabor', not {observer!r}")
    bank = bank or GaborBank()
    alphas = sequences.alphas
    out = np.empty((len(sequences.pairs), len(alphas), len(alphas)))
    for row, (a, b) in enumerate(_end_features(sequences, observer, bank)):
        feats = a[None] * (1 - alphas[:, None]) + b[None] * alphas[:, None]
        if observer == "gabor":
            feats = np.abs(feats)
        out[row] = pairwise_distances(feats)
    return out


def judgements_from_distances(distances, pairs: pd.DataFrame, observer: str, design: str = "triads",
                              seed: int = 0, observer_kind: str = "model") -> pd.DataFrame:
    """Difference judgements of a distance-based observer on every trial of every sequence.

    Parameters
    ----------
    distances : array (sequences, levels, levels)
        Feature distances between levels, one matrix per row of ``pairs``.
    pairs : DataFrame
        One row per sequence with ``sequence, class_a, class_b`` (``SequenceSet.pairs``).
    observer : str
        The observer's name in the judgement table.
    design : {"triads", "quads"}
        All triads or all quadruples of the levels, each judged once (a deterministic observer gains
        nothing from repeats).
    seed : int
        Seed of the coin flips that break exact ties.

    Returns
    -------
    DataFrame
        One row per trial in the judgement-table layout: observer, scale (the sequence), s1..s4 (s4
        missing for triads), response, observer_kind, class_a, class_b, tie (whether the two distances
        were equal and the response a coin flip).
    """
    d = np.asarray(distances, dtype=np.float64)
    if d.ndim != 3 or d.shape[1] != d.shape[2] or len(d) != len(pairs):
        raise ValueError(f"distances must be (sequences, levels, levels) with one matrix per sequence; "
                         f"got {d.shape} for {len(pairs)} sequences")
    trials = design_for(design, d.shape[1])
    diff = pair_differences(d, trials)
    ties = tie_mask(diff, d)
    response = diff > 0
    if ties.any():
        flips = seeded_stream(seed, "ties", observer).random(ties.shape) < 0.5
        response = np.where(ties, flips, response)
    return _table(pairs, trials, response.astype(np.int8), observer, observer_kind, ties)


def random_judgements(pairs: pd.DataFrame, n_levels: int, design: str = "triads", seed: int = 0,
                      observer: str = "random") -> pd.DataFrame:
    """A coin-flip observer: R ~ Bernoulli(½) on every trial of every sequence (the chance baseline)."""
    trials = design_for(design, n_levels)
    response = (seeded_stream(seed, "random-observer", observer).random((len(pairs), len(trials))) < 0.5)
    return _table(pairs, trials, response.astype(np.int8), observer, "random", None)


def _table(pairs: pd.DataFrame, trials: np.ndarray, response: np.ndarray, observer: str, kind: str,
           ties) -> pd.DataFrame:
    """Rows in the difference-judgement table's layout (:mod:`humanlike.data.judgements`): ``scale`` is
    the sequence id, ``s4`` missing for triads; ``class_a``/``class_b`` name the class pair."""
    n_seq, n_trials = response.shape
    frame = pd.DataFrame({
        "observer": observer, "scale": np.repeat(pairs["sequence"].to_numpy(), n_trials)})
    for k in range(4):
        frame[f"s{k + 1}"] = (pd.array(np.tile(trials[:, k], n_seq), dtype="Int64") if k < trials.shape[1]
                              else pd.array([pd.NA] * len(frame), dtype="Int64"))
    frame["response"] = response.ravel().astype(int)
    frame["observer_kind"] = kind
    frame["class_a"] = np.repeat(pairs["class_a"].to_numpy(), n_trials)
    frame["class_b"] = np.repeat(pairs["class_b"].to_numpy(), n_trials)
    if ties is not None:
        frame["tie"] = np.asarray(ties).ravel()
    return frame
