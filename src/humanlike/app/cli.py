"""The ``humanlike`` command line.

Every registered measure and cross-measure tool adds its commands (:func:`humanlike.measures.registry.command_families`,
each entry's ``register_cli``); the app adds its own (``demo``, ``evaluate``, ``report``). This module only assembles
them.
"""

from __future__ import annotations

import argparse
import gc
import sys

from ..measures.options import add_on_conflict_option, optional_module
from ..measures.registry import command_families

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
        family.register_cli(sub, plan_sub)
    for name in APP_COMMANDS_LAST:
        module = optional_module(name)
        if module is not None:
            module.register(sub, plan_sub)
    for command in sub.choices.values():  # every command that reads DATA resolves observer-name clashes alike
        if any(action.dest == "data" for action in command._actions):
            add_on_conflict_option(command)
    from ..web.cli import add_serve_commands  # `serve` and `export`; its handlers import the web extra lazily

    add_serve_commands(sub, plan_sub)
    return parser


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
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        # Files are written atomically, so an interrupted run leaves no half-written file behind; its
        # manifest says "complete": false.
        print(f"humanlike {args.command}: interrupted; files already written are complete, the run is not "
              "(its humanlike-manifest.json says \"complete\": false)", file=sys.stderr)
        return 130
    except MemoryError:
        print(f"humanlike {args.command}: error: out of memory; lower --resamples or --memory-budget",
              file=sys.stderr)
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
