"""The one module that makes randomness: every random Generator of humanlike is built here, from an explicit seed.

Every layer may import it (it sits in ``trials``, under the engine), so the simulators of the data layer, the
engine's streams (:mod:`humanlike.resampling.rng` delegates to this module), the measures, the web server and the
models all draw through it; ``tests/test_architecture.py`` fails on a generator or a seeding made anywhere else.
It offers one function per derivation of a seed in use, each named for what it does, so that a call site keeps
its numbers exactly (unify the place, not the numbers):

- :func:`keyed_stream` ``(seed, *key)``: the stream of one stratum, the key hashed in its canonical spelling
  (``humanlike.resampling.rng.stream``): the package's rule for every new draw;
- :func:`literal_stream` ``(seed, *key)``: the same construction with the key hashed as written (no canonical
  spelling of labels that spell numbers): the simulated observers of difference scaling and Psychophysical-Score;
- :func:`spawned_stream` ``(seed, *words)``: a stream whose spawn key is given as integer words (the
  difference-scaling simulator's fixed codes per purpose);
- :func:`generator` ``(seed)``: numpy's ``default_rng`` derivation (an int, a list of ints, a SeedSequence;
  a Generator passes through): the seeded functions that take any seed, and streams named by ``[seed, tag]``;
- :func:`entropy_seed`: a root seed from fresh OS entropy, the one place a run without a seed gets its seed;
- :func:`torch_seeded`: torch's global generator seeded for a block and restored after (the models extra).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Iterator

import numpy as np

from .names import stream_label


def _from_sequence(sequence: np.random.SeedSequence) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(sequence))


def generator(seed=None) -> np.random.Generator:
    """A Generator as ``numpy.random.default_rng(seed)`` makes it: the derivation of a plain seed.

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence, numpy.random.Generator or None, default None
        An int, a list of ints (``[seed, tag]`` names a stream by both) or a SeedSequence seeds a PCG64
        generator; a Generator is returned unchanged; ``None`` takes fresh OS entropy (not reproducible).

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> bool(generator(0).random() == np.random.default_rng(0).random())
    True
    >>> bool(generator([5, 2]).random() == generator([5, 3]).random())
    False
    >>> g = generator(1)
    >>> generator(g) is g
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.BitGenerator):
        return np.random.Generator(seed)
    return _from_sequence(seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed))


def spawned_stream(seed: int, *words: int) -> np.random.Generator:
    """The stream of ``SeedSequence(seed, spawn_key=words)``: a spawn key given as integer words.

    Parameters
    ----------
    seed : int
        The run's seed.
    *words : int
        The spawn key, non-negative integers (e.g. fixed codes of a purpose and a design).

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> a = spawned_stream(3, 1, 3, 7).random()
    >>> bool(a == np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1, 3, 7))).random())
    True
    >>> bool(a == spawned_stream(3, 2, 3, 7).random())
    False
    """
    return _from_sequence(np.random.SeedSequence(int(seed), spawn_key=tuple(int(w) for w in words)))


def _words(part) -> tuple[int, int]:
    digest = hashlib.blake2b(repr(part).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest[0:4], "little"), int.from_bytes(digest[4:8], "little")


@functools.lru_cache(maxsize=65536, typed=True)
def _part_words(part) -> tuple[int, int]:
    # Cached: a run draws thousands of streams whose keys share their parts (kind, experiment, condition).
    # typed=True keeps 3 and np.int64(3) apart, as their reprs (and so their words) differ.
    # A label that spells a number is hashed in its canonical spelling (``0.90``, ``0.9``; ``1``, ``1.0``), here
    # for every stream, so that no caller keying a stream by a label as read can make numbers depend on how
    # pandas or a user spelled it.
    return _words(stream_label(part))


def _key_words(key: tuple) -> tuple[int, ...]:
    """A stable tuple of 32-bit words for a key of strings and integers (independent of ``PYTHONHASHSEED``)."""
    words: tuple[int, ...] = ()
    for part in key:
        try:
            words += _part_words(part)
        except TypeError:  # an unhashable part: not cached
            words += _part_words.__wrapped__(part)
    return words


