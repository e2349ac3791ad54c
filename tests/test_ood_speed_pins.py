"""The OOD speed-up (issue 7) changes no number: estimates as before, intervals up to float32 rounding.

Reference: tests/data/ood_speed_reference.npz, written by tests/data/make_ood_speed_reference.py from the code
before the speed-up (main at 095fce8). Resamples are drawn exactly as before (same per-condition weights); the
kernel evaluates them in float32 and keeps them in float32, so an interval bound may move by float32 rounding
(relative 1e-6 of the values), never by Monte Carlo error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from humanlike.analyses import ood
from humanlike.data.simulate import simulate_benchmark
from humanlike.presentation.cli_ood import demo_reference
from humanlike.stats.engine import ResamplingSettings

REFERENCE = Path(__file__).parent / "data" / "ood_speed_reference.npz"
ROUNDING = 2e-5   # float32 replicates: a few ulps of values of order 1-10


@pytest.fixture(scope="module")
def reference():
    with np.load(REFERENCE) as ref:
        return {k: ref[k] for k in ref.files}


def labels_of(res) -> np.ndarray:
    return np.array(["|".join(map(str, lab)) for lab in res.labels])


def test_demo_estimates_and_intervals_unchanged(reference):
    trials = simulate_benchmark(seed=0)
    spectrum = ood.ood_spectrum(trials, demo_reference(trials), n_observer_resamples=0)
    res = ood.ood_alignment(trials, spectrum, settings=ResamplingSettings(n_resamples=1000, seed=0)).resampled
    assert (labels_of(res) == reference["demo_labels"]).all()
    np.testing.assert_allclose(res.estimate, reference["demo_estimate"], rtol=0, atol=1e-12, equal_nan=True)
    low, high = res.interval()
    np.testing.assert_allclose(low, reference["demo_low"], rtol=0, atol=ROUNDING, equal_nan=True)
    np.testing.assert_allclose(high, reference["demo_high"], rtol=0, atol=ROUNDING, equal_nan=True)
    np.testing.assert_array_equal(res.undefined_share(), reference["demo_undefined_share"])


def test_real_data_every_number_unchanged(mvh_trials, reference):
    # the same call as the mvh_result fixture of tests/test_ood_pipeline.py
    r = ood.ood_analysis(mvh_trials, n_resamples=200, n_observer_resamples=100, n_permutations=999, seed=0)
    res = r.resampled
    assert (labels_of(res) == reference["labels"]).all()
    np.testing.assert_allclose(res.estimate, reference["estimate"], rtol=0, atol=1e-12, equal_nan=True)
    low, high = res.interval()
    np.testing.assert_allclose(low, reference["low"], rtol=0, atol=ROUNDING, equal_nan=True)
    np.testing.assert_allclose(high, reference["high"], rtol=0, atol=ROUNDING, equal_nan=True)
    np.testing.assert_array_equal(res.undefined_share(), reference["undefined_share"])
    cond = r.spectrum.conditions
    for column in ("ood_score", "ood_score_low", "ood_score_high", "init_stability", "bootstrap_stability"):
        np.testing.assert_allclose(cond[column].to_numpy(float), reference[column], rtol=0, atol=1e-12,
                                   equal_nan=True, err_msg=column)
    np.testing.assert_array_equal(cond["regime_label"].to_numpy(), reference["regime_label"])
    fit = r.spectrum.regimes
    for name in ("means", "sds", "weights"):
        np.testing.assert_allclose(getattr(fit, name), reference[f"regime_{name}"], rtol=1e-9, err_msg=name)
    np.testing.assert_allclose(fit.bic, reference["bic"], rtol=1e-9, equal_nan=True)
    tests = [r.family_test.statistic, r.family_test.p_value, r.regime_test.statistic, r.regime_test.p_value]
    np.testing.assert_allclose(tests, reference["tests"], rtol=1e-9)
