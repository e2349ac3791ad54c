"""``humanlike demo``: one loop over the registered measures (app/demo.py)."""

import json

import humanlike.measures.registry as registry
from humanlike.app.cli import main


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_demo_writes_tables_and_figures(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--resamples", "200", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "humans" in out and "model-humanlike" in out
    for name in ("benchmark.csv", "pairs.csv", "trials.csv", "benchmark.png", "ranking.png", "benchmark.json"):
        assert (tmp_path / name).stat().st_size > 0, name
    doc = json.loads((tmp_path / "benchmark.json").read_text())
    assert doc["observers"]["humans"]["error_consistency"]["ci_low"] <= doc["observers"]["humans"]["error_consistency"]["estimate"]
    manifest = json.loads((tmp_path / "humanlike-manifest.json").read_text())
    written = sorted(p.name for p in tmp_path.iterdir() if p.name != "humanlike-manifest.json")
    assert manifest["complete"] is True and sorted(f["path"] for f in manifest["files"]) == written
    assert f"wrote {len(written) + 1} files" in out


def test_demo_json_tables_and_documents_apart(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--resamples", "100", "--format", "json", "--json", "--quiet"]) == 0
    doc = _json(capsys)
    assert {"observers", "settings", "ranking"} <= set(doc)
    # JSON tables never overwrite the JSON documents of the same name (benchmark, dmc).
    for name in ("benchmark", "dmc"):
        assert isinstance(json.loads((tmp_path / f"{name}.table.json").read_text()), list)
        assert isinstance(json.loads((tmp_path / f"{name}.json").read_text()), dict)
    manifest = json.loads((tmp_path / "humanlike-manifest.json").read_text())
    assert sorted(f["path"] for f in manifest["files"]) == sorted(
        p.name for p in tmp_path.iterdir() if p.name != "humanlike-manifest.json")


def test_demo_runs_the_registered_measures_and_only_them(tmp_path, capsys, monkeypatch):
    every = registry.measures()
    monkeypatch.setattr(registry, "measures", lambda: tuple(m for m in every if m.name in ("ec", "psychscore")))
    assert main(["demo", "--out", str(tmp_path), "--resamples", "0", "--quiet"]) == 0
    written = {p.name for p in tmp_path.iterdir()}
    assert {"benchmark.csv", "psychscore.csv", "report.html"} <= written
    assert not {"dmc.csv", "ood_conditions.csv"} & written          # their measures were not registered
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'id="error-consistency"' in page and 'id="ood-spectrum"' not in page


def test_demo_report_has_the_leaderboard_and_the_resolved_differences(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--resamples", "100", "--quiet"]) == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    for anchor in ('id="headline"', 'id="error-consistency"', 'id="leaderboard"', 'id="compare"'):
        assert anchor in page, anchor
    assert "Models ranked by mean rank" in page
    # the page states what each section used, never one number for all (the demo caps some measures)
    methods = page[page.index('id="methods"'):]
    assert "<dt>n_resamples asked</dt><dd>100</dd>" in methods and "<dt>n_resamples used</dt>" in methods
    assert "<dt>n_resamples</dt>" not in methods and "Psychophysical-Score: 100" in methods
