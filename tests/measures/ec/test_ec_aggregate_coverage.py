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
from humanlike.resampling.jackknife import JackknifeMoments
from humanlike.resampling.settings import ResamplingSettings

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "ec_aggregate_coverage.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("ec_aggregate_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trial_table(correct: np.ndarray, n_models: int = 1) -> pd.DataFrame:
    """conditions x trials x observers correctness (the first ``n_models`` observers models) as a trial table."""
    n_conditions, n_trials, n_obs = correct.shape
    frames = []
    for c in range(n_conditions):
        label = np.where(np.arange(n_trials) % 2 == 0, "cat", "dog")
        for o in range(n_obs):
            right = correct[c, :, o]
            frames.append(pd.DataFrame({
                "observer": ("model" if n_models == 1 else f"model-{o}") if o < n_models else f"subject-{o:02d}",
                "observer_kind": "model" if o < n_models else "human",
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
    from humanlike.resampling.jackknife import jackknife_interval

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


def shown_interval(frame, low, high):
    """The interval as the table shows it: widened to contain the estimate, clipped to the metric's range."""
    from humanlike.measures.ec.result import clip_to_metric_range

    shown = clip_to_metric_range(frame[["metric", "estimate"]].assign(ci_low=low, ci_high=high), frame["metric"])
    return shown["ci_low"].to_numpy(), shown["ci_high"].to_numpy()


def test_ec_offers_the_jackknife_interval(capsys):
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.trials.simulate import simulate_benchmark
    from humanlike.resampling.jackknife import jackknife_interval

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    result = error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=200, seed=0, interval="jackknife"))
    frame = result.summary_table
    assert set(frame["interval_method"]) == {"jackknife normal"}
    low, high = jackknife_interval(result.resampled.estimate, result.resampled.jackknife)
    low, high = shown_interval(frame, low, high)
    np.testing.assert_allclose(frame["ci_low"], low, equal_nan=True)
    percentile = result.to_frame(method="percentile")
    assert not np.allclose(frame["ci_low"], percentile["ci_low"], equal_nan=True)


def test_ec_offers_the_jackknife_t_interval():
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.resampling.jackknife import jackknife_t_interval
    from humanlike.trials.simulate import simulate_benchmark

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    result = error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=200, seed=0, interval="jackknife-t"))
    frame = result.summary_table
    assert set(frame["interval_method"]) == {"jackknife t"}
    low, high = jackknife_t_interval(result.resampled.estimate, result.resampled.jackknife)
    low, high = shown_interval(frame, low, high)
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


def test_the_model_model_truth_is_the_kappa_of_the_simulated_process(study):
    # Known ground truth: models sharing errors only through hard items; with 10^6 trials per condition the
    # simulated kappa of every pair and condition converges to true_kappa_between_models.
    design = study.model_cell_design(4, 2, 80, 4.0, study.cell_seed("mm-test"))     # hard share 0.05
    n = 1_000_000
    x = study.simulate_model_correctness(design, n, np.random.default_rng(2)).astype(float)
    first, second, groups = study.all_pairs(4)
    kappa = study.kappas((x[:, :, first] * x[:, :, second]).sum(axis=1), x[:, :, first].sum(axis=1),
                         x[:, :, second].sum(axis=1), n)                        # conditions x pairs
    assert design["truth"] > 0.3                                                # the shared errors matter
    np.testing.assert_allclose(kappa, design["kappa"], atol=0.015)
    assert study.group_means(kappa[None], groups)[0, 0] == pytest.approx(design["truth"], abs=0.005)
    # accuracies near ceiling, as the part claims
    np.testing.assert_allclose(x.mean(axis=1), design["accuracy"], atol=0.002)


