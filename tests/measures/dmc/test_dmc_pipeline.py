"""The DMC pipeline (humanlike.measures.dmc.analysis): vectorised resampling, known-truth simulations, NaN reasons,
self-consistency, and the real model-vs-human data with the decision-margin fork's models."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humanlike.measures.dmc import analysis as D
from humanlike.measures.dmc.consistency_accuracy import consistency_vs_accuracy
from humanlike.measures.dmc.analysis import DMC, HUMANS, MODEL_HUMAN_MEAN, MODEL_MODEL, decision_margin_consistency
from humanlike.measures.dmc.self_consistency import self_consistency
from humanlike.stats.correlation import weighted_midranks
from humanlike.measures.dmc.data import assemble
from humanlike.trials.schema import TrialTableError, validate_trials
from humanlike.measures.dmc.metric import condition_values, model_pairs, pooled_statistics, values_from_sums
from humanlike.measures.ec.metric import counts_from_correctness, kappa
from humanlike.measures.dmc.margins import accuracy_to_dprime
from humanlike.measures.dmc.analysis import dmc_settings

CLASSES = ("a", "b", "c", "d")


# --------------------------------------------------------------------------------------------------
# A small SDT simulator with planted item difficulties and internal noise
# --------------------------------------------------------------------------------------------------


def sdt_table(rng, *, n_humans=6, n_items=160, noise_sd=1.0, difficulty=None, models=(), experiment="e",
              condition="0", repeats=1):
    """Humans: correct when d_i + noise_sd * eps > 0, so P(correct) = Phi(d_i / noise_sd), a fresh eps per
    response. Models: noiseless, decision margin = their own item evidence (> 0 iff correct).

    ``models``: list of (name, evidence array). Returns (table, true item accuracies)."""
    d = rng.normal(0.6, 1.0, n_items) if difficulty is None else difficulty
    labels = np.array(CLASSES)[np.arange(n_items) % len(CLASSES)]
    wrong = np.array(CLASSES)[(np.arange(n_items) + 1) % len(CLASSES)]
    items = np.array([f"{experiment}-{condition}-{i:04d}" for i in range(n_items)])
    frames = []
    for h in range(n_humans):
        for rep in range(repeats):
            correct = d + noise_sd * rng.standard_normal(n_items) > 0
            frame = {"observer": f"subject-{h:02d}", "observer_kind": "human", "experiment": experiment,
                     "condition": condition, "item": items, "label": labels,
                     "response": np.where(correct, labels, wrong), "correct": correct,
                     "decision_margin": np.nan}
            if repeats > 1:
                frame["repeat"] = rep
            frames.append(pd.DataFrame(frame))
    for name, evidence in models:
        correct = evidence > 0
        for rep in range(repeats):
            frame = {"observer": name, "observer_kind": "model", "experiment": experiment, "condition": condition,
                     "item": items, "label": labels, "response": np.where(correct, labels, wrong),
                     "correct": correct, "decision_margin": evidence}
            if repeats > 1:
                frame["repeat"] = rep
            frames.append(pd.DataFrame(frame))
    return pd.concat(frames, ignore_index=True), stats.norm.cdf(d / noise_sd)


def true_reliability(p, n_observers):
    """Reliability of the mean of N Bernoulli(p_i) responses over these items: V / (V + E[p(1-p)] / N)."""
    v = p.var()
    return v / (v + np.mean(p * (1 - p)) / n_observers)


# --------------------------------------------------------------------------------------------------
# Vectorised machinery equals explicit resampling
# --------------------------------------------------------------------------------------------------


def test_weighted_midranks_match_scipy_and_repeated_data():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, size=(4, 30)).astype(float)
    np.testing.assert_allclose(weighted_midranks(x, np.ones_like(x)), stats.rankdata(x, axis=-1))
    w = rng.integers(0, 3, size=30).astype(float)
    ranks = weighted_midranks(x[0], w)
    expanded = np.repeat(x[0], w.astype(int))
    expected = stats.rankdata(expanded)
    # Every copy of item i carries rank ranks[i].
    np.testing.assert_allclose(np.repeat(ranks, w.astype(int)), expected)


class _Condition:
    """The first condition of a table as the DMC kernel sees it (observers x items orientation)."""

    def __init__(self, table):
        data = assemble(validate_trials(table))
        self.exp = next(iter(data.experiments.values()))
        s = data.design.strata[0]
        self.items = s.items
        self.correct, self.trials = s.arrays["correct"].T, s.arrays["trials"].T
        self.margins, self.model_correct = s.arrays["margin"].T, s.arrays["model_correct"].T

    def explicit(self, w, u=None, split_index=None, method="pearson"):
        return condition_values(self.correct, self.trials, self.margins, self.model_correct, self.exp.splits,
                                w, u, split_index, method)

    def pooled(self, w, u=None, split_index=None):
        statistics, layout = pooled_statistics(self.correct, self.trials, self.margins, self.model_correct)
        return values_from_sums(w @ statistics, layout, self.margins, self.exp.splits, lambda rows: w[rows], u,
                                split_index)


def _explicit(cond, w, u, method):
    """One resample by brute force: repeat items w times and observers u times, then correlate."""
    exp = cond.exp
    corr = (lambda a, b: stats.spearmanr(a, b)[0]) if method == "spearman" else (lambda a, b: np.corrcoef(a, b)[0, 1])
    items = np.repeat(np.arange(cond.items.size), w.astype(int))
    obs = np.repeat(np.arange(len(exp.humans)), u.astype(int))
    index = cond.correct[obs].sum(0) / cond.trials[obs].sum(0)
    mh = [corr(cond.margins[k][items], index[items]) for k in range(len(exp.models))]
    hh = []
    for member in exp.splits:
        a = np.repeat(np.arange(len(exp.humans))[member], u[member].astype(int))
        b = np.repeat(np.arange(len(exp.humans))[~member], u[~member].astype(int))
        if a.size == 0 or b.size == 0:
            hh.append(np.nan)
            continue
        ha = cond.correct[a].sum(0) / cond.trials[a].sum(0)
        hb = cond.correct[b].sum(0) / cond.trials[b].sum(0)
        r = corr(ha[items], hb[items])
        hh.append(2 * r / (1 + r))
    return np.array(mh), np.array(hh)


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_vectorised_resamples_equal_explicit_resampling(method):
    rng = np.random.default_rng(2)
    d = rng.normal(0.5, 1.0, 60)
    table, _ = sdt_table(rng, n_humans=5, n_items=60, difficulty=d,
                         models=[("m1", d + rng.normal(0, 1, 60)), ("m2", rng.normal(0, 1, 60))])
    cond = _Condition(table)
    w = rng.multinomial(60, np.ones(60) / 60, size=3).astype(float)
    u = rng.multinomial(5, np.ones(5) / 5, size=3).astype(float)
    got = cond.explicit(w, u, method=method)
    for r in range(3):
        mh, hh = _explicit(cond, w[r], u[r], method)
        np.testing.assert_allclose(got["mh"][r], mh, atol=1e-10)
        np.testing.assert_allclose(got["hh"][r], hh, atol=1e-10)
    # Observers not resampled: the fixed-vector fast path agrees with the batched one.
    fast = cond.explicit(w, None, method=method)
    slow = cond.explicit(w, np.ones((3, 5)), method=method)
    np.testing.assert_allclose(fast["mh"], slow["mh"], atol=1e-12)
    np.testing.assert_allclose(fast["mm"], slow["mm"], atol=1e-12)
    if method == "pearson":
        # The sufficient-statistics path gives the same values, with and without observer weights and subsets.
        subsets = rng.integers(0, cond.exp.splits.shape[0], size=(3, 4))
        for weights, index in ((None, None), (u, None), (u, subsets), (None, subsets), (1.0 - np.eye(5)[:3], None)):
            a, b = cond.explicit(w, weights, index), cond.pooled(w, weights, index)
            for key in a:
                np.testing.assert_allclose(b[key], a[key], atol=1e-12, err_msg=key)


def test_point_ceiling_matches_split_half_ceiling():
    from humanlike.stats.reliability import split_half_ceiling

    rng = np.random.default_rng(3)
    table, _ = sdt_table(rng, n_humans=7, n_items=120)
    result = decision_margin_consistency(table, settings=dmc_settings(n_resamples=0))
    piv = table.pivot(index="observer", columns="item", values="correct").astype(float).to_numpy()
    expected = split_half_ceiling(piv)
    row = result.table("e").set_index("group").loc[HUMANS]
    assert row["estimate"] == pytest.approx(expected.ceiling, abs=1e-12)
    assert row["n"] == expected.n_splits == 35
    raw = result.table("e", metric=D.SPLIT_HALF_R).set_index("group").loc[HUMANS, "estimate"]
    assert raw == pytest.approx(expected.raw_mean, abs=1e-12)


# --------------------------------------------------------------------------------------------------
# Known truth
# --------------------------------------------------------------------------------------------------


def test_noise_ceiling_recovers_true_reliability():
    rng = np.random.default_rng(4)
    table, p = sdt_table(rng, n_humans=6, n_items=3000, noise_sd=1.0)
    result = decision_margin_consistency(table, settings=dmc_settings(n_resamples=0))
    ceiling = result.table("e").set_index("group").loc[HUMANS, "estimate"]
    truth = true_reliability(p, 6)
    assert ceiling == pytest.approx(truth, abs=0.02)
    # The raw split-half r is the reliability of half the observers: Spearman-Brown matters.
    raw = result.table("e", metric=D.SPLIT_HALF_R).set_index("group").loc[HUMANS, "estimate"]
    assert raw == pytest.approx(true_reliability(p, 3), abs=0.02)
    assert raw < ceiling - 0.05


def test_noiseless_observers_sharing_difficulties_give_one():
    rng = np.random.default_rng(5)
    d = rng.normal(0.5, 1.0, 200)
    table, _ = sdt_table(rng, n_humans=4, difficulty=d, n_items=200,
                         models=[("m1", d), ("m2", 2.5 * d), ("m3", rng.normal(0, 1, 200))])
    result = decision_margin_consistency(table, settings=dmc_settings(n_resamples=200, seed=1))
    pairs = result.items.pivot_table(index="item", columns="observer", values="value")
    assert np.corrcoef(pairs["m1"], pairs["m2"])[0, 1] == pytest.approx(1.0)
    # With three models the mean of model pairs includes 1 exactly once; check through the per-pair path.
    cond = _Condition(table)
    exp = cond.exp
    first, second = model_pairs(len(exp.models))
    k = [i for i, (a, b) in enumerate(zip(first, second)) if {exp.models[a], exp.models[b]} == {"m1", "m2"}][0]
    for evaluate in (cond.explicit, cond.pooled):
        assert evaluate(np.ones((1, 200)))["mm"][0, k] == pytest.approx(1.0, abs=1e-12)
        # Identical margins stay at 1 in every bootstrap resample.
        w = np.random.default_rng(0).multinomial(200, np.ones(200) / 200, size=50).astype(float)
        np.testing.assert_allclose(evaluate(w)["mm"][:, k], 1.0, atol=1e-12)


def test_independent_model_near_zero_and_intervals_cover_at_nominal_rate():
    """200 simulated data sets (one experiment each): a model whose difficulties are independent of the
    humans' has DMC 0 in truth; the 95% intervals should cover 0 about 95% of the time."""
    rng = np.random.default_rng(6)
    frames = []
    for k in range(200):
        d = rng.normal(0.6, 1.0, 80)
        table, _ = sdt_table(rng, n_humans=4, n_items=80, difficulty=d, experiment=f"sim{k:03d}",
                             models=[("independent", rng.normal(0.3, 1.0, 80)), ("shared", d)])
        frames.append(table)
    result = decision_margin_consistency(pd.concat(frames, ignore_index=True), settings=dmc_settings(n_resamples=300, seed=7), bootstrap_splits=8, validate=False)
    s = result.summary_table
    rows = s[(s["level"] == "experiment") & (s["metric"] == DMC) & (s["group"] == "independent")]
    assert len(rows) == 200
    assert abs(rows["estimate"].mean()) < 0.03
    coverage = np.mean((rows["ci_low"] <= 0) & (rows["ci_high"] >= 0))
    assert 0.88 <= coverage <= 0.995
    # The model that shares the difficulties is clearly above zero everywhere.
    shared = s[(s["level"] == "experiment") & (s["metric"] == DMC) & (s["group"] == "shared")]
    assert (shared["ci_low"] > 0.2).mean() > 0.95


