"""``humanlike report``: every analysis of a data set on one self-contained HTML page."""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path

from ..files import check_output_folder
from ..measures.options import (
    StageProgress, add_data_options, add_exclusion_options, add_quiet_option, add_resampling_options, exclusions_of,
    interval_record, output_path, resampling_settings,
)
from ..measures.registry import measures


def report_analyses() -> tuple[str, ...]:
    """Names of the registered measures ``humanlike report --analyses`` can run (registry order).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> report_analyses()[:2], "mlds" in report_analyses(), "psychscore" in report_analyses()   # no report run
    (('ec', 'dmc'), True, False)
    """
    return tuple(m.name for m in measures() if m.report_run is not None)


def analyses_list(text: str) -> list[str]:
    """argparse type: a comma-separated subset of the report's analyses.

    Parameters
    ----------
    text : str
        Names from :func:`report_analyses` (the registered measures with a report run), separated by commas.

    Returns
    -------
    list of str
        The names, in the order given.

    Raises
    ------
    argparse.ArgumentTypeError
        For an unknown name or an empty list.

    Examples
    --------
    >>> analyses_list("ec, dmc")
    ['ec', 'dmc']
    """
    names = [t.strip() for t in text.split(",") if t.strip()]
    known = report_analyses()
    unknown = sorted(set(names) - set(known))
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown analyses {unknown}; choose from {','.join(known)}")
    return names


def register(sub, plan_sub) -> None:
    """Register this module's command (``report``) on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (unused: nothing to plan).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> plan_sub = sub.add_parser("plan").add_subparsers(dest="plan_command")
    >>> register(sub, plan_sub)
    >>> sorted(sub.choices)
    ['plan', 'report']
    """
    report = sub.add_parser(
        "report", help="one self-contained HTML report of every analysis of a data set",
        description="Runs the analyses on DATA and writes one HTML page (figures embedded, no external "
                    "request) with the headline table, every figure and table, the settings and the data's "
                    "provenance.")
    report.add_argument("data", nargs="*", type=Path, help="raw-data folders or tidy trial files")
    add_data_options(report)
    report.add_argument("--judgements", nargs="+", type=Path, default=[], metavar="FILE",
                        help="difference-judgement files: adds difference scales (MLDS) with bootstrap intervals")
    report.add_argument("--out", type=output_path, default=Path("report.html"),
                        help="the HTML file (default %(default)s; an existing folder: FOLDER/report.html): one file, "
                             "written atomically, that records its own command line and settings (so no run "
                             "manifest)")
    report.add_argument("--analyses", type=analyses_list, default=list(report_analyses()),
                        help=f"comma-separated subset of {','.join(report_analyses())} (default: all that apply)")
    report.add_argument("--title", default="humanlike report", help="page title")
    report.add_argument("--experiment", action="append", metavar="NAME",
                        help="only this experiment of DATA (repeatable; default: every experiment)")
    add_quiet_option(report)
    add_resampling_options(report)
    add_exclusion_options(report)
    report.set_defaults(handler=run_report, out_file_name="report.html")


def rerun_command(args) -> str:
    """The command line that reproduces this report (every setting that decides a number spelled out).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``humanlike report`` command line.

    Returns
    -------
    str
        A shell-quoted command line.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> print(rerun_command(build_parser().parse_args(["report", "raw-data", "--analyses", "ec"])))
    humanlike report raw-data --out report.html --analyses ec --seed 0 --resamples 10000 --level 0.95 --observer-level none
    >>> print(rerun_command(build_parser().parse_args(["report", "raw-data", "--analyses", "ec", "--interval", "bca"])))
    humanlike report raw-data --out report.html --analyses ec --seed 0 --resamples 10000 --level 0.95 --interval bca --observer-level none
    """
    parts = ["humanlike", "report", *map(str, args.data), "--out", str(args.out),
             *(["--judgements", *map(str, args.judgements)] if args.judgements else []),
             "--analyses", ",".join(args.analyses), "--seed", str(args.seed), "--resamples", str(args.resamples),
             "--level", str(args.level), *(["--interval", args.interval] if args.interval else []),
             "--observer-level", args.observer_level or "none"]
    if not args.exclusions:
        parts.append("--no-exclusions")
    for experiment in getattr(args, "experiment", None) or []:
        parts += ["--experiment", experiment]
    if getattr(args, "on_conflict", "prefer-margins") != "prefer-margins":
        parts += ["--on-conflict", args.on_conflict]
    return " ".join(shlex.quote(p) for p in parts)


