"""The OOD speed-up (issue 7) changes no number: estimates as before, intervals up to float32 rounding.

The real-data half of the pin is ``test_real_data_every_number_unchanged`` in tests/measures/ood/test_ood_pipeline.py (it
reuses that module's model-vs-human result).

Reference: tests/data/ood_speed_reference.npz, written by tests/data/make_ood_speed_reference.py from the code
before the speed-up (main at 095fce8). Resamples are drawn exactly as before (same per-condition weights); the
kernel evaluates them in float32 and keeps them in float32, so an interval bound may move by float32 rounding
(relative 1e-6 of the values), never by Monte Carlo error.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from humanlike.measures.ood import analysis as ood
from humanlike.trials.simulate import simulate_benchmark
from humanlike.measures.ood.alignment_sums import AlignmentOptions, PairAlignmentSums, pair_indices
from humanlike.measures.ood.cli import demo_reference
from humanlike.resampling.draws import item_weights
from humanlike.resampling.intervals import nan_counts, percentile_interval, row_quantiles
from humanlike.resampling.results import Resampled
from humanlike.resampling.settings import ResamplingSettings

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "ood_speed_reference.npz"
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
    # Issue 22: a column whose resamples all give one value has no interval now (the reference's zero width).
    flat = res.degenerate()
    assert np.isnan(low[flat]).all() and np.isnan(high[flat]).all()
    np.testing.assert_allclose(reference["demo_low"][flat], reference["demo_high"][flat], rtol=0, atol=ROUNDING)
    np.testing.assert_allclose(low[~flat], reference["demo_low"][~flat], rtol=0, atol=ROUNDING, equal_nan=True)
    np.testing.assert_allclose(high[~flat], reference["demo_high"][~flat], rtol=0, atol=ROUNDING, equal_nan=True)
    np.testing.assert_array_equal(res.undefined_share(), reference["demo_undefined_share"])


@pytest.mark.parametrize("mixture", ["average", "pooled"])
@pytest.mark.parametrize("weighting", ["errors", "uniform"])
@pytest.mark.parametrize("ma_undefined", ["nan", "one"])
def test_fast_resample_path_equals_the_plain_reduction(mixture, weighting, ma_undefined):
    """resample(W) = reduce(W @ statistics): EC and MA to the bit, CLED to float32 rounding."""
    rng = np.random.default_rng(5)
    k, n, n_obs, n_humans = 7, 90, 6, 3
    labels = rng.integers(0, k, n)
    resp = np.where(rng.random((n, n_obs)) < 0.5, labels[:, None], rng.integers(0, k, (n, n_obs)))
    resp[rng.random((n, n_obs)) < 0.05] = -1                      # no answer
    resp[rng.random((n, n_obs)) < 0.05] = -2                      # not observed
    resp[:, 4] = labels                                           # a model without errors
    resp[:, 0] = labels                                           # a human with one error: CLED of the pair
    resp[0, 0] = (labels[0] + 1) % k                              # (4, 0) undefined where it is not drawn
    first, second, _ = pair_indices(n_humans, n_obs)
    sums = PairAlignmentSums(labels, resp, k, first, second)
    options = AlignmentOptions("strict", ma_undefined, 0.5, mixture, None, weighting)
    w = item_weights(3, ("fast",), n, 0, 250)
    fast = sums.resample(w, options)
    plain = sums.reduce(w.astype(np.float64) @ sums.statistics.astype(np.float64), options)
    np.testing.assert_array_equal(fast[0], plain[0])
    np.testing.assert_array_equal(fast[1], plain[1])
    assert np.isnan(fast[2]).any() and np.isfinite(fast[2]).any()
    np.testing.assert_allclose(fast[2], plain[2], rtol=1e-5, atol=1e-6, equal_nan=True)


def test_row_quantiles_equal_numpy_to_the_bit():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 40, 401):
        x = rng.normal(size=(30, n))
        x[rng.random(x.shape) < 0.3] = np.nan
        x[3] = np.nan
        x[4] = 1.0
        for q in ([0.025, 0.975], [0.0, 1.0], [0.5, 0.5], [0.9, 0.1, 0.3]):
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = np.nanquantile(x, q, axis=1)
            np.testing.assert_array_equal(row_quantiles(x, q), want)


def test_percentile_interval_blocks_float32_and_nan_counts(monkeypatch):
    import humanlike.resampling.intervals as intervals

    rng = np.random.default_rng(1)
    x = rng.normal(size=(500, 37)).astype(np.float32)
    x[rng.random(x.shape) < 0.05] = np.nan
    low, high = percentile_interval(x, 0.9)
    monkeypatch.setattr(intervals, "BLOCK_ELEMENTS", 1000)      # several column blocks: same numbers
    np.testing.assert_array_equal(percentile_interval(x, 0.9)[0], low)
    with np.errstate(all="ignore"):
        want = np.nanquantile(x.astype(np.float64), [(1 - 0.9) / 2, 1 - (1 - 0.9) / 2], axis=0)
    np.testing.assert_array_equal(np.vstack([low, high]), want)
    np.testing.assert_array_equal(nan_counts(x), np.isnan(x).sum(axis=0))
    r = Resampled(np.zeros(37), x)
    assert r.replicates.dtype == np.float32
    np.testing.assert_array_equal(r.undefined_share(), np.isnan(x).mean(axis=0))
