"""One seed semantics for every analysis: int, SeedSequence, Generator and None (docs/uncertainty.md, "Seeds").

Every entry takes ``settings=ResamplingSettings(seed=...)``; the seed becomes one int that the output records,
and passing that int back reproduces the numbers exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.dmc.analysis import decision_margin_consistency, dmc_settings
from humanlike.measures.dvc.choices import latent_correctness_correlation
from humanlike.measures.ec.analysis import error_consistency
from humanlike.measures.ec.benchmark import run_benchmark
from humanlike.measures.mlds.analysis import analyse_mlds
from humanlike.measures.mlds.simulate import simulate_judgements
from humanlike.measures.ood.analysis import ood_analysis
from humanlike.measures.psychscore.analysis import psychophysical_score
from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
from humanlike.resampling.rng import normalise_seed
from humanlike.resampling.settings import ResamplingSettings
from humanlike.trials.simulate import simulate_benchmark

TRIALS = simulate_benchmark(seed=0, n_humans=4, n_items=48)
ONE = ["sim-blur"]
REFERENCE = TRIALS.groupby("experiment")["condition"].first().to_dict()


def _settings(seed, base=None):
    return ResamplingSettings(n_resamples=30, seed=seed) if base is None else base(n_resamples=30, seed=seed)


# entry name -> (run(settings) -> result, result -> tidy frame, result -> recorded seed)
ENTRIES = {
    "error_consistency": (lambda s: error_consistency(TRIALS, experiments=ONE, settings=s),
                          lambda r: r.to_frame(), lambda r: r.settings["seed"]),
    "run_benchmark": (lambda s: run_benchmark(TRIALS, exclusions=None, experiments=ONE, settings=s),
                      lambda r: r.rows, lambda r: r.details.settings["seed"]),
    "decision_margin_consistency": (
        lambda s: decision_margin_consistency(TRIALS, experiments=ONE, settings=dmc_settings(s)),
        lambda r: r.to_frame(), lambda r: r.settings["seed"]),
    "latent_correctness_correlation": (
        lambda s: latent_correctness_correlation(TRIALS, experiments=ONE, settings=s),
        lambda r: r.to_frame(), lambda r: r.to_json_dict()["settings"]["seed"]),
    "ood_analysis": (lambda s: ood_analysis(TRIALS, REFERENCE, settings=s, n_observer_resamples=10,
                                            n_permutations=9, regimes=2, n_init=2),
                     lambda r: r.resampled.to_frame(), lambda r: r.settings["seed"]),
    "psychophysical_score": (
        lambda s: psychophysical_score(simulate_psychscore_demo(n_classes=3, n_humans=2), settings=s),
        lambda r: r.to_frame(), lambda r: r.to_json_dict()["settings"]["seed"]),
    "analyse_mlds": (
        lambda s: analyse_mlds(simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0), settings=s),
        lambda r: r.to_frame(), lambda r: r.to_json_dict()["settings"]["seed"]),
}


@pytest.fixture(scope="module")
def by_int():
    return {name: run(_settings(7)) for name, (run, _, _) in ENTRIES.items()}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_every_seed_type_is_accepted_recorded_and_reproducible(name, by_int):
    run, frame, recorded = ENTRIES[name]
    reference = by_int[name]
    assert recorded(reference) == 7
    # a SeedSequence without a spawn key is its entropy: the same numbers as the int
    from_sequence = run(_settings(np.random.SeedSequence(7)))
    assert recorded(from_sequence) == 7
    pd.testing.assert_frame_equal(frame(from_sequence), frame(reference))
    # a Generator, a spawned SeedSequence and None each become one recorded int that reproduces the run
    for seed in (np.random.default_rng(3), np.random.SeedSequence(7).spawn(2)[1], None):
        result = run(_settings(seed))
        kept = recorded(result)
        assert isinstance(kept, int) and kept >= 0
        pd.testing.assert_frame_equal(frame(run(_settings(kept))), frame(result))


def test_normalise_seed_rules():
    assert normalise_seed(5) == 5 and normalise_seed(np.int64(5)) == 5
    assert normalise_seed(np.random.SeedSequence(5)) == 5
    child = np.random.SeedSequence(5).spawn(1)[0]
    assert normalise_seed(child) == normalise_seed(np.random.SeedSequence(5).spawn(1)[0]) != 5
    assert normalise_seed(np.random.default_rng(1)) == normalise_seed(np.random.default_rng(1))
    assert normalise_seed(None) != normalise_seed(None)  # fresh entropy each time
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            normalise_seed(bad)
    assert ResamplingSettings(seed=np.random.SeedSequence(9)).seed == 9
    assert ResamplingSettings(seed=np.random.SeedSequence(9)).to_dict()["seed"] == 9


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_older_loose_keywords_are_refused(name):
    run, _, _ = ENTRIES[name]
    entry = {"error_consistency": error_consistency, "run_benchmark": run_benchmark,
             "decision_margin_consistency": decision_margin_consistency,
             "latent_correctness_correlation": latent_correctness_correlation,
             "ood_analysis": ood_analysis, "psychophysical_score": psychophysical_score,
             "analyse_mlds": analyse_mlds}[name]
    with pytest.raises(TypeError):
        entry(TRIALS, n_resamples=10, seed=0)
