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
    """argparse type: 0 (no intervals) or an integer of at least 2.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int
        The number of resamples.

    Raises
    ------
    argparse.ArgumentTypeError
        For text that is not a valid value (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> resample_count("1000"), resample_count("0")
    (1000, 0)
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 (no intervals) or at least 2, got {value}")
    return value


def confidence_level(text: str) -> float:
    """argparse type: a confidence level in (0, 1).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The level.

    Raises
    ------
    argparse.ArgumentTypeError
        For text that is not a valid value (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> confidence_level("0.9")
    0.9
    """
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
    """argparse type: a memory budget in GiB (e.g. ``2`` or ``0.5``), returned in bytes.

    Parameters
    ----------
    text : str
        The option's value in GiB.

    Returns
    -------
    int
        The budget in bytes.

    Raises
    ------
    argparse.ArgumentTypeError
        For text that is not a valid value (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> gibibytes("0.5")
    536870912
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GiB, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return int(value * 1024**3)


def add_resampling_options(parser: argparse.ArgumentParser, *, observer_level: str = "none",
                           interval: bool = True) -> None:
    """The resampling options, with one default number of resamples for every command.

    ``--seed``, ``--resamples``, ``--level``, ``--interval`` (unless ``interval=False``), ``--observer-level``
    and ``--memory-budget``; :func:`resampling_settings` turns them into one settings object.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.
    observer_level : {"none", "bootstrap", "jackknife"}
        The command's default observer level.
    interval : bool
        Offer ``--interval`` (percentile or BCa).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_resampling_options(parser, observer_level="jackknife")
    >>> args = parser.parse_args(["--resamples", "500"])
    >>> args.resamples, args.level, args.observer_level, args.seed
    (500, 0.95, 'jackknife', 0)
    """
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
    """The settings object of a parsed command line.

    Parameters
    ----------
    args : argparse.Namespace
        A command line parsed with :func:`add_resampling_options` (missing options take their defaults).

    Returns
    -------
    ResamplingSettings
        The one settings object the analyses take.

    Raises
    ------
    ValueError
        For a negative ``--seed``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_resampling_options(parser)
    >>> settings = resampling_settings(parser.parse_args(["--resamples", "200", "--seed", "3"]))
    >>> settings.n_resamples, settings.seed, settings.interval
    (200, 3, 'percentile')
    """
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")
    return ResamplingSettings(n_resamples=args.resamples, level=args.level,
                              interval=getattr(args, "interval", "percentile"),
                              observer_level=getattr(args, "observer_level", "none"), seed=args.seed,
                              memory_budget=getattr(args, "memory_budget", DEFAULT_MEMORY_BUDGET),
                              progress=show_progress(args), workers=getattr(args, "workers", None))


def add_output_options(parser: argparse.ArgumentParser, out_default: Path | None = DEFAULT_OUT) -> None:
    """The output options shared by the commands: ``--out``, ``--format``, ``--json``, ``--quiet``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.
    out_default : path or None
        Default of ``--out`` (None: write no files unless asked).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_output_options(parser, out_default=None)
    >>> args = parser.parse_args(["--format", "parquet"])
    >>> args.out, args.format, args.json
    (None, 'parquet', False)
    """
    parser.add_argument("--out", type=Path, default=out_default, help="folder for tables and figures")
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def show_progress(args) -> bool:
    """Whether to show progress bars: on a terminal, unless ``--quiet``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    bool
        False with ``--quiet`` or when standard error is not a terminal.

    Examples
    --------
    >>> import argparse
    >>> show_progress(argparse.Namespace(quiet=True))
    False
    """
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def emit_json(obj) -> None:
    """Print ``obj`` as JSON on standard output (NaN and inf as null).

    Parameters
    ----------
    obj : object
        Anything :func:`humanlike.presentation.io.to_json_text` takes.

    Examples
    --------
    >>> emit_json({"estimate": float("nan")})
    {
      "estimate": null
    }
    """
    sys.stdout.write(to_json_text(obj) + "\n")


def load_data(paths):
    """The trial table of the DATA arguments of a command (folders or files, aligned).

    Parameters
    ----------
    paths : path-like or list of path-like
        Raw-data folders or tidy trial files (:func:`humanlike.data.loaders.load_trials`).

    Returns
    -------
    pandas.DataFrame
        The validated trial table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> simulate_benchmark(seed=0, n_humans=2, n_items=16).to_csv(path, index=False)
    >>> trials = load_data([path])
    >>> sorted(trials["observer_kind"].unique())
    ['human', 'model']
    """
    from ..data.loaders import load_trials

    return load_trials(paths)


def optional_module(name: str):
    """A command module of this package, or None when it is absent (optional command families).

    Parameters
    ----------
    name : str
        Module name within :mod:`humanlike.presentation` (e.g. ``"cli_ood"``).

    Returns
    -------
    module or None
        The module; None only when that module itself is missing (an import error inside it is raised).

    Examples
    --------
    >>> optional_module("cli_mlds").__name__, optional_module("cli_no_such_family")
    ('humanlike.presentation.cli_mlds', None)
    """
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"{__package__}.{name}":
            raise
        return None
