"""The ``benchmark`` command: model-vs-human's benchmark (error consistency, OOD accuracy, the ranking and the
leaderboard, :func:`humanlike.measures.ec.benchmark.run_benchmark`) with decision-margin consistency beside EC
for the models with margins. It joins two measures' rows, so it is a cross-measure tool of its own: neither
measure imports the other for it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..ec.cli import add_ec_options, ec_choices, ec_settings, format_overall
from ..options import (
    StageProgress, add_data_options, emit_json, exclusions_of, exclusions_record, load_data_with_sources,
    record_sources, run_outputs, with_sources,
)
from ...resampling.settings import ResamplingSettings


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - nothing to plan
    """Register ``humanlike benchmark`` on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (none here).
    name : str
        The command's name: the registered entry's.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> register(sub, None, "benchmark")
    >>> sorted(sub.choices)
    ['benchmark']
    """
    bench = sub.add_parser(name, help="the model-vs-human benchmark with bootstrap intervals")
    bench.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_data_options(bench)
    add_ec_options(bench)
    bench.set_defaults(handler=run_benchmark_command)


def with_dmc_rows(result, trials, args, exclusions, shared=None):
    """The benchmark rows gain decision-margin consistency beside EC (models with margins only).

    The DMC result is left in ``shared["dmc"]`` when a dict is given (the demo's results), so the demo's DMC part
    and its report page reuse it.

    Parameters
    ----------
    result : BenchmarkResult
        The benchmark.
    trials : pandas.DataFrame
        Its trial table (DMC needs a ``decision_margin`` column; without one the result is returned as it is).
    args : argparse.Namespace
        The command line (``resamples``, ``level``, ``seed``, ``quiet``).
    exclusions : dict or None
        The benchmark's exclusions, applied to DMC too.
    shared : dict, optional
        Where the DMC result is left (``"dmc"``) for others to reuse.

    Returns
    -------
    BenchmarkResult
        The result whose rows gain DMC rows for the models with margins.

    Examples
    --------
    >>> import argparse
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=3, n_items=24)
    >>> trials = trials[trials["experiment"] == "sim-blur"]
    >>> args = argparse.Namespace(resamples=0, level=0.95, seed=0, quiet=True)
    >>> rows = with_dmc_rows(run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=0)), trials, args, None).rows
    >>> "decision_margin_consistency" in set(rows["metric"])
    True
    """
    from dataclasses import replace

    if "decision_margin" not in trials:
        return result
    from ..dmc.analysis import decision_margin_consistency
    from ..dmc.cli import dmc_benchmark_rows, dmc_cli_settings
    from ...trials.schema import TrialTableError

    try:
        # every resampling option the user gave (DMC's own observer jackknife unless --observer-level is given)
        dmc = decision_margin_consistency(trials, exclusions=exclusions, settings=dmc_cli_settings(args, beside=True))
    except TrialTableError:
        return result
    if shared is not None:
        shared["dmc"] = dmc
    extra = dmc_benchmark_rows(trials, exclusions=exclusions, result=dmc)
    if extra.empty:
        return result
    return replace(result, rows=pd.concat([result.rows, extra], ignore_index=True))


def run_benchmark_command(args) -> int:
    """Handle ``humanlike benchmark`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['benchmark', 'raw-data/']).handler is run_benchmark_command
    True
    """
    from ..ec.benchmark import run_benchmark

    run = run_outputs(args, {**ec_settings(args).to_dict(), "exclusions": exclusions_record(args)})
    progress = StageProgress(args, "benchmark", ["load data", "error consistency", "decision margins", "write"])
    try:
        progress.stage("load data")
        trials, sources = load_data_with_sources(args.data, args)   # validated by the loader
        policy, p_value = ec_choices(args)
        progress.stage("error consistency")
        result = run_benchmark(trials, exclusions=exclusions_of(args), settings=ec_settings(args), policy=policy,
                               p_value=p_value, validate=False)
        progress.stage("decision margins")
        result = with_dmc_rows(result, trials, args, exclusions=exclusions_of(args))
        progress.stage("write")
        board = _leaderboard_or_none(result)
        document = with_sources(result.to_json_dict(), sources)
        if board is not None:
            document["leaderboard"] = board.to_json_dict()
        if args.out is not None:
            run.add_table(result.rows, "benchmark", args.format)
            run.add_table(result.details.pairs, "pairs", args.format)
            if result.ranking is not None:
                run.add_table(result.ranking.to_frame(), "ranking", args.format)
            if board is not None:
                run.add_table(board.table, "leaderboard", args.format)
                run.add_table(board.ood_table, "leaderboard_ood", args.format)
            record_sources(run, sources, args.format)
            run.json(document, args.out / "benchmark.json")
        if args.figure is not None:
            from ..ec.plot import benchmark_figure

            run.figure(benchmark_figure(result), args.figure)
        run.finish()
    finally:
        progress.close()
    if args.json:
        emit_json(document)
    else:
        print(format_overall(result))
        if board is not None:
            from ..ec.leaderboard_view import format_leaderboard

            print()
            print(format_leaderboard(board))
    return 0


def _leaderboard_or_none(result):
    """model-vs-human's leaderboard of a benchmark result; None when it has no model to rank."""
    from ..ec.leaderboard import leaderboard

    try:
        return leaderboard(result)
    except ValueError:
        return None
