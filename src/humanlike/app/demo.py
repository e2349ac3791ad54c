"""``humanlike demo``: every registered measure on the built-in simulated benchmark, then one report page.

One loop over :func:`humanlike.measures.registry.command_families` (the measures and the cross-measure tools, in
their order): each one's ``demo`` part writes its files and leaves its result for the page; a new measure joins
the demo by registering one.
"""

from __future__ import annotations

import numbers
import types
from pathlib import Path

from ..measures.contract import DemoRun
from ..measures.options import (
    StageProgress,
    add_output_options, add_resampling_options, emit_json, interval_record, resampling_settings, run_outputs,
)


#: What the parsed command line holds besides the options a demo part reads.
NOT_DEMO_OPTIONS = ("handler", "argv", "command")


def register(sub, plan_sub) -> None:  # noqa: ARG001 - nothing to plan
    """Register ``humanlike demo`` on the ``humanlike`` parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``humanlike`` parser's subcommands.
    plan_sub : argparse._SubParsersAction
        The subcommands of ``humanlike plan`` (unused).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="humanlike")
    >>> sub = parser.add_subparsers(dest="command")
    >>> register(sub, None)
    >>> sorted(sub.choices)
    ['demo']
    """
    demo = sub.add_parser("demo", help="the main job on the built-in simulated benchmark (seconds)")
    add_resampling_options(demo)
    add_output_options(demo)
    demo.set_defaults(handler=run_demo)


def run_demo(args) -> int:
    """Handle ``humanlike demo`` for parsed arguments; returns the exit code.

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
    >>> build_parser().parse_args(['demo']).handler is run_demo
    True
    """
    from ..measures.registry import command_families
    from ..trials.simulate import simulate_benchmark

    outputs = run_outputs(args, {**resampling_settings(args).to_dict(), "interval": interval_record(args)})
    # What the measures' demo parts are given and share: the options, the run's files, their results (for the
    # page and for each other), their JSON documents (written after every part) and the text printed at the end.
    run = DemoRun(types.SimpleNamespace(**{k: v for k, v in vars(args).items() if k not in NOT_DEMO_OPTIONS}),
                  outputs=outputs)
    parts = [family for family in command_families() if family.demo is not None]
    progress = StageProgress(args, "demo", ["simulate", *[m.name for m in parts], "report"])
    try:
        progress.stage("simulate")
        trials = simulate_benchmark(seed=args.seed)
        out = Path(args.out)
        outputs.add_table(trials, "trials", args.format)
        for measure in parts:
            progress.stage(measure.name)
            measure.run_demo(trials, run)
        for name, doc in run.documents.items():
            outputs.json(doc, out / f"{name}.json")
        progress.stage("report")
        demo_report(trials, run)
        files = [*outputs.files, outputs.finish()]
    finally:
        progress.close()
    if args.json:
        emit_json(next(iter(run.documents.values()), {}))   # the first measure's document (the benchmark's)
        return 0
    fewer = {title: n for title, n in run.resamples.items()
             if isinstance(n, numbers.Integral) and n != args.resamples}
    capped = (" (" + "; ".join(f"{title}: {n}" for title, n in fewer.items()) + ")") if fewer else ""
    print(f"humanlike demo: simulated benchmark ({trials['observer'].nunique()} observers, "
          f"{trials['experiment'].nunique()} experiments, {len(trials)} trials), "
          f"{args.resamples} bootstrap resamples{capped}, intervals: {interval_record(args)}, seed {args.seed}\n")
    print("\n\n".join(run.summary))
    print(f"\nwrote {len(files)} files to {out}/")
    return 0


def demo_report(trials, run: DemoRun) -> Path:
    """The demo's results on one page (``report.html``), one section per measure that left a result.

    Parameters
    ----------
    trials : pandas.DataFrame
        The demo's trial table.
    run : humanlike.measures.contract.DemoRun
        The demo's options, files and the results the measures' parts left.

    Returns
    -------
    pathlib.Path
        The page written.

    Examples
    --------
    >>> import tempfile, types
    >>> from humanlike.files import RunOutputs
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> out = tempfile.mkdtemp()
    >>> options = types.SimpleNamespace(out=out, resamples=0, level=0.95, seed=0, interval="percentile",
    ...                                 observer_level="none", memory_budget=2**30, workers=None)
    >>> demo_report(simulate_benchmark(seed=0, n_humans=3, n_items=24), DemoRun(options, RunOutputs(out))).name
    'report.html'
    """
    from .report import render_report, resamples_by_section
    from .report_sections import build_sections

    options = run.options
    sections, headline = build_sections(run.results)
    run.resamples = resamples_by_section(sections)   # what each section used, for the printed summary
    settings = {**resampling_settings(options).to_dict(), "interval": interval_record(options),
                "data": "simulated benchmark (humanlike.simulate_benchmark)"}
    provenance = {"data": f"simulate_benchmark(seed={options.seed})", "trials": len(trials),
                  "observers": int(trials["observer"].nunique()), "experiments": int(trials["experiment"].nunique())}
    html = render_report(sections, title="humanlike demo: simulated benchmark", headline=headline,
                         provenance=provenance, settings=settings,
                         command=f"humanlike demo --seed {options.seed} --resamples {options.resamples}")
    return run.outputs.text(html, run.out / "report.html")
