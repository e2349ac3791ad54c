"""The OOD-spectrum pipeline (issue 4): simulation recovery, plumbing of the tests, vectorised alignment
against the reference metrics, and the real model-vs-human data end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from humanlike.measures.ood import analysis as ood
from humanlike.measures.ec.analysis import error_consistency
from humanlike.trials.schema import TrialTableError
from humanlike.trials.simulate import CLASSES_16, SDTObserver, simulate_sdt_observers
from humanlike.measures.ood.alignment_divergence import class_level_error_divergence, class_level_error_divergence_batch
from humanlike.measures.ood.alignment_metric import (
    confusion_counts, encode_classes, error_agreement_matrix, misclassification_agreement,
    misclassification_agreement_batch,
)
from humanlike.stats.multiple import benjamini_hochberg
from humanlike.measures.ood.alignment_sums import AlignmentOptions, PairAlignmentSums, pair_indices
from humanlike.resampling.draws import item_weights
from humanlike.resampling.settings import ResamplingSettings

# ------------------------------------------------------------------------------------------ generators


def bernoulli_trials(accuracy: dict, n_items=400, n_humans=8, observer_sd=0.02, seed=0) -> pd.DataFrame:
    """Humans answering with planted accuracies ``{(experiment, condition): accuracy}``; wrong answers
    uniformly among the other 15 classes."""
    rng = np.random.default_rng(seed)
    classes = np.array(CLASSES_16, dtype=object)
    rows = []
    for (exp, cond), acc in accuracy.items():
        labels = rng.integers(0, 16, n_items)
        items = [f"{exp}_{cond}_{i:04d}" for i in range(n_items)]
        for h in range(n_humans):
            p = np.clip(acc + rng.normal(0, observer_sd), 0.02, 0.98)
            correct = rng.random(n_items) < p
            wrong = (labels + rng.integers(1, 16, n_items)) % 16
            resp = np.where(correct, labels, wrong)
            rows.append(pd.DataFrame({
                "observer": f"subject-{h + 1:02d}", "observer_kind": "human", "experiment": exp,
                "condition": cond, "item": items, "label": classes[labels], "response": classes[resp],
                "correct": correct}))
    return pd.concat(rows, ignore_index=True)


PLANTED = {0: 0.9, 1: 0.6, 2: 0.3}   # cluster -> accuracy


@pytest.fixture(scope="module")
def planted():
    """Three planted difficulty clusters (accuracy 0.9 / 0.6 / 0.3, jittered per condition), 4 experiments."""
    rng = np.random.default_rng(100)
    acc, truth = {}, {}
    for e in ("exp-a", "exp-b", "exp-c", "exp-d"):
        for cluster, a in PLANTED.items():
            for j in range(3):
                cond = f"{cluster}{j}"
                acc[(e, cond)] = a + (0.0 if (cluster == 0 and j == 0) else rng.normal(0, 0.02))
                truth[(e, cond)] = cluster
    trials = bernoulli_trials(acc)
    reference = {e: "00" for e in ("exp-a", "exp-b", "exp-c", "exp-d")}
    spec_bic = ood.ood_spectrum(trials, reference, n_observer_resamples=0, seed=1)
    spec_3 = ood.ood_spectrum(trials, reference, regimes=3, n_observer_resamples=200, seed=1)
    return trials, truth, spec_bic, spec_3


def sdt_trials(seed=0) -> pd.DataFrame:
    """Signal-detection humans with a planted difficulty (d' multiplier per level), a model generated
    exactly like the humans ('twin') and one that errs on unrelated items ('independent')."""
    humans = [SDTObserver(f"subject-{i:02d}", "human", noise_sd=1.0, bias=0.15, shared=1.0) for i in range(6)]
    models = [SDTObserver("twin", "model", noise_sd=1.0, bias=0.15, shared=1.0),
              SDTObserver("independent", "model", noise_sd=1.0, bias=0.15, shared=0.0)]
    rng = np.random.default_rng(seed)
    frames = []
    for e, conds in SDT_LEVELS.items():
        frames.append(simulate_sdt_observers(humans + models, n_items=160, conditions=conds, experiment=e,
                                             dprime_mean=4.0, dprime_sd=1.5, seed=int(rng.integers(2**31))))
    return pd.concat(frames, ignore_index=True)


SDT_LEVELS = {"exp-a": {"0": 1.0, "1": 0.8, "2": 0.55, "3": 0.35, "4": 0.2},
              "exp-b": {"0": 1.0, "1": 0.7, "2": 0.45, "3": 0.25, "4": 0.1}}


@pytest.fixture(scope="module")
def sdt_result():
    trials = sdt_trials()
    return trials, ood.ood_analysis(trials, {"exp-a": "0", "exp-b": "0"}, settings=ResamplingSettings(n_resamples=300, seed=3), n_observer_resamples=100, n_permutations=199)


# ------------------------------------------------------------------------------- spectrum on simulations


def test_planted_clusters_recovered(planted):
    _, truth, spec_bic, spec = planted
    c = spec.conditions
    assert spec.regimes.n_components == 3 and spec.regimes.criterion == "fixed"
    labels = dict(zip(zip(c["experiment"], c["condition"]), c["regime_label"]))
    assert all(labels[k] == truth[k] for k in truth)          # cluster 0 -> reference, 1 -> near, 2 -> far
    assert list(spec.regimes.names) == ["reference", "near-OOD", "far-OOD"]
    assert (c["init_stability"] == 1).all()
    assert (c["bootstrap_stability"] >= 0.9).all()
    # BIC may split a planted cluster (a lone score can earn its own component) but never merges two
    cb = spec_bic.conditions
    assert spec_bic.regimes.n_components >= 3
    per_regime = {lab: {truth[k] for k in zip(g["experiment"], g["condition"])}
                  for lab, g in cb.groupby("regime_label")}
    assert all(len(v) == 1 for v in per_regime.values())
    firsts = [next(iter(per_regime[lab])) for lab in sorted(per_regime)]
    assert firsts == sorted(firsts)                           # regimes ordered like the clusters


def test_planted_scores_follow_difficulty(planted):
    _, truth, _, spec = planted
    c = spec.conditions.assign(cluster=[truth[k] for k in zip(spec.conditions["experiment"],
                                                                spec.conditions["condition"])])
    means = c.groupby("cluster")["ood_score"].mean()
    assert means[0] == pytest.approx(0, abs=1.0)
    assert means[0] > means[1] > means[2]
    # the reference pool is the mean-0 set by construction
    assert c.loc[c["is_reference"], "ood_score"].mean() == pytest.approx(0, abs=1e-9)
    # Glass's delta by hand for one condition
    obs = spec.observers
    ref = obs.loc[obs["is_reference"], "logit"].to_numpy()
    cond = obs[(obs["experiment"] == "exp-b") & (obs["condition"] == "21")]["logit"].to_numpy()
    by_hand = (cond.mean() - ref.mean()) / ref.std(ddof=1)
    row = c[(c["experiment"] == "exp-b") & (c["condition"] == "21")].iloc[0]
    assert row["ood_score"] == pytest.approx(by_hand, rel=1e-12)


def test_sdt_planted_order_and_regimes(sdt_result):
    _, res = sdt_result
    c = res.conditions
    for e, levels in SDT_LEVELS.items():
        sub = c[c["experiment"] == e].set_index("condition")
        planted = [k for k, _ in sorted(levels.items(), key=lambda kv: -kv[1])]
        assert list(sub.index) == planted                       # listed least distorted first
        scores = sub.loc[planted, "ood_score"].to_numpy()
        assert np.all(np.diff(scores) < 0)                      # harder level, lower score
    multipliers = [SDT_LEVELS[e][k] for e, k in zip(c["experiment"], c["condition"])]
    assert sps.spearmanr(multipliers, c["ood_score"]).statistic > 0.95
    # regimes ordered by score: a lower score never sits in an earlier regime
    order = np.argsort(-c["ood_score"].to_numpy())
    assert np.all(np.diff(c["regime_label"].to_numpy()[order]) >= 0)
    assert np.all(np.diff(res.spectrum.regimes.means) < 0)


def test_alignment_ratio_twin_vs_independent(sdt_result):
    _, res = sdt_result
    r = res.alignment.ratios()
    twin = r[r["model"] == "twin"]["ratio"]
    indep = r[r["model"] == "independent"]["ratio"]
    assert 0.75 < twin.mean() < 1.25
    assert indep.mean() < 0.3
    rr = res.alignment.regime_ratios
    for regime, g in rr.groupby("regime"):
        g = g.set_index("model")
        assert g.loc["twin", "ratio"] > g.loc["independent", "ratio"]
        assert g.loc["twin", "rank"] == 1
        assert g.loc["twin", "ratio_low"] <= g.loc["twin", "ratio"] <= g.loc["twin", "ratio_high"]


def test_ratio_definition(sdt_result):
    _, res = sdt_result
    g = res.alignment.groups
    row = g[(g["experiment"] == "exp-a") & (g["condition"] == "2")].set_index("group")
    expected = (row.loc["twin", "ec"] + row.loc["twin", "ma"]) / (row.loc["humans", "ec"] + row.loc["humans", "ma"])
    assert row.loc["twin", "ratio"] == pytest.approx(expected)
    # per regime: mean over the representative conditions
    reps = res.alignment.representatives
    ratios = res.alignment.ratios().set_index(["experiment", "condition", "model"])["ratio"]
    for regime, sub in reps.groupby("regime"):
        mean = np.mean([ratios[(e, c, "twin")] for e, c in zip(sub["experiment"], sub["condition"])])
        got = res.alignment.regime_ratios.set_index(["regime", "model"]).loc[(regime, "twin"), "ratio"]
        assert got == pytest.approx(mean)


def test_representative_rule(sdt_result):
    _, res = sdt_result
    c = res.conditions
    fit = res.spectrum.regimes
    for r in res.alignment.representatives.itertuples():
        pool = c[(c["experiment"] == r.experiment) & (c["regime"] == r.regime)]
        dist = np.abs(pool["ood_score"] - fit.means[r.regime_label])
        assert pool.loc[dist.idxmin(), "condition"] == r.condition


# --------------------------------------------------------------------------------------- test plumbing


def test_mannwhitney_binomial_bh_plumbing(sdt_result):
    trials, res = sdt_result
    sp = res.spectrum
    c, obs = sp.conditions, sp.observers
    ref_acc = obs.loc[obs["is_reference"], "accuracy"].to_numpy()
    for r in c.itertuples():
        if r.is_reference:   # part of the pool: neither tested nor in the BH family (issue 11)
            assert np.isnan(r.mannwhitney_p) and np.isnan(r.binomial_p) and not r.at_chance
            assert "reference" in r.mannwhitney_reason
            continue
        acc = obs[(obs["experiment"] == r.experiment) & (obs["condition"] == r.condition)]["accuracy"]
        mw = sps.mannwhitneyu(acc, ref_acc, alternative="two-sided", method="asymptotic", use_continuity=True)
        assert r.mannwhitney_p == pytest.approx(mw.pvalue, rel=1e-12)
        sub = trials[(trials["experiment"] == r.experiment) & (trials["condition"] == r.condition)
                     & (trials["observer_kind"] == "human")]
        bt = sps.binomtest(int(sub["correct"].sum()), len(sub), 1 / 16, alternative="greater")
        assert r.binomial_p == pytest.approx(bt.pvalue, rel=1e-9, abs=1e-300)
    assert np.allclose(c["mannwhitney_p_adjusted"], benjamini_hochberg(c["mannwhitney_p"]).adjusted, equal_nan=True)
    assert np.allclose(c["binomial_p_adjusted"], benjamini_hochberg(c["binomial_p"]).adjusted, equal_nan=True)
    tested = c[~c["is_reference"]]
    assert (tested["above_chance"] == (tested["binomial_p_adjusted"] <= 0.05)).all()
    assert sp.settings["n_tests"] == len(tested) == (~c["is_reference"]).sum()
    assert set(sp.normality["scale"]) == {"accuracy", "logit"}
    assert set(sp.normality["test"]) == {"shapiro", "dagostino", "lilliefors"}


def test_mw_variant_exact_and_chance_flag():
    # one condition at chance: its binomial test must not reject
    acc = {("e", "0"): 0.9, ("e", "1"): 0.7, ("e", "2"): 0.05, ("f", "0"): 0.9, ("f", "1"): 0.5}
    trials = bernoulli_trials(acc, n_items=200, n_humans=5, observer_sd=0.0, seed=4)
    sp = ood.ood_spectrum(trials, {"e": "0", "f": "0"}, mw_variant="exact", n_observer_resamples=0,
                          regimes=2, seed=0)
    c = sp.conditions.set_index(["experiment", "condition"])
    assert bool(c.loc[("e", "2"), "at_chance"]) and not bool(c.loc[("e", "1"), "at_chance"])
    obs = sp.observers
    ref = obs.loc[obs["is_reference"], "accuracy"]
    a = obs[(obs["experiment"] == "f") & (obs["condition"] == "1")]["accuracy"]
    assert c.loc[("f", "1"), "mannwhitney_p"] == pytest.approx(
        sps.mannwhitneyu(a, ref, alternative="two-sided", method="exact").pvalue)
    assert sp.regimes.criterion == "fixed" and sp.regimes.n_components == 2
    assert np.isnan(c["bootstrap_stability"]).all()


def test_reference_errors(demo_trials):
    with pytest.raises(TrialTableError, match="reference"):
        ood.ood_spectrum(demo_trials, n_observer_resamples=0)             # no model-vs-human conditions
    with pytest.raises(TrialTableError, match="sim-blur=99"):
        ood.ood_spectrum(demo_trials, {"sim-blur": "99"}, n_observer_resamples=0)
    with pytest.raises(ValueError, match="mw_variant"):
        ood.ood_spectrum(demo_trials, {"sim-blur": "0"}, mw_variant="wilcoxon")


def test_condition_order():
    assert ood.condition_order(["c01", "c100", "c50", "c10"], "c100") == ["c100", "c50", "c10", "c01"]
    assert ood.condition_order(["0.4", "inf", "3", "1"], "inf") == ["inf", "3", "1", "0.4"]
    assert ood.condition_order(["16-3-10", "1-3-10", "128-3-10", "2-3-10"]) == \
        ["1-3-10", "2-3-10", "16-3-10", "128-3-10"]
    assert ood.condition_order(["false", "true"], accuracy={"false": 0.8, "true": 0.9}) == ["true", "false"]


def test_families_default_and_fallback():
    fam = ood.families_for(["resnet50", "swag-vit-b16-in1k", "mystery"])
    assert fam == {"resnet50": "resnet", "swag-vit-b16-in1k": "swag-vit", "mystery": "mystery"}
    assert len(set(ood.DEFAULT_FAMILIES.values())) == 3 and len(ood.DEFAULT_FAMILIES) == 9


# ---------------------------------------------------------------- vectorised alignment vs the metrics


class _Cond:
    def __init__(self, observers, n_humans, labels, responses, observed):
        self.observers, self.n_humans, self.labels, self.responses, self.observed = (
            observers, n_humans, labels, responses, observed)


def _random_condition(seed, n=80, k=6, n_obs=5, n_humans=3):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    resp = np.where(rng.random((n, n_obs)) < 0.45, labels[:, None], rng.integers(0, k, (n, n_obs)))
    resp[rng.random((n, n_obs)) < 0.05] = -1            # no answer
    observed = rng.random((n, n_obs)) < 0.95
    resp = np.where(observed, resp, -2)
    return _Cond([f"o{i}" for i in range(n_obs)], n_humans, labels, resp, observed)


@pytest.mark.parametrize("mixture", ["average", "pooled"])
@pytest.mark.parametrize("weighting", ["errors", "uniform"])
def test_weighted_alignment_matches_metrics(mixture, weighting):
    k = 6
    cond = _random_condition(11, k=k)
    first, second, _ = pair_indices(cond.n_humans, len(cond.observers))
    feats = PairAlignmentSums(cond.labels, cond.responses, k, first, second)
    w = item_weights(2, ("test",), cond.labels.size, 0, 9)
    opts = AlignmentOptions("strict", "nan", 0.5, mixture, None, weighting)
    ec, ma, cled = feats.reduce(w @ feats.statistics, opts)
    answered = cond.responses >= 0
    wrong = answered & (cond.responses != cond.labels[:, None])
    conf = np.zeros((w.shape[0], len(cond.observers), k, k))
    for o in range(len(cond.observers)):
        for t in np.flatnonzero(wrong[:, o]):
            conf[:, o, cond.labels[t], cond.responses[t, o]] += w[:, t]
    ref = class_level_error_divergence_batch(conf[:, first], conf[:, second], mixture=mixture, weighting=weighting)
    np.testing.assert_allclose(cled, ref, rtol=2e-5, atol=2e-6)    # float32 replicates
    joint = np.zeros((w.shape[0], first.size, k, k))
    for p, (i, j) in enumerate(zip(first, second)):
        for t in np.flatnonzero(wrong[:, i] & wrong[:, j]):
            joint[:, p, cond.responses[t, i], cond.responses[t, j]] += w[:, t]
    np.testing.assert_allclose(ma, misclassification_agreement_batch(joint), rtol=1e-10, equal_nan=True)
    # on the data itself (float64): the single-table metrics
    ones = feats.statistics.astype(float).sum(axis=0, keepdims=True)
    ec0, ma0, cled0 = (m[0] for m in feats.reduce(ones, AlignmentOptions("strict", "one", 0.5, mixture, None, weighting)))
    for p, (i, j) in enumerate(zip(first, second)):
        both = cond.observed[:, i] & cond.observed[:, j]
        ok = both & answered[:, i] & answered[:, j]
        m = error_agreement_matrix(cond.labels[ok], cond.responses[ok, i], cond.responses[ok, j], k)
        assert ma0[p] == pytest.approx(misclassification_agreement(m, undefined="one").value, abs=1e-12)
        ci = confusion_counts(cond.labels[answered[:, i]], cond.responses[answered[:, i], i], k)
        cj = confusion_counts(cond.labels[answered[:, j]], cond.responses[answered[:, j], j], k)
        want = class_level_error_divergence(ci, cj, mixture=mixture, weighting=weighting).value
        assert cled0[p] == pytest.approx(want, abs=1e-12)


def test_ec_matches_error_consistency_pipeline(sdt_result):
    trials, res = sdt_result
    pairs = res.alignment.pairs
    ref = error_consistency(trials, experiments=["exp-b"], settings=ResamplingSettings(n_resamples=0)).pairs
    ref = ref.set_index(["condition", "observer_1", "observer_2"])["error_consistency"]
    mine = pairs[pairs["experiment"] == "exp-b"]
    for r in mine.itertuples():
        key = (r.condition, *sorted([r.observer_1, r.observer_2], key=lambda o: (o.startswith("subject") is False, o)))
        if key not in ref.index:
            key = (r.condition, r.observer_2, r.observer_1)
        assert r.ec == pytest.approx(ref[key], abs=1e-12)
    assert (mine["pair_kind"] == "human-human").sum() == 5 * 15
    assert (mine["pair_kind"] == "model-human").sum() == 5 * 12


def test_condition_cled_matrix_and_mds(sdt_result):
    trials, res = sdt_result
    d = res.condition_cled
    n = len(res.conditions)
    assert d.shape == (n, n) and np.allclose(d, d.T) and np.all(np.diag(d) == 0)
    assert np.all((d >= 0) & (d <= 1))
    # one entry by hand: pooled human confusions of two conditions
    hum = trials[(trials["observer_kind"] == "human") & (trials["response"] != "na")]
    classes = tuple(sorted(set(trials["label"])))

    def conf(e, c):
        s = hum[(hum["experiment"] == e) & (hum["condition"] == c)]
        return confusion_counts(encode_classes(s["label"], classes)[0], encode_classes(s["response"], classes)[0],
                                len(classes))

    want = class_level_error_divergence(conf("exp-a", "1"), conf("exp-b", "3")).value
    keys = list(zip(res.conditions["experiment"], res.conditions["condition"]))
    assert d[keys.index(("exp-a", "1")), keys.index(("exp-b", "3"))] == pytest.approx(want)
    xy = ood.classical_mds(d)
    assert xy.shape == (n, 2) and np.isfinite(xy).all()
    # classical MDS reproduces Euclidean distances exactly
    pts = np.random.default_rng(0).normal(size=(7, 2))
    dist = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    emb = ood.classical_mds(dist)
    np.testing.assert_allclose(np.sqrt(((emb[:, None] - emb[None]) ** 2).sum(-1)), dist, atol=1e-10)


def test_result_frames_and_json(sdt_result):
    _, res = sdt_result
    assert res.to_wide() is res.spectrum.conditions
    doc = res.to_json_dict()
    keys = {"experiment", "condition", "ood_score", "regime", "human_accuracy", "mannwhitney_p",
            "mannwhitney_p_adjusted", "binomial_p", "binomial_p_adjusted", "above_chance"}
    assert all(keys <= set(c) for c in doc["conditions"])
    assert len(doc["conditions"]) == 10
    assert [r["regime"] for r in doc["regimes"]] == list(res.spectrum.regimes.names)
    m = doc["regimes"][0]["models"][0]
    assert {"model", "family", "ratio", "ratio_low", "ratio_high", "rank", "rank_low", "rank_high"} <= set(m)
    assert {"family_profiles", "regime_vs_distortion"} == set(doc["tests"])
    assert res.alignment.to_wide() is res.alignment.groups
    assert 0 < res.regime_test.p_value <= 1


def test_seeded_reproducibility():
    trials = sdt_trials(seed=5)
    kw = dict(settings=ResamplingSettings(n_resamples=50, seed=7), n_observer_resamples=30, n_permutations=99,
              n_init=3, max_regimes=3)
    a = ood.ood_analysis(trials, {"exp-a": "0", "exp-b": "0"}, **kw)
    b = ood.ood_analysis(trials, {"exp-a": "0", "exp-b": "0"}, **kw)
    pd.testing.assert_frame_equal(a.alignment.groups, b.alignment.groups)
    pd.testing.assert_frame_equal(a.conditions, b.conditions)
    assert a.regime_test.p_value == b.regime_test.p_value


# ------------------------------------------------------------------------------------------ real data


@pytest.fixture(scope="module")
def mvh_result(mvh_trials):
    return ood.ood_analysis(mvh_trials, settings=ResamplingSettings(n_resamples=200, seed=0), n_observer_resamples=100, n_permutations=999)


def test_real_data_spectrum(mvh_result, mvh_trials):
    c = mvh_result.conditions
    n_conditions = len(mvh_trials[["experiment", "condition"]].drop_duplicates())
    assert len(c) == n_conditions == 78
    assert np.isfinite(c["ood_score"]).all()
    ref = c[c["is_reference"]]
    assert set(zip(ref["experiment"], ref["condition"])) == set(ood.DEFAULT_REFERENCE.items())
    assert (ref["n_humans"] == 4).all()
    assert ref["ood_score"].mean() == pytest.approx(0, abs=1e-9)
    assert (ref["ood_score"].abs() < 2).all()
    assert set(ref["regime"]) == {"reference"}
    fit = mvh_result.spectrum.regimes
    assert fit.n_components >= 2 and np.all(np.diff(fit.means) < 0)
    order = np.argsort(-c["ood_score"].to_numpy())
    assert np.all(np.diff(c["regime_label"].to_numpy()[order]) >= 0)
    # the hardest levels are at chance, the references are not
    assert bool(c.set_index(["experiment", "condition"]).loc[("contrast", "c01"), "at_chance"])
    assert not ref["at_chance"].any()
    hardest = c.loc[c["ood_score"].idxmin()]
    assert hardest["regime"] == fit.names[-1]


def test_real_data_alignment(mvh_result):
    al = mvh_result.alignment
    assert len(al.models) == 9
    rr = al.regime_ratios
    for regime in ("reference", "near-OOD"):
        sub = rr[rr["regime"] == regime]
        assert len(sub) == 9
        assert np.isfinite(sub["ratio"]).all() and np.isfinite(sub["ratio_low"]).all()
        assert sorted(sub["rank"]) == list(range(1, 10))
        assert ((sub["ratio"] > 0) & (sub["ratio"] < 1.5)).all()
    g = al.groups
    humans = g[g["group"] == ood.HUMANS]
    assert len(humans) == 78
    easy = humans[humans["regime"] == "reference"]
    assert (easy["ec"] > 0).mean() > 0.9                          # humans agree beyond chance when they can
    assert al.pairs["cled"].between(0, 1).all()
    prof = mvh_result.profiles
    assert prof.shape[0] == 9 and prof.shape[1] >= 30
    assert np.isfinite(mvh_result.family_test.p_value)
    assert np.isfinite(mvh_result.regime_test.statistic)


def test_real_data_estimates_identical_to_pre_port_code(mvh_result):
    """Group EC / MA / CLED / ratio and OOD scores on model-vs-human equal commit bd872ce's (to 1e-12)."""
    from pathlib import Path

    keys = ["experiment", "condition", "group"]
    old = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "ood_reference_real.csv",
                      dtype={"condition": str}).set_index(keys)
    new = mvh_result.alignment.groups.set_index(keys).reindex(old.index)
    assert len(old) == 780 and not new["ec"].isna().all()
    for col in ("ec", "ma", "cled", "ratio", "accuracy", "ood_score"):
        np.testing.assert_allclose(new[col], old[col], rtol=0, atol=1e-12, equal_nan=True)


