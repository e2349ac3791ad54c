"""Accuracy and entropy per condition, and the model-vs-human leaderboard: formulas by hand, planted values by
simulation, model-vs-human's definitions and published numbers on the real data, and the command line."""

import json

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.ec.benchmark import run_benchmark
from humanlike.measures.ec.leaderboard import leaderboard, rank_columns
from humanlike.measures.psychometrics.analysis import HUMAN_MEAN, HUMANS, condition_order, psychometrics, response_entropy
from humanlike.trials.schema import CLASSES_16, TrialTableError
from humanlike.trials.simulate import simulate_benchmark
from humanlike.app.cli import main
from humanlike.resampling.settings import ResamplingSettings


def _settings(**kw):
    return ResamplingSettings(**{"n_resamples": 200, "seed": 0, **kw})


# --- formulas by hand ------------------------------------------------------------------------------------

def test_response_entropy_by_hand():
    assert response_entropy([8, 0, 0], 8) == 0.0
    assert response_entropy([1, 1, 1, 1], 4) == pytest.approx(2.0)
    # 'na' responses count in the trials, not as a class: p = (0.5, 0.25), 0.25 unanswered
    assert response_entropy([2, 1], 4) == pytest.approx(-(0.5 * np.log2(0.5) + 0.25 * np.log2(0.25)))
    assert np.isnan(response_entropy([0, 0], 0))
    batch = response_entropy(np.array([[[2, 2]], [[4, 0]]]), np.array([[4], [4]]), axis=2)
    assert batch.tolist() == [[1.0], [0.0]]


def test_condition_order():
    assert condition_order(["0.90", "0.00", "0.35"]) == ["0.00", "0.35", "0.90"]
    assert condition_order(["128-0-10", "1-0-10", "16-0-10"]) == ["1-0-10", "16-0-10", "128-0-10"]
    assert condition_order(["cr", "bw"]) == ["cr", "bw"]


def _tiny():
    """Two humans (h1 answers 4 trials, h2 only 2) and a model, one condition, classes cat/dog."""
    rows = [("h1", "human", "i1", "cat", "cat"), ("h1", "human", "i2", "cat", "dog"),
            ("h1", "human", "i3", "dog", "dog"), ("h1", "human", "i4", "dog", "na"),
            ("h2", "human", "i1", "cat", "cat"), ("h2", "human", "i3", "dog", "cat"),
            ("m", "model", "i1", "cat", "dog"), ("m", "model", "i2", "cat", "dog"),
            ("m", "model", "i3", "dog", "dog"), ("m", "model", "i4", "dog", "dog")]
    t = pd.DataFrame(rows, columns=["observer", "observer_kind", "item", "label", "response"])
    return t.assign(experiment="e", condition="0", correct=t["response"] == t["label"])


def test_accuracy_and_entropy_by_hand():
    r = psychometrics(_tiny(), settings=_settings(n_resamples=0))
    f = r.observer_frame().set_index(["observer", "metric"])["estimate"]
    assert f[("h1", "accuracy")] == 0.5 and f[("h2", "accuracy")] == 0.5 and f[("m", "accuracy")] == 0.5
    # h1: cat 1/4, dog 2/4 (one na); h2: cat 2/2; m: dog 4/4
    h1 = -(0.25 * np.log2(0.25) + 0.5 * np.log2(0.5))
    assert f[("h1", "entropy")] == pytest.approx(h1)
    assert f[("h2", "entropy")] == 0.0 and f[("m", "entropy")] == 0.0
    assert f[("h1", "entropy_normalised")] == pytest.approx(h1 / np.log2(2))
    # model-vs-human's humans: accuracy pooled over human trials (3 / 6), entropy the mean of the humans'
    assert f[(HUMANS, "accuracy")] == pytest.approx(3 / 6)
    assert f[(HUMANS, "entropy")] == pytest.approx(h1 / 2)
    assert f[(HUMAN_MEAN, "accuracy")] == pytest.approx(0.5)


