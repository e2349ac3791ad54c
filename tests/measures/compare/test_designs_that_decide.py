"""Designs that decide (docs/designs-that-decide.md, issue 34): the selection's probabilities, the pool-level
(inverse-probability weighted) estimate against a planted truth, the group-sequential bounds and their level, and
``plan compare --design``. The full simulation is benchmarks/adaptive_design.py; these are small and fast."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from humanlike.app import cli
from humanlike.measures.compare.design_estimate import (
    difference_from_sums, estimate_difference, expected_sums, participant_sums, strata_layout,
)
from humanlike.measures.compare.design_simulation import population_probability, simulate_design_studies
from humanlike.measures.compare.discriminating import (
    ItemDesign, design_from_trials, inclusion_probabilities, systematic_sample,
)
from humanlike.stats.sequential import group_sequential_bounds, sequential_decision, spent_alpha


def small_pool(n_per_type=(10, 6, 6, 18), conditions=("c1", "c2")) -> pd.DataFrame:
    """A pool of two conditions, each with the four model-outcome types in the given numbers."""
    rows = []
    for c in conditions:
        for t, n in enumerate(n_per_type):
            rows += [{"experiment": "e", "condition": c, "item": f"{c}-{t}-{k}", "correct_a": t >= 2,
                      "correct_b": t % 2 == 1} for k in range(n)]
    return pd.DataFrame(rows)


# --- the selection ------------------------------------------------------------------------------------------

def test_inclusion_probabilities_by_hand_with_a_cap():
    # sizes 1.1, 0.1 x 4 (sum 1.5), two per participant: 2 x 1.1 / 1.5 > 1, so the first is capped at 1 and
    # the remaining one draw is spread over the other four equally
    prob = inclusion_probabilities([1, 0, 0, 0, 0], ["c"] * 5, 2, floor=0.1)
    assert prob.tolist() == [1.0, 0.25, 0.25, 0.25, 0.25]


def test_probabilities_are_positive_and_sum_to_the_trials_of_each_condition():
    pool = small_pool()
    design = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=8, floor=0.2)
    prob = design.pool["probability"]
    assert (prob > 0).all() and (prob <= 1).all()
    assert design.pool.groupby("stratum")["probability"].sum().round(12).tolist() == [8.0, 8.0]
    # discriminating items (one model right, the other wrong) are (1 + 0.2) / 0.2 = 6 times as likely
    by_type = design.pool.groupby("type")["probability"].first()
    assert by_type[1] / by_type[0] == pytest.approx(6.0) and by_type[2] == pytest.approx(by_type[1])
    random = ItemDesign.from_outcomes(pool, ("A", "B"), "random", per_condition=8)
    assert np.allclose(random.pool["probability"], 8 / 40)


def test_systematic_sample_includes_each_item_with_its_probability():
    pool = small_pool()
    prob = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=8).pool["probability"]
    mask = systematic_sample(prob, pool["condition"], np.random.default_rng(3), 4000)
    assert set(mask[:, :40].sum(axis=1)) == {8} and set(mask[:, 40:].sum(axis=1)) == {8}
    se = np.sqrt(prob * (1 - prob) / 4000)
    assert np.all(np.abs(mask.mean(axis=0) - prob) < 4.5 * se + 1e-12)


def test_a_participant_list_depends_on_the_seed_and_the_slot_only():
    design = ItemDesign.from_outcomes(small_pool(), ("A", "B"), "discriminating", per_condition=8)
    assert np.array_equal(design.sample(7, 3), design.sample(7, 3))
    assert np.array_equal(design.sample(7, 2, n_participants=2)[1], design.sample(7, 3)[0])
    assert not np.array_equal(design.sample(7, 3), design.sample(8, 3))


def test_trial_lists_are_the_samples_in_a_fixed_order_and_analyse_as_usual():
    design = ItemDesign.from_outcomes(small_pool(), ("A", "B"), "discriminating", per_condition=8)
    lists = design.trial_lists(seed=5, n_participants=4)
    assert lists.equals(design.trial_lists(seed=5, n_participants=4))
    assert lists.groupby("slot")["position"].max().tolist() == [16] * 4
    chosen = set(design.pool.loc[design.sample(5, 3)[0], "item"])
    assert set(lists.loc[lists["slot"] == 3, "item"]) == chosen
    # people answer the listed trials; the estimate reads them as any trial table
    answers = lists.assign(observer="p" + lists["slot"].astype(str), correct=lists["position"] % 3 > 0)
    estimate = estimate_difference(design, answers)
    assert estimate.n_participants == 4 and np.isfinite(estimate.difference)


def test_dmc_design_scores_the_margins_disagreement():
    pool = small_pool((3, 3, 3, 3), ("c1",))
    margin_a = np.linspace(-1, 1, 12)
    margin_b = margin_a.copy()
    margin_b[[0, 11]] = margin_b[[11, 0]]   # the models disagree most on the first and last items
    trials = pd.concat([pool.assign(observer="A", correct=margin_a > 0, decision_margin=margin_a),
                        pool.assign(observer="B", correct=margin_b > 0, decision_margin=margin_b)])
    design = design_from_trials(trials, "A", "B", per_condition=4, measure="dmc")
    assert design.pool["score"].to_numpy() == pytest.approx([1.0] + [0.0] * 10 + [1.0], abs=1e-12)
    assert design.pool["probability"].iloc[0] > 3 * design.pool["probability"].iloc[5]
    with pytest.raises(ValueError, match="lacks column"):
        design_from_trials(trials.drop(columns="decision_margin"), "A", "B", measure="dmc")


def test_design_from_model_trials_and_its_errors():
    pool = small_pool()
    trials = pd.concat([pool.assign(observer="A", correct=pool["correct_a"]),
                        pool.assign(observer="B", correct=pool["correct_b"])])
    design = design_from_trials(trials, "A", "B", per_condition=8)
    assert design.pool["score"].sum() == 24 and design.trials_per_participant == 16
    with pytest.raises(ValueError, match="model 'C' has no trials"):
        design_from_trials(trials, "A", "C")
    with pytest.raises(ValueError, match="fewer than the 50 trial"):
        design_from_trials(trials, "A", "B", per_condition=50)
    with pytest.raises(ValueError, match="floor must be above 0"):
        design_from_trials(trials, "A", "B", floor=0.0)
    twice = pd.concat([trials, trials[trials["observer"] == "A"].head(1)])
    with pytest.raises(ValueError, match="answered item 'c1-0-0' of condition 'c1' more than once"):
        design_from_trials(twice, "A", "B")


# --- the estimates --------------------------------------------------------------------------------------------

def test_chosen_items_estimate_by_hand():
    # one condition, 10 trials of each type shown; the human right on 2, 3, 8, 9 of them: the tables are those of
    # the population-table example (A: kappa 0.6, B: 0.1) whatever the pool's shares are
    shares = np.array([[0.7, 0.1, 0.1, 0.1]])
    right = np.array([2.0, 3.0, 8.0, 9.0])
    sums = np.stack([np.zeros(4), np.ones(4), right, np.full(4, 10.0)], -1)[None]
    assert float(difference_from_sums(sums, shares, "chosen")) == pytest.approx(0.5)


def test_responses_outside_the_pool_are_named():
    design = ItemDesign.from_outcomes(small_pool(), ("A", "B"), "random", per_condition=8)
    responses = pd.DataFrame({"observer": ["p1", "p2"], "experiment": "e", "condition": "c1",
                              "item": ["c1-0-0", "nowhere"], "correct": [1, 0]})
    with pytest.raises(ValueError, match="observer 'p2' answered item 'nowhere' of condition 'c1'"):
        estimate_difference(design, responses)


def planted(design, seed=0):
    """Human logits that depend on the type and, within a type, on the item (so the chosen items are not the
    pool): the design's chosen-items truth differs from its pool truth."""
    pool = design.pool
    rng = np.random.default_rng(seed)
    return (np.array([-1.0, -0.2, 0.9, 1.6])[pool["type"]] + rng.normal(0, 0.7, len(pool))
            + 0.8 * (pool["condition"] == "c2"))