def test_published_t_interval_is_narrower_than_the_bootstrap():
    rng = np.random.default_rng(8)
    table, _ = sdt_table(rng, n_humans=8, n_items=150)
    row = decision_margin_consistency(table, settings=dmc_settings(n_resamples=400, seed=0)).table("e").set_index("group").loc[HUMANS]
    assert row["t_high"] - row["t_low"] < 0.5 * (row["ci_high"] - row["ci_low"])
    assert row["ci_low"] < row["estimate"] < row["ci_high"]


# --------------------------------------------------------------------------------------------------
# NaN with a reason, options, invariances
# --------------------------------------------------------------------------------------------------


def test_constant_vectors_give_nan_with_reason():
    rng = np.random.default_rng(9)
    d = np.full(40, 10.0)  # every human correct on every item: the human index is constant
    table, _ = sdt_table(rng, n_humans=4, n_items=40, difficulty=d,
                         models=[("flat", np.full(40, 0.5)), ("varied", rng.uniform(0.1, 2.0, 40))])
    result = decision_margin_consistency(table, settings=dmc_settings(n_resamples=20))
    cond = result.table("e", condition="0").set_index("group")
    assert np.isnan(cond.loc[HUMANS, "estimate"]) and "both halves constant" in cond.loc[HUMANS, "reason"]
    assert np.isnan(cond.loc["varied", "estimate"]) and cond.loc["varied", "reason"] == "human index constant"
    assert np.isnan(cond.loc["flat", "estimate"])
    assert cond.loc["flat", "reason"] == "model margins and human index constant"
    assert np.isnan(cond.loc[MODEL_MODEL, "estimate"]) and "constant margins" in cond.loc[MODEL_MODEL, "reason"]
    exp_row = result.table("e").set_index("group").loc["varied"]
    assert np.isnan(exp_row["estimate"]) and exp_row["reason"].startswith("undefined in every condition")
    doc = result.to_json_dict()
    assert doc["human_human"]["mean"] is None or np.isnan(doc["human_human"]["mean"])
    assert "reason" in doc["model_human"]["varied"]


