"""Shared fixtures. Real data comes from one place: $HUMANLIKE_SHARED_DATA, else ../shared/data.

Locally the real-data tests skip when the folder is absent; in CI (CI=true) a missing folder is an
error, so a broken checkout can never pass by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _require(path: Path) -> Path:
    if not path.exists():
        message = f"real data not found at {path} (set HUMANLIKE_SHARED_DATA)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return _require(SHARED_DATA)


@pytest.fixture(scope="session")
def modelvshuman_dir(shared_data) -> Path:
    return _require(shared_data / "modelvshuman" / "raw-data")


@pytest.fixture(scope="session")
def dmc_dir(shared_data) -> Path:
    return _require(shared_data / "modelvshuman-dmc" / "raw-data")


@pytest.fixture(scope="session")
def mvh_trials(modelvshuman_dir):
    from humanlike.trials.loaders import load_trials

    return load_trials(modelvshuman_dir)


@pytest.fixture(scope="session")
def combined_trials(modelvshuman_dir, dmc_dir):
    """Humans of model-vs-human with the decision-margin fork's models, aligned on the same items."""
    from humanlike.trials.loaders import load_trials

    return load_trials([modelvshuman_dir, dmc_dir])


@pytest.fixture(scope="session")
def demo_trials():
    from humanlike.trials.simulate import simulate_benchmark

    return simulate_benchmark(seed=0)
