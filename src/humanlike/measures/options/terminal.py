"""What a command shows on the terminal: ``--json`` (the result as JSON on standard output), ``--quiet`` (no
progress bars), whether to show progress, the stage progress bar of the long commands, and the JSON printer.
"""

from __future__ import annotations

import argparse
import sys

from ...files import to_json_text


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result as JSON on stdout (the same words in every command).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_json_option(parser)
    >>> parser.parse_args(["--json"]).json
    True
    """
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bars (the same words in every command).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_quiet_option(parser)
    >>> parser.parse_args([]).quiet
    False
    """
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def show_progress(args) -> bool:
    """Whether to show progress bars: on a terminal, unless ``--quiet``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    bool
        False with ``--quiet`` or when standard error is not a terminal.

    Examples
    --------
    >>> import argparse
    >>> show_progress(argparse.Namespace(quiet=True))
    False
    """
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


class StageProgress:
    """A progress bar over the stages of a long command (``demo``, ``benchmark``, ``report``): shown on a
    terminal, silent in a pipe or with ``--quiet`` (:func:`show_progress`); the bootstrap's own bar
    (:func:`humanlike.resampling.engine.progress_bar`) runs beneath it during a stage.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``--quiet``).
    command : str
        The command's name, shown before the stage.
    stages : list of str
        The stages, in order.

    Examples
    --------
    >>> progress = StageProgress(argparse.Namespace(quiet=True), "report", ["load data", "ec"])
    >>> progress.stage("load data"); progress.stage("ec"); progress.close()
    >>> progress.done
    ['load data', 'ec']
    """

    def __init__(self, args, command: str, stages: list[str]):
        from ...resampling.engine import progress_bar

        self.command, self.stages, self.done = command, list(stages), []
        self._bar = progress_bar(len(self.stages), show_progress(args), command, unit="step")

    def stage(self, name: str) -> None:
        """Start stage ``name`` (the previous one counts as finished).

        Parameters
        ----------
        name : str
            One of the stages.
        """
        if self.done:
            self._bar.update(1)
        self.done.append(name)
        self._bar.set_description(f"{self.command}: {name}")

    def close(self) -> None:
        """Finish the last stage and remove the bar."""
        if self.done:
            self._bar.update(1)
        self._bar.close()


def emit_json(obj) -> None:
    """Print ``obj`` as JSON on standard output (NaN and inf as null).

    Parameters
    ----------
    obj : object
        Anything :func:`humanlike.files.to_json_text` takes.

    Examples
    --------
    >>> emit_json({"estimate": float("nan")})
    {
      "estimate": null
    }
    """
    sys.stdout.write(to_json_text(obj) + "\n")