def test_pooled_accuracy_differs_from_the_mean_when_humans_answer_unequally():
    t = _tiny()
    t.loc[(t["observer"] == "h2") & (t["item"] == "i3"), "response"] = "dog"   # h2: 2/2 correct
    t["correct"] = t["response"] == t["label"]
    f = psychometrics(t, settings=_settings(n_resamples=0)).observer_frame().set_index(["observer", "metric"])["estimate"]
    assert f[(HUMANS, "accuracy")] == pytest.approx(4 / 6)     # (2 + 2) / (4 + 2)
    assert f[(HUMAN_MEAN, "accuracy")] == pytest.approx(0.75)  # (0.5 + 1) / 2


def test_unknown_experiment_is_named():
    with pytest.raises(TrialTableError, match="unknown experiment"):
        psychometrics(_tiny(), experiments=["nope"])


# --- resampling --------------------------------------------------------------------------------------------

def test_same_seed_same_bytes_and_selection_free():
    trials = simulate_benchmark(seed=0)
    a = psychometrics(trials, settings=_settings(observer_level="bootstrap"))
    b = psychometrics(trials.sample(frac=1.0, random_state=3), settings=_settings(observer_level="bootstrap"))
    assert np.array_equal(a.resampled.replicates, b.resampled.replicates)
    one = psychometrics(trials, settings=_settings(observer_level="bootstrap"), experiments=["sim-noise"])
    mask = np.array([lab[0] == "sim-noise" for lab in a.resampled.labels])
    assert np.array_equal(a.resampled.replicates[:, mask], one.resampled.replicates)


