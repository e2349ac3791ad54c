"""Options every command shares, and the one place they become settings.

Every command that resamples takes the same ``--seed/--resamples/--level/--interval/--observer-level/
--memory-budget`` options with the same defaults, and :func:`resampling_settings` turns them into the one
:class:`~humanlike.resampling.settings.ResamplingSettings` that travels to the engine and into every output.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from pathlib import Path

from ..resampling.results import INTERVAL_METHODS, ITEM_JACKKNIFE_INTERVALS
from ..resampling.settings import (DEFAULT_MEMORY_BUDGET, DEFAULT_RESAMPLES, OBSERVER_LEVELS, ResamplingSettings,
                                   with_own_interval)
from ..files import RunOutputs, check_output_folder, to_json_text

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


OBSERVER_LEVEL_HELP = ("how the human observers enter the intervals: none (items only), bootstrap (two-level) or "
                       "jackknife (default: the measure's own: jackknife for decision-margin consistency, "
                       "bootstrap for the human summaries of shapebias and psychometrics, none for the others)")
#: Commands whose ``--resamples`` default differs, and why (the common parser test reads this).
RESAMPLES_DEFAULT_EXCEPTIONS = {
    "mlds": (0, "every resample refits the scale (parametric bootstrap)"),
    "psychscore": (1000, "every resample refits every scale of every observer (~1e6 GLM fits per 1,000)"),
}
# `plan compare --resamples` is another idea (the bootstrap of each of its hundreds of simulated data sets):
# tests/app/test_shared_options.py declares it as different on purpose.
EXCLUSIONS_HELP = ("apply the model-vs-human exclusion table (the conditions the published benchmark leaves out; "
                   "default: on; it touches only the model-vs-human experiments); --no-exclusions keeps every "
                   "condition")


class ExclusionsOption(argparse.BooleanOptionalAction):
    """``--exclusions/--no-exclusions`` that also records that the user gave one (``exclusions_given``), as
    typed or abbreviated, so a command can tell the default from a request (``compare --measure
    ood-alignment`` refuses a request it cannot honour).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--exclusions", action=ExclusionsOption, default=True)
    >>> args = parser.parse_args(["--no-exclusions"])
    >>> args.exclusions, args.exclusions_given
    (False, True)
    """

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        namespace.exclusions_given = True


def add_exclusion_options(parser: argparse.ArgumentParser) -> None:
    """``--exclusions/--no-exclusions``: the model-vs-human exclusion table, on by default in every command.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_exclusion_options(parser)
    >>> parser.parse_args([]).exclusions, parser.parse_args(["--no-exclusions"]).exclusions
    (True, False)
    >>> parser.parse_args([]).exclusions_given, parser.parse_args(["--exclusion"]).exclusions_given
    (False, True)
    """
    parser.add_argument("--exclusions", action=ExclusionsOption, default=True, help=EXCLUSIONS_HELP)
    parser.set_defaults(exclusions_given=False)


def exclusions_of(args) -> dict | None:
    """The exclusion table a parsed command line asks for (None: keep every condition).

    Parameters
    ----------
    args : argparse.Namespace
        Parsed with :func:`add_exclusion_options`.

    Returns
    -------
    dict or None
        :data:`~humanlike.trials.selection.MODELVSHUMAN_EXCLUSIONS`, or None for ``--no-exclusions``.

    Examples
    --------
    >>> import argparse
    >>> exclusions_of(argparse.Namespace(exclusions=False)) is None
    True
    """
    from ..trials.selection import MODELVSHUMAN_EXCLUSIONS

    return MODELVSHUMAN_EXCLUSIONS if getattr(args, "exclusions", True) else None


def exclusions_record(args) -> str:
    """What the outputs record about the exclusions: ``"model-vs-human"`` or ``"none"``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed with :func:`add_exclusion_options`.

    Returns
    -------
    str

    Examples
    --------
    >>> import argparse
    >>> exclusions_record(argparse.Namespace(exclusions=True))
    'model-vs-human'
    """
    return "model-vs-human" if getattr(args, "exclusions", True) else "none"


def add_seed_option(parser: argparse.ArgumentParser) -> None:
    """``--seed``, spelled, typed and explained the same in every command (the planning ones included).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_seed_option(parser)
    >>> parser.parse_args(["--seed", "3"]).seed
    3
    """
    parser.add_argument("--seed", type=seed_value, default=0, help="random seed (same seed, same numbers)")


def add_level_option(parser: argparse.ArgumentParser) -> None:
    """``--level``, the confidence level of every interval, the same in every command.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_level_option(parser)
    >>> parser.parse_args([]).level
    0.95
    """
    parser.add_argument("--level", type=confidence_level, default=0.95, help="confidence level (default %(default)s)")


def add_resampling_options(parser: argparse.ArgumentParser, *, interval: bool = True, observer_level: bool = True,
                           workers: bool = True, memory_budget: bool = True, resamples_type=resample_count,
                           resamples_default: int = DEFAULT_RESAMPLES) -> None:
    """The resampling options, with one default number of resamples for every command.

    ``--seed``, ``--resamples``, ``--level``, ``--interval`` (unless ``interval=False``), ``--observer-level``,
    ``--memory-budget`` and ``--workers``; :func:`resampling_settings` turns them into one settings object.
    ``--observer-level`` defaults to None, "the measure's own" (jackknife for decision-margin consistency,
    none for the others), which :func:`resampling_settings` resolves.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.
    interval, observer_level, workers, memory_budget : bool
        Offer ``--interval`` (percentile or BCa), ``--observer-level``, ``--workers`` and ``--memory-budget``
        (a command whose resampling has no such choice leaves the option out rather than ignore it).
    resamples_type : callable
        argparse type of ``--resamples`` (e.g. :func:`bounded_resample_count` where every resample refits).
    resamples_default : int
        Default of ``--resamples``: :data:`DEFAULT_RESAMPLES` everywhere except where each resample refits a
        model (``mlds``: 0, ``psychscore``: 1,000; declared in :data:`RESAMPLES_DEFAULT_EXCEPTIONS`).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_resampling_options(parser)
    >>> args = parser.parse_args(["--resamples", "500"])
    >>> args.resamples, args.level, args.observer_level, args.seed
    (500, 0.95, None, 0)
    """
    add_seed_option(parser)
    parser.add_argument("--resamples", type=resamples_type, default=resamples_default,
                        help="bootstrap resamples; 0 for estimates only (default %(default)s)")
    add_level_option(parser)
    if interval:
        parser.add_argument("--interval", choices=INTERVAL_METHODS, default=None, help=INTERVAL_HELP)
    if observer_level:
        parser.add_argument("--observer-level", choices=OBSERVER_LEVELS, default=None, help=OBSERVER_LEVEL_HELP)
    if memory_budget:
        parser.add_argument("--memory-budget", type=gibibytes, default=DEFAULT_MEMORY_BUDGET,
                            metavar="GIB", help="memory the resampling may use, in GiB (default 2)")
    if workers:
        parser.add_argument("--workers", type=positive_count, default=None, metavar="N",
                            help="threads that evaluate strata side by side (default: one per available core; "
                                 "never changes a number)")


#: ``--interval``'s help: its default is each measure's own (:attr:`humanlike.measures.contract.Measure.interval`).
INTERVAL_HELP = ("interval method (default: the measure's own: jackknife-t for error consistency, whose averages "
                 "the percentile interval under-covers; percentile for the others)")


def resampling_settings(args, observer_level: str = "none", interval: str = "percentile") -> ResamplingSettings:
    """The settings object of a parsed command line.

    Parameters
    ----------
    args : argparse.Namespace
        A command line parsed with :func:`add_resampling_options` (missing options take their defaults).
    observer_level : {"none", "bootstrap", "jackknife"}
        The measure's own observer level, used where ``--observer-level`` is not given (DMC: jackknife).
    interval : {"percentile", "bca", "jackknife", "jackknife-t"}
        The measure's own interval method, used where ``--interval`` is not given
        (:attr:`humanlike.measures.contract.Measure.interval`; EC: jackknife-t), unless it is an item-jackknife
        interval and the observers are resampled (then percentile: :func:`~humanlike.resampling.settings.
        with_own_interval`).

    Returns
    -------
    ResamplingSettings
        The one settings object the analyses take.

    Raises
    ------
    ValueError
        For a negative ``--seed``, or ``--interval jackknife|jackknife-t`` with resampled observers.

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
    chosen = getattr(args, "interval", None)
    observers = getattr(args, "observer_level", None) or observer_level
    if chosen in ITEM_JACKKNIFE_INTERVALS and observers != "none":
        raise ValueError(f"--interval {chosen} comes from the item jackknife alone and would ignore --observer-level "
                         f"{observers} (for this measure the default): add --observer-level none, or use --interval "
                         f"percentile or bca")
    settings = ResamplingSettings(n_resamples=args.resamples, level=args.level, interval=chosen or "percentile",
                                  observer_level=observers, seed=args.seed,
                                  memory_budget=getattr(args, "memory_budget", DEFAULT_MEMORY_BUDGET),
                                  progress=show_progress(args), workers=getattr(args, "workers", None))
    return settings if chosen else with_own_interval(settings, interval)


