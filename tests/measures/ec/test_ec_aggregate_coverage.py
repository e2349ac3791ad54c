"""The aggregated-EC coverage study (benchmarks/ec_aggregate_coverage.py): its truth and its bootstrap are
the library's (same estimator, same resampling scheme, same jackknife), so the table it publishes measures
what `humanlike ec` does."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from humanlike.resampling.intervals import JackknifeMoments
from humanlike.resampling.settings import ResamplingSettings

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "ec_aggregate_coverage.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("ec_aggregate_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trial_table(correct: np.ndarray) -> pd.DataFrame:
    """conditions x trials x observers correctness (observer 0 the model) as a trial table."""
    n_conditions, n_trials, n_obs = correct.shape
    frames = []
    for c in range(n_conditions):
        label = np.where(np.arange(n_trials) % 2 == 0, "cat", "dog")
        for o in range(n_obs):
            right = correct[c, :, o]
            frames.append(pd.DataFrame({
                "observer": "model" if o == 0 else f"subject-{o:02d}", "observer_kind": "model" if o == 0 else "human",
                "experiment": "sim", "condition": f"c{c}", "item": [f"c{c}-{i}" for i in range(n_trials)],
                "label": label, "response": np.where(right, label, np.where(label == "cat", "dog", "cat"))}))
    trials = pd.concat(frames, ignore_index=True)
    trials["correct"] = trials["response"] == trials["label"]
    return trials


def test_the_truth_is_the_kappa_of_the_simulated_process(study):
    # Known ground truth: with very many trials the simulated data's aggregates converge to the cell's truth.
    design = study.cell_design(4, 3, 0.4, study.cell_seed("test"))
    n = 200_000
    x = study.simulate_correctness(design, n, 0.4, np.random.default_rng(1)).astype(float)
    first, second = np.triu_indices(5, 1)      # observer 0 (the model) first: model-human pairs come first
    kappa = study.kappas((x[:, :, first] * x[:, :, second]).sum(axis=1), x[:, :, first].sum(axis=1),
                         x[:, :, second].sum(axis=1), n)
    model_human, human_human = study._aggregate(kappa[None], 4)[0]
    assert model_human == pytest.approx(design["truth"]["model-human"], abs=0.004)
    assert human_human == pytest.approx(design["truth"]["human-human"], abs=0.004)


def test_the_studys_bootstrap_is_the_librarys(study):
    from humanlike.measures.ec.analysis import error_consistency

    design = study.cell_design(4, 3, 0.4, study.cell_seed("library"))
    correct = study.simulate_correctness(design, 120, 0.4, np.random.default_rng(3))
    estimate, replicates, jackknife = study.bootstrap_aggregates(correct, 3000, np.random.default_rng(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = error_consistency(_trial_table(correct), settings=ResamplingSettings(n_resamples=3000, seed=5, interval="bca"))
    columns = result.resampled.where(scope="sim", metric="error_consistency")
    by_group = dict(zip([label[1] for label in columns.labels], range(len(columns.labels))))
    library = [by_group["model"], by_group["humans"]]
    # The same estimates, to rounding ...
    np.testing.assert_allclose(estimate, columns.estimate[library], atol=1e-12)
    # ... the same stratified jackknife (the engine's sums of its leave-one-item-out rows, per condition) ...
    mine = JackknifeMoments.of(jackknife, estimate, strata=np.repeat(np.arange(3), 120))
    engines = columns.jackknife.select(library)
    for name in ("n", "variance", "bias", "influence_2", "influence_3", "terms_2"):
        np.testing.assert_allclose(getattr(mine, name), getattr(engines, name), rtol=1e-9, atol=1e-14)
    # ... and the same resampling distribution (different random streams: within Monte-Carlo error).
    np.testing.assert_allclose(np.nanstd(replicates, axis=0), np.nanstd(columns.replicates[:, library], axis=0),
                               rtol=0.08)
    np.testing.assert_allclose(np.nanmean(replicates, axis=0), np.nanmean(columns.replicates[:, library], axis=0),
                               atol=0.2 * np.nanstd(replicates, axis=0).max())


def test_the_section_replaces_itself_in_the_page(study, tmp_path):
    page = tmp_path / "coverage.md"
    page.write_text("# single pair\n\ntable\n")
    study.write_section(page, f"{study.BEGIN}\nfirst\n{study.END}\n")
    study.write_section(page, f"{study.BEGIN}\nsecond\n{study.END}\n")
    text = page.read_text()
    assert text.startswith("# single pair") and "second" in text and "first" not in text


def test_jackknife_interval_covers_a_smooth_statistic_at_its_level():
    # Known ground truth: the mean of 40 normal values, 2,000 data sets; the jackknife of a mean is the t-free
    # standard interval, so it covers 0.95 up to the normal-vs-t difference at n = 40 (about 0.94).
    from humanlike.resampling.intervals import jackknife_interval

    rng = np.random.default_rng(8)
    data = rng.normal(3.0, 2.0, (2000, 40))
    hits = 0
    for x in data:
        loo = (x.sum() - x) / 39
        low, high = jackknife_interval(np.array([x.mean()]), loo[:, None])
        hits += low[0] <= 3.0 <= high[0]
    assert 0.925 <= hits / 2000 <= 0.96


def test_in_the_benchmarks_regime_the_jackknife_covers_where_the_percentile_bootstrap_does_not(study):
    # 4 humans, 4 conditions, 80 trials, accuracies near ceiling, copy 0.4 (model-human EC 0.378): the
    # percentile interval of the aggregated model-human EC covers ~0.81, the jackknife interval ~0.93.
    row = study.coverage_of_cell(((4, 4, 80, 0.4), 200, 400))
    assert row["model-human:percentile"] <= 0.88
    assert row["model-human:jackknife"] >= 0.90
    assert row["model-human:jackknife"] - row["model-human:percentile"] >= 0.05


def test_ec_offers_the_jackknife_interval(capsys):
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.trials.simulate import simulate_benchmark
    from humanlike.resampling.intervals import jackknife_interval

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    result = error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=200, seed=0, interval="jackknife"))
    frame = result.summary
    assert set(frame["interval_method"]) == {"jackknife normal"}
    low, high = jackknife_interval(result.resampled.estimate, result.resampled.jackknife)
    np.testing.assert_allclose(frame["ci_low"], low, equal_nan=True)
    percentile = result.to_frame(method="percentile")
    assert not np.allclose(frame["ci_low"], percentile["ci_low"], equal_nan=True)


def test_ec_offers_the_jackknife_t_interval():
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.resampling.intervals import jackknife_t_interval
    from humanlike.trials.simulate import simulate_benchmark

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    result = error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=200, seed=0, interval="jackknife-t"))
    frame = result.summary
    assert set(frame["interval_method"]) == {"jackknife t"}
    low, high = jackknife_t_interval(result.resampled.estimate, result.resampled.jackknife)
    np.testing.assert_allclose(frame["ci_low"], low, equal_nan=True)
    np.testing.assert_allclose(frame["ci_high"], high, equal_nan=True)
    normal = result.to_frame(method="jackknife")
    assert not np.allclose(frame["ci_low"], normal["ci_low"], equal_nan=True)


def test_the_command_line_takes_interval_jackknife_t(modelvshuman_dir, capsys):
    import json

    from humanlike.app.cli import main

    bounds = {}
    for method in ("jackknife", "jackknife-t"):
        assert main(["ec", str(modelvshuman_dir), "--experiment", "edge", "--json", "--resamples", "50", "--quiet",
                     "--interval", method]) == 0
        hh = json.loads(capsys.readouterr().out)["human_human"]
        assert hh["ci_low"] < hh["mean"] < hh["ci_high"]
        bounds[method] = (hh["ci_low"], hh["ci_high"])
    assert bounds["jackknife"] != bounds["jackknife-t"]
    # the text names the interval the rows carry (was "the jackknife-t bootstrap")
    assert main(["ec", str(modelvshuman_dir / "edge"), "--resamples", "50", "--interval", "jackknife-t"]) == 0
    text = capsys.readouterr().out
    assert "95% jackknife-t interval" in text and "the others the jackknife t interval" in text


def test_in_the_benchmarks_sparsest_cell_jackknife_t_covers_where_the_normal_jackknife_does_not(study):
    # 4 humans, 8 conditions, 80 trials, copy 0.15 (human-human EC 0.028 from ~20 co-errors per data set): the
    # normal jackknife interval of the human-human mean covers ~0.88-0.91, the jackknife-t interval ~0.93
    # (docs/ec_coverage.md). 300 data sets, Monte-Carlo SE 0.013.
    row = study.coverage_of_cell(((4, 8, 80, 0.15), 300, 2))
    assert row["human-human:jackknife"] <= 0.91
    assert row["human-human:jackknife-t"] >= 0.92
    assert row["model-human:jackknife-t"] >= 0.92
