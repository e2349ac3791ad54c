"""What the speed-ups of issue 7 outside the OOD kernel changed, pinned: start-up imports, replacements for
scipy.stats calls (the same numbers to the bit), cached intervals and the tiled transpose of the interval code."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from humanlike.resampling.intervals import percentile_interval, transposed_copy
from humanlike.measures.mlds.glm import as_link
from humanlike.stats.ranking import ranks_descending
from humanlike.stats.reliability import t_interval
from humanlike.resampling.results import Resampled

SRC = Path(__file__).resolve().parents[2] / "src"


def test_import_humanlike_and_the_command_line_parser_load_no_scipy():
    """scipy.stats alone takes ~1 s (2+ s cold) to import: commands that need it import it themselves."""
    code = ("import sys, humanlike; from humanlike.app.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('scipy.stats', 'scipy.special', 'scipy.optimize', 'sklearn', 'matplotlib',"
            " 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"


values = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0, np.nan, np.inf, -np.inf]) | st.floats(-5, 5),
                  min_size=0, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(values, min_size=1, max_size=4).map(lambda rows: [r + [0.0] * (max(map(len, rows)) - len(r))
                                                                      for r in rows]))
def test_ranks_descending_equals_scipy_rankdata(rows):
    """Average ranks of the negated values, NaN last, exactly as ``scipy.stats.rankdata`` gives them."""
    v = np.array(rows, dtype=float)
    expected = stats.rankdata(-np.where(np.isnan(v), -np.inf, v), axis=-1, method="average")
    got = ranks_descending(v)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


def test_ranks_descending_by_hand():
    np.testing.assert_array_equal(ranks_descending(np.array([[3.0, 1.0, 3.0, np.nan, 2.0], [1.0, 1.0, 1.0, 1.0, 0.0]])),
                                  [[1.5, 4.0, 1.5, 5.0, 3.0], [2.5, 2.5, 2.5, 2.5, 5.0]])


@pytest.mark.parametrize("n", [2, 3, 7, 40, 1000])
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_t_interval_uses_the_t_quantile_of_scipy_stats(n, level):
    v = np.random.default_rng(n).normal(size=n)
    half = stats.t.ppf(0.5 + level / 2, n - 1) * v.std(ddof=1) / np.sqrt(n)
    interval = t_interval(v, level)
    assert interval.low == float(v.mean() - half) and interval.high == float(v.mean() + half)


def test_mlds_link_thresholds_are_r_thresholds():
    eps = np.finfo(float).eps
    assert as_link("probit").threshold == -stats.norm.ppf(eps)
    assert as_link("cauchit").threshold == -stats.cauchy.ppf(eps)
    assert as_link("logit").threshold == 30.0


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (255, 2), (256, 5), (1000, 1), (513, 17)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transposed_copy_is_the_contiguous_transpose(shape, dtype):
    full = np.random.default_rng(0).normal(size=(shape[0], 2 * shape[1] + 1)).astype(dtype)
    block = full[:, 1:1 + 2 * shape[1]:2]      # a strided column block, as the interval code passes
    got = transposed_copy(block)
    assert got.flags["C_CONTIGUOUS"] and got.dtype == dtype
    np.testing.assert_array_equal(got, np.ascontiguousarray(block.T))


def test_percentile_interval_of_a_wide_matrix_equals_nanquantile():
    rng = np.random.default_rng(3)
    replicates = rng.normal(size=(700, 301)).astype(np.float32)
    replicates[rng.random(replicates.shape) < 0.05] = np.nan
    replicates[:, 7] = np.nan
    missing = np.full(replicates.shape[1], -1, dtype=np.int64)
    low, high = percentile_interval(replicates, 0.9, nan_counts_out=missing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # the all-NaN column
        want = np.nanquantile(replicates.astype(np.float64), [(1 - 0.9) / 2, 1 - (1 - 0.9) / 2], axis=0)
    np.testing.assert_array_equal(np.stack([low, high]), want)
    np.testing.assert_array_equal(missing, np.isnan(replicates).sum(axis=0))   # counted in the same pass


def test_resampled_intervals_are_computed_once_and_cannot_be_altered_through_a_returned_array():
    rng = np.random.default_rng(1)
    replicates = rng.normal(size=(400, 5))
    replicates[:3, 2] = np.nan
    res = Resampled(np.nanmean(replicates, axis=0), replicates, [(k,) for k in range(5)], ("column",))
    first = res.interval()
    expected = percentile_interval(replicates, 0.95)
    np.testing.assert_array_equal(first[0], expected[0])
    first[0][:] = 99.0                                        # the caller's copy, not the cached one
    again = res.interval()
    np.testing.assert_array_equal(again[0], expected[0])
    assert not np.array_equal(res.interval(0.5)[0], again[0])  # another level is another interval
    np.testing.assert_array_equal(res.interval(0.5)[1], percentile_interval(replicates, 0.5)[1])
    frame = res.to_frame()
    np.testing.assert_array_equal(frame["ci_low"], expected[0])
    np.testing.assert_array_equal(frame["undefined_share"], [0, 0, 3 / 400, 0, 0])
    part = res.select([2, 4])                                  # a selection computes its own intervals
    np.testing.assert_array_equal(part.interval()[0], expected[0][[2, 4]])
    with pytest.raises(ValueError, match="jackknife"):
        res.interval(method="bca")
