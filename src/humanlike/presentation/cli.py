"""The ``humanlike`` command line.

Each command family lives in its own module with a ``register(subparsers)`` function; this module only
assembles them and holds the options every command shares.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .io import to_json_text

DEFAULT_OUT = Path("humanlike-out")


def add_resampling_options(parser: argparse.ArgumentParser, resamples: int = 10_000) -> None:
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same numbers)")
    parser.add_argument("--resamples", type=int, default=resamples, help="bootstrap resamples (default %(default)s)")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level (default %(default)s)")


def add_output_options(parser: argparse.ArgumentParser, out_default: Path | None = DEFAULT_OUT) -> None:
    parser.add_argument("--out", type=Path, default=out_default, help="folder for tables and figures")
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def show_progress(args) -> bool:
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def emit_json(obj) -> None:
    sys.stdout.write(to_json_text(obj) + "\n")


def build_parser() -> argparse.ArgumentParser:
    from . import cli_ec

    parser = argparse.ArgumentParser(
        prog="humanlike",
        description="How alike are humans and machines in their decisions, trial by trial, with honest uncertainty.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    plan = sub.add_parser("plan", help="experiment planning: how many trials / observers are enough")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True, metavar="METRIC")
    cli_ec.register(sub, plan_sub)
    for name in ("cli_dmc", "cli_ood"):
        module = _optional_module(name)
        if module is not None:
            module.register(sub, plan_sub)
    return parser


def _optional_module(name: str):
    import importlib

    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"{__package__}.{name}":
            raise
        return None


def main(argv: list[str] | None = None) -> int:
    from ..data.schema import TrialTableError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (TrialTableError, FileNotFoundError, ConnectionError, ValueError) as err:
        print(f"humanlike {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Files are written atomically, so what exists is complete; a run without a manifest is partial.
        print(f"humanlike {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