def run_report(args) -> int:
    """Handle ``humanlike report`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['report', 'raw-data/']).handler is run_report
    True
    """

    started = time.perf_counter()
    if not args.data and not args.judgements:
        raise ValueError("give DATA (trial files or folders) and/or --judgements FILE...")
    settings = resampling_settings(args)
    if args.out.is_dir():   # main() makes a folder FOLDER/report.html; this is for direct callers
        args.out = args.out / "report.html"
    check_output_folder(args.out.parent)  # before the analyses, not after
    exclusions = exclusions_of(args)
    results, notes, provenance = {}, [], {}
    from ..trials.studies import judgement_study

    judging = bool(args.judgements) or any(judgement_study(p) for p in args.data)
    progress = StageProgress(args, "report", [*(["load data"] if not all(map(judgement_study, args.data)) else []),
                                              *(["load judgements"] if judging else []),
                                              *[m.name for m in measures() if m.name in args.analyses], "write"])
    try:
        return _report(args, settings, exclusions, results, notes, provenance, started, progress)
    finally:
        progress.close()


def _report(args, settings, exclusions, results, notes, provenance, started, progress) -> int:
    """The report's work, one progress stage after the other (see :func:`run_report`)."""
    from ..measures.options import load_data_with_sources
    from .report import content_hash, render_report, write_report
    from .report_sections import build_sections, run_report_analyses

    from ..trials.studies import judgement_study

    data, sources = {}, None
    # a `humanlike serve` study of triads or quadruples is difference judgements, as --judgements files are
    judgement_studies = [p for p in args.data if judgement_study(p)]
    trial_data = [p for p in args.data if not judgement_study(p)]
    if trial_data:
        progress.stage("load data")
        trials, sources = load_data_with_sources(trial_data, args)
        designs = trials.attrs.get("study_designs", {})
        trials, sources = select_experiments(trials, sources, args.experiment)
        trials.attrs["study_designs"] = designs          # the analyses of a study follow its design
        for study, design in designs.items():            # a `humanlike serve` study: say who saw what
            provenance[f"study design ({study})"] = study_design_text(design)
        data["trials"] = trials
        provenance.update(content_hash(trial_data))
        if args.experiment:
            provenance["experiments selected"] = ", ".join(args.experiment)
        provenance.update(trials=len(trials), observers=int(trials["observer"].nunique()),
                          experiments=int(trials["experiment"].nunique()))
    judged = [m.name for m in measures() if m.report_input == "judgements" and m.name in args.analyses]
    if judged and not (args.judgements or judgement_studies) and args.analyses != list(report_analyses()):
        raise ValueError(f"--analyses {judged[0]} needs difference judgements: give --judgements FILE...")
    if args.judgements or judgement_studies:
        from ..trials.judgement_files import load_judgements
        from ..trials.judgements import validate_judgements
        from ..trials.studies import read_sources

        progress.stage("load judgements")
        judgements = read_sources([*args.judgements, *judgement_studies], load_judgements, validate_judgements)
        data["judgements"] = judgements
        if args.judgements:
            provenance["judgement files"] = content_hash(args.judgements)
        provenance["judgements"] = len(judgements)
        for study, design in judgements.attrs.get("study_designs", {}).items():
            provenance[f"study design ({study})"] = study_design_text(design)
    for measure in [m for m in measures() if m.name in args.analyses]:   # one stage each: independent analyses
        progress.stage(measure.name)
        done, more_notes = run_report_analyses(data, [measure.name], settings, exclusions, args.interval)
        results.update(done)
        notes += more_notes
    progress.stage("write")
    sections, headline = build_sections(results)
    if sources is not None:
        partial = partial_models(results)
        headline = mark_partial_models(headline, partial, int(trials["experiment"].nunique()))
        sections.insert(0, sources_section(sources, partial, int(trials["experiment"].nunique())))
    html = render_report(sections, title=args.title, headline=headline, provenance=provenance,
                         settings={**settings.to_dict(), "interval": interval_record(args),
                                   "exclusions": "model-vs-human" if exclusions else "none",
                                   "analyses": ",".join(args.analyses), "notes": "; ".join(notes) or "none"},
                         command=rerun_command(args))
    path = write_report(html, args.out)
    print(f"humanlike report: wrote {path} ({path.stat().st_size / 1e6:.1f} MB, {len(sections)} sections) "
          f"in {time.perf_counter() - started:.1f} s")
    for note in notes:
        print(f"  note: {note}")
    return 0


