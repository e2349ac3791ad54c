"""Commands for error consistency: ``demo``, ``benchmark``, ``ec`` and ``plan ec``."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..analyses.ec_result import PAIR_INTERVALS
from ..analyses.errorconsistency import P_VALUE_METHODS
from ..stats.settings import ResamplingSettings
from .options import (
    add_output_options, add_resampling_options, emit_json, float_in, int_at_least, load_data, probability,
    resampling_settings, run_outputs, seed_value, show_progress,
)


# What "--preset paper" changes (README: "Reproducing the papers").
PRESETS = {
    "default": {"policy": "strict", "p_value": "exact"},
    "paper": {"policy": "model-vs-human", "p_value": "beta-posterior-published"},
}


def register(sub, plan_sub) -> None:
    """Register this module's commands (``demo``, ``benchmark``, ``ec``, ``plan ec``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub)
    >>> sorted(sub.choices)
    ['benchmark', 'demo', 'ec', 'plan']
    >>> sorted(plan_sub.choices)
    ['ec']
    """
    demo = sub.add_parser("demo", help="the main job on the built-in simulated benchmark (seconds)")
    add_resampling_options(demo)
    add_output_options(demo)
    demo.set_defaults(handler=run_demo)

    bench = sub.add_parser("benchmark", help="the model-vs-human benchmark with bootstrap intervals")
    bench.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    _add_ec_options(bench)
    bench.add_argument("--no-exclusions", action="store_true",
                       help="keep every condition (default: the benchmark's exclusion table)")
    bench.set_defaults(handler=run_benchmark_command)

    ec = sub.add_parser("ec", help="pairwise error consistency per experiment, with intervals and p-values")
    ec.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    ec.add_argument("--experiment", action="append",
                    help="experiment name (repeatable; default: every experiment)")
    ec.add_argument("--condition", help="one condition (default: mean over the experiment's conditions)")
    ec.add_argument("--pair-interval", choices=PAIR_INTERVALS, default="profile",
                    help="interval of a pair whose EC is one 2x2 table (one condition): 'profile' likelihood "
                         "(default; holds its level when errors are few, see docs/ec_coverage.md) or "
                         "'bootstrap' (--interval's method); pairs averaged over conditions and all means "
                         "use the bootstrap")
    _add_ec_options(ec)
    ec.set_defaults(handler=run_ec_command)

    plan = plan_sub.add_parser("ec", help="trials needed for error consistency (copy model)")
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
    plan.add_argument("--level", type=probability, default=0.95)
    plan.add_argument("--method", choices=("analytic", "simulation"), default="analytic")
    plan.add_argument("--seed", type=seed_value, default=0)
    plan.add_argument("--json", action="store_true")
    plan.set_defaults(handler=run_plan_ec)


def _add_ec_options(parser: argparse.ArgumentParser) -> None:
    add_resampling_options(parser)
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


# Kept for cli_ood.py, which imports it, until it uses options.load_data (issue 7).


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
    >>> from humanlike.presentation.cli import build_parser
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
    >>> from humanlike.presentation.cli import build_parser
    >>> ec_settings(build_parser().parse_args(["benchmark", "raw-data/", "--two-level"])).observer_level
    'bootstrap'
    """
    settings = resampling_settings(args)
    if getattr(args, "two_level", False):
        if settings.observer_level not in ("none", "bootstrap"):
            raise ValueError(f"--two-level contradicts --observer-level {settings.observer_level}")
        settings = replace(settings, observer_level="bootstrap")
    return settings


# --- demo --------------------------------------------------------------------------------------------

def run_demo(args) -> int:
    """Handle ``humanlike demo`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (:func:`humanlike.presentation.cli.build_parser`).

    Returns
    -------
    int
        The exit code, 0 on success; errors are raised and :func:`humanlike.presentation.cli.main` turns them
        into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.presentation.cli import build_parser
    >>> build_parser().parse_args(['demo']).handler is run_demo
    True
    """
    from ..analyses.benchmark import run_benchmark
    from ..data.simulate import simulate_benchmark
    from .plots import benchmark_figure, ranking_figure

    run = run_outputs(args, resampling_settings(args))
    args.run_outputs = run  # the other families' demo extras write through it too
    trials = simulate_benchmark(seed=args.seed)
    result = run_benchmark(trials, exclusions=None, settings=resampling_settings(args))
    # Analyses computed once for the whole demo; other command families read them from here.
    args.demo_results = {"benchmark": result, "error_consistency": result.details}
    result = _with_dmc_rows(result, trials, args, exclusions=None)
    out = args.out
    run.add_table(trials, "trials", args.format)
    run.add_table(result.rows, "benchmark", args.format)
    run.add_table(result.details.pairs, "pairs", args.format)
    run.figure(benchmark_figure(result, "Simulated benchmark: error consistency with humans"), out / "benchmark.png")
    if result.ranking is not None:
        run.add_table(result.ranking.to_frame(), "ranking", args.format)
        run.figure(ranking_figure(result.ranking), out / "ranking.png")
    _demo_extras(trials, args)
    run.json(result.to_json_dict(), out / "benchmark.json")
    _demo_report(trials, args)
    files = [*run.files, run.finish()]
    if args.json:
        emit_json(result.to_json_dict())
        return 0
    print(f"humanlike demo: simulated benchmark ({trials['observer'].nunique()} observers, "
          f"{trials['experiment'].nunique()} experiments, {len(trials)} trials), "
          f"{args.resamples} bootstrap resamples, {args.interval} intervals, seed {args.seed}\n")
    print(format_overall(result))
    print(f"\nwrote {len(files)} files to {out}/")
    return 0


