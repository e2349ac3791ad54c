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

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.streams import literal_stream

DESIGNS = ("triads", "quads")


def triad_design(n_levels: int) -> np.ndarray:
    """All C(n, 3) triads (a < b < c) of 1-based levels, in lexicographic order, as an (m, 3) array.

    Parameters
    ----------
    n_levels : int
        Number of levels of the sequence.

    Returns
    -------
    numpy.ndarray of int64, (C(n_levels, 3), 3)
        One triad per row.

    Examples
    --------
    >>> triad_design(4).tolist()
    [[1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 4]]
    >>> triad_design(7).shape
    (35, 3)
    """
    return np.array(list(itertools.combinations(range(1, int(n_levels) + 1), 3)), dtype=np.int64)


def quad_design(n_levels: int) -> np.ndarray:
    """All C(n, 4) quadruples (a < b < c < d) of 1-based levels, as an (m, 4) array.

    Parameters
    ----------
    n_levels : int
        Number of levels of the sequence.

    Returns
    -------
    numpy.ndarray of int64, (C(n_levels, 4), 4)
        One quadruple per row, in lexicographic order.

    Examples
    --------
    >>> quad_design(5).tolist()[:2], quad_design(7).shape
    ([[1, 2, 3, 4], [1, 2, 3, 5]], (35, 4))
    """
    return np.array(list(itertools.combinations(range(1, int(n_levels) + 1), 4)), dtype=np.int64)


def pairwise_distances(features) -> np.ndarray:
    """ℓ2 distances between the levels of each sequence: (..., levels, dims) -> (..., levels, levels).

    Parameters
    ----------
    features : array_like, (..., levels, dims)
        One feature vector per level of each sequence.

    Returns
    -------
    numpy.ndarray, (..., levels, levels)
        Symmetric distance matrices with a zero diagonal.

    Examples
    --------
    >>> pairwise_distances([[0, 0], [3, 4], [6, 8]]).tolist()
    [[0.0, 5.0, 10.0], [5.0, 0.0, 5.0], [10.0, 5.0, 0.0]]
    """
    f = np.asarray(features, dtype=np.float64)
    n = f.shape[-2]
    out = np.zeros(f.shape[:-2] + (n, n))
    # Direct differences, not the Gram-matrix identity: its cancellation leaves residues of ~1e-4 on
    # large vectors, enough to break the exact ties that equal blend steps produce.
    for i in range(n):
        out[..., i, :] = np.sqrt(np.sum((f - f[..., i:i + 1, :]) ** 2, axis=-1))
    return out


def pair_differences(distances, design) -> np.ndarray:
    """d(second pair) − d(first pair) for every trial of ``design`` (1-based levels).

    Triads (a, b, c) compare (a, b) with (b, c); quadruples (a, b, c, d) compare (a, b) with (c, d).
    A positive value means the second pair differs more (response R = 1).

    Parameters
    ----------
    distances : array_like, (..., levels, levels)
        Distance matrices, e.g. from :func:`pairwise_distances`.
    design : array_like of int, (m, 3) or (m, 4)
        Triads or quadruples of 1-based levels.

    Returns
    -------
    numpy.ndarray, (..., m)
        The distance difference of each trial.

    Raises
    ------
    ValueError
        If ``design`` is not (m, 3) or (m, 4) or names a level outside 1..levels.

    Examples
    --------
    >>> d = pairwise_distances([[0, 0], [3, 4], [6, 8], [6, 9]])
    >>> pair_differences(d, [[1, 2, 3], [2, 3, 4]]).tolist()
    [0.0, -4.0]
    """
    d = np.asarray(distances, dtype=np.float64)
    design = np.asarray(design, dtype=np.int64) - 1
    if design.ndim != 2 or design.shape[1] not in (3, 4):
        raise ValueError("design must be an (m, 3) triad or (m, 4) quadruple array")
    if design.min() < 0 or design.max() >= d.shape[-1]:
        raise ValueError(f"design levels must lie in 1..{d.shape[-1]}")
    if design.shape[1] == 3:
        first = d[..., design[:, 0], design[:, 1]]
        second = d[..., design[:, 1], design[:, 2]]
    else:
        first = d[..., design[:, 0], design[:, 1]]
        second = d[..., design[:, 2], design[:, 3]]
    return second - first