def test_pool_estimate_is_unbiased_for_the_pool_truth_and_the_chosen_one_is_not():
    first = ItemDesign.from_outcomes(small_pool(), ("A", "B"), "discriminating", per_condition=8, floor=0.2)
    logit = planted(first)
    # scores that vary within types too (as DMC's do) and favour the items people get right, so the weights
    # matter within a type and the chosen items are easier than the pool
    disagree = (first.pool["correct_a"] != first.pool["correct_b"]).to_numpy()
    scores = 0.5 * disagree + 0.5 * special.expit(2 * (logit - first.pool["type"].map({0: -1.0, 1: -0.2, 2: 0.9,
                                                                                         3: 1.6}).to_numpy()))
    design = ItemDesign.from_outcomes(small_pool(), ("A", "B"), "discriminating", per_condition=8, floor=0.2,
                                      scores=scores)
    sims = simulate_design_studies(design, logit, participant_sd=0.3, looks=(40,), n_studies=300, seed=4)
    pool, chosen = sims.estimate["pool"][:, 0], sims.estimate["chosen"][:, 0]
    assert np.isfinite(pool).all()
    assert abs(sims.truth["pool"] - sims.truth["chosen"]) > 0.05   # the two estimands differ here
    assert abs(pool.mean() - sims.truth["pool"]) < 4 * pool.std() / np.sqrt(pool.size) + 0.005
    assert abs(chosen.mean() - sims.truth["chosen"]) < 4 * chosen.std() / np.sqrt(chosen.size) + 0.005
    assert abs(chosen.mean() - sims.truth["pool"]) > 0.04
    # the jackknife standard error is about the spread of the estimates, and the interval covers
    assert np.median(sims.se["pool"][:, 0]) == pytest.approx(pool.std(), rel=0.25)
    assert sims.coverage()[0] > 0.88


