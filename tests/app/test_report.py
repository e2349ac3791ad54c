"""`humanlike report`: one self-contained page, checked in a real browser against the JSON of the commands."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from browser import external_requests, visit
from humanlike.app.cli import main

FAST = ["--resamples", "100", "--seed", "3", "--quiet"]


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory, demo_trials):
    path = tmp_path_factory.mktemp("report-data") / "demo.parquet"
    demo_trials.to_parquet(path)
    return path


@pytest.fixture(scope="module")
def report_page(tmp_path_factory, demo_file):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", str(demo_file), "--out", str(out), "--no-exclusions", *FAST]) == 0
    return out


def test_report_opens_cleanly_and_matches_the_json(report_page, demo_file, tmp_path, capsys):
    seen = visit(report_page, tmp_path / "report.png")
    assert [e for e in seen.console if e.get("level") in ("SEVERE", "ERROR")] == []
    assert external_requests(seen.requests) == []
    assert len(seen.figures) >= 3
    assert all(f["natural_width"] > 0 and f["width"] > 0 and f["height"] > 0 for f in seen.figures)
    assert all(f["alt"] for f in seen.figures)
    assert seen.screenshot.stat().st_size > 10_000

    # The EC table of the page holds the numbers `humanlike benchmark --json` prints for the same settings.
    capsys.readouterr()
    assert main(["benchmark", str(demo_file), "--json", "--no-exclusions", *FAST]) == 0
    doc = json.loads(capsys.readouterr().out)
    header = seen.headers["ec-overall"]
    rows = {r[header.index("observer")]: r for r in seen.tables["ec-overall"]}
    assert set(rows) == set(doc["observers"])
    # one cell per interval: the estimate in data-value, its bounds in data-low / data-high
    assert "ci_low" not in header and "ci_high" not in header
    column = header.index("estimate")
    bounds = {r[header.index("observer")]: b[column] for r, b in zip(seen.tables["ec-overall"],
                                                                  seen.bounds["ec-overall"])}
    for observer, entry in doc["observers"].items():
        page_values = [float(rows[observer][column]), *map(float, bounds[observer])]
        expected = [entry["error_consistency"][c] for c in ("estimate", "ci_low", "ci_high")]
        np.testing.assert_allclose(page_values, expected, rtol=1e-12)
    headline = seen.tables["headline"]
    assert headline[0][0] == "humans" and headline[1][1] == "1"


def test_headline_fits_a_1400_pixel_screen(report_page, tmp_path):
    """The headline shows the key measures as "estimate [low, high]" cells that fit without a sideways
    scrollbar at 1,400 px (it had 23 columns and scrolled 705 px in the demo); ranks print as integers."""
    seen = visit(report_page, tmp_path / "report-1400.png", width=1400, height=900)
    assert seen.overflow["headline"] == 0, seen.overflow
    header = seen.headers["headline"]
    assert header[:3] == ["observer", "rank", "mean rank"] and "EC" in header
    assert not [h for h in header if h.endswith((" low", " high"))]
    assert "accuracy diff." not in header and "observed consistency" not in header     # in the leaderboard
    html = report_page.read_text()
    shown = re.search(r'data-table="headline".*?<tbody>\s*<tr>.*?</tr>\s*<tr>(.*?)</tr>', html, re.S).group(1)
    cells = [re.sub(r"<.*?>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", shown)]
    assert re.fullmatch(r"\d+", cells[1]), cells                                   # the rank: an integer
    assert re.fullmatch(r"-?\d+(\.\d+)? \[-?\d+(\.\d+)?, -?\d+(\.\d+)?\]", cells[header.index("EC")]), cells
    # a table's caption never repeats its heading
    for heading, caption in re.findall(r"<h3[^>]*>([^<]*)</h3>\s*<div class=\"table-wrap\">\s*<table[^>]*>\s*"
                                       r"<caption>([^<]*)</caption>", html):
        assert not caption.startswith(heading), (heading, caption)


def test_report_is_self_contained_and_reproducible(report_page):
    html = report_page.read_text()
    import re

    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    for fact in ("sha256", "n_resamples", "--seed 3", "--resamples 100", "--no-exclusions"):
        assert fact in html


def test_report_rejects_unknown_analyses(demo_file, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["report", str(demo_file), "--analyses", "ec,nope", "--out", str(tmp_path / "r.html")])
    assert "unknown analyses" in capsys.readouterr().err