def _demo_report(trials, args) -> Path:
    """The demo's analyses on one page (``report.html``), from the results computed above."""
    from ..analyses.dvc_choices import latent_correctness_correlation
    from .report import render_report
    from .report_sections import build_sections

    results = dict(args.demo_results)
    results["latent"] = latent_correctness_correlation(trials, settings=resampling_settings(args))
    sections, headline = build_sections(results)
    settings = {**resampling_settings(args).to_dict(), "data": "simulated benchmark (humanlike.simulate_benchmark)"}
    provenance = {"data": f"simulate_benchmark(seed={args.seed})", "trials": len(trials),
                  "observers": int(trials["observer"].nunique()), "experiments": int(trials["experiment"].nunique())}
    html = render_report(sections, title="humanlike demo: simulated benchmark", headline=headline,
                         provenance=provenance, settings=settings,
                         command=f"humanlike demo --seed {args.seed} --resamples {args.resamples}")
    return args.run_outputs.text(html, Path(args.out) / "report.html")


def _demo_extras(trials, args) -> list[Path]:
    """Further analyses on the demo data, contributed by the other command families."""
    from .options import optional_module

    files = []
    for name in ("cli_dmc", "cli_ood", "cli_psychscore"):
        module = optional_module(name)
        if module is not None and hasattr(module, "demo_extras"):
            files += module.demo_extras(trials, args)
    return files


def _with_dmc_rows(result, trials, args, exclusions):
    """The benchmark rows gain decision-margin consistency beside EC (models with margins only)."""
    from dataclasses import replace

    from .options import optional_module

    dmc_cli = optional_module("cli_dmc")
    if dmc_cli is None or "decision_margin" not in trials:
        return result
    from ..analyses.dmc import decision_margin_consistency
    from ..data.schema import TrialTableError

    try:
        dmc = decision_margin_consistency(trials, exclusions=exclusions, n_resamples=args.resamples,
                                          level=args.level, seed=args.seed, progress=show_progress(args))
    except TrialTableError:
        return result
    # Computed once: the demo's DMC extras and report read it from here.
    getattr(args, "demo_results", {})["dmc"] = dmc
    extra = dmc_cli.dmc_benchmark_rows(trials, exclusions=exclusions, result=dmc)
    if extra.empty:
        return result
    return replace(result, rows=pd.concat([result.rows, extra], ignore_index=True))


