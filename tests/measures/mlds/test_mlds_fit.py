"""MLDS fits: design, IRLS against hand values, recovery by simulation, separation, and R's numbers.

tests/reference/mlds_r_reference.json holds base-R fits made by tests/reference/mlds_reference.R
(glm(resp ~ . - 1, binomial(link), epsilon = 1e-14) on MLDS's design; optim; a power scale).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from humanlike.trials.judgement_files import load_judgements
from humanlike.trials.judgements import validate_judgements
from humanlike.measures.mlds.simulate import all_quadruples, all_triads, design_table, simulate_judgements
from humanlike.measures.mlds.fit import design_matrix, fit_mlds
from humanlike.measures.mlds.glm import Link, irls, is_separable

REFERENCE = json.loads((Path(__file__).resolve().parents[2] / "reference" / "mlds_r_reference.json").read_text())


def test_design_rows_and_dropped_first_column():
    x = design_matrix(np.array([[1, 3, 2, 4], [2, 3, 4, 0]]), 4, drop_first=False)
    np.testing.assert_array_equal(x, [[1, -1, -1, 1], [0, 1, -2, 1]])
    np.testing.assert_array_equal(design_matrix(np.array([[1, 3, 2, 4]]), 4), [[-1, -1, 1]])


def test_irls_matches_closed_form_logit_and_probit():
    # One column +-1: F(beta) is estimated by the pooled share of y=1 on x=+1 and y=0 on x=-1 rows: 6 of 8.
    x = np.array([[1.0]] * 4 + [[-1.0]] * 4)
    y = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    for link, inverse in (("logit", lambda p: np.log(p / (1 - p))), ("probit", sps.norm.ppf),
                          ("cauchit", sps.cauchy.ppf)):
        fit = irls(x, y, link)
        assert fit.converged[0]
        np.testing.assert_allclose(fit.coefficients[0, 0], inverse(6 / 8), rtol=1e-12)


def test_batched_irls_equals_single_fits():
    table = simulate_judgements(np.linspace(0, 1, 7) ** 1.5, 0.3, repeats=3, seed=4)
    fit = fit_mlds(table)
    rng = np.random.default_rng(0)
    y = (rng.random((5, len(table))) < fit.fitted).astype(float)
    batch = irls(fit.design, y, "probit")
    assert batch.converged.all() and not batch.boundary.any()
    for r in range(5):
        single = irls(fit.design, y[r], "probit", solver="qr")
        np.testing.assert_allclose(batch.coefficients[r], single.coefficients[0], rtol=1e-7, atol=1e-9)


def test_links_are_clamped_like_r():
    for name in ("probit", "logit", "cauchit"):
        link = Link(name)
        mu = link.inverse(np.array([-1e20, 0.0, 1e20]))
        assert 0 < mu[0] < 1e-15 and mu[1] == 0.5 and 1 - 1e-15 < mu[2] < 1
    with pytest.raises(ValueError, match="unknown link"):
        Link("log")


@pytest.mark.parametrize("design", ["quad", "triad"])
def test_planted_scale_is_recovered(design):
    psi = np.linspace(0, 1, 9) ** 2
    table = simulate_judgements(psi, 0.08, design=design, repeats=8, seed=11)
    fit = fit_mlds(table)
    assert fit.status == "ok"
    # Wald 99.9% bands around the planted standard scale (levels 2..p-1) and sigma.
    z = sps.norm.ppf(0.9995)
    inner = slice(1, -1)
    se_standard = fit.standard_errors[inner] / fit.scale[-1]
    assert np.all(np.abs(fit.standard_scale[inner] - psi[inner]) < z * se_standard + 0.02)
    assert abs(fit.sigma - 0.08) < 0.25 * 0.08


def test_fit_statistics_follow_their_definitions():
    table = simulate_judgements(np.linspace(0, 1, 6), 0.2, repeats=3, seed=2)
    fit = fit_mlds(table)
    y, mu = fit.responses, fit.fitted
    loglik = np.sum(y * np.log(mu) + (1 - y) * np.log(1 - mu))
    assert fit.loglik == pytest.approx(loglik, rel=1e-12)
    assert fit.null_deviance == pytest.approx(2 * len(y) * np.log(2), rel=1e-12)
    assert fit.aic == pytest.approx(-2 * loglik + 2 * 5, rel=1e-12)
    assert fit.daf == pytest.approx((fit.null_deviance + 2 * loglik) / fit.null_deviance, rel=1e-12)
    eta = fit.design @ fit.scale[1:]
    assert fit.misclassified == pytest.approx(np.mean((eta > 0) != (y > 0)))
    assert fit.sigma == pytest.approx(1 / fit.scale[-1])
    np.testing.assert_allclose(fit.standard_scale, fit.scale / fit.scale[-1])


def test_optim_equals_glm_when_the_scale_is_inside_0_1():
    table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.2, repeats=4, seed=5)
    glm, optim = fit_mlds(table), fit_mlds(table, method="optim")
    assert np.all((glm.standard_scale[1:-1] > 0) & (glm.standard_scale[1:-1] < 1))
    np.testing.assert_allclose(optim.standard_scale, glm.standard_scale, atol=1e-6)
    assert optim.sigma == pytest.approx(glm.sigma, rel=1e-5)
    assert optim.loglik == pytest.approx(glm.loglik, abs=1e-8)


def test_power_scale_recovers_exponent():
    stimulus = np.linspace(0, 1, 9)
    table = simulate_judgements(stimulus ** 2.5, 0.1, repeats=6, seed=8, stimulus=stimulus)
    fit = fit_mlds(table, method="power")
    assert fit.parameters["exponent"] == pytest.approx(2.5, abs=0.3)
    assert fit.n_parameters == 2 and fit.method == "power"


def test_deterministic_observer_is_reported_as_separated_not_huge():
    table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.0, seed=1)
    fit = fit_mlds(table)
    assert fit.status == "separated" and "separable" in fit.reason
    assert np.isnan(fit.scale).all() and np.isnan(fit.sigma)
    assert is_separable(fit.design, fit.responses)
    firth = fit_mlds(table, penalty="firth")
    assert firth.status == "penalized" and np.all(np.isfinite(firth.scale))
    assert np.all(np.diff(firth.standard_scale) > 0)  # the deterministic order survives the penalty
    noisy = simulate_judgements(np.linspace(0, 1, 7), 0.3, repeats=3, seed=1)
    assert not is_separable(fit_mlds(noisy).design, noisy["response"].to_numpy())


def test_unseen_level_is_an_error():
    table = validate_judgements(pd.DataFrame({"observer": "o", "scale": "s", "s1": [1, 1], "s2": [2, 2],
                                              "s3": [3, 4], "s4": [5, 5], "response": [1, 0]}))
    with pytest.raises(ValueError, match="not identified"):
        fit_mlds(table, n_levels=6)
    with pytest.raises(ValueError, match="unknown link"):
        fit_mlds(table, link="identity")


def test_design_generation():
    assert len(all_quadruples(11)) == 330 and len(all_triads(11)) == 165
    d = design_table(8, repeats=2, seed=3)
    assert len(d) == 2 * 70 and 0.3 < d["reversed"].mean() < 0.7
    assert d.equals(design_table(8, repeats=2, seed=3)) and not d.equals(design_table(8, repeats=2, seed=4))


def _reference_table(shared_data, case):
    root = shared_data / "mlds"
    table = load_judgements([root / f"{name}.csv" for name in case["files"].split("+")])
    if "observer" in case:
        table = table[table["observer"] == case["observer"]]
    return table


@pytest.mark.realdata
@pytest.mark.parametrize("name", [n for n, c in REFERENCE.items() if c["method"] == "glm"])
def test_glm_fit_equals_r(shared_data, name):
    case = REFERENCE[name]
    fit = fit_mlds(_reference_table(shared_data, case), link=case["link"])
    assert fit.status == "ok" and fit.n_trials == case["n_trials"]
    # R stops IRLS on a 1e-14 relative deviance change; where rounding makes R and us stop one iteration
    # apart the scales differ by ~1e-8 relative, still far below the 7 digits R prints.
    np.testing.assert_allclose(fit.scale, case["pscale"], rtol=5e-8, atol=5e-8 * np.max(np.abs(case["pscale"])))
    np.testing.assert_allclose(fit.standard_scale, case["standard_scale"], rtol=5e-8, atol=5e-8)
    assert fit.sigma == pytest.approx(case["sigma"], rel=5e-8)
    np.testing.assert_allclose(fit.standard_errors, case["standard_errors"], rtol=1e-6)
    for key in ("loglik", "aic", "deviance", "null_deviance", "daf", "misclassified"):
        assert getattr(fit, key) == pytest.approx(case[key], rel=1e-11, abs=1e-12), key


@pytest.mark.realdata
@pytest.mark.parametrize("name", [n for n, c in REFERENCE.items() if c["method"] in ("optim", "power")])
def test_optim_and_power_fits_equal_r(shared_data, name):
    case = REFERENCE[name]
    fit = fit_mlds(_reference_table(shared_data, case), link=case["link"], method=case["method"])
    assert fit.status == "ok"
    # R's BFGS stops on reltol 1e-8 of the objective, so its scale is good to ~4-5 digits; ours goes to
    # the optimum, whose log-likelihood is never below R's.
    np.testing.assert_allclose(fit.standard_scale, case["standard_scale"], atol=2e-4)
    assert fit.sigma == pytest.approx(case["sigma"], rel=2e-4)
    assert fit.loglik >= case["loglik"] - 1e-9
    assert fit.loglik == pytest.approx(case["loglik"], abs=5e-4)
    if case["method"] == "power":
        assert fit.parameters["exponent"] == pytest.approx(case["exponent"], rel=1e-5)


def test_optim_on_separated_data_is_reported_too():
    table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.0, seed=1)
    fit = fit_mlds(table, method="optim")
    assert fit.status == "separated" and np.isnan(fit.sigma)
