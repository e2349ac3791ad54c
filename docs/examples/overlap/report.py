# src/humanlike/measures/overlap/report.py
"""Error overlap on the report page: what the report computes, and its section."""

from __future__ import annotations

from ..sections import ReportSection, ReportTable, SectionResult, settings_text


def report_analysis(trials, *, settings, exclusions=None):  # noqa: ARG001 - every condition is shown
    """What ``humanlike report`` computes for error overlap."""
    from .analysis import error_overlap_analysis

    return error_overlap_analysis(trials, settings=settings)


def section(result) -> SectionResult:
    """The overall error overlap per group, as a section of the report page."""
    frame = result.to_frame()
    overall = frame[frame["scope"] == "overall"][["group", "estimate", "ci_low", "ci_high"]]
    return SectionResult(ReportSection(
        "overlap", "Error overlap", "The Jaccard index of two observers' error sets, with bootstrap intervals.",
        tables=[ReportTable("overlap-overall", "Error overlap over every experiment", overall)],
        methods=settings_text(result.settings)))
