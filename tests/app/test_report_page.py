"""The report page itself: self-contained HTML, readable tables and figures, checked in a real browser."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from humanlike.app.report import content_hash, format_cell, render_report, write_report  # noqa: E402
from humanlike.measures.sections import ReportFigure, ReportSection, ReportTable  # noqa: E402

from browser import external_requests, visit  # noqa: E402


def toy_report() -> tuple[str, pd.DataFrame]:
    frame = pd.DataFrame({"model": ["b-model", "a-model", "humans"], "estimate": [0.21, 0.43, np.nan],
                          "ci_low": [0.18, 0.40, np.nan], "n": [3, 12, 7]})
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar(["a", "b"], [0.43, 0.21])
    section = ReportSection("ec", "Error consistency", "Cohen's kappa of trial correctness <b>escaped</b>.",
                            tables=[ReportTable("ec-rows", "Per model", frame)],
                            figures=[ReportFigure("ec-bars", "Bars", fig, alt="Bar chart of EC per model")],
                            methods={"policy": "strict"}, notes=["a note"])
    html = render_report([section], title="Toy report", headline=ReportTable("headline", "Headline", frame),
                         provenance={"sha256": "abc"}, settings={"seed": 0, "level": 0.95},
                         command="humanlike report data --seed 0")
    return html, frame


def test_page_is_self_contained_and_escaped():
    html, _ = toy_report()
    assert "<b>escaped</b>" not in html and "&lt;b&gt;escaped&lt;/b&gt;" in html
    # No reference to any other host: no http(s) URL in src/href, no @import, no external script.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "<link" not in html
    assert html.count("data:image/svg+xml;base64,") == 1
    assert 'alt="Bar chart of EC per model"' in html
    assert "humanlike report data --seed 0" in html


def test_cells_keep_exact_values():
    assert format_cell(0.123456, 3) == ("0.123", "0.123456")
    assert format_cell(float("nan"), 3) == ("–", "")
    assert format_cell(1234, 3) == ("1,234", "1234")
    assert format_cell(True, 3) == ("yes", "1")


def test_content_hash_changes_with_content(tmp_path):
    (tmp_path / "a.csv").write_text("x\n1\n")
    first = content_hash([tmp_path])
    (tmp_path / "a.csv").write_text("x\n2\n")
    second = content_hash([tmp_path])
    assert first["n_files"] == 1 and first["sha256"] != second["sha256"]


def test_report_refuses_a_folder_as_output(tmp_path):
    with pytest.raises(IsADirectoryError, match="report.html"):
        write_report("<html></html>", tmp_path)


def test_page_in_a_real_browser(tmp_path):
    html, frame = toy_report()
    page = write_report(html, tmp_path / "report.html")
    seen = visit(page, tmp_path / "report.png")
    assert seen.title == "Toy report"
    assert [e for e in seen.console if e.get("level") in ("SEVERE", "ERROR")] == []
    assert external_requests(seen.requests) == []
    assert seen.figures and all(f["natural_width"] > 0 and f["width"] > 0 and f["height"] > 0 for f in seen.figures)
    rows = seen.tables["ec-rows"]
    assert [float(r[1]) if r[1] else np.nan for r in rows][:2] == frame["estimate"].tolist()[:2]
    assert seen.headers["headline"] == list(frame.columns)
    assert seen.screenshot.stat().st_size > 1000
