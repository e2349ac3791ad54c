"""The ``sequences`` and ``psychscore`` commands: blend sequences and the Psychophysical-Score."""

from __future__ import annotations

from pathlib import Path

from ...resampling.settings import ResamplingSettings

from ..options import (
    RESAMPLES_DEFAULT_EXCEPTIONS, OUT_HELP, add_json_option, output_path, add_resampling_options, bounded_resample_count, emit_json, float_in, int_at_least,
    positive_count, require_extra, run_outputs,
)


def register(sub, plan_sub, name: str) -> None:  # noqa: ARG001 - no planning command for this family
    """Register this module's commands (``sequences``, ``psychscore``) on the ``humanlike`` parser.

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
    >>> register(sub, plan_sub, "psychscore")
    >>> sorted(sub.choices)
    ['plan', 'psychscore', 'sequences']
    """
    seq = sub.add_parser(
        "sequences", help="difference-scaling blend sequences of two object classes (Psychophysical-Score)",
        description="Pick instance pairs of every class pair by mask overlap (Jaccard), convert to grey "
                    "((R+G+B)/3), blur, alpha-blend; write the images and a stimulus manifest.")
    seq.add_argument("images", type=Path, help="folder with one sub-folder of images per class")
    seq.add_argument("--out", type=output_path, required=True,
                     help="output folder (images/ and manifest.csv; humanlike-manifest.json, the run's record, last)")
    seq.add_argument("--levels", type=int_at_least(3, 101), default=7, help="blend levels (default %(default)s)")
    seq.add_argument("--pairs-per-class-pair", type=positive_count, default=10,
                     help="instance pairs with the highest Jaccard index per class pair (default %(default)s)")
    seq.add_argument("--blur", type=float_in(0, 1000), default=3.0, help="Gaussian blur sigma in pixels (default %(default)s)")
    seq.add_argument("--classes", nargs="+", help="only these classes (default: all)")
    seq.add_argument("--mask-threshold", type=float_in(0, 255, open_low=True), default=127.5,
                     help="grey distance from the background that makes a pixel part of the object")
    seq.set_defaults(handler=run_sequences_command)

    ps = sub.add_parser(
        name, help="Psychophysical-Score: skewness of MLDS scales, model vs humans",
        description="Pool difference judgements into class-level MLDS scales, take their skewness, and "
                    "score every observer by |Spearman rho| with the reference's skewness over class pairs, "
                    "with a bootstrap over class pairs and trials.")
    ps.add_argument("judgements", nargs="*", type=Path,
                    help="difference-judgement tables (CSV/Parquet: observer, scale, s1..s3[,s4], response, "
                         "observer_kind, class_a, class_b)")
    ps.add_argument("--sequences", type=Path, help="sequence folder/manifest for the built-in observers")
    ps.add_argument("--observers", nargs="*", choices=("pixel", "gabor", "random"), default=None,
                    help="built-in observers to run on --sequences (default: pixel gabor)")
    ps.add_argument("--network", action="append", default=[], metavar="SPEC=LAYER[,LAYER]",
                    help="a network observer on --sequences, e.g. torchvision:alexnet=features.2,features.7 "
                         "(needs torch; repeatable)")
    ps.add_argument("--weights", default="none", help="network weights (default: none = random init)")
    ps.add_argument("--simulate-humans", type=int_at_least(0, 10_000), default=None, metavar="N",
                    help="simulate N people on --sequences (default 10 when no human judgements are given)")
    ps.add_argument("--reference", default="humans", help="'humans' (all human observers pooled) or an observer")
    ps.add_argument("--design", choices=("triads", "quads"), default="triads")
    # Every resample refits every scale of every observer (~1e6 small GLM fits per 1,000 resamples on
    # the silhouettes), so this command defaults to 1,000 rather than the project-wide default; its
    # resampling (class pairs, trials within every scale) has no observer level, workers or memory budget.
    add_resampling_options(ps, interval=False, observer_level=False, workers=False, memory_budget=False,
                           resamples_type=bounded_resample_count(
                               20_000, "every resample refits every scale: about 1e6 GLM fits per 1,000 resamples"),
                           resamples_default=RESAMPLES_DEFAULT_EXCEPTIONS["psychscore"][0])
    ps.add_argument("--out", type=output_path, help=OUT_HELP)
    add_json_option(ps)
    ps.add_argument("--figure", type=Path, help="figure file: skewness distributions and scores (PNG/PDF)")
    ps.set_defaults(handler=run_psychscore_command)


