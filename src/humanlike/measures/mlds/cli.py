"""The ``mlds`` command: maximum-likelihood difference scaling of judgement files."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..options import (
    RESAMPLES_DEFAULT_EXCEPTIONS, add_output_options, add_resampling_options, bounded_resample_count, emit_json,
    resampling_settings, run_outputs,
)

# Every bootstrap draw / simulation refits the scale (milliseconds each): 100,000 is minutes, 1e8 days.
REFITS = bounded_resample_count(100_000, "each one refits the scale")


def register(sub, plan_sub, name: str) -> None:
    """Register this module's command (``mlds``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (unused: nothing to plan).
    name : str
        The command's name: the registered entry's (``humanlike <name>``, ``humanlike plan <name>``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub, "mlds")
    >>> sorted(sub.choices)
    ['mlds', 'plan']
    """
    mlds = sub.add_parser(
        name, help="maximum-likelihood difference scaling (R MLDS): scales, intervals, six-point test",
        description="Fit a perceptual difference scale (MLDS) to triad or quadruple judgements. Several files "
                    "are pooled (e.g. kk1 kk2 kk3); files with an observer column give one scale per observer. "
                    "Layouts: R MLDS (resp,S1,S2,S3[,S4][,Obs]), the Python wrapper (Trial,Response,s1..,i1..) "
                    "or the tidy judgement table. A stimulus_levels.json beside a file supplies the physical "
                    "level values.")
    mlds.add_argument("files", nargs="+", type=Path, help="judgement file(s), pooled")
    mlds.add_argument("--link", choices=("probit", "logit", "cauchit"), default="probit")
    mlds.add_argument("--method", choices=("glm", "optim", "power"), default="glm",
                      help="glm (R's default), optim (psi_1 = 0, psi_p = 1, sigma free) or a power-function scale")
    mlds.add_argument("--six-point", type=REFITS, default=0, metavar="N", help="six-point test simulations")
    mlds.add_argument("--runs", type=REFITS, default=0, metavar="N",
                      help="runs test / residual envelope simulations")
    mlds.add_argument("--observer", action="append", metavar="O", help="only this observer (repeatable)")
    mlds.add_argument("--pool", choices=("auto", "always", "never"), default="auto",
                      help="one scale per participant (never), one pooled across participants whose interval "
                           "resamples participants (always), or pooled only for the scales where some participant's "
                           "own scale is not identified or separated (auto, the default; a study of design "
                           "'pooled' is always pooled); the manifest records which, and why")
    mlds.add_argument("--firth", action="store_true",
                      help="separated (deterministic) data: report a Firth-penalised scale, flagged, instead of NaN")
    mlds.add_argument("--keep-separated", action="store_true",
                      help="bootstrap: keep separated replicates where IRLS stopped, as R's boot.mlds "
                           "(default: leave them out and report their share)")
    # --resamples: parametric bootstrap refits (default 0: each one refits the scale)
    add_resampling_options(mlds, interval=False, observer_level=False, workers=False, resamples_type=REFITS,
                           resamples_default=RESAMPLES_DEFAULT_EXCEPTIONS["mlds"][0])
    add_output_options(mlds, out_default=None)
    mlds.add_argument("--figure", type=Path, help="write the scale figure here (png/pdf/svg)")
    mlds.set_defaults(handler=run_mlds)


def run_mlds(args) -> int:
    """Handle ``humanlike mlds`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['mlds', 'kk1.csv']).handler is run_mlds
    True
    """
    from .analysis import analyse_mlds
    from ...trials.judgement_files import load_judgements
    from ...trials.judgements import validate_judgements
    from ...trials.studies import read_sources  # also a `humanlike serve` study folder or database URL

    settings = resampling_settings(args)
    run = run_outputs(args, {**settings.to_dict(), "six_point": args.six_point, "runs": args.runs,
                             "separated_replicates": "keep" if args.keep_separated else "exclude"})
    table = read_sources(args.files, load_judgements, validate_judgements)
    designs = table.attrs.get("study_designs", {})
    results = analyse_mlds(table, settings=settings, link=args.link, method=args.method, six_point=args.six_point,
                           runs=args.runs, observer=args.observer, penalty="firth" if args.firth else None,
                           separated_replicates="keep" if args.keep_separated else "exclude",
                           pool=study_pooling(args.pool, designs))
    if args.out is not None:
        run.add_table(results.scale_table(), "mlds", args.format)
    if args.figure:
        from .plot import mlds_scale_figure

        run.figure(mlds_scale_figure(results), args.figure)
    run.finish({**run.settings, "pool": args.pool, "fits": results.settings["fits"], "study_designs": designs})
    if args.json:
        emit_json(results.to_json_dict())
        return 0
    for choice in results.settings["fits"]:
        print(f"scale {choice['scale_id']}: {choice['fit']} fit ({choice['participants']} participant(s), "
              f"{choice['trials']} trials): {choice['why']}")
    for result in results:
        _print_result(result)
    return 0


def study_pooling(pool: str, designs: dict) -> str:
    """The pooling asked for, made ``always`` under ``auto`` when a study's design is ``pooled`` or ``adaptive``
    (crowd designs: each participant answers part of the judgements, chosen for the pooled scale).

    Parameters
    ----------
    pool : {"auto", "always", "never"}
        ``--pool``.
    designs : dict
        Study -> design report (``table.attrs["study_designs"]`` of :func:`humanlike.web.sources.read_sources`).

    Returns
    -------
    str

    Examples
    --------
    >>> study_pooling("auto", {"my-study": {"design": "pooled"}}), study_pooling("never", {"s": {"design": "pooled"}})
    ('always', 'never')
    """
    if pool == "auto" and any(report.get("design") in ("pooled", "adaptive") for report in designs.values()):
        return "always"
    return pool


def _print_result(result) -> None:
    out = sys.stdout
    fit = result.fit
    out.write(f"observer {result.observer}, scale {result.scale_id}: {fit.method} ({fit.link}), "
              f"{fit.n_trials} trials, status {fit.status}\n")
    if fit.reason:
        out.write(f"  {fit.reason}\n")
    frame = result.scale_table().drop(columns=["observer", "scale_id", "reason"])
    out.write(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
    out.write(f"  sigma {fit.sigma:.6g}   logLik {fit.loglik:.4f}   AIC {fit.aic:.4f}   DAF {fit.daf:.4f}   "
              f"misclassified {fit.misclassified:.4f}\n")
    intervals = result.intervals()
    if intervals:
        low, high = intervals["sigma"]
        out.write(f"  sigma {result.level:.0%} interval [{low:.4g}, {high:.4g}] "
                  f"(separated replicates {result.bootstrap.separated_share:.1%})\n")
    if result.six_point is not None:
        out.write(f"  six-point test: {result.six_point.n_conditions} conditions, p = {result.six_point.p_value:.4f}\n")
    if result.runs is not None:
        out.write(f"  runs test: {result.runs.observed_runs} runs, p = {result.runs.p_value:.4f}; "
                  f"{result.runs.outside_envelope} sorted residuals outside the envelope\n")
    for note in result.notes:
        out.write(f"  note: {note}\n")
    if not np.isfinite(fit.sigma):
        out.write("  (no finite scale)\n")
