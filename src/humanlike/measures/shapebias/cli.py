"""The ``humanlike shapebias`` command: shape bias on cue-conflict images, with bootstrap intervals."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..options import (add_data_options, add_output_options, add_resampling_options, emit_json, load_data,
                       resampling_settings, run_outputs)


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - no planning command for this family
    """Register ``humanlike shapebias`` on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (none here).
    name : str
        The command's name: the registered entry's (``humanlike <name>``, ``humanlike plan <name>``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> register(sub, None, "shapebias")
    >>> args = parser.parse_args(["shapebias", "raw-data/"])
    >>> resampling_settings(args, observer_level="bootstrap").observer_level, args.experiment, args.handler.__name__
    ('bootstrap', 'cue-conflict', 'run_shapebias_command')
    """
    p = sub.add_parser(name, help="shape bias on cue-conflict images (Geirhos et al. 2019), with intervals")
    p.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s) with the cue-conflict "
                                                      "experiment")
    add_data_options(p)   # --humans, --labels: the messages of loading name them
    # The humans' pooled and mean shape bias get intervals over images and humans by default.
    add_resampling_options(p)
    add_output_options(p, out_default=None)
    p.add_argument("--experiment", default="cue-conflict", help="the cue-conflict experiment's name "
                                                                "(default %(default)s)")
    p.add_argument("--fractions", choices=("conflict", "model-vs-human"), default="conflict",
                   help="what the shape and texture fractions divide by: the cue-conflict trials (default) or, as "
                        "model-vs-human publishes them, every trial including the same-class images (the shape "
                        "bias is the same)")
    p.add_argument("--scope", default="overall", help="the shape class whose table is printed (default overall)")
    p.add_argument("--figure", type=Path, help="write the shape-vs-texture figure here (png/pdf/svg)")
    p.set_defaults(handler=run_shapebias_command)


def run_shapebias_command(args) -> int:
    """Handle ``humanlike shapebias`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(["shapebias", "raw-data/"]).handler is run_shapebias_command
    True
    """
    from .analysis import shape_bias_analysis

    settings = resampling_settings(args, observer_level="bootstrap")   # its own: humans resampled too
    run = run_outputs(args, settings)
    trials = load_data(args.data, args)   # validated by the loader, with --humans, --labels, --on-conflict
    result = shape_bias_analysis(trials, settings=settings, experiment=args.experiment, fractions=args.fractions,
                                 validate=False)
    scopes = set(result.settings["classes"]) | {"overall"}
    if args.scope not in scopes:
        raise ValueError(f"--scope {args.scope!r} is not a shape class of '{args.experiment}'; "
                         f"choose one of {sorted(scopes)}")
    if args.out is not None:
        run.add_table(result.observer_frame(), "shape_bias", args.format)
        run.add_table(result.human_range(), "shape_bias_human_range", args.format)
        run.add_table(result.counts, "shape_bias_counts", args.format)
        run.json(result.to_json_dict(), args.out / "shape_bias.json")
    if args.figure is not None:
        import matplotlib.pyplot as plt

        from .plot import shape_bias_figure

        figure = shape_bias_figure(result)
        run.figure(figure, args.figure)
        plt.close(figure)   # the command runs in-process in notebooks and tests: leave no figure open
    run.finish()
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(format_shape_bias(result, args.scope))
    return 0


_FRACTIONS_OVER = {"conflict": "the cue-conflict trials",
                   "model-vs-human": "every trial, same-class images too (model-vs-human)"}


def format_shape_bias(result, scope: str = "overall") -> str:
    """A readable table of one scope: every observer's shape bias with its interval, and the human range.

    Parameters
    ----------
    result : ShapeBiasResult
        From :func:`humanlike.measures.shapebias.analysis.shape_bias_analysis`.
    scope : str
        ``"overall"`` or a shape class.

    Returns
    -------
    str

    Examples
    --------
    >>> from humanlike.measures.shapebias.simulate import simulate_cue_conflict
    >>> from humanlike.measures.shapebias.analysis import shape_bias_analysis
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = shape_bias_analysis(simulate_cue_conflict(seed=0), settings=ResamplingSettings(n_resamples=0))
    >>> print(format_shape_bias(r).splitlines()[1])
    humans                    human           0.965 [nan, nan]         0.904         0.033
    """
    table = result.overall(scope)
    level = int(round(100 * result.settings["level"]))
    width = max([26] + [len(str(o)) + 2 for o in table["observer"]])
    lines = [f"{'observer':<{width}}{'kind':<8}{'shape bias':>24}{'shape dec.':>14}{'texture dec.':>14}"]
    for r in table.itertuples():
        interval = f"{r.shape_bias:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
        lines.append(f"{r.observer:<{width}}{r.observer_kind:<8}{interval:>24}{r.shape_fraction:>14.3f}"
                     f"{r.texture_fraction:>14.3f}")
    rng = result.human_range()
    rng = rng[rng["scope"] == scope]
    if not rng.empty:
        r = rng.iloc[0]
        lines.append(f"single humans ({int(r['n_humans'])}): {r['min']:.3f} ({r['min_observer']}) to "
                     f"{r['max']:.3f} ({r['max_observer']})")
    lines.append(f"({scope}; shape bias = shape / (shape + texture decisions) over cue-conflict trials whose classes "
                 f"differ; fractions over {_FRACTIONS_OVER[result.settings.get('fractions', 'conflict')]}; "
                 f"[{level}% bootstrap interval over images"
                 + (", and humans for the two human summaries" if result.settings.get("observer_level") == "bootstrap"
                    else "") + "]; 'humans' = all human trials pooled, 'human mean' = mean of each human's)")
    if not np.isfinite(table["shape_bias"]).all():
        lines.append("NaN: no shape or texture decision")
    return "\n".join(lines)