def test_models_without_margins_are_skipped_with_a_note():
    rng = np.random.default_rng(10)
    d = rng.normal(0.5, 1, 50)
    table, _ = sdt_table(rng, n_humans=3, n_items=50, difficulty=d, models=[("m1", d), ("m2", -d + 0.5)])
    table.loc[table["observer"] == "m2", "decision_margin"] = np.nan
    result = decision_margin_consistency(table, settings=dmc_settings(n_resamples=10))
    assert result.skipped_models == {"m2": "no decision margins"}
    assert "m2" not in set(result.summary_table["group"])
    assert any("m2" in n for n in result.notes)
    no_column = table.drop(columns="decision_margin")
    result = decision_margin_consistency(no_column, settings=dmc_settings(n_resamples=10))
    assert set(result.skipped_models) == {"m1", "m2"}
    assert np.isfinite(result.table("e").set_index("group").loc[HUMANS, "estimate"])


def test_row_order_does_not_matter():
    rng = np.random.default_rng(11)
    d = rng.normal(0.5, 1, 60)
    a, _ = sdt_table(rng, n_humans=5, n_items=60, difficulty=d, condition="x",
                     models=[("m1", d + rng.normal(0, 0.5, 60)), ("m2", rng.normal(0, 1, 60))])
    b, _ = sdt_table(rng, n_humans=5, n_items=60, difficulty=d, condition="y",
                     models=[("m1", d + rng.normal(0, 0.5, 60)), ("m2", rng.normal(0, 1, 60))])
    table = pd.concat([a, b], ignore_index=True)
    shuffled = table.sample(frac=1.0, random_state=3).reset_index(drop=True)
    r1 = decision_margin_consistency(table, settings=dmc_settings(n_resamples=100, seed=4)).summary_table
    r2 = decision_margin_consistency(shuffled, settings=dmc_settings(n_resamples=100, seed=4)).summary_table
    pd.testing.assert_frame_equal(r1, r2)


