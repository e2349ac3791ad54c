"""``humanlike compare``: is model A more human-like than model B? (docs/compare.md)."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from ...stats.multiple import CORRECTIONS
from ...stats.scores import NORMALISATIONS
from ..registry import get_measure
from .discriminating import DESIGNS
from .planning_ec import MAX_HUMANS
from ..options import (
    add_exclusion_options, add_json_option, add_output_options, add_seed_option, exclusions_of, add_resampling_options, emit_json, float_in, int_at_least, load_data, probability,
    resampling_settings, run_outputs,
)

#: Each measure's default ``--observer-level`` (the same as its own command's).
OBSERVER_LEVEL_DEFAULTS = {"ec": "none", "dmc": "jackknife", "dvc": "none", "ood-alignment": "none"}
#: The registered measure behind each ``--measure`` (its own interval is used where ``--interval`` is not given).
REGISTERED = {"ec": "ec", "dmc": "dmc", "dvc": "dvc", "ood-alignment": "ood"}


def register(sub, plan_sub, name: str) -> None:
    """Register ``compare`` (and ``plan compare``) on the ``humanlike`` parser.

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
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub, "compare")
    >>> sorted(sub.choices), sorted(plan_sub.choices)
    (['compare', 'plan'], ['compare'])
    """
    cmp = sub.add_parser(
        name, help="is model A more human-like than model B? paired differences, p-values, the ceiling",
        description="Every pair of models: the difference of their scores with its interval from the paired "
                    "bootstrap replicates (for EC on one table per pair: MOVER on the profile-likelihood "
                    "intervals), a bootstrap p-value of a zero difference and a correction over the "
                    "family of pairs; each model against the human ceiling, the ceiling against chance. "
                    "docs/compare.md")
    cmp.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    cmp.add_argument("--measure", choices=tuple(OBSERVER_LEVEL_DEFAULTS), required=True,
                     help="the measure whose scores are compared")
    cmp.add_argument("--models", nargs="+", metavar="MODEL",
                     help="compare only these models (the family is their pairs; default: every model)")
    cmp.add_argument("--scope", default="overall",
                     help="'overall' (mean over experiments, default) or one experiment's score; for "
                          "ood-alignment a regime ('overall': the first regime)")
    cmp.add_argument("--reference", nargs="+", metavar="EXP=COND",
                     help="ood-alignment: the reference (undistorted) conditions, as `humanlike ood --reference`")
    cmp.add_argument("--experiment", action="append", metavar="NAME",
                     help="analyse only this experiment (repeatable; default: every experiment)")
    cmp.add_argument("--condition", help="one condition (default: mean over the experiment's conditions)")
    cmp.add_argument("--correction", choices=CORRECTIONS, default="holm",
                     help="multiple-testing correction within each family (default %(default)s)")
    cmp.add_argument("--normalise", choices=NORMALISATIONS, default=None,
                     help="compare ceiling-normalised scores: 'ceiling' = score / human ceiling; 'brainscore' = "
                          "Brain-Score's ceiled EC (clip(|raw|/|ceiling|, 0, 1) per experiment, mean over them)")
    add_exclusion_options(cmp)   # on by default, as in ec, dmc and dvc; not for ood-alignment (whole spectrum)
    cmp.add_argument("--figure", type=Path, help="write the comparison figure here (png/pdf/svg)")
    # No --interval: the differences' intervals are percentile intervals of the paired replicates (MOVER on the
    # profile-likelihood intervals for single-table EC) and the p-values the bootstrap's (docs/compare.md), so a
    # BCa choice would be accepted and ignored there. (Each score's own interval is the measure's, by the
    # method the measure's analysis uses by default.)
    add_resampling_options(cmp, interval=False)
    cmp.set_defaults(observer_level=None)   # None: the measure's own default (OBSERVER_LEVEL_DEFAULTS)
    add_output_options(cmp, out_default=None)
    cmp.set_defaults(handler=run_compare_command)

    plan = plan_sub.add_parser(
        name, help="trials (EC) or items (DMC) needed to resolve a difference between two models",
        description="Power of the paired comparison to resolve a planted difference between two models, by "
                    "simulation: EC from the copy model (one table per human, a model's score its mean EC over the "
                    "--humans; the paired bootstrap, and for one human the exact label-exchange test), DMC from the "
                    "margin model (items, observers; the paired bootstrap). docs/compare.md")
    plan.add_argument("--measure", choices=("ec", "dmc"), default="ec", help="the measure (default %(default)s)")
    plan.add_argument("--delta", type=float_in(-1, 1), required=True,
                      help="planted difference: in EC (ec) or in the margin-truth correlation rho (dmc)")
    plan.add_argument("--kappa", type=float_in(-1, 1), default=0.2, help="model B's EC with the human (ec; default 0.2)")
    plan.add_argument("--accuracy", type=probability, nargs=2, default=(0.8, 0.8), metavar=("HUMAN", "MODELS"),
                      help="accuracies of the human and of both models (ec; default 0.8 0.8)")
    plan.add_argument("--trials", type=int_at_least(10), nargs="+", default=None,
                      help="numbers of trials to simulate (ec; default 100 200 400 800 1600 3200)")
    plan.add_argument("--humans", type=int_at_least(1, MAX_HUMANS), nargs="+", metavar="N",
                      help=f"numbers of humans to simulate, each answering every trial (ec; 1 to {MAX_HUMANS}; "
                           "default 1): a model's score is its mean EC over the humans")
    plan.add_argument("--rho", type=float_in(-1, 1), default=0.4,
                      help="model B's margin-truth correlation (dmc; default 0.4)")
    plan.add_argument("--observers", type=int_at_least(1), default=None,
                      help="human observers, each answering every item (dmc; default 8)")
    plan.add_argument("--items", type=int_at_least(3), nargs="+", default=None,
                      help="numbers of items to simulate (dmc; default 50 100 200 400 800)")
    plan.add_argument("--design", choices=DESIGNS, default=None,
                      help="plan participants of a study whose items are drawn from a candidate pool: 'random' "
                           "(every item of the pool equally likely) or 'discriminating' (items where the models' "
                           "outcomes (ec) or margins (dmc) differ more likely, with known probabilities; the "
                           "pool-level estimate is inverse-probability weighted). docs/designs-that-decide.md")
    plan.add_argument("--participants", type=int_at_least(2), nargs="+", metavar="N",
                      help="numbers of participants to simulate (with --design; default 10 20 40 80 160 320)")
    plan.add_argument("--per-participant", type=int_at_least(1), default=None, metavar="TRIALS",
                      help="trials each participant sees (with --design; default 40)")
    plan.add_argument("--floor", type=float_in(0, 10), default=None,
                      help="added to every item's discrimination score (in [0, 1]) before drawing, > 0 so that every "
                           "item keeps a probability above 0 (with --design discriminating; default 0.2)")
    plan.add_argument("--pool", type=int_at_least(10), default=None, metavar="ITEMS",
                      help="candidate items in the pool (with --design; default 800)")
    plan.add_argument("--power", type=probability, default=0.8, help="target power (default 0.8)")
    plan.add_argument("--alpha", type=probability, default=0.05,
                      help="level of one comparison (divide by the family size for a Holm/Bonferroni plan)")
    plan.add_argument("--sets", type=int_at_least(20), default=400, help="simulated data sets per size (default 400)")
    plan.add_argument("--resamples", type=int_at_least(50), default=400,
                      help="bootstrap resamples per data set (default 400)")
    plan.add_argument("--no-exact", action="store_true", help="skip the exact label-exchange test (ec; faster)")
    add_seed_option(plan)
    add_json_option(plan)
    plan.set_defaults(handler=run_plan_compare)


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
    >>> from humanlike.app.cli import build_parser
    >>> compare_settings(build_parser().parse_args(["compare", "d/", "--measure", "dmc"])).observer_level
    'jackknife'
    """
    level = args.observer_level or OBSERVER_LEVEL_DEFAULTS[args.measure]
    return resampling_settings(argparse.Namespace(**{**vars(args), "observer_level": level}),
                               interval=get_measure(REGISTERED[args.measure]).interval)


