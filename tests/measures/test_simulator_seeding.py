"""The measures' simulators draw from the one module that makes randomness (``humanlike.trials.streams``), and
their numbers are those of the local seedings they replaced (same seed, same simulated data as before)."""

from __future__ import annotations

import numpy as np

from humanlike.measures.dvc import simulate as dvc_simulate
from humanlike.measures.mlds import simulate as mlds_simulate
from humanlike.resampling import rng
from humanlike.trials import streams


def test_mlds_simulation_streams_are_the_ones_of_before(monkeypatch):
    drawn = mlds_simulate._stream(3, "mlds-design", "triad", "7").random(5)
    # before: default_rng(SeedSequence(seed, spawn_key=(code of the purpose, code of the design, levels)))
    before = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1, 3, 7))).random(5)
    np.testing.assert_array_equal(drawn, before)
    calls = []
    monkeypatch.setattr(mlds_simulate, "spawned_stream",
                        lambda seed, *words: calls.append((seed, words)) or streams.spawned_stream(seed, *words))
    mlds_simulate._stream(3, "mlds-responses", "quad", "5")
    assert calls == [(3, (2, 4, 5))]


def test_dvc_simulation_streams_are_the_ones_of_before(monkeypatch):
    np.testing.assert_array_equal(dvc_simulate._rng(5, 2).random(5), np.random.default_rng([5, 2]).random(5))
    calls = []
    monkeypatch.setattr(dvc_simulate, "generator", lambda seed: calls.append(seed) or streams.generator(seed))
    dvc_simulate._rng(5, 4)
    assert calls == [[5, 4]]


def test_mlds_observer_streams_are_the_ones_of_before():
    # before: the key parts' reprs hashed (blake2b) as written into the spawn key, no canonical spelling
    import hashlib

    from humanlike.measures.mlds.observers import seeded_stream

    for key in [("ties", "pixel"), ("noise", "0.90"), ("planted", "a", "b"), ("instance", 3)]:
        words = [int.from_bytes(hashlib.blake2b(repr(part).encode(), digest_size=8).digest()[i:i + 4], "little")
                 for part in key for i in (0, 4)]
        before = np.random.Generator(np.random.PCG64(np.random.SeedSequence(7, spawn_key=tuple(words)))).random(4)
        np.testing.assert_array_equal(seeded_stream(7, *key).random(4), before)


def test_shape_bias_simulation_draws_one_stream_per_observer(monkeypatch):
    from humanlike.measures.shapebias import simulate as shapebias_simulate

    keys = []
    monkeypatch.setattr(shapebias_simulate, "stream",
                        lambda seed, *key: keys.append((seed, key)) or rng.stream(seed, *key))
    observers = {"a": ("human", 0.9, 0.05), "b": ("model", 0.2, 0.7)}
    both = shapebias_simulate.simulate_cue_conflict(seed=4, n_images_per_class=20, observers=observers)
    assert keys == [(4, ("shapebias-images",)), (4, ("shapebias-responses", "a")), (4, ("shapebias-responses", "b"))]
    # each observer's responses are its stream's: the same alone, and in the other order
    alone = shapebias_simulate.simulate_cue_conflict(seed=4, n_images_per_class=20, observers={"b": observers["b"]})
    swapped = shapebias_simulate.simulate_cue_conflict(seed=4, n_images_per_class=20,
                                                       observers={"b": observers["b"], "a": observers["a"]})
    for other in (alone, swapped):
        assert (other.loc[other["observer"] == "b", "response"].tolist()
                == both.loc[both["observer"] == "b", "response"].tolist())
    # a Generator seed is asked for one root seed, as every seeded function of the package does
    generated = shapebias_simulate.simulate_cue_conflict(seed=np.random.default_rng(7), n_images_per_class=20,
                                                         observers=observers)
    root = rng.normalise_seed(np.random.default_rng(7))
    assert generated.equals(shapebias_simulate.simulate_cue_conflict(seed=root, n_images_per_class=20,
                                                                     observers=observers))