def _planted(seed, probs, n_items=160, mode="marginal"):
    """One model answering 160 images of 16 classes; responses drawn from ``probs`` over the classes."""
    rng = np.random.default_rng(seed)
    classes = np.array(CLASSES_16)
    labels = np.repeat(classes, n_items // 16)
    draws = rng.choice(16, size=n_items, p=probs)
    if mode == "marginal":
        responses = classes[draws]
    else:   # relative to the true class: the marginal response distribution stays uniform
        responses = classes[(np.repeat(np.arange(16), n_items // 16) + draws) % 16]
    return pd.DataFrame({"observer": "m", "observer_kind": "model", "experiment": "e", "condition": "0",
                         "item": [f"i{k}" for k in range(n_items)], "label": labels, "response": responses,
                         "correct": responses == labels})


def test_planted_entropy_basic_interval_covers_where_the_percentile_one_misses():
    """Plug-in entropy is biased low and its resamples lower still: the basic interval corrects the shift."""
    peaked = np.r_[0.5, 0.2, np.full(14, 0.3 / 14)]
    cases = {"peaked": (peaked, "marginal", -(peaked * np.log2(peaked)).sum()),
             "uniform": (np.r_[0.5, np.full(15, 0.5 / 15)], "relative", 4.0)}
    runs = 60
    for name, (probs, mode, truth) in cases.items():
        basic = percentile = 0
        for seed in range(runs):
            r = psychometrics(_planted(seed, probs, mode=mode), settings=_settings(n_resamples=400, level=0.9,
                                                                                  seed=seed), validate=False)
            row = r.observer_frame().set_index("metric").loc["entropy"]
            assert row["interval"] == "basic"
            basic += row["ci_low"] <= truth <= row["ci_high"]
            low, high = r.resampled.interval(0.9, "percentile")
            k = [i for i, lab in enumerate(r.resampled.labels) if lab[3] == "entropy"][0]
            percentile += low[k] <= truth <= high[k]
        # measured: peaked 0.84 (basic) vs 0.72 (percentile) over 100 runs; uniform 0.99 vs 0.00
        assert basic / runs >= 0.75, (name, basic)
        assert basic > percentile, (name, basic, percentile)


def test_planted_accuracy_is_covered():
    """A model right with probability 0.7 (else 'na'): its 90% interval covers 0.7 about 90% of the time."""
    hits, runs = 0, 80
    for seed in range(runs):
        t = _planted(seed, np.full(16, 1 / 16))
        right = np.random.default_rng(seed).random(len(t)) < 0.7
        t["response"] = np.where(right, t["label"], "na")
        t["correct"] = right
        f = psychometrics(t, settings=_settings(n_resamples=300, level=0.9, seed=seed), validate=False).observer_frame()
        row = f.set_index("metric").loc["accuracy"]
        hits += row["ci_low"] <= 0.7 <= row["ci_high"]
    assert 0.8 <= hits / runs <= 0.98


def test_observer_level_widens_only_the_human_summaries():
    trials = simulate_benchmark(seed=1)
    key = ("sim-noise", "0.20")
    images = psychometrics(trials, settings=_settings(n_resamples=400)).observer_frame()
    both = psychometrics(trials, settings=_settings(n_resamples=400, observer_level="bootstrap")).observer_frame()

    def width(frame, observer):
        row = frame[(frame["experiment"] == key[0]) & (frame["condition"] == key[1]) & (frame["observer"] == observer)
                    & (frame["metric"] == "accuracy")].iloc[0]
        return row["ci_high"] - row["ci_low"]

    assert width(both, HUMAN_MEAN) > width(images, HUMAN_MEAN)
    model = next(o for o in trials["observer"].unique() if o.startswith("model"))
    assert width(both, model) == pytest.approx(width(images, model))


# --- leaderboard ---------------------------------------------------------------------------------------------

def test_rank_columns_follow_model_vs_human_ranking():
    values = pd.DataFrame({"accuracy difference": [0.03, 0.01, 0.03, 0.08],
                           "observed consistency": [0.70, 0.75, 0.70, 0.60],
                           "error consistency": [0.20, 0.10, 0.25, 0.30]})
    # model-vs-human: pandas rank (ties averaged), ascending for the accuracy difference
    expected = (values["accuracy difference"].rank() + values["observed consistency"].rank(ascending=False)
                + values["error consistency"].rank(ascending=False)) / 3
    ranks, mean = rank_columns(values.to_numpy(), [False, True, True])
    assert mean.tolist() == pytest.approx(expected.tolist())
    assert ranks[:, 0].tolist() == [2.5, 1.0, 2.5, 4.0]
    stacked, stacked_mean = rank_columns(np.stack([values.to_numpy()] * 3), [False, True, True])
    assert np.array_equal(stacked_mean[1], mean)


def test_leaderboard_on_simulated_benchmark():
    result = run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=300, seed=0))
    board = leaderboard(result)
    t = board.table.set_index("observer")
    models = [o for o in t.index if o != HUMANS]
    # the values are the benchmark's overall rows; the mean rank is model-vs-human's, recomputed here by hand
    overall = result.rows[result.rows["scope"] == "overall"].pivot(index="observer", columns="metric", values="estimate")
    expected = (overall.loc[models, "accuracy_difference"].rank()
                + overall.loc[models, "observed_consistency"].rank(ascending=False)
                + overall.loc[models, "error_consistency"].rank(ascending=False)) / 3
    assert t.loc[models, "mean_rank"].to_numpy() == pytest.approx(expected.loc[models].to_numpy())
    assert (t.loc[models, "place_low"] <= t.loc[models, "place"]).all()
    assert (t.loc[models, "place"] <= t.loc[models, "place_high"]).all()
    assert t.loc[models, "probability_first"].sum() == pytest.approx(1.0)
    # planted: model-alien has no error consistency with humans (last in that column in every resample)
    assert t.loc["model-alien", "error_consistency_rank_low"] == len(models)
    assert np.isnan(t.loc[HUMANS, "place"]) and np.isfinite(t.loc[HUMANS, "error_consistency"])
    ood = board.ood_table[board.ood_table["observer"] != HUMANS]
    assert ood["ood_accuracy"].is_monotonic_decreasing and ood["place"].tolist() == [1, 2, 3, 4, 5]
    json.dumps(board.to_json_dict())   # plain JSON


def test_leaderboard_without_resamples_has_no_rank_intervals():
    board = leaderboard(run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=0)))
    assert board.table["place_low"].isna().all() and board.table["place"].notna().sum() == 5


