"""Commands for error consistency: ``ec`` and ``plan ec``, and the options ``benchmark`` shares with ``ec``."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from .result import PAIR_INTERVALS, bootstrap_label
from .analysis import DEFAULT_SETTINGS, P_VALUE_METHODS
from ...resampling.settings import ResamplingSettings
from ..options import add_data_options
from ..options import (
    StageProgress, add_exclusion_options, add_json_option, add_level_option, add_output_options,
    add_resampling_options, add_seed_option, emit_json, exclusions_of, exclusions_record, float_in, int_at_least,
    load_data_with_sources, probability, record_sources, resampling_settings, run_outputs, with_sources,
)


# What "--preset paper" changes (README: "Reproducing the papers").
PRESETS = {
    "default": {"policy": "strict", "p_value": "exact"},
    "paper": {"policy": "model-vs-human", "p_value": "beta-posterior-published"},
}


def register(sub, plan_sub, name: str) -> None:
    """Register error consistency's commands (``ec``, ``plan ec``) on the ``humanlike`` parser (``benchmark``, which
    joins DMC's rows to EC's, is a cross-measure tool: :mod:`humanlike.measures.benchmark.cli`).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan``.
    name : str
        The command's name: the registered entry's (``humanlike <name>``, ``humanlike plan <name>``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub, "ec")
    >>> sorted(sub.choices)
    ['ec', 'plan']
    >>> sorted(plan_sub.choices)
    ['ec']
    """
    ec = sub.add_parser(name, help="pairwise error consistency per experiment, with intervals and p-values")
    ec.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_data_options(ec)
    ec.add_argument("--experiment", action="append",
                    help="experiment name (repeatable; default: every experiment)")
    ec.add_argument("--condition", help="one condition (default: mean over the experiment's conditions)")
    ec.add_argument("--pair-interval", choices=PAIR_INTERVALS, default="profile",
                    help="interval of a pair whose EC is one 2x2 table (one condition): 'profile' likelihood "
                         "(default; holds its level when errors are few, see docs/ec_coverage.md) or "
                         "'bootstrap' (--interval's method); pairs averaged over conditions and all means "
                         "use the bootstrap")
    ec.add_argument("--pool", choices=("auto", "always", "never"), default="auto",
                    help="a group's EC per condition from its pairs' pooled 2x2 table (always), or the mean of the "
                         "pairs' kappas (never); auto: pooled when a `humanlike serve` study's design (the study, "
                         "or its exported file with design.json beside it) gives pairs part of the trials "
                         "(subset, latin-square), where the mean of pair kappas on few shared "
                         "trials is biased towards 0 (docs/measures/error-consistency.md)")
    add_ec_options(ec)
    ec.set_defaults(handler=run_ec_command)

    plan = plan_sub.add_parser(name, help="trials needed for error consistency (copy model)")
    plan.add_argument("--accuracy", type=probability, nargs=2, default=(0.75, 0.75), metavar=("A1", "A2"),
                      help="accuracies of the two observers (default 0.75 0.75)")
    plan.add_argument("--kappa", type=float_in(-1, 1), default=0.3, help="true error consistency (default 0.3)")
    plan.add_argument("--trials", type=int_at_least(2), nargs="+", default=[100, 200, 400, 800, 1600, 3200],
                      help="numbers of trials to evaluate")
    plan.add_argument("--width", type=float_in(0, 2, open_low=True), help="target CI width: report the trials needed")
    plan.add_argument("--compare-kappa", type=float_in(-1, 1),
                      help="second model's EC: report the power to detect the difference")
    plan.add_argument("--compare-accuracy", type=probability, help="second model's accuracy (default: A2)")
    plan.add_argument("--power", type=probability, default=0.8, help="target power (default 0.8)")
    plan.add_argument("--alpha", type=probability, default=0.05)
    add_level_option(plan)
    plan.add_argument("--method", choices=("analytic", "simulation"), default="analytic")
    add_seed_option(plan)
    add_json_option(plan)
    plan.set_defaults(handler=run_plan_ec)


def add_ec_options(parser: argparse.ArgumentParser) -> None:
    """Add error consistency's options (resampling, exclusions, outputs, ``--policy``, ``--p-value``,
    ``--preset``, ``--two-level``, ``--figure``) to a command that computes it (``ec``, ``benchmark``).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_ec_options(parser)
    >>> args = parser.parse_args(["--preset", "paper"])
    >>> ec_choices(args)
    ('model-vs-human', 'beta-posterior-published')
    """
    add_resampling_options(parser)
    add_exclusion_options(parser)
    add_output_options(parser, out_default=None)
    parser.add_argument("--policy", choices=("strict", "model-vs-human"), default=None,
                        help="undefined kappa: 'strict' (NaN, skipped in means; default) or the benchmark's rule")
    parser.add_argument("--p-value", choices=P_VALUE_METHODS, default=None,
                        help="per-condition test of independence: 'exact' (default), Klein et al.'s "
                             "'beta-posterior' (uniform prior, ties extreme) or its published rule")
    parser.add_argument("--preset", choices=tuple(PRESETS), default="default",
                        help="'paper': the benchmark's undefined policy (model-vs-human) and Klein et al.'s "
                             "published p-value rule; explicit --policy/--p-value win")
    parser.add_argument("--two-level", action="store_true",
                        help="also resample the human observers (same as --observer-level bootstrap)")
    parser.add_argument("--figure", type=Path, help="write the figure here (png/pdf/svg)")


def ec_choices(args) -> tuple[str, str]:
    """(policy, p-value method) of an EC command line: the preset's, unless given explicitly.

    Parameters
    ----------
    args : argparse.Namespace
        A parsed ``ec`` or ``benchmark`` command line (``--preset``, ``--policy``, ``--p-value``).

    Returns
    -------
    tuple of str
        ``(policy, p_value)``.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> parser = build_parser()
    >>> ec_choices(parser.parse_args(["ec", "raw-data/"]))
    ('strict', 'exact')
    >>> ec_choices(parser.parse_args(["ec", "raw-data/", "--preset", "paper", "--policy", "strict"]))
    ('strict', 'beta-posterior-published')
    """
    preset = PRESETS[getattr(args, "preset", "default")]
    policy = args.policy if args.policy is not None else preset["policy"]
    p_value = getattr(args, "p_value", None) or preset["p_value"]
    return policy, p_value


def ec_settings(args) -> ResamplingSettings:
    """The resampling settings of an EC command line (``--two-level`` is ``--observer-level bootstrap``).

    Parameters
    ----------
    args : argparse.Namespace
        A parsed ``ec`` or ``benchmark`` command line.

    Returns
    -------
    ResamplingSettings

    Raises
    ------
    ValueError
        When ``--two-level`` contradicts ``--observer-level`` (e.g. ``jackknife``).

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> ec_settings(build_parser().parse_args(["benchmark", "raw-data/", "--two-level"])).observer_level
    'bootstrap'
    """
    if getattr(args, "two_level", False):
        if getattr(args, "observer_level", None) not in (None, "none", "bootstrap"):
            raise ValueError(f"--two-level contradicts --observer-level {args.observer_level}")
        args = argparse.Namespace(**{**vars(args), "observer_level": "bootstrap"})
    return resampling_settings(args, interval=DEFAULT_SETTINGS.interval)


def partial_models_note(partial: dict, n_experiments: int) -> str:
    """The footnote of models scored on only some experiments of a run (marked ``†``; not ranked).

    Parameters
    ----------
    partial : dict of str to list of str
        Model -> the experiments it was scored on (``settings["partial_models"]`` of an EC result).
    n_experiments : int
        The experiments of the run.

    Returns
    -------
    str
        One line per model, saying which experiments it has and how to rank it.

    Examples
    --------
    >>> print(partial_models_note({"resnet50@run": ["edge"]}, 17))
    † resnet50@run: scored on 1 of 17 experiments (edge): its overall values average those only and it is not ranked; rank it beside the others on them with --experiment edge
    """
    return "\n".join(
        f"† {model}: scored on {len(have)} of {n_experiments} experiments ({', '.join(have)}): its overall values "
        f"average those only and it is not ranked; rank it beside the others on them with "
        + " ".join(f"--experiment {e}" for e in have)
        for model, have in partial.items())


def format_overall(result) -> str:
    """A readable table of the overall benchmark rows.

    Parameters
    ----------
    result : BenchmarkResult
        From :func:`humanlike.measures.ec.benchmark.run_benchmark`.

    Returns
    -------
    str
        One line per observer (humans first, then models by EC) with EC and OOD accuracy and their
        intervals, a legend line and, with resamples, the ranking stability.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> text = format_overall(run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=0)))
    >>> for line in text.splitlines()[:3]:
    ...     print(line)
    observer                                 error consistency                OOD accuracy
    humans                                    0.281 [nan, nan]            0.645 [nan, nan]
    model-humanlike                           0.309 [nan, nan]            0.715 [nan, nan]
    """
    rows = result.rows[result.rows["scope"] == "overall"]
    level = int(round(result.details.settings["level"] * 100))
    ec = rows[rows["metric"] == "error_consistency"].set_index("observer")
    acc = rows[rows["metric"] == "ood_accuracy"].set_index("observer")
    dmc = rows[rows["metric"] == "decision_margin_consistency"].set_index("observer")
    width = max([28] + [len(str(n)) + 2 for n in ec.index])
    header = f"{'observer':<{width}}{'error consistency':>30}{'OOD accuracy':>28}"
    lines = [header + (f"{'decision-margin consistency':>32}" if not dmc.empty else "")]
    partial = result.details.settings.get("partial_models") or {}
    by_ec = list(ec.drop(index="humans", errors="ignore").sort_values("estimate", ascending=False).index)
    # models scored on some experiments only come last, apart from the ranked ones
    order = ["humans"] + [m for m in by_ec if m not in partial] + [m for m in by_ec if m in partial]
    for name in order:
        if name not in ec.index:
            continue
        label = f"{name} †" if name in partial else name
        line = f"{label:<{width}}{_fmt(ec.loc[name]):>30}{_fmt(acc.loc[name]):>28}"
        if not dmc.empty:
            line += f"{_fmt(dmc.loc[name]) if name in dmc.index else 'no margins':>32}"
        lines.append(line)
    lines.append(f"(estimate [{level}% {bootstrap_label(result.details.resampled, None)} interval]; "
                 "'humans' = mean over human pairs"
                 + ("; humans' DMC = split-half noise ceiling)" if not dmc.empty else ")"))
    if partial:
        lines.append(partial_models_note(partial, len(result.details.settings["experiments"])))
    if result.ranking is not None:
        r = result.ranking
        lines.append(f"ranking stability: Kendall's tau to the original ranking {r.tau_mean:.2f} "
                     f"[{r.tau_low:.2f}, {r.tau_high:.2f}]; most human-like: {r.names[int(np.argmax(r.probability_best))]} "
                     f"(P best {r.probability_best.max():.2f})")
    return "\n".join(lines)


def _fmt(row) -> str:
    return f"{row['estimate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


# --- ec ----------------------------------------------------------------------------------------------

def pool_pairs_for(pool: str, designs: dict) -> bool:
    """Whether ``--pool`` asks for the pooled error consistency, given the studies' designs.

    Parameters
    ----------
    pool : {"auto", "always", "never"}
        ``--pool``.
    designs : dict
        Study -> design report (``trials.attrs["study_designs"]``: studies, and files exported with their
        design.json; empty for other trial files and raw-data folders).

    Returns
    -------
    bool
        True for ``always``, and for ``auto`` when some study's design is not ``everything`` (its pairs share
        part of the trials).

    Examples
    --------
    >>> pool_pairs_for("auto", {}), pool_pairs_for("auto", {"s": {"design": "subset"}})
    (False, True)
    >>> pool_pairs_for("auto", {"s": {"design": "everything"}}), pool_pairs_for("always", {})
    (False, True)
    """
    if pool != "auto":
        return pool == "always"
    return any(report.get("design") not in ("everything", "") for report in designs.values())


def run_ec_command(args) -> int:
    """Handle ``humanlike ec`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['ec', 'raw-data/']).handler is run_ec_command
    True
    """
    from .analysis import error_consistency

    run = run_outputs(args, {**ec_settings(args).to_dict(), "exclusions": exclusions_record(args)})
    trials, sources = load_data_with_sources(args.data, args)   # validated by the loader
    policy, p_value = ec_choices(args)
    designs = trials.attrs.get("study_designs", {})
    result = error_consistency(trials, experiments=args.experiment, condition=args.condition,
                               exclusions=exclusions_of(args), settings=ec_settings(args), policy=policy, p_value=p_value, pair_intervals=True,
                               pair_interval=args.pair_interval, pool_pairs=pool_pairs_for(args.pool, designs),
                               validate=False)
    experiments = result.settings["experiments"]
    doc = with_sources(result.experiment_json_dict(experiments[0]) if args.experiment and len(experiments) == 1
                       else result.to_json_dict(), sources)
    if args.out is not None:
        run.add_table(result.summary_table, "ec_summary", args.format)
        run.add_table(result.pairs, "ec_pairs_by_condition", args.format)
        run.add_table(result.pair_intervals, "ec_pairs", args.format)
        record_sources(run, sources, args.format)
        run.json(doc, args.out / "ec.json")
    if args.figure is not None:
        from .plot import pairwise_figure

        for name in experiments:
            path = args.figure if len(experiments) == 1 else args.figure.with_name(
                f"{args.figure.stem}-{name}{args.figure.suffix}")
            run.figure(pairwise_figure(result, name), path)
    # a study's design and the pooling it implied; trial files keep their manifest as before
    run.finish({**run.settings, "pool": args.pool, "pool_pairs": result.settings["pool_pairs"],
                "study_designs": designs} if designs else None)
    if args.json:
        emit_json(doc)
        return 0
    print(format_ec(result))
    return 0


def format_ec(result) -> str:
    """Readable EC summary: per experiment human-human, model-model and every model with humans.

    Parameters
    ----------
    result : ErrorConsistencyResult
        From :func:`humanlike.measures.ec.analysis.error_consistency`.

    Returns
    -------
    str
        A settings line, then per experiment the human–human and model–model means and each model's EC
        with the humans (highest first) with intervals and accuracy.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> text = format_ec(error_consistency(trials, experiments=["sim-blur"], settings=ResamplingSettings(n_resamples=0)))
    >>> for line in text.splitlines()[1:4]:
    ...     print(line)
    experiment sim-blur
      human-human  0.250 [nan, nan]  (6 pairs, mean accuracy 0.578)
      model-model  0.022 [nan, nan]  (10 pairs)
    """
    settings = result.settings
    level = int(round(settings["level"] * 100))
    where = f"condition {settings['condition']}" if settings["condition"] else "mean over conditions"
    lines = [f"error consistency ({where}); estimate [{level}% {settings['interval']} interval], "
             f"{settings['n_resamples']} resamples, observer level {settings['observer_level']}, "
             f"policy {settings['policy']}"
             + ("; groups pooled (each condition's pooled 2x2 table of the group's pairs)"
                if settings.get("pool_pairs") else "")]
    for name in settings["experiments"]:
        doc = result.experiment_json_dict(name)
        lines.append(f"experiment {name}")
        h = doc["human_human"]
        lines.append(f"  human-human  {_fmt_entry(h)}  ({h['n_pairs']} pairs, mean accuracy {_num(h['mean_accuracy'])})")
        m = doc["model_model"]
        lines.append(f"  model-model  {_fmt_entry(m)}  ({m['n_pairs']} pairs)")
        ranked = sorted(doc["model_human"].items(), key=lambda kv: -(kv[1]["mean"] if kv[1]["mean"] is not None else -9))
        for model, e in ranked:
            lines.append(f"  {model:<26} {_fmt_entry(e)}  accuracy {_num(e['accuracy'])}")
    if result.pair_resampled is not None:
        pairs = result.pair_intervals
        profile = int((pairs["interval_method"] == "profile-likelihood").sum())
        lines.append(f"(per-pair intervals in the ec_pairs table / JSON 'pairs': {profile} of {len(pairs)} pairs "
                     "are one 2x2 table and get the profile-likelihood interval, the others the "
                     f"{bootstrap_label(result.pair_resampled, None)} interval; see interval_method)")
    one_table = int((result.summary_table["interval_method"] == "profile-likelihood").sum())
    if one_table:
        lines.append(f"({one_table} summary rows are one 2x2 table (one pair, one condition) and carry its "
                     "profile-likelihood interval, as the pair does; see interval_method)")
    undefined = result.summary_table["undefined_share"].fillna(0)
    if (undefined > 0).any():
        lines.append(f"(largest share of resamples with an undefined value: {undefined.max():.1%}; "
                     "see the undefined_share column)")
    return "\n".join(lines)


def _num(value) -> str:
    return "nan" if value is None else f"{value:.3f}"


def _fmt_entry(e) -> str:
    return f"{_num(e['mean'])} [{_num(e['ci_low'])}, {_num(e['ci_high'])}]"


# --- plan ec -----------------------------------------------------------------------------------------

def run_plan_ec(args) -> int:
    """Handle ``humanlike plan ec`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['plan', 'ec']).handler is run_plan_ec
    True
    """
    from .planning import expected_ec_ci_width, power_ec_difference, trials_for_ci_width, trials_for_power

    a1, a2 = args.accuracy
    n = np.asarray(args.trials)
    width = expected_ec_ci_width(n, a1, a2, args.kappa, level=args.level, method=args.method, seed=args.seed)
    frame = width.to_frame()
    doc: dict = {"accuracy": [a1, a2], "kappa": args.kappa, "level": args.level, "method": args.method,
                 "ci_width": frame.to_dict("records")}
    if args.width is not None:
        doc["trials_for_width"] = {"target_width": args.width,
                                   "method": args.method,
                                   "trials": int(trials_for_ci_width(args.width, a1, a2, args.kappa, level=args.level,
                                                                     method=args.method, seed=args.seed))}
    if args.compare_kappa is not None:
        a3 = args.compare_accuracy if args.compare_accuracy is not None else a2
        power = power_ec_difference(n, args.kappa, args.compare_kappa, a1, a2, a3, alpha=args.alpha, seed=args.seed)
        doc["power"] = power.to_frame().to_dict("records")
        doc["trials_for_power"] = {"power": args.power, "trials": int(trials_for_power(
            args.power, args.kappa, args.compare_kappa, a1, a2, a3, alpha=args.alpha))}
    if args.json:
        emit_json(doc)
        return 0
    print(f"expected {int(args.level * 100)}% CI width of EC (true EC {args.kappa}, accuracies {a1}, {a2}, {args.method}):")
    print(frame.to_string(index=False))
    if "trials_for_width" in doc:
        print(f"trials needed for width {args.width} ({args.method}): {doc['trials_for_width']['trials']}")
    if "power" in doc:
        print(f"\npower to detect EC {args.kappa} vs {args.compare_kappa} (alpha {args.alpha}):")
        print(pd.DataFrame(doc["power"]).to_string(index=False))
        print(f"trials needed for power {args.power}: {doc['trials_for_power']['trials']}")
    return 0