def test_spearman_dprime_and_observer_levels():
    rng = np.random.default_rng(12)
    d = rng.normal(0.5, 1, 100)
    table, _ = sdt_table(rng, n_humans=6, n_items=100, difficulty=d, models=[("m1", d + rng.normal(0, 0.7, 100))])
    pear = decision_margin_consistency(table, settings=dmc_settings(n_resamples=0))
    spear = decision_margin_consistency(table, settings=dmc_settings(n_resamples=0), method="spearman")
    spear_d = decision_margin_consistency(table, settings=dmc_settings(n_resamples=0), method="spearman", dprime=True)
    items = pear.items.pivot(index="item", columns="observer", values="value")
    expected = stats.spearmanr(items["m1"], items[HUMANS])[0]
    assert spear.table("e").set_index("group").loc["m1", "estimate"] == pytest.approx(expected, abs=1e-12)
    # The index values are the m-AFC d' (1/(2N) correction, below chance -> 0); d' is monotone in accuracy
    # but the below-chance clip merges ranks, so Spearman on d' is Spearman on those values.
    dp = spear_d.items[spear_d.items["observer"] == HUMANS].set_index("item")
    ac = pear.items[pear.items["observer"] == HUMANS].set_index("item")
    np.testing.assert_allclose(dp["value"], accuracy_to_dprime(ac["value"], 4, n_trials=ac["n_responses"]), atol=1e-9)
    expected_d = stats.spearmanr(items["m1"], dp["value"].reindex(items.index))[0]
    assert spear_d.table("e").set_index("group").loc["m1", "estimate"] == pytest.approx(expected_d, abs=1e-12)
    above = ac["value"].reindex(items.index) > 0.25
    assert stats.spearmanr(dp["value"].reindex(items.index)[above], ac["value"].reindex(items.index)[above])[0] == 1.0
    assert spear_d.settings["n_alternatives"] == {"e": 4}
    for level in ("jackknife", "bootstrap", "none"):
        r = decision_margin_consistency(table, settings=dmc_settings(n_resamples=100, seed=0, observer_level=level)).table("e")
        r = r.set_index("group")
        assert r.loc["m1", "ci_low"] <= r.loc["m1", "estimate"] <= r.loc["m1", "ci_high"]
    with pytest.raises(ValueError, match="observer_level"):
        decision_margin_consistency(table, settings=dmc_settings(observer_level="both"))
    with pytest.raises(TrialTableError, match="unknown experiment"):
        decision_margin_consistency(table, experiments=["nope"])


