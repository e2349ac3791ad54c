"""The DATA a command reads: ``--humans``, ``--labels``, ``--mapping`` and ``--on-conflict``, loading the trial table of the
DATA arguments (raw-data folders, trial files, evaluation folders, ``humanlike serve`` studies) and recording
where each observer came from.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that loads trial tables: ``--humans``, ``--labels`` and ``--mapping``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_data_options(parser)
    >>> args = parser.parse_args(["--humans", "alice", "P*", "--labels", "left", "right", "up"])
    >>> args.humans, args.labels
    (['alice', 'P*'], ['left', 'right', 'up'])
    """
    parser.add_argument("--humans", nargs="+", metavar="NAME",
                        help="the human observers: names or shell patterns ('P*'); every other observer is a "
                             "model (default: recognised from raw file names, or the observer_kind column)")
    parser.add_argument("--labels", nargs="+", metavar="LABEL",
                        help="the task's response options (e.g. a 3-AFC task: --labels A B C), or one file with "
                             "one label per line (default: the labels the items have)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="read DATA as an experiment tool's files (jsPsych, JATOS, PsychoPy/Pavlovia, lab.js) "
                             "through this TOML column mapping (docs/formats.md#data-from-experiment-tools)")


def data_mapping(path):
    """The column mapping of ``--mapping FILE`` (None without the option).

    Parameters
    ----------
    path : str or None
        The option's value.

    Returns
    -------
    humanlike.trials.lab_files.LabMapping or None

    Examples
    --------
    >>> data_mapping(None) is None
    True
    """
    if path is None:
        return None
    from ...trials.lab_files import LabMapping

    return LabMapping.from_file(path)


def data_labels(values):
    """The label set of ``--labels``: the values, or the lines of the one file given (blank lines skipped).

    Parameters
    ----------
    values : list of str or None
        The option's values.

    Returns
    -------
    list of str or None

    Raises
    ------
    argparse.ArgumentTypeError
        For a file without labels.

    Examples
    --------
    >>> data_labels(["A", "B", "C"]), data_labels(None)
    (['A', 'B', 'C'], None)
    """
    if not values:
        return None
    if len(values) == 1 and Path(values[0]).is_file():
        labels = [line.strip() for line in Path(values[0]).read_text(encoding="utf-8").splitlines() if line.strip()]
        if not labels:
            raise argparse.ArgumentTypeError(f"--labels: {values[0]} holds no label (one per line)")
        return labels
    return list(values)


def load_data(paths, args=None, run=None, fmt: str = "csv"):
    """The trial table of the DATA arguments of a command (folders or files, aligned).

    Parameters
    ----------
    paths : path-like or list of path-like
        Raw-data folders or tidy trial files (:func:`humanlike.trials.loaders.load_trials`).
    args : argparse.Namespace, optional
        The command's options: ``--humans`` and ``--labels`` (:func:`add_data_options`) and ``--on-conflict``
        (:func:`add_on_conflict_option`) where present.
    run : RunOutputs, optional
        The command's outputs: the sources table (where each observer came from) is written into its folder
        (:func:`record_sources`).
    fmt : {"csv", "parquet", "json"}
        Format of that table.

    Returns
    -------
    pandas.DataFrame
        The validated trial table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> simulate_benchmark(seed=0, n_humans=2, n_items=16).to_csv(path, index=False)
    >>> trials = load_data([path])
    >>> sorted(trials["observer_kind"].unique())
    ['human', 'model']
    """
    trials, sources = load_data_with_sources(paths, args)
    record_sources(run, sources, fmt)
    return trials


ON_CONFLICT_HELP = ("an observer name found in two DATA sources: prefer-margins (default: between raw-data "
                    "folders the one with decision margins; a model of an evaluation folder whose name is taken is "
                    "kept apart as NAME@FOLDER), rename (keep both, later sources as NAME@FOLDER), first, last "
                    "(keep that source's observer), error (refuse)")


