"""The output folder of a command and its record: ``--out``, ``--format`` (with ``--json`` and ``--quiet``, the
output options every command shares), the command line as typed, and the run's
:class:`~humanlike.files.RunOutputs`, whose manifest ``humanlike-manifest.json`` is written last.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ...files import RunOutputs, check_output_folder, check_outputs_spare_inputs, file_in_folder
from ...resampling.settings import ResamplingSettings
from .terminal import add_json_option, add_quiet_option

DEFAULT_OUT = Path("humanlike-out")


OUT_HELP = ("folder for tables and figures; the run's record humanlike-manifest.json (command, settings, "
            "every file with its sha256, 'complete': true) is written last")


def output_path(text: str) -> Path:
    """argparse type of ``--out`` (and other output paths): a path, never empty.

    An empty value would resolve to the current folder and scatter the outputs there.

    Parameters
    ----------
    text : str
        The value given.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    argparse.ArgumentTypeError
        For an empty or blank value.

    Examples
    --------
    >>> output_path("results")
    PosixPath('results')
    >>> output_path("")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: an empty path would write into the current folder; name a folder or file
    """
    if not str(text).strip():
        raise argparse.ArgumentTypeError("an empty path would write into the current folder; name a folder or file")
    return Path(text)


def add_output_options(parser: argparse.ArgumentParser, out_default: Path | None = DEFAULT_OUT) -> None:
    """The output options shared by the commands: ``--out``, ``--format``, ``--json``, ``--quiet``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.
    out_default : path or None
        Default of ``--out`` (None: write no files unless asked).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_output_options(parser, out_default=None)
    >>> args = parser.parse_args(["--format", "parquet"])
    >>> args.out, args.format, args.json
    (None, 'parquet', False)
    """
    parser.add_argument("--out", type=output_path, default=out_default, help=OUT_HELP)
    parser.add_argument("--format", choices=("csv", "parquet", "json"), default="csv",
                        help="table format (default %(default)s; JSON tables are NAME.table.json)")
    add_json_option(parser)
    add_quiet_option(parser)


# Options that name output files other than --out, checked before any work.
OUTPUT_FILE_OPTIONS = ("figure",)
NOT_OPTIONS = ("handler", "argv", "exclusions_given", "out_file_name")
# Every option that names what a command writes (a folder, or a file: --figure, report's --out).
OUTPUT_OPTIONS = ("out", "figure", "figures")
# Paths a command both reads and writes (a work cache): neither an input to protect nor an output.
WORK_OPTIONS = ("cache_dir",)
# Arguments typed as text that name files or folders read where they exist (evaluate's MODEL... STIMULI).
TEXT_INPUTS = ("inputs",)


def command_inputs(args) -> list[Path]:
    """The files and folders a parsed command reads: every path-valued argument that is not an output.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    list of pathlib.Path

    Examples
    --------
    >>> import argparse
    >>> command_inputs(argparse.Namespace(data=[Path("a.csv"), Path("b")], judgements=[], out=Path("o"),
    ...                                   figure=None, seed=0))
    [PosixPath('a.csv'), PosixPath('b')]
    """
    inputs = []
    for key, value in vars(args).items():
        if key in OUTPUT_OPTIONS or key in WORK_OPTIONS or key in NOT_OPTIONS:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        inputs += [v for v in values if isinstance(v, Path)]
        if key in TEXT_INPUTS:
            inputs += [Path(v) for v in values if isinstance(v, str) and Path(v).exists()]
    return inputs


def settle_output_paths(args) -> None:
    """Before any work, for every command: a file option given an existing folder names a file in it
    (``--figure FOLDER`` is ``FOLDER/COMMAND.png``, ``report --out FOLDER`` is ``FOLDER/report.html``), and no
    output may write over an input (:func:`~humanlike.files.check_outputs_spare_inputs`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line; ``figure`` and ``out`` are replaced by the files they name. A command whose
        ``--out`` is one file sets ``out_file_name`` (its name inside a folder).

    Raises
    ------
    humanlike.files.OutputPathError
        Naming the output option and the input it would write over.

    Examples
    --------
    >>> import argparse, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> args = argparse.Namespace(command="ec", data=[folder / "t.csv"], out=None, figure=folder)
    >>> settle_output_paths(args)
    >>> args.figure == folder / "ec.png"
    True
    >>> try:
    ...     settle_output_paths(argparse.Namespace(command="report", data=[folder / "t.csv"], out=folder / "t.csv"))
    ... except ValueError as err:
    ...     print(str(err).replace(str(folder), "D"))
    --out D/t.csv would write over the input D/t.csv; choose an output path outside the inputs
    """
    if isinstance(getattr(args, "figure", None), Path):
        args.figure = file_in_folder(args.figure, f"{getattr(args, 'command', 'figure')}.png")
    if getattr(args, "out_file_name", None) and isinstance(getattr(args, "out", None), Path):
        args.out = file_in_folder(args.out, args.out_file_name)
    outputs = {f"--{name}": getattr(args, name) for name in OUTPUT_OPTIONS
               if isinstance(getattr(args, name, None), Path)}
    check_outputs_spare_inputs(outputs, command_inputs(args))


def command_line(args) -> str:
    """The command line of a parsed run (as typed, where :func:`humanlike.app.cli.main` kept it).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line; ``args.argv`` holds the arguments as typed, if kept.

    Returns
    -------
    str
        The shell-quoted command line, or ``humanlike COMMAND`` when the arguments were not kept.

    Examples
    --------
    >>> import argparse
    >>> command_line(argparse.Namespace(argv=["demo", "--out", "my results"]))
    "humanlike demo --out 'my results'"
    >>> command_line(argparse.Namespace(command="demo"))
    'humanlike demo'
    """
    import shlex

    argv = getattr(args, "argv", None)
    if argv is None:
        return f"humanlike {getattr(args, 'command', '')}".strip()
    return shlex.join(["humanlike", *map(str, argv)])


def run_outputs(args, settings: ResamplingSettings | dict | None = None, out=None) -> RunOutputs:
    """The :class:`~humanlike.files.RunOutputs` of a command: every file of the run goes through it
    and its manifest is written last (``run.finish()``) into ``--out``.

    The output folder and every output file option (``--figure``, ``--figures``) are checked
    first, before the analysis runs, so an unwritable path fails in a second rather than after the work.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    settings : ResamplingSettings or dict, optional
        The run's settings, recorded in the manifest (``to_dict()`` of a ``ResamplingSettings``).
    out : path, optional
        The output folder (default ``args.out``; None: no folder, no manifest).

    Returns
    -------
    RunOutputs
        The run's outputs, writing into ``out`` (nothing is written yet).

    Raises
    ------
    OSError
        For an output folder or file option that cannot be written (checked before any work).

    Examples
    --------
    >>> import argparse, tempfile
    >>> from pathlib import Path
    >>> out = Path(tempfile.mkdtemp()) / "run"
    >>> run = run_outputs(argparse.Namespace(out=out, argv=["demo"], format="csv"), settings={"seed": 0})
    >>> run.command, run.out_dir.name, run.options["format"], run.settings
    ('humanlike demo', 'run', 'csv', {'seed': 0})
    """
    out = getattr(args, "out", None) if out is None else out
    if out is not None:
        check_output_folder(out)
    for name in OUTPUT_FILE_OPTIONS:
        path = getattr(args, name, None)
        if isinstance(path, Path):
            if path.is_dir():
                raise OSError(21, f"--{name} {path} is a folder; give a file name", str(path))
            check_output_folder(path.parent)
    if isinstance(getattr(args, "figures", None), Path):
        check_output_folder(args.figures)
    if isinstance(settings, ResamplingSettings):
        settings = settings.to_dict()
    options = {key: (str(value) if isinstance(value, Path) else
                     [str(v) if isinstance(v, Path) else v for v in value] if isinstance(value, (list, tuple))
                     else value)
               for key, value in sorted(vars(args).items()) if key not in NOT_OPTIONS and not callable(value)}
    return RunOutputs(out, command=command_line(args), settings=settings, options=options)


