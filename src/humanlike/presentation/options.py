"""Options every command shares, and the one place they become settings.

Every command that resamples takes the same ``--seed/--resamples/--level/--interval/--observer-level/
--memory-budget`` options with the same defaults, and :func:`resampling_settings` turns them into the one
:class:`~humanlike.stats.settings.ResamplingSettings` that travels to the engine and into every output.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from pathlib import Path

from ..stats.results import INTERVAL_METHODS
from ..stats.settings import DEFAULT_MEMORY_BUDGET, DEFAULT_RESAMPLES, OBSERVER_LEVELS, ResamplingSettings
from .io import RunOutputs, check_output_folder, to_json_text

DEFAULT_OUT = Path("humanlike-out")


def _parse_number(text: str, kind, what: str):
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def int_at_least(low: int, high: int | None = None):
    """argparse type: an integer of at least ``low`` (and at most ``high``).

    The returned function carries ``bad_examples``, values it refuses, for the option corpus test.

    Parameters
    ----------
    low : int
        The smallest value accepted.
    high : int, optional
        The largest value accepted (default: no upper bound).

    Returns
    -------
    callable
        ``parse(text: str) -> int``, raising ``argparse.ArgumentTypeError`` for text that is not an integer in
        the range (argparse turns it into a usage error naming the option).

    Examples
    --------
    >>> int_at_least(1)("3")
    3
    >>> int_at_least(1, 5)("6")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be between 1 and 5, got 6
    """
    def parse(text: str) -> int:
        value = _parse_number(text, int, "an integer")
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    parse.__doc__ = (f"argparse type: an integer of at least {low}" + ("" if high is None else f" and at most {high}")
                     + ".\n\nParameters\n----------\ntext : str\n    The option's value.\n\n"
                     "Returns\n-------\nint\n    The value.\n\n"
                     "Raises\n------\nargparse.ArgumentTypeError\n    For text that is not an integer in the range.\n\n"
                     f"Examples\n--------\n>>> int_at_least({low})('{low + 5}')\n{low + 5}\n")
    parse.bad_examples = ("x", "1.5", "nan", "", str(low - 1), "-7", *(() if high is None else (str(high + 1),)))
    return parse


def float_in(low: float = -math.inf, high: float = math.inf, *, open_low: bool = False, open_high: bool = False):
    """argparse type: a finite number in an interval (open or closed at each end).

    The returned function carries ``bad_examples``, values it refuses, for the option corpus test.

    Parameters
    ----------
    low, high : float
        The interval's ends (default: the whole real line; NaN and infinities are always refused).
    open_low, open_high : bool
        Exclude ``low`` (``high``) itself (default: closed ends).

    Returns
    -------
    callable
        ``parse(text: str) -> float``, raising ``argparse.ArgumentTypeError`` for text that is not a finite
        number in the interval.

    Examples
    --------
    >>> float_in(0, 1, open_low=True)("0.5")
    0.5
    >>> float_in(0, 1, open_low=True)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must lie in (0, 1], got 0
    """
    def parse(text: str) -> float:
        value = _parse_number(text, float, "a number")
        if value < low or value > high or (open_low and value == low) or (open_high and value == high):
            lo, hi = ("(" if open_low else "["), (")" if open_high else "]")
            raise argparse.ArgumentTypeError(f"must lie in {lo}{low:g}, {high:g}{hi}, got {value:g}")
        return value

    bad = ["x", "nan", "inf", "-inf", ""]
    if math.isfinite(low):
        bad += [repr(low - 1.0)] + ([repr(float(low))] if open_low else [])
    if math.isfinite(high):
        bad += [repr(high + 1.0)] + ([repr(float(high))] if open_high else [])
    parse.__name__ = "number"
    parse.__doc__ = (f"argparse type: a finite number in {'(' if open_low else '['}{low:g}, {high:g}"
                     f"{')' if open_high else ']'}.\n\n"
                     "Parameters\n----------\ntext : str\n    The option's value.\n\n"
                     "Returns\n-------\nfloat\n    The value.\n\n"
                     "Raises\n------\nargparse.ArgumentTypeError\n    For text that is not a finite number in the "
                     "interval.\n\nExamples\n--------\n>>> float_in(0, 1)('0.5')\n0.5\n")
    parse.bad_examples = tuple(bad)
    return parse


#: argparse types shared by the commands.
seed_value = int_at_least(0)
count = int_at_least(0)
positive_count = int_at_least(1)
probability = float_in(0.0, 1.0, open_low=True, open_high=True)


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
    if not 0.0 < value < 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {value}")
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
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of GiB, got {text}")
    if value * 1024**3 < 1024**2:
        raise argparse.ArgumentTypeError(f"{text} GiB is less than 1 MiB; nothing fits in it")
    return int(value * 1024**3)


resample_count.bad_examples = ("-3", "1", "many", "1.5", "nan", "1e8", "")


def bounded_resample_count(most: int, why: str):
    """argparse type: like :func:`resample_count`, at most ``most`` (``why``: the cost that sets the bound).

    For commands whose every resample refits a model (minutes per thousand), where the memory check of the
    engine does not stop an absurd request before it runs for days.

    Parameters
    ----------
    most : int
        The largest number of resamples accepted.
    why : str
        The cost that sets the bound, quoted in the error message.

    Returns
    -------
    callable
        ``parse(text: str) -> int``, raising ``argparse.ArgumentTypeError`` for text that
        :func:`resample_count` refuses or a count above ``most``.

    Examples
    --------
    >>> bounded_resample_count(100, "refits")("50")
    50
    >>> bounded_resample_count(100, "refits")("101")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: at most 100 (refits), got 101
    """
    def parse(text: str) -> int:
        value = resample_count(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"at most {most:,} ({why}), got {value:,}")
        return value

    parse.__name__ = "resample count"
    parse.__doc__ = (f"argparse type: 0 or 2 to {most} resamples ({why}).\n\n"
                     "Parameters\n----------\ntext : str\n    The option's value.\n\n"
                     "Returns\n-------\nint\n    The number of resamples.\n\n"
                     "Raises\n------\nargparse.ArgumentTypeError\n    For text that is not 0 or an integer "
                     f"from 2 to {most}.\n\n"
                     "Examples\n--------\n>>> bounded_resample_count(9, 'x')('5')\n5\n")
    parse.bad_examples = (*resample_count.bad_examples, str(most + 1))
    return parse
confidence_level.bad_examples = ("0", "1", "1.5", "-0.5", "nan", "inf", "95%", "")
gibibytes.bad_examples = ("0", "-1", "nan", "inf", "lots", "1e-9", "")


def add_resampling_options(parser: argparse.ArgumentParser, *, observer_level: str = "none",
                           interval: bool = True, resamples_type=resample_count) -> None:
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
    resamples_type : callable
        argparse type of ``--resamples`` (e.g. :func:`bounded_resample_count` where every resample refits).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_resampling_options(parser, observer_level="jackknife")
    >>> args = parser.parse_args(["--resamples", "500"])
    >>> args.resamples, args.level, args.observer_level, args.seed
    (500, 0.95, 'jackknife', 0)
    """
    parser.add_argument("--seed", type=seed_value, default=0, help="random seed (same seed, same numbers)")
    parser.add_argument("--resamples", type=resamples_type, default=DEFAULT_RESAMPLES,
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


OUT_HELP = ("folder for tables and figures; the run's record humanlike-manifest.json (command, settings, "
            "every file with its sha256, 'complete': true) is written last")


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
    parser.add_argument("--out", type=Path, default=out_default, help=OUT_HELP)
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s; JSON tables are NAME.table.json)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