def interval_record(args) -> str:
    """What a run of several measures records as its interval: the one chosen, or each measure's own.

    Parameters
    ----------
    args : argparse.Namespace
        A parsed command line (``--interval`` may be absent or None).

    Returns
    -------
    str

    Examples
    --------
    >>> import argparse
    >>> interval_record(argparse.Namespace(interval=None)), interval_record(argparse.Namespace(interval="bca"))
    ("each measure's own (ec: jackknife-t; the others: percentile)", 'bca')
    """
    from .registry import measures

    chosen = getattr(args, "interval", None)
    own = "; ".join(f"{m.name}: {m.interval}" for m in measures() if m.interval != "percentile")
    return chosen or f"each measure's own ({own}; the others: percentile)"


OUT_HELP = ("folder for tables and figures; the run's record humanlike-manifest.json (command, settings, "
            "every file with its sha256, 'complete': true) is written last")


def output_path(text: str) -> Path:
    """argparse type of ``--out`` (and other output paths): a path, never empty.

    An empty value would resolve to the current folder and scatter the outputs there.

    Parameters
    ----------
    text : str
        The value given.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    argparse.ArgumentTypeError
        For an empty or blank value.

    Examples
    --------
    >>> output_path("results")
    PosixPath('results')
    >>> output_path("")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: an empty path would write into the current folder; name a folder or file
    """
    if not str(text).strip():
        raise argparse.ArgumentTypeError("an empty path would write into the current folder; name a folder or file")
    return Path(text)


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
    parser.add_argument("--out", type=output_path, default=out_default, help=OUT_HELP)
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s; JSON tables are NAME.table.json)")
    add_json_option(parser)
    add_quiet_option(parser)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result as JSON on stdout (the same words in every command).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_json_option(parser)
    >>> parser.parse_args(["--json"]).json
    True
    """
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bars (the same words in every command).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_quiet_option(parser)
    >>> parser.parse_args([]).quiet
    False
    """
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