def test_expected_sums_give_the_population_tables():
    design = ItemDesign.from_outcomes(small_pool((5, 5, 5, 5), ("c",)), ("A", "B"), "random", per_condition=4)
    p = np.array([0.2, 0.3, 0.8, 0.9])[design.pool["type"]]
    _, shares, _ = strata_layout(design)
    assert float(difference_from_sums(expected_sums(design, p), shares)) == pytest.approx(0.5)
    shown = np.ones((1, 20), dtype=bool)
    sums = participant_sums(design, shown, np.zeros((1, 20)))
    assert sums[0, 0, :, 1] == pytest.approx([25.0] * 4)   # 5 items of each type, each weighted 1 / (4 / 20)


def test_population_probability_averages_over_skill():
    z, w = np.polynomial.hermite_e.hermegauss(80)
    expected = special.expit(1.0 + 0.8 * z) @ w / w.sum()
    assert population_probability([1.0], 0.8)[0] == pytest.approx(expected, abs=1e-9)


# --- the sequential test --------------------------------------------------------------------------------------

def test_two_looks_spend_exactly_alpha():
    bounds = group_sequential_bounds([0.5, 1.0])
    r = np.sqrt(0.5)
    joint = stats.multivariate_normal([0, 0], [[1, r], [r, 1]])
    inside = (joint.cdf(bounds) - joint.cdf([-bounds[0], bounds[1]]) - joint.cdf([bounds[0], -bounds[1]])
              + joint.cdf(-bounds))
    assert 1 - inside == pytest.approx(0.05, abs=2e-5)
    assert 2 * stats.norm.sf(bounds[0]) == pytest.approx(spent_alpha(0.5), rel=1e-6)


def test_bad_looks_and_spending_are_refused():
    with pytest.raises(ValueError, match="increase from above 0 to 1"):
        group_sequential_bounds([0.5, 0.4, 1.0])
    with pytest.raises(ValueError, match="unknown spending function 'linear'"):
        spent_alpha(0.5, spending="linear")
    assert sequential_decision([3.0], [2.0]) == (True, 0)


def test_level_with_two_equally_human_like_models_smoke():
    # symmetric pool and pattern: swapping A and B changes nothing, so EC_A = EC_B exactly on the pool
    pool = small_pool((12, 8, 8, 12), ("c1", "c2"))
    design = ItemDesign.from_outcomes(pool, ("A", "B"), "discriminating", per_condition=8, floor=0.2)
    logit = np.array([-0.8, 0.6, 0.6, 1.2])[design.pool["type"]]
    sims = simulate_design_studies(design, logit, participant_sd=0.3, looks=(20, 40, 60, 80), n_studies=200,
                                   seed=11)
    assert sims.truth["pool"] == pytest.approx(0.0, abs=1e-12)
    sequential = sims.sequential()["rejection"]
    naive = sims.sequential(spending="none")["rejection"]
    assert sequential <= 0.1          # 0.05 nominal; 200 studies
    assert naive >= sequential        # peeking at 1.96 after every batch can only reject more often


# --- plan compare --design -------------------------------------------------------------------------------------

def plan(*extra) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["plan", "compare", "--delta", "0.15", "--sets", "30", "--participants", "10", "40",
                         "--json", *extra]) == 0
    return json.loads(out.getvalue())


def powers(doc) -> list:
    return [row["power"] for row in doc["power"]]


