"""The ``humanlike psychometrics`` command: accuracy and entropy per condition, observed beside error
consistency per experiment, every value with its interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..options import (add_data_options, add_output_options, add_resampling_options, emit_json, load_data,
                       resampling_settings, run_outputs)


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - no planning command for this family
    """Register ``humanlike psychometrics`` on the ``humanlike`` parser.

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
    >>> register(sub, None, "psychometrics")
    >>> args = parser.parse_args(["psychometrics", "raw-data/", "--experiment", "contrast"])
    >>> resampling_settings(args, observer_level="bootstrap").observer_level, args.experiment, args.handler.__name__
    ('bootstrap', ['contrast'], 'run_psychometrics_command')
    """
    p = sub.add_parser(name, help="accuracy and response entropy per condition, observed beside error "
                                             "consistency per experiment (model-vs-human's figures), with intervals")
    p.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_data_options(p)   # --humans, --labels: the messages of loading name them
    # The humans' summaries get intervals over images and humans by default.
    add_resampling_options(p)
    add_output_options(p, out_default=None)
    p.add_argument("--experiment", action="append", help="only this experiment (repeatable; default: all)")
    p.add_argument("--no-consistency", action="store_true",
                   help="skip observed and error consistency per experiment (they need every pair of observers)")
    p.add_argument("--figures", type=Path, help="folder for one figure per experiment (PNG)")
    p.set_defaults(handler=run_psychometrics_command)


def consistency_by_experiment(result) -> pd.DataFrame:
    """Observed consistency beside error consistency, per experiment and observer, from an EC result.

    Parameters
    ----------
    result : ErrorConsistencyResult
        From :func:`humanlike.measures.ec.analysis.error_consistency`.

    Returns
    -------
    pandas.DataFrame
        Columns experiment (and ``overall``: the mean over experiments), observer (``humans``: the human–human
        mean), and per metric (observed_consistency,
        error_consistency) its estimate, ``_low`` and ``_high``; model–model rows dropped.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=50))
    >>> table = consistency_by_experiment(r)
    >>> list(table.columns)[:4]
    ['experiment', 'observer', 'observed_consistency', 'observed_consistency_low']
    """
    frame = result.to_frame()
    frame = frame[(frame["group"] != "model-model") & frame["metric"].isin(["observed_consistency",
                                                                            "error_consistency"])]
    parts = []
    for metric in ("observed_consistency", "error_consistency"):
        part = frame[frame["metric"] == metric][["scope", "group", "estimate", "ci_low", "ci_high"]]
        parts.append(part.rename(columns={"estimate": metric, "ci_low": f"{metric}_low", "ci_high": f"{metric}_high"})
                     .set_index(["scope", "group"]))
    out = parts[0].join(parts[1]).reset_index().rename(columns={"scope": "experiment", "group": "observer"})
    return out


def experiment_consistency(trials, experiments, settings) -> pd.DataFrame:
    """:func:`consistency_by_experiment` of the experiments with two observers or more; an experiment with one
    observer has a row of NaN whose ``reason`` says why (accuracy and entropy are defined there, consistency is not).

    Parameters
    ----------
    trials : pandas.DataFrame
        Validated trials.
    experiments : list of str or None
        The experiments asked for (None: all).
    settings : ResamplingSettings
        The run's settings.

    Returns
    -------
    pandas.DataFrame
        One row per observer (and ``humans``) and experiment, with a ``reason`` column.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> t = simulate_benchmark(seed=0)
    >>> lone = t[(t["experiment"] == "sim-noise") & (t["observer"] == t["observer"].iloc[0])]
    >>> experiment_consistency(lone, None, ResamplingSettings(n_resamples=0))[["observer", "reason"]].values.tolist()
    [['humans', 'one observer in the experiment: consistency compares pairs']]
    """
    from ..ec.analysis import error_consistency
    from .analysis import HUMANS

    observers = trials.groupby("experiment")["observer"].nunique()
    wanted = list(experiments) if experiments else sorted(observers.index)
    paired = [e for e in wanted if observers.get(e, 0) >= 2]
    frames = []
    if paired:
        frames.append(consistency_by_experiment(error_consistency(trials, experiments=paired, settings=settings,
                                                                  validate=False)).assign(reason=""))
    for experiment in (e for e in wanted if e not in paired):
        frames.append(pd.DataFrame({"experiment": [experiment], "observer": [HUMANS], "reason":
                                    ["one observer in the experiment: consistency compares pairs"]}))
    out = pd.concat(frames, ignore_index=True)
    for metric in ("observed_consistency", "error_consistency"):
        for column in (metric, f"{metric}_low", f"{metric}_high"):
            out[column] = out[column].astype(float) if column in out else np.nan
    return out[["experiment", "observer", *[c for c in out.columns if c not in ("experiment", "observer", "reason")],
                "reason"]]


def run_psychometrics_command(args) -> int:
    """Handle ``humanlike psychometrics`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(["psychometrics", "raw-data/"]).handler is run_psychometrics_command
    True
    """
    from .analysis import psychometrics

    settings = resampling_settings(args, observer_level="bootstrap")   # its own: humans resampled too
    run = run_outputs(args, settings)
    trials = load_data(args.data, args)   # validated by the loader, with --humans, --labels, --on-conflict
    result = psychometrics(trials, settings=settings, experiments=args.experiment, validate=False)
    consistency = None
    if not args.no_consistency:
        consistency = experiment_consistency(trials, args.experiment, settings)
    document = result.to_json_dict()
    if consistency is not None:
        document["consistency"] = [{k: (None if isinstance(v, float) and not np.isfinite(v) else v)
                                    for k, v in r.items()} for r in consistency.to_dict("records")]
    if args.out is not None:
        run.add_table(result.observer_frame(), "psychometrics", args.format)
        run.add_table(result.human_range(), "psychometrics_human_range", args.format)
        if consistency is not None:
            run.add_table(consistency, "consistency", args.format)
        run.json(document, args.out / "psychometrics.json")
    if args.figures is not None:
        from .plot import psychometric_figure

        for experiment in result.experiments():
            run.figure(psychometric_figure(result, experiment), args.figures / f"psychometrics-{experiment}.png")
    run.finish()
    if args.json:
        emit_json(document)
    else:
        print(format_psychometrics(result, consistency))
    return 0


def _cell(value, low, high) -> str:
    if not np.isfinite(value):
        return "nan"
    return f"{value:.2f}" if not (np.isfinite(low) and np.isfinite(high)) else f"{value:.2f} [{low:.2f}, {high:.2f}]"


def format_psychometrics(result, consistency: pd.DataFrame | None = None) -> str:
    """Per experiment: accuracy per condition of humans (with interval and the single humans' range) and of
    each model; then observed beside error consistency.

    Parameters
    ----------
    result : PsychometricResult
        From :func:`humanlike.measures.psychometrics.analysis.psychometrics`.
    consistency : pandas.DataFrame, optional
        From :func:`consistency_by_experiment`.

    Returns
    -------
    str

    Examples
    --------
    >>> from humanlike.measures.psychometrics.analysis import psychometrics
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = psychometrics(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=0))
    >>> print(format_psychometrics(r).splitlines()[0])
    sim-blur: accuracy per condition
    """
    frame = result.observer_frame()
    level = int(round(100 * result.settings["level"]))
    lines = []
    for experiment in result.experiments():
        table = result.table(experiment, "accuracy")
        entropy = result.table(experiment, "entropy")
        conditions = list(table.columns)
        width = max([24] + [len(str(o)) + 2 for o in table.index])
        lines.append(f"{experiment}: accuracy per condition")
        lines.append(f"{'observer':<{width}}" + "".join(f"{c:>11}" for c in conditions))
        for observer, row in table.iterrows():
            if observer == "human mean" or (result.kinds.get(observer) == "human" and observer != "humans"):
                continue
            lines.append(f"{observer:<{width}}" + "".join(f"{v:>11.3f}" for v in row.to_numpy()))
        humans = frame[(frame["experiment"] == experiment) & (frame["observer"] == "humans")]
        if not humans.empty:
            rng = result.human_range()
            rng = rng[(rng["experiment"] == experiment) & (rng["metric"] == "accuracy")].set_index("condition")
            acc = humans[humans["metric"] == "accuracy"].set_index("condition")
            lines.append(f"{'humans ' + str(level) + '% interval':<{width}}" + "".join(
                f"{acc.loc[c, 'ci_low']:>6.2f}-{acc.loc[c, 'ci_high']:.2f}" for c in conditions))
            lines.append(f"{'single humans (range)':<{width}}" + "".join(
                f"{rng.loc[c, 'min']:>6.2f}-{rng.loc[c, 'max']:.2f}" for c in conditions))
            lines.append(f"{'humans entropy [bits]':<{width}}" + "".join(
                f"{v:>11.2f}" for v in entropy.loc["humans"].to_numpy()))
        if consistency is not None:
            part = consistency[consistency["experiment"] == experiment]
            if not part.empty:
                lines.append(f"{'':<{width}}{'observed consistency':>24}{'error consistency':>24}")
                for r in part.to_dict("records"):
                    if r.get("reason"):   # undefined here, and why
                        lines.append(f"{r['observer']:<{width}}{'n/a: ' + r['reason']:>48}")
                        continue
                    lines.append(f"{r['observer']:<{width}}"
                                 f"{_cell(r['observed_consistency'], r['observed_consistency_low'], r['observed_consistency_high']):>24}"
                                 f"{_cell(r['error_consistency'], r['error_consistency_low'], r['error_consistency_high']):>24}")
        lines.append("")
    lines.append(f"(humans' accuracy: all human trials pooled, entropy: mean of each human's, as model-vs-human; "
                 f"[{level}% bootstrap interval]; consistency: mean over conditions, humans = human-human pairs)")
    return "\n".join(lines)