# Options that name output files other than --out, checked before any work.
OUTPUT_FILE_OPTIONS = ("figure",)
NOT_OPTIONS = ("handler", "argv", "demo_results", "exclusions_given")


def command_line(args) -> str:
    """The command line of a parsed run (as typed, where :func:`humanlike.app.cli.main` kept it).

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
    """The :class:`~humanlike.files.RunOutputs` of a command: every file of the run goes through it
    and its manifest is written last (``run.finish()``) into ``--out``.

    The output folder and every output file option (``--figure``, ``--figures``) are checked
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
    """The demo's :class:`~humanlike.files.RunOutputs` (kept on ``args``), for the families'
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


class StageProgress:
    """A progress bar over the stages of a long command (``demo``, ``benchmark``, ``report``): shown on a
    terminal, silent in a pipe or with ``--quiet`` (:func:`show_progress`); the bootstrap's own bar
    (:func:`humanlike.resampling.engine.progress_bar`) runs beneath it during a stage.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``--quiet``).
    command : str
        The command's name, shown before the stage.
    stages : list of str
        The stages, in order.

    Examples
    --------
    >>> progress = StageProgress(argparse.Namespace(quiet=True), "report", ["load data", "ec"])
    >>> progress.stage("load data"); progress.stage("ec"); progress.close()
    >>> progress.done
    ['load data', 'ec']
    """

    def __init__(self, args, command: str, stages: list[str]):
        from ..resampling.engine import progress_bar

        self.command, self.stages, self.done = command, list(stages), []
        self._bar = progress_bar(len(self.stages), show_progress(args), command, unit="step")

    def stage(self, name: str) -> None:
        """Start stage ``name`` (the previous one counts as finished).

        Parameters
        ----------
        name : str
            One of the stages.
        """
        if self.done:
            self._bar.update(1)
        self.done.append(name)
        self._bar.set_description(f"{self.command}: {name}")

    def close(self) -> None:
        """Finish the last stage and remove the bar."""
        if self.done:
            self._bar.update(1)
        self._bar.close()


def emit_json(obj) -> None:
    """Print ``obj`` as JSON on standard output (NaN and inf as null).

    Parameters
    ----------
    obj : object
        Anything :func:`humanlike.files.to_json_text` takes.

    Examples
    --------
    >>> emit_json({"estimate": float("nan")})
    {
      "estimate": null
    }
    """
    sys.stdout.write(to_json_text(obj) + "\n")


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that loads trial tables: ``--humans`` and ``--labels``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_data_options(parser)
    >>> args = parser.parse_args(["--humans", "alice", "P*", "--labels", "left", "right", "up"])
    >>> args.humans, args.labels
    (['alice', 'P*'], ['left', 'right', 'up'])
    """
    parser.add_argument("--humans", nargs="+", metavar="NAME",
                        help="the human observers: names or shell patterns ('P*'); every other observer is a "
                             "model (default: recognised from raw file names, or the observer_kind column)")
    parser.add_argument("--labels", nargs="+", metavar="LABEL",
                        help="the task's response options (e.g. a 3-AFC task: --labels A B C), or one file with "
                             "one label per line (default: the labels the items have)")


