"""The ``serve`` and ``export`` commands (registered on the ``humanlike`` parser by
:func:`add_serve_commands`).

This module is imported when the parser is built, so it imports nothing heavy: the server's dependencies
are imported inside the handlers, and a missing ``web`` extra is a one-line error naming the install command.

- ``humanlike serve init STUDY --stimuli SRC --task classify|triads|quads``: write STUDY/study.toml;
- ``humanlike serve STUDY [--host --port --db --workers]``: run the server, print the two URLs;
- ``humanlike serve --demo``: a demo of both tasks on generated stimuli;
- ``humanlike serve withdraw STUDY PARTICIPANT``: delete one participant's data;
- ``humanlike export STUDY [--out FILE] [--include-platform-ids]``: the trial / judgement table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

#: Seconds a participant's connection stays open between requests (a trial takes a few seconds).
KEEP_ALIVE_S = 30
INSTALL_HINT = 'the web server needs the "web" extra: pip install "humanlike[web]"'


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 0 and 65535, got {value}")
    return value


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"must be between 1 and 64, got {value}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


_count.bad_examples = ["0", "-3", "x"]
_port.bad_examples = ["-1", "65536", "x"]
_workers.bad_examples = ["0", "65", "x"]


class _AnyWord(Mapping):
    """The choices of ``serve``'s first word: any word is allowed (a study folder's name is not known
    beforehand); as a mapping, the subcommands and their parsers (what help and the docs' CLI reference read)."""

    def __init__(self, commands: dict):
        self.commands = commands

    def __contains__(self, word) -> bool:
        return True

    def __getitem__(self, name):
        return self.commands[name]

    def __iter__(self):
        return iter(self.commands)

    def __len__(self) -> int:
        return len(self.commands)


class StudiesOrCommand(argparse._SubParsersAction):
    """``serve``'s subcommands (``init``, ``withdraw``, ``run``) where a first word that is none of them is a
    study folder: ``humanlike serve STUDY ...`` means ``humanlike serve run STUDY ...``.

    Parameters
    ----------
    *args, **kwargs
        As :class:`argparse._SubParsersAction` (``add_subparsers(action=StudiesOrCommand)`` passes them).

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> add_serve_commands(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["serve", "my-study"]).serve_command
    'run'
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.choices = _AnyWord(self._name_parser_map)

    def __call__(self, parser, namespace, values, option_string=None):
        if values and values[0] not in self._name_parser_map:
            values = ["run", *values]
        super().__call__(parser, namespace, values, option_string)


def _run_options(parser, suppress: bool) -> None:
    """The options of running a server; on ``serve run`` they default to nothing, so that ``serve --port N
    STUDY`` and ``serve STUDY --port N`` mean the same."""

    def default(value):
        return argparse.SUPPRESS if suppress else value

    parser.add_argument("--host", default=default("127.0.0.1"), help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=default(8000), help="port (default 8000; 0: any free port)")
    parser.add_argument("--db", default=default(None),
                        help="database URL (default: sqlite in STUDY/study.sqlite); postgresql://USER@HOST/DB")
    parser.add_argument("--workers", type=_workers, default=default(1), help="uvicorn worker processes (PostgreSQL only)")
    parser.add_argument("--demo", action="store_true", default=default(False),
                        help="serve a demo of both tasks on generated stimuli")


def add_serve_commands(sub, plan_sub=None) -> None:
    """Register ``serve`` (with its subcommands ``init``, ``withdraw``, ``run``) and ``export`` on the
    ``humanlike`` parser's subcommands (and ``plan design`` on ``plan``'s).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction, optional
        The subcommands of ``humanlike plan`` (``design`` is added there).

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> add_serve_commands(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["serve", "init", "my-study", "--stimuli", "images/", "--task", "triads"])
    >>> args.serve_command, args.study, args.task
    ('init', 'my-study', 'triads')
    >>> args = parser.parse_args(["serve", "study-a", "study-b", "--port", "9000"])
    >>> args.serve_command, args.studies, args.port
    ('run', ['study-a', 'study-b'], 9000)
    """
    serve = sub.add_parser(
        "serve", help="run a web experiment (classification or difference judgements) and collect responses",
        description="humanlike serve init STUDY --stimuli SRC --task classify|triads|quads  (write STUDY/study.toml); "
                    "humanlike serve STUDY [STUDY ...]  (run them; several studies are served under /NAME/); "
                    "humanlike serve --demo  (both tasks on generated stimuli); "
                    "humanlike serve withdraw STUDY PARTICIPANT  (delete one participant's data). "
                    "See docs/run-your-own-experiment.md.")
    _run_options(serve, suppress=False)
    serve.set_defaults(handler=run_serve, serve_command="run", studies=[])
    commands = serve.add_subparsers(dest="serve_command", metavar="{init,withdraw,STUDY}", action=StudiesOrCommand)

    init = commands.add_parser("init", help="write STUDY/study.toml for a folder or manifest of stimuli",
                               description="Write STUDY/study.toml (the stimulus path relative to STUDY, so that "
                                           "the folders can be moved together); edit it, then run "
                                           "`humanlike serve STUDY`.")
    init.add_argument("study", help="the study folder to create")
    init.add_argument("--stimuli", required=True,
                      help="image folder, stimulus manifest, evaluation folder or sequence manifest")
    init.add_argument("--task", required=True, choices=("classify", "triads", "quads"), help="the task")
    init.add_argument("--title", help="the study's title (default: the folder's name)")
    init.add_argument("--design",
                      choices=("everything", "subset", "latin-square", "pooled", "discriminate", "adaptive"),
                      help="who sees what (default: latin-square for classify, everything for triads/quads; with "
                           "--per-participant: subset); see docs/run-your-own-experiment.md#the-designs")
    init.add_argument("--per-participant", type=_count, default=0, metavar="N",
                      help="main trials per participant (designs subset, pooled, discriminate and adaptive)")
    init.add_argument("--batch", type=_count, metavar="B", help="design adaptive: refit the pooled MLDS scale after "
                      "every B completed participants; design discriminate --adaptive: look and refit after every "
                      "B (at least 2) completed participants (default 10)")
    from .discriminate import add_discriminate_options

    add_discriminate_options(init)   # --models, --compare, --floor (design discriminate)
    init.set_defaults(handler=run_serve)

    withdraw = commands.add_parser("withdraw", help="delete one participant's data",
                                   description="Delete every row of one participant (by pseudonym, token or "
                                               "platform id, e.g. the Prolific id they wrote from).")
    withdraw.add_argument("study", help="the study folder")
    withdraw.add_argument("participant", help="pseudonym (as in the export), token or platform id")
    withdraw.add_argument("--db", default=argparse.SUPPRESS,
                          help="database URL (default: sqlite in STUDY/study.sqlite)")
    withdraw.set_defaults(handler=run_serve)

    run = commands.add_parser("run", help="run STUDY [STUDY ...] (the word `run` may be left out)",
                              description="Run the server for one study (at /) or several (each at /NAME/, "
                                          "with its own database and researcher secret).")
    run.add_argument("studies", nargs="+", metavar="STUDY", help="study folder(s)")
    _run_options(run, suppress=True)
    run.set_defaults(handler=run_serve)

    export = sub.add_parser(
        "export", help="write a served study's data as a trial table or a difference-judgement table",
        description="Write the study's responses (main trials of participants who passed the attention checks) as "
                    "the trial table (classify) or the difference-judgement table (triads, quads), the layouts "
                    "`humanlike ec` and `humanlike mlds` read. Observers carry pseudonyms. In a CSV, text cells "
                    "that a spreadsheet would run as a formula get a leading ' (Parquet keeps them as they are).")
    export.add_argument("study", help="study folder (with study.toml) or database URL")
    export.add_argument("--out", type=Path,
                        help="output file (.csv or .parquet), or a folder to write it into (default: "
                             "STUDY/trials.csv or STUDY/judgements.csv)")
    export.add_argument("--include-platform-ids", action="store_true",
                        help="add the recruiting platform's ids (personal data) as platform_* columns, and "
                             "each participant's completion_code")
    export.add_argument("--keep-excluded", action="store_true",
                        help="keep participants who failed more attention checks than the study allows")
    export.set_defaults(handler=run_export)
    if plan_sub is not None:
        from .plan_cli import add_plan_design

        add_plan_design(plan_sub)


def _require_web():
    try:
        import alembic  # noqa: F401
        import sqlalchemy  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as err:
        raise ValueError(f"{INSTALL_HINT} ({err.name} is missing)") from None


def run_serve(args) -> int:
    """Handle ``humanlike serve`` (init, withdraw, demo, or run one or several studies).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit code, 0 on success (a running server returns when stopped); errors are raised and
        :func:`humanlike.app.cli.main` turns them into exit code 2 with a one-line message.

    Examples
    --------
    >>> from humanlike.app.cli import build_parser
    >>> build_parser().parse_args(["serve", "--demo"]).handler is run_serve
    True
    """
    _require_web()
    from .config import StudyConfigError

    command = args.serve_command or "run"
    try:
        if command == "init":
            return _init(args)
        if command == "withdraw":
            return _withdraw(args)
        if args.demo:
            if args.studies:
                raise ValueError(f"--demo serves its own studies; leave out {args.studies}")
            return _serve_demo(args)
        if not args.studies:
            raise ValueError("give a STUDY folder (or init / withdraw, or --demo)")
        return _serve(args, [Path(s) for s in args.studies])
    except StudyConfigError as err:
        raise ValueError(str(err)) from None


def _relative(path: Path, study: Path) -> str:
    """``path`` relative to the study folder (so that the two move together), or absolute where it cannot be
    (another drive)."""
    import os

    try:
        return Path(os.path.relpath(path, study.resolve())).as_posix()
    except ValueError:
        return str(path)


def _init(args) -> int:
    from ..trials.schema import CLASSES_16
    from .discriminate import DESIGN_FILE, discriminating_study
    from .config import StudyConfig, write_config
    from .stimuli import classification_labels

    study = Path(args.study)
    source = Path(args.stimuli).expanduser().resolve()
    config = StudyConfig(title=args.title or study.resolve().name, task=args.task, stimuli=_relative(source, study),
                         design=args.design or "", trials_per_participant=args.per_participant,
                         design_file=DESIGN_FILE if args.design == "discriminate" else "",
                         refit_every=(args.batch if args.design == "adaptive" else None) or 10)
    if args.batch and args.design != "adaptive" and not args.adaptive:   # --adaptive: humanlike.web.adaptive
        raise ValueError("--batch applies with --design adaptive only (or with --design discriminate --adaptive)")
    if args.task == "classify":
        labels = classification_labels(source)
        config.labels = list(CLASSES_16) if set(labels) <= set(CLASSES_16) else labels
    config = _with_root(config, study)                         # every image is checked before writing
    config = discriminating_study(args, config, study)        # design discriminate: writes its design file
    _check_size(config, study)
    path = write_config(config, study)
    print(f"wrote {path} (design {config.design}): edit it (durations, trials, consent text, completion URL), then run "
          f"`humanlike serve {study}`")
    return 0


def _check_size(config, study: Path) -> None:
    """Refuse, before writing, a per-participant block as large as the study (the server would refuse it)."""
    from .design import check_design_size
    from .stimuli import read_stimuli

    check_design_size(read_stimuli(config, study), config)


def _with_root(config, study: Path):
    """Set ``stimulus_root`` to the common folder of the stimuli (relative to the study folder) when they lie
    outside the stimuli's folder (an evaluation folder's stimuli.csv lists images elsewhere)."""
    import os

    from .config import stimulus_source
    from .stimuli import read_stimuli

    try:
        read_stimuli(config, study)
        return config
    except ValueError as err:
        if "outside the stimulus folder" not in str(err):
            raise
    source = stimulus_source(config, study)
    if config.task == "classify":
        from ..trials.stimuli import discover_stimuli
        from .stimuli import classification_source

        paths = discover_stimuli(classification_source(source), check=False)["path"]
    else:
        from ..measures.psychscore.sequences import read_sequence_manifest

        paths = read_sequence_manifest(source)["path"]
    root = Path(os.path.commonpath([str(Path(p).resolve().parent) for p in paths]))
    config.stimulus_root = _relative(root, study)
    return config


def _withdraw(args) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from . import db
    from .config import study_paths
    from .service import withdraw

    study, participant = Path(args.study), args.participant
    url = args.db or db.sqlite_url(study_paths(study)["database"])
    if not args.db and not study_paths(study)["database"].is_file():
        raise ValueError(f"{study}: the study has no database yet")
    try:
        engine = db.make_engine(url)
        try:
            n = withdraw(engine, participant)
        finally:
            engine.dispose()
    except SQLAlchemyError as err:
        raise db.unreadable(url, err) from None
    print(f"deleted participant {participant!r}: {n} response(s), their trials and platform ids")
    return 0


def _announce(host: str, port: int, secrets: dict[str, Path], paths: dict[str, str]) -> None:
    """Print each study's two addresses; the researcher logs in with the secret in its file (never printed,
    never in a URL)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    for name, prefix in paths.items():
        print(f"{name}: participants  http://{shown}:{port}{prefix}/   "
              f"(Prolific: append ?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
              f"&SESSION_ID={{{{%SESSION_ID%}}}})")
        print(f"{name}: researcher    http://{shown}:{port}{prefix}/researcher   "
              f"(log in with the secret in {secrets[name]})")
    sys.stdout.flush()


