"""DVC from binary choices (Sebastian & Geisler 2018): kernels against references, planted rho recovered,
the benchmark views on synthetic and real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings as hsettings, strategies as st
from scipy import optimize, special
from scipy.stats import multivariate_normal

from humanlike.measures.dvc.choices import choice_dvc, latent_correctness_correlation
from humanlike.measures.dvc.choices_probit import margin_probit_correlation
from humanlike.measures.dvc.simulate import simulate_choice_pair
from humanlike.measures.dvc.choices_metric import (
    bivariate_normal_cdf, category_thresholds, clipped_rate, dprime_criterion, latent_correlation,
    probit_fit, rho_from_probit, tetrachoric,
)
from humanlike.resampling.settings import ResamplingSettings

FAST = ResamplingSettings(n_resamples=200, seed=0)


# --- kernels -------------------------------------------------------------------------------------------

def test_bivariate_normal_cdf_matches_scipy():
    rng = np.random.default_rng(0)
    h, k = rng.normal(scale=1.5, size=(2, 200))
    r = rng.uniform(-0.99, 0.99, 200)
    ref = np.array([multivariate_normal(cov=[[1, ri], [ri, 1]]).cdf([hi, ki]) for hi, ki, ri in zip(h, k, r)])
    np.testing.assert_allclose(bivariate_normal_cdf(h, k, r), ref, atol=1e-7)
    assert bivariate_normal_cdf(0.0, 0.0, 0.0) == pytest.approx(0.25)
    assert bivariate_normal_cdf(0.3, -0.2, 1.0) == pytest.approx(special.ndtr(-0.2))
    assert bivariate_normal_cdf(0.3, -0.2, -1.0) == pytest.approx(max(0, special.ndtr(0.3) + special.ndtr(-0.2) - 1))


def test_dprime_and_criterion_hand_values_and_clipping():
    d, g, clipped = dprime_criterion(69, 100, 31, 100)
    zh, zf = special.ndtri(0.69), special.ndtri(0.31)
    assert d == pytest.approx(zh - zf) and g == pytest.approx(0.0, abs=1e-12) and not clipped
    d, g, clipped = dprime_criterion(20, 20, 0, 20)          # perfect: rates clipped to 1/(2n)
    assert clipped and d == pytest.approx(2 * special.ndtri(1 - 1 / 40))
    assert clipped_rate(0, 50) == pytest.approx(0.01)
    t_a, t_b = category_thresholds(2.0, 0.5)
    assert (t_a, t_b) == (1.5, -0.5)


def test_tetrachoric_reproduces_joint_cell_and_matches_brute_force_ml():
    counts = np.array([37.0, 13.0, 9.0, 41.0])
    rho = tetrachoric(counts)
    n = counts.sum()
    h, k = special.ndtri((counts[0] + counts[1]) / n), special.ndtri((counts[0] + counts[2]) / n)
    assert bivariate_normal_cdf(h, k, rho) == pytest.approx(counts[0] / n, abs=1e-10)

    def nll(r):
        p_aa = bivariate_normal_cdf(h, k, r)
        p = np.array([p_aa, special.ndtr(h) - p_aa, special.ndtr(k) - p_aa, 1 - special.ndtr(h) - special.ndtr(k) + p_aa])
        return -np.sum(counts * np.log(p))
    best = optimize.minimize_scalar(nll, bounds=(-0.999, 0.999), method="bounded", options={"xatol": 1e-9})
    assert rho == pytest.approx(best.x, abs=1e-5)


def test_ml_with_thresholds_from_same_data_equals_tetrachoric():
    """Thresholds from d' and gamma of the same (unclipped) data make the fit the tetrachoric correlation."""
    trials = simulate_choice_pair(0.5, n_per_category=300, seed=3)
    wide = trials.pivot(index="item", columns="observer", values="response")
    labels = trials.drop_duplicates("item").set_index("item")["label"]
    r1, r2 = wide["obs-1"], wide["obs-2"]
    d, g = [], []
    for r in (r1, r2):
        dd, gg, _ = dprime_criterion(((r == "b") & (labels == "b")).sum(), (labels == "b").sum(),
                                     ((r == "b") & (labels == "a")).sum(), (labels == "a").sum())
        d.append(dd), g.append(gg)
    for cat, side in (("a", 0), ("b", 1)):
        sel = labels == cat
        table = np.array([((r1 == "a") & (r2 == "a") & sel).sum(), ((r1 == "a") & (r2 == "b") & sel).sum(),
                          ((r1 == "b") & (r2 == "a") & sel).sum(), ((r1 == "b") & (r2 == "b") & sel).sum()], float)
        t1 = category_thresholds(d[0], g[0])[side]
        t2 = category_thresholds(d[1], g[1])[side]
        assert latent_correlation(table, t1, t2) == pytest.approx(tetrachoric(table), abs=1e-7)


