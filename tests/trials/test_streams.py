"""The one module that makes randomness (``humanlike.trials.streams``): each derivation gives the numbers of the
construction it replaced, and the engine's ``resampling.rng`` is it."""

from __future__ import annotations

import numpy as np
import pytest

from humanlike.resampling import rng
from humanlike.trials import streams


@pytest.mark.parametrize("seed", [0, 5, 2**40, [3, 1], np.random.SeedSequence(4),
                                  np.random.SeedSequence(4, spawn_key=(2,))])
def test_generator_is_numpys_default_rng(seed):
    np.testing.assert_array_equal(streams.generator(seed).random(8), np.random.default_rng(seed).random(8))
    np.testing.assert_array_equal(rng.make_rng(seed).random(8), np.random.default_rng(seed).random(8))


def test_generator_passes_a_generator_through_and_wraps_a_bit_generator():
    g = np.random.default_rng(1)
    assert streams.generator(g) is g and rng.make_rng(g) is g
    np.testing.assert_array_equal(streams.generator(np.random.PCG64(3)).random(3),
                                  np.random.default_rng(np.random.PCG64(3)).random(3))
    with pytest.raises(ValueError):
        streams.generator(-1)


@pytest.mark.parametrize("seed", [0, 9, np.random.SeedSequence(6), np.random.SeedSequence(6, spawn_key=(1, 2))])
@pytest.mark.parametrize("key", [(), ("items", "edge", "0", 3), ("noise", "0.90"), (np.int64(3),)])
def test_the_engines_stream_is_the_keyed_stream(seed, key):
    np.testing.assert_array_equal(rng.stream(seed, *key).random(6), streams.keyed_stream(seed, *key).random(6))


def test_the_keyed_stream_is_its_seed_sequence():
    # the spawn key: the seed sequence's own, then two blake2b words per key part (canonical spelling)
    import hashlib

    words = tuple(int.from_bytes(hashlib.blake2b(repr(p).encode(), digest_size=8).digest()[i:i + 4], "little")
                  for p in ("items", "0.9") for i in (0, 4))
    expected = np.random.Generator(np.random.PCG64(np.random.SeedSequence(3, spawn_key=words))).random(5)
    np.testing.assert_array_equal(streams.keyed_stream(3, "items", "0.90").random(5), expected)
    np.testing.assert_array_equal(streams.literal_stream(3, "items", "0.9").random(5), expected)
    assert streams.literal_stream(3, "items", "0.90").random() != expected[0]


def test_spawned_stream_and_entropy_seed():
    np.testing.assert_array_equal(streams.spawned_stream(2, 1, 4).random(3),
                                  np.random.default_rng(np.random.SeedSequence(2, spawn_key=(1, 4))).random(3))
    seeds = {streams.entropy_seed() for _ in range(3)}
    assert len(seeds) == 3 and all(0 <= s < 2**63 for s in seeds)
    assert 0 <= rng.normalise_seed(None) < 2**63


def test_torch_seeded_forks_and_restores_the_global_generator():
    torch = pytest.importorskip("torch")
    torch.manual_seed(11)
    outside = torch.rand(2)
    torch.manual_seed(11)
    with streams.torch_seeded(torch, 0):
        inside = torch.rand(3)
    torch.manual_seed(0)
    assert torch.equal(inside, torch.rand(3))
    torch.manual_seed(11)
    with streams.torch_seeded(torch, 0):
        torch.rand(5)
    assert torch.equal(torch.rand(2), outside)
