"""``humanlike report``: every analysis of a data set on one self-contained HTML page."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from .options import add_resampling_options, resampling_settings

REPORT_ANALYSES = ("ec", "dmc", "ood", "dvc")


def analyses_list(text: str) -> list[str]:
    """argparse type: a comma-separated subset of the report's analyses."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = sorted(set(names) - set(REPORT_ANALYSES))
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown analyses {unknown}; choose from {','.join(REPORT_ANALYSES)}")
    return names


def register(sub, plan_sub) -> None:
    report = sub.add_parser(
        "report", help="one self-contained HTML report of every analysis of a data set",
        description="Runs the analyses on DATA and writes one HTML page (figures embedded, no external "
                    "request) with the headline table, every figure and table, the settings and the data's "
                    "provenance.")
    report.add_argument("data", nargs="+", type=Path, help="raw-data folders or tidy trial files")
    report.add_argument("--out", type=Path, default=Path("report.html"), help="the HTML file (default %(default)s)")
    report.add_argument("--analyses", type=analyses_list, default=list(REPORT_ANALYSES),
                        help=f"comma-separated subset of {','.join(REPORT_ANALYSES)} (default: all that apply)")
    report.add_argument("--title", default="humanlike report", help="page title")
    report.add_argument("--no-exclusions", action="store_true", help="keep the benchmark's excluded conditions")
    report.add_argument("--quiet", action="store_true", help="no progress bars")
    add_resampling_options(report)
    report.set_defaults(handler=run_report)


def run_report(args) -> int:
    from ..analyses.errorconsistency import MODELVSHUMAN_EXCLUSIONS
    from .options import load_data
    from .report import content_hash, render_report, write_report
    from .report_sections import build_sections, run_report_analyses

    started = time.perf_counter()
    trials = load_data(args.data)
    settings = resampling_settings(args)
    exclusions = None if args.no_exclusions else MODELVSHUMAN_EXCLUSIONS
    results, notes = run_report_analyses(trials, args.analyses, settings, exclusions)
    sections, headline = build_sections(results)
    provenance = dict(content_hash(args.data))
    provenance.update(trials=len(trials), observers=int(trials["observer"].nunique()),
                      experiments=int(trials["experiment"].nunique()))
    html = render_report(sections, title=args.title, headline=headline, provenance=provenance,
                         settings={**settings.to_dict(), "exclusions": "model-vs-human" if exclusions else "none",
                                   "analyses": ",".join(args.analyses), "notes": "; ".join(notes) or "none"},
                         command="humanlike " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["report"]
                         else "")
    path = write_report(html, args.out)
    print(f"humanlike report: wrote {path} ({path.stat().st_size / 1e6:.1f} MB, {len(sections)} sections) "
          f"in {time.perf_counter() - started:.1f} s")
    for note in notes:
        print(f"  note: {note}")
    return 0