def test_frame_and_json_layout(demo_trials):
    result = decision_margin_consistency(demo_trials, experiments=["sim-noise", "sim-blur"], settings=dmc_settings(n_resamples=50))
    frame = result.summary_table
    assert list(frame.columns) == list(D.FRAME_COLUMNS)
    tidy = result.to_frame()
    assert list(tidy.columns[:3]) == ["measure", "scope", "group"] and set(tidy.columns) == {"measure", *frame.columns}
    assert {"estimate", "ci_low", "ci_high", "undefined_share", "reason"} <= set(result.resampled.to_frame())
    assert set(frame["level"]) == {"condition", "experiment", "overall"}
    doc = result.to_json_dict()
    assert set(doc["experiments"]) == {"sim-noise", "sim-blur"}
    one = result.to_json_dict("sim-noise")
    assert {"mean", "ci_low", "ci_high", "n_splits", "conditions"} <= set(one["human_human"])
    assert set(one["human_human"]["conditions"]) == {"0.00", "0.10", "0.20", "0.35"}
    assert set(one["model_human"]) == {"model-alien", "model-humanlike", "model-medium", "model-strong",
                                       "model-texture"}
    assert {"mean", "ci_low", "ci_high", "n_pairs", "conditions"} <= set(one["model_model"])
    # The experiment value is the mean over its conditions.
    conds = [c["mean"] for c in one["model_human"]["model-strong"]["conditions"].values()]
    assert one["model_human"]["model-strong"]["mean"] == pytest.approx(np.mean(conds))
    # The simulated human-like model is closest to humans, the alien one near zero.
    mh = {m: e["mean"] for m, e in doc["model_human"].items()}
    assert max(mh, key=mh.get) == "model-humanlike" and abs(mh["model-alien"]) < 0.1
    assert doc["human_human"]["mean"] > mh["model-humanlike"]
    assert doc["model_human_mean"]["mean"] == pytest.approx(np.mean(list(mh.values())))
    assert result.table("overall").set_index("group").loc[MODEL_HUMAN_MEAN, "n"] == 2


