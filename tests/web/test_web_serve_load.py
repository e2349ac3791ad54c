"""benchmarks/serve_load.py in its --quick mode (a smoke test of the load benchmark, seconds): a real server,
the generator in its own process, every response found in the database. Its lost/duplicated check is tested
on a made-up log, so that a check that stopped noticing would fail here. Speed goals are the benchmark's."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "serve_load.py"


@pytest.fixture(scope="module")
def serve_load():
    spec = importlib.util.spec_from_file_location("serve_load", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("setup", ["sqlite", "pg2"])
def test_quick_mode_reports_every_request_and_loses_nothing(tmp_path, serve_load, setup, request):
    extra = ["--postgres", request.getfixturevalue("postgres_server").url] if setup != "sqlite" else []
    out = tmp_path / "load.json"
    assert serve_load.main(["--quick", "--setups", setup, "--json", str(out), *extra]) == 0
    (result,) = json.loads(out.read_text())["results"]
    latency = result["latency_ms"]
    assert (result["participants"], result["responses"]) == (20, 60)          # --quick: 20 x 3 answers
    assert latency["start"]["n"] == latency["state"]["n"] == 20 and latency["response"]["n"] == 60
    assert latency["stimulus"]["n"] > 0
    assert result["requests"] == sum(v["n"] for v in latency.values())
    assert (result["errors"], result["non_2xx"], result["lost"], result["duplicated"]) == (0, 0, 0, 0)
    assert result["server_cpu_s"] > 0 and result["cpu_ms_per_request"] == pytest.approx(
        1000 * result["server_cpu_s"] / result["requests"], rel=0.05)
    assert result["setup"] == ("sqlite, 1 process" if setup == "sqlite" else "postgresql, 2 workers")


def test_integrity_counts_lost_changed_and_duplicated_responses(serve_load):
    log = {"participants": [{"token": "a", "acknowledged": {"1": "cat", "2": "dog", "3": "car"}},
                            {"token": "b", "acknowledged": {"7": "cat"}}]}
    stored = [("a", 1, "cat"), ("a", 2, "cat"),            # trial 2 stored with another value: lost
              ("b", 7, "cat"), ("b", 7, "cat"),            # trial 7 twice: one duplicate
              ("b", 8, "dog")]                             # stored, never acknowledged (reply lost): neither
    assert serve_load.integrity(log, stored) == (2, 1)     # trial 3 missing and trial 2 changed
    assert serve_load.integrity(log, [("a", 1, "cat"), ("a", 2, "dog"), ("a", 3, "car"), ("b", 7, "cat")]) == (0, 0)