def data_labels(values):
    """The label set of ``--labels``: the values, or the lines of the one file given (blank lines skipped).

    Parameters
    ----------
    values : list of str or None
        The option's values.

    Returns
    -------
    list of str or None

    Raises
    ------
    argparse.ArgumentTypeError
        For a file without labels.

    Examples
    --------
    >>> data_labels(["A", "B", "C"]), data_labels(None)
    (['A', 'B', 'C'], None)
    """
    if not values:
        return None
    if len(values) == 1 and Path(values[0]).is_file():
        labels = [line.strip() for line in Path(values[0]).read_text(encoding="utf-8").splitlines() if line.strip()]
        if not labels:
            raise argparse.ArgumentTypeError(f"--labels: {values[0]} holds no label (one per line)")
        return labels
    return list(values)


def load_data(paths, args=None, run=None, fmt: str = "csv"):
    """The trial table of the DATA arguments of a command (folders or files, aligned).

    Parameters
    ----------
    paths : path-like or list of path-like
        Raw-data folders or tidy trial files (:func:`humanlike.trials.loaders.load_trials`).
    args : argparse.Namespace, optional
        The command's options: ``--humans`` and ``--labels`` (:func:`add_data_options`) and ``--on-conflict``
        (:func:`add_on_conflict_option`) where present.
    run : RunOutputs, optional
        The command's outputs: the sources table (where each observer came from) is written into its folder
        (:func:`record_sources`).
    fmt : {"csv", "parquet", "json"}
        Format of that table.

    Returns
    -------
    pandas.DataFrame
        The validated trial table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> simulate_benchmark(seed=0, n_humans=2, n_items=16).to_csv(path, index=False)
    >>> trials = load_data([path])
    >>> sorted(trials["observer_kind"].unique())
    ['human', 'model']
    """
    trials, sources = load_data_with_sources(paths, args)
    record_sources(run, sources, fmt)
    return trials


def optional_module(name: str):
    """A command module of this package, or None when it is absent (optional command families).

    Parameters
    ----------
    name : str
        Module path within :mod:`humanlike` (e.g. ``"measures.ood.cli"``).

    Returns
    -------
    module or None
        The module; None only when that module itself is missing (an import error inside it is raised).

    Examples
    --------
    >>> optional_module("measures.mlds.cli").__name__, optional_module("measures.no_such_family.cli")
    ('humanlike.measures.mlds.cli', None)
    """
    try:
        return importlib.import_module(f"humanlike.{name}")
    except ModuleNotFoundError as err:
        wanted = f"humanlike.{name}"
        if err.name != wanted and not wanted.startswith(f"{err.name}."):  # a missing package of that path
            raise
        return None


ON_CONFLICT_HELP = ("an observer name found in two DATA sources: prefer-margins (default: between raw-data "
                    "folders the one with decision margins; a model of an evaluation folder whose name is taken is "
                    "kept apart as NAME@FOLDER), rename (keep both, later sources as NAME@FOLDER), first, last "
                    "(keep that source's observer), error (refuse)")