def run_sequences_command(args) -> int:
    """Handle ``humanlike sequences`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['sequences', 'silhouettes/', '--out', 'sequences/']).handler is run_sequences_command
    True
    """
    from .sequences import build_sequences, load_object_images, sequence_manifest, write_sequences

    run = run_outputs(args)
    objects = load_object_images(args.images, classes=args.classes, mask_threshold=args.mask_threshold)
    seqs = build_sequences(objects, args.pairs_per_class_pair, args.levels, args.blur)
    run.start()  # an interrupted run leaves an in-progress manifest, not the last run's complete one
    path = write_sequences(seqs, args.out)
    run.record(*(args.out / p for p in sequence_manifest(seqs)["path"]), path)
    run.finish()
    n_pairs = len(seqs.class_pairs())
    print(f"{len(seqs.pairs)} sequences of {seqs.n_levels} levels ({n_pairs} class pairs, "
          f"Jaccard {seqs.pairs['jaccard'].min():.3f}..{seqs.pairs['jaccard'].max():.3f}) -> {path}")
    return 0


def _read_judgements(paths):
    """Every file read and validated on its own, so that an error names the file at fault."""
    from .analysis import normalise_judgements
    from ...trials.judgement_files import read_raw_judgements
    from ...trials.studies import read_sources  # also a `humanlike serve` study folder or database URL

    return [normalise_judgements(read_sources([path], lambda p: read_raw_judgements(p[0]), lambda t: t),
                                 source=str(path)) for path in paths]


def gather_judgements(args):
    """Judgement tables from files, plus built-in/network observers and simulated humans on --sequences.

    Parameters
    ----------
    args : argparse.Namespace
        A parsed ``humanlike psychscore`` command line.

    Returns
    -------
    pandas.DataFrame
        All judgements, one table (the input of
        :func:`humanlike.measures.psychscore.analysis.psychophysical_score`).

    Raises
    ------
    ValueError
        Without judgement files and without ``--sequences``, or with observer options but no sequences.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> from humanlike.app.cli import build_parser
    >>> path = Path(tempfile.mkdtemp()) / "judgements.csv"
    >>> simulate_psychscore_demo(n_classes=3, n_humans=2).to_csv(path, index=False)
    >>> table = gather_judgements(build_parser().parse_args(["psychscore", str(path)]))
    >>> sorted(table["observer_kind"].unique())
    ['human', 'model']
    """
    import pandas as pd

    if args.sequences is None:   # the options first: a usage error needs no file read
        if not args.judgements:
            raise ValueError("give judgement files, or --sequences DIR to run observers on sequences")
        if args.network or args.observers or args.simulate_humans:
            raise ValueError("--observers, --network and --simulate-humans need --sequences")
    frames = _read_judgements(args.judgements)
    has_humans = any("observer_kind" in f and (f["observer_kind"] == "human").any() for f in frames)
    if args.sequences is None:
        return pd.concat(frames, ignore_index=True)
    from ..mlds.observers import judgements_from_distances, random_judgements, sequence_distances
    from .simulate import simulate_population
    from .sequences import ManifestSequences, read_sequence_manifest

    manifest = read_sequence_manifest(args.sequences)
    seqs = ManifestSequences(manifest)
    n_humans = args.simulate_humans if args.simulate_humans is not None else (0 if has_humans else 10)
    if n_humans:
        frames.append(simulate_population(seqs.pairs, seqs.n_levels, n_humans, args.design, seed=args.seed).judgements)
    for name in (args.observers if args.observers is not None else ["pixel", "gabor"]):
        if name == "random":
            frames.append(random_judgements(seqs.pairs, seqs.n_levels, args.design, args.seed))
        else:
            frames.append(judgements_from_distances(sequence_distances(seqs, name), seqs.pairs, name,
                                                    args.design, args.seed))
    for text in args.network:
        if "=" not in text:
            raise ValueError(f"--network expects SPEC=LAYER[,LAYER], got {text!r}")
        from ...trials.consumers import provided

        network_judgements = provided("network judgements")   # the models extra lends it

        spec, layers = text.split("=", 1)
        weights = None if args.weights.lower() == "none" else args.weights
        frames.append(network_judgements(spec, manifest, layers.split(","), weights=weights, design=args.design,
                                         seed=args.seed))
    return pd.concat(frames, ignore_index=True)