def tie_mask(differences, distances, rtol: float = 1e-9) -> np.ndarray:
    """Trials whose two distances are equal up to ``rtol`` of the sequence's largest distance.

    Exact ties are common (a pixel observer on a blend sequence sees equal steps as equal) and a tiny
    floating-point residue must not decide them.

    Parameters
    ----------
    differences : array_like, (..., m)
        Distance differences from :func:`pair_differences`.
    distances : array_like, (..., levels, levels)
        The distance matrices they came from (sets the scale of the tolerance).
    rtol : float, default 1e-9
        Tolerance relative to the largest distance of each sequence.

    Returns
    -------
    numpy.ndarray of bool, (..., m)
        True where the trial is a tie.

    Examples
    --------
    >>> d = pairwise_distances([[0, 0], [3, 4], [6, 8]])
    >>> tie_mask(np.array([1e-12, 5.0]), d).tolist()
    [True, False]
    """
    diff = np.asarray(differences, dtype=np.float64)
    dmax = np.max(np.asarray(distances, dtype=np.float64), axis=(-1, -2))
    return np.abs(diff) <= rtol * np.maximum(dmax, np.finfo(float).tiny)[..., None]


def seeded_stream(seed: int, *key) -> np.random.Generator:
    """A Generator determined by ``seed`` and ``key`` alone.

    :func:`humanlike.trials.streams.literal_stream`: the construction of ``humanlike.resampling.rng.stream``
    (the key parts hashed, blake2b, into the spawn key of a ``SeedSequence``) with the key hashed as written.

    Parameters
    ----------
    seed : int
        The run's seed.
    *key
        Parts of the stream's name (their ``repr`` is hashed), e.g. ``("ties", "pixel")``.

    Returns
    -------
    numpy.random.Generator
        A fresh generator; the same seed and key always give the same draws.

    Examples
    --------
    >>> first = seeded_stream(0, "ties", "pixel").random(3)
    >>> bool((first == seeded_stream(0, "ties", "pixel").random(3)).all())
    True
    >>> bool((first == seeded_stream(0, "ties", "gabor").random(3)).any())
    False
    """
    return literal_stream(seed, *key)


