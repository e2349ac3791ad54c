"""Commands for error consistency: ``demo``, ``benchmark``, ``ec`` and ``plan ec``."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from .options import add_output_options, add_resampling_options, emit_json, show_progress
from .io import save_figure, write_json, write_table


def register(sub, plan_sub) -> None:
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

    ec = sub.add_parser("ec", help="pairwise error consistency of one experiment, with intervals and p-values")
    ec.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    ec.add_argument("--experiment", required=True, help="experiment name")
    ec.add_argument("--condition", help="one condition (default: mean over the experiment's conditions)")
    _add_ec_options(ec)
    ec.set_defaults(handler=run_ec_command)

    plan = plan_sub.add_parser("ec", help="trials needed for error consistency (copy model)")
    plan.add_argument("--accuracy", type=float, nargs=2, default=(0.75, 0.75), metavar=("A1", "A2"),
                      help="accuracies of the two observers (default 0.75 0.75)")
    plan.add_argument("--kappa", type=float, default=0.3, help="true error consistency (default 0.3)")
    plan.add_argument("--trials", type=int, nargs="+", default=[100, 200, 400, 800, 1600, 3200],
                      help="numbers of trials to evaluate")
    plan.add_argument("--width", type=float, help="target CI width: report the trials needed")
    plan.add_argument("--compare-kappa", type=float,
                      help="second model's EC: report the power to detect the difference")
    plan.add_argument("--compare-accuracy", type=float, help="second model's accuracy (default: A2)")
    plan.add_argument("--power", type=float, default=0.8, help="target power (default 0.8)")
    plan.add_argument("--alpha", type=float, default=0.05)
    plan.add_argument("--level", type=float, default=0.95)
    plan.add_argument("--method", choices=("analytic", "simulation"), default="analytic")
    plan.add_argument("--seed", type=int, default=0)
    plan.add_argument("--json", action="store_true")
    plan.set_defaults(handler=run_plan_ec)


def _add_ec_options(parser: argparse.ArgumentParser) -> None:
    add_resampling_options(parser, interval=False)
    add_output_options(parser, out_default=None)
    parser.add_argument("--interval", choices=("percentile", "bca"), default="percentile")
    parser.add_argument("--policy", choices=("strict", "model-vs-human"), default="strict",
                        help="undefined kappa: 'strict' (NaN, skipped in means) or the benchmark's rule")
    parser.add_argument("--two-level", action="store_true", help="also resample the human observers")
    parser.add_argument("--figure", type=Path, help="write the figure here (png/pdf/svg)")


def _load(paths):
    from ..data.loaders import load_trials

    return load_trials(paths)


# --- demo --------------------------------------------------------------------------------------------

def run_demo(args) -> int:
    from ..analyses.benchmark import run_benchmark
    from ..data.simulate import simulate_benchmark
    from .plots import benchmark_figure, ranking_figure

    trials = simulate_benchmark(seed=args.seed)
    result = run_benchmark(trials, exclusions=None, n_resamples=args.resamples, level=args.level,
                           seed=args.seed, progress=show_progress(args))
    result = _with_dmc_rows(result, trials, args, exclusions=None)
    out = args.out
    files = [
        write_table(trials, out / "trials", args.format),
        write_table(result.rows, out / "benchmark", args.format),
        write_table(result.details.pairs, out / "pairs", args.format),
        save_figure(benchmark_figure(result, "Simulated benchmark: error consistency with humans"),
                    out / "benchmark.png"),
    ]
    if result.ranking is not None:
        files.append(write_table(result.ranking.to_frame(), out / "ranking", args.format))
        files.append(save_figure(ranking_figure(result.ranking), out / "ranking.png"))
    files += _demo_extras(trials, args)
    files.append(write_json(result.to_json_dict(), out / "benchmark.json"))
    if args.json:
        emit_json(result.to_json_dict())
        return 0
    print(f"humanlike demo: simulated benchmark ({trials['observer'].nunique()} observers, "
          f"{trials['experiment'].nunique()} experiments, {len(trials)} trials), "
          f"{args.resamples} bootstrap resamples, seed {args.seed}\n")
    print(format_overall(result))
    print(f"\nwrote {len(files)} files to {out}/")
    return 0


def _demo_extras(trials, args) -> list[Path]:
    """Further analyses on the demo data, contributed by the other command families."""
    from .options import optional_module

    files = []
    for name in ("cli_dmc", "cli_ood"):
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
    extra = dmc_cli.dmc_benchmark_rows(trials, args.resamples, args.level, args.seed, exclusions=exclusions,
                                       progress=show_progress(args))
    if extra.empty:
        return result
    return replace(result, rows=pd.concat([result.rows, extra], ignore_index=True))


def format_overall(result) -> str:
    """A readable table of the overall benchmark rows."""
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
    from ..analyses.benchmark import run_benchmark
    from ..analyses.errorconsistency import MODELVSHUMAN_EXCLUSIONS
    from .plots import benchmark_figure

    trials = _load(args.data)
    result = run_benchmark(
        trials, exclusions=None if args.no_exclusions else MODELVSHUMAN_EXCLUSIONS,
        n_resamples=args.resamples, level=args.level, seed=args.seed, policy=args.policy,
        interval=args.interval, resample_observers=args.two_level, progress=show_progress(args))
    result = _with_dmc_rows(result, trials, args,
                            exclusions=None if args.no_exclusions else MODELVSHUMAN_EXCLUSIONS)
    if args.out is not None:
        write_table(result.rows, args.out / "benchmark", args.format)
        write_table(result.details.pairs, args.out / "pairs", args.format)
        if result.ranking is not None:
            write_table(result.ranking.to_frame(), args.out / "ranking", args.format)
        write_json(result.to_json_dict(), args.out / "benchmark.json")
    if args.figure is not None:
        save_figure(benchmark_figure(result), args.figure)
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(format_overall(result))
    return 0


# --- ec ----------------------------------------------------------------------------------------------

def ec_json(result, experiment: str) -> dict:
    """The ``ec --json`` document: human_human, model_human per model, model_model, and every pair."""
    s = result.summary
    s = s[s["scope"] == experiment]
    ec = s[s["metric"] == "error_consistency"].set_index("group")
    acc = s[s["metric"] == "ood_accuracy"].set_index("group")

    def entry(group):
        row = ec.loc[group]
        return {"mean": row["estimate"], "ci_low": row["ci_low"], "ci_high": row["ci_high"],
                "n_pairs": int(row["n_pairs"])}

    doc = {"experiment": experiment, "condition": result.settings["condition"],
           "human_human": {**entry("humans"), "mean_accuracy": acc.loc["humans", "estimate"]},
           "model_human": {}, "model_model": entry("model-model")}
    for group in ec.index:
        if group not in ("humans", "model-model"):
            doc["model_human"][group] = {**entry(group), "accuracy": acc.loc[group, "estimate"]}
    pairs = result.pair_intervals.copy()
    p = result.pairs.groupby(["observer_1", "observer_2"])["p_value"]
    pairs = pairs.merge(p.min().rename("p_value_min").reset_index(), on=["observer_1", "observer_2"])
    if result.settings["condition"] is not None:
        pairs = pairs.rename(columns={"p_value_min": "p_value"})
    doc["pairs"] = pairs.drop(columns=["experiment"]).to_dict("records")
    doc["settings"] = result.settings
    return doc


def run_ec_command(args) -> int:
    from ..analyses.errorconsistency import error_consistency

    trials = _load(args.data)
    result = error_consistency(
        trials, experiments=[args.experiment], condition=args.condition, n_resamples=args.resamples,
        level=args.level, seed=args.seed, policy=args.policy, interval=args.interval,
        resample_observers=args.two_level, pair_intervals=True, progress=show_progress(args))
    doc = ec_json(result, args.experiment)
    if args.out is not None:
        write_table(result.summary, args.out / "ec_summary", args.format)
        write_table(result.pairs, args.out / "ec_pairs_by_condition", args.format)
        write_table(result.pair_intervals, args.out / "ec_pairs", args.format)
        write_json(doc, args.out / "ec.json")
    if args.figure is not None:
        from .plots import pairwise_figure

        save_figure(pairwise_figure(result, args.experiment), args.figure)
    if args.json:
        emit_json(doc)
        return 0
    level = int(round(args.level * 100))
    where = f"condition {args.condition}" if args.condition else "mean over conditions"
    print(f"error consistency, experiment {args.experiment} ({where}); estimate [{level}% CI]")
    h = doc["human_human"]
    print(f"  human-human  {h['mean']:.3f} [{h['ci_low']:.3f}, {h['ci_high']:.3f}]  "
          f"({h['n_pairs']} pairs, mean accuracy {h['mean_accuracy']:.3f})")
    m = doc["model_model"]
    print(f"  model-model  {m['mean']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}]  ({m['n_pairs']} pairs)")
    for name, e in sorted(doc["model_human"].items(), key=lambda kv: -np.nan_to_num(kv[1]["mean"], nan=-9)):
        print(f"  {name:<26} {e['mean']:.3f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}]  accuracy {e['accuracy']:.3f}")
    return 0


# --- plan ec -----------------------------------------------------------------------------------------

def run_plan_ec(args) -> int:
    from ..stats.planning import expected_ec_ci_width, power_ec_difference, trials_for_ci_width, trials_for_power

    a1, a2 = args.accuracy
    n = np.asarray(args.trials)
    width = expected_ec_ci_width(n, a1, a2, args.kappa, level=args.level, method=args.method, seed=args.seed)
    frame = width.to_frame()
    doc: dict = {"accuracy": [a1, a2], "kappa": args.kappa, "level": args.level, "method": args.method,
                 "ci_width": frame.to_dict("records")}
    if args.width is not None:
        doc["trials_for_width"] = {"target_width": args.width,
                                   "trials": int(trials_for_ci_width(args.width, a1, a2, args.kappa, level=args.level))}
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
        print(f"trials needed for width {args.width}: {doc['trials_for_width']['trials']}")
    if "power" in doc:
        print(f"\npower to detect EC {args.kappa} vs {args.compare_kappa} (alpha {args.alpha}):")
        print(pd.DataFrame(doc["power"]).to_string(index=False))
        print(f"trials needed for power {args.power}: {doc['trials_for_power']['trials']}")
    return 0
