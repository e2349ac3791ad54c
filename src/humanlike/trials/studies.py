"""A ``humanlike serve`` study (its folder or its database URL) as a data source, read beside ordinary files:
every command that takes DATA goes through :func:`read_sources`.

The study itself is read by the web extra (:func:`humanlike.web.export.read_study`), which this layer never
imports: the command line provides it (:mod:`humanlike.trials.consumers`, part ``"study reader"``), and only
when a study is given is it used.
"""

from __future__ import annotations

from pathlib import Path


def source_text(path) -> str:
    """A command-line DATA argument as text, with a database URL's ``//`` restored (argparse's ``type=Path``
    collapses ``postgresql://u@h/db`` to ``postgresql:/u@h/db``).

    Parameters
    ----------
    path : str or path
        The argument.

    Returns
    -------
    str

    Examples
    --------
    >>> source_text(Path("postgresql://u@localhost:5432/study"))
    'postgresql://u@localhost:5432/study'
    >>> source_text(Path("sqlite:////tmp/study.sqlite"))
    'sqlite:////tmp/study.sqlite'
    """
    import re

    text = str(path)
    match = re.match(r"^((?:sqlite|postgresql|postgres)(?:\+\w+)?):/(?!/)(.*)$", text)
    if match is None:
        return text
    scheme, rest = match.groups()
    # a collapsed sqlite URL is taken as an absolute path (sqlite:////abs/path): a relative one is ambiguous
    return f"{scheme}:////{rest}" if scheme.startswith("sqlite") else f"{scheme}://{rest}"


def looks_like_study(path) -> bool:
    """Whether a DATA argument names a study (a folder with study.toml, or a database URL); imports nothing
    of the web extra, so that the command line can ask before importing it.

    Parameters
    ----------
    path : str or path
        A DATA argument.

    Returns
    -------
    bool

    Examples
    --------
    >>> looks_like_study("postgresql://u@localhost/study"), looks_like_study("raw-data/")
    (True, False)
    """
    text = str(path)
    return text.startswith(("sqlite:", "postgresql:", "postgres:", "postgresql+")) or (Path(text) / "study.toml").is_file()


def judgement_study(path) -> bool:
    """Whether a DATA argument is a study folder of difference judgements (``task`` triads or quads in its
    study.toml), whose table is a judgement table rather than a trial table.

    Parameters
    ----------
    path : str or path
        A DATA argument.

    Returns
    -------
    bool
        False for anything else, a database URL included (its task is in the database).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "study.toml").write_text('task = "triads"')
    >>> judgement_study(folder), judgement_study("raw-data/")
    (True, False)
    """
    import tomllib

    config = Path(str(path)) / "study.toml"
    if not config.is_file():
        return False
    try:
        return tomllib.loads(config.read_text()).get("task") in ("triads", "quads")
    except (OSError, tomllib.TOMLDecodeError):
        return False          # the study reader names what is wrong with it


def read_sources(paths, load_other, validate):
    """The table of DATA arguments that may mix studies (folders, database URLs) and other sources.

    Parameters
    ----------
    paths : path or list of paths
        The DATA arguments.
    load_other : callable
        Reads the other arguments (a list of paths) into one table, e.g. :func:`humanlike.load_trials`.
    validate : callable
        Checks the pooled table, e.g. :func:`humanlike.validate_trials`.

    Returns
    -------
    pandas.DataFrame
        ``load_other(paths)`` when no argument is a study; else each study through the study reader (the web
        extra's :func:`humanlike.web.export.read_study`), the rest through ``load_other``, pooled and validated;
        its ``attrs["study_designs"]`` maps each study to its design report (the web extra's
        :func:`humanlike.web.design_report.design_report`).

    Examples
    --------
    >>> read_sources(["a.csv", "b.csv"], lambda paths: f"read {len(paths)} files", None)
    'read 2 files'
    """
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not any(looks_like_study(p) for p in paths):
        return load_other(paths)
    import pandas as pd

    from .consumers import provided

    read_study = provided("study reader")
    try:
        frames = [read_study(source_text(p)) for p in paths if looks_like_study(p)]
    except ImportError as err:
        raise ValueError(f'reading a study needs the "web" extra: pip install "humanlike[web]" '
                         f'({err.name} is missing)') from None
    designs = {source_text(p): frame.attrs["study_design"] for p, frame in
               zip([p for p in paths if looks_like_study(p)], frames)}
    rest = [p for p in paths if not looks_like_study(p)]
    if rest:
        frames.append(load_other(rest))
    table = validate(pd.concat(frames, ignore_index=True))
    table.attrs["study_designs"] = designs     # source -> design report; the analyses record it in the manifest
    return table