def _free_port(host: str) -> int:
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _study_names(studies: list[Path]) -> dict[str, Path]:
    """Each study's URL name (its folder's name); two studies may not share one."""
    import re

    names: dict[str, Path] = {}
    for study in studies:
        name = study.resolve().name
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
            raise ValueError(f"{study}: a study served beside others is served under /FOLDER-NAME/; rename the "
                             "folder to letters, digits, '.', '_' and '-'")
        if name in names:
            raise ValueError(f"{study} and {names[name]}: two studies with the folder name {name!r} (each is "
                             f"served under /{name}/); rename one")
        if name in ("static", "health", "api"):
            raise ValueError(f"{study}: {name!r} cannot name a study served beside others; rename the folder")
        names[name] = study
    return names


def _serve(args, studies: list[Path]) -> int:
    import os

    import uvicorn

    from . import db
    from .app import create_app, mount_studies, open_study
    from .config import researcher_secret, study_paths

    if args.workers > 1 and not (args.db or "").startswith(("postgresql", "postgres")):
        raise ValueError("--workers above 1 needs a PostgreSQL database (--db postgresql://...); SQLite serves "
                         "one process")
    port = args.port or _free_port(args.host)
    if len(studies) > 1:
        if args.db or args.workers > 1:
            raise ValueError("several studies are served by one process, each with its database in its folder: "
                             "leave out --db and --workers (or serve each study on its own)")
        names = _study_names(studies)
        apps = {name: create_app(_opened(open_study, study, None), researcher_secret(study))
                for name, study in names.items()}
        _announce(args.host, port, {name: study_paths(s)["secret"] for name, s in names.items()},
                  {name: f"/{name}" for name in names})
        uvicorn.run(mount_studies(apps), host=args.host, port=port, log_level="warning",
                    timeout_keep_alive=KEEP_ALIVE_S)
        return 0
    study = studies[0]
    prepared = _opened(open_study, study, args.db)            # migrations and stimulus ids, once
    secret = researcher_secret(study)
    _announce(args.host, port, {"study": study_paths(study)["secret"]}, {"study": ""})
    if args.workers == 1:
        uvicorn.run(create_app(prepared, secret), host=args.host, port=port, log_level="warning",
                    timeout_keep_alive=KEEP_ALIVE_S)
        return 0
    prepared.engine.dispose()
    os.environ.update(HUMANLIKE_STUDY=str(study.resolve()), HUMANLIKE_DB=db.database_url(args.db),
                      HUMANLIKE_PREPARED="1")
    uvicorn.run("humanlike.web.app:app_from_environment", factory=True, host=args.host, port=port,
                workers=args.workers, log_level="warning", timeout_keep_alive=KEEP_ALIVE_S)
    return 0


