# src/humanlike/measures/overlap/cli.py
"""The command of error overlap: ``humanlike <name> DATA``."""

from __future__ import annotations

from pathlib import Path

from ..options import add_output_options, add_resampling_options, load_data, resampling_settings, run_outputs


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - no planning command
    """Add ``humanlike <name>`` (the entry's name) to the parser."""
    command = sub.add_parser(name, help="error overlap: the Jaccard index of two observers' error sets")
    command.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_resampling_options(command)
    add_output_options(command, out_default=None)
    command.set_defaults(handler=run_overlap_command)


def run_overlap_command(args) -> int:
    """Run error overlap on the data and print (or write) its tidy table."""
    from .analysis import error_overlap_analysis

    settings = resampling_settings(args)
    run = run_outputs(args, settings)
    result = error_overlap_analysis(load_data(args.data), settings=settings)
    if args.out is None:
        print(result.to_frame().to_string(index=False))
        return 0
    run.add_table(result.to_frame(), "overlap", args.format)
    run.finish()
    return 0