def test_ml_with_external_thresholds_maximises_likelihood():
    counts = np.array([30.0, 20.0, 10.0, 40.0])
    t1, t2 = 0.1, -0.2                       # not the table's own margins
    rho = latent_correlation(counts, t1, t2)

    def nll(r):
        p_aa = bivariate_normal_cdf(t1, t2, r)
        p = np.array([p_aa, special.ndtr(t1) - p_aa, special.ndtr(t2) - p_aa,
                      1 - special.ndtr(t1) - special.ndtr(t2) + p_aa])
        return -np.sum(counts * np.log(p))
    best = optimize.minimize_scalar(nll, bounds=(-0.999, 0.999), method="bounded", options={"xatol": 1e-9})
    assert rho == pytest.approx(best.x, abs=1e-5)


def test_boundary_and_undefined_tables():
    assert tetrachoric([10, 0, 0, 10]) == 1.0
    assert tetrachoric([0, 10, 10, 0]) == -1.0
    assert np.isnan(tetrachoric([10, 10, 0, 0]))            # observer 2 always says "a": no threshold


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=4, max_size=4))
def test_tetrachoric_is_symmetric_and_monotone(cells):
    a, b, c, d = map(float, cells)
    rho = tetrachoric([a, b, c, d])
    assert rho == pytest.approx(tetrachoric([a, c, b, d]), abs=1e-8)      # swap observers
    assert rho == pytest.approx(-tetrachoric([b, a, d, c]), abs=1e-8)     # relabel one observer's responses
    assert tetrachoric([a + 5, b, c, d]) >= rho - 1e-9                    # more agreement, higher rho


def test_probit_recovers_planted_rho():
    rng = np.random.default_rng(4)
    for rho in (0.0, 0.5, 0.9, -0.6):
        z = rng.standard_normal(20000)
        latent = rho * z + np.sqrt(1 - rho**2) * rng.standard_normal(z.size)
        y = (latent > 0.3).astype(float)
        alpha, beta = probit_fit(z, y)
        assert rho_from_probit(beta) == pytest.approx(rho, abs=0.03)
        assert -alpha * np.sqrt(1 - rho**2) == pytest.approx(0.3, abs=0.05)


# --- ground truth through the analysis ---------------------------------------------------------------------

@pytest.mark.parametrize("rho, n", [(0.0, 2000), (0.6, 2000), (0.97, 3000), (-0.97, 3000), (0.5, 60)])
def test_planted_rho_recovered(rho, n):
    """Mean over simulations of the estimate recovers rho, including near +-1 and with small n (n=60
    per category, where the sampling SD is about 0.2: checked on the mean of 30 replications)."""
    reps = 1 if n >= 1000 else 30
    estimates = []
    for seed in range(reps):
        trials = simulate_choice_pair(rho, n_per_category=n, seed=seed)
        r = choice_dvc(trials, zero_cell_correction=0.0, settings=ResamplingSettings(n_resamples=0))
        estimates.append(r.rho()["estimate"].to_numpy())
    est = np.nanmean(np.concatenate(estimates))
    assert est == pytest.approx(rho, abs=0.04 if n >= 1000 else 0.08)


def test_interval_covers_and_double_pass_self_dvc():
    trials = simulate_choice_pair(0.7, n_per_category=800, passes=2, seed=5)
    r = choice_dvc(trials, passes="split", settings=FAST)
    rho = r.rho()
    assert set(rho["observer_1"]) == {"obs-1 pass 1"} and set(rho["observer_2"]) == {"obs-1 pass 2"}
    assert ((rho["ci_low"] < 0.7) & (0.7 < rho["ci_high"])).all()
    frame = r.to_frame()
    d = frame[frame["statistic"] == "dprime"]
    assert ((d["ci_low"] < 1.5) | (d["ci_low"] < 1.0)).all()
    doc = r.to_json_dict()
    assert doc["experiments"]["sim"]["categories"] == ["a", "b"]


def test_two_category_view_rejects_more_categories():
    trials = simulate_choice_pair(0.5, n_per_category=20)
    trials.loc[trials["item"] == "i00000", ["label", "response"]] = "c"
    with pytest.raises(ValueError, match="exactly two"):
        choice_dvc(trials, settings=ResamplingSettings(n_resamples=0))


def _latent_benchmark_trials(rho_hh=0.6, rho_mh=0.3, n_items=400, seed=0):
    """Two humans and one model whose correctness comes from correlated latent DVs per item."""
    rng = np.random.default_rng(seed)
    shared = rng.standard_normal(n_items)
    rows = []
    specs = [("subject-01", "human", np.sqrt(rho_hh), 0.3), ("subject-02", "human", np.sqrt(rho_hh), 0.3),
             ("net", "model", rho_mh / np.sqrt(rho_hh), 0.0)]
    for name, kind, loading, threshold in specs:
        latent = loading * shared + np.sqrt(1 - loading**2) * rng.standard_normal(n_items)
        correct = latent > threshold - 0.5
        margin = latent - (threshold - 0.5) if kind == "model" else np.nan
        rows.append(pd.DataFrame({"observer": name, "observer_kind": kind, "experiment": "e", "condition": "0",
                                  "item": [f"i{k}" for k in range(n_items)], "label": "x",
                                  "response": np.where(correct, "x", "y"), "correct": correct,
                                  "decision_margin": margin}))
    return pd.concat(rows, ignore_index=True)