def measure_result(trials, measure: str, settings, *, exclusions, experiments=None, condition=None,
                   reference=None):
    """The measure's result on a trial table, with the replicates the comparison needs.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    measure : {"ec", "dmc", "dvc", "ood-alignment"}
        The measure (``dvc``: the latent correlation of correctness, as ``humanlike dvc choices``;
        ``ood-alignment``: the OOD spectrum's error-alignment ratios, as ``humanlike ood``).
    settings : ResamplingSettings
        Resampling settings.
    exclusions : dict or None
        Conditions to drop first.
    experiments : list of str, optional
        Experiments to analyse.
    condition : str, optional
        One condition.
    reference : list of str, optional
        ``EXP=COND`` reference conditions (ood-alignment).

    Returns
    -------
    ErrorConsistencyResult, DMCResult, LatentBenchmarkResult or OODResult

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = measure_result(simulate_benchmark(seed=0, n_humans=3, n_items=32), "ec",
    ...                    ResamplingSettings(n_resamples=10), exclusions=None)
    >>> type(r).__name__
    'ErrorConsistencyResult'
    """
    if measure == "ec":
        from ..ec.analysis import error_consistency

        return error_consistency(trials, experiments=experiments, condition=condition, exclusions=exclusions,
                                 settings=settings, validate=False)
    if measure == "dvc":
        from ..dvc.choices import latent_correctness_correlation

        if condition is not None:
            raise ValueError("--condition is not available for --measure dvc (it averages over conditions)")
        return latent_correctness_correlation(trials, experiments=experiments, exclusions=exclusions,
                                              settings=settings, validate=False)
    if measure == "ood-alignment":
        from ..ood.analysis import ood_analysis
        from ..ood.cli import parse_reference

        if exclusions or experiments or condition:
            raise ValueError("--measure ood-alignment takes the whole spectrum: no --exclusions, --experiment "
                             "or --condition")
        return ood_analysis(trials, parse_reference(reference), settings=settings)
    from ..dmc.analysis import decision_margin_consistency

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
        0 on success; bad input raises and :func:`humanlike.app.cli.main` exits 2 with one line.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(["compare", "raw/", "--measure", "ec"]).handler is run_compare_command
    True
    """
    from .adapters import compare
    settings = compare_settings(args)
    if settings.n_resamples < 2:
        raise ValueError("compare needs bootstrap replicates: --resamples must be at least 2")
    run = run_outputs(args, settings)
    trials = load_data(args.data)
    exclusions = exclusions_of(args)
    if args.measure == "ood-alignment":
        # The spectrum needs every condition (its reference conditions are among the excluded ones): the
        # default exclusions do not apply, and asking for them explicitly is an error (measure_result).
        exclusions = exclusions if args.exclusions_given else None
    result = measure_result(trials, args.measure, settings, exclusions=exclusions, experiments=args.experiment,
                            condition=args.condition, reference=args.reference)
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
        from .plot import comparison_figure

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
        From :func:`humanlike.measures.compare.adapters.compare`.

    Returns
    -------
    str
        Lines of text.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.stats.comparison import compare_scores
    >>> from humanlike.stats.scores import Scores
    >>> reps = np.array([0.4, 0.2]) + np.random.default_rng(0).normal(0, 0.01, (200, 2))
    >>> text = format_comparison(compare_scores(Scores("error_consistency", "overall", ("a", "b"), [0.4, 0.2],
    ...                                                reps, 0.5, np.full(200, 0.5))))
    >>> print(text.splitlines()[1])
    human ceiling +0.500 [+0.500, +0.500] (percentile (paired bootstrap))
    """
    s = comparison.settings
    lines = [f"{s['measure']} ({s['scope']}), {s['n_resamples']} paired resamples, level {s['level']}, "
             f"correction {s['correction']}" + (f", normalised: {s['normalise']}" if s["normalise"] else "")]
    c = comparison.ceiling
    method = f" ({c['interval']})" if c.get("interval") else ""
    lines.append(f"human ceiling {_num(c['estimate'])} [{_num(c['ci_low'])}, {_num(c['ci_high'])}]{method}")
    lines.append("")
    methods = ", ".join(m for m in dict.fromkeys(comparison.scores["interval"]) if m)
    lines.append(f"models by score (interval: {methods}; models sharing a letter are not resolved from one "
                 "another):")
    norm = s["normalise"] is not None
    for row in comparison.scores.itertuples(index=False):
        extra = (f"   normalised {_num(row.normalised)} [{_num(row.normalised_low)}, {_num(row.normalised_high)}]"
                 if norm else "")
        lines.append(f"  {row.rank:>3}. {row.model:<28} {_num(row.estimate)} [{_num(row.ci_low)}, "
                     f"{_num(row.ci_high)}]  {row.letters:<6}{extra}")
    frame = comparison.to_frame()
    for family, rows in frame.groupby("family", sort=False):
        lines.append("")
        methods = ", ".join(m for m in dict.fromkeys(rows["interval"]) if m)
        lines.append(f"{family}, {rows['test'].iloc[0]}{f'; interval: {methods}' if methods else ''}:")
        for row in rows.itertuples(index=False):
            mark = "resolved" if row.resolved else "not resolved"
            interval = (f" [{_num(row.ci_low)}, {_num(row.ci_high)}]" if row.ci_low == row.ci_low else "")
            lines.append(f"  {row.model_a} - {row.model_b}: {_num(row.difference)}{interval}  "
                         f"p {row.p_value:.4f}, adjusted {row.p_adjusted:.4f}  {mark}")
    notes = s.get("notes") or []
    lines += ["", *[f"note: {n}" for n in notes]] if notes else []
    return "\n".join(lines)


