"""MLDS does not depend on row order (issue 22): at a fixed seed, any shuffle of a judgement table gives
the same fit, bootstrap, six-point and runs test to the bit (draws are keyed by what a row is)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humanlike.measures.mlds.analysis import analyse_mlds
from humanlike.trials.judgement_files import load_judgements
from humanlike.trials.judgements import canonical_order, validate_judgements
from humanlike.measures.mlds.simulate import simulate_judgements
from humanlike.resampling.settings import ResamplingSettings


def _analysis(table):
    results = analyse_mlds(table, settings=ResamplingSettings(n_resamples=100, seed=3), six_point=100, runs=50)
    return json.dumps(results.to_json_dict(), sort_keys=True)


@pytest.fixture(scope="module")
def autumn(shared_data):
    return load_judgements([shared_data / "mlds" / "AutumnLab.csv"])


@pytest.fixture(scope="module")
def autumn_reference(autumn):
    return _analysis(autumn)


@pytest.mark.realdata
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_shuffled_real_data_give_the_same_bytes(autumn, autumn_reference, seed):
    # Before: the six-point p moved 0.175 -> 0.192 and an interval bound 3.15 -> 2.85 under a shuffle.
    order = np.random.default_rng(seed).permutation(len(autumn))
    assert _analysis(autumn.iloc[order]) == autumn_reference


@pytest.mark.realdata
def test_pooled_sessions_are_row_order_free(shared_data):
    kk = load_judgements([shared_data / "mlds" / f"kk{k}.csv" for k in (1, 2, 3)])
    reference = analyse_mlds(kk, settings=ResamplingSettings(n_resamples=50, seed=1), six_point=50).to_json_dict()
    shuffled = analyse_mlds(kk.sample(frac=1, random_state=7), settings=ResamplingSettings(n_resamples=50, seed=1), six_point=50).to_json_dict()
    assert json.dumps(shuffled, sort_keys=True) == json.dumps(reference, sort_keys=True)


@settings(max_examples=20, deadline=None)
@given(perm_seed=st.integers(0, 2**32 - 1))
def test_canonical_order_is_the_same_for_every_permutation(perm_seed):
    table = validate_judgements(simulate_judgements(np.linspace(0, 1, 5), 0.3, repeats=2, seed=0))
    order = np.random.default_rng(perm_seed).permutation(len(table))
    assert canonical_order(table.iloc[order]).equals(canonical_order(table))


def test_runs_of_indistinguishable_repetitions_are_their_expectation():
    """Repetitions with nothing to order them count as the average over all their orders (sorting them by
    response would give too few runs): checked against every order of a small case."""
    from itertools import permutations

    from humanlike.measures.mlds.diagnostics import count_runs

    signs = np.array([True, False, True, False, False, True])
    groups = np.array([0, 1, 1, 1, 2, 3])           # rows 1..3: one trial three times
    brute = np.mean([count_runs(signs[[0, *p, 4, 5]], np.zeros(6)) for p in permutations([1, 2, 3])])
    assert count_runs(signs, np.zeros(6), groups) == pytest.approx(brute)
    assert count_runs(signs, np.zeros(6), np.arange(6)) == count_runs(signs, np.zeros(6))


@pytest.mark.realdata
def test_runs_test_does_not_sort_repetitions_by_response(shared_data):
    # triads_11levels repeats every triad five times with one trial number: sorted by response the runs
    # test gave p = 0.02 where the file order gives 0.93.
    from humanlike.measures.mlds.fit import fit_mlds
    from humanlike.measures.mlds.diagnostics import count_runs, runs_diagnostics
    from humanlike.measures.mlds.glm import deviance_residuals

    fit = fit_mlds(load_judgements([shared_data / "mlds" / "triads_11levels.csv"]))
    signs = deviance_residuals(fit.responses.astype(float), fit.fitted) > 0
    rng = np.random.default_rng(0)
    shuffled = [count_runs(signs[p], fit.fitted[p])
                for p in (np.lexsort((rng.random(fit.n_trials), fit.repeat_groups)) for _ in range(400))]
    runs = runs_diagnostics(fit, 300, seed=0)
    assert runs.observed_runs == pytest.approx(np.mean(shuffled), abs=4 * np.std(shuffled) / 20)
    assert runs.p_value > 0.2
