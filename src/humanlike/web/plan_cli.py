"""``humanlike plan design``: how many participants a study design needs, simulated before the study
(registered on ``plan`` by :func:`humanlike.web.cli.add_serve_commands`).

Imported when the parser is built, so it imports nothing heavy: the simulation is imported by the handler.
"""

from __future__ import annotations

import argparse



def _counts(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got {text!r}") from None
    if not values or min(values) < 2:
        raise argparse.ArgumentTypeError(f"expected numbers of participants of at least 2, got {text!r}")
    return sorted(set(values))


def _width(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value <= 2:
        raise argparse.ArgumentTypeError(f"must lie in (0, 2], got {value}")
    return value


_counts.bad_examples = ["1", "x", ""]
_width.bad_examples = ["0", "3", "x"]


def add_plan_design(plan_sub) -> None:
    """Register ``humanlike plan design`` on ``plan``'s subcommands.

    Parameters
    ----------
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="plan")
    >>> add_plan_design(parser.add_subparsers(dest="plan_command"))
    >>> args = parser.parse_args(["design", "--task", "classify", "--participants", "20,10"])
    >>> args.participants, args.per_participant
    ([10, 20], 0)
    """
    from ..measures.options import add_json_option, add_seed_option, float_in, int_at_least

    at_least_one = int_at_least(1)

    plan = plan_sub.add_parser(
        "design", help="participants a study design needs for a target interval width (EC, MLDS scale)",
        description="Simulate the study before running it: the server's own trial lists for each candidate number "
                    "of participants, answered by simulated participants with a planted truth, analysed as the "
                    "study will be (classify: the mean human-human error consistency's interval; triads/quads: "
                    "the pooled MLDS standard scale's interval, resampling participants). Reports the median "
                    "interval width per candidate and the fewest participants reaching --target-width. See "
                    "docs/run-your-own-experiment.md#planning-a-design.")
    plan.add_argument("--task", choices=("classify", "triads", "quads"), required=True)
    plan.add_argument("--design", choices=("everything", "subset", "latin-square", "pooled"),
                      help="as `serve init --design` (default: what --per-participant implies)")
    plan.add_argument("--per-participant", type=at_least_one, default=0, metavar="N", help="main trials per participant")
    plan.add_argument("--items", type=at_least_one, default=32, help="classify: items (default %(default)s)")
    plan.add_argument("--conditions", type=at_least_one, default=1, help="classify: conditions (default %(default)s)")
    plan.add_argument("--levels", type=at_least_one, default=7, help="judgements: levels per sequence (default %(default)s)")
    plan.add_argument("--sequences", type=at_least_one, default=3, help="judgements: sequences (default %(default)s)")
    plan.add_argument("--participants", type=_counts, default=[10, 20, 40, 80], metavar="N,N,...",
                      help="candidate numbers of participants (default 10,20,40,80)")
    plan.add_argument("--target-width", type=_width, default=0.2, metavar="W",
                      help="wanted 95%% interval width (default %(default)s)")
    plan.add_argument("--repeats", type=at_least_one, default=3, help="simulated studies per candidate (default %(default)s)")
    plan.add_argument("--resamples", type=at_least_one, default=200, help="bootstrap resamples per analysis")
    add_seed_option(plan)   # the simulated studies and their bootstraps
    add_json_option(plan)
    plan.add_argument("--p-easy", type=float_in(0, 1), default=0.9, help="classify: accuracy on the easy half of the items")
    plan.add_argument("--p-hard", type=float_in(0, 1), default=0.2, help="classify: accuracy on the hard half of the items")
    plan.add_argument("--sigma", type=float_in(0, open_low=True), default=0.2, help="judgements: decision noise (scale 0..1)")
    plan.add_argument("--exponent", type=float_in(0, open_low=True), default=2.0, help="judgements: the scale psi = level ** exponent")
    plan.set_defaults(handler=run_plan_design)


def run_plan_design(args) -> int:
    """Handle ``humanlike plan design``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit code, 0 on success.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(["plan", "design", "--task", "triads"]).handler is run_plan_design
    True
    """
    from .config import StudyConfig, StudyConfigError
    from .planning import plan_design, planted_truth, synthetic_stimuli

    try:
        config = StudyConfig(title="plan", task=args.task, stimuli=".", labels=["a", "b"], design=args.design or "",
                             trials_per_participant=args.per_participant, practice_trials=0, catch_trials=0)
        stimuli = synthetic_stimuli(args.task, args.items, args.conditions, args.levels, args.sequences)
        truth = ({"p_easy": args.p_easy, "p_hard": args.p_hard} if args.task == "classify"
                 else {"sigma": args.sigma, "exponent": args.exponent})
        plan = plan_design(config, stimuli, args.participants, repeats=args.repeats, resamples=args.resamples,
                           seed=args.seed, **truth)
    except StudyConfigError as err:
        raise ValueError(str(err)) from None
    ec_kind = "mean" if config.design == "everything" else "pooled"
    what = (f"{ec_kind} human-human error consistency" if args.task == "classify"
            else "pooled MLDS standard scale (mean over interior levels and scales)")
    enough = plan[plan["median_width"] <= args.target_width]
    fewest = int(enough["participants"].iloc[0]) if len(enough) else None
    if args.json:
        from ..measures.options import emit_json

        emit_json({"design": config.design, "task": args.task, "estimand": what, "level": 0.95,
                   "planted_truth": planted_truth(args.task, n_levels=args.levels, **truth),
                   "target_width": args.target_width, "fewest_participants": fewest,
                   "candidates": plan.to_dict(orient="records")})
        return 0
    print(f"design {config.design}, {args.task}, {config.trials_per_participant or 'all'} trial(s) per participant: "
          f"95% interval width of the {what}, median of {args.repeats} simulated studies; planted truth "
          f"{planted_truth(args.task, n_levels=args.levels, **truth):.3f} (set median_estimate against it; "
          "error consistency as `humanlike ec STUDY` gives it: pooled over pairs unless everyone sees everything)")
    print(plan.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if fewest is not None:
        print(f"fewest participants reaching width {args.target_width}: {fewest}")
    else:
        print(f"no candidate reaches width {args.target_width}: try more participants (--participants)")
    return 0