#: ``plan compare``'s trials (EC, one table per human), items and observers (DMC) and, with ``--design``, its
#: participants, trials per participant, floor and pool size when not given.
DEFAULT_TRIALS = (100, 200, 400, 800, 1600, 3200)
DEFAULT_ITEMS, DEFAULT_OBSERVERS = (50, 100, 200, 400, 800), 8
DESIGN_DEFAULTS = {"participants": (10, 20, 40, 80, 160, 320), "per_participant": 40, "floor": 0.2, "pool": 800}


def check_design_options(args) -> None:
    """Refuse ``--design`` options that do not apply: a design plan is of participants, a table plan of trials
    (EC) or items (DMC).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``humanlike plan compare`` command line.

    Raises
    ------
    ValueError
        Naming the option that does not apply.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> args = build_parser().parse_args(["plan", "compare", "--delta", "0.1", "--participants", "20"])
    >>> try:
    ...     check_design_options(args)
    ... except ValueError as err:
    ...     print(err)
    --participants applies with --design random|discriminating only (a plan of participants drawing items from a pool)
    """
    design_only = [("--participants", args.participants), ("--per-participant", args.per_participant),
                   ("--floor", args.floor), ("--pool", args.pool)]
    if args.design is None:
        for name, value in design_only:
            if value is not None:
                raise ValueError(f"{name} applies with --design random|discriminating only (a plan of participants "
                                 "drawing items from a pool)")
        return
    for name, value in (("--trials", args.trials), ("--humans", args.humans), ("--items", args.items),
                        ("--observers", args.observers)):
        if value is not None:
            raise ValueError(f"{name} does not apply with --design (the plan is of participants: use --participants "
                             "and --per-participant)")
    if args.floor is not None and args.design == "random":
        raise ValueError("--floor applies to --design discriminating only (the random design draws every item "
                         "equally)")
    if args.floor is not None and args.floor <= 0:
        raise ValueError(f"--floor {args.floor:g} must be above 0: every item needs a probability above 0, or the "
                         "pool-level comparison is not identified")
    pool = args.pool or DESIGN_DEFAULTS["pool"]
    per = args.per_participant or DESIGN_DEFAULTS["per_participant"]
    if per >= pool:
        raise ValueError(f"--per-participant {per} must be below --pool {pool} (each participant sees a part of "
                         "the pool)")


