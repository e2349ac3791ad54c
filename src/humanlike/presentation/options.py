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
from .io import RunOutputs, check_output_folder, to_json_text

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


def resampling_settings(args) -> ResamplingSettings:
    """The settings object of a parsed command line."""
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")
    return ResamplingSettings(n_resamples=args.resamples, level=args.level,
                              interval=getattr(args, "interval", "percentile"),
                              observer_level=getattr(args, "observer_level", "none"), seed=args.seed,
                              memory_budget=getattr(args, "memory_budget", DEFAULT_MEMORY_BUDGET),
                              progress=show_progress(args))


OUT_HELP = ("folder for tables and figures; the run's record humanlike-manifest.json (command, settings, "
            "every file with its sha256, 'complete': true) is written last")


def add_output_options(parser: argparse.ArgumentParser, out_default: Path | None = DEFAULT_OUT) -> None:
    """The output options shared by the commands: ``--out``, ``--format``, ``--json``, ``--quiet``."""
    parser.add_argument("--out", type=Path, default=out_default, help=OUT_HELP)
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s; JSON tables are NAME.table.json)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


# Options that name output files other than --out, checked before any work.
OUTPUT_FILE_OPTIONS = ("figure", "table")
NOT_OPTIONS = ("handler", "argv", "demo_results")


def command_line(args) -> str:
    """The command line of a parsed run (as typed, where :func:`humanlike.presentation.cli.main` kept it)."""
    import shlex

    argv = getattr(args, "argv", None)
    if argv is None:
        return f"humanlike {getattr(args, 'command', '')}".strip()
    return shlex.join(["humanlike", *map(str, argv)])


def run_outputs(args, settings: ResamplingSettings | dict | None = None, out=None) -> RunOutputs:
    """The :class:`~humanlike.presentation.io.RunOutputs` of a command: every file of the run goes through it
    and its manifest is written last (``run.finish()``) into ``--out``.

    The output folder and every output file option (``--figure``, ``--table``, ``--figures``) are checked
    first, before the analysis runs, so an unwritable path fails in a second rather than after the work.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    settings : ResamplingSettings or dict, optional
        The run's settings, recorded in the manifest (``to_dict()`` of a ``ResamplingSettings``).
    out : path, optional
        The output folder (default ``args.out``; None: no folder, no manifest).

    Returns
    -------
    RunOutputs
    """
    out = getattr(args, "out", None) if out is None else out
    if out is not None:
        check_output_folder(out)
    for name in OUTPUT_FILE_OPTIONS:
        path = getattr(args, name, None)
        if isinstance(path, Path):
            if path.is_dir():
                raise OSError(21, f"--{name} {path} is a folder; give a file name", str(path))
            check_output_folder(path.parent)
    if isinstance(getattr(args, "figures", None), Path):
        check_output_folder(args.figures)
    if isinstance(settings, ResamplingSettings):
        settings = settings.to_dict()
    options = {key: (str(value) if isinstance(value, Path) else
                     [str(v) if isinstance(v, Path) else v for v in value] if isinstance(value, (list, tuple))
                     else value)
               for key, value in sorted(vars(args).items()) if key not in NOT_OPTIONS and not callable(value)}
    return RunOutputs(out, command=command_line(args), settings=settings, options=options)


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
