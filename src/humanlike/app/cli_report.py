"""``humanlike report``: every analysis of a data set on one self-contained HTML page."""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path

from ..files import check_output_folder
from ..measures.options import add_data_options, add_resampling_options, output_path, resampling_settings
from ..measures.registry import measures


def report_analyses() -> tuple[str, ...]:
    """Names of the registered measures ``humanlike report --analyses`` can run (registry order).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> report_analyses()
    ('ec', 'dmc', 'dvc', 'ood', 'mlds', 'shapebias', 'psychometrics')
    """
    return tuple(m.name for m in measures() if m.report_run is not None)


def analyses_list(text: str) -> list[str]:
    """argparse type: a comma-separated subset of the report's analyses.

    Parameters
    ----------
    text : str
        Names from :func:`report_analyses` (``ec, dmc, dvc, ood, mlds, shapebias, psychometrics``), separated by
        commas.

    Returns
    -------
    list of str
        The names, in the order given.

    Raises
    ------
    argparse.ArgumentTypeError
        For an unknown name or an empty list.

    Examples
    --------
    >>> analyses_list("ec, dmc")
    ['ec', 'dmc']
    """
    names = [t.strip() for t in text.split(",") if t.strip()]
    known = report_analyses()
    unknown = sorted(set(names) - set(known))
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown analyses {unknown}; choose from {','.join(known)}")
    return names


def register(sub, plan_sub) -> None:
    """Register this module's command (``report``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (unused: nothing to plan).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub)
    >>> sorted(sub.choices)
    ['plan', 'report']
    """
    report = sub.add_parser(
        "report", help="one self-contained HTML report of every analysis of a data set",
        description="Runs the analyses on DATA and writes one HTML page (figures embedded, no external "
                    "request) with the headline table, every figure and table, the settings and the data's "
                    "provenance.")
    report.add_argument("data", nargs="*", type=Path, help="raw-data folders or tidy trial files")
    add_data_options(report)
    report.add_argument("--judgements", nargs="+", type=Path, default=[], metavar="FILE",
                        help="difference-judgement files: adds difference scales (MLDS) with bootstrap intervals")
    report.add_argument("--out", type=output_path, default=Path("report.html"),
                        help="the HTML file (default %(default)s): one file, written atomically, that records "
                             "its own command line and settings (so no run manifest)")
    report.add_argument("--analyses", type=analyses_list, default=list(report_analyses()),
                        help=f"comma-separated subset of {','.join(report_analyses())} (default: all that apply)")
    report.add_argument("--title", default="humanlike report", help="page title")
    report.add_argument("--no-exclusions", action="store_true", help="keep the benchmark's excluded conditions")
    report.add_argument("--quiet", action="store_true", help="no progress bars")
    add_resampling_options(report)
    report.set_defaults(handler=run_report)


def rerun_command(args) -> str:
    """The command line that reproduces this report (every setting that decides a number spelled out).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``humanlike report`` command line.

    Returns
    -------
    str
        A shell-quoted command line.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> print(rerun_command(build_parser().parse_args(["report", "raw-data", "--analyses", "ec"])))
    humanlike report raw-data --out report.html --analyses ec --seed 0 --resamples 10000 --level 0.95 --interval percentile --observer-level none
    """
    parts = ["humanlike", "report", *map(str, args.data), "--out", str(args.out),
             *(["--judgements", *map(str, args.judgements)] if args.judgements else []),
             "--analyses", ",".join(args.analyses), "--seed", str(args.seed), "--resamples", str(args.resamples),
             "--level", str(args.level), "--interval", args.interval, "--observer-level", args.observer_level]
    if args.no_exclusions:
        parts.append("--no-exclusions")
    return " ".join(shlex.quote(p) for p in parts)


def run_report(args) -> int:
    """Handle ``humanlike report`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (:func:`humanlike.app.cli.build_parser`).

    Returns
    -------
    int
        The exit code, 0 on success; errors are raised and :func:`humanlike.app.cli.main` turns them
        into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(['report', 'raw-data/']).handler is run_report
    True
    """
    from ..trials.selection import MODELVSHUMAN_EXCLUSIONS
    from ..measures.options import load_data
    from .report import content_hash, render_report, write_report
    from .report_sections import build_sections, run_report_analyses

    started = time.perf_counter()
    if not args.data and not args.judgements:
        raise ValueError("give DATA (trial files or folders) and/or --judgements FILE...")
    settings = resampling_settings(args)
    if args.out.is_dir():
        raise IsADirectoryError(f"--out {args.out} is a folder; give a file name such as {args.out / 'report.html'}")
    check_output_folder(args.out.parent)  # before the analyses, not after
    exclusions = None if args.no_exclusions else MODELVSHUMAN_EXCLUSIONS
    data, provenance = {}, {}
    if args.data:
        trials = load_data(args.data, args)
        data["trials"] = trials
        provenance.update(content_hash(args.data))
        provenance.update(trials=len(trials), observers=int(trials["observer"].nunique()),
                          experiments=int(trials["experiment"].nunique()))
    judged = [m.name for m in measures() if m.report_input == "judgements" and m.name in args.analyses]
    if judged and not args.judgements and args.analyses != list(report_analyses()):
        raise ValueError(f"--analyses {judged[0]} needs difference judgements: give --judgements FILE...")
    if args.judgements and judged:
        from ..trials.judgements import load_judgements

        judgements = load_judgements(args.judgements)
        data["judgements"] = judgements
        provenance["judgement files"] = content_hash(args.judgements)
        provenance["judgements"] = len(judgements)
    results, notes = run_report_analyses(data, args.analyses, settings, exclusions)
    sections, headline = build_sections(results)
    html = render_report(sections, title=args.title, headline=headline, provenance=provenance,
                         settings={**settings.to_dict(), "exclusions": "model-vs-human" if exclusions else "none",
                                   "analyses": ",".join(args.analyses), "notes": "; ".join(notes) or "none"},
                         command=rerun_command(args))
    path = write_report(html, args.out)
    print(f"humanlike report: wrote {path} ({path.stat().st_size / 1e6:.1f} MB, {len(sections)} sections) "
          f"in {time.perf_counter() - started:.1f} s")
    for note in notes:
        print(f"  note: {note}")
    return 0