def test_benchmark_views_recover_planted_latent_correlations():
    trials = _latent_benchmark_trials(n_items=3000, seed=1)
    tet = latent_correctness_correlation(trials, zero_cell_correction=0, settings=FAST, pair_intervals=True,
                                         validate=False)
    groups = tet.groups("e").set_index("group")
    assert groups.loc["humans", "estimate"] == pytest.approx(0.6, abs=0.06)
    assert groups.loc["net", "estimate"] == pytest.approx(0.3, abs=0.06)
    assert groups.loc["humans", "ci_low"] < 0.6 < groups.loc["humans", "ci_high"]
    probit = margin_probit_correlation(trials, settings=FAST, validate=False)
    row = probit.groups().set_index("group").loc["net"]
    assert row["estimate"] == pytest.approx(0.3, abs=0.06)
    assert row["ci_low"] < 0.3 < row["ci_high"]
    doc = tet.to_json_dict()
    assert set(doc) >= {"human_human", "model_human", "model_model"} and "net" in doc["model_human"]


@pytest.mark.realdata
def test_real_edge_experiment(modelvshuman_dir):
    from humanlike.trials.loaders import load_trials

    trials = load_trials(modelvshuman_dir / "edge")
    result = latent_correctness_correlation(trials, settings=ResamplingSettings(n_resamples=100))
    groups = result.groups().set_index("group")
    assert {"humans", "model-model", "resnet50"} <= set(groups.index)
    assert 0.2 < groups.loc["humans", "estimate"] < 1
    assert (groups["ci_low"] <= groups["estimate"] + 1e-9).all()


# --- degenerate resampling distributions (issue 22) ----------------------------------------------------

def _one_trial_per_condition(n_conditions=10, seed=0, items=1):
    """Benchmark-style trials with ``items`` items per (experiment, condition); with one, item resampling
    changes nothing."""
    rng = np.random.default_rng(seed)
    rows = []
    observers = [("subject-01", "human"), ("subject-02", "human"), ("subject-03", "human"), ("m1", "model"),
                 ("m2", "model")]
    for c in range(n_conditions):
        for k in range(items):
            label = ("cat", "dog", "car")[(c + k) % 3]   # three labels: benchmark data, not two-category
            for name, kind in observers:
                right = rng.random() < 0.7
                rows.append((name, kind, "e", f"c{c}", f"item-{c}-{k}", label,
                             label if right else ("dog" if label == "cat" else "cat")))
    trials = pd.DataFrame(rows, columns=["observer", "observer_kind", "experiment", "condition", "item", "label",
                                         "response"])
    trials["correct"] = trials["response"] == trials["label"]
    return trials


def test_one_trial_per_table_gives_no_interval_but_a_reason():
    # Issue 22: 0.164 [0.164, 0.164] from one trial per table. Every resample is the data itself, so the
    # bootstrap knows nothing about the uncertainty: no interval, and the reason says why (as EC's NaN does).
    from humanlike.resampling.results import REASON_DEGENERATE

    trials = _one_trial_per_condition()
    frame = latent_correctness_correlation(trials, settings=FAST).to_frame()
    defined = frame[np.isfinite(frame["estimate"])]
    assert len(defined) > 0
    assert defined["ci_low"].isna().all() and defined["ci_high"].isna().all()
    assert (defined["reason"] == REASON_DEGENERATE).all()
    # With three items per condition the bootstrap varies again, and intervals come back.
    again = latent_correctness_correlation(_one_trial_per_condition(items=3), settings=FAST).to_frame()
    groups = again[(again["scope"] == "e") & np.isfinite(again["estimate"])]
    assert (groups["ci_high"] > groups["ci_low"]).any() and not (groups["reason"] == REASON_DEGENERATE).any()


def test_dvc_choices_command_says_no_interval_for_one_trial_per_table(tmp_path, capsys):
    import json

    from humanlike.app.cli import main

    path = tmp_path / "one-trial.csv"
    _one_trial_per_condition().to_csv(path, index=False)
    assert main(["dvc", "choices", str(path), "--json", "--quiet", "--resamples", "100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = [r for r in _records(doc) if r.get("mean") is not None]
    assert rows and all(r["ci_low"] is None and r["ci_high"] is None for r in rows)
    assert all("same value" in r["reason"] for r in rows)
    assert main(["dvc", "choices", str(path), "--quiet", "--resamples", "100"]) == 0
    text = capsys.readouterr().out
    assert "[nan, nan]" in text and "every bootstrap resample gives the same value" in text


def _records(doc):
    """Every dict in a JSON document that has a 'mean' key (a group entry)."""
    found = []
    if isinstance(doc, dict):
        if "mean" in doc:
            found.append(doc)
        for value in doc.values():
            found += _records(value)
    elif isinstance(doc, list):
        for value in doc:
            found += _records(value)
    return found