def _opened(open_study, study: Path, url: str | None):
    """:func:`humanlike.web.app.open_study`, a database that cannot be opened being a one-line error."""
    from sqlalchemy.exc import SQLAlchemyError

    from . import db
    from .config import study_paths

    try:
        return open_study(study, url)
    except SQLAlchemyError as err:
        raise db.unreadable(url or db.sqlite_url(study_paths(study)["database"]), err) from None


def _serve_demo(args) -> int:
    import tempfile

    import uvicorn

    from .app import create_app, mount_studies, open_study
    from .config import researcher_secret, study_paths
    from .demo import make_demo

    folder = Path(tempfile.mkdtemp(prefix="humanlike-demo-"))
    studies = make_demo(folder)
    secret = researcher_secret(folder)
    apps = {name: create_app(open_study(path), secret) for name, path in studies.items()}
    # the index links to each study and its researcher login; the secret is only in its file
    links = "".join(f'<li><a href="/{name}/">{name}</a> (<a href="/{name}/researcher">researcher page</a>)</li>'
                    for name in apps)
    index = (f"<!doctype html><title>humanlike demo</title><h1>humanlike serve: demo</h1><ul>{links}</ul>"
             f"<p>Study folders: {folder}. The researcher secret is in {study_paths(folder)['secret']}.</p>")
    port = args.port or _free_port(args.host)
    print(f"demo studies in {folder}")
    _announce(args.host, port, {name: study_paths(folder)["secret"] for name in apps}, {name: f"/{name}" for name in apps})
    uvicorn.run(mount_studies(apps, index), host=args.host, port=port, log_level="warning",
                timeout_keep_alive=KEEP_ALIVE_S)
    return 0


