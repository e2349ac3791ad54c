"""EC comparison planning with several humans (``plan compare --measure ec --humans``; docs/compare.md):
one human reproduces the one-table plan draw for draw, the simulated humans have the planted accuracies and
EC, the paired bootstrap holds its level with three humans, and more humans give more power."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from humanlike.measures.compare.planning import plan_ec_comparison
from humanlike.measures.compare.planning_ec import (
    MAX_HUMANS, joint_cell_probabilities, paired_bootstrap_ec, simulate_ec_comparisons,
)
from humanlike.measures.pairs.metric import kappa
from humanlike.resampling.rng import stream
from humanlike.stats.comparison import bootstrap_p_value

ALPHA = 0.05


def _one_table_kappas(counts):
    """Reference: EC of A and of B with the human from 8 joint counts (h, a, b), straight from the definition."""
    c = np.asarray(counts, dtype=float).reshape(*np.shape(counts)[:-1], 2, 2, 2)
    ta, tb = c.sum(axis=-1), c.sum(axis=-2)   # [h, model]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (kappa(ta[..., 1, 1], ta[..., 1, 0], ta[..., 0, 1], ta[..., 0, 0]),
                kappa(tb[..., 1, 1], tb[..., 1, 0], tb[..., 0, 1], tb[..., 0, 0]))


def test_one_human_is_the_one_table_plan_draw_for_draw():
    # The one-table algorithm as it stood before --humans: per data set k, from stream(seed, "compare-plan",
    # "ec", k), a multinomial table of the 8 cells, then resamples of it; percentile interval and bootstrap p.
    n_trials, n_sets, n_resamples, seed = 150, 40, 120, 7
    p = joint_cell_probabilities(0.35, 0.15, 0.85, 0.8, 0.8).ravel()
    diffs, reps = [], []
    for k in range(n_sets):
        g = stream(seed, "compare-plan", "ec", k)
        counts = g.multinomial(n_trials, p)
        ka, kb = _one_table_kappas(counts)
        diffs.append(ka - kb)
        ra, rb = _one_table_kappas(g.multinomial(n_trials, counts / n_trials, size=n_resamples))
        reps.append(ra - rb)
    reps = np.array(reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)   # an all-NaN data set: its interval is NaN
        tail = (1 - 0.95) / 2   # the level's tail as the planner computes it (not the literal 0.025)
        low, high = np.nanquantile(reps, [tail, 1 - tail], axis=1)
    p_boot = bootstrap_p_value(reps.T)

    sim = simulate_ec_comparisons(n_trials, 0.35, 0.15, 0.85, 0.8, n_sets=n_sets, n_resamples=n_resamples,
                                  exact=False, seed=seed, n_humans=1)
    np.testing.assert_array_equal(sim.difference, np.array(diffs))
    # (the interval compare reports for one table is MOVER's; the paired percentile one is kept beside it)
    np.testing.assert_array_equal(sim.alternatives["percentile"][0], low)
    np.testing.assert_array_equal(sim.alternatives["percentile"][1], high)
    np.testing.assert_array_equal(sim.p_bootstrap, p_boot)
    # The default is one human, and the plan's numbers are those of the one-table simulation.
    default = simulate_ec_comparisons(n_trials, 0.35, 0.15, 0.85, 0.8, n_sets=n_sets, n_resamples=n_resamples,
                                      exact=False, seed=seed)
    np.testing.assert_array_equal(default.p_bootstrap, sim.p_bootstrap)
    plan = plan_ec_comparison(0.2, kappa_b=0.15, a_human=0.85, trials=(n_trials,), n_sets=n_sets,
                              n_resamples=n_resamples, exact=False, seed=seed)
    assert plan.humans == (1,) and plan.power["bootstrap"][0, 0] == sim.rejection_rate(ALPHA)


def _human_tables(p_or_counts, n_humans):
    """[human i] -> the (h_i, a, b) table, summing the other humans out of a (2,)*N + (2, 2) array."""
    x = np.asarray(p_or_counts, dtype=float).reshape((2,) * n_humans + (2, 2))
    return [x.sum(axis=tuple(j for j in range(n_humans) if j != i)) for i in range(n_humans)]


def _ec_and_accuracies(table):
    ta, tb = table.sum(axis=2), table.sum(axis=1)   # [h, model]
    total = table.sum()
    k_a = float(kappa(ta[1, 1], ta[1, 0], ta[0, 1], ta[0, 0]))
    k_b = float(kappa(tb[1, 1], tb[1, 0], tb[0, 1], tb[0, 0]))
    return k_a, k_b, ta[1].sum() / total, ta[:, 1].sum() / total, tb[:, 1].sum() / total


def test_every_simulated_human_has_the_planted_accuracies_and_ec():
    planted = (0.4, 0.1, 0.75, 0.7, 0.85)   # kappa_A, kappa_B, human, A and B accuracies
    n_humans = 3
    p = joint_cell_probabilities(*planted, n_humans=n_humans)
    assert p.shape == (2, 2, 2, 2, 2) and p.sum() == pytest.approx(1.0)
    for table in _human_tables(p, n_humans):   # the population: exact
        assert _ec_and_accuracies(table) == pytest.approx(planted, abs=1e-12)
    # The models' outcomes are shared: their joint is the one-human joint's, whatever N.
    np.testing.assert_allclose(p.sum(axis=(0, 1, 2)), joint_cell_probabilities(*planted).sum(axis=0), atol=1e-15)
    # The humans are independent given the models: P(h_1, h_2 | a, b) = P(h_1 | a, b) P(h_2 | a, b).
    pair = p.sum(axis=2)
    models = pair.sum(axis=(0, 1))
    np.testing.assert_allclose(pair * models, pair.sum(axis=1)[:, None] * pair.sum(axis=0)[None], atol=1e-15)

    # A large sample drawn as the story says (models once per trial, each human from P(h | a, b)) has the
    # planted values within a few standard errors (SE of kappa about 0.003 at 200,000 trials), and its trial
    # types have the probabilities of the joint used by the planner.
    rng = np.random.default_rng(3)
    n = 200_000
    one = joint_cell_probabilities(*planted)
    ab = rng.choice(4, size=n, p=one.sum(axis=0).ravel())
    a, b = ab // 2, ab % 2
    p_human = one[1] / one.sum(axis=0)
    humans = rng.random((n, n_humans)) < p_human[a, b][:, None]
    types = (humans.astype(int) * 2 ** np.arange(n_humans + 1, 1, -1)).sum(axis=1) + 2 * a + b
    counts = np.bincount(types, minlength=4 * 2**n_humans)
    assert np.abs(counts / n - p.ravel()).max() < 0.005
    for table in _human_tables(counts, n_humans):
        k_a, k_b, acc_h, acc_a, acc_b = _ec_and_accuracies(table)
        assert k_a == pytest.approx(0.4, abs=0.015) and k_b == pytest.approx(0.1, abs=0.015)
        assert (acc_h, acc_a, acc_b) == pytest.approx((0.75, 0.7, 0.85), abs=0.005)


def test_paired_bootstrap_with_three_humans_holds_its_level():
    n_sets = 400
    sim = simulate_ec_comparisons(400, 0.3, 0.3, 0.8, 0.8, n_sets=n_sets, n_resamples=200, exact=False, seed=2,
                                  n_humans=3)
    se = np.sqrt(ALPHA * (1 - ALPHA) / n_sets)
    assert sim.true_difference == 0.0
    assert abs(sim.rejection_rate(ALPHA) - ALPHA) <= 3 * se, sim.rejection_rate(ALPHA)
    assert 0.9 <= sim.coverage() <= 0.98


def test_power_grows_with_the_number_of_humans_at_fixed_trials():
    plan = plan_ec_comparison(0.15, trials=(400,), humans=(1, 2, 4), n_sets=200, n_resamples=200, exact=True,
                              seed=1)
    power = plan.power["bootstrap"][:, 0]
    assert plan.humans == (1, 2, 4) and power[0] < power[1] < power[2] and power[2] - power[0] > 0.2, power
    # The exact test is of one table: run for one human only, and the plan says so.
    assert not np.isnan(plan.power["exact"][0, 0]) and np.isnan(plan.power["exact"][1:, 0]).all()
    assert set(plan.needed["exact"]) == {1} and set(plan.needed["bootstrap"]) == {1, 2, 4}
    assert "2, 4 humans" in plan.design["notes"][0]
    frame = plan.to_frame()
    assert sorted(map(tuple, frame[["test", "humans"]].values.tolist())) == [
        ("bootstrap", 1), ("bootstrap", 2), ("bootstrap", 4), ("exact", 1)]


def test_identical_models_give_zero_difference_and_p_one_with_several_humans():
    # Models A and B answer alike on every trial: every type has a == b.
    rng = np.random.default_rng(0)
    n_humans = 3
    counts = np.zeros((5, 4 * 2**n_humans), dtype=np.int64)
    same = [t for t in range(counts.shape[1]) if (t >> 1) & 1 == t & 1]
    counts[:, same] = rng.integers(1, 30, size=(5, len(same)))
    d, lo, hi, p, _ = paired_bootstrap_ec(counts, 100, 0.95, [np.random.default_rng(k) for k in range(5)])
    assert d.tolist() == [0.0] * 5 and lo.tolist() == [0.0] * 5 and hi.tolist() == [0.0] * 5
    assert p.tolist() == [1.0] * 5


def test_bad_numbers_of_humans_are_refused():
    with pytest.raises(ValueError, match="humans"):
        joint_cell_probabilities(0.2, 0.2, 0.8, 0.8, 0.8, n_humans=MAX_HUMANS + 1)
    with pytest.raises(ValueError, match="humans"):
        plan_ec_comparison(0.1, humans=(0,))
    with pytest.raises(ValueError, match="one human"):
        simulate_ec_comparisons(100, 0.2, 0.2, 0.8, 0.8, n_sets=2, n_humans=2, exact=True)
    with pytest.raises(ValueError, match="4 \\* 2\\^N"):
        paired_bootstrap_ec(np.ones((1, 12), dtype=int), 10, 0.95, [np.random.default_rng(0)])


def test_cli_plan_compare_humans(capsys):
    from humanlike.app.cli import main

    argv = ["plan", "compare", "--delta", "0.2", "--trials", "100", "400", "--sets", "40", "--resamples", "60"]
    assert main([*argv, "--humans", "4", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["humans"] == [1, 4]
    cells = {(r["test"], r["humans"], r["size"]) for r in doc["power"]}
    assert cells == {("bootstrap", 1, 100), ("bootstrap", 1, 400), ("bootstrap", 4, 100), ("bootstrap", 4, 400),
                     ("exact", 1, 100), ("exact", 1, 400)}
    assert {(r["test"], r["humans"]) for r in doc["needed"]} == {("bootstrap", 1), ("bootstrap", 4), ("exact", 1)}
    assert "not run for 4 humans" in doc["design"]["notes"][0]
    assert main([*argv, "--humans", "1", "4"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].split() == ["humans", "trials", "bootstrap", "exact"]
    assert "bootstrap, 4 humans:" in text and "note: the exact label-exchange test" in text
    assert main(argv) == 0   # the default: one human, no humans column
    assert capsys.readouterr().out.splitlines()[1].split() == ["trials", "bootstrap", "exact"]
    assert main(["plan", "compare", "--measure", "dmc", "--delta", "0.2", "--humans", "3"]) == 2
    assert "--observers" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:   # refused by the parser
        main([*argv, "--humans", str(MAX_HUMANS + 1)])
    assert stop.value.code == 2 and "--humans" in capsys.readouterr().err