# The exact label-exchange test enumerates about (trials / 2)^2 outcomes per data set: 20000 trials take about
# a second each, 10^5 trials a minute and 10^6 more memory than a machine has.
EXACT_TRIALS_LIMIT = 20000


def check_plan_compare_options(args) -> None:
    """Refuse, before any simulation, ``plan compare`` options that cannot be planted or run, naming the options
    and the values given (not the derived quantities the simulation would have complained about).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``humanlike plan compare`` command line.

    Raises
    ------
    ValueError
        For a planted EC outside the range the accuracies allow, a correlation outside [-1, 1], or more
        trials than the exact test can enumerate.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> args = build_parser().parse_args(["plan", "compare", "--measure", "dmc", "--rho", "1", "--delta", "0.1"])
    >>> try:
    ...     check_plan_compare_options(args)
    ... except ValueError as err:
    ...     print(err)
    --rho 1 with --delta 0.1 plants model A's margin-truth correlation at 1.1 (--rho + --delta), outside [-1, 1]; lower --rho or --delta
    """
    from .planning_ec import joint_cell_probabilities

    check_design_options(args)
    if args.measure == "dmc":
        if not -1 <= args.rho <= 1:
            raise ValueError(f"--rho {args.rho:g} must lie in [-1, 1]")
        if not -1 <= args.rho + args.delta <= 1:
            raise ValueError(f"--rho {args.rho:g} with --delta {args.delta:g} plants model A's margin-truth "
                             f"correlation at {args.rho + args.delta:g} (--rho + --delta), outside [-1, 1]; lower "
                             "--rho or --delta")
        return
    for name, value in (("--items", args.items), ("--observers", args.observers)):
        if value is not None:
            raise ValueError(f"{name} is for --measure dmc; an EC plan takes --trials and --humans")
    a_human, a_model = args.accuracy
    for name, kappa in (("--kappa", args.kappa), ("--kappa + --delta", args.kappa + args.delta)):
        try:
            joint_cell_probabilities(kappa, kappa, a_human, a_model, a_model, 0.0, 1)
        except ValueError as err:
            why = str(err).split(": ", 1)[-1]
            raise ValueError(f"--kappa {args.kappa:g} with --delta {args.delta:g} plants an EC of {kappa:g} "
                             f"({name}), which --accuracy {a_human:g} {a_model:g} cannot give ({why}); lower --delta "
                             "or --kappa") from None
    if args.design is not None:
        return
    if not args.no_exact and 1 in (args.humans or [1]) and max(args.trials or DEFAULT_TRIALS) > EXACT_TRIALS_LIMIT:
        raise ValueError(f"--trials {max(args.trials or DEFAULT_TRIALS)} is more than the exact label-exchange test can enumerate "
                         f"(up to {EXACT_TRIALS_LIMIT} trials: it counts about (trials / 2)^2 outcomes per data set); "
                         f"add --no-exact (the paired bootstrap only) or give --trials up to {EXACT_TRIALS_LIMIT}")