def test_real_data_regimes_do_not_depend_on_the_seed(mvh_result, mvh_trials):
    other = ood.ood_spectrum(mvh_trials, n_observer_resamples=0, seed=12345)
    assert other.conditions["regime"].tolist() == mvh_result.conditions["regime"].tolist()
    assert mvh_result.spectrum.settings["n_tests"] == 78 - 7


def test_real_data_every_number_unchanged(mvh_result):
    """Every output of the model-vs-human analysis equals main's before the speed-up (issue 7):
    tests/data/ood_speed_reference.npz, from tests/data/make_ood_speed_reference.py."""
    from pathlib import Path

    with np.load(Path(__file__).resolve().parents[2] / "data" / "ood_speed_reference.npz") as stored:
        reference = {k: stored[k] for k in stored.files}
    rounding = 2e-5   # float32 replicates
    r = mvh_result
    res = r.resampled
    assert (np.array(["|".join(map(str, lab)) for lab in res.labels]) == reference["labels"]).all()
    np.testing.assert_allclose(res.estimate, reference["estimate"], rtol=0, atol=1e-12, equal_nan=True)
    low, high = res.interval()
    # Issue 22: a column whose resamples all give one value has no interval now (NaN with a reason) where the
    # reference stored the zero-width [x, x]; every other interval is unchanged.
    flat = res.degenerate()
    assert np.isnan(low[flat]).all() and np.isnan(high[flat]).all()
    np.testing.assert_allclose(reference["low"][flat], reference["high"][flat], rtol=0, atol=rounding)
    np.testing.assert_allclose(low[~flat], reference["low"][~flat], rtol=0, atol=rounding, equal_nan=True)
    np.testing.assert_allclose(high[~flat], reference["high"][~flat], rtol=0, atol=rounding, equal_nan=True)
    np.testing.assert_array_equal(res.undefined_share(), reference["undefined_share"])
    cond = r.spectrum.conditions
    for column in ("ood_score", "ood_score_low", "ood_score_high", "init_stability", "bootstrap_stability"):
        np.testing.assert_allclose(cond[column].to_numpy(float), reference[column], rtol=0, atol=1e-12,
                                   equal_nan=True, err_msg=column)
    np.testing.assert_array_equal(cond["regime_label"].to_numpy(), reference["regime_label"])
    fit = r.spectrum.regimes
    for name in ("means", "sds", "weights"):
        np.testing.assert_allclose(getattr(fit, name), reference[f"regime_{name}"], rtol=1e-9, err_msg=name)
    np.testing.assert_allclose(fit.bic, reference["bic"], rtol=1e-9, equal_nan=True)
    tests = [r.family_test.statistic, r.family_test.p_value, r.regime_test.statistic, r.regime_test.p_value]
    np.testing.assert_allclose(tests, reference["tests"], rtol=1e-9)