# --------------------------------------------------------------------------------------------------
# Self-consistency
# --------------------------------------------------------------------------------------------------


def test_self_consistency_recovers_noise_share_and_kappa():
    rng = np.random.default_rng(13)
    table, p = sdt_table(rng, n_humans=6, n_items=2500, repeats=2)
    sc = self_consistency(table)
    truth = np.mean(p * (1 - p)) / (p.mean() * (1 - p.mean()))
    pooled = sc.conditions.iloc[0]
    assert pooled["noise_share"] == pytest.approx(truth, abs=0.02)
    assert pooled["accuracy_first"] == pytest.approx(pooled["accuracy_second"], abs=0.02)
    # Item-level test-retest r (each side pools 6 single responses) estimates the 6-observer reliability.
    assert pooled["item_r"] == pytest.approx(true_reliability(p, 6), abs=0.03)
    obs = sc.observers.iloc[0]
    h = table[table["observer"] == obs["observer"]].sort_values(["repeat", "item"])
    x1 = h[h["repeat"] == 0]["correct"].to_numpy()
    x2 = h[h["repeat"] == 1]["correct"].to_numpy()
    assert obs["error_consistency"] == pytest.approx(kappa(*counts_from_correctness(x1, x2)))
    assert obs["phi"] == pytest.approx(np.corrcoef(x1, x2)[0, 1])
    a, b, c, d = counts_from_correctness(x1, x2)
    pbar = (2 * a + b + c) / (2 * len(x1))
    scott = 1 - ((b + c) / len(x1)) / (2 * pbar * (1 - pbar))
    assert obs["noise_share"] == pytest.approx(1 - scott)
    # The DMC pipeline attaches it and pools both presentations into the human index.
    result = decision_margin_consistency(table, settings=dmc_settings(n_resamples=0))
    assert result.self_consistency is not None
    assert (result.items.loc[result.items["observer"] == HUMANS, "n_responses"] == 12).all()
    assert "self_consistency" in result.to_json_dict()
    with pytest.raises(TrialTableError, match="repeat"):
        self_consistency(table[table["repeat"] == 0].drop(columns="repeat"))


# --------------------------------------------------------------------------------------------------
# EC and DMC against accuracy
# --------------------------------------------------------------------------------------------------


def test_consistency_vs_accuracy_frames(demo_trials):
    result = decision_margin_consistency(demo_trials, experiments=["sim-rotation"], settings=dmc_settings(n_resamples=100))
    comp = consistency_vs_accuracy(demo_trials, dmc_result=result, settings=dmc_settings(n_resamples=100))
    m = comp.models
    assert set(m["measure"]) == {"error_consistency", DMC}
    assert m.groupby("measure")["observer"].nunique().to_dict() == {"error_consistency": 5, DMC: 5}
    assert m["accuracy"].between(0, 1).all()
    lv = comp.levels.set_index(["measure", "group"])
    assert len(lv) == 6
    assert np.isfinite(lv[["estimate", "ci_low", "ci_high"]].to_numpy()).all()
    # DMC levels are the DMC result's own numbers.
    hh = result.table("sim-rotation").set_index("group").loc[HUMANS, "estimate"]
    assert lv.loc[(DMC, "human-human"), "estimate"] == pytest.approx(hh)
    ec_mean = m[m["measure"] == "error_consistency"]["estimate"].mean()
    assert lv.loc[("error_consistency", "model-human (mean)"), "estimate"] == pytest.approx(ec_mean)
    assert len(comp.to_frame()) == len(m) + len(comp.levels)