def test_plan_compare_design_options_change_what_they_claim():
    random = plan("--design", "random")
    discriminating = plan("--design", "discriminating")
    assert random["settings"]["unit"] == "participants" and [r["participants"] for r in random["power"]] == [10, 40]
    assert sum(powers(discriminating)) > sum(powers(random))      # the design draws the informative items
    assert discriminating["settings"]["disagreement_shown"] > random["settings"]["disagreement_shown"]
    fewer = plan("--design", "random", "--per-participant", "10")
    assert sum(powers(fewer)) < sum(powers(random))                # fewer trials per participant, less power
    flat = plan("--design", "discriminating", "--floor", "5")
    assert flat["settings"]["disagreement_shown"] < discriminating["settings"]["disagreement_shown"]
    small = plan("--design", "random", "--pool", "100")
    assert small["settings"]["pool_size"] == 100 and powers(small) != powers(random)


def test_plan_compare_design_for_dmc_plans_participants_on_the_margin_model():
    random = plan("--design", "random", "--measure", "dmc", "--delta", "0.3", "--pool", "300")
    assert random["measure"] == "decision_margin_consistency" and random["settings"]["unit"] == "participants"
    # the pool's DMC difference is the planted difference of the margin-truth correlations
    assert random["true_difference"] == pytest.approx(0.3, abs=1e-9)
    assert (random["settings"]["rho_a"], random["settings"]["rho_b"]) == (pytest.approx(0.7), 0.4)
    assert powers(random)[1] > powers(random)[0]                      # more participants, more power
    lower = plan("--design", "random", "--measure", "dmc", "--delta", "0.3", "--pool", "300", "--rho", "0.1")
    assert lower["settings"]["rho_b"] == 0.1 and powers(lower) != powers(random)
    fewer = plan("--design", "random", "--measure", "dmc", "--delta", "0.3", "--pool", "300", "--per-participant", "10")
    assert sum(powers(fewer)) < sum(powers(random))                   # fewer trials per participant, less power
    discriminating = plan("--design", "discriminating", "--measure", "dmc", "--delta", "0.3", "--pool", "300")
    assert discriminating["settings"]["floor"] == 0.2 and random["settings"]["floor"] is None
    # the design shows the items where the margins disagree (the random design: as often as the pool has them)
    assert random["settings"]["margin_gap_shown"] == pytest.approx(random["settings"]["margin_gap_pool"])
    assert discriminating["settings"]["margin_gap_shown"] > 1.2 * random["settings"]["margin_gap_shown"]
    assert discriminating["true_difference"] == pytest.approx(random["true_difference"], abs=1e-12)   # one pool


@pytest.mark.parametrize("argv,message", [
    (["--participants", "20"], "--participants applies with --design"),
    (["--design", "random", "--trials", "100"], "--trials does not apply with --design"),
    (["--design", "random", "--floor", "0.3"], "--floor applies to --design discriminating only"),
    (["--design", "random", "--measure", "dmc", "--items", "100"], "--items does not apply with --design"),
    (["--design", "random", "--measure", "dmc", "--observers", "4"], "--observers does not apply with --design"),
    (["--observers", "4"], "--observers is for --measure dmc"),
    (["--design", "random", "--per-participant", "900"], "--per-participant 900 must be below --pool 800"),
])
def test_plan_compare_design_refuses_options_that_do_not_apply(argv, message):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["plan", "compare", "--delta", "0.1", *argv]) == 2
    assert message in err.getvalue()


# --- the adaptive design ----------------------------------------------------------------------------------------

def test_adaptive_design_keeps_the_pool_estimate_unbiased_smoke():
    from humanlike.measures.compare.design_adaptive import neyman_scores, simulate_adaptive_studies

    design = ItemDesign.from_outcomes(small_pool(), ("A", "B"), "discriminating", per_condition=8, floor=0.2)
    logit = planted(design)
    sims = simulate_adaptive_studies(design, logit, participant_sd=0.3, batch=10, looks=(20, 40), n_studies=120,
                                     seed=2)
    pool = sims.estimate["pool"][:, 1]
    assert np.isfinite(pool).all() and np.isnan(sims.truth["chosen"])
    assert abs(pool.mean() - sims.truth["pool"]) < 4 * pool.std() / np.sqrt(pool.size) + 0.005
    assert sims.coverage()[1] > 0.85
    # with no data the scores still favour the items where the models differ, and stay within [0, 1]
    scores = neyman_scores(design, np.zeros((2, 4, 4)))
    disagree = (design.pool["correct_a"] != design.pool["correct_b"]).to_numpy()
    assert scores.min() >= 0 and scores.max() == 1 and scores[disagree].mean() > scores[~disagree].mean()