# --- real data ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_benchmark(mvh_trials):
    return run_benchmark(mvh_trials, settings=_settings(n_resamples=200), validate=False)


def test_real_leaderboard_reproduces_model_vs_human_published_resnet50(real_benchmark):
    """model-vs-human's README lists standard ResNet-50: accuracy difference .087, observed consistency .665,
    error consistency .208, OOD accuracy .559."""
    board = leaderboard(real_benchmark)
    row = board.table.set_index("observer").loc["resnet50"]
    assert round(row["accuracy_difference"], 3) == 0.087
    assert round(row["observed_consistency"], 3) == 0.665
    assert round(row["error_consistency"], 3) == 0.208
    assert round(board.ood_table.set_index("observer").loc["resnet50", "ood_accuracy"], 3) == 0.559
    assert board.table["observer"].iloc[0] == "swag-regnety-128gf-in1k"
    assert board.table.set_index("observer").loc["bagnet33", "place"] == 9
    assert len(board.experiments) == 17


def _mvh_entropy(df):
    """model-vs-human's Entropy.analysis: mean over subjects of the entropy in bits over the categories shown."""
    values = []
    for _, part in df.groupby("observer"):
        p = [np.mean(part["response"] == c) for c in part["label"].unique() if c != "na"]
        values.append(-sum(x * np.log2(x) for x in p if abs(x) > 1e-5))
    return np.mean(values)


def test_real_psychometrics_reproduce_model_vs_human(mvh_trials):
    selected = mvh_trials[mvh_trials["experiment"].isin(["contrast", "colour", "eidolonII"])]
    r = psychometrics(selected, settings=_settings(n_resamples=0), validate=False)
    f = r.observer_frame().set_index(["experiment", "condition", "observer", "metric"])["estimate"]
    humans = selected[selected["observer_kind"] == "human"]
    for (experiment, condition), part in humans.groupby(["experiment", "condition"]):
        assert f[(experiment, condition, HUMANS, "accuracy")] == pytest.approx(part["correct"].mean(), abs=1e-12)
        assert f[(experiment, condition, HUMANS, "entropy")] == pytest.approx(_mvh_entropy(part), abs=1e-12)
    models = selected[selected["observer_kind"] == "model"]
    for (experiment, condition, observer), part in models.groupby(["experiment", "condition", "observer"]):
        assert f[(experiment, condition, observer, "accuracy")] == pytest.approx(part["correct"].mean(), abs=1e-12)
        assert f[(experiment, condition, observer, "entropy")] == pytest.approx(_mvh_entropy(part), abs=1e-12)
    assert r.table("contrast").columns.tolist()[:3] == ["c01", "c03", "c05"]


# --- command line -----------------------------------------------------------------------------------------