def format_overall(result) -> str:
    """A readable table of the overall benchmark rows.

    Parameters
    ----------
    result : BenchmarkResult
        From :func:`humanlike.analyses.benchmark.run_benchmark`.

    Returns
    -------
    str
        One line per observer (humans first, then models by EC) with EC and OOD accuracy and their
        intervals, a legend line and, with resamples, the ranking stability.

    Examples
    --------
    >>> from humanlike.analyses.benchmark import run_benchmark
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> text = format_overall(run_benchmark(trials, exclusions=None, n_resamples=0))
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
    order = ["humans"] + list(ec.drop(index="humans", errors="ignore").sort_values("estimate", ascending=False).index)
    for name in order:
        if name not in ec.index:
            continue
        line = f"{name:<{width}}{_fmt(ec.loc[name]):>30}{_fmt(acc.loc[name]):>28}"
        if not dmc.empty:
            line += f"{_fmt(dmc.loc[name]) if name in dmc.index else 'no margins':>32}"
        lines.append(line)
    lines.append(f"(estimate [{level}% bootstrap interval]; 'humans' = mean over human pairs"
                 + ("; humans' DMC = split-half noise ceiling)" if not dmc.empty else ")"))
    if result.ranking is not None:
        r = result.ranking
        lines.append(f"ranking stability: Kendall's tau to the original ranking {r.tau_mean:.2f} "
                     f"[{r.tau_low:.2f}, {r.tau_high:.2f}]; most human-like: {r.names[int(np.argmax(r.probability_best))]} "
                     f"(P best {r.probability_best.max():.2f})")
    return "\n".join(lines)


def _fmt(row) -> str:
    return f"{row['estimate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


# --- benchmark -------------------------------------------------------------------------------------

def run_benchmark_command(args) -> int:
    """Handle ``humanlike benchmark`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (:func:`humanlike.presentation.cli.build_parser`).

    Returns
    -------
    int
        The exit code, 0 on success; errors are raised and :func:`humanlike.presentation.cli.main` turns them
        into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.presentation.cli import build_parser
    >>> build_parser().parse_args(['benchmark', 'raw-data/']).handler is run_benchmark_command
    True
    """
    from ..analyses.benchmark import run_benchmark
    from ..analyses.errorconsistency import MODELVSHUMAN_EXCLUSIONS

    run = run_outputs(args, ec_settings(args))
    trials = load_data(args.data)   # validated by the loader
    policy, p_value = ec_choices(args)
    result = run_benchmark(trials, exclusions=None if args.no_exclusions else MODELVSHUMAN_EXCLUSIONS,
                           settings=ec_settings(args), policy=policy, p_value=p_value, validate=False)
    result = _with_dmc_rows(result, trials, args,
                            exclusions=None if args.no_exclusions else MODELVSHUMAN_EXCLUSIONS)
    if args.out is not None:
        run.add_table(result.rows, "benchmark", args.format)
        run.add_table(result.details.pairs, "pairs", args.format)
        if result.ranking is not None:
            run.add_table(result.ranking.to_frame(), "ranking", args.format)
        run.json(result.to_json_dict(), args.out / "benchmark.json")
    if args.figure is not None:
        from .plots import benchmark_figure

        run.figure(benchmark_figure(result), args.figure)
    run.finish()
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(format_overall(result))
    return 0


# --- ec ----------------------------------------------------------------------------------------------

def run_ec_command(args) -> int:
    """Handle ``humanlike ec`` for parsed arguments; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (:func:`humanlike.presentation.cli.build_parser`).

    Returns
    -------
    int
        The exit code, 0 on success; errors are raised and :func:`humanlike.presentation.cli.main` turns them
        into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.presentation.cli import build_parser
    >>> build_parser().parse_args(['ec', 'raw-data/']).handler is run_ec_command
    True
    """
    from ..analyses.errorconsistency import error_consistency

    run = run_outputs(args, ec_settings(args))
    trials = load_data(args.data)   # validated by the loader
    policy, p_value = ec_choices(args)
    result = error_consistency(trials, experiments=args.experiment, condition=args.condition,
                               settings=ec_settings(args), policy=policy, p_value=p_value, pair_intervals=True,
                               pair_interval=args.pair_interval, validate=False)
    experiments = result.settings["experiments"]
    doc = (result.experiment_json_dict(experiments[0]) if args.experiment and len(experiments) == 1
           else result.to_json_dict())
    if args.out is not None:
        run.add_table(result.summary, "ec_summary", args.format)
        run.add_table(result.pairs, "ec_pairs_by_condition", args.format)
        run.add_table(result.pair_intervals, "ec_pairs", args.format)
        run.json(doc, args.out / "ec.json")
    if args.figure is not None:
        from .plots import pairwise_figure

        for name in experiments:
            path = args.figure if len(experiments) == 1 else args.figure.with_name(
                f"{args.figure.stem}-{name}{args.figure.suffix}")
            run.figure(pairwise_figure(result, name), path)
    run.finish()
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
        From :func:`humanlike.analyses.errorconsistency.error_consistency`.

    Returns
    -------
    str
        A settings line, then per experiment the human–human and model–model means and each model's EC
        with the humans (highest first) with intervals and accuracy.

    Examples
    --------
    >>> from humanlike.analyses.errorconsistency import error_consistency
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> text = format_ec(error_consistency(trials, experiments=["sim-blur"], n_resamples=0))
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
             f"policy {settings['policy']}"]
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
                     f"{settings['interval']} bootstrap; see interval_method)")
    one_table = int((result.summary["interval_method"] == "profile-likelihood").sum())
    if one_table:
        lines.append(f"({one_table} summary rows are one 2x2 table (one pair, one condition) and carry its "
                     "profile-likelihood interval, as the pair does; see interval_method)")
    undefined = result.summary["undefined_share"].fillna(0)
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
        The parsed command line (:func:`humanlike.presentation.cli.build_parser`).

    Returns
    -------
    int
        The exit code, 0 on success; errors are raised and :func:`humanlike.presentation.cli.main` turns them
        into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.presentation.cli import build_parser
    >>> build_parser().parse_args(['plan', 'ec']).handler is run_plan_ec
    True
    """
    from ..stats.planning import expected_ec_ci_width, power_ec_difference, trials_for_ci_width, trials_for_power

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