def run_plan_compare(args) -> int:
    """Handle ``humanlike plan compare``; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        0 on success; bad input raises and :func:`humanlike.app.cli.main` exits 2 with one line.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(["plan", "compare", "--delta", "0.1"]).handler is run_plan_compare
    True
    """
    from .planning import plan_dmc_comparison, plan_ec_comparison

    check_plan_compare_options(args)   # in the options' own words, before any simulation
    if args.design is not None:
        return run_plan_design_compare(args)
    if args.measure == "ec":
        a_human, a_model = args.accuracy
        plan = plan_ec_comparison(args.delta, kappa_b=args.kappa, a_human=a_human, a_model=a_model,
                                  trials=sorted(set(args.trials or DEFAULT_TRIALS)), target=args.power, alpha=args.alpha,
                                  n_sets=args.sets, n_resamples=args.resamples, exact=not args.no_exact,
                                  seed=args.seed, humans=sorted(set(args.humans or [1])))
    else:
        if args.humans is not None:
            raise ValueError("--humans is for --measure ec; a DMC plan takes --observers")
        plan = plan_dmc_comparison(args.delta, rho_b=args.rho, n_observers=args.observers or DEFAULT_OBSERVERS,
                                   items=sorted(set(args.items or DEFAULT_ITEMS)), target=args.power,
                                   alpha=args.alpha,
                                   n_sets=args.sets, n_resamples=args.resamples, seed=args.seed)
    doc = {"measure": plan.measure, "true_difference": plan.true_difference, "target_power": plan.target,
           "alpha": plan.alpha, "design": plan.design, "humans": list(plan.humans),
           "needed": [{"test": test, "humans": h, "size": size}
                      for test, by_humans in plan.needed.items() for h, size in by_humans.items()],
           "power": plan.to_frame().to_dict("records")}
    if args.json:
        emit_json(doc)
        return 0
    print(format_plan(plan))
    return 0


