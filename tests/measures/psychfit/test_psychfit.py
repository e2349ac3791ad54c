"""Psychometric-function fits: the model by hand, the fit against an independent optimiser, planted values
recovered and covered, the options, bad input, the command line and model-vs-human's real data."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from humanlike.app.cli import main
from humanlike.measures.psychfit.analysis import HUMANS, psychometric_fits
from humanlike.measures.psychfit.axes import experiment_axes, fittable_experiments, stimulus_level
from humanlike.measures.psychfit.fit import fit_batch, predicted, sigmoid, sigmoid_inverse, threshold_slope
from humanlike.measures.psychfit.simulate import planted_location, simulate_psychometric
from humanlike.resampling.settings import ResamplingSettings
from humanlike.trials.schema import TrialTableError

GUESS = 1 / 16


def _settings(**kw):
    return ResamplingSettings(**{"n_resamples": 200, "seed": 0, **kw})


# --- the model, by hand ----------------------------------------------------------------------------------

def test_sigmoids_by_hand():
    assert sigmoid("logistic", np.log(3)) == pytest.approx(0.75)               # 1 / (1 + 1/3)
    assert sigmoid("gaussian", 1.0) == pytest.approx(0.841344746)
    assert sigmoid("weibull", np.log(2)) == pytest.approx(1 - np.exp(-2 * np.log(2)))   # 1 - exp(-ln2 * 2) = 0.75
    for name in ("logistic", "gaussian", "weibull"):
        assert sigmoid_inverse(name, sigmoid(name, -1.3)) == pytest.approx(-1.3)


def test_threshold_and_slope_by_hand():
    # logistic, guess 1/16, lapse 0.05, location 1, scale 0.25: p(1) = 1/16 + 0.8875 / 2 = 0.50625
    t, s = threshold_slope("logistic", 1.0, 0.25, 0.05, GUESS, 1, 0.50625)
    assert t == pytest.approx(1.0) and s == pytest.approx(0.8875 * 0.25 / 0.25)
    # the 75% point of the sigmoid itself (psignifit's threshPC = 0.75): location + scale * logit(0.75)
    t, _ = threshold_slope("logistic", 1.0, 0.25, 0.05, GUESS, 1, 0.75, level_of="sigmoid")
    assert t == pytest.approx(1.0 + 0.25 * np.log(3))
    # falling: the threshold mirrors, the slope is negative
    t, s = threshold_slope("logistic", 1.0, 0.25, 0.05, GUESS, -1, 0.75, level_of="sigmoid")
    assert t == pytest.approx(1.0 - 0.25 * np.log(3)) and s < 0
    # a level above 1 - lapse is never reached
    assert np.isnan(threshold_slope("logistic", 1.0, 0.25, 0.3, GUESS, 1, 0.75)[0])


def test_stimulus_levels_and_axes():
    assert [stimulus_level(c) for c in ("c01", "c100", "0.90", "40", "2-3-10", "inf")] == [1, 100, 0.9, 40, 2, np.inf]
    trials = pd.DataFrame({"experiment": ["hp"] * 4 + ["lp"] * 4, "condition": ["0.4", "1", "3", "inf", "0", "3",
                                                                                    "10", "40"],
                           "label": ["a", "b"] * 4, "correct": [False, True, True, True, True, True, False, False]})
    axes = experiment_axes(trials)
    assert (axes["hp"].space, axes["hp"].excluded, axes["hp"].direction) == ("log", ("inf",), 1)
    assert (axes["lp"].space, axes["lp"].excluded, axes["lp"].direction) == ("linear", (), -1)
    assert experiment_axes(trials, direction="increasing")["lp"].direction == 1
    assert axes["lp"].guess == 0.5 and experiment_axes(trials, guess=0.1)["lp"].guess == 0.1
    assert experiment_axes(trials, space="log")["lp"].excluded == ("0",)    # 0 has no place in log space
    assert fittable_experiments(trials) == ["hp", "lp"]


# --- the fit ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["logistic", "gaussian", "weibull"])
@pytest.mark.parametrize("direction", [1, -1])
def test_fit_reaches_the_likelihood_maximum_of_an_independent_optimiser(name, direction):
    """Binomial data from a known function; the batch fit's log-likelihood is at least scipy's best of several
    L-BFGS-B starts (within the same bounds) on every row."""
    rng = np.random.default_rng(7)
    x = np.log10([1, 2, 3, 5, 8, 13, 25, 50, 100])
    p = predicted(name, x, 0.9, 0.2, 0.04, GUESS, direction)
    k = rng.binomial(60, np.broadcast_to(p, (5, x.size))).astype(float)
    n = np.full_like(k, 60.0)
    fit = fit_batch(k, n, x, name=name, guess=GUESS, direction=direction)
    width = x.max() - x.min()
    bounds = [(x.min() - width / 2, x.max() + width / 2), (np.log(width / 200), np.log(2 * width)), (0, 0.5)]
    for r in range(k.shape[0]):
        def nll(t, r=r):
            q = np.clip(predicted(name, x, t[0], np.exp(t[1]), t[2], GUESS, direction), 1e-12, 1 - 1e-12)
            return -(k[r] * np.log(q) + (n[r] - k[r]) * np.log1p(-q)).sum()
        best = min((minimize(nll, s, method="L-BFGS-B", bounds=bounds) for s in
                    ([0.9, np.log(0.2), 0.04], [1.2, np.log(0.5), 0.1])), key=lambda o: o.fun)
        # 1e-3 in log-likelihood: far below any change in the parameters that matters (a lapse at its bound
        # converges in the last digits only)
        assert fit["loglik"][r] >= -best.fun - 1e-3, (r, fit["loglik"][r], -best.fun)


def test_fit_is_the_same_whatever_rows_share_its_batch():
    rng = np.random.default_rng(3)
    x = np.linspace(0, 1, 6)
    k = rng.binomial(40, np.broadcast_to(predicted("weibull", x, 0.5, 0.1, 0.02, GUESS), (30, 6))).astype(float)
    n = np.full_like(k, 40.0)
    whole = fit_batch(k, n, x, guess=GUESS, name="weibull")
    part = fit_batch(k[7:9], n[7:9], x, guess=GUESS, name="weibull")
    assert np.array_equal(whole["location"][7:9], part["location"]) and np.array_equal(whole["lapse"][7:9],
                                                                                       part["lapse"])


def test_planted_threshold_slope_and_lapse_are_recovered():
    """Many trials from known functions: over 8 data sets, threshold, slope and lapse average close to the
    planted values (one data set's threshold has an SD of about 2% here)."""
    scale, lapse = 0.2, 0.03
    tables = [psychometric_fits(simulate_psychometric(seed=seed, threshold=8.0, scale=scale, lapse=lapse,
                                                      trials_per_level=300, n_humans=1, validate=False,
                                                      models={"model-planted": (20.0, 0.3, 0.0)}),
                                settings=_settings(n_resamples=0), validate=False).table("sim-contrast")
              .set_index("observer") for seed in range(8)]
    mean = lambda observer, column: np.mean([t.loc[observer, column] for t in tables])  # noqa: E731
    _, slope = threshold_slope("weibull", planted_location(8.0, scale, lapse, GUESS), scale, lapse, GUESS, 1, 0.5)
    assert mean("subject-01", "threshold") == pytest.approx(8.0, rel=0.03)
    assert mean("subject-01", "slope") == pytest.approx(float(slope), rel=0.08)
    assert mean("subject-01", "lapse") == pytest.approx(lapse, abs=0.01)
    assert mean("model-planted", "threshold") == pytest.approx(20.0, rel=0.04)
    assert mean("model-planted", "lapse") == pytest.approx(0.0, abs=0.01)


def test_intervals_cover_the_planted_threshold_smoke():
    """A small coverage smoke test (benchmarks/psychfit_coverage.py runs the large one): 30 simulated data sets,
    the 90% percentile interval of the planted threshold covers it in about 90% of them."""
    runs, hits = 30, 0
    for seed in range(runs):
        t = simulate_psychometric(seed=seed, threshold=8.0, n_humans=1, trials_per_level=40, validate=False,
                                  models={})
        row = psychometric_fits(t, settings=_settings(n_resamples=100, level=0.9, seed=seed), validate=False
                                ).table("sim-contrast").set_index("observer").loc["subject-01"]
        hits += row["threshold_low"] <= 8.0 <= row["threshold_high"]
    assert 0.7 <= hits / runs <= 1.0, hits    # binomial SD at 90%: 5.5 points


def test_humans_pool_every_human_trial_and_models_are_compared_with_them():
    t = simulate_psychometric(seed=2)
    r = psychometric_fits(t, settings=_settings(n_resamples=300, observer_level="bootstrap"))
    pooled = r.counts.query("observer == @HUMANS").set_index("condition")
    singles = r.counts.query("observer.str.startswith('subject')").groupby("condition")[["trials", "correct"]].sum()
    assert np.array_equal(pooled.loc[singles.index, ["trials", "correct"]].to_numpy(), singles.to_numpy())
    resolved = r.resolved().set_index("observer")
    # model-worse has a planted threshold 4x the humans': log10(4) = 0.6 above them, resolved
    assert resolved.loc["model-worse", "vs_humans"] == pytest.approx(np.log10(4), abs=0.15)
    assert resolved.loc["model-worse", "resolved"] and resolved.loc["model-worse", "side"] == "higher"
    assert not resolved.loc["model-planted", "resolved"]
    frame = r.to_frame().set_index(["group", "metric"])
    t_model = frame.loc[("model-worse", "threshold"), "estimate"]
    t_humans = frame.loc[(HUMANS, "threshold"), "estimate"]
    assert frame.loc[("model-worse", "threshold_vs_humans"), "estimate"] == pytest.approx(np.log10(t_model / t_humans))


def test_observer_level_widens_only_the_pooled_humans():
    t = simulate_psychometric(seed=4, models={})
    trials = _settings(n_resamples=300)
    both = _settings(n_resamples=300, observer_level="bootstrap")
    a = psychometric_fits(t, settings=trials).table("sim-contrast").set_index("observer")
    b = psychometric_fits(t, settings=both).table("sim-contrast").set_index("observer")
    width = lambda f, o: f.loc[o, "threshold_high"] - f.loc[o, "threshold_low"]  # noqa: E731
    assert width(b, HUMANS) != pytest.approx(width(a, HUMANS))
    assert width(b, "subject-01") == pytest.approx(width(a, "subject-01"))


def test_options_change_what_they_claim():
    t = simulate_psychometric(seed=5, models={})
    base = psychometric_fits(t, settings=_settings(n_resamples=0))
    row = lambda r: r.table("sim-contrast").set_index("observer").loc[HUMANS]  # noqa: E731
    # a higher performance level needs more contrast
    higher = psychometric_fits(t, settings=_settings(n_resamples=0), level=0.75)
    assert row(higher)["threshold"] > row(base)["threshold"]
    # level_of="sigmoid" reads the level on F, so the lapse no longer moves the threshold: p = guess + span * 0.5
    sig = psychometric_fits(t, settings=_settings(n_resamples=0), level_of="sigmoid").parameters.set_index("observer")
    t_sig = row(psychometric_fits(t, settings=_settings(n_resamples=0), level_of="sigmoid"))["threshold"]
    assert np.log10(t_sig) == pytest.approx(sig.loc[HUMANS, "location"])   # F(0) = 0.5 at the location
    for option, value in (("sigmoid", "logistic"), ("space", "linear"), ("guess", 0.2), ("max_lapse", 0.01)):
        other = psychometric_fits(t, settings=_settings(n_resamples=0), **{option: value})
        assert row(other)["threshold"] != pytest.approx(row(base)["threshold"], rel=1e-6), option
    assert psychometric_fits(t, settings=_settings(n_resamples=0), max_lapse=0.01).parameters["lapse"].max() <= 0.01
    assert psychometric_fits(t, settings=_settings(n_resamples=0), space="linear").settings["spaces"] == {
        "sim-contrast": "linear"}
    wrong_way = psychometric_fits(t, settings=_settings(n_resamples=0), direction="decreasing")
    assert wrong_way.parameters["loglik"].iloc[0] < base.parameters["loglik"].iloc[0]


def test_bad_input_names_what_is_wrong():
    t = simulate_psychometric(seed=0)
    with pytest.raises(TrialTableError, match="condition 'pow' names no stimulus level"):
        psychometric_fits(t.assign(condition="pow"))
    with pytest.raises(TrialTableError, match="'sim-contrast': 2 stimulus levels"):
        psychometric_fits(t[t["condition"].isin(["c01", "c50"])])
    with pytest.raises(TrialTableError, match="no experiment 'contrast'"):
        psychometric_fits(t, experiments=["contrast"])
    with pytest.raises(ValueError, match="sigmoid must be one of"):
        psychometric_fits(t, sigmoid="probit")
    with pytest.raises(ValueError, match="level must be a proportion"):
        psychometric_fits(t, level=50)
    with pytest.raises(ValueError, match="max_lapse must be in"):
        psychometric_fits(t, max_lapse=0.95)


def test_plot_draws_into_the_given_axes():
    import matplotlib.pyplot as plt

    from humanlike.measures.psychfit.plot import psychometric_fit_figure

    r = psychometric_fits(simulate_psychometric(seed=0), settings=_settings(n_resamples=50))
    fig, (left, right) = plt.subplots(1, 2)
    assert psychometric_fit_figure(r, "sim-contrast", ax=right) is fig
    assert not left.lines and len(right.get_legend().get_texts()) == 3     # humans and the two models
    with pytest.raises(KeyError, match="no experiment"):
        psychometric_fit_figure(r, "contrast", ax=left)
    plt.close(fig)


# --- command line --------------------------------------------------------------------------------------

def test_cli_prints_writes_and_fails_clearly(tmp_path, capsys):
    data = tmp_path / "trials.csv"
    simulate_psychometric(seed=0).to_csv(data, index=False)
    out = tmp_path / "out"
    assert main(["psychfit", str(data), "--resamples", "100", "--out", str(out), "--figures", str(out / "fig"),
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "model-worse" in text and "higher" in text and "guess 0.0625" in text
    for name in ("psychfit.csv", "psychfit_resolved.csv", "psychfit_parameters.csv", "psychfit.json",
                 "fig/psychfit-sim-contrast.png"):
        assert (out / name).stat().st_size > 0, name
    assert main(["psychfit", str(data), "--json", "--quiet", "--resamples", "0", "--performance", "0.75",
                 "--sigmoid", "logistic"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["settings"]["performance"], doc["settings"]["sigmoid"]) == (0.75, "logistic")
    with pytest.raises(SystemExit) as exit_:
        main(["psychfit", str(data), "--performance", "1.5"])
    assert exit_.value.code == 2 and "--performance" in capsys.readouterr().err
    assert main(["psychfit", str(data), "--experiment", "contrast", "--quiet"]) == 2
    assert "no experiment 'contrast'" in capsys.readouterr().err


# --- real data -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real(modelvshuman_dir):
    from humanlike.trials.loaders import load_trials

    trials = load_trials([modelvshuman_dir / e for e in ("contrast", "uniform-noise", "low-pass")])
    return psychometric_fits(trials, settings=_settings(n_resamples=200, observer_level="bootstrap"), validate=False)


def test_real_data_fits_every_observer(real):
    assert real.experiments() == ["contrast", "low-pass", "uniform-noise"]
    assert real.settings["spaces"] == {"contrast": "log", "low-pass": "linear", "uniform-noise": "linear"}
    assert real.settings["directions"] == {"contrast": 1, "low-pass": -1, "uniform-noise": -1}
    for experiment in real.experiments():
        table = real.table(experiment).set_index("observer")
        assert len(table) == 14                       # humans, 4 humans, 9 models
        assert table["threshold"].notna().all()
        assert ((table["threshold_low"] <= table["threshold"]) & (table["threshold"] <= table["threshold_high"])).all()
        # each fitted function lies close to its observer's accuracies (160 trials a level: SE <= 0.04)
        for observer in table.index:
            c = real.counts.query("experiment == @experiment and observer == @observer")
            p = real.parameters.set_index(["experiment", "observer"]).loc[(experiment, observer)]
            x = np.log10(c["level"]) if p["space"] == "log" else c["level"]
            fitted = predicted("weibull", x.to_numpy(), p["location"], p["scale"], p["lapse"], p["guess"],
                               int(p["direction"]))
            assert np.max(np.abs(fitted - c["correct"] / c["trials"])) < 0.2, (experiment, observer)


def test_real_data_humans_and_resolved_models(real):
    resolved = real.resolved().set_index(["experiment", "observer"])
    humans = real.table("contrast").set_index("observer").loc[HUMANS]
    # humans reach 50% correct between 5% and 12% contrast (Geirhos et al. 2018/2021: about 50% at c05-c10)
    assert 5 < humans["threshold"] < 12
    # every model needs less low-pass blur than humans to fall to 50% (less robust): all resolved, lower
    models = resolved[resolved["observer_kind"] == "model"]
    assert models.loc["low-pass", "resolved"].all() and (models.loc["low-pass", "side"] == "lower").all()
    # BagNet-33 breaks down first under noise, far below the humans
    assert resolved.loc[("uniform-noise", "bagnet33"), "side"] == "lower"
    assert resolved.loc[("contrast", "bagnet33"), "side"] == "higher"
