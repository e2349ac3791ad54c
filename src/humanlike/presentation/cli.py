"""The ``humanlike`` command line.

Each command family lives in its own module with a ``register(subparsers)`` function; this module only
assembles them and holds the options every command shares.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

from .options import optional_module

# Command families, each a module with register(subparsers, plan_subparsers); absent ones are skipped.
COMMAND_MODULES = ("cli_ec", "cli_dmc", "cli_ood", "cli_dvc", "cli_mlds", "cli_psychscore", "cli_models", "cli_report")


def build_parser() -> argparse.ArgumentParser:
    """The ``humanlike`` argument parser with every command family registered.

    Returns
    -------
    argparse.ArgumentParser
        Parsing a command line gives a namespace whose ``handler`` runs the command; families whose module
        is absent are left out.

    Examples
    --------
    >>> args = build_parser().parse_args(["mlds", "kk1.csv", "--bootstrap", "200"])
    >>> args.command, args.bootstrap, args.handler.__name__
    ('mlds', 200, 'run_mlds')
    """
    parser = argparse.ArgumentParser(
        prog="humanlike",
        description="How alike are humans and machines in their decisions, trial by trial, with honest uncertainty.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    plan = sub.add_parser("plan", help="experiment planning: how many trials / observers are enough")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True, metavar="METRIC")
    for name in COMMAND_MODULES:
        module = optional_module(name)
        if module is not None:
            module.register(sub, plan_sub)
    from ..web.cli import add_serve_commands  # `serve` and `export`; its handlers import the web extra lazily

    add_serve_commands(sub)
    return parser


#: Linux prctl option that turns transparent huge pages off for the calling process (and its children).
PR_SET_THP_DISABLE = 41


def _without_huge_pages() -> None:
    # The bootstraps write gigabytes of fresh arrays once each (kept replicates, per-chunk sums). numpy asks the
    # kernel for transparent huge pages on large arrays; on virtual machines, first touching a huge page is
    # slow (the host backs it in small pages): on `humanlike ood` it cost 1.9 s of system time, 4 KiB pages
    # cost user time nothing measurable (docs/performance.md). NUMPY_MADVISE_HUGEPAGE set by the user wins.
    if not sys.platform.startswith("linux") or "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - no prctl: the kernel's default stays
        pass


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
    from ..data.schema import TrialTableError

    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # recorded in the run's manifest
    _without_huge_pages()
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
