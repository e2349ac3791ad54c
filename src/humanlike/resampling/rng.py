"""The one way randomness enters humanlike: an explicit seed, and one stream per key.

``make_rng(seed)`` turns a seed into a Generator. ``stream(seed, *key)`` gives the Generator of one named
stratum (an experiment and condition, a class, an observer group, a block of resamples): its numbers depend
on the seed and the key only, so a result never changes with chunk size, with which other strata were
selected, or with the order of the data.

Both are made by :mod:`humanlike.trials.streams`, the one module that makes randomness (every layer may import
it; this module, the engine's, delegates to it): ``make_rng`` is its :func:`~humanlike.trials.streams.generator`,
``stream`` its :func:`~humanlike.trials.streams.keyed_stream`.
"""

from __future__ import annotations

import numpy as np

from ..trials.streams import entropy_seed, generator, keyed_stream

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
    return generator(seed)


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
        return entropy_seed()
    raise ValueError(f"seed must be a non-negative integer, a SeedSequence, a Generator or None, "
                     f"not {type(seed).__name__}")


def _int63(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1, np.uint64)[0] >> np.uint64(1))


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
    return keyed_stream(seed, *key)
