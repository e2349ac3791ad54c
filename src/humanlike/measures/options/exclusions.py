"""``--exclusions/--no-exclusions``: whether a command applies the model-vs-human exclusion table, and what
its outputs record about it.
"""

from __future__ import annotations

import argparse


EXCLUSIONS_HELP = ("apply the model-vs-human exclusion table (the conditions the published benchmark leaves out; "
                   "default: on; it touches only the model-vs-human experiments); --no-exclusions keeps every "
                   "condition")


class ExclusionsOption(argparse.BooleanOptionalAction):
    """``--exclusions/--no-exclusions`` that also records that the user gave one (``exclusions_given``), as
    typed or abbreviated, so a command can tell the default from a request (``compare --measure
    ood-alignment`` refuses a request it cannot honour).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--exclusions", action=ExclusionsOption, default=True)
    >>> args = parser.parse_args(["--no-exclusions"])
    >>> args.exclusions, args.exclusions_given
    (False, True)
    """

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        namespace.exclusions_given = True


def add_exclusion_options(parser: argparse.ArgumentParser) -> None:
    """``--exclusions/--no-exclusions``: the model-vs-human exclusion table, on by default in every command.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_exclusion_options(parser)
    >>> parser.parse_args([]).exclusions, parser.parse_args(["--no-exclusions"]).exclusions
    (True, False)
    >>> parser.parse_args([]).exclusions_given, parser.parse_args(["--exclusion"]).exclusions_given
    (False, True)
    """
    parser.add_argument("--exclusions", action=ExclusionsOption, default=True, help=EXCLUSIONS_HELP)
    parser.set_defaults(exclusions_given=False)


def exclusions_of(args) -> dict | None:
    """The exclusion table a parsed command line asks for (None: keep every condition).

    Parameters
    ----------
    args : argparse.Namespace
        Parsed with :func:`add_exclusion_options`.

    Returns
    -------
    dict or None
        :data:`~humanlike.trials.selection.MODELVSHUMAN_EXCLUSIONS`, or None for ``--no-exclusions``.

    Examples
    --------
    >>> import argparse
    >>> exclusions_of(argparse.Namespace(exclusions=False)) is None
    True
    """
    from ...trials.selection import MODELVSHUMAN_EXCLUSIONS

    return MODELVSHUMAN_EXCLUSIONS if getattr(args, "exclusions", True) else None


def exclusions_record(args) -> str:
    """What the outputs record about the exclusions: ``"model-vs-human"`` or ``"none"``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed with :func:`add_exclusion_options`.

    Returns
    -------
    str

    Examples
    --------
    >>> import argparse
    >>> exclusions_record(argparse.Namespace(exclusions=True))
    'model-vs-human'
    """
    return "model-vs-human" if getattr(args, "exclusions", True) else "none"
