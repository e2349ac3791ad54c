"""``humanlike compare``: is model A more human-like than model B? (docs/compare.md)."""

from __future__ import annotations

import argparse
import warnings
from dataclasses import replace
from pathlib import Path

from ..stats.comparison import CORRECTIONS, NORMALISATIONS
from .options import (
    add_output_options, add_resampling_options, emit_json, load_data, resampling_settings, run_outputs,
)

#: Each measure's default ``--observer-level`` (the same as its own command's).
OBSERVER_LEVEL_DEFAULTS = {"ec": "none", "dmc": "jackknife"}


def register(sub, plan_sub) -> None:
    """Register ``compare`` (and ``plan compare``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub)
    >>> sorted(sub.choices)
    ['compare', 'plan']
    """
    cmp = sub.add_parser(
        "compare", help="is model A more human-like than model B? paired differences, p-values, the ceiling",
        description="Every pair of models: the difference of their scores with its interval from the paired "
                    "bootstrap replicates, a bootstrap p-value of a zero difference and a correction over the "
                    "family of pairs; each model against the human ceiling, the ceiling against chance. "
                    "docs/compare.md")
    cmp.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    cmp.add_argument("--measure", choices=tuple(OBSERVER_LEVEL_DEFAULTS), required=True,
                     help="the measure whose scores are compared")
    cmp.add_argument("--models", nargs="+", metavar="MODEL",
                     help="compare only these models (the family is their pairs; default: every model)")
    cmp.add_argument("--scope", default="overall",
                     help="'overall' (mean over experiments, default) or one experiment's score")
    cmp.add_argument("--experiment", action="append", metavar="NAME",
                     help="analyse only this experiment (repeatable; default: every experiment)")
    cmp.add_argument("--condition", help="one condition (default: mean over the experiment's conditions)")
    cmp.add_argument("--correction", choices=CORRECTIONS, default="holm",
                     help="multiple-testing correction within each family (default %(default)s)")
    cmp.add_argument("--normalise", choices=NORMALISATIONS, default=None,
                     help="compare ceiling-normalised scores: 'ceiling' = score / human ceiling; 'brainscore' = "
                          "Brain-Score's ceiled EC (clip(|raw|/|ceiling|, 0, 1) per experiment, mean over them)")
    cmp.add_argument("--exclusions", action=argparse.BooleanOptionalAction, default=False,
                     help="drop the model-vs-human benchmark's excluded conditions first (default: keep all, "
                          "as `humanlike ec` and `humanlike dmc` do)")
    cmp.add_argument("--figure", type=Path, help="write the comparison figure here (png/pdf/svg)")
    add_resampling_options(cmp)
    cmp.set_defaults(observer_level=None)   # None: the measure's own default (OBSERVER_LEVEL_DEFAULTS)
    add_output_options(cmp, out_default=None)
    cmp.set_defaults(handler=run_compare_command)


def compare_settings(args):
    """The resampling settings of a ``compare`` command line (the measure's default observer level).

    Parameters
    ----------
    args : argparse.Namespace
        A parsed ``compare`` command line.

    Returns
    -------
    ResamplingSettings

    Examples
    --------
    >>> from humanlike.presentation.cli import build_parser
    >>> compare_settings(build_parser().parse_args(["compare", "d/", "--measure", "dmc"])).observer_level
    'jackknife'
    """
    settings = resampling_settings(argparse.Namespace(**{**vars(args), "observer_level": "none"}))
    level = args.observer_level or OBSERVER_LEVEL_DEFAULTS[args.measure]
    return replace(settings, observer_level=level)


def measure_result(trials, measure: str, settings, *, exclusions, experiments=None, condition=None):
    """The measure's result on a trial table, with the replicates the comparison needs.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    measure : {"ec", "dmc"}
        The measure.
    settings : ResamplingSettings
        Resampling settings.
    exclusions : dict or None
        Conditions to drop first.
    experiments : list of str, optional
        Experiments to analyse.
    condition : str, optional
        One condition.

    Returns
    -------
    ErrorConsistencyResult or DMCResult
    """
    if measure == "ec":
        from ..analyses.errorconsistency import error_consistency

        return error_consistency(trials, experiments=experiments, condition=condition, exclusions=exclusions,
                                 settings=settings, validate=False)
    from ..analyses.dmc import decision_margin_consistency

    return decision_margin_consistency(trials, experiments=experiments, condition=condition, exclusions=exclusions,
                                       settings=settings, validate=False)