# --- issue 22: a reference pool whose SD is only the logit correction ----------------------------------

def _ceiling_reference_trials(halve_blur_reference: bool):
    """sim-noise and sim-blur with every human 100% correct in both reference conditions; sim-blur's
    reference optionally has half the items (different trial counts, different corrected logits)."""
    from humanlike.trials.simulate import simulate_benchmark

    t = simulate_benchmark(seed=0)
    t = t[t["experiment"].isin(["sim-noise", "sim-blur"])].copy()
    is_ref = (((t["experiment"] == "sim-noise") & (t["condition"] == "0.00"))
              | ((t["experiment"] == "sim-blur") & (t["condition"] == "0")))
    human = t["observer_kind"] == "human"
    t.loc[is_ref & human, "response"] = t.loc[is_ref & human, "label"]
    t["correct"] = t["response"] == t["label"]
    if halve_blur_reference:
        blur_ref = (t["experiment"] == "sim-blur") & (t["condition"] == "0")
        items = sorted(t.loc[blur_ref, "item"].unique())
        t = t[~(blur_ref & t["item"].isin(items[::2]))]
    return t


def test_a_reference_pool_whose_sd_is_only_the_logit_correction_is_refused():
    # Every human 100% correct in two reference conditions of different length: the reference SD (0.36 here,
    # 0.740 in the issue) is pure logit correction, and every score used to land in one regime.
    from humanlike.measures.ood.spectrum import spectrum_regimes
    from humanlike.trials.schema import TrialTableError

    reference = {"sim-noise": "0.00", "sim-blur": "0"}
    with pytest.raises(TrialTableError, match=r"accuracy 100% \(sim-blur / 0: 80 trials; sim-noise / 0.00: "
                                              r"160 trials\).*only from the 'half' logit correction"):
        spectrum_regimes(_ceiling_reference_trials(True), reference, n_observer_resamples=0)
    with pytest.raises(TrialTableError, match="'clip' logit correction"):
        spectrum_regimes(_ceiling_reference_trials(True), reference, n_observer_resamples=0, logit_correction="clip")
    # Equal lengths: SD 0, the scores are undefined with that reason (unchanged), hence the same clear error.
    with pytest.raises(TrialTableError, match="reference values have SD 0"):
        spectrum_regimes(_ceiling_reference_trials(False), reference, n_observer_resamples=0)


def test_a_reference_pool_with_one_human_error_is_accepted():
    from humanlike.measures.ood.spectrum import spectrum_regimes

    t = _ceiling_reference_trials(True)
    wrong = t.index[(t["experiment"] == "sim-noise") & (t["condition"] == "0.00") & (t["observer_kind"] == "human")][0]
    labels = sorted(t["label"].unique())
    t.loc[wrong, "response"] = next(label for label in labels if label != t.loc[wrong, "label"])
    t["correct"] = t["response"] == t["label"]
    fitted = spectrum_regimes(t, {"sim-noise": "0.00", "sim-blur": "0"}, n_observer_resamples=0)
    assert np.isfinite(fitted.conditions["ood_score"]).all()


def test_the_ood_command_refuses_the_ceiling_reference_with_a_clear_error(tmp_path, capsys):
    from humanlike.app.cli import main

    path = tmp_path / "ceiling.csv"
    _ceiling_reference_trials(True).to_csv(path, index=False)
    code = main(["ood", str(path), "--reference", "sim-noise=0.00", "sim-blur=0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "humanlike ood: error:" in err and "logit correction" in err and "Traceback" not in err