def run_psychscore_command(args) -> int:
    """Handle ``humanlike psychscore`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['psychscore', 'judgements.csv']).handler is run_psychscore_command
    True
    """
    from .analysis import psychophysical_score

    if args.network:   # before anything runs, one line (not the models package's ImportError)
        require_extra("models", "psychscore --network")
    run = run_outputs(args, {"n_resamples": args.resamples, "level": args.level, "seed": args.seed})
    judgements = gather_judgements(args)
    result = psychophysical_score(judgements, reference=args.reference, settings=ResamplingSettings(
        n_resamples=args.resamples, level=args.level, seed=args.seed))
    if args.out is not None:
        run.add_table(result.to_wide(), "psychscore", "csv")
        run.add_table(result.scales, "psychscore_scales", "csv")
        run.add_table(result.chance, "psychscore_chance", "csv")
        run.json(result.to_json_dict(), args.out / "psychscore.json")
    if args.figure is not None:
        import matplotlib.pyplot as plt

        from .plot import psychscore_figure

        fig = psychscore_figure(result)
        run.figure(fig, args.figure)
        plt.close(fig)
    # per-observer or pooled (the reference's participants pooled, resampled as participants), and why
    run.finish({**run.settings, "fit": result.settings["fit"], "resampling": result.settings["resampling"]})
    if args.json:
        emit_json(result.to_json_dict())
    else:
        print(format_result(result))
    return 0


def format_result(result) -> str:
    """A plain-text table of scores, intervals and skewness variances.

    Parameters
    ----------
    result : PsychScoreResult
        From :func:`humanlike.measures.psychscore.analysis.psychophysical_score`.

    Returns
    -------
    str
        A heading, one line per observer and the reference's chance test.

    Examples
    --------
    >>> from humanlike.measures.psychscore.analysis import psychophysical_score
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = psychophysical_score(simulate_psychscore_demo(n_classes=3, n_humans=2), settings=ResamplingSettings(n_resamples=0))
    >>> print(format_result(result).splitlines()[0])
    Psychophysical-Score against humans (3 class pairs, 0 resamples, 95% intervals)
    """
    frame = result.to_wide()
    level = int(round(100 * result.settings.get("level", 0.95)))
    lines = [f"Psychophysical-Score against {result.reference} ({len(result.scales[['class_a', 'class_b']].drop_duplicates())} "
             f"class pairs, {result.settings['n_resamples']} resamples, {level}% intervals)",
             f"{'observer':28s} {'score':>7s} {'interval':>17s} {'var(S)':>9s} {'interval':>19s} {'separated':>9s}"]
    for row in frame.itertuples(index=False):
        score = "" if row.observer == result.reference else f"{row.score:7.3f}"
        ci = "" if row.observer == result.reference else f"[{row.score_ci_low:6.3f}, {row.score_ci_high:6.3f}]"
        lines.append(f"{row.observer:28s} {score:>7s} {ci:>17s} {row.variance_S:9.4f} "
                     f"[{row.variance_S_ci_low:8.4f}, {row.variance_S_ci_high:8.4f}] {int(row.separated_scales):9d}")
    chance = result.chance.iloc[0]
    lines.append(f"{result.reference} scales vs chance (flat scale, LR test): G = {chance.G:.1f}, df = {chance.df}, "
                 f"p = {chance.p:.3g}; {chance.class_pairs_not_flat}/{chance.class_pairs} class pairs not flat (BH 5%)")
    return "\n".join(lines)