def run_plan_design_compare(args) -> int:
    """``plan compare --design``: participants needed under a random or a discriminating design (EC from the copy
    model, DMC from the margin model).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``--design`` given, options checked).

    Returns
    -------
    int
        0.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> args = build_parser().parse_args(["plan", "compare", "--delta", "0.1", "--design", "random"])
    >>> args.design, args.handler is run_plan_compare   # run_plan_compare hands a --design plan to this function
    ('random', True)
    """
    from .design_simulation import plan_design_comparison, plan_dmc_design_comparison

    shared = dict(participants=args.participants or DESIGN_DEFAULTS["participants"],
                  per_participant=args.per_participant or DESIGN_DEFAULTS["per_participant"],
                  floor=args.floor or DESIGN_DEFAULTS["floor"], pool_size=args.pool or DESIGN_DEFAULTS["pool"],
                  target=args.power, alpha=args.alpha, n_sets=args.sets, seed=args.seed)
    if args.measure == "dmc":
        plan = plan_dmc_design_comparison(args.delta, args.design, rho_b=args.rho, **shared)
    else:
        a_human, a_model = args.accuracy
        plan = plan_design_comparison(args.delta, args.design, kappa_b=args.kappa, a_human=a_human, a_model=a_model,
                                      **shared)
    doc = {"measure": plan.measure, "design": args.design, "true_difference": plan.true_difference,
           "target_power": plan.target, "alpha": plan.alpha, "settings": plan.design,
           "needed": [{"test": test, "participants": size} for test, by in plan.needed.items() for size in by.values()],
           "power": plan.to_frame().drop(columns="humans").rename(columns={"size": "participants"}).to_dict("records")}
    if args.json:
        emit_json(doc)
        return 0
    print(format_plan(plan))
    return 0


def format_plan(plan) -> str:
    """A comparison plan as text: power per size (and per number of humans), the smallest size reaching the target.

    One-human EC plans and DMC plans print without the humans column (as before ``--humans`` existed).

    Parameters
    ----------
    plan : ComparisonPlan
        From :func:`humanlike.measures.compare.planning.plan_ec_comparison` or ``plan_dmc_comparison``.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.compare.planning import ComparisonPlan
    >>> plan = ComparisonPlan("error_consistency", np.array([100, 400]), {"bootstrap": np.array([[0.3, 0.9]])},
    ...                       {"bootstrap": {1: 400}}, 0.8, 0.05, 0.2, {"unit": "trials", "n_sets": 50})
    >>> print(format_plan(plan).splitlines()[-1])
    bootstrap: 400 trials reach power 0.8
    """
    unit = plan.design["unit"]
    by_humans = unit == "trials" and plan.humans != (1,)
    lines = [f"power to resolve a difference of {plan.true_difference:+.3f} in {plan.measure} (alpha {plan.alpha}, "
             f"{plan.design['n_sets']} simulated data sets per size" + ("; a model's score is its mean EC over the "
                                                                       "humans):" if by_humans else "):")]
    frame = plan.to_frame()
    index = ["humans", "size"] if by_humans else "size"
    wide = frame.pivot(index=index, columns="test", values="power").rename(columns={"size": unit})
    wide = wide.rename_axis(index={"size": unit}).reset_index()
    lines.append(wide.to_string(index=False, na_rep="-"))
    for test, needed in plan.needed.items():
        for h, size in needed.items():
            label = f"{test}, {h} human{'s' if h > 1 else ''}" if by_humans else test
            lines.append(f"{label}: " + (f"{size} {unit} reach power {plan.target}" if size is not None
                                         else f"power {plan.target} not reached within {int(plan.sizes.max())} {unit}"))
    lines += [f"note: {n}" for n in plan.design.get("notes", [])]
    return "\n".join(lines)
