"""Simulators: the copy model recovers planted kappa; SDT observers and the simulated benchmark."""

import itertools

import numpy as np
import pandas as pd
import pytest

from humanlike.trials.schema import validate_trials
from humanlike.trials.simulate import (
    CLASSES_16,
    DEFAULT_MODELS,
    SDTObserver,
    _copy_cells,
    _copy_parameters,
    exact_copy_counts,
    simulate_benchmark,
    simulate_copy_counts,
    simulate_copy_pair,
    simulate_sdt_observers,
)
from humanlike.measures.ec.copy_model import cell_probabilities, latent_accuracies
from humanlike.measures.pairs.metric import counts_from_correctness, kappa


# ------------------------------------------------------------------ copy model


@pytest.mark.parametrize("k,a1,a2", [(0.4, 0.7, 0.8), (-0.3, 0.6, 0.5), (0.0, 0.9, 0.3), (0.25, 0.55, 0.55)])
def test_copy_pair_recovers_planted_kappa(k, a1, a2):
    rng = np.random.default_rng(11)
    reps, n = 400, 500
    ks, acc1, acc2 = [], [], []
    for _ in range(reps):
        x, y = simulate_copy_pair(n, k, a1, a2, seed=rng)
        ks.append(kappa(*counts_from_correctness(x, y)))
        acc1.append(x.mean())
        acc2.append(y.mean())
    # SE of the mean kappa is about 0.045 / sqrt(400) ~ 0.002; bias is O(1/n).
    assert np.mean(ks) == pytest.approx(k, abs=0.012)
    assert np.mean(acc1) == pytest.approx(a1, abs=0.005)
    assert np.mean(acc2) == pytest.approx(a2, abs=0.005)


def test_copy_pair_full_copy_and_inversion():
    x, y = simulate_copy_pair(300, 1.0, 0.7, 0.7, seed=0)
    assert np.array_equal(x, y)
    x, y = simulate_copy_pair(300, -1.0, 0.5, 0.5, seed=0)
    assert np.array_equal(x, ~y)


def test_exact_counts_hand_example():
    # n=100, a1=a2=0.8, kappa=0.5: c_exp=0.68, c_obs=0.84, a=(84-100+160)/2=72
    assert exact_copy_counts(100, 0.5, 0.8, 0.8) == (72, 8, 8, 12)
    assert kappa(72, 8, 8, 12) == pytest.approx(0.5)


@pytest.mark.parametrize("n,k,a1,a2", [(160, 0.35, 0.75, 0.8), (97, -0.25, 0.6, 0.45), (1000, 0.123, 0.9, 0.85), (50, 0.0, 0.5, 0.7)])
def test_exact_pair_hits_target_up_to_rounding(n, k, a1, a2):
    x, y = simulate_copy_pair(n, k, a1, a2, seed=3, exact=True)
    k1, k2 = int(round(n * a1)), int(round(n * a2))
    assert x.sum() == k1 and y.sum() == k2 and len(x) == n
    d = k1 * (n - k2) + k2 * (n - k1)
    half_step = n / d  # kappa changes by 2n/d per unit of the count a
    assert abs(kappa(*counts_from_correctness(x, y)) - k) <= half_step + 1e-12
    # a random order, reproducible
    x2, y2 = simulate_copy_pair(n, k, a1, a2, seed=3, exact=True)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)


def test_copy_pair_rejects_impossible_kappa():
    with pytest.raises(ValueError, match="cannot be realised"):
        simulate_copy_pair(100, 0.9, 0.9, 0.3, seed=0)
    with pytest.raises(ValueError):
        simulate_copy_counts(100, -0.9, 0.9, 0.9, size=10, seed=0)


def test_copy_counts():
    counts = simulate_copy_counts(400, 0.3, 0.8, 0.7, size=20000, seed=5)
    assert counts.shape == (20000, 4) and counts.dtype == np.int64
    assert np.all(counts.sum(axis=1) == 400) and np.all(counts >= 0)
    a, b, c, d = counts.T
    assert np.mean(kappa(a, b, c, d)) == pytest.approx(0.3, abs=0.005)
    assert np.mean((a + b) / 400) == pytest.approx(0.8, abs=0.002)
    assert np.mean((a + c) / 400) == pytest.approx(0.7, abs=0.002)
    neg = simulate_copy_counts(400, -0.3, 0.5, 0.6, size=20000, seed=5)
    assert np.mean(kappa(*neg.T)) == pytest.approx(-0.3, abs=0.005)
    multi = simulate_copy_counts([50, 100, 200], 0.3, 0.8, 0.7, size=10, seed=5)
    assert multi.shape == (10, 3, 4)
    np.testing.assert_array_equal(multi.sum(axis=-1), np.broadcast_to([50, 100, 200], (10, 3)))
    np.testing.assert_array_equal(counts, simulate_copy_counts(400, 0.3, 0.8, 0.7, size=20000, seed=5))


@pytest.mark.parametrize("k,a1,a2", [(0.3, 0.8, 0.6), (-0.2, 0.8, 0.6), (0.5, 0.4, 0.45)])
def test_simulator_algebra_agrees_with_metrics(k, a1, a2):
    np.testing.assert_allclose(_copy_cells(k, a1, a2), cell_probabilities(k, a1, a2), atol=1e-12)
    c, u2 = _copy_parameters(k, a1, a2)
    _, u2_ref, c_ref = latent_accuracies(k, a1, a2)
    assert c == pytest.approx(c_ref) and u2 == pytest.approx(u2_ref)


