"""MLDS diagnostics: batched refits, separation checks, bootstrap, runs test, six-point test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from humanlike.trials.judgement_files import load_judgements
from humanlike.measures.mlds.simulate import decision_variables, simulate_judgements
from humanlike.resampling.draws import bernoulli_responses
from humanlike.measures.mlds.fit import fit_mlds
from humanlike.measures.mlds.diagnostics import (bootstrap_mlds, count_runs, runs_diagnostics, six_point_loglik,
                                              six_point_rows, six_point_test, six_point_weights)
from humanlike.measures.mlds.glm import irls, is_separable
from humanlike.measures.mlds.refit import finite_certificate, refit_many, separated_rows

REFERENCE = json.loads((Path(__file__).resolve().parents[2] / "reference" / "mlds_r_reference.json").read_text())


@pytest.fixture(scope="module")
def steep_fit():
    """A steep observer on few trials: many simulated replicates are separated."""
    return fit_mlds(simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.2, repeats=1, seed=3))


def test_separation_checks_agree_with_single_linear_programs(steep_fit):
    y = bernoulli_responses(0, ("t",), steep_fit.fitted, 0, 60).astype(float)
    batch = separated_rows(steep_fit.design, y)
    single = np.array([is_separable(steep_fit.design, row) for row in y])
    np.testing.assert_array_equal(batch, single)
    assert 0 < batch.sum() < len(y)
    fits = irls(steep_fit.design, y, "probit")
    certified = finite_certificate(steep_fit.design, y, fits.coefficients, "probit")
    assert not np.any(certified & batch)  # a certificate of finiteness is never wrong
    refits = refit_many(steep_fit.design, y, "probit")
    np.testing.assert_array_equal(refits.separated, batch)
    assert np.isnan(refits.scale[batch]).all() and np.isfinite(refits.scale[~batch]).all()


def test_refits_do_not_depend_on_the_chunking(steep_fit):
    small = bootstrap_mlds(steep_fit, 250, seed=4, memory_budget=2 * 1024**2)
    large = bootstrap_mlds(steep_fit, 250, seed=4)
    np.testing.assert_array_equal(small.result.replicates, large.result.replicates)
    assert small.separated_share == large.separated_share > 0
    share = small.result.undefined_share()
    assert np.allclose(share, small.separated_share)


def test_bootstrap_interval_covers_the_planted_sigma():
    """Coverage by simulation: 95% percentile intervals of sigma over 20 simulated observers."""
    psi, sigma = np.linspace(0, 1, 6) ** 1.5, 0.3
    covered = []
    for seed in range(20):
        fit = fit_mlds(simulate_judgements(psi, sigma, repeats=4, seed=100 + seed))
        low, high = bootstrap_mlds(fit, 150, seed=seed).result.where(quantity="sigma").interval()
        covered.append(low[0] <= sigma <= high[0])
    assert np.mean(covered) >= 0.75


def test_count_runs_uses_a_stable_order():
    signs = np.array([True, False, True, True, False])
    assert count_runs(signs, np.array([0.1, 0.2, 0.3, 0.4, 0.5])) == 3
    # Ties keep their original order, as R's sort(..., index.return = TRUE).
    assert count_runs(signs, np.zeros(5)) == 3


def test_six_point_rows_find_all_conditions_of_a_full_design():
    fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 7), 0.3, repeats=1, seed=1))
    rows = six_point_rows(fit.levels, fit.n_levels)
    assert len(rows) == 7  # C(7, 6): every a<b<c<a'<b'<c' of 7 levels
    lv = fit.levels[rows]
    np.testing.assert_array_equal(lv[:, 0, 1], lv[:, 1, 0])  # b is shared by A and B
    np.testing.assert_array_equal(lv[:, 2, [0, 1]], np.column_stack([lv[:, 0, 0], lv[:, 1, 1]]))
    with pytest.raises(ValueError, match="quadruples"):
        six_point_rows(np.array([[1, 2, 3, 0]]), 3)


def test_six_point_test_holds_its_level_on_additive_observers():
    psi = np.linspace(0, 1, 10) ** 0.7
    p = [six_point_test(fit_mlds(simulate_judgements(psi, 0.1, seed=seed)), 100, seed=seed).p_value
         for seed in range(10)]
    assert np.sum(np.array(p) < 0.05) <= 2


def test_six_point_test_rejects_a_non_additive_observer():
    """The observer follows the scale on narrow pairs but reverses it when both pairs are wide: the
    combined intervals (a, c; a', c') then contradict (a, b; a', b') and (b, c; b', c')."""
    psi = np.linspace(0, 1, 10) ** 0.7

    def reversing(table):
        s = table[["s1", "s2", "s3", "s4"]].to_numpy(int)
        delta = decision_variables(psi, table)
        wide = (s[:, 1] - s[:, 0] >= 2) & (s[:, 3] - s[:, 2] >= 2)
        return np.where(wide, -delta, delta)

    p = [six_point_test(fit_mlds(simulate_judgements(psi, 0.1, seed=seed, decision=reversing)), 100,
                        seed=seed).p_value for seed in range(8)]
    assert np.sum(np.array(p) < 0.05) >= 6


def test_runs_diagnostics_shapes_and_calibration():
    fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 8) ** 2, 0.2, repeats=2, seed=2))
    diag = runs_diagnostics(fit, 300, seed=1)
    assert diag.envelope_low.shape == (fit.n_trials,) and np.all(diag.envelope_low <= diag.envelope_high)
    assert 0 <= diag.p_value <= 1 and diag.outside_envelope < 0.2 * fit.n_trials
    assert diag.to_json_dict()["n_simulations"] == 300


def test_diagnostics_refuse_unusable_fits():
    separated = fit_mlds(simulate_judgements(np.linspace(0, 1, 7), 0.0, seed=1))
    with pytest.raises(ValueError, match="separated"):
        bootstrap_mlds(separated, 10)
    triads = fit_mlds(simulate_judgements(np.linspace(0, 1, 7), 0.2, design="triad", repeats=2, seed=1))
    with pytest.raises(ValueError, match="quadruples"):
        six_point_test(triads, 10)
    optim = fit_mlds(simulate_judgements(np.linspace(0, 1, 7), 0.2, repeats=2, seed=1), method="optim")
    with pytest.raises(ValueError, match="glm"):
        runs_diagnostics(optim, 10)


@pytest.mark.realdata
@pytest.mark.parametrize("name", [n for n, c in REFERENCE.items() if "lik6pt" in c])
def test_six_point_likelihood_and_runs_equal_r(shared_data, name):
    """Get6pts(fit, nrep) + lik6pt: on kk1+kk2+kk3 and on every Transparency observer the quadruples
    repeat, and every repetition counts (before: only the first, 462 of 1,386 and 210 of 420)."""
    case = REFERENCE[name]
    table = load_judgements([shared_data / "mlds" / f"{f}.csv" for f in case["files"].split("+")])
    if "observer" in case:
        table = table[table["observer"] == case["observer"]]
    fit = fit_mlds(table)
    rows = six_point_rows(fit.levels, fit.n_levels)
    weights, n_conditions = six_point_weights(fit.levels, fit.n_levels)
    assert len(rows) == n_conditions == case["n_six_point"]
    np.testing.assert_array_equal(weights, np.bincount(rows.ravel(), minlength=fit.n_trials))
    value = six_point_loglik(fit.responses[None, :].astype(float), fit.fitted[None, :], weights)[0]
    assert value == pytest.approx(case["lik6pt"], rel=1e-8)
    assert six_point_test(fit, 20, seed=0).observed == pytest.approx(case["lik6pt"], rel=1e-8)
    if "observed_runs" in case:
        assert runs_diagnostics(fit, 20, seed=0).observed_runs == case["observed_runs"]


def _get6pts_by_hand(levels, n_levels):
    """R's Get6pts(fit, nrep), transliterated loop by loop: per condition, the rows of each quadruple in
    row order, the k-th of the three paired."""
    from itertools import combinations

    def rows_of(q):
        return [i for i, row in enumerate(levels.tolist()) if row == list(q)]

    out = []
    for a, b, c in combinations(range(1, n_levels + 1), 3):
        for a2, b2, c2 in combinations(range(2, n_levels + 1), 3):
            if a >= a2:
                continue
            found = [rows_of((a, b, a2, b2)), rows_of((b, c, b2, c2)), rows_of((a, c, a2, c2))]
            out += [[f[k] for f in found] for k in range(min(map(len, found)))]
    return sorted(out)


@pytest.mark.parametrize("repeats", [1, 2, 3])
def test_six_point_rows_pair_the_kth_repetitions_as_r(repeats):
    table = simulate_judgements(np.linspace(0, 1, 7) ** 1.5, 0.3, repeats=repeats, seed=repeats)
    fit = fit_mlds(table)
    rows = six_point_rows(fit.levels, fit.n_levels)
    assert len(rows) == 7 * repeats
    assert sorted(rows.tolist()) == _get6pts_by_hand(fit.levels, fit.n_levels)


def test_unbalanced_repetitions_share_their_conditions_whatever_the_row_order():
    base = np.array([[1, 2, 4, 5], [2, 3, 5, 6], [1, 3, 4, 6]])
    levels = np.concatenate([base, base, base[:2]])       # A and B three times, E twice: 2 conditions
    weights, n_conditions = six_point_weights(levels, 6)
    assert n_conditions == len(six_point_rows(levels, 6)) == 2
    np.testing.assert_allclose(weights, [2 / 3, 2 / 3, 1, 2 / 3, 2 / 3, 1, 2 / 3, 2 / 3])
    assert weights.sum() == 3 * n_conditions
    order = np.random.default_rng(0).permutation(len(levels))
    np.testing.assert_array_equal(six_point_weights(levels[order], 6)[0], weights[order])
