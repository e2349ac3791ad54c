"""The ``humanlike`` command line.

Every registered measure and cross-measure tool adds its commands (:func:`humanlike.measures.registry.command_families`,
each entry's ``register_cli``); the app adds its own (``demo``, ``evaluate``, ``report``). This module only assembles
them.
"""

from __future__ import annotations

import argparse
import gc
import sys

from ..measures.options import add_on_conflict_option, optional_module, settle_output_paths
from ..measures.registry import command_families
from ..trials.consumers import provide

# The app's own command families (each a module with register(subparsers, plan_subparsers)), around the
# measures' commands; an absent one (the models' extra) is skipped.
APP_COMMANDS_FIRST = ("app.demo",)
APP_COMMANDS_LAST = ("app.cli_models", "app.cli_report")


def build_parser() -> argparse.ArgumentParser:
    """The ``humanlike`` argument parser with every command family registered.

    Returns
    -------
    argparse.ArgumentParser
        Parsing a command line gives a namespace whose ``handler`` runs the command: the app's ``demo``, every
        registered measure's and cross-measure tool's commands (``compare``), then ``evaluate`` (when the models' module is there) and ``report``.

    Examples
    --------
    >>> args = build_parser().parse_args(["mlds", "kk1.csv", "--resamples", "200"])
    >>> args.command, args.resamples, args.handler.__name__
    ('mlds', 200, 'run_mlds')
    """
    parser = argparse.ArgumentParser(
        prog="humanlike",
        description="How alike are humans and machines in their decisions, trial by trial, with honest uncertainty.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    plan = sub.add_parser("plan", help="experiment planning: how many trials / observers are enough")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True, metavar="METRIC")
    for name in APP_COMMANDS_FIRST:
        optional_module(name).register(sub, plan_sub)
    for family in command_families():
        try:
            family.register_cli(sub, plan_sub)
        except argparse.ArgumentError as err:   # two folders claim one command: name them, no traceback
            raise TypeError(f"{family.package} (registered as {family.name!r}) adds a command another family "
                            f"already has ({err.message}): rename its entry") from None
    for name in APP_COMMANDS_LAST:
        module = optional_module(name)
        if module is not None:
            module.register(sub, plan_sub)
    for command in sub.choices.values():  # every command that reads DATA resolves observer-name clashes alike
        if any(action.dest == "data" for action in command._actions):
            add_on_conflict_option(command)
    from ..web.cli import add_serve_commands  # `serve` and `export`; its handlers import the web extra lazily

    add_serve_commands(sub, plan_sub)
    lend_consumer_parts()
    return parser


def lend_consumer_parts() -> None:
    """Lend the core the web and models extras' parts it asks for (:mod:`humanlike.trials.consumers`): a study
    read as a data source, network observers' judgements. Each imports its extra on first use only.

    Examples
    --------
    >>> from humanlike.trials.consumers import provided
    >>> lend_consumer_parts()
    >>> provided("study reader").__name__
    'read_study'
    """
    def read_study(source):
        from ..web.export import read_study as read

        return read(source)

    def network_judgements(*args, **kwargs):
        from ..models.observer import network_judgements as judge

        return judge(*args, **kwargs)

    provide("study reader", read_study)
    provide("network judgements", network_judgements)
# The options that size a run's memory, named (those the command has) when it runs out.
MEMORY_OPTIONS = ("--resamples", "--memory-budget", "--trials", "--items", "--sets")


def command_options(parser: argparse.ArgumentParser, args) -> set[str]:
    """The option strings of the (sub)command a parsed command line runs.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``humanlike`` parser (:func:`build_parser`).
    args : argparse.Namespace
        What it parsed.

    Returns
    -------
    set of str

    Examples
    --------
    >>> parser = build_parser()
    >>> options = command_options(parser, parser.parse_args(["plan", "compare", "--delta", "0.1"]))
    >>> "--rho" in options, "--memory-budget" in options
    (True, False)
    """
    while True:
        subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subparsers:
            return {o for a in parser._actions for o in a.option_strings}
        parser = subparsers[0].choices[getattr(args, subparsers[0].dest)]


def main(argv: list[str] | None = None) -> int:
    """Run the command line (``argv`` defaults to ``sys.argv[1:]``); returns the exit code (2 for a clear error).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``humanlike``.

    Returns
    -------
    int
        0 on success, 2 for bad input (a one-line ``humanlike <cmd>: error: ...`` on standard error, no
        traceback), 130 when interrupted.

    Examples
    --------
    >>> main(["mlds", "no-such-file.csv"])
    2
    """
    from ..trials.schema import TrialTableError

    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # recorded in the run's manifest
    # The imports leave hundreds of thousands of long-lived objects that every full collection would walk again
    # (0.3 s of a `humanlike ood` run): they are set aside for the command's duration, and handed back after.
    gc.freeze()
    try:
        settle_output_paths(args)   # every command: a folder given for a file, no output over an input
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        # Files are written atomically, so an interrupted run leaves no half-written file behind; its
        # manifest says "complete": false.
        print(f"humanlike {args.command}: interrupted; files already written are complete, the run is not "
              "(its humanlike-manifest.json says \"complete\": false)", file=sys.stderr)
        return 130
    except MemoryError:
        sizes = [o for o in MEMORY_OPTIONS if o in command_options(parser, args)]
        advice = f"; lower {' or '.join(sizes)}" if sizes else ""
        print(f"humanlike {args.command}: error: out of memory{advice}", file=sys.stderr)
        return 2
    except (TrialTableError, ConnectionError, ValueError) as err:
        print(f"humanlike {args.command}: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        # Unreadable input, an --out or --figure that is not writable, is a file where a folder is needed, ...
        where = f" ({err.filename})" if getattr(err, "filename", None) else ""
        print(f"humanlike {args.command}: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2
    finally:
        gc.unfreeze()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