# --------------------------------------------------------------------------------------------------
# Real data: model-vs-human humans with the decision-margin fork's models
# --------------------------------------------------------------------------------------------------


def test_real_loader_combines_both_folders_without_losing_items(combined_trials, mvh_trials):
    humans = combined_trials[combined_trials["observer_kind"] == "human"]
    mvh_humans = mvh_trials[mvh_trials["observer_kind"] == "human"]
    key = ["experiment", "condition", "observer", "item"]
    assert len(humans) == len(mvh_humans)
    assert set(map(tuple, humans[key].to_numpy())) == set(map(tuple, mvh_humans[key].to_numpy()))
    with_margins = combined_trials[combined_trials["decision_margin"].notna()]
    assert with_margins["observer"].nunique() == 15
    # Every model with margins answered exactly the items the humans answered, in every condition.
    human_items = humans.groupby(["experiment", "condition"])["item"].agg(frozenset)
    model_items = with_margins.groupby(["observer", "experiment", "condition"])["item"].agg(frozenset)
    for (model, experiment, condition), items in model_items.items():
        assert items == human_items[(experiment, condition)], (model, experiment, condition)
    assert len(model_items) == 15 * len(human_items)
    # Stored margins agree with correctness: margin > 0 exactly when correct.
    assert ((with_margins["decision_margin"] > 0) == with_margins["correct"]).all()


def test_real_dmc_on_edge(combined_trials):
    result = decision_margin_consistency(combined_trials, experiments=["edge"], settings=dmc_settings(n_resamples=200, seed=0), validate=False)
    doc = result.to_json_dict()
    hh = doc["human_human"]
    assert np.isfinite(hh["mean"]) and 0.5 < hh["mean"] <= 1.0
    assert hh["n_splits"] == 126  # 10 observers: C(10, 5) / 2 unique splits
    assert hh["ci_low"] < hh["mean"] < hh["ci_high"]
    assert len(doc["model_human"]) == 15
    assert len(result.skipped_models) == 6 and all(m.startswith("swag") for m in result.skipped_models)
    for entry in doc["model_human"].values():
        assert -1 <= entry["mean"] <= 1 and entry["ci_low"] <= entry["mean"] <= entry["ci_high"]
        assert entry["mean"] < hh["mean"]
    assert doc["model_model"]["n_pairs"] == 105
    assert (result.items.groupby("observer").size() == 160).all()


def test_consistency_vs_accuracy_reuses_one_ec_run_and_selection_does_not_matter(demo_trials):
    from humanlike import error_consistency
    from humanlike.resampling.settings import ResamplingSettings

    both = ["sim-blur", "sim-rotation"]
    dmc = decision_margin_consistency(demo_trials, experiments=both, settings=dmc_settings(n_resamples=200, observer_level="none"))
    together = consistency_vs_accuracy(demo_trials, dmc_result=dmc,
                                       settings=dmc_settings(n_resamples=200, observer_level="none"))
    alone = consistency_vs_accuracy(demo_trials, dmc_result=dmc, experiments=["sim-rotation"],
                                    settings=dmc_settings(n_resamples=200, observer_level="none"))
    ec_cols = ["observer", "estimate", "ci_low", "ci_high"]
    pick = lambda c: c.models[(c.models["experiment"] == "sim-rotation")  # noqa: E731
                              & (c.models["measure"] == "error_consistency")][ec_cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(pick(together), pick(alone))
    # A given EC result is used as it is: its model rows are the comparison's.
    ec = error_consistency(demo_trials, settings=ResamplingSettings(n_resamples=200, seed=0))
    reused = consistency_vs_accuracy(demo_trials, dmc_result=dmc, ec_result=ec)
    rows = ec.summary_table[(ec.summary_table["scope"] == "sim-rotation") & (ec.summary_table["metric"] == "error_consistency")]
    expected = rows.set_index("group").loc[pick(reused)["observer"], "estimate"].to_numpy()
    np.testing.assert_allclose(pick(reused)["estimate"].to_numpy(), expected)
    np.testing.assert_allclose(pick(reused)["estimate"].to_numpy(), pick(together)["estimate"].to_numpy())
