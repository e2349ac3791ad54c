"""Paired comparisons (humanlike.compare): formulas by hand, identical models, level by simulation, the CLI."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.compare.adapters import compare
from humanlike.measures.ec.exchange import ec_label_exchange_test, exchange_counts
from humanlike.measures.dmc.analysis import decision_margin_consistency
from humanlike.measures.ec.analysis import error_consistency
from humanlike.trials.simulate import SDTObserver, simulate_benchmark, simulate_copy_pair
from humanlike.measures.pairs.metric import kappa
from humanlike.stats.comparison import bootstrap_p_value, compare_scores
from humanlike.stats.letters import compact_letters
from humanlike.stats.multiple import adjust, holm
from humanlike.stats.scores import Scores, brainscore_ceiled, ceiling_ratio
from humanlike.resampling.settings import ResamplingSettings
from humanlike.measures.dmc.analysis import dmc_settings

# --- formulas by hand ----------------------------------------------------------------------------------------


def test_holm_hand_values_and_nan():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.6]).tolist() == pytest.approx([1.0, 1.0])
    out = holm([0.01, np.nan, 0.02])
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1]) and out[2] == pytest.approx(0.02)
    with pytest.raises(ValueError):
        holm([1.5])


def test_holm_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.random.default_rng(1).uniform(size=12) ** 2
    assert holm(p) == pytest.approx(multitest.multipletests(p, method="holm")[1])


def test_adjust_names_each_correction():
    p = [0.01, 0.04, 0.03]
    assert adjust(p, "holm").tolist() != adjust(p, "bh").tolist() != adjust(p, "none").tolist()
    assert adjust(p, "none").tolist() == p
    with pytest.raises(ValueError, match="correction"):
        adjust(p, "bonferroni")


def test_bootstrap_p_value_hand_values():
    # 10 replicates, 2 at or below 0: p = 2 (1 + 2) / 11
    d = np.array([-0.2, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    assert float(bootstrap_p_value(d)) == pytest.approx(6 / 11)
    assert float(bootstrap_p_value(np.zeros(50))) == 1.0
    assert float(bootstrap_p_value(np.r_[np.nan, np.ones(9)])) == pytest.approx(2 / 10)   # NaN left out
    assert np.isnan(bootstrap_p_value(np.full((3, 1), np.nan))[0])
    # the null is a parameter: a ratio tested against 1
    assert float(bootstrap_p_value(np.full(9, 1.0), null=1.0)) == 1.0


def test_ceiling_ratio_and_brainscore_by_hand():
    ratio, reps = ceiling_ratio([0.2, -0.1], [[0.2, -0.1], [0.3, 0.0]], 0.4, [0.4, 0.0])
    assert ratio.tolist() == pytest.approx([0.5, -0.25])
    assert reps[0].tolist() == pytest.approx([0.5, -0.25]) and np.isnan(reps[1]).all()   # ceiling 0: undefined
    # Brain-Score: |raw| / |ceiling| clipped to [0, 1]; a zero ceiling clips inf to 1
    assert brainscore_ceiled([0.1, -0.1, 0.5, np.nan], 0.4).tolist()[:3] == pytest.approx([0.25, 0.25, 1.0])
    assert np.isnan(brainscore_ceiled(np.nan, 0.4))
    assert brainscore_ceiled(0.2, -0.4) == pytest.approx(0.5) and brainscore_ceiled(0.2, 0.0) == 1.0


def test_compact_letters():
    assert compact_letters(["a", "b", "c"], set()) == {"a": "a", "b": "a", "c": "a"}
    assert compact_letters(["a", "b", "c"], {frozenset("ab"), frozenset("ac"), frozenset("bc")}) == \
        {"a": "a", "b": "b", "c": "c"}
    letters = compact_letters(list("abcd"), {frozenset("ac"), frozenset("ad"), frozenset("bd")})
    assert letters == {"a": "a", "b": "ab", "c": "b", "d": "c"} or \
        all(not set(letters[x]) & set(letters[y]) for x, y in ("ac", "ad", "bd"))
    for x, y in ("ab", "bc", "cd"):   # unresolved pairs share a letter
        assert set(letters[x]) & set(letters[y])


def _scores(est, reps, ceiling=0.5, ceiling_reps=None, per=None):
    reps = np.asarray(reps, dtype=float)
    ceiling_reps = np.full(reps.shape[0], ceiling) if ceiling_reps is None else ceiling_reps
    return Scores("error_consistency", "overall", tuple(f"m{k}" for k in range(len(est))), est, reps, ceiling,
                  ceiling_reps, 0.0, {}, per)


def test_compare_scores_difference_interval_and_families():
    rng = np.random.default_rng(0)
    common = rng.normal(size=(999, 1))
    reps = np.array([0.40, 0.30, 0.10]) + 0.05 * common + 0.01 * rng.normal(size=(999, 3))
    result = compare_scores(_scores([0.40, 0.30, 0.10], reps), level=0.9)
    pairs = result.pairs
    assert pairs[["model_a", "model_b"]].values.tolist() == [["m0", "m1"], ["m0", "m2"], ["m1", "m2"]]
    d = reps[:, 0] - reps[:, 1]
    assert pairs.loc[0, "difference"] == pytest.approx(0.10)
    assert pairs.loc[0, "ci_low"] == pytest.approx(np.quantile(d, 0.05))
    assert pairs.loc[0, "ci_high"] == pytest.approx(np.quantile(d, 0.95))
    assert pairs["resolved"].all() and (pairs["family_size"] == 3).all()
    # the marginal intervals overlap by far (common SD 0.05), the paired difference is resolved
    s = result.scores.set_index("model")
    assert s.loc["m0", "ci_low"] < s.loc["m1", "ci_high"]
    frame = result.to_frame()
    assert set(frame["comparison"]) == {"pair", "model vs ceiling", "ceiling vs chance"}
    assert frame.loc[frame["comparison"] == "ceiling vs chance", "difference"].item() == pytest.approx(0.5)
    assert json.dumps(result.to_json_dict())   # JSON-ready


def test_compare_scores_correction_changes_p_adjusted():
    rng = np.random.default_rng(3)
    reps = np.array([0.30, 0.28, 0.26, 0.25]) + 0.02 * rng.normal(size=(2000, 4))
    scores = _scores([0.30, 0.28, 0.26, 0.25], reps)
    holm_p = compare_scores(scores, correction="holm").pairs["p_adjusted"]
    bh_p = compare_scores(scores, correction="bh").pairs["p_adjusted"]
    raw = compare_scores(scores, correction="none").pairs
    assert (raw["p_adjusted"] == raw["p_value"]).all()
    assert (holm_p >= bh_p - 1e-12).all() and (holm_p > bh_p).any()


def test_normalise_options_change_the_scale():
    reps = np.array([[0.2, 0.1], [0.3, 0.1], [0.25, 0.05]])
    per = {"experiments": ["e1", "e2"], "estimate": np.array([[0.2, 0.1], [0.6, -0.1]]),
           "replicates": np.tile(np.array([[0.2, 0.1], [0.6, -0.1]]), (3, 1, 1)), "ceiling": np.array([0.4, 0.5]),
           "ceiling_replicates": np.tile([0.4, 0.5], (3, 1))}
    scores = _scores([0.2, 0.1], reps, ceiling=0.4, per=per)
    ceiled = compare_scores(scores, normalise="ceiling").scores.set_index("model")
    assert ceiled.loc["m0", "normalised"] == pytest.approx(0.5) and ceiled.loc["m1", "normalised"] == pytest.approx(0.25)
    bs = compare_scores(scores, normalise="brainscore").scores.set_index("model")
    # m0: mean(0.2/0.4, clip(0.6/0.5)) = mean(0.5, 1) ; m1: mean(0.25, |-0.1|/0.5)
    assert bs.loc["m0", "normalised"] == pytest.approx(0.75) and bs.loc["m1", "normalised"] == pytest.approx(0.225)
    assert compare_scores(scores).scores["normalised"].isna().all()
    with pytest.raises(ValueError, match="brainscore"):
        compare_scores(_scores([0.2, 0.1], reps), normalise="brainscore")


# --- the exact label-exchange test of one EC table -------------------------------------------------------------


def test_exchange_test_by_enumeration():
    rng = np.random.default_rng(5)
    h, a, b = (rng.uniform(size=(3, 14)) < [[0.7], [0.6], [0.65]])
    diff, p, why = ec_label_exchange_test(h, a, b)
    assert why == ""
    counts = exchange_counts(h, a, b)
    assert diff == pytest.approx(float(kappa(counts[1, 1].sum(), counts[1, 0].sum(), counts[0, 1].sum(),
                                             counts[0, 0].sum()) - kappa(counts[1, :, 1].sum(), counts[1, :, 0].sum(),
                                                                         counts[0, :, 1].sum(), counts[0, :, 0].sum())))
    # brute force: every one of the 2^k swaps of the discordant trials, equally likely
    disc = np.flatnonzero(a != b)
    stats, observed = [], abs(diff)
    for mask in range(2 ** disc.size):
        aa, bb = a.copy(), b.copy()
        for j, t in enumerate(disc):
            if mask >> j & 1:
                aa[t], bb[t] = b[t], a[t]
        c = exchange_counts(h, aa, bb)
        stats.append(abs(kappa(c[1, 1].sum(), c[1, 0].sum(), c[0, 1].sum(), c[0, 0].sum())
                         - kappa(c[1, :, 1].sum(), c[1, :, 0].sum(), c[0, :, 1].sum(), c[0, :, 0].sum())))
    stats = np.array(stats, dtype=float)
    assert p == pytest.approx(np.mean(~(stats < observed * (1 - 1e-12) - 1e-15)))


def test_exchange_test_identical_models_p_one():
    h = np.r_[np.ones(20, bool), np.zeros(8, bool)]
    m = np.r_[np.ones(15, bool), np.zeros(13, bool)]
    assert ec_label_exchange_test(h, m, m) == (0.0, 1.0, "")


# --- identical models: difference exactly 0, p = 1 --------------------------------------------------------------


@pytest.fixture(scope="module")
def duplicated():
    trials = simulate_benchmark(seed=2, n_humans=3, n_items=48,
                                experiments={"sim-noise": {"0": 1.0, "1": 0.6}, "sim-blur": {"0": 1.0}})
    twin = trials[trials["observer"] == "model-medium"].assign(observer="model-medium-twin")
    return pd.concat([trials, twin], ignore_index=True)


def _twin_row(result):
    pairs = result.pairs
    return pairs[pairs[["model_a", "model_b"]].apply(set, axis=1) == {"model-medium", "model-medium-twin"}]


def test_identical_models_ec(duplicated):
    r = error_consistency(duplicated, settings=ResamplingSettings(n_resamples=199, seed=0))
    rows = _twin_row(compare(r))
    assert len(rows) == 1
    row = rows.iloc[0]
    assert row["difference"] == 0.0 and row["ci_low"] == 0.0 and row["ci_high"] == 0.0
    assert row["p_value"] == 1.0 and row["p_adjusted"] == 1.0 and not row["resolved"]


def test_identical_models_ec_one_table_exact(duplicated):
    one = duplicated[(duplicated["observer_kind"] == "model") | (duplicated["observer"] == "subject-01")]
    r = error_consistency(one, experiments=["sim-noise"], condition="1", settings=ResamplingSettings(n_resamples=199, seed=0))
    c = compare(r, trials=one)
    rows = _twin_row(c)
    assert set(rows["test"]) == {"paired bootstrap (percentile-interval inversion)", "exact label exchange"}
    assert (rows["p_value"] == 1.0).all() and (rows["difference"] == 0.0).all()


def test_identical_models_dmc(duplicated):
    r = decision_margin_consistency(duplicated, settings=dmc_settings(n_resamples=199, seed=0))
    row = _twin_row(compare(r)).iloc[0]
    assert row["difference"] == 0.0 and row["p_value"] == 1.0


# --- level by simulation: equal population scores are declared different at most alpha of the time -------------

ALPHA = 0.05


def _planted_pair_trials(seed, n_items, n_humans=2):
    twins = [SDTObserver(name, "model", noise_sd=0.0, sensitivity=0.7, bias=0.0, shared=0.5)
             for name in ("model-a", "model-b")]
    return simulate_benchmark(seed=seed, n_humans=n_humans, models=twins, n_items=n_items,
                              experiments={"sim": {"0": 0.8}})


def _upper(n):
    """alpha plus a one-sided 3-SE Monte-Carlo allowance for n simulated data sets."""
    return ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / n)


def test_level_ec_pipeline():
    n_sets, rejections = 150, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(n_sets):
            trials = _planted_pair_trials(k, 200)
            r = error_consistency(trials, settings=ResamplingSettings(n_resamples=199, seed=k))
            rejections += int(compare(r).pairs["resolved"].iloc[0])
    assert rejections / n_sets <= _upper(n_sets)


def test_level_dmc_pipeline():
    n_sets, rejections = 120, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(n_sets):
            trials = _planted_pair_trials(1000 + k, 200, n_humans=4)
            r = decision_margin_consistency(trials, settings=dmc_settings(n_resamples=199, seed=k, observer_level="none"))
            rejections += int(compare(r).pairs["resolved"].iloc[0])
    assert rejections / n_sets <= _upper(n_sets)


def test_level_exact_exchange_copy_model():
    # one human, two models each copying the human with the same kappa and accuracy, independent given him
    rng = np.random.default_rng(11)
    n_sets, rejections = 600, 0
    for _ in range(n_sets):
        human, a = simulate_copy_pair(150, 0.3, 0.8, 0.75, seed=rng)
        _, b = _copy_second_model(human, 0.3, 0.8, 0.75, rng)
        rejections += ec_label_exchange_test(human, a, b)[1] <= ALPHA
    assert rejections / n_sets <= _upper(n_sets)


def _copy_second_model(human, kappa_, a_human, a_model, rng):
    """A second model copying the same human (copy model), independent of the first given the human."""
    from humanlike.measures.ec.copy_model import cell_probabilities

    p = np.asarray(cell_probabilities(kappa_, a_human, a_model), dtype=float).reshape(-1)   # a, b, c, d
    p_model_given_correct = p[0] / (p[0] + p[1])
    p_model_given_wrong = p[2] / (p[2] + p[3])
    human = np.asarray(human, dtype=bool)
    u = rng.uniform(size=human.size)
    return human, np.where(human, u < p_model_given_correct, u < p_model_given_wrong)


def test_power_exact_and_bootstrap_see_a_planted_difference():
    rng = np.random.default_rng(12)
    hits_exact = 0
    for _ in range(40):
        human, a = simulate_copy_pair(800, 0.6, 0.8, 0.8, seed=rng)
        _, b = _copy_second_model(human, 0.1, 0.8, 0.8, rng)
        hits_exact += ec_label_exchange_test(human, a, b)[1] <= ALPHA
    assert hits_exact >= 36


# --- the command line ---------------------------------------------------------------------------------------------


def test_cli_compare_writes_tables_and_names_the_family(tmp_path, duplicated, capsys):
    from humanlike.app.cli import main

    data = tmp_path / "trials.csv"
    duplicated.to_csv(data, index=False)
    out = tmp_path / "out"
    code = main(["compare", str(data), "--measure", "ec", "--resamples", "99", "--quiet", "--out", str(out),
                 "--models", "model-humanlike", "model-alien", "model-medium", "--correction", "bh",
                 "--normalise", "ceiling"])
    assert code == 0
    text = capsys.readouterr().out
    assert "all pairs of 3 models (3 tests)" in text and "human ceiling" in text
    pairs = pd.read_csv(out / "compare_pairs.csv")
    assert set(pairs["correction"]) == {"bh"} and set(pairs["scale"]) >= {"ratio to human ceiling"}
    doc = json.loads((out / "compare.json").read_text())
    assert doc["settings"]["normalise"] == "ceiling" and len(doc["scores"]) == 3


def test_cli_compare_clear_errors(tmp_path, duplicated, capsys):
    from humanlike.app.cli import main

    data = tmp_path / "trials.csv"
    duplicated.to_csv(data, index=False)
    assert main(["compare", str(data), "--measure", "ec", "--resamples", "20", "--quiet",
                 "--models", "model-humanlike", "no-such-model"]) == 2
    assert "no-such-model" in capsys.readouterr().err
    assert main(["compare", str(data), "--measure", "dmc", "--resamples", "20", "--quiet",
                 "--normalise", "brainscore"]) == 2
    assert "brainscore" in capsys.readouterr().err
    assert main(["compare", str(data), "--measure", "ec", "--resamples", "0", "--quiet"]) == 2
    assert "--resamples" in capsys.readouterr().err


# --- planning -----------------------------------------------------------------------------------------------------


def test_joint_cells_reproduce_the_planted_kappas_and_accuracies():
    from humanlike.measures.compare.planning_ec import joint_cell_probabilities

    p = joint_cell_probabilities(0.5, 0.1, 0.8, 0.7, 0.9)
    assert p.sum() == pytest.approx(1.0)
    ta, tb = p.sum(axis=2), p.sum(axis=1)   # [human, model]
    assert ta[1].sum() == pytest.approx(0.8) and ta[:, 1].sum() == pytest.approx(0.7) and tb[:, 1].sum() == pytest.approx(0.9)
    assert float(kappa(ta[1, 1], ta[1, 0], ta[0, 1], ta[0, 0])) == pytest.approx(0.5)
    assert float(kappa(tb[1, 1], tb[1, 0], tb[0, 1], tb[0, 0])) == pytest.approx(0.1)


def test_simulated_comparisons_null_and_power_and_seed():
    from humanlike.measures.compare.planning_dmc import simulate_dmc_comparisons
    from humanlike.measures.compare.planning_ec import simulate_ec_comparisons

    null = simulate_ec_comparisons(300, 0.3, 0.3, 0.8, 0.8, n_sets=300, n_resamples=300, seed=4)
    assert null.rejection_rate() <= _upper(300) and null.rejection_rate(test="exact") <= _upper(300)
    assert simulate_ec_comparisons(300, 0.3, 0.3, 0.8, 0.8, n_sets=300, n_resamples=300, seed=4).difference.tolist() \
        == null.difference.tolist()
    strong = simulate_ec_comparisons(800, 0.6, 0.1, 0.8, 0.8, n_sets=100, n_resamples=300, exact=False, seed=4)
    assert strong.rejection_rate() > 0.9 and strong.true_difference == pytest.approx(0.5)
    dmc = simulate_dmc_comparisons(150, 8, 0.4, 0.4, n_sets=200, n_resamples=300, seed=5)
    assert dmc.true_difference == 0.0 and dmc.rejection_rate() <= _upper(200)


def test_cli_plan_compare_json(capsys):
    from humanlike.app.cli import main

    assert main(["plan", "compare", "--delta", "0.3", "--trials", "100", "800", "--sets", "60", "--resamples", "100",
                 "--no-exact", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    power = {r["size"]: r["power"] for r in doc["power"]}
    assert power[800] > power[100] and doc["needed"] == [{"test": "bootstrap", "humans": 1, "size": 800}]
    assert main(["plan", "compare", "--measure", "dmc", "--delta", "0.3", "--items", "60", "--sets", "30",
                 "--resamples", "100", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["design"]["unit"] == "items"
    assert main(["plan", "compare", "--delta", "0.9", "--kappa", "0.5"]) == 2   # kappa 1.4 cannot exist
    assert "error" in capsys.readouterr().err


# --- the DVC and OOD-alignment adapters -------------------------------------------------------------------------


def test_identical_models_dvc(duplicated):
    from humanlike.measures.dvc.choices import latent_correctness_correlation
    from humanlike.resampling.settings import ResamplingSettings

    r = latent_correctness_correlation(duplicated, settings=ResamplingSettings(n_resamples=99, seed=0))
    c = compare(r)
    row = _twin_row(c).iloc[0]
    assert row["difference"] == 0.0 and row["p_value"] == 1.0
    assert c.settings["measure"] == "tetrachoric_correctness"


def test_ood_alignment_adapter_compares_ratios_with_one():
    from humanlike.measures.ood.alignment import OODAlignment

    rng = np.random.default_rng(0)
    reps = np.array([0.9, 0.5]) + 0.03 * rng.normal(size=(400, 2))
    ratios = pd.DataFrame({"regime": "near", "model": ["b", "a"], "ratio": [0.5, 0.9]})
    empty = pd.DataFrame()
    alignment = OODAlignment(empty, empty, ratios, empty, ("a", "b"), {"near": reps}, {"seed": 0})
    c = compare(alignment)
    assert c.scores["model"].tolist() == ["a", "b"] and c.scores["estimate"].tolist() == [0.9, 0.5]
    vs = c.to_frame().set_index("comparison")
    assert "ceiling vs chance" not in vs.index   # the ratio's reference 1 is fixed, not estimated
    near = c.to_frame()
    assert near.loc[near["comparison"] == "model vs ceiling", "difference"].tolist() == pytest.approx([-0.1, -0.5])
    assert bool(c.pairs["resolved"].iloc[0])
    with pytest.raises(ValueError, match="regime"):
        compare(alignment, scope="far")


@pytest.mark.parametrize("seed", range(5))
def test_compact_letters_share_a_letter_exactly_when_unresolved(seed):
    rng = np.random.default_rng(seed)
    names = [f"m{k}" for k in range(9)]
    resolved = {frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1:] if rng.uniform() < 0.5}
    letters = compact_letters(names, resolved)
    for i, a in enumerate(names):
        assert letters[a]
        for b in names[i + 1:]:
            assert bool(set(letters[a]) & set(letters[b])) == (frozenset((a, b)) not in resolved)


def test_brainscore_of_one_experiment_uses_that_experiment_only(duplicated):
    r = error_consistency(duplicated, settings=ResamplingSettings(n_resamples=50, seed=0))
    one = compare(r, scope="sim-blur", normalise="brainscore").scores.set_index("model")
    table = r.table(scope="sim-blur").set_index("group")
    ceiling = table.loc["humans", "estimate"]
    expected = np.clip(abs(table.loc["model-medium", "estimate"]) / abs(ceiling), 0, 1)
    assert one.loc["model-medium", "normalised"] == pytest.approx(expected)


def test_observer_bootstrap_keeps_the_pairing(duplicated):
    with pytest.warns(RuntimeWarning, match="undefined"):   # 3 resampled humans: some human-human kappas undefined
        r = error_consistency(duplicated, settings=ResamplingSettings(n_resamples=99, seed=0, observer_level="bootstrap"))
    row = _twin_row(compare(r)).iloc[0]
    assert row["difference"] == 0.0 and row["p_value"] == 1.0


# --- every option changes what it claims ---------------------------------------------------------------------------


def test_cli_options_exclusions_figure_level_scope(tmp_path, capsys):
    from humanlike.app.cli import main

    trials = simulate_benchmark(seed=3, n_humans=3, n_items=40,
                                experiments={"contrast": {"c100": 1.0, "c50": 0.6}, "rotation": {"0": 1.0, "90": 0.7}})
    data = tmp_path / "trials.csv"
    trials.to_csv(data, index=False)
    base = ["compare", str(data), "--measure", "ec", "--resamples", "60", "--quiet", "--json"]

    def scores(*extra):
        assert main([*base, *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        return doc, {r["model"]: r["estimate"] for r in doc["scores"]}

    doc, excluded = scores()   # the exclusions are on by default: contrast c100 and rotation 0 dropped
    _, plain = scores("--no-exclusions")
    assert plain != excluded and doc["settings"]["exclusions"] == "model-vs-human"
    narrow, _ = scores("--level", "0.5")
    wide = {(r["model_a"], r["model_b"]): r["ci_high"] - r["ci_low"] for r in doc["comparisons"]}
    assert all(r["ci_high"] - r["ci_low"] < wide[(r["model_a"], r["model_b"])] + 1e-12
               for r in narrow["comparisons"] if r["ci_low"] is not None)
    _, rotation = scores("--scope", "rotation")
    assert rotation != plain
    figure = tmp_path / "cmp.png"
    assert main([*base, "--figure", str(figure)]) == 0 and figure.stat().st_size > 1000
    capsys.readouterr()


@pytest.mark.parametrize("seed", range(20))
def test_bootstrap_p_value_symmetric_and_holm_dominates(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(rng.normal(), 1, size=int(rng.integers(5, 200)))
    assert float(bootstrap_p_value(d)) == float(bootstrap_p_value(-d))
    assert 2 / (d.size + 1) - 1e-12 <= float(bootstrap_p_value(d)) <= 1
    p = rng.uniform(size=int(rng.integers(1, 15))) ** 3
    h, b = holm(p), adjust(p, "bh")
    assert (h >= p - 1e-15).all() and (b >= p - 1e-15).all() and (h >= b - 1e-12).all()
    order = np.argsort(p)
    assert (np.diff(h[order]) >= -1e-15).all()   # monotone in the raw p-values


# --- the real benchmark (docs/compare_results.md) ------------------------------------------------------------------


def test_real_benchmark_ec_conclusions(mvh_trials):
    from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = error_consistency(mvh_trials, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=ResamplingSettings(n_resamples=2000, seed=0),
                              validate=False)
        c = compare(r)
        bs = compare(r, normalise="brainscore").scores
    assert len(c.scores) == 9 and (c.pairs["family_size"] == 36).all()
    vs = c.to_frame()
    ceiling_rows = vs[vs["comparison"] == "model vs ceiling"]
    assert ceiling_rows["resolved"].all() and (ceiling_rows["difference"] < -0.15).all()
    assert c.scores["model"].iloc[-1] == "bagnet33"
    bag = c.pairs[c.pairs["model_b"] == "bagnet33"]
    assert len(bag) == 8 and bag["resolved"].all()
    assert 0 < c.pairs["resolved"].sum() < 36   # some differences resolved, not all
    assert ((bs["normalised"] >= 0) & (bs["normalised"] <= 1)).all()


def test_ood_alignment_takes_the_whole_spectrum_and_refuses_exclusions_asked_for(tmp_path, capsys):
    """The exclusions are on by default, but the spectrum needs its reference conditions: the default does
    not apply to ood-alignment, and a request for them, typed whole or abbreviated, is refused."""
    from humanlike.app.cli import main

    data = tmp_path / "trials.csv"
    simulate_benchmark(seed=0, n_humans=3, n_items=24).to_csv(data, index=False)
    base = ["compare", str(data), "--measure", "ood-alignment", "--resamples", "20", "--quiet", "--json",
            "--reference", "sim-noise=0.00", "sim-blur=0", "sim-contrast=100", "sim-rotation=0"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        assert main(base) == 0
        assert json.loads(capsys.readouterr().out)["settings"]["exclusions"] == "none"
        for asked in ("--exclusions", "--exclusion"):
            assert main([*base, asked]) == 2
            assert "takes the whole spectrum: no --exclusions" in capsys.readouterr().err