def design_for(kind: str, n_levels: int) -> np.ndarray:
    """All triads or all quadruples of ``n_levels`` levels (1-based).

    Parameters
    ----------
    kind : {"triads", "quads"}
        The trial design.
    n_levels : int
        Number of levels of the sequence.

    Returns
    -------
    numpy.ndarray of int64, (m, 3) or (m, 4)
        One trial per row (see :func:`triad_design`).

    Raises
    ------
    ValueError
        For an unknown ``kind``.

    Examples
    --------
    >>> design_for("triads", 7).shape, design_for("quads", 4).tolist()
    ((35, 3), [[1, 2, 3, 4]])
    """
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

    Examples
    --------
    >>> bank = GaborBank(wavelengths=(4.0,), orientations=2)
    >>> kernels = bank.kernels_fft((8, 8))
    >>> kernels.shape, bank.responses(np.zeros((8, 8)), kernels).shape
    ((2, 8, 8), (2, 2, 2))

    The filters have zero mean, so a uniform image gives no response:

    >>> float(np.abs(bank.responses(np.full((8, 8), 100.0), kernels)).max()) < 1e-9
    True
    """

    wavelengths: tuple = (4.0, 8.0, 16.0)
    orientations: int = 4
    bandwidth: float = 0.56
    stride: int = 4

    def kernels_fft(self, shape: tuple[int, int]) -> np.ndarray:
        """Frequency responses (filters, H, W) of the zero-mean complex Gabors for images of ``shape``.

        Parameters
        ----------
        shape : tuple of int
            Image size (H, W).

        Returns
        -------
        numpy.ndarray of complex, (len(wavelengths) * orientations, H, W)
            The filters' 2-D FFTs, wavelength-major.
        """
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
        """Complex responses (filters, H/stride, W/stride) of one grey image.

        Parameters
        ----------
        image : numpy.ndarray, (H, W)
            A grey image.
        kernels_fft : numpy.ndarray, (filters, H, W)
            From :meth:`kernels_fft` for this image size.

        Returns
        -------
        numpy.ndarray of complex, (filters, ceil(H/stride), ceil(W/stride))
            The filter responses, sampled every ``stride`` pixels (their modulus is the energy).
        """
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
    sequences : humanlike.measures.psychscore.sequences.SequenceSet or humanlike.measures.psychscore.sequences.ManifestSequences
        The blend sequences.
    observer : {"pixel", "gabor"}, default "pixel"
        The feature space: the blurred grey image, or the energy of a Gabor bank.
    bank : GaborBank, optional
        The filter bank of the ``gabor`` observer (default ``GaborBank()``).

    Returns
    -------
    numpy.ndarray, (sequences, levels, levels)
        One distance matrix per row of ``sequences.pairs``.

    Raises
    ------
    ValueError
        For an unknown observer.

    Examples
    --------
    >>> from humanlike.measures.psychscore.sequences import ObjectImages, build_sequences
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> d = sequence_distances(sequences, "pixel")
    >>> d.shape, round(float(d[0, 0, 2]), 2), round(float(d[0, 0, 1]), 2)  # 12 differing pixels
    ((1, 3, 3), 883.35, 441.67)
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
    observer_kind : str, default "model"
        Value of the ``observer_kind`` column.

    Returns
    -------
    DataFrame
        One row per trial in the judgement-table layout: observer, scale (the sequence), s1..s4 (s4
        missing for triads), response, observer_kind, class_a, class_b, tie (whether the two distances
        were equal and the response a coin flip).

    Raises
    ------
    ValueError
        If ``distances`` is not one square matrix per sequence.

    Examples
    --------
    >>> from humanlike.measures.psychscore.sequences import ObjectImages, build_sequences
    >>> square = np.full((8, 8), 255.0); square[2:6, 2:6] = 0
    >>> bar = np.full((8, 8), 255.0); bar[1:7, 3:5] = 0
    >>> objects = ObjectImages({"bar": bar[None], "square": square[None]},
    ...                        {"bar": bar[None] < 128, "square": square[None] < 128},
    ...                        {"bar": ["bar1"], "square": ["square1"]})
    >>> sequences = build_sequences(objects, n_levels=3, blur=0)
    >>> t = judgements_from_distances(sequence_distances(sequences), sequences.pairs, "pixel")
    >>> t[["scale", "s1", "s2", "s3", "tie"]].values.tolist()  # equal blend steps: a tie, broken by a coin
    [['bar-square-00', 1, 2, 3, True]]
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
    """A coin-flip observer: R ~ Bernoulli(½) on every trial of every sequence (the chance baseline).

    Parameters
    ----------
    pairs : pandas.DataFrame
        One row per sequence with ``sequence, class_a, class_b`` (``SequenceSet.pairs``).
    n_levels : int
        Number of levels per sequence.
    design : {"triads", "quads"}, default "triads"
        The trials judged.
    seed : int, default 0
        Seed of the coin flips.
    observer : str, default "random"
        The observer's name in the table.

    Returns
    -------
    pandas.DataFrame
        One row per trial in the judgement-table layout (see :func:`judgements_from_distances`, without
        ``tie``), ``observer_kind`` ``"random"``.

    Examples
    --------
    >>> pairs = pd.DataFrame({"sequence": ["a-b-00"], "class_a": ["a"], "class_b": ["b"]})
    >>> t = random_judgements(pairs, n_levels=7, seed=1)
    >>> len(t), sorted(set(t["response"])) == [0, 1]
    (35, True)
    """
    trials = design_for(design, n_levels)
    response = (seeded_stream(seed, "random-observer", observer).random((len(pairs), len(trials))) < 0.5)
    return _table(pairs, trials, response.astype(np.int8), observer, "random", None)


def _table(pairs: pd.DataFrame, trials: np.ndarray, response: np.ndarray, observer: str, kind: str,
           ties) -> pd.DataFrame:
    """Rows in the difference-judgement table's layout (:mod:`humanlike.trials.judgements`): ``scale`` is
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