def test_the_studys_model_model_row_is_the_librarys(study):
    from humanlike.measures.ec.analysis import error_consistency

    design = study.model_cell_design(4, 3, 120, 6.0, study.cell_seed("mm-library"))
    correct = study.simulate_model_correctness(design, 120, np.random.default_rng(3))
    estimate, replicates, jackknife = study.bootstrap_aggregates(correct, 2000, np.random.default_rng(4),
                                                                 pairs=study.all_pairs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = error_consistency(_trial_table(correct, n_models=4),
                                   settings=ResamplingSettings(n_resamples=2000, seed=5, interval="bca"))
    columns = result.resampled.where(scope="sim", metric="error_consistency")
    column = [label[1] for label in columns.labels].index("model-model")
    assert estimate[0] == pytest.approx(columns.estimate[column], abs=1e-12)
    mine = JackknifeMoments.of(jackknife, estimate, strata=np.repeat(np.arange(3), 120))
    engines = columns.jackknife.select([column])
    for name in ("n", "variance", "bias", "influence_2", "influence_3", "terms_2"):
        np.testing.assert_allclose(getattr(mine, name)[:1], getattr(engines, name), rtol=1e-9, atol=1e-14)
    assert np.nanstd(replicates[:, 0]) == pytest.approx(np.nanstd(columns.replicates[:, column]), rel=0.1)


def test_the_model_model_part_runs_and_keeps_the_aggregate_section(study, tmp_path, capsys):
    page = tmp_path / "coverage.md"
    page.write_text(f"# page\n\n{study.BEGIN}\naggregate table\n{study.END}\n")
    # the smallest path of the part (two cells, printed only; the full grid is the benchmark's job)
    assert study.main(["--part", "model-model", "--quick", "--datasets", "3", "--resamples", "30"]) == 0
    text = capsys.readouterr().out
    assert text.count(study.MM_BEGIN) == 1 and study.MM_END in text
    table = [line for line in text.splitlines() if line.startswith("| 4 | 4 | 80 |") or line.startswith("| 9 | 1 | 560 |")]
    assert len(table) == 4          # each cell in the coverage table and in the df<3 / hard-item table
    # one cell straight from the worker: coverage shares of 3 data sets, widths positive
    row = study.coverage_of_model_cell(((4, 4, 80, 1.5), 3, 30))
    assert all(row[m] in (0.0, 1 / 3, 2 / 3, 1.0) for m in study.METHODS)
    assert row["jackknife-t:width"] > row["jackknife:width"] > 0
    assert 0 <= row["unseen"] <= 3 and 0 <= row["jackknife-t:seen_hits"] <= 3 - row["unseen"]
    # the model-model section goes between its own markers and leaves the aggregate section alone
    study.write_section(page, f"{study.MM_BEGIN}\nfirst\n{study.MM_END}\n", study.MM_BEGIN, study.MM_END)
    study.write_section(page, f"{study.MM_BEGIN}\nsecond\n{study.MM_END}\n", study.MM_BEGIN, study.MM_END)
    written = page.read_text()
    assert "aggregate table" in written and "second" in written and "first" not in written


# Part "columns": the EC result's other columns (observed consistency, squared accuracy difference, OOD accuracy).

ENGINE_GROUP = {"model-human": "model", "human-human": "humans", "humans": "humans", "model": "model"}


def test_the_column_truths_are_the_simulated_processs(study):
    # Known ground truth: with very many trials every column of the simulated data converges to column_truths
    # (c_obs from kappa and the true accuracies, the squared accuracy difference, the pooled accuracies).
    design = study.cell_design(4, 3, 0.4, study.cell_seed("columns-test"))
    truth = study.column_truths(design, 0.4)
    assert truth["error_consistency", "model-human"] == pytest.approx(design["truth"]["model-human"], abs=1e-12)
    assert truth["error_consistency", "human-human"] == pytest.approx(design["truth"]["human-human"], abs=1e-12)
    n = 400_000
    x = study.simulate_correctness(design, n, 0.4, np.random.default_rng(6)).astype(float)
    first, second, _ = study.model_human_pairs(5)
    values = study.column_values((x[:, :, first] * x[:, :, second]).sum(axis=1)[None], x.sum(axis=1)[None], n)[0]
    simulated = dict(zip(study.COLUMNS, values))
    for column in study.COLUMNS:
        # SD of a proportion at n = 400,000 is below 0.0005, of a squared difference of ~0.02 below 0.00003
        tolerance = {"accuracy_difference": 8e-5, "error_consistency": 4e-3}.get(column[0], 1e-3)
        assert simulated[column] == pytest.approx(truth[column], abs=tolerance), column
    # the squared accuracy differences are not trivially zero, and the columns differ from each other
    assert truth["accuracy_difference", "model-human"] > 3e-4 and truth["accuracy_difference", "human-human"] > 3e-4
    assert truth["observed_consistency", "model-human"] != pytest.approx(truth["observed_consistency", "human-human"])


def test_the_studys_columns_are_the_librarys(study):
    from humanlike.measures.ec.analysis import error_consistency

    design = study.cell_design(4, 3, 0.4, study.cell_seed("library"))
    correct = study.simulate_correctness(design, 120, 0.4, np.random.default_rng(3))
    estimate, replicates, jackknife = study.bootstrap_columns(correct, 2000, np.random.default_rng(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = error_consistency(_trial_table(correct),
                                   settings=ResamplingSettings(n_resamples=2000, seed=5, interval="jackknife-t"))
    mine = JackknifeMoments.of(jackknife, estimate, strata=np.repeat(np.arange(3), 120))
    for j, (metric, group) in enumerate(study.COLUMNS):
        columns = result.resampled.where(scope="sim", metric=metric)
        k = [label[1] for label in columns.labels].index(ENGINE_GROUP[group])
        # the same estimate and the same stratified item jackknife as the engine, column by column ...
        assert estimate[j] == pytest.approx(columns.estimate[k], abs=1e-12), (metric, group)
        engines = columns.jackknife.select([k])
        for name in ("n", "variance", "bias", "influence_2", "influence_3", "terms_2"):
            np.testing.assert_allclose(getattr(mine, name)[j:j + 1], getattr(engines, name), rtol=1e-9, atol=1e-12,
                                       err_msg=f"{metric} {group} {name}")
        # ... and the same resampling distribution (different random streams: within Monte-Carlo error)
        assert np.nanstd(replicates[:, j]) == pytest.approx(np.nanstd(columns.replicates[:, k]), rel=0.1)


def test_the_columns_part_sees_the_same_data_sets_as_the_kappa_part(study):
    # Same design, same data sets, same resamples: its kappa coverage is the aggregate part's, to the bit.
    kappa = study.coverage_of_cell(((4, 4, 80, 0.15), 6, 40))
    columns = study.coverage_of_columns_cell(((4, 4, 80, 0.15), 6, 40))
    for group in study.GROUPS:
        for method in study.METHODS:
            assert columns[f"error_consistency:{group}:{method}"] == kappa[f"{group}:{method}"]
            assert columns[f"error_consistency:{group}:{method}:width"] == pytest.approx(
                kappa[f"{group}:{method}:width"], rel=1e-12)
    # the jackknife centre: observed consistency and OOD accuracy are linear in the counts (no bias to remove);
    # the squared accuracy difference's plug-in is biased upward and the jackknife lowers it in every data set
    for column in ("observed_consistency:model-human", "ood_accuracy:humans"):
        assert columns[f"{column}:centre_bias"] == pytest.approx(columns[f"{column}:bias"], abs=1e-12)
    for group in study.GROUPS:
        assert columns[f"accuracy_difference:{group}:centre_bias"] < columns[f"accuracy_difference:{group}:bias"]
        assert columns[f"accuracy_difference:{group}:jack_se"] > 0
    # the other columns' widths are their own (a squared accuracy difference is far narrower than kappa)
    assert 0 < columns["accuracy_difference:model-human:jackknife-t:width"] < columns[
        "observed_consistency:model-human:jackknife-t:width"] < columns["error_consistency:model-human:jackknife-t:width"]


def test_the_columns_part_runs_and_writes_its_own_section(study, tmp_path, capsys):
    assert study.main(["--part", "columns", "--quick", "--datasets", "3", "--resamples", "30"]) == 0
    text = capsys.readouterr().out
    assert text.count(study.COL_BEGIN) == 1 and study.COL_END in text
    assert len([line for line in text.splitlines() if line.startswith("| 4 | 4 | 80 | 0.15 |")]) == 1
    assert len([line for line in text.splitlines() if line.startswith("| c_obs | model-human | `jackknife-t` |")]) == 1
    page = tmp_path / "coverage.md"
    page.write_text(f"# page\n\n{study.BEGIN}\naggregate table\n{study.END}\n")
    study.write_section(page, f"{study.COL_BEGIN}\nfirst\n{study.COL_END}\n", study.COL_BEGIN, study.COL_END)
    study.write_section(page, f"{study.COL_BEGIN}\nsecond\n{study.COL_END}\n", study.COL_BEGIN, study.COL_END)
    written = page.read_text()
    assert "aggregate table" in written and "second" in written and "first" not in written
