"""One warning for undefined shares, raised by the engine for every measure (named by its kernel)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import humanlike.measures.dmc.kernel  # noqa: F401 - every measure's kernels, for the subclass walk below
import humanlike.measures.dvc.choices  # noqa: F401
import humanlike.measures.dvc.choices_probit  # noqa: F401
import humanlike.measures.dvc.representations  # noqa: F401
import humanlike.measures.ood.alignment_kernel  # noqa: F401
from humanlike.measures.dvc.kernel import DVCKernel
from humanlike.measures.ec.pair import pair_error_consistency
from humanlike.resampling.kernels import SufficientStatisticKernel
from humanlike.resampling.settings import ResamplingSettings


def test_the_engine_warns_once_naming_the_measure():
    # one error among 20 items: the resamples that miss it leave both observers constant (kappa undefined)
    x = np.ones(20, dtype=bool)
    x[0] = False
    with pytest.warns(RuntimeWarning, match=r"^error consistency: 1 estimate\(s\) undefined in more than 10%"):
        result = pair_error_consistency(x, x.copy(), settings=ResamplingSettings(n_resamples=400, seed=0))
    assert result.undefined_share()[0] > 0.1


def test_no_warning_when_every_resample_is_defined():
    rng = np.random.default_rng(0)
    x, y = rng.random(200) < 0.6, rng.random(200) < 0.6
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pair_error_consistency(x, y, settings=ResamplingSettings(n_resamples=200, seed=0))


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_engine_kernel_names_its_measure():
    kernels = [k for k in _subclasses(SufficientStatisticKernel) if k.__module__.startswith("humanlike.measures")]
    assert len(kernels) >= 7
    for kernel in [*kernels, DVCKernel]:
        assert isinstance(getattr(kernel, "measure", None), str) and kernel.measure, kernel.__name__