# ------------------------------------------------------------------ SDT observers


def _pair_kappa(table, o1, o2):
    wide = table.pivot_table(index=["experiment", "condition", "item"], columns="observer", values="correct")
    return kappa(*counts_from_correctness(wide[o1].astype(bool), wide[o2].astype(bool)))


def test_sdt_observers_table():
    observers = [
        SDTObserver("h1", "human", noise_sd=1.0),
        SDTObserver("h2", "human", noise_sd=1.0),
        SDTObserver("m1", "model", noise_sd=0.0, shared=1.0),
        SDTObserver("m2", "model", noise_sd=0.0, shared=1.0),
        SDTObserver("m3", "model", noise_sd=0.0, shared=0.0, bias=0.3),
    ]
    conditions = {"clean": 1.0, "hard": 0.3}
    t = simulate_sdt_observers(observers, n_items=320, classes=CLASSES_16, conditions=conditions, experiment="e", seed=1)
    assert t.equals(validate_trials(t))
    assert len(t) == 5 * 2 * 320
    assert set(t["condition"]) == {"clean", "hard"}
    assert (t.groupby(["observer", "condition"]).size() == 320).all()
    assert (t[t.observer == "h1"].groupby("label").size() == 40).all()  # balanced labels
    models = t[t.observer_kind == "model"]
    humans = t[t.observer_kind == "human"]
    assert ((models["decision_margin"] > 0) == models["correct"]).all()
    assert humans["decision_margin"].isna().all()
    assert models["rt"].isna().all() and (humans["rt"] > 0).all()
    # identical noiseless observers on the shared evidence answer identically
    m1 = t[t.observer == "m1"].set_index("item")["response"]
    m2 = t[t.observer == "m2"].set_index("item")["response"]
    assert m1.equals(m2)
    # a lower d' lowers accuracy
    acc = t.groupby("condition")["correct"].mean()
    assert acc["clean"] > acc["hard"] + 0.2
    # shared item evidence makes humans agree beyond chance; noiseless copies of that evidence more so
    assert _pair_kappa(t, "h1", "h2") > 0.1
    assert _pair_kappa(t, "m1", "h1") > _pair_kappa(t, "m3", "h1")


def test_sdt_rejects_bad_observers():
    with pytest.raises(ValueError):
        SDTObserver("x", "alien")
    with pytest.raises(ValueError):
        SDTObserver("x", "model", shared=1.5)
    with pytest.raises(ValueError):
        simulate_sdt_observers([SDTObserver("a"), SDTObserver("a")], seed=0)


# ------------------------------------------------------------------ benchmark


@pytest.fixture(scope="module")
def bench():
    return simulate_benchmark(seed=0)


def test_benchmark_shape_and_validity(bench):
    assert bench.equals(validate_trials(bench))
    assert bench["experiment"].nunique() == 4
    assert (bench.groupby("experiment")["condition"].nunique() == 4).all()
    assert set(bench["label"]) == set(CLASSES_16)
    assert bench[bench.observer_kind == "human"]["observer"].nunique() == 6
    assert bench[bench.observer_kind == "model"]["observer"].nunique() == len(DEFAULT_MODELS)
    assert (bench.groupby(["observer", "experiment", "condition"]).size() == 160).all()
    for col in ("observer", "observer_kind", "experiment", "condition", "item", "label", "response", "correct",
                "trial", "rt", "decision_margin"):  # fmt: skip
        assert col in bench.columns
    models = bench[bench.observer_kind == "model"]
    assert ((models["decision_margin"] > 0) == models["correct"]).all()
    assert models["decision_margin"].notna().all()


def test_benchmark_is_seeded(bench):
    pd.testing.assert_frame_equal(bench, simulate_benchmark(seed=0))
    other = simulate_benchmark(seed=1)
    assert not bench["correct"].equals(other["correct"])


def test_benchmark_accuracy_falls_with_distortion(bench):
    humans = bench[bench.observer_kind == "human"]
    for experiment, group in humans.groupby("experiment", sort=False):
        order = list(dict.fromkeys(group["condition"]))  # conditions in generation order: clean first
        acc = group.groupby("condition")["correct"].mean()
        assert acc[order[0]] > 0.75
        assert acc[order[0]] > acc.drop(order[0]).max()
    noise = humans[humans.experiment == "sim-noise"].groupby("condition")["correct"].mean()
    assert list(noise.loc[["0.00", "0.10", "0.20", "0.35"]]) == sorted(noise, reverse=True)


def test_benchmark_humans_agree_more_than_models(bench):
    per = {}
    for _, group in bench.groupby(["experiment", "condition"]):
        wide = group.pivot(index="item", columns="observer", values="correct")
        for o1, o2 in itertools.combinations(wide.columns, 2):
            per.setdefault((o1, o2), []).append(kappa(*counts_from_correctness(wide[o1], wide[o2])))
    mean = {pair: np.nanmean(v) for pair, v in per.items()}
    humans = sorted(bench.loc[bench.observer_kind == "human", "observer"].unique())
    models = [m.name for m in DEFAULT_MODELS]
    hh = np.mean([mean[tuple(sorted(p))] for p in itertools.combinations(humans, 2)])
    mh = {m: np.mean([mean[tuple(sorted((m, h)))] for h in humans]) for m in models}
    assert hh > np.mean(list(mh.values())) + 0.05
    assert sum(v < hh - 0.05 for v in mh.values()) >= len(models) - 1
    assert max(mh, key=mh.get) == "model-humanlike"
    assert mh["model-humanlike"] > hh - 0.06
