"""The ``humanlike ood`` command and its demo extras."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from humanlike.measures.ood import cli as cli_ood
from humanlike.app.cli import main
from humanlike.files import write_table

CONDITION_KEYS = {"experiment", "condition", "ood_score", "regime", "human_accuracy", "mannwhitney_p",
                  "mannwhitney_p_adjusted", "binomial_p", "binomial_p_adjusted", "above_chance"}
FAST = ["--resamples", "60", "--observer-resamples", "30", "--permutations", "99", "--quiet"]
DEMO_REF = ["--reference", "sim-noise=0.00", "sim-blur=0", "sim-contrast=100", "sim-rotation=0"]


@pytest.fixture(scope="module")
def demo_file(demo_trials, tmp_path_factory):
    return write_table(demo_trials, tmp_path_factory.mktemp("demo") / "trials.csv")


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_parse_reference_and_families(tmp_path):
    assert cli_ood.parse_reference(["contrast=c100", "rotation=0", "rotation=90"]) == {
        "contrast": ["c100"], "rotation": ["0", "90"]}
    assert cli_ood.parse_reference(None) is None
    with pytest.raises(ValueError, match="EXPERIMENT=CONDITION"):
        cli_ood.parse_reference(["contrast"])
    assert cli_ood.parse_families('{"a": "f1", "b": "f1"}') == {"a": "f1", "b": "f1"}
    path = tmp_path / "fam.json"
    path.write_text(json.dumps({"f1": ["a", "b"], "f2": ["c"]}))
    assert cli_ood.parse_families(str(path)) == {"a": "f1", "b": "f1", "c": "f2"}
    with pytest.raises(ValueError, match="JSON"):
        cli_ood.parse_families("{not json")
    assert cli_ood._regimes_arg("AICc") == "aicc" and cli_ood._regimes_arg("3") == 3
    with pytest.raises(argparse.ArgumentTypeError):
        cli_ood._regimes_arg("many")


def test_ood_json_keys(demo_file, capsys):
    families = json.dumps({"close": ["model-humanlike", "model-strong"], "far": ["model-alien", "model-texture",
                                                                                "model-medium"]})
    assert main(["ood", str(demo_file), "--json", *DEMO_REF, "--families", families, *FAST]) == 0
    doc = _json(capsys)
    assert len(doc["conditions"]) == 16
    for c in doc["conditions"]:
        assert CONDITION_KEYS <= set(c)
        assert isinstance(c["above_chance"], bool)
    refs = [c for c in doc["conditions"] if c["is_reference"]]
    assert len(refs) == 4 and sum(c["ood_score"] for c in refs) == pytest.approx(0, abs=1e-9)
    regimes = doc["regimes"]
    assert regimes[0]["regime"] == "reference"
    assert [r["mean"] for r in regimes] == sorted((r["mean"] for r in regimes), reverse=True)
    for r in regimes:
        ranks = [m["rank"] for m in r["models"]]
        assert ranks == sorted(ranks) and len(ranks) == 5
        for m in r["models"]:
            assert {"model", "family", "ratio", "ratio_low", "ratio_high", "rank", "rank_low", "rank_high",
                    "probability_best"} <= set(m)
    assert regimes[0]["models"][0]["model"] == "model-humanlike"
    fam = doc["tests"]["family_profiles"]
    assert fam["families"]["model-strong"] == "close" and fam["p_value"] is not None
    assert {"statistic", "p_value", "n_permutations"} <= set(doc["tests"]["regime_vs_distortion"])
    assert doc["settings"]["n_resamples"] == 60


def test_ood_table_outputs_and_figures(demo_file, tmp_path, capsys):
    out, figs = tmp_path / "out", tmp_path / "figs"
    code = main(["ood", str(demo_file), *DEMO_REF, "--regimes", "3", "--mw-variant", "exact", "--alpha", "0.01",
                 "--out", str(out), "--figures", str(figs), *FAST])
    assert code == 0
    text = capsys.readouterr().out
    assert "regimes (3, fixed by the user)" in text
    assert "near-OOD" in text and "far-OOD" in text and "model-humanlike" in text
    assert "sim-blur" in text and "Cohen's d" in text
    for name in ("ood_conditions.csv", "ood_alignment.csv", "ood_alignment_pairs.csv", "ood_regime_ranking.csv",
                 "ood_representatives.csv", "ood_normality.csv", "ood_observers.csv", "ood_regimes.csv", "ood.json"):
        assert (out / name).stat().st_size > 0, name
    doc = json.loads((out / "ood.json").read_text())
    assert doc["settings"]["mw_variant"] == "exact" and doc["settings"]["alpha"] == 0.01
    pngs = sorted(p.name for p in figs.glob("*.png"))
    assert "ood_spectrum.png" in pngs and "ood_radar.png" in pngs and "ood_cled_mds.png" in pngs
    assert sum(p.startswith("ood_levels_") for p in pngs) == 4


def test_ood_bad_reference_is_an_error(demo_file, capsys):
    assert main(["ood", str(demo_file), "--reference", "sim-blur=99", *FAST]) == 2
    assert "sim-blur=99" in capsys.readouterr().err
    assert main(["ood", str(demo_file), *FAST]) == 2          # no default reference in simulated data
    assert "--reference" in capsys.readouterr().err


def test_demo_part(demo_trials, tmp_path):
    import types

    from humanlike.files import RunOutputs
    from humanlike.measures.contract import DemoRun
    from humanlike.measures.ood.demo import demo

    assert cli_ood.demo_reference(demo_trials) == {"sim-blur": ["0"], "sim-contrast": ["100"],
                                                   "sim-noise": ["0.00"], "sim-rotation": ["0"]}
    run = DemoRun(types.SimpleNamespace(out=tmp_path, format="csv", resamples=100, level=0.95, seed=0),
                  outputs=RunOutputs(tmp_path))
    files = demo(demo_trials, run)
    assert "ood" in run.results
    assert {f.name for f in files} == {"ood_conditions.csv", "ood_regime_ranking.csv", "ood_spectrum.png"}
    assert all(f.stat().st_size > 0 for f in files)


def test_ood_real_data_json(modelvshuman_dir, capsys):
    code = main(["ood", str(modelvshuman_dir), "--json", "--resamples", "50", "--observer-resamples", "30",
                 "--permutations", "99", "--quiet"])
    assert code == 0
    doc = _json(capsys)
    assert len(doc["conditions"]) == 78
    assert all(CONDITION_KEYS <= set(c) and c["ood_score"] is not None for c in doc["conditions"])
    ref = {(c["experiment"], c["condition"]): c for c in doc["conditions"] if c["is_reference"]}
    assert set(ref) == {("contrast", "c100"), ("rotation", "0"), ("high-pass", "inf"), ("low-pass", "0"),
                        ("phase-scrambling", "0"), ("power-equalisation", "0"), ("colour", "bw")}
    assert all(abs(c["ood_score"]) < 2 and c["regime"] == "reference" for c in ref.values())
    assert doc["regimes"][0]["regime"] == "reference"
    for r in doc["regimes"][:2]:
        assert len(r["models"]) == 9
        assert all(m["ratio"] is not None for m in r["models"])




STATUS = Path("/proc/self/status")


@pytest.mark.skipif(not STATUS.exists() or "THP_enabled" not in STATUS.read_text(),
                    reason="the kernel does not show its transparent huge page setting (Linux 5.0+ does)")
def test_command_line_leaves_the_huge_page_setting_alone():
    """The CLI no longer switches transparent huge pages off for itself and its workers (a process-wide side
    effect); the kernel's and numpy's own settings (NUMPY_MADVISE_HUGEPAGE) decide, as in any numpy program."""
    code = ("from humanlike.app import cli\n"
            "state = lambda: open('/proc/self/status').read().split('THP_enabled:')[1].split()[0]\n"
            "before = state(); code = cli.main(['mlds', 'no-such-file.csv']); print(before, state(), code)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after, code = shown.stdout.split()
    assert before == after and code == "2"   # a command that fails on its input
