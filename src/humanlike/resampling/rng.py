"""The one way randomness enters humanlike: an explicit seed, and one stream per key.

``make_rng(seed)`` turns a seed into a Generator. ``stream(seed, *key)`` gives the Generator of one named
stratum (an experiment and condition, a class, an observer group, a block of resamples): its numbers depend
on the seed and the key only, so a result never changes with chunk size, with which other strata were
selected, or with the order of the data.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from ..trials.names import stream_label

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def make_rng(seed: SeedLike = None) -> np.random.Generator:
    """Return a Generator for ``seed`` (an int, a SeedSequence, or a Generator passed through).

    ``None`` gives fresh OS entropy; pass an int for reproducible numbers.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None, default None
        The seed; a Generator is returned unchanged.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> bool(make_rng(0).integers(10) == make_rng(0).integers(10))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def normalise_seed(seed: SeedLike) -> int:
    """The one integer root seed of a run, from any seed a user may pass; it is what outputs record.

    - an ``int`` (or numpy integer) of at least 0 is kept as it is;
    - a ``numpy.random.SeedSequence`` without a spawn key becomes its entropy: its streams are exactly those of
      that int (``stream`` builds ``SeedSequence(entropy, spawn_key=key)`` either way), so
      ``SeedSequence(0)`` and ``0`` give the same numbers; a spawned child (non-empty spawn key) or a
      sequence entropy becomes the 63-bit int its first state words give;
    - a ``numpy.random.Generator`` is asked for one 63-bit int (it advances by one draw);
    - ``None`` draws a 63-bit int from fresh OS entropy.

    In every case the returned int alone reproduces the run (pass it back as the seed), which is why outputs
    record it (see docs/uncertainty.md, "Seeds").

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        The seed as given.

    Returns
    -------
    int
        A non-negative integer seed.

    Raises
    ------
    ValueError
        For a negative int, a bool, or any other type.

    Examples
    --------
    >>> normalise_seed(5), normalise_seed(np.random.SeedSequence(5))
    (5, 5)
    >>> normalise_seed(np.random.default_rng(1)) == normalise_seed(np.random.default_rng(1))
    True
    """
    if isinstance(seed, (bool, np.bool_)):
        raise ValueError(f"seed must be a non-negative integer, a SeedSequence, a Generator or None, not {seed!r}")
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return int(seed)
    if isinstance(seed, np.random.SeedSequence):
        if not seed.spawn_key and isinstance(seed.entropy, (int, np.integer)):
            return int(seed.entropy)
        return _int63(seed)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1, dtype=np.int64))
    if seed is None:
        return _int63(np.random.SeedSequence())
    raise ValueError(f"seed must be a non-negative integer, a SeedSequence, a Generator or None, "
                     f"not {type(seed).__name__}")


def _int63(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _key_words(key: tuple) -> tuple[int, ...]:
    """A stable tuple of 32-bit words for a key of strings and integers (independent of ``PYTHONHASHSEED``)."""
    words: tuple[int, ...] = ()
    for part in key:
        try:
            words += _part_words(part)
        except TypeError:  # an unhashable part: not cached
            words += _part_words.__wrapped__(part)
    return words


@functools.lru_cache(maxsize=65536, typed=True)
def _part_words(part) -> tuple[int, int]:
    # Cached: a run draws thousands of streams whose keys share their parts (kind, experiment, condition).
    # typed=True keeps 3 and np.int64(3) apart, as their reprs (and so their words) differ.
    # A label that spells a number is hashed in its canonical spelling (``0.90``, ``0.9``; ``1``, ``1.0``), here
    # for every stream, so that no caller keying a stream by a label as read can make numbers depend on how
    # pandas or a user spelled it.
    part = stream_label(part)
    digest = hashlib.blake2b(repr(part).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest[0:4], "little"), int.from_bytes(digest[4:8], "little")


def _root_entropy(seed: int | np.random.SeedSequence) -> int | tuple:
    """The entropy of a seed: an int seed as is, a SeedSequence's entropy and spawn key."""
    if isinstance(seed, np.random.SeedSequence):
        return seed.entropy
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a stream needs an integer seed or a SeedSequence, not {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return int(seed)


def stream(seed: int | np.random.SeedSequence, *key) -> np.random.Generator:
    """The random stream of one key: a Generator determined by ``seed`` and ``key`` alone.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The run's seed (a Generator is not accepted: its state would make the stream depend on call order).
    *key : str or int
        The stratum's name, e.g. ``("items", "edge", "0", 3)``; a string that spells a number counts in its
        canonical spelling (:func:`humanlike.trials.names.stream_label`).

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> a = stream(0, "items", "edge").random()
    >>> b = stream(0, "items", "edge").random()
    >>> a == b, a == stream(0, "items", "sketch").random()
    (True, False)

    A label that spells a number names one stream however it is spelled:

    >>> stream(0, "items", "noise", "0.90").random() == stream(0, "items", "noise", "0.9").random()
    True
    """
    base_key = seed.spawn_key if isinstance(seed, np.random.SeedSequence) else ()
    sequence = np.random.SeedSequence(_root_entropy(seed), spawn_key=tuple(base_key) + _key_words(key))
    return np.random.Generator(np.random.PCG64(sequence))
