"""The engine port of the DVC of representations reproduces the numbers of the code before it (main 095fce8).

Reference: tests/data/dvc_reference.json, made by tests/data/make_dvc_reference.py from the old code. The
random streams are kept (unit splits, PCA test matrices, image weights per class), so estimates, split SDs
and percentile intervals must agree up to float32 rounding of the sums.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parents[2] / "data"
spec = importlib.util.spec_from_file_location("make_dvc_reference", HERE / "make_dvc_reference.py")
reference_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reference_module)
REFERENCE = json.loads((HERE / "dvc_reference.json").read_text())


@pytest.mark.parametrize("name", sorted(reference_module.CASES))
def test_port_reproduces_old_numbers(name):
    result = reference_module.run(name)
    frame = result.to_frame()
    expected = REFERENCE[name]
    for column in ("estimate", "split_sd", "ci_low", "ci_high"):
        want = np.array([np.nan if v is None else v for v in expected[column]])
        np.testing.assert_allclose(frame[column].to_numpy(), want, atol=2e-5, rtol=0, err_msg=f"{name}: {column}")
    if "kappa" in expected:
        got = result.kappa.to_frame()[["estimate", "ci_low", "ci_high"]].to_numpy()
        np.testing.assert_allclose(got, np.array(expected["kappa"]), atol=1e-12)