def study_design_text(design: dict) -> str:
    """One line naming a ``humanlike serve`` study's design for the report's provenance.

    Parameters
    ----------
    design : dict
        The study's design report (``design.json``: design, participants, pairs, pairs_sharing, ...).

    Returns
    -------
    str

    Examples
    --------
    >>> study_design_text({"design": "subset", "trials_per_participant": 16, "participants": 12, "pairs": 66,
    ...                    "pairs_sharing": {"0": 20, "4": 30, "16": 16}, "pairs_sharing_none": 20})
    'design subset, 16 trial(s) per participant; 12 participant(s), 66 pair(s) (20 sharing no trial); pairs by trials shared: 0: 20, 4: 30, 16: 16'
    """
    per = design.get("trials_per_participant") or "all"
    sharing = ", ".join(f"{k}: {v}" for k, v in design.get("pairs_sharing", {}).items())
    return (f"design {design.get('design') or 'unstated'}, {per} trial(s) per participant; "
            f"{design.get('participants')} participant(s), {design.get('pairs')} pair(s) "
            f"({design.get('pairs_sharing_none')} sharing no trial); pairs by trials shared: {sharing}")


def select_experiments(trials, sources, experiments):
    """The trials (and sources) of the ``--experiment`` names only; an unknown name is an error listing the
    experiments there are.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    sources : pandas.DataFrame
        Its sources table (:func:`humanlike.trials.sources.sources_table`).
    experiments : list of str or None
        The names (None: every experiment).

    Returns
    -------
    tuple of pandas.DataFrame
        The selected trials, and the sources of their observers with the experiments narrowed to the selection.

    Raises
    ------
    ValueError
        For an experiment the data do not have.

    Examples
    --------
    >>> import pandas as pd
    >>> trials = pd.DataFrame({"observer": ["a", "a", "b"], "experiment": ["edge", "sketch", "edge"]})
    >>> sources = pd.DataFrame({"observer": ["a", "b"], "n_experiments": [2, 1], "experiments": ["edge;sketch", "edge"]})
    >>> t, s = select_experiments(trials, sources, ["sketch"])
    >>> t["observer"].tolist(), s[["observer", "experiments"]].values.tolist()
    (['a'], [['a', 'sketch']])
    >>> select_experiments(trials, sources, ["edges"])
    Traceback (most recent call last):
        ...
    ValueError: --experiment edges: not in DATA; its experiments are edge, sketch
    """
    if not experiments:
        return trials, sources
    have = sorted(trials["experiment"].unique())
    unknown = [e for e in experiments if e not in have]
    if unknown:
        raise ValueError(f"--experiment {', '.join(unknown)}: not in DATA; its experiments are {', '.join(have)}")
    chosen = set(experiments)
    trials = trials[trials["experiment"].isin(chosen)].reset_index(drop=True)
    sources = sources[sources["observer"].isin(set(trials["observer"]))].copy()
    kept = [[e for e in str(x).split(";") if e in chosen] for x in sources["experiments"]]
    sources["experiments"] = [";".join(k) for k in kept]
    sources["n_experiments"] = [len(k) for k in kept]
    return trials, sources.reset_index(drop=True)


def partial_models(results: dict) -> dict:
    """The models scored on only some experiments, as the first result that records them states them.

    A measure's result whose details record ``settings["partial_models"]`` (error consistency's does) names
    them; the report asks every result rather than one measure by name.

    Parameters
    ----------
    results : dict
        ``{measure name: result}`` (a string where a measure could not be computed).

    Returns
    -------
    dict of str to list of str
        Model -> the experiments it was scored on; empty where no result records any.

    Examples
    --------
    >>> import types
    >>> details = types.SimpleNamespace(settings={"partial_models": {"mine": ["edge"]}})
    >>> partial_models({"a": "not computed", "b": types.SimpleNamespace(details=details)})
    {'mine': ['edge']}
    >>> partial_models({})
    {}
    """
    for result in results.values():
        settings = getattr(getattr(result, "details", None), "settings", None)
        if isinstance(settings, dict) and settings.get("partial_models"):
            return dict(settings["partial_models"])
    return {}