def test_benchmark_command_prints_and_writes_the_leaderboard(tmp_path, capsys):
    data = tmp_path / "trials.csv"
    simulate_benchmark(seed=0, n_humans=4, n_items=48).to_csv(data, index=False)
    out = tmp_path / "out"
    assert main(["benchmark", str(data), "--no-exclusions", "--resamples", "100", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Most human-like" in text and "Highest OOD accuracy" in text
    board = pd.read_csv(out / "leaderboard.csv")
    assert {"place", "place_low", "place_high", "mean_rank", "error_consistency_rank"} <= set(board.columns)
    assert (out / "leaderboard_ood.csv").exists()
    doc = json.loads((out / "benchmark.json").read_text())
    assert doc["leaderboard"]["humanlike"][0]["observer"] == board["observer"].iloc[0]
    assert main(["benchmark", str(data), "--no-exclusions", "--resamples", "100", "--json", "--quiet",
                 "--level", "0.5"]) == 0
    narrow = json.loads(capsys.readouterr().out)["leaderboard"]["humanlike"][0]
    wide = doc["leaderboard"]["humanlike"][0]
    assert narrow["error_consistency_high"] - narrow["error_consistency_low"] < (
        wide["error_consistency_high"] - wide["error_consistency_low"])


def test_psychometrics_command(tmp_path, capsys):
    data = tmp_path / "trials.csv"
    simulate_benchmark(seed=0, n_humans=4, n_items=48).to_csv(data, index=False)
    out = tmp_path / "out"
    assert main(["psychometrics", str(data), "--resamples", "100", "--out", str(out), "--figures", str(out),
                 "--experiment", "sim-noise", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "sim-noise: accuracy per condition" in text and "observed consistency" in text
    assert "sim-blur" not in text
    for name in ("psychometrics.csv", "psychometrics_human_range.csv", "consistency.csv", "psychometrics.json",
                 "psychometrics-sim-noise.png"):
        assert (out / name).stat().st_size > 0, name
    consistency = pd.read_csv(out / "consistency.csv")
    assert set(consistency["experiment"]) == {"sim-noise", "overall"} and "humans" in set(consistency["observer"])
    assert main(["psychometrics", str(data), "--resamples", "0", "--no-consistency", "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "consistency" not in doc and doc["n_resamples"] == 0
    assert main(["psychometrics", str(data), "--experiment", "nope", "--quiet"]) == 2
    assert "humanlike psychometrics: error: unknown experiment" in capsys.readouterr().err


def test_numbers_do_not_depend_on_chunks_or_threads(monkeypatch):
    from humanlike.resampling import engine

    chunks = []
    original = engine.resample_chunks
    monkeypatch.setattr(engine, "resample_chunks", lambda *a, **k: chunks.append(len(original(*a, **k))) or
                        original(*a, **k))
    trials = simulate_benchmark(seed=0)
    one = psychometrics(trials, settings=_settings(n_resamples=400, observer_level="bootstrap", workers=1))
    many = psychometrics(trials, settings=_settings(n_resamples=400, observer_level="bootstrap", workers=2,
                                                    memory_budget=2**22))
    assert chunks[0] == 1 and chunks[1] > 1
    assert np.array_equal(one.resampled.replicates, many.resampled.replicates)


def test_planted_twins_share_their_places():
    """Two models with the same parameters (twins) between a clearly better and a clearly worse one: their
    place intervals cover both places 2 and 3, the worst is 4 in every resample, and P(first) sums to 1."""
    from humanlike.trials.simulate import SDTObserver

    models = (SDTObserver("good", "model", noise_sd=0.0, sensitivity=0.9, bias=0.1, shared=0.8),
              SDTObserver("twin-a", "model", noise_sd=0.0, sensitivity=0.6, bias=0.2, shared=0.3),
              SDTObserver("twin-b", "model", noise_sd=0.0, sensitivity=0.6, bias=0.2, shared=0.3),
              SDTObserver("alien", "model", noise_sd=0.0, sensitivity=0.3, bias=0.3, shared=0.0))
    board = leaderboard(run_benchmark(simulate_benchmark(seed=0, models=models), exclusions=None, settings=ResamplingSettings(n_resamples=300, seed=0)))
    t = board.table.set_index("observer")
    for twin in ("twin-a", "twin-b"):
        assert t.loc[twin, "place_low"] <= 2 and t.loc[twin, "place_high"] >= 3, twin
    assert (t.loc["alien", "place"], t.loc["alien", "place_low"], t.loc["alien", "place_high"]) == (4, 4, 4)
    assert t.loc[["good", "twin-a", "twin-b", "alien"], "probability_first"].sum() == pytest.approx(1.0)
    assert board.ood_table["probability_first"].sum() == pytest.approx(1.0)
