"""The ``humanlike psychfit`` command: psychometric functions per observer and experiment, with intervals."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..options import (add_data_options, add_output_options, add_resampling_options, emit_json, float_in, load_data,
                       resampling_settings, run_outputs)


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - no planning command for this family
    """Register ``humanlike psychfit`` on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (none here).
    name : str
        The command's name: the registered entry's (``humanlike <name>``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> register(sub, None, "psychfit")
    >>> args = parser.parse_args(["psychfit", "raw-data/", "--experiment", "contrast", "--level", "0.75"])
    >>> args.experiment, args.level, args.sigmoid, args.handler.__name__
    (['contrast'], 0.75, 'weibull', 'run_psychfit_command')
    """
    p = sub.add_parser(name, help="psychometric functions (threshold, slope, lapse; guess fixed) per observer "
                                        "and experiment whose conditions are stimulus levels, humans beside models, "
                                        "with bootstrap intervals")
    p.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_data_options(p)   # --humans, --labels, --mapping: as every command that reads trials
    add_resampling_options(p)
    # --level of the resampling options is the confidence level; the performance level has its own name
    add_output_options(p, out_default=None)
    p.add_argument("--experiment", action="append", help="only this experiment (repeatable; default: all)")
    p.add_argument("--performance", type=float_in(0, 1, open_low=True, open_high=True), default=0.5,
                   help="the performance level that defines the threshold (default %(default)s)")
    p.add_argument("--level-of", choices=("accuracy", "sigmoid"), default="accuracy",
                   help="--performance as proportion correct (default) or as the sigmoid's value (psignifit's "
                        "threshPC)")
    p.add_argument("--sigmoid", choices=("weibull", "logistic", "gaussian"), default="weibull",
                   help="the sigmoid (default %(default)s: Weibull in log space, Gumbel in linear space)")
    p.add_argument("--space", choices=("auto", "log", "linear"), default="auto",
                   help="fitting space (default auto: log where every level is positive)")
    p.add_argument("--direction", choices=("auto", "increasing", "decreasing"), default="auto",
                   help="whether performance rises with the level (default auto: from the pooled accuracy)")
    p.add_argument("--guess", type=float_in(0, 1, open_high=True), default=None,
                   help="fixed guess rate (default 1 / number of classes)")
    p.add_argument("--max-lapse", type=float_in(0, 1, open_high=True), default=0.5,
                   help="upper bound of the lapse rate (default %(default)s)")
    p.add_argument("--figures", type=Path, help="folder for one figure per experiment (PNG)")
    p.set_defaults(handler=run_psychfit_command)


def run_psychfit_command(args) -> int:
    """Handle ``humanlike psychfit`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        0 on success; bad input raises and :func:`humanlike.app.cli.main` turns it into exit code 2.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(["psychfit", "raw-data/"]).handler is run_psychfit_command
    True
    """
    from .analysis import psychometric_fits

    settings = resampling_settings(args, observer_level="bootstrap")   # its own: humans resampled too
    run = run_outputs(args, settings)
    trials = load_data(args.data, args)   # validated by the loader, with the data options
    result = psychometric_fits(trials, settings=settings, experiments=args.experiment, sigmoid=args.sigmoid,
                               level=args.performance, level_of=args.level_of, space=args.space,
                               direction=args.direction, guess=args.guess, max_lapse=args.max_lapse, validate=False)
    if args.out is not None:
        run.add_table(result.to_frame(), "psychfit", args.format)
        run.add_table(result.resolved(), "psychfit_resolved", args.format)
        run.add_table(result.parameters, "psychfit_parameters", args.format)
        run.json(result.to_json_dict(), args.out / "psychfit.json")
    if args.figures is not None:
        import matplotlib.pyplot as plt

        from .plot import psychometric_fit_figure

        for experiment in result.experiments():
            run.figure(psychometric_fit_figure(result, experiment), args.figures / f"psychfit-{experiment}.png")
            plt.close("all")
    run.finish()
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(format_psychfit(result))
    return 0


def _cell(value, low, high, digits: int = 3) -> str:
    if not np.isfinite(value):
        return "nan"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.{digits}g}"
    return f"{value:.{digits}g} [{low:.{digits}g}, {high:.{digits}g}]"


def format_psychfit(result) -> str:
    """Per experiment: every observer's threshold, slope and lapse with intervals, and whether the threshold is
    resolved from the humans'.

    Parameters
    ----------
    result : PsychometricFitResult
        From :func:`humanlike.measures.psychfit.analysis.psychometric_fits`.

    Returns
    -------
    str

    Examples
    --------
    >>> from humanlike.measures.psychfit.analysis import psychometric_fits
    >>> from humanlike.measures.psychfit.simulate import simulate_psychometric
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = psychometric_fits(simulate_psychometric(seed=0), settings=ResamplingSettings(n_resamples=0))
    >>> print(format_psychfit(r).splitlines()[0])
    sim-contrast (log space, performance rises with the level; guess 0.0625)
    """
    s = result.settings
    ci = int(round(100 * result.resampled.level))
    resolved = result.resolved()
    lines = []
    for experiment in result.experiments():
        p = result.parameters[result.parameters["experiment"] == experiment].iloc[0]
        rising = "rises" if p["direction"] > 0 else "falls"
        lines.append(f"{experiment} ({p['space']} space, performance {rising} with the level; guess {p['guess']:.3g})")
        table = result.table(experiment)
        frame = result.to_frame()
        outside = set(frame[(frame["scope"] == experiment) & (frame["metric"] == "threshold")
                            & ~frame["within_levels"].astype(bool)]["group"])
        width = max([16] + [len(str(o)) + 2 for o in table["observer"]])
        lines.append(f"{'observer':<{width}}{'threshold':>28}{'slope':>28}{'lapse':>24}  vs humans")
        part = resolved[resolved["experiment"] == experiment].set_index("observer") if len(resolved) else None
        for r in table.to_dict("records"):
            verdict = ""
            if part is not None and r["observer"] in part.index:
                verdict = part.loc[r["observer"], "side"] or "not resolved"
            threshold = _cell(r["threshold"], r["threshold_low"], r["threshold_high"]) + (
                "*" if r["observer"] in outside else "")
            lines.append(f"{r['observer']:<{width}}{threshold:>28}"
                         f"{_cell(r['slope'], r['slope_low'], r['slope_high']):>28}"
                         f"{_cell(r['lapse'], r['lapse_low'], r['lapse_high'], 2):>24}  {verdict}")
        if outside:
            lines.append("(*: threshold outside the tested levels, extrapolated)")
        if experiment in s.get("excluded", {}):
            lines.append(f"(left out of the fit: {', '.join(s['excluded'][experiment])})")
        lines.append("")
    lines.append(f"(threshold: the level where the fitted {s['sigmoid']} function reaches {s['performance']:g} "
                 f"{'proportion correct' if s['level_of'] == 'accuracy' else 'of its sigmoid'}; slope: dp/dx there per "
                 f"unit of the fitting space; humans = every human trial pooled; [{ci}% bootstrap interval over trials"
                 + (" and humans" if s.get("observer_level") == "bootstrap" else "") + "]; vs humans: the interval of "
                 "the threshold's distance from the humans' excludes 0)")
    return "\n".join(lines)
