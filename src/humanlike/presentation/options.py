"""Options every command shares, and the one place they become settings.

Every command that resamples takes the same ``--seed/--resamples/--level/--interval/--observer-level/
--memory-budget`` options with the same defaults, and :func:`resampling_settings` turns them into the one
:class:`~humanlike.stats.engine.ResamplingSettings` that travels to the engine and into every output.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from ..stats.engine import DEFAULT_MEMORY_BUDGET, DEFAULT_RESAMPLES, OBSERVER_LEVELS, ResamplingSettings
from ..stats.results import INTERVAL_METHODS
from .io import to_json_text

DEFAULT_OUT = Path("humanlike-out")


def resample_count(text: str) -> int:
    """argparse type: 0 (no intervals) or an integer of at least 2."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 (no intervals) or at least 2, got {value}")
    return value


def confidence_level(text: str) -> float:
    """argparse type: a confidence level in (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {value}")
    return value


def positive_count(text: str) -> int:
    """argparse type: a positive whole number (e.g. ``--workers 2``).

    Examples
    --------
    >>> positive_count("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def gibibytes(text: str) -> int:
    """argparse type: a memory budget in GiB (e.g. ``2`` or ``0.5``), returned in bytes."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GiB, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return int(value * 1024**3)


def add_resampling_options(parser: argparse.ArgumentParser, *, observer_level: str = "none",
                           interval: bool = True) -> None:
    """The resampling options, with one default number of resamples for every command."""
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same numbers)")
    parser.add_argument("--resamples", type=resample_count, default=DEFAULT_RESAMPLES,
                        help="bootstrap resamples; 0 for estimates only (default %(default)s)")
    parser.add_argument("--level", type=confidence_level, default=0.95, help="confidence level (default %(default)s)")
    if interval:
        parser.add_argument("--interval", choices=INTERVAL_METHODS, default="percentile",
                            help="interval method (default %(default)s)")
    parser.add_argument("--observer-level", choices=OBSERVER_LEVELS, default=observer_level,
                        help="how the human observers enter the intervals (default %(default)s)")
    parser.add_argument("--memory-budget", type=gibibytes, default=DEFAULT_MEMORY_BUDGET,
                        metavar="GIB", help="memory the resampling may use, in GiB (default 2)")
    parser.add_argument("--workers", type=positive_count, default=None, metavar="N",
                        help="threads that evaluate strata side by side (default: one per available core; "
                             "never changes a number)")


def resampling_settings(args) -> ResamplingSettings:
    """The settings object of a parsed command line."""
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")
    return ResamplingSettings(n_resamples=args.resamples, level=args.level,
                              interval=getattr(args, "interval", "percentile"),
                              observer_level=getattr(args, "observer_level", "none"), seed=args.seed,
                              memory_budget=getattr(args, "memory_budget", DEFAULT_MEMORY_BUDGET),
                              progress=show_progress(args), workers=getattr(args, "workers", None))


def add_output_options(parser: argparse.ArgumentParser, out_default: Path | None = DEFAULT_OUT) -> None:
    """The output options shared by the commands: ``--out``, ``--format``, ``--json``, ``--quiet``."""
    parser.add_argument("--out", type=Path, default=out_default, help="folder for tables and figures")
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def show_progress(args) -> bool:
    """Whether to show progress bars: on a terminal, unless ``--quiet``."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def emit_json(obj) -> None:
    """Print ``obj`` as JSON on standard output."""
    sys.stdout.write(to_json_text(obj) + "\n")


def load_data(paths):
    """The trial table of the DATA arguments of a command (folders or files, aligned)."""
    from ..data.loaders import load_trials

    return load_trials(paths)


def optional_module(name: str):
    """A command module of this package, or None when it is absent (optional command families)."""
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"{__package__}.{name}":
            raise
        return None