def _root_entropy(seed: int | np.random.SeedSequence) -> int | tuple:
    """The entropy of a seed: an int seed as is, a SeedSequence's entropy and spawn key."""
    if isinstance(seed, np.random.SeedSequence):
        return seed.entropy
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a stream needs an integer seed or a SeedSequence, not {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return int(seed)


def keyed_stream(seed: int | np.random.SeedSequence, *key) -> np.random.Generator:
    """The random stream of one key: a Generator determined by ``seed`` and ``key`` alone.

    Each part of the key is hashed (blake2b of its ``repr``, in its canonical spelling: a string that spells a
    number counts as that number's spelling, :func:`humanlike.trials.names.stream_label`) into two words of the
    spawn key of ``SeedSequence(seed, spawn_key=...)``; a SeedSequence seed adds its own spawn key in front.
    ``humanlike.resampling.rng.stream`` is this function.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The run's seed (a Generator is not accepted: its state would make the stream depend on call order).
    *key : str or int
        The stratum's name, e.g. ``("items", "edge", "0", 3)``.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> a = keyed_stream(0, "items", "edge").random()
    >>> bool(a == keyed_stream(0, "items", "edge").random()), bool(a == keyed_stream(0, "items", "sketch").random())
    (True, False)
    >>> bool(keyed_stream(0, "noise", "0.90").random() == keyed_stream(0, "noise", "0.9").random())
    True
    """
    base_key = seed.spawn_key if isinstance(seed, np.random.SeedSequence) else ()
    return _from_sequence(np.random.SeedSequence(_root_entropy(seed), spawn_key=tuple(base_key) + _key_words(key)))


def literal_stream(seed: int, *key) -> np.random.Generator:
    """The stream of a key hashed as written: :func:`keyed_stream`'s construction without the canonical spelling.

    Labels that spell a number keep their own stream per spelling (``"0.90"`` and ``"0.9"`` differ); for every
    other key it is :func:`keyed_stream` of an int seed. The simulated observers of difference scaling and of
    the Psychophysical-Score draw from it (their numbers since they were written).

    Parameters
    ----------
    seed : int
        The run's seed.
    *key
        Parts of the stream's name (their ``repr`` is hashed), e.g. ``("ties", "pixel")``.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> first = literal_stream(0, "ties", "pixel").random(3)
    >>> bool((first == literal_stream(0, "ties", "pixel").random(3)).all())
    True
    >>> bool((first == keyed_stream(0, "ties", "pixel").random(3)).all())
    True
    >>> bool(literal_stream(0, "noise", "0.90").random() == literal_stream(0, "noise", "0.9").random())
    False
    """
    words = tuple(w for part in key for w in _words(part))
    return _from_sequence(np.random.SeedSequence(int(seed), spawn_key=words))


def entropy_seed() -> int:
    """A non-negative 63-bit root seed from fresh OS entropy: what a run without a seed records and uses.

    Returns
    -------
    int

    Examples
    --------
    >>> 0 <= entropy_seed() < 2**63
    True
    """
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


@contextlib.contextmanager
def torch_seeded(torch, seed: int) -> Iterator[None]:
    """Inside the block, torch's global CPU generator is seeded with ``seed``; after it, restored as it was.

    Parameters
    ----------
    torch : module
        The ``torch`` module (passed in: only ``humanlike.models`` imports torch).
    seed : int
        The seed, e.g. of random initial weights that every worker and every run must share.

    Yields
    ------
    None

    Examples
    --------
    >>> import types, contextlib
    >>> calls = []
    >>> fake = types.SimpleNamespace(manual_seed=calls.append, random=types.SimpleNamespace(
    ...     fork_rng=lambda devices: contextlib.nullcontext()))
    >>> with torch_seeded(fake, 0):
    ...     pass
    >>> calls
    [0]
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield
