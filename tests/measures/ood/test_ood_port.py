"""The OOD analysis on the resampling engine (issue 7) and the OOD items of issue 11.

Reference numbers in tests/data/ood_reference_*.csv come from the pre-port code (commit bd872ce):
``ood_analysis(trials, reference, n_resamples=R, n_observer_resamples=0, n_permutations=99, seed=0)`` on the
demo data (``simulate_benchmark(seed=0)``, ``demo_reference``; R = 2000) and on model-vs-human (R = 0),
written with 17 significant digits.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.ood import analysis as ood
from humanlike.trials.schema import TrialTableError
from humanlike.trials.simulate import simulate_benchmark
from humanlike.app.cli import main
from humanlike.measures.ood.cli import demo_reference
from humanlike.stats.permutation import grouping_contrast_cohens_d
from humanlike.resampling.settings import ResamplingSettings
from humanlike.measures.ood.regimes import fit_regimes
from humanlike.measures.ood.spectrum_statistics import glass_delta

DATA = Path(__file__).resolve().parents[2] / "data"
KEYS = ["experiment", "condition", "group"]


@pytest.fixture(scope="module")
def demo():
    trials = simulate_benchmark(seed=0)
    return trials, demo_reference(trials)


@pytest.fixture(scope="module")
def demo_spectrum(demo):
    trials, ref = demo
    return ood.ood_spectrum(trials, ref, n_observer_resamples=0)


@pytest.fixture(scope="module")
def demo_alignment(demo, demo_spectrum):
    trials, _ = demo
    return ood.ood_alignment(trials, demo_spectrum, settings=ResamplingSettings(n_resamples=1000, seed=0))


# ------------------------------------------------------------------------------------ the port (issue 7)


def test_estimates_identical_to_pre_port_code_on_demo(demo_alignment, demo_spectrum):
    old = pd.read_csv(DATA / "ood_reference_demo.csv", dtype={"condition": str}).set_index(KEYS)
    new = demo_alignment.groups.set_index(KEYS).reindex(old.index)
    for col in ("ec", "ma", "cled", "ratio", "accuracy"):
        np.testing.assert_allclose(new[col], old[col], rtol=0, atol=1e-12, equal_nan=True)
    scores = demo_spectrum.conditions.set_index(["experiment", "condition"])["ood_score"]
    np.testing.assert_allclose(scores.reindex(old.index.droplevel(2)).to_numpy(), old["ood_score"], atol=1e-12)


def test_intervals_within_monte_carlo_error_of_pre_port_code(demo_alignment):
    old = pd.read_csv(DATA / "ood_reference_demo.csv", dtype={"condition": str}).set_index(KEYS)
    new = demo_alignment.groups.set_index(KEYS).reindex(old.index)
    for metric in ("ec", "ma", "cled", "ratio"):
        width = (old[f"{metric}_high"] - old[f"{metric}_low"]).to_numpy()
        for side in ("low", "high"):
            diff = np.abs(new[f"{metric}_{side}"] - old[f"{metric}_{side}"]).to_numpy()
            ok = np.isfinite(width) & (width > 0)
            # 1,000 new vs 2,000 old resamples: a 2.5% quantile moves by a few percent of the width
            assert np.nanmax(diff[ok] / width[ok]) < 0.15, metric


def test_intervals_independent_of_memory_budget_and_selection(demo, demo_spectrum):
    trials, _ = demo
    base = ResamplingSettings(n_resamples=300, seed=4)
    full = ood.ood_alignment(trials, demo_spectrum, settings=base).resampled
    # ~4.5 MB per resample on the demo: 512 MiB gives chunks of 100 resamples instead of one chunk of 300
    small = ood.ood_alignment(trials, demo_spectrum, settings=replace(base, memory_budget=512 * 1024**2)).resampled
    np.testing.assert_array_equal(full.replicates, small.replicates)
    one = trials["experiment"].iloc[0]
    sub = trials[trials["experiment"] == one]
    sub_spec = ood.ood_spectrum(sub, {one: demo_reference(sub)[one]}, n_observer_resamples=0)
    alone = ood.ood_alignment(sub, sub_spec, settings=base).resampled.where(table="pair")
    mine = full.where(table="pair", experiment=one)
    assert alone.labels == mine.labels
    np.testing.assert_array_equal(alone.replicates, mine.replicates)
    np.testing.assert_array_equal(alone.interval()[0], mine.interval()[0])


def test_one_result_shape_bca_two_level_jackknife(demo, demo_spectrum):
    trials, _ = demo
    for level, interval in (("bootstrap", "bca"), ("jackknife", "percentile")):
        s = ResamplingSettings(n_resamples=200, seed=1, interval=interval, observer_level=level)
        res = ood.ood_alignment(trials, demo_spectrum, settings=s).resampled
        frame = res.to_frame()
        assert {"estimate", "ci_low", "ci_high", "undefined_share", "reason"} <= set(frame.columns)
        assert res.settings["observer_level"] == level and res.settings["interval"] == interval
        plain = ood.ood_alignment(trials, demo_spectrum, settings=replace(s, observer_level="none")).resampled
        np.testing.assert_allclose(res.estimate, plain.estimate, atol=1e-12)    # estimates do not move
        g = (frame["table"] == "group") & (frame["metric"] == "ec")
        # the observer level widens the human-group intervals
        wide = (frame["ci_high"] - frame["ci_low"])[g].to_numpy()
        narrow = (plain.to_frame()["ci_high"] - plain.to_frame()["ci_low"])[g].to_numpy()
        assert np.nanmean(wide) > np.nanmean(narrow)
    doc = res.to_json_dict()
    assert doc["settings"]["n_resamples"] == 200 and len(doc["rows"]) == len(res)


def test_old_keywords_still_work(demo, demo_spectrum):
    trials, _ = demo
    a = ood.ood_alignment(trials, demo_spectrum, settings=ResamplingSettings(n_resamples=50, seed=2, level=0.9))
    b = ood.ood_alignment(trials, demo_spectrum, settings=ResamplingSettings(n_resamples=50, seed=2, level=0.9))
    pd.testing.assert_frame_equal(a.groups, b.groups)
    assert a.settings["settings"]["level"] == 0.9


# ------------------------------------------------------------------------------------------- issue 11


def test_reference_conditions_are_not_tested(demo_spectrum):
    c = demo_spectrum.conditions
    ref = c[c["is_reference"]]
    assert len(ref) == 4
    assert ref["mannwhitney_p"].isna().all() and ref["binomial_p"].isna().all()
    assert not ref["differs_from_reference"].any()
    assert demo_spectrum.settings["n_tests"] == int((~c["is_reference"]).sum()) == 12


def test_regime_test_statistic_and_p_answer_one_question():
    # B groups (distortion types: points around a circle) tight, A groups (regimes: the upper two of four
    # levels along a third axis) tighter than random groups of their size but looser than B: the raw d is
    # negative (its null is centred far below 0) although A is clearly not random.
    rng = np.random.default_rng(0)
    n_types, per_type = 6, 4
    b = np.repeat(np.arange(n_types), per_type)
    level = np.tile(np.arange(per_type), n_types)
    a = (level >= 2).astype(int)
    angle = 2 * np.pi * b / n_types
    pos = np.stack([np.cos(angle), np.sin(angle), 0.7 * level], axis=1) + rng.normal(0, 0.02, (b.size, 3))
    d = np.sqrt(((pos[:, None] - pos[None]) ** 2).sum(-1))
    res = grouping_contrast_cohens_d(d, a, b, n_permutations=999, seed=0)
    assert res.observed < 0 < res.statistic                 # raw d says "looser", the excess says "tighter"
    assert res.p_value < 0.01                               # ... and p agrees with the excess
    assert res.null_mean == 0.0 and res.null_q025 < 0 < res.null_q975
    raw = grouping_contrast_cohens_d(d, a, b, n_permutations=999, seed=0, statistic="d")
    assert raw.statistic == res.observed and raw.p_value == res.p_value


def test_regimes_same_from_api_and_cli_and_any_seed(demo, capsys, tmp_path):
    trials, ref = demo
    fits = [ood.ood_spectrum(trials, ref, n_observer_resamples=0, seed=s).conditions["regime"].tolist()
            for s in (0, 1, 2)]
    assert fits[0] == fits[1] == fits[2]
    path = tmp_path / "demo.csv"
    trials.to_csv(path, index=False)
    refs = [f"{e}={c}" for e, cs in ref.items() for c in cs]
    assert main(["ood", str(path), "--reference", *refs, "--resamples", "0", "--observer-resamples", "0",
                 "--permutations", "9", "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert [c["regime"] for c in doc["conditions"]] == fits[0]


def test_degenerate_components_guarded():
    # three almost equal scores far from the rest: no near-singular component may win BIC
    rng = np.random.default_rng(3)
    scores = np.concatenate([rng.normal(0, 0.5, 20), rng.normal(-8, 1.0, 20), [-4.001, -4.0, -3.999]])
    fit = fit_regimes(scores, seed=0, max_components=4)
    assert fit.sds.min() >= 0.02 * scores.std() * 0.99
    assert np.bincount(fit.labels[fit.labels >= 0]).min() >= 3
    unguarded = fit_regimes(scores, seed=0, max_components=4, min_sd_fraction=0, min_component_size=1)
    assert unguarded.sds.min() < 0.01                       # what the guards prevent
    # small inputs: no singleton components with SD 0
    small = fit_regimes([0.0, 0.1, -5.0, -5.1, -9.0], seed=0)
    assert np.bincount(small.labels).min() >= 3 or small.n_components == 1


def test_perfect_reference_gives_no_absurd_scores():
    ref = np.full(8, np.log(160.5 / 0.5))                   # every reference observer 100% correct
    g = glass_delta([1.0, 2.0], ref + 1e-16 * np.arange(8))
    assert np.isnan(g.value) and "SD 0" in g.reason
    rng = np.random.default_rng(0)
    rows = []
    for cond, acc in (("0", 1.0), ("1", 0.7), ("2", 0.4)):
        for h in range(4):
            correct = rng.random(50) < acc
            label = np.where(np.arange(50) % 2 == 0, "a", "b")
            rows.append(pd.DataFrame({"observer": f"h{h}", "observer_kind": "human", "experiment": "e",
                                      "condition": cond, "item": [f"{cond}-{i}" for i in range(50)],
                                      "label": label, "response": np.where(correct, label, np.where(
                                          label == "a", "b", "a")), "correct": correct}))
    trials = pd.concat(rows, ignore_index=True)
    with pytest.raises(TrialTableError, match="SD 0"):
        ood.ood_spectrum(trials, {"e": "0"}, n_observer_resamples=50)


def test_one_observer_is_a_clear_error(demo, tmp_path, capsys):
    trials, ref = demo
    one = trials[trials["observer"] == trials.loc[trials["observer_kind"] == "human", "observer"].iloc[0]]
    with pytest.raises(TrialTableError, match="at least two observers"):
        ood.ood_analysis(one, ref, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0)
    path = tmp_path / "one.csv"
    one.to_csv(path, index=False)
    refs = [f"{e}={c}" for e, cs in ref.items() for c in cs]
    assert main(["ood", str(path), "--reference", *refs, "--resamples", "0"]) == 2
    assert "at least two observers" in capsys.readouterr().err


def test_paper_preset(demo):
    trials, ref = demo
    res = ood.ood_analysis(trials, ref, preset="paper", settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0, n_permutations=9)
    s = res.settings
    assert (s["alpha"], s["logit_correction"], s["ma_undefined"], s["cled_mixture"], s["na_as_class"]) == (
        0.01, "clip", "one", "pooled", True)
    assert res.alignment.settings["cled_log_base"] is None and res.alignment.settings["cled_mixture"] == "pooled"
    assert not res.alignment.groups[["ma"]].isna().any().any()          # undefined MA is 1
    # an explicit option still wins over the preset
    alt = ood.ood_analysis(trials, ref, preset="paper", alpha=0.05, settings=ResamplingSettings(n_resamples=0), n_observer_resamples=0,
                           n_permutations=9)
    assert alt.settings["alpha"] == 0.05


def test_paper_family_leaves_out_the_papers_untested_experiments():
    rng = np.random.default_rng(1)
    rows = []
    for exp in ("contrast", "edge", "sketch"):
        for cond, acc in (("ref", 0.95), ("1", 0.6), ("2", 0.3)):
            for h in range(4):
                correct = rng.random(40) < acc
                label = np.where(np.arange(40) % 2 == 0, "a", "b")
                rows.append(pd.DataFrame({"observer": f"h{h}", "observer_kind": "human", "experiment": exp,
                                          "condition": cond, "item": [f"{exp}{cond}-{i}" for i in range(40)],
                                          "label": label, "response": np.where(correct, label, np.where(
                                              label == "a", "b", "a")), "correct": correct}))
    trials = pd.concat(rows, ignore_index=True)
    ref = {"contrast": "ref", "edge": "ref", "sketch": "ref"}
    paper = ood.ood_spectrum(trials, ref, family="paper", n_observer_resamples=0).conditions
    assert set(paper.loc[paper["tested"], "experiment"]) == {"contrast", "sketch"}
    assert paper.loc[paper["experiment"] == "edge", "mannwhitney_p"].isna().all()
    default = ood.ood_spectrum(trials, ref, n_observer_resamples=0).conditions
    assert int(default["tested"].sum()) == 6 and int(paper["tested"].sum()) == 4


# ------------------------------------------------------------------ steps run side by side (issue 7, speed)


def test_analysis_made_of_overlapping_steps_equals_the_steps_run_alone(demo):
    trials, ref = demo
    result = ood.ood_analysis(trials, ref, settings=ResamplingSettings(n_resamples=200, seed=5), n_observer_resamples=40, n_permutations=19)
    alone = ood.ood_spectrum(trials, ref, n_observer_resamples=40, seed=5)
    pd.testing.assert_frame_equal(result.spectrum.conditions, alone.conditions)
    pd.testing.assert_frame_equal(result.spectrum.normality, alone.normality)
    np.testing.assert_array_equal(result.spectrum.stability.labels, alone.stability.labels)
    aligned = ood.ood_alignment(trials, alone, settings=ResamplingSettings(n_resamples=200, seed=5))
    np.testing.assert_array_equal(result.alignment.resampled.replicates, aligned.resampled.replicates)
    pd.testing.assert_frame_equal(result.alignment.groups, aligned.groups)


def test_alignment_setup_made_beforehand_gives_the_same_alignment(demo, demo_spectrum):
    trials, _ = demo
    settings = ResamplingSettings(n_resamples=150, seed=2)
    setup = ood.alignment_setup(trials, cled_mixture="pooled", prepare=True)
    given = ood.ood_alignment(trials, demo_spectrum, settings=settings, cled_mixture="pooled", setup=setup)
    plain = ood.ood_alignment(trials, demo_spectrum, settings=settings, cled_mixture="pooled")
    np.testing.assert_array_equal(given.resampled.replicates, plain.resampled.replicates)
    pd.testing.assert_frame_equal(given.pairs, plain.pairs)
    with pytest.raises(ValueError, match="other options"):
        ood.ood_alignment(trials, demo_spectrum, settings=settings, setup=setup)   # 'average' asked, 'pooled' made
    with pytest.raises(ValueError, match="other options"):
        ood.ood_alignment(trials, demo_spectrum, settings=settings, cled_mixture="pooled", na_as_class=True,
                          setup=setup)


def test_spectrum_steps_compose_to_the_spectrum(demo):
    trials, ref = demo
    fitted = ood.spectrum_regimes(trials, ref, n_observer_resamples=30, seed=1)
    before = fitted.conditions.copy()
    uncertainty = ood.spectrum_uncertainty(fitted)
    pd.testing.assert_frame_equal(fitted.conditions, before)    # the uncertainty step changes nothing it reads
    whole = ood.complete_spectrum(fitted, uncertainty)
    alone = ood.ood_spectrum(trials, ref, n_observer_resamples=30, seed=1)
    pd.testing.assert_frame_equal(whole.conditions, alone.conditions)
    assert whole.settings == alone.settings and whole.reference == alone.reference