def add_on_conflict_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--on-conflict`` (what to do with an observer name found in two DATA sources).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command that reads DATA.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_on_conflict_option(parser)
    >>> parser.parse_args(["--on-conflict", "rename"]).on_conflict
    'rename'
    """
    from ..trials.sources import ON_CONFLICT

    parser.add_argument("--on-conflict", choices=ON_CONFLICT, default="prefer-margins", help=ON_CONFLICT_HELP)


def record_sources(run, sources, fmt: str = "csv") -> None:
    """Write the DATA's sources table (where each observer came from) as ``sources`` into the run's folder.

    Parameters
    ----------
    run : RunOutputs or None
        The command's outputs (nothing is written without an output folder).
    sources : pandas.DataFrame
        From :func:`load_data_with_sources`.
    fmt : {"csv", "parquet", "json"}
        The table format.

    Examples
    --------
    >>> import pandas as pd
    >>> record_sources(None, pd.DataFrame())  # no run, no folder: nothing to write
    """
    if run is not None and getattr(run, "out_dir", None) is not None:
        run.add_table(sources, "sources", fmt)


def with_sources(doc: dict, sources) -> dict:
    """A command's JSON document with ``"sources"``: per observer and source, where it came from (folder or
    file, file digest, model, weights) and the experiments it was scored on.

    Parameters
    ----------
    doc : dict
        The JSON document.
    sources : pandas.DataFrame
        From :func:`load_data_with_sources`.

    Returns
    -------
    dict
        ``doc`` with the ``sources`` records added.

    Examples
    --------
    >>> import pandas as pd
    >>> with_sources({"a": 1}, pd.DataFrame({"observer": ["net"], "experiments": ["edge;sketch"]}))
    {'a': 1, 'sources': [{'observer': 'net', 'experiments': ['edge', 'sketch']}]}
    """
    records = sources.to_dict("records")
    for record in records:
        if "experiments" in record:
            record["experiments"] = [e for e in str(record["experiments"]).split(";") if e]
    return {**doc, "sources": records}


def load_data_with_sources(paths, args=None):
    """The trial table of the DATA arguments and where each observer came from.

    Parameters
    ----------
    paths : path-like or list of path-like
        Raw-data folders, tidy trial files, evaluation folders.
    args : argparse.Namespace, optional
        The command's options: ``--humans``, ``--labels`` (:func:`add_data_options`) and ``--on-conflict``
        (:func:`add_on_conflict_option`) where present.

    Returns
    -------
    trials : pandas.DataFrame
        The validated trial table.
    sources : pandas.DataFrame
        :func:`humanlike.trials.sources.sources_table`: source, file digest, model, experiments of each observer.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> simulate_benchmark(seed=0, n_humans=2, n_items=16).to_csv(path, index=False)
    >>> trials, sources = load_data_with_sources([path])
    >>> sources["source_kind"].unique().tolist()
    ['trial file']
    """
    from ..trials.loaders import load_trials_with_sources
    from ..web.sources import looks_like_study, read_sources  # light: the web extra only for a study

    options = dict(on_conflict=getattr(args, "on_conflict", "prefer-margins"), humans=getattr(args, "humans", None),
                   labels=data_labels(getattr(args, "labels", None)))
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not any(looks_like_study(p) for p in paths):
        return load_trials_with_sources(paths, **options)
    # `humanlike serve` studies (a study folder or its database URL) beside ordinary sources
    import pandas as pd

    from ..trials.schema import validate_trials

    rest = [p for p in paths if not looks_like_study(p)]
    tables = [load_trials_with_sources(rest, **options)] if rest else []
    trials = read_sources(paths, lambda _: tables[0][0], validate_trials)
    study = trials[~trials["observer"].isin(tables[0][0]["observer"])] if tables else trials
    study_sources = (study.groupby("observer", observed=True)["experiment"]
                     .agg(lambda e: ";".join(sorted(set(map(str, e))))).rename("experiments").reset_index()
                     .assign(source_kind="serve study",
                             source=", ".join(str(p) for p in paths if looks_like_study(p))))
    return trials, pd.concat([*(t[1] for t in tables), study_sources], ignore_index=True)