def add_on_conflict_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--on-conflict`` (what to do with an observer name found in two DATA sources).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A command that reads DATA.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_on_conflict_option(parser)
    >>> parser.parse_args(["--on-conflict", "rename"]).on_conflict
    'rename'
    """
    from ...trials.sources import ON_CONFLICT

    parser.add_argument("--on-conflict", choices=ON_CONFLICT, default="prefer-margins", help=ON_CONFLICT_HELP)


def record_sources(run, sources, fmt: str = "csv") -> None:
    """Write the DATA's sources table (where each observer came from) as ``sources`` into the run's folder.

    Parameters
    ----------
    run : RunOutputs or None
        The command's outputs (nothing is written without an output folder).
    sources : pandas.DataFrame
        From :func:`load_data_with_sources`.
    fmt : {"csv", "parquet", "json"}
        The table format.

    Examples
    --------
    >>> import pandas as pd
    >>> record_sources(None, pd.DataFrame())  # no run, no folder: nothing to write
    """
    if run is not None and getattr(run, "out_dir", None) is not None:
        run.add_table(sources, "sources", fmt)


def with_sources(doc: dict, sources) -> dict:
    """A command's JSON document with ``"sources"``: per observer and source, where it came from (folder or
    file, file digest, model, weights) and the experiments it was scored on.

    Parameters
    ----------
    doc : dict
        The JSON document.
    sources : pandas.DataFrame
        From :func:`load_data_with_sources`.

    Returns
    -------
    dict
        ``doc`` with the ``sources`` records added.

    Examples
    --------
    >>> import pandas as pd
    >>> with_sources({"a": 1}, pd.DataFrame({"observer": ["net"], "experiments": ["edge;sketch"]}))
    {'a': 1, 'sources': [{'observer': 'net', 'experiments': ['edge', 'sketch']}]}
    """
    records = sources.to_dict("records")
    for record in records:
        if "experiments" in record:
            record["experiments"] = [e for e in str(record["experiments"]).split(";") if e]
    return {**doc, "sources": records}


def exported_designs(paths) -> dict:
    """The design reports of exported study files among DATA: a trial file with the ``design.json`` that
    ``humanlike export`` writes beside it (its ``design`` and ``pairs_sharing``).

    Parameters
    ----------
    paths : list of path-like
        The DATA arguments.

    Returns
    -------
    dict
        File -> design report (as ``trials.attrs["study_designs"]`` of a study); empty where there is none.

    Examples
    --------
    >>> import json, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "trials.csv").write_text("")
    >>> _ = (folder / "design.json").write_text(json.dumps({"design": "subset", "pairs_sharing": {"0": 1}}))
    >>> [report["design"] for report in exported_designs([folder / "trials.csv"]).values()]
    ['subset']
    >>> exported_designs([folder])       # a folder is not an exported file
    {}
    """
    import json

    found = {}
    for path in map(Path, paths):
        report_path = path.parent / "design.json"
        if not (path.is_file() and report_path.is_file()):
            continue
        try:
            report = json.loads(report_path.read_text())
        except (OSError, ValueError):
            continue                 # not the export's design report: the file is read as any trial file
        if isinstance(report, dict) and {"design", "pairs_sharing"} <= set(report):
            found[str(path)] = report
    return found


def load_data_with_sources(paths, args=None):
    """The trial table of the DATA arguments and where each observer came from.

    Parameters
    ----------
    paths : path-like or list of path-like
        Raw-data folders, tidy trial files, evaluation folders.
    args : argparse.Namespace, optional
        The command's options: ``--humans``, ``--labels`` (:func:`add_data_options`) and ``--on-conflict``
        (:func:`add_on_conflict_option`) where present.

    Returns
    -------
    trials : pandas.DataFrame
        The validated trial table.
    sources : pandas.DataFrame
        :func:`humanlike.trials.sources.sources_table`: source, file digest, model, experiments of each observer.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> path = Path(tempfile.mkdtemp()) / "trials.csv"
    >>> simulate_benchmark(seed=0, n_humans=2, n_items=16).to_csv(path, index=False)
    >>> trials, sources = load_data_with_sources([path])
    >>> sources["source_kind"].unique().tolist()
    ['trial file']
    """
    from ...trials.loaders import load_trials_with_sources
    from ...trials.studies import looks_like_study, read_sources  # the web extra only for a study

    options = dict(on_conflict=getattr(args, "on_conflict", "prefer-margins"), humans=getattr(args, "humans", None),
                   labels=data_labels(getattr(args, "labels", None)))
    options["mapping"] = data_mapping(getattr(args, "mapping", None))
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not any(looks_like_study(p) for p in paths):
        trials, sources = load_trials_with_sources(paths, **options)
        exported = exported_designs(paths)
        if exported:      # `humanlike export`'s file, its design.json beside it: analysed as the study is
            trials.attrs["study_designs"] = exported
        return trials, sources
    # `humanlike serve` studies (a study folder or its database URL) beside ordinary sources
    import pandas as pd

    from ...trials.schema import validate_trials

    rest = [p for p in paths if not looks_like_study(p)]
    tables = [load_trials_with_sources(rest, **options)] if rest else []
    trials = read_sources(paths, lambda _: tables[0][0], validate_trials)
    study = trials[~trials["observer"].isin(tables[0][0]["observer"])] if tables else trials
    study_sources = (study.groupby("observer", observed=True)["experiment"]
                     .agg(lambda e: ";".join(sorted(set(map(str, e))))).rename("experiments").reset_index()
                     .assign(source_kind="serve study",
                             source=", ".join(str(p) for p in paths if looks_like_study(p))))
    return trials, pd.concat([*(t[1] for t in tables), study_sources], ignore_index=True)
