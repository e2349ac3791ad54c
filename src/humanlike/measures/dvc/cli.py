"""Commands for decision-variable correlation: ``dvc represent`` (two representations) and ``dvc choices``
(binary choices: two-category data per observer pair and category, or benchmark data per group)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..options import add_data_options
from ..options import (
    add_exclusion_options, add_output_options, add_resampling_options, emit_json, exclusions_of,
    exclusions_record, float_in, int_at_least, load_data, positive_count, resampling_settings, run_outputs,
)


def register(sub, plan_sub, name: str) -> None:
    """Register this module's command (``dvc represent``, ``dvc choices``) on the ``humanlike`` parser.

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
    >>> register(sub, plan_sub, "dvc")
    >>> sorted(sub.choices)
    ['dvc', 'plan']
    """
    dvc = sub.add_parser(name, help="decision-variable correlation (Qian, Geisler & Wei; Sebastian & Geisler)")
    dvc_sub = dvc.add_subparsers(dest="dvc_command", required=True, metavar="SOURCE")

    rep = dvc_sub.add_parser(
        "represent", help="DVC of two representations of the same images (.npz files or shard folders)",
        description="Split-half normalised DVC of two representations: random unit halves, PCA per half, LDA "
                    "per class pair, within-class correlations of the decision variables; bootstrap over "
                    "images within class (paired), the LDA refitted in every resample; percentile or BCa "
                    "intervals (exact leave-one-image-out jackknife). Also kappa of the cross-validated choices "
                    "and its accuracy bound.")
    rep.add_argument("a", type=Path, help="representation A (.npz with features, labels[, items] or a folder)")
    rep.add_argument("b", type=Path, help="representation B (aligned with A on item ids)")
    rep.add_argument("--pcs", type=positive_count, default=25, help="principal components per half (default %(default)s)")
    rep.add_argument("--splits", type=int_at_least(1, 1000), default=10, help="random unit split-halves (default %(default)s)")
    rep.add_argument("--cv", type=int_at_least(2), metavar="K", help="K-fold cross-validated DVs (default: in-sample)")
    rep.add_argument("--abs", action="store_true", help="report the paper's absolute-value normalisation")
    rep.add_argument("--spearman", action="store_true", help="Spearman instead of Pearson correlations")
    rep.add_argument("--standardize", action="store_true", help="z-score units before the PCA")
    rep.add_argument("--all-splits", action="store_true",
                     help="push every resample through every split (exact; default: rotate, an upper bound)")
    rep.add_argument("--pca-scope", choices=("all", "pair"), default="all",
                     help="fit each half's PCA on all images, or on each class pair's images (C(K,2) times "
                          "the PCA work; default %(default)s)")
    rep.add_argument("--pca-iterations", type=int_at_least(0, 20), default=2, metavar="N",
                     help="power iterations of the randomized PCA (default %(default)s)")
    rep.add_argument("--no-kappa", action="store_true", help="skip the kappa of cross-validated choices")
    rep.add_argument("--figure", type=Path, help="write the per-class-pair figure here (png/pdf/svg)")
    add_resampling_options(rep)
    add_output_options(rep, out_default=None)
    rep.set_defaults(handler=run_represent)

    ch = dvc_sub.add_parser(
        "choices", help="latent (tetrachoric / probit) correlation of observers' binary choices",
        description="Two-category data: Sebastian & Geisler's DVC per observer pair and category, with d' "
                    "and criterion per observer. Benchmark data (more classes): the tetrachoric correlation "
                    "of correctness per pair and condition, aggregated like error consistency, and each "
                    "model's decision margin against each human's correctness (probit), where margins exist.")
    ch.add_argument("data", nargs="+", type=Path, help="raw-data folder(s) or trial file(s)")
    add_data_options(ch)
    ch.add_argument("--experiment", action="append", metavar="NAME", help="experiment (repeatable)")
    ch.add_argument("--passes", choices=("first", "split"), default="first",
                    help="two-category data: 'split' treats each pass as an observer (double-pass self-DVC)")
    ch.add_argument("--correction", type=float_in(0, 10), default=0.5,
                    help="added to empty cells of a 2x2 table (default %(default)s; 0 = plain ML)")
    ch.add_argument("--pairs", action="store_true", help="benchmark data: also every pair's interval")
    ch.add_argument("--figure", type=Path, help="write the group figure here (benchmark data)")
    add_resampling_options(ch)
    add_exclusion_options(ch)
    add_output_options(ch, out_default=None)
    ch.set_defaults(handler=run_choices)


# --- represent -----------------------------------------------------------------------------------------

def run_represent(args) -> int:
    """Handle ``humanlike dvc represent`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['dvc', 'represent', 'a.npz', 'b.npz']).handler is run_represent
    True
    """
    from .representations import dvc_representations
    from .representations_options import DVCOptions
    from ...trials.representations import load_representation

    run = run_outputs(args, resampling_settings(args))
    a = load_representation(args.a)
    b = load_representation(args.b)
    options = DVCOptions(n_components=args.pcs, n_splits=args.splits, cv=args.cv, absolute=args.abs,
                         correlation="spearman" if args.spearman else "pearson", standardize=args.standardize,
                         split_bootstrap="all" if args.all_splits else "rotate",
                         kappa_folds=0 if args.no_kappa else 5, pca_scope=args.pca_scope,
                         pca_iterations=args.pca_iterations)
    result = dvc_representations(a, b, options=options, settings=resampling_settings(args))
    doc = result.to_json_dict()
    if args.out is not None:
        run.add_table(result.summary_frame(), "dvc", args.format)
        run.add_table(result.correlations, "dvc_correlations", args.format)
        if result.kappa is not None:
            run.add_table(result.kappa.to_frame(), "dvc_kappa", args.format)
        run.json(doc, args.out / "dvc.json")
    if args.figure is not None:
        from .plot import representation_figure

        run.figure(representation_figure(result), args.figure)
    run.finish()
    if args.json:
        emit_json(doc)
        return 0
    level = int(round(args.level * 100))
    d = doc["dvc"]
    other = "dvc_abs" if "dvc_abs" in doc else "dvc_signed"
    o = doc[other]
    print(f"decision-variable correlation of {doc['names'][0]} and {doc['names'][1]} "
          f"({doc['n_images']} images, {len(doc['classes'])} classes); estimate [{level}% CI]")
    print(f"  DVC ({doc['normalisation']})  {_ci(d)}   split SD {d['split_sd']:.3f}")
    print(f"  DVC ({other.split('_')[1]})  {_ci(o)}")
    if "kappa" in doc:
        k = doc["kappa"]
        print(f"  kappa of CV choices  {_ci(k['kappa'])}   bound (1-d)^2/(1+d^2) {_ci(k['kappa_bound'])}")
        print(f"  accuracies  {k['accuracy_a']['estimate']:.3f}, {k['accuracy_b']['estimate']:.3f}")
    print("  per class:")
    for row in doc["classes_table"]:
        print(f"    {row['class']:<20} {_ci({'estimate': row['dvc'], **row})}")
    return 0


def _ci(e: dict) -> str:
    def f(v):
        return "nan" if v is None or not np.isfinite(v) else f"{v:.3f}"
    return f"{f(e['estimate'])} [{f(e['ci_low'])}, {f(e['ci_high'])}]"


# --- choices -------------------------------------------------------------------------------------------

def run_choices(args) -> int:
    """Handle ``humanlike dvc choices`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['dvc', 'choices', 'raw-data/']).handler is run_choices
    True
    """
    from .choices import choice_dvc, latent_correctness_correlation
    from .choices_probit import margin_probit_correlation
    from ...trials.schema import TrialTableError

    run = run_outputs(args, {**resampling_settings(args).to_dict(), "exclusions": exclusions_record(args)})
    trials = load_data(args.data, args, run, getattr(args, "format", "csv"))
    if args.experiment:
        unknown = sorted(set(args.experiment) - set(trials["experiment"]))
        if unknown:
            raise TrialTableError(f"unknown experiment(s) {unknown}; available: {sorted(trials['experiment'].unique())}")
        trials = trials[trials["experiment"].isin(args.experiment)]
    settings = resampling_settings(args)
    n_labels = trials.groupby("experiment")["label"].nunique()
    if (n_labels == 2).all():
        result = choice_dvc(trials, passes=args.passes, zero_cell_correction=args.correction, settings=settings,
                            validate=False)
        doc = {"kind": "two-category", **result.to_json_dict()}
        if args.out is not None:
            run.add_table(result.table(), "dvc_choices", args.format)
            run.json(doc, args.out / "dvc_choices.json")
        run.finish()
        if args.json:
            emit_json(doc)
            return 0
        _print_two_category(doc, args.level)
        return 0
    if (n_labels == 2).any():
        raise TrialTableError("mix of two-category and multi-class experiments; choose with --experiment")
    exclusions = exclusions_of(args)
    tetra = latent_correctness_correlation(trials, exclusions=exclusions, zero_cell_correction=args.correction,
                                           pair_intervals=args.pairs, settings=settings, validate=False)
    scope = args.experiment[0] if args.experiment and len(args.experiment) == 1 else "overall"
    doc = {"kind": "benchmark", "tetrachoric_correctness": tetra.to_json_dict(scope)}
    frames = [tetra.table()]
    probit = None
    if "decision_margin" in trials and trials["decision_margin"].notna().any():
        probit = margin_probit_correlation(trials, exclusions=exclusions, pair_intervals=args.pairs,
                                           settings=settings, validate=False)
        doc["margin_probit"] = probit.to_json_dict(scope)
        frames.append(probit.table())
    if args.out is not None:
        import pandas as pd

        run.add_table(pd.concat(frames, ignore_index=True), "dvc_choices", args.format)
        run.json(doc, args.out / "dvc_choices.json")
    if args.figure is not None:
        from .plot import benchmark_latent_figure

        run.figure(benchmark_latent_figure(tetra, probit, scope), args.figure)
    run.finish()
    if args.json:
        emit_json(doc)
        return 0
    level = int(round(args.level * 100))
    for key, title in (("tetrachoric_correctness", "tetrachoric correlation of correctness"),
                       ("margin_probit", "model margin vs human correctness (probit)")):
        if key not in doc:
            continue
        d = doc[key]
        print(f"{title}, {scope}; mean [{level}% CI]")
        for name, label in (("human_human", "human-human"), ("model_model", "model-model")):
            if d.get(name):
                print(f"  {label:<32} {_ci({'estimate': d[name]['mean'], **d[name]})}")
        for model, e in sorted(d["model_human"].items(), key=lambda kv: -np.nan_to_num(kv[1]["mean"], nan=-9)):
            print(f"  {model:<32} {_ci({'estimate': e['mean'], **e})}")
        entries = [d.get("human_human"), d.get("model_model"), *d["model_human"].values()]
        for reason in sorted({e["reason"] for e in entries if e and e.get("reason")}):
            print(f"  ({reason})")
    return 0


def _print_two_category(doc: dict, level: float) -> None:
    lv = int(round(level * 100))
    for experiment, e in doc["experiments"].items():
        a, b = e["categories"]
        print(f"decision-variable correlation from choices, experiment {experiment} (categories {a}, {b}); "
              f"estimate [{lv}% CI]")
        for row in e["observers"]:
            print(f"  {row['observer']:<24} {row['statistic']:<10} {_ci(row)}")
        for row in e["pairs"]:
            print(f"  {row['observer_1']} ~ {row['observer_2']}  category {row['category']}: rho "
                  f"{_ci({'estimate': row['rho'], **row})}")