def mark_partial_models(headline, partial: dict, n_experiments: int):
    """The headline table with models scored on only some experiments unranked, last and marked ``†``.

    Parameters
    ----------
    headline : ReportTable or None
        From :func:`humanlike.app.report_sections.build_sections`.
    partial : dict of str to list of str
        Model -> the experiments it was scored on (:func:`partial_models`).
    n_experiments : int
        Experiments of the run.

    Returns
    -------
    ReportTable or None
        The table, ranks renumbered over the models scored on every experiment.

    Examples
    --------
    >>> import pandas as pd
    >>> from humanlike.measures.sections import ReportTable
    >>> frame = pd.DataFrame({"observer": ["humans", "mine", "a"], "rank": pd.array([None, 1, 2], dtype="Int64"),
    ...                       "EC": [0.4, 0.3, 0.2]})
    >>> table = mark_partial_models(ReportTable("headline", "Headline", frame), {"mine": ["edge"]}, 17)
    >>> table.frame["observer"].tolist(), table.frame["rank"].tolist()
    (['humans', 'a', 'mine †'], [<NA>, 1, <NA>])
    """
    if headline is None or not partial:
        return headline
    import numpy as np
    import pandas as pd

    frame = headline.frame
    is_partial = frame["observer"].isin(set(partial))
    ranked = frame[~is_partial].copy()
    has_rank = ranked["rank"].notna().to_numpy()
    rank = pd.array([pd.NA] * len(ranked), dtype="Int64")
    rank[has_rank] = np.arange(1, has_rank.sum() + 1)
    ranked["rank"] = rank
    rest = frame[is_partial].copy()
    rest["rank"] = pd.array([pd.NA] * len(rest), dtype="Int64")
    rest["observer"] = rest["observer"] + " †"
    notes = "; ".join(f"{m}: {len(e)} of {n_experiments} experiments ({', '.join(e)})" for m, e in partial.items())
    headline.frame = pd.concat([ranked, rest], ignore_index=True)
    headline.caption = (headline.caption + f"; † scored on some experiments only, not ranked ({notes}): "
                        "rank them beside the others with --experiment on those experiments")
    return headline


def sources_section(sources, partial: dict, n_experiments: int):
    """The report's "Data sources" section: where each observer came from and on which experiments it was scored.

    Parameters
    ----------
    sources : pandas.DataFrame
        :func:`humanlike.trials.sources.sources_table` of the DATA.
    partial : dict of str to list of str
        Models scored on only some experiments (not ranked).
    n_experiments : int
        Experiments of the run.

    Returns
    -------
    ReportSection
        Key ``sources``, with the table ``sources``.

    Examples
    --------
    >>> import pandas as pd
    >>> sources = pd.DataFrame({"observer": ["net"], "source_kind": ["trial file"], "n_experiments": [1],
    ...                         "experiments": ["edge"]})
    >>> section = sources_section(sources, {}, 1)
    >>> section.key, section.tables[0].key
    ('sources', 'sources')
    """
    from ..measures.sections import ReportSection, ReportTable

    kinds = ", ".join(f"{n} from {k}s" for k, n in sources.groupby("source_kind")["observer"].nunique().items())
    summary = (f"Where each observer came from ({kinds}): the folder or file, the BLAKE2b digest of its files, "
               "the model and weights for models run with humanlike evaluate, and the experiments it was "
               f"scored on (of {n_experiments}).")
    notes = [f"{m} is scored on {len(e)} of {n_experiments} experiments ({', '.join(e)}): its overall values "
             "average those only, so it is not ranked beside the models scored on all (marked † in the headline)"
             for m, e in partial.items()]
    return ReportSection("sources", "Data sources", summary,
                         tables=[ReportTable("sources", "Where each observer came from", sources.reset_index(drop=True),
                                             caption="digest: BLAKE2b-128 of the observer's files in that source")],
                         notes=notes)
