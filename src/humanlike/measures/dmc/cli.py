"""Commands for decision-margin consistency: ``dmc`` and ``plan dmc``; DMC rows for ``benchmark`` and
``demo`` (:func:`dmc_benchmark_rows`); its part of the demo is :mod:`humanlike.measures.dmc.demo`."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ...trials.names import condition_mask
from ..options import add_data_options
from ...resampling.results import ITEM_JACKKNIFE_INTERVALS
from ...resampling.settings import ResamplingSettings
from ..options import (
    add_exclusion_options, add_json_option, add_level_option, add_output_options, add_seed_option, add_resampling_options, emit_json, exclusions_of,
    exclusions_record, float_in, int_at_least, load_data, positive_count, probability, resampling_settings,
    run_outputs,
)

BENCHMARK_COLUMNS = ("observer", "observer_kind", "scope", "metric", "estimate", "ci_low", "ci_high", "n_pairs")


def register(sub, plan_sub, name: str) -> None:
    """Register this module's commands (``dmc``, ``plan dmc``) on the ``humanlike`` parser.

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
    >>> register(sub, plan_sub, "dmc")
    >>> sorted(sub.choices)
    ['dmc', 'plan']
    >>> sorted(plan_sub.choices)
    ['dmc']
    """
    dmc = sub.add_parser(
        name, help="decision-margin consistency (Alvarez & Konkle): human ceiling, model-human, model-model",
        description="Decision-margin consistency per condition and experiment: the human-human split-half "
                    "noise ceiling, each model's margins against the pooled human index, and model-model; "
                    "bootstrap intervals over items with an observer jackknife.")
    dmc.add_argument("data", nargs="+", type=Path,
                     help="raw-data folder(s) or trial file(s); e.g. the model-vs-human humans and the "
                          "decision-margin fork's models together")
    add_data_options(dmc)
    dmc.add_argument("--experiment", action="append", metavar="NAME",
                     help="experiment name (repeat the option for several; default: every experiment)")
    dmc.add_argument("--condition", help="one condition (default: mean over the experiment's conditions)")
    dmc.add_argument("--spearman", action="store_true", help="Spearman instead of Pearson correlations")
    dmc.add_argument("--dprime", action="store_true", help="human index as m-AFC d' instead of accuracy")
    dmc.add_argument("--alternatives", type=int_at_least(2), metavar="M",
                     help="number of alternatives for --dprime (default: number of labels of the experiment)")
    dmc.add_argument("--max-splits", type=positive_count, default=1000,
                     help="all unique splits up to this many, else a seeded sample (default %(default)s)")
    dmc.add_argument("--bootstrap-splits", type=positive_count, default=32,
                     help="splits evaluated per bootstrap resample (default %(default)s)")
    dmc.add_argument("--figure", type=Path,
                     help="write the EC-and-DMC-against-accuracy figure here (png/pdf/svg; runs EC too)")
    dmc.add_argument("--preset", choices=("default", "paper"), default="default",
                     help="'paper': report the published t-intervals as the interval (Alvarez & Konkle); "
                          "default: the bootstrap interval (default %(default)s)")
    add_resampling_options(dmc, interval=True)
    add_exclusion_options(dmc)
    add_output_options(dmc, out_default=None)
    dmc.set_defaults(handler=run_dmc_command)

    plan = plan_sub.add_parser(
        name, help="trials and observers needed for DMC (binomial sampling error only)",
        description="Binomial sampling error of item accuracies and how well N observers' pooled item "
                    "accuracies track the true ones (Alvarez & Konkle, Appendix B). Best cases: sampling "
                    "error only.")
    plan.add_argument("--accuracy", type=float_in(0, 1), nargs="+", default=[0.5, 0.7, 0.9], metavar="P",
                      help="true item accuracies for the sampling table (default 0.5 0.7 0.9)")
    plan.add_argument("--trials", type=positive_count, nargs="+", default=[1, 2, 5, 10, 20, 50, 100], metavar="T",
                      help="trials per item for the sampling table")
    plan.add_argument("--tolerance", type=float_in(0, 1, open_low=True, open_high=True), default=0.1,
                      help="report the trials needed to be within +/- this of the true accuracy")
    plan.add_argument("--probability", type=probability, default=0.95,
                      help="... with this probability (default %(default)s)")
    add_level_option(plan)
    plan.add_argument("--observers", type=int_at_least(1, 10_000), nargs="+", default=[1, 2, 4, 8, 16, 32], metavar="N",
                      help="numbers of observers for the correlation-with-truth table")
    plan.add_argument("--trials-per-observer", type=positive_count, default=1, help="responses per observer and item")
    plan.add_argument("--distribution", choices=("uniform", "beta", "data"), default="uniform",
                      help="true item accuracies: uniform(A, B), beta(A, B) or the human item accuracies of "
                           "--data (noisy estimates, so a little over-dispersed)")
    plan.add_argument("--params", type=float_in(0), nargs=2, metavar=("A", "B"),
                      help="distribution parameters (default: uniform 0 1, with 0 <= A < B <= 1; beta 2 2, "
                           "with A, B > 0)")
    plan.add_argument("--items", type=int_at_least(2, 100_000), default=160, help="items per simulated data set (default %(default)s)")
    plan.add_argument("--data", nargs="+", type=Path, help="trial data for --distribution data")
    add_data_options(plan)
    plan.add_argument("--experiment", help="experiment of --data")
    plan.add_argument("--condition", help="condition of --data (default: all of the experiment's items)")
    plan.add_argument("--sims", type=int_at_least(2, 100_000), default=200, help="simulated data sets per N (default %(default)s)")
    plan.add_argument("--max-splits", type=positive_count, default=50, help="splits per simulated data set")
    add_seed_option(plan)
    add_json_option(plan)
    plan.set_defaults(handler=run_plan_dmc)


# --- dmc ---------------------------------------------------------------------------------------------

def run_dmc_command(args) -> int:
    """Handle ``humanlike dmc`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['dmc', 'raw-data/']).handler is run_dmc_command
    True
    """
    from .analysis import decision_margin_consistency

    settings = dmc_cli_settings(args)
    run = run_outputs(args, {**settings.to_dict(), "exclusions": exclusions_record(args)})
    trials = load_data(args.data, args, run, getattr(args, "format", "csv"))
    exclusions = exclusions_of(args)
    result = decision_margin_consistency(
        trials, experiments=args.experiment, condition=args.condition, exclusions=exclusions,
        method="spearman" if args.spearman else "pearson", dprime=args.dprime, n_alternatives=args.alternatives,
        max_splits=args.max_splits, bootstrap_splits=args.bootstrap_splits, settings=settings, validate=False)
    if args.preset == "paper":
        result = result.with_published_intervals()
    doc = result.to_json_dict()
    if args.out is not None:
        run.add_table(result.summary_table, "dmc_summary", args.format)
        run.add_table(result.splits, "dmc_splits", args.format)
        run.add_table(result.items, "dmc_items", args.format)
        if result.self_consistency is not None:
            run.add_table(result.self_consistency.to_frame(), "dmc_self_consistency", args.format)
        run.json(doc, args.out / "dmc.json")
    if args.figure is not None:
        from .consistency_accuracy import consistency_vs_accuracy
        from .plot import consistency_figure

        comparison = consistency_vs_accuracy(trials, exclusions=exclusions, dmc_result=result, settings=settings)
        run.figure(consistency_figure(comparison), args.figure)
    run.finish()
    if args.json:
        emit_json(doc)
        return 0
    print(format_dmc(result))
    return 0


def _ci(e: dict) -> str:
    def f(v):
        return "  nan" if v is None or not np.isfinite(v) else f"{v:.3f}"

    return f"{f(e.get('mean'))} [{f(e.get('ci_low'))}, {f(e.get('ci_high'))}]"


def _block(doc: dict, indent: str = "  ") -> list[str]:
    h, mm, mh = doc["human_human"], doc["model_model"], doc["model_human_mean"]
    t = f"t-interval [{h['t_low']:.3f}, {h['t_high']:.3f}]" if h.get("t_low") is not None else "no t-interval"

    def count(e, key, unit):
        if "n_experiments" in e:
            return f"{e['n_experiments']} experiments"
        return f"{e.get(key, 0)} {unit}"

    lines = [f"{indent}{'human-human ceiling':<34}{_ci(h):>26}  ({count(h, 'n_splits', 'splits')}; published {t})"]
    lines.append(f"{indent}{'model-model':<34}{_ci(mm):>26}  ({count(mm, 'n_pairs', 'pairs')})")
    lines.append(f"{indent}{'model-human, mean over models':<34}{_ci(mh):>26}  ({count(mh, 'n_models', 'models')})")
    for entry in (h, mm, mh):
        if entry.get("reason"):
            lines.append(f"{indent}  note: {entry['reason']}")
    models = sorted(doc["model_human"].items(), key=lambda kv: -np.nan_to_num(
        kv[1]["mean"] if kv[1]["mean"] is not None else np.nan, nan=-9))
    if models:
        lines.append(f"{indent}{'model (vs pooled human index)':<34}{'DMC [CI]':>26}  accuracy")
    for name, e in models:
        acc = e.get("accuracy")
        acc_text = f"{acc:.3f}" if acc is not None and np.isfinite(acc) else "nan"
        note = f"  ({e['reason']})" if e.get("reason") else ""
        lines.append(f"{indent}  {name:<32}{_ci(e):>26}  {acc_text}{note}")
    return lines


def format_dmc(result) -> str:
    """A readable table of a DMC result (each experiment, and the overall mean when there are several).

    Parameters
    ----------
    result : DMCResult
        From :func:`humanlike.measures.dmc.analysis.decision_margin_consistency`.

    Returns
    -------
    str
        Per scope the human–human ceiling (with the published t-interval), model–model, the mean
        model–human value and every model (highest first) with its accuracy.

    Examples
    --------
    >>> from humanlike.measures.dmc.analysis import decision_margin_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> text = format_dmc(decision_margin_consistency(trials, experiments=["sim-blur"], settings=dmc_settings(n_resamples=0)))
    >>> print(text.splitlines()[3])
      human-human ceiling                     0.572 [  nan,   nan]  (3 splits; published t-interval [0.441, 0.703])
    """
    s = result.settings
    level = int(round(s["level"] * 100))
    if s.get("preset") == "paper":
        what = f"{level}% published t-interval over splits, pairs or models"
    else:
        what = (f"{level}% {s['interval']} bootstrap CI over items, observer level: {s['observer_level']}; "
                f"{s['n_resamples']} resamples")
    head = f"decision-margin consistency ({s['method']} on the human {s['scale']} index); estimate [{what}]"
    lines = [head]
    doc = result.to_json_dict()
    experiments = result.experiments
    blocks = [(experiments[0], doc)] if len(experiments) == 1 else list(doc["experiments"].items())
    for name, block in blocks:
        n_cond = len(block["human_human"].get("conditions", {})) or 1
        where = f"condition {s['condition']}" if s["condition"] else f"mean over {n_cond} condition(s)"
        lines.append(f"\nexperiment {name} ({where})")
        lines += _block(block)
    if len(experiments) > 1:
        lines.append(f"\noverall (mean over {len(experiments)} experiments)")
        lines += _block(doc)
    if result.skipped_models:
        names = sorted(result.skipped_models)
        lines.append(f"\nskipped {len(names)} model(s) without usable decision margins: {', '.join(names)}")
    sc = result.self_consistency
    if sc is not None and not sc.experiments.empty:
        pooled = sc.experiments[sc.experiments["observer"] == "(pooled)"]
        for row in pooled.itertuples():
            lines.append(f"self-consistency {row.experiment}: first-vs-second item r {row.item_r:.3f}, "
                         f"noise share of single-trial variance {row.noise_share:.3f}")
    lines.append("(t-interval: the published interval over splits, too narrow: splits share observers)")
    return "\n".join(lines)


# --- benchmark and demo ------------------------------------------------------------------------------

def dmc_cli_settings(args, beside: bool = False) -> ResamplingSettings:
    """The DMC settings of a parsed command line: every resampling option the user gave (``--resamples``,
    ``--level``, ``--seed``, ``--interval``, ``--observer-level``, ``--memory-budget``, ``--workers``), with
    DMC's own observer level (jackknife) where ``--observer-level`` is not given. ``benchmark`` and ``demo``
    compute their DMC rows with it too.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed with :func:`~humanlike.measures.options.add_resampling_options`.
    beside : bool
        DMC is computed beside another measure (``benchmark``'s and ``demo``'s DMC rows): an item-jackknife
        ``--interval`` (EC's kind) without ``--observer-level`` leaves DMC its own percentile interval, with a
        warning, instead of refusing the whole run (``dmc`` itself refuses it: the jackknife intervals come from
        the items alone and would leave out DMC's observer jackknife).

    Returns
    -------
    ResamplingSettings

    Examples
    --------
    >>> import argparse
    >>> args = argparse.Namespace(resamples=200, level=0.9, seed=1, observer_level=None, quiet=True)
    >>> s = dmc_cli_settings(args)
    >>> s.n_resamples, s.observer_level
    (200, 'jackknife')
    """
    if beside and getattr(args, "interval", None) in ITEM_JACKKNIFE_INTERVALS and args.observer_level is None:
        warnings.warn(f"decision-margin consistency keeps its percentile interval: --interval {args.interval} comes "
                      "from the items alone and would leave out DMC's observer jackknife (add --observer-level none "
                      f"to use {args.interval} for DMC too)", RuntimeWarning)
        args = argparse.Namespace(**{**vars(args), "interval": None})
    return resampling_settings(args, observer_level="jackknife")


def dmc_benchmark_rows(trials, *, settings=None, exclusions=None, result=None) -> pd.DataFrame:
    """DMC rows in the benchmark's row format, to append to ``BenchmarkResult.rows``.

    Columns observer, observer_kind, scope, metric (``decision_margin_consistency``), estimate, ci_low,
    ci_high, n_pairs. Observer ``humans``: the split-half noise ceiling (n_pairs = number of splits);
    each model with margins: its DMC to the pooled human index (n_pairs = number of human observers
    pooled). Scopes: every experiment and ``overall`` (mean over experiments; n_pairs summed). Models
    without margins get no rows.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    exclusions : dict, optional
        Conditions to drop per experiment.
    settings : ResamplingSettings, optional
        The settings of the DMC run (default :data:`~humanlike.measures.dmc.analysis.DEFAULT_SETTINGS`: the
        observer jackknife).
    result : DMCResult, optional
        A DMC result already computed (then nothing is recomputed).

    Returns
    -------
    pandas.DataFrame
        The rows; an empty frame (same columns) when no experiment can be analysed.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> rows = dmc_benchmark_rows(trials, settings=dmc_settings(n_resamples=0))
    >>> list(rows.columns)
    ['observer', 'observer_kind', 'scope', 'metric', 'estimate', 'ci_low', 'ci_high', 'n_pairs']
    >>> sorted(rows.loc[rows["scope"] == "overall", "observer"])[:2]
    ['humans', 'model-alien']
    """
    from .analysis import decision_margin_consistency, dmc_settings
    from .kernel import ACCURACY, DMC, MODEL_HUMAN_MEAN
    from ..pairs.aggregation import HUMANS, MODEL_MODEL
    from ...trials.schema import TrialTableError

    if result is None:
        try:
            result = decision_margin_consistency(trials, exclusions=exclusions, settings=dmc_settings(settings))
        except TrialTableError:
            return pd.DataFrame(columns=list(BENCHMARK_COLUMNS))
    s = result.summary_table
    s = s[s["level"].isin(["experiment", "overall"])]
    humans_per_exp = s[(s["group"] == HUMANS) & (s["metric"] == ACCURACY) & (s["level"] == "experiment")]
    humans_per_exp = humans_per_exp.set_index("scope")["n"]
    rows = s[(s["metric"] == DMC) & ~s["group"].isin([MODEL_MODEL, MODEL_HUMAN_MEAN])].copy()
    rows = rows.rename(columns={"group": "observer"})
    rows["observer_kind"] = np.where(rows["observer"] == HUMANS, "human", "model")
    n_pairs = rows["n"].to_numpy().astype(int)
    is_model = (rows["observer"] != HUMANS).to_numpy()
    per_exp = rows["scope"].map(humans_per_exp).fillna(0).to_numpy().astype(int)
    n_pairs = np.where(is_model & (rows["level"] == "experiment").to_numpy(), per_exp, n_pairs)
    rows["n_pairs"] = n_pairs
    # Overall: counts summed over experiments, as in the EC rows.
    exp_rows = rows[rows["level"] == "experiment"]
    totals = exp_rows.groupby("observer")["n_pairs"].sum()
    overall = (rows["level"] == "overall").to_numpy()
    rows.loc[overall, "n_pairs"] = rows.loc[overall, "observer"].map(totals).fillna(0).astype(int).to_numpy()
    rows = rows[list(BENCHMARK_COLUMNS)].reset_index(drop=True)
    rows["n_pairs"] = rows["n_pairs"].astype(int)
    return rows


# --- plan dmc ----------------------------------------------------------------------------------------

def _truth_spec(args):
    if args.distribution == "uniform":
        a, b = args.params if args.params else (0.0, 1.0)
        if not 0.0 <= a < b <= 1.0:
            raise ValueError(f"--params {a:g} {b:g}: a uniform distribution of accuracies needs 0 <= A < B <= 1")
        return ("uniform", a, b), args.items
    if args.distribution == "beta":
        a, b = args.params if args.params else (2.0, 2.0)
        if not (a > 0 and b > 0 and np.isfinite(a) and np.isfinite(b)):
            raise ValueError(f"--params {a:g} {b:g}: a beta distribution needs A > 0 and B > 0")
        return ("beta", a, b), args.items
    if not args.data or not args.experiment:
        raise ValueError("--distribution data needs --data and --experiment")
    trials = load_data(args.data, args)
    rows = trials[(trials["experiment"] == args.experiment) & (trials["observer_kind"] == "human")]
    if args.condition is not None:
        rows = rows[condition_mask(rows["condition"], args.condition)]
    if rows.empty:
        raise ValueError(f"no human responses for experiment {args.experiment!r}"
                         + (f", condition {args.condition!r}" if args.condition else ""))
    accuracy = rows.groupby(["condition", "item"])["correct"].mean().to_numpy(float)
    return accuracy, None


def run_plan_dmc(args) -> int:
    """Handle ``humanlike plan dmc`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['plan', 'dmc']).handler is run_plan_dmc
    True
    """
    from .planning import (
        accuracy_correlation_vs_observers, item_accuracy_interval, trials_for_tolerance,
        within_tolerance_probability,
    )

    p = np.asarray(args.accuracy, dtype=float)
    t = np.asarray(args.trials, dtype=int)
    low, high = item_accuracy_interval(p[:, None], t[None, :], args.level)
    within = within_tolerance_probability(p[:, None], t[None, :], args.tolerance)
    sampling = pd.DataFrame({
        "true_accuracy": np.repeat(p, t.size), "trials": np.tile(t, p.size),
        "low": np.ravel(low), "high": np.ravel(high), "p_within_tolerance": np.ravel(within)})
    needed = np.atleast_1d(trials_for_tolerance(p, args.tolerance, args.probability))
    spec, n_items = _truth_spec(args)
    observers = accuracy_correlation_vs_observers(
        spec, args.observers, args.trials_per_observer, n_items=n_items, n_sim=args.sims,
        max_splits=args.max_splits, seed=args.seed)
    obs_frame = observers.to_frame()
    doc = {
        "sampling": {"level": args.level, "tolerance": args.tolerance, "probability": args.probability,
                     "table": sampling.to_dict("records"),
                     "trials_for_tolerance": [{"true_accuracy": float(a), "trials": int(n)}
                                              for a, n in zip(p, needed)]},
        "observers": {"distribution": observers.distribution, "n_items": observers.n_items,
                      "trials_per_observer": observers.trials_per_observer, "n_sim": observers.n_sim,
                      "table": obs_frame.to_dict("records")},
    }
    if args.json:
        emit_json(doc)
        return 0
    level = int(round(args.level * 100))
    print(f"estimated item accuracy with t trials: {level}% sampling interval, and P(|error| <= {args.tolerance:g})")
    print(sampling.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\ntrials needed to be within +/-{args.tolerance:g} with probability {args.probability:g}:")
    for a, n in zip(p, needed):
        print(f"  true accuracy {a:g}: {int(n)} trials")
    cols = ["n_observers", "mean_corr_truth", "sd_corr_truth", "expected_corr_truth", "mean_split_half",
            "sqrt_split_half", "reason"]
    print(f"\ncorrelation of the pooled estimate with the true item accuracies ({observers.distribution}, "
          f"{observers.n_items} items, {observers.trials_per_observer} trial(s) per observer and item, "
          f"{observers.n_sim} simulations); the split-half ceiling estimates its square:")
    print(obs_frame[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0
