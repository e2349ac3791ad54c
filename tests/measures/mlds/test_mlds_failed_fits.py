"""MLDS fits that cannot be right are never "ok" (issue 22): designs that cannot determine the scale,
and scales that run backwards (sigma < 0, responses coded the wrong way round)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.mlds.analysis import analyse_mlds
from humanlike.trials.judgement_files import load_judgements
from humanlike.measures.mlds.simulate import simulate_judgements
from humanlike.measures.mlds.fit import design_matrix, fit_mlds, identification_problem
from humanlike.measures.mlds.diagnostics import bootstrap_mlds
from humanlike.resampling.settings import ResamplingSettings


def _table(rows, responses):
    rows = np.asarray(rows)
    frame = pd.DataFrame({"observer": "o", "scale": "s", "s1": rows[:, 0], "s2": rows[:, 1], "s3": rows[:, 2],
                          "response": responses})
    if rows.shape[1] == 4:
        frame["s4"] = rows[:, 3]
    return frame


@pytest.mark.parametrize("method", ["glm", "optim", "power"])
def test_a_single_repeated_triad_is_not_identified(method):
    # Before: scale [0, 4.6e30, 9.2e30], sigma 1.1e-31, status "ok".
    fit = fit_mlds(_table([[1, 2, 3]] * 10, [1, 0, 1, 1, 0, 1, 1, 1, 0, 1]), method=method)
    assert fit.status == "not_identified" and not fit.ok
    assert np.isnan(fit.scale).all() and np.isnan(fit.sigma)
    assert "1 distinct triad" in fit.reason and "rank 1 for 2 free scale values" in fit.reason


def test_levels_never_compared_with_each_other_are_named():
    fit = fit_mlds(_table([[1, 2, 3], [1, 2, 3], [4, 5, 6], [4, 5, 6]], [1, 0, 1, 0]))
    assert fit.status == "not_identified"
    assert "levels 1, 2, 3 | 4, 5, 6 are never compared" in fit.reason


def test_full_rank_designs_pass_the_identification_check():
    levels = np.array([[1, 2, 3, 0], [1, 2, 4, 0], [2, 3, 4, 0]])
    assert identification_problem(design_matrix(levels, 4), levels) == ""
    fit = fit_mlds(simulate_judgements(np.linspace(0, 1, 6) ** 2, sigma=0.3, repeats=3, seed=1))
    assert fit.status == "ok"


@pytest.mark.realdata
@pytest.mark.parametrize("method", ["glm", "optim", "power"])
def test_responses_coded_backwards_are_reported_not_ok(shared_data, method):
    table = load_judgements([shared_data / "mlds" / "AutumnLab.csv"])
    assert fit_mlds(table, method=method).status == "ok"
    # Pairs swapped without flipping the responses: before, sigma -0.113 with status "ok".
    backwards = table.assign(response=1 - table["response"])
    fit = fit_mlds(backwards, method=method)
    assert fit.status == "reversed" and not fit.ok
    assert "sigma = -0.1134" in fit.reason and "coded backwards" in fit.reason
    with pytest.raises(ValueError, match="reversed"):
        bootstrap_mlds(fit_mlds(backwards), 10)


def test_the_pipeline_skips_diagnostics_of_failed_fits_with_a_note():
    results = analyse_mlds(_table([[1, 2, 3]] * 6, [1, 0, 1, 1, 0, 1]), settings=ResamplingSettings(n_resamples=20), runs=20)
    result = results[0]
    assert result.status == "not_identified" and result.bootstrap is None and result.runs is None
    assert any("not_identified" in note for note in result.notes)
    assert result.to_json_dict()["status"] == "not_identified"