def run_export(args) -> int:
    """Handle ``humanlike export``.

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
    >>> build_parser().parse_args(["export", "my-study"]).handler is run_export
    True
    """
    _require_web()
    from ..files import table_format, write_table
    from .config import StudyConfigError, load_config
    from .db import is_database_url
    from .export import read_study, spreadsheet_safe

    try:
        table = read_study(args.study, include_platform_ids=args.include_platform_ids,
                           keep_excluded=args.keep_excluded)
        if is_database_url(args.study):
            task = "classify" if "label" in table.columns else "triads"
            if args.out is None:
                raise ValueError("give --out FILE (or FOLDER) when exporting from a database URL")
        else:
            task = load_config(Path(args.study)).task
        name = "trials.csv" if task == "classify" else "judgements.csv"
        out = args.out if args.out is not None else Path(args.study)
        if out.is_dir():     # a folder: the table goes inside it, under the task's name
            out = out / name
    except StudyConfigError as err:
        raise ValueError(str(err)) from None
    report, looks = table.attrs["study_design"], table.attrs.get("adaptive")
    if table_format(out) == "csv":
        table = spreadsheet_safe(table)
    written = write_table(table, out)
    print(f"wrote {written}: {len(table)} rows, {table['observer'].nunique()} participant(s)")
    import json

    from ..files import atomic_write_text
    from .design_report import describe_design

    design_file = Path(written).with_name("design.json")
    atomic_write_text(design_file, json.dumps(report, indent=1) + "\n")
    print(f"wrote {design_file}: {describe_design(report)}")
    if looks is not None:   # an adaptive study's looks (humanlike.web.adaptive_report)
        atomic_write_text(design_file.with_name("adaptive.json"), json.dumps(looks, indent=1) + "\n")
    return 0