# Options that name output files other than --out, checked before any work.
OUTPUT_FILE_OPTIONS = ("figure", "table")
NOT_OPTIONS = ("handler", "argv", "demo_results")


def command_line(args) -> str:
    """The command line of a parsed run (as typed, where :func:`humanlike.presentation.cli.main` kept it).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line; ``args.argv`` holds the arguments as typed, if kept.

    Returns
    -------
    str
        The shell-quoted command line, or ``humanlike COMMAND`` when the arguments were not kept.

    Examples
    --------
    >>> import argparse
    >>> command_line(argparse.Namespace(argv=["demo", "--out", "my results"]))
    "humanlike demo --out 'my results'"
    >>> command_line(argparse.Namespace(command="demo"))
    'humanlike demo'
    """
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
        The run's outputs, writing into ``out`` (nothing is written yet).

    Raises
    ------
    OSError
        For an output folder or file option that cannot be written (checked before any work).

    Examples
    --------
    >>> import argparse, tempfile
    >>> from pathlib import Path
    >>> out = Path(tempfile.mkdtemp()) / "run"
    >>> run = run_outputs(argparse.Namespace(out=out, argv=["demo"], format="csv"), settings={"seed": 0})
    >>> run.command, run.out_dir.name, run.options["format"], run.settings
    ('humanlike demo', 'run', 'csv', {'seed': 0})
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


def demo_outputs(args) -> RunOutputs:
    """The demo's :class:`~humanlike.presentation.io.RunOutputs` (kept on ``args``), for the families'
    ``demo_extras``; one is made for ``args.out`` when they are called on their own.

    Parameters
    ----------
    args : argparse.Namespace
        The demo's parsed command line (``args.out``; ``args.run_outputs`` once made).

    Returns
    -------
    RunOutputs
        The same object on every call for the same ``args``.

    Examples
    --------
    >>> import argparse
    >>> args = argparse.Namespace(out=None)
    >>> demo_outputs(args) is demo_outputs(args) is args.run_outputs
    True
    """
    run = getattr(args, "run_outputs", None)
    if run is None:
        run = args.run_outputs = RunOutputs(args.out)
    return run


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
    from ..data.schema import validate_trials
    from ..web.sources import read_sources  # also a `humanlike serve` study folder or database URL

    return read_sources(paths, load_trials, validate_trials)


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