def run_compare_command(args) -> int:
    """Handle ``humanlike compare`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        0 on success; bad input raises and :func:`humanlike.presentation.cli.main` exits 2 with one line.

    Examples
    --------
    >>> from humanlike.presentation.cli import build_parser
    >>> build_parser().parse_args(["compare", "raw/", "--measure", "ec"]).handler is run_compare_command
    True
    """
    from ..analyses.compare import compare
    from ..analyses.errorconsistency import MODELVSHUMAN_EXCLUSIONS

    settings = compare_settings(args)
    if settings.n_resamples < 2:
        raise ValueError("compare needs bootstrap replicates: --resamples must be at least 2")
    run = run_outputs(args, settings)
    trials = load_data(args.data)
    exclusions = MODELVSHUMAN_EXCLUSIONS if args.exclusions else None
    result = measure_result(trials, args.measure, settings, exclusions=exclusions, experiments=args.experiment,
                            condition=args.condition)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        comparison = compare(result, models=args.models, correction=args.correction, level=args.level,
                             normalise=args.normalise, scope=args.scope,
                             trials=trials if args.measure == "ec" else None)
    doc = comparison.to_json_dict()
    doc["settings"]["exclusions"] = "model-vs-human" if exclusions else "none"
    if args.out is not None:
        run.add_table(comparison.to_frame(), "compare_pairs", args.format)
        run.add_table(comparison.scores, "compare_scores", args.format)
        run.json(doc, args.out / "compare.json")
    if args.figure is not None:
        from .plots_compare import comparison_figure

        run.figure(comparison_figure(comparison), args.figure)
    run.finish()
    if args.json:
        emit_json(doc)
        return 0
    print(format_comparison(comparison))
    return 0


def _num(value, digits: int = 3) -> str:
    return "  n/a" if value != value else f"{value:+.{digits}f}"


def format_comparison(comparison) -> str:
    """The comparison as text: scores with letters, resolved and unresolved pairs, models vs the ceiling.

    Parameters
    ----------
    comparison : ComparisonResult
        From :func:`humanlike.analyses.compare.compare`.

    Returns
    -------
    str
        Lines of text.
    """
    s = comparison.settings
    lines = [f"{s['measure']} ({s['scope']}), {s['n_resamples']} paired resamples, level {s['level']}, "
             f"correction {s['correction']}" + (f", normalised: {s['normalise']}" if s["normalise"] else "")]
    c = comparison.ceiling
    lines.append(f"human ceiling {_num(c['estimate'])} [{_num(c['ci_low'])}, {_num(c['ci_high'])}]")
    lines.append("")
    lines.append("models by score (models sharing a letter are not resolved from one another):")
    norm = s["normalise"] is not None
    for row in comparison.scores.itertuples(index=False):
        extra = (f"   normalised {_num(row.normalised)} [{_num(row.normalised_low)}, {_num(row.normalised_high)}]"
                 if norm else "")
        lines.append(f"  {row.rank:>3}. {row.model:<28} {_num(row.estimate)} [{_num(row.ci_low)}, "
                     f"{_num(row.ci_high)}]  {row.letters:<6}{extra}")
    frame = comparison.to_frame()
    for family, rows in frame.groupby("family", sort=False):
        lines.append("")
        lines.append(f"{family}, {rows['test'].iloc[0]}:")
        for row in rows.itertuples(index=False):
            mark = "resolved" if row.resolved else "not resolved"
            interval = (f" [{_num(row.ci_low)}, {_num(row.ci_high)}]" if row.ci_low == row.ci_low else "")
            lines.append(f"  {row.model_a} - {row.model_b}: {_num(row.difference)}{interval}  "
                         f"p {row.p_value:.4f}, adjusted {row.p_adjusted:.4f}  {mark}")
    notes = s.get("notes") or []
    lines += ["", *[f"note: {n}" for n in notes]] if notes else []
    return "\n".join(lines)
