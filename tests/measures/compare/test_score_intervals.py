"""One number, one interval: compare's scores table shows each score with the interval its measure's own result
reports for it (the profile interval of one EC table, the result's own interval method otherwise), not a
percentile interval recomputed from the paired replicates (docs/compare.md)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from humanlike.measures.compare.adapters import compare, ec_scores
from humanlike.measures.compare.mover import MOVER_METHOD
from humanlike.measures.dmc.analysis import decision_margin_consistency, dmc_settings
from humanlike.measures.dvc.choices import latent_correctness_correlation
from humanlike.measures.ec.analysis import error_consistency
from humanlike.measures.ec.interval import ec_profile_interval
from humanlike.resampling.intervals import percentile_interval
from humanlike.resampling.settings import ResamplingSettings
from humanlike.stats.comparison import compare_scores
from humanlike.stats.scores import Scores
from humanlike.trials.simulate import simulate_benchmark

PROFILE = "profile-likelihood"


def _column(resampled, **label):
    """Index of the one column of ``resampled`` whose labels are ``label``."""
    names = resampled.label_names
    hits = [k for k, lab in enumerate(resampled.labels) if all(lab[names.index(f)] == v for f, v in label.items())]
    assert len(hits) == 1, (label, hits)
    return hits[0]


def _counts(trials, human, model):
    """(both correct, only the human, only the model, both wrong) of one human and one model, by hand."""
    wide = trials.pivot_table(index="item", columns="observer", values="correct", aggfunc="first")
    h, m = wide[human].astype(bool).to_numpy(), wide[model].astype(bool).to_numpy()
    return int(np.sum(h & m)), int(np.sum(h & ~m)), int(np.sum(~h & m)), int(np.sum(~h & ~m))


# --- EC on one table per model: the profile-likelihood interval of `humanlike ec` -------------------------------


@pytest.fixture(scope="module")
def one_table():
    trials = simulate_benchmark(seed=1, n_humans=1, n_items=60, experiments={"sim": {"0": 0.9}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        result = error_consistency(trials, settings=ResamplingSettings(n_resamples=300, seed=0), pair_intervals=True)
    return trials, result


def test_one_table_ec_scores_carry_the_profile_interval_of_humanlike_ec(one_table):
    trials, result = one_table
    comparison = compare(result, trials=trials)
    scores = comparison.scores.set_index("model")
    human = trials.loc[trials["observer_kind"] == "human", "observer"].unique()[0]
    pairs = result.pair_frame().set_index(["observer_1", "observer_2"])
    assert len(scores) == 5
    for model, row in scores.iterrows():
        by_hand = ec_profile_interval(*_counts(trials, human, model), level=0.95)
        reported = pairs.loc[(human, model)]
        assert reported["interval_method"] == PROFILE
        assert (row["ci_low"], row["ci_high"]) == (float(by_hand.low), float(by_hand.high))
        assert (row["ci_low"], row["ci_high"]) == (reported["ci_low"], reported["ci_high"])
        assert row["interval"] == PROFILE
    # and it is not what the percentile of the paired replicates would have shown
    columns = result.resampled.where(scope="overall", kind="model-human", metric="error_consistency")
    low, _ = percentile_interval(columns.replicates, 0.95)
    percentile = dict(zip([lab[1] for lab in columns.labels], low))
    assert max(abs(scores.loc[m, "ci_low"] - percentile[m]) for m in scores.index) > 0.02
    # the pair rows keep their own intervals (MOVER on one table): only the scores changed
    assert set(comparison.pairs["interval"]) - {""} == {MOVER_METHOD}


def test_one_table_ec_scores_at_another_level(one_table):
    trials, result = one_table
    scores = compare(result, level=0.8, trials=trials).scores.set_index("model")
    human = trials.loc[trials["observer_kind"] == "human", "observer"].unique()[0]
    for model, row in scores.iterrows():
        by_hand = ec_profile_interval(*_counts(trials, human, model), level=0.8)
        assert (row["ci_low"], row["ci_high"]) == (float(by_hand.low), float(by_hand.high))


def test_real_one_table_ec_compare_cli_shows_ec_cli_interval(mvh_trials, tmp_path, capsys):
    """On the real benchmark: one experiment with one condition and one human, `humanlike compare --json`
    prints for each model exactly the interval `humanlike ec --json` prints for that pair."""
    from humanlike.app.cli import main

    conditions = mvh_trials.groupby("experiment")["condition"].nunique()
    experiment = min(conditions[conditions == 1].index)
    here = mvh_trials[mvh_trials["experiment"] == experiment]
    human = min(here.loc[here["observer_kind"] == "human", "observer"].unique())
    one = here[(here["observer_kind"] == "model") | (here["observer"] == human)]
    data = tmp_path / "one.csv"
    one.to_csv(data, index=False)
    common = [str(data), "--experiment", experiment, "--condition", str(one["condition"].iloc[0]),
              "--no-exclusions", "--resamples", "200", "--seed", "0", "--quiet", "--json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["ec", *common]) == 0
        ec_doc = json.loads(capsys.readouterr().out)
        assert main(["compare", *common, "--measure", "ec"]) == 0
        compare_doc = json.loads(capsys.readouterr().out)
    pairs = {(p["observer_1"], p["observer_2"]): p for p in ec_doc["pairs"]}
    scores = compare_doc["scores"]
    assert len(scores) >= 2
    for row in scores:
        pair = pairs.get((human, row["model"])) or pairs[(row["model"], human)]
        assert pair["interval_method"] == PROFILE and row["interval"] == PROFILE
        assert (row["ci_low"], row["ci_high"]) == (pair["ci_low"], pair["ci_high"])
        assert ec_doc["model_human"][row["model"]]["ci_low"] == row["ci_low"]


# --- EC aggregated over humans and conditions: the result's own interval method -----------------------------------


@pytest.mark.parametrize("method, label", [("bca", "bca bootstrap"), ("jackknife", "jackknife normal"),
                                           ("percentile", "percentile bootstrap")])
def test_aggregated_ec_scores_carry_the_result_interval_by_its_method(method, label):
    trials = simulate_benchmark(seed=1, n_humans=4, n_items=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        result = error_consistency(trials, settings=ResamplingSettings(n_resamples=150, seed=0, interval=method))
    for level in (0.95, 0.8):
        comparison = compare(result, level=level)
        low, high = result.interval(level)
        for row in comparison.scores.to_dict("records"):
            k = _column(result.resampled, scope="overall", group=row["model"], kind="model-human",
                        metric="error_consistency")
            assert (row["ci_low"], row["ci_high"]) == (low[k], high[k]) and row["interval"] == label
        k = _column(result.resampled, scope="overall", group="humans", metric="error_consistency")
        ceiling = comparison.ceiling
        assert (ceiling["ci_low"], ceiling["ci_high"], ceiling["interval"]) == (low[k], high[k], label)
    # an experiment's scope reads that experiment's rows
    scores = compare(result, scope="sim-blur").scores
    low, high = result.interval()
    for row in scores.to_dict("records"):
        k = _column(result.resampled, scope="sim-blur", group=row["model"], kind="model-human",
                    metric="error_consistency")
        assert (row["ci_low"], row["ci_high"]) == (low[k], high[k])
    if method != "percentile":   # the method is followed, not replaced by the percentile of the replicates
        model = result.resampled.where(scope="overall", kind="model-human", metric="error_consistency")
        p_low, _ = percentile_interval(model.replicates, 0.95)
        shown = compare(result).scores.set_index("model")["ci_low"]
        assert max(abs(shown[lab[1]] - p) for lab, p in zip(model.labels, p_low)) > 1e-3


def test_normalised_scores_and_differences_keep_their_percentile_intervals():
    trials = simulate_benchmark(seed=1, n_humans=4, n_items=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        result = error_consistency(trials, settings=ResamplingSettings(n_resamples=150, seed=0, interval="bca"))
        comparison = compare(result, normalise="ceiling")
    scores = ec_scores(result)
    ratio = scores.replicates / scores.ceiling_replicates[:, None]
    low, high = percentile_interval(ratio, 0.95)
    shown = comparison.scores.set_index("model")
    for k, model in enumerate(scores.models):
        assert shown.loc[model, "normalised_low"] == pytest.approx(low[k])
        assert shown.loc[model, "normalised_high"] == pytest.approx(high[k])
    assert set(comparison.pairs["interval"]) == {"percentile (paired bootstrap)"}


# --- DMC and DVC: the same principle ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dmc_result():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        return decision_margin_consistency(simulate_benchmark(seed=0, n_humans=4, n_items=32),
                                           settings=dmc_settings(n_resamples=120, seed=0, interval="bca"))


def test_dmc_scores_carry_the_result_interval(dmc_result):
    for scope in ("overall", "sim-blur"):
        comparison = compare(dmc_result, scope=scope)
        table = dmc_result.table(scope).set_index("group")
        for row in comparison.scores.to_dict("records"):
            assert (row["ci_low"], row["ci_high"]) == tuple(table.loc[row["model"], ["ci_low", "ci_high"]])
            assert row["interval"] == "bca bootstrap"
        assert (comparison.ceiling["ci_low"], comparison.ceiling["ci_high"]) == \
            tuple(table.loc["humans", ["ci_low", "ci_high"]])
    low, high = dmc_result.interval(0.8)
    for row in compare(dmc_result, level=0.8).scores.to_dict("records"):
        k = _column(dmc_result.resampled, level="overall", scope="overall", condition="", group=row["model"],
                    kind="model-human", metric="decision_margin_consistency")
        assert (row["ci_low"], row["ci_high"]) == (low[k], high[k])


def test_dmc_published_intervals_are_shown_as_published(dmc_result):
    paper = dmc_result.with_published_intervals()
    comparison = compare(paper)
    table = paper.table("overall").set_index("group")
    assert (comparison.ceiling["ci_low"], comparison.ceiling["ci_high"]) == \
        tuple(table.loc["humans", ["t_low", "t_high"]])
    assert comparison.ceiling["interval"] == "t (published)"
    assert set(comparison.scores["interval"]) == {"t (published)"}


def test_dvc_scores_carry_the_result_interval():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        result = latent_correctness_correlation(simulate_benchmark(seed=0, n_humans=3, n_items=32),
                                                settings=ResamplingSettings(n_resamples=60, seed=0,
                                                                            interval="jackknife"))
        comparison = compare(result)
    groups = result.groups().set_index("group")
    for row in comparison.scores.to_dict("records"):
        assert (row["ci_low"], row["ci_high"]) == tuple(groups.loc[row["model"], ["ci_low", "ci_high"]])
        assert row["interval"] == "jackknife normal"


# --- the figure and the text draw the table's intervals; Scores without intervals keep the percentile --------------


def test_figure_draws_the_scores_table_intervals(one_table):
    import matplotlib.pyplot as plt

    from humanlike.measures.compare.plot import comparison_figure

    trials, result = one_table
    comparison = compare(result, trials=trials)
    figure = comparison_figure(comparison)
    segments = figure.axes[0].collections[0].get_segments()
    drawn = sorted((float(s[0][1]), float(s[1][1])) for s in segments)
    table = sorted(zip(comparison.scores["ci_low"], comparison.scores["ci_high"]))
    assert np.allclose(drawn, table, rtol=0, atol=1e-12)
    plt.close(figure)


def test_text_names_the_score_interval(one_table):
    from humanlike.measures.compare.cli import format_comparison

    trials, result = one_table
    text = format_comparison(compare(result, trials=trials))
    assert f"models by score (interval: {PROFILE};" in text


def test_scores_without_given_intervals_keep_the_percentile_and_given_ones_need_their_level():
    rng = np.random.default_rng(0)
    reps = np.array([0.4, 0.2]) + rng.normal(0, 0.02, (300, 2))
    plain = compare_scores(Scores("x", "overall", ("a", "b"), [0.4, 0.2], reps, 0.5, 0.5 + reps[:, 0] - 0.4))
    low, high = percentile_interval(reps, 0.95)
    assert plain.scores["ci_low"].tolist() == pytest.approx(low.tolist())
    assert plain.scores["ci_high"].tolist() == pytest.approx(high.tolist())
    assert set(plain.scores["interval"]) == {"percentile (paired bootstrap)"}
    given = Scores("x", "overall", ("a", "b"), [0.4, 0.2], reps, low=[0.3, 0.1], high=[0.5, 0.3],
                   interval_method=("m", "m"), interval_level=0.95)
    assert compare_scores(given).scores["ci_high"].tolist() == [0.5, 0.3]
    assert given.select(["b"]).low.tolist() == [0.1]
    with pytest.raises(ValueError, match="at level 0.95"):
        compare_scores(given, level=0.9)
    with pytest.raises(ValueError, match="together"):
        Scores("x", "overall", ("a",), [0.4], reps[:, :1], low=[0.3])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_ood_alignment_scores_carry_the_regime_table_interval():
    from humanlike.measures.ood.analysis import ood_analysis

    reference = {"sim-noise": "0.00", "sim-blur": "0", "sim-contrast": "100", "sim-rotation": "0"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        result = ood_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24), reference,
                              settings=ResamplingSettings(n_resamples=40, seed=0))
        comparison, narrow = compare(result), compare(result, level=0.8)
    alignment = result.alignment
    regime = next(iter(alignment.ratio_replicates))
    table = alignment.regime_ratios[alignment.regime_ratios["regime"] == regime].set_index("model")
    for row in comparison.scores.to_dict("records"):
        assert (row["ci_low"], row["ci_high"]) == tuple(table.loc[row["model"], ["ratio_low", "ratio_high"]])
        assert row["interval"] == "percentile bootstrap"
    # at another level: the same columns' interval from the alignment's resampled values
    low, high = percentile_interval(alignment.ratio_replicates[regime], 0.8)
    shown = narrow.scores.set_index("model")
    assert set(shown["interval"]) == {"percentile bootstrap"}
    for k, model in enumerate(alignment.models):
        assert shown.loc[model, "ci_low"] == pytest.approx(low[k]) and shown.loc[model, "ci_high"] == pytest.approx(high[k])


def test_one_table_ec_without_resamples_still_shows_the_profile_interval(one_table):
    trials, _ = one_table
    result = error_consistency(trials, settings=ResamplingSettings(n_resamples=0, seed=0))
    scores = compare(result, trials=trials).scores
    assert set(scores["interval"]) == {PROFILE} and scores["ci_low"].notna().all()
    several = simulate_benchmark(seed=1, n_humans=3, n_items=40)
    plain = compare(error_consistency(several, settings=ResamplingSettings(n_resamples=0, seed=0))).scores
    assert set(plain["interval"]) == {"none (no resamples)"} and plain["ci_low"].isna().all()
