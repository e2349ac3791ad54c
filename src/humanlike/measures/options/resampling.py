"""The resampling options every command shares, and the one place they become settings.

Every command that resamples takes the same ``--seed/--resamples/--level/--interval/--observer-level/
--memory-budget/--workers`` options with the same defaults, and :func:`resampling_settings` turns them into the
one :class:`~humanlike.resampling.settings.ResamplingSettings` that travels to the engine and into every output.
"""

from __future__ import annotations

import argparse

from ...resampling.results import INTERVAL_METHODS, ITEM_JACKKNIFE_INTERVALS
from ...resampling.settings import (DEFAULT_MEMORY_BUDGET, DEFAULT_RESAMPLES, OBSERVER_LEVELS, ResamplingSettings,
                                    with_own_interval)
from .number_types import confidence_level, gibibytes, positive_count, resample_count, seed_value
from .terminal import show_progress


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
    from ..registry import measures

    chosen = getattr(args, "interval", None)
    own = "; ".join(f"{m.name}: {m.interval}" for m in measures() if m.interval != "percentile")
    return chosen or f"each measure's own ({own}; the others: percentile)"
