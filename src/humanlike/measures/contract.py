"""What a measure is: the :class:`Measure` entry every measure folder registers (and :class:`Tool`, a
cross-measure command family's), the small simulated :class:`Example` its common test runs on, and
:class:`MeasureInputError`, the error of bad input to a measure.

A measure folder (``humanlike/measures/<name>/``) holds the measure's metric, kernel, analysis, result, command
line, figures and report section, and registers one :class:`Measure` in its ``measure.py``
(:mod:`humanlike.measures.registry` finds it). The command line, the demo and the report page reach a measure
only through that entry (docs/architecture.md, docs/adding-a-measure.md).

An entry names its parts by dotted path (``"humanlike.measures.ec.cli:register"``) and imports them on first use
(:func:`resolve`), so building the ``humanlike`` parser imports no analysis, no scipy and no matplotlib.

Every measure's result derives from :class:`~humanlike.measures.measure_result.MeasureResult`, the one result
shape (:mod:`humanlike.measures.measure_result`); a result saved to one file is
:mod:`humanlike.measures.saved_results`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .measure_result import MeasureResult


class MeasureInputError(ValueError):
    """Bad input to a measure: a missing column, an unknown observer, experiment or condition, ... The message
    names what is wrong. A ``ValueError``, so the command line turns it into ``humanlike <cmd>: error: ...``.

    Examples
    --------
    >>> issubclass(MeasureInputError, ValueError)
    True
    """


@dataclass(frozen=True)
class Example:
    """Small simulated data a measure's analysis runs on in about a second, with the options that keep it small.

    Attributes
    ----------
    data : object
        The analysis' first argument (a trial table, a judgement table).
    options : dict
        Keyword options for :meth:`Measure.run`.

    Examples
    --------
    >>> Example([1, 2], {"experiments": ["x"]}).options
    {'experiments': ['x']}
    """

    data: object
    options: dict = field(default_factory=dict)


def resolve(path: str, package: str = "") -> Callable:
    """The object a dotted ``"package.module:name"`` path names (imported on first use).

    Parameters
    ----------
    path : str
        ``"module:attribute"``; a module starting with a dot (``".analysis:run"``) is relative to ``package``.
    package : str
        The package a relative path is read against (an entry's folder, :attr:`Measure.package`).

    Returns
    -------
    object
        The attribute.

    Examples
    --------
    >>> resolve("humanlike.resampling.results:Resampled").__name__
    'Resampled'
    >>> resolve(".results:Resampled", "humanlike.resampling").__name__
    'Resampled'
    """
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module, package or None), name)


@dataclass
class DemoRun:
    """What ``humanlike demo`` gives each measure's demo part, and what the parts share.

    One object, made by the demo and handed to every part in turn (``demo(trials, run) -> list[Path]``, the
    measure's ``demo.py``), in place of fields set on the command's namespace.

    Attributes
    ----------
    options : types.SimpleNamespace
        The demo's resampling and output options as the command line gave them (``resamples``, ``level``,
        ``seed``, ``interval``, ``observer_level``, ``memory_budget``, ``workers``, ``quiet``, ``out``,
        ``format``): read them through :func:`humanlike.measures.options.resampling_settings` and friends.
    outputs : humanlike.files.RunOutputs
        The run's files: every part writes through it (the manifest lists them).
    results : dict
        ``{name: result}`` the parts leave for the report page and for each other (the benchmark's details
        under ``"error_consistency"``).
    documents : dict
        ``{file stem: JSON document}`` written once every part has run.
    summary : list of str
        The text the demo prints at the end, one paragraph per part.
    resamples : dict
        ``{report section title: resamples}`` as each section of the demo's report used them (some parts cap
        them), for the printed summary.

    Examples
    --------
    >>> import types
    >>> run = DemoRun(types.SimpleNamespace(out="demo", format="csv"), outputs=None)
    >>> run.out, run.format, run.results
    (PosixPath('demo'), 'csv', {})
    """

    options: object
    outputs: object
    results: dict = field(default_factory=dict)
    documents: dict = field(default_factory=dict)
    summary: list = field(default_factory=list)
    resamples: dict = field(default_factory=dict)

    @property
    def out(self) -> Path:
        """The demo's output folder."""
        return Path(self.options.out)

    @property
    def format(self) -> str:
        """The table format (``csv``, ``parquet``, ...)."""
        return self.options.format


@dataclass(frozen=True)
class Measure:
    """One measure as the command line, the demo and the report page see it.

    Parts are dotted paths (``"module:function"``), imported when first called, so registering a measure costs
    nothing at start-up. A path starting with a dot (``".analysis:error_consistency"``) names a module of the
    measure's own folder, so a folder copied under a new name (its entry renamed) is a measure of its own.

    Attributes
    ----------
    name : str
        Short name, also the report's ``--analyses`` name and the key of its results (``"ec"``).
    title : str
        Human name (``"Error consistency"``).
    summary : str
        One line: what it measures.
    docs : str
        Its page in the documentation (``"docs/api/ec.md"``).
    order : int
        Place in the demo, the report page and ``humanlike --help`` (smaller first).

    analysis : str
        ``run(data, *, settings, **options) -> MeasureResult``: the measure's main analysis.
    cli : str
        ``register(subparsers, plan_subparsers, name)``: adds the measure's commands to the ``humanlike`` parser,
        under the entry's ``name`` (``humanlike <name>``, ``humanlike plan <name>``): the command line never
        spells a measure's name a second time.
    report_run : str or None
        ``run(data, *, settings, exclusions) -> MeasureResult``: what the report page computes, or None when the
        measure has no analysis of its own on the report.
    report_section : str or None
        ``section(result) -> SectionResult``: the result as a section of the report page.
    report_input : {"trials", "judgements"}
        What :attr:`report_run` is given.
    demo : str or None
        ``demo(trials, run) -> list[Path]``: the measure's part of ``humanlike demo``, in its folder's ``demo.py``
        (it writes through ``run.outputs`` and may leave its result in ``run.results[name]`` for the demo's report
        page; ``run`` is a :class:`DemoRun`).
    simulate : str or None
        ``simulate(seed) -> Example``: small data (and options) on which :attr:`analysis` runs in about a second
        (the common test, tests/measures/test_common.py).
    bad_inputs : str or None
        ``bad_inputs(example) -> list[(what, Example)]``: broken copies of the simulated example, each of which the
        analysis must refuse with a ValueError whose message names ``what`` (the common test).
    depends_on : tuple of str
        Other measures' modules this measure imports, and why it may (tests/test_architecture.py checks them).
    interval : {"percentile", "bca", "jackknife", "jackknife-t"}
        The measure's own interval method, used wherever the user chooses none (``--interval`` not given, the
        report, the demo): ``"jackknife-t"`` for error consistency, whose aggregates the percentile interval
        under-covers (docs/measures/error-consistency.md), the percentile interval for the others.
    citation : str
        The papers to cite when reporting the measure (``humanlike COMMAND --help``, the report page, the docs;
        the repository's CITATION.cff cites humanlike itself and these papers).
    engine_resampling : bool
        The analysis resamples through the engine's chunks, strata and worker threads
        (:func:`humanlike.resampling.engine.bootstrap`), so its numbers must not depend on the chunk size or the
        number of workers (the common test checks it, and checks that a measure saying False really does not).
        False for a measure that resamples on its own (MLDS by simulation, the Psychophysical-Score by blocks).
    api_intro : str
        The opening line of the measure's API page (docs/api/measures-<name>.md): what its folder holds.
    package : str
        The measure's folder as a package (``"humanlike.measures.ec"``), set by the registry; relative parts are
        read against it.

    Examples
    --------
    >>> from humanlike.measures.registry import get_measure
    >>> get_measure("ec").title
    'Error consistency'
    """

    name: str
    title: str
    summary: str
    docs: str
    order: int
    analysis: str
    cli: str
    report_run: str | None = None
    report_section: str | None = None
    report_input: str = "trials"
    demo: str | None = None
    simulate: str | None = None
    bad_inputs: str | None = None
    depends_on: tuple[str, ...] = ()
    interval: str = "percentile"
    citation: str = ""
    engine_resampling: bool = True
    api_intro: str = ""
    package: str = ""

    def part(self, path: str) -> Callable:
        """The object one of the entry's dotted paths names (a relative one read against :attr:`package`).

        Parameters
        ----------
        path : str
            One of the entry's parts (``".analysis:error_consistency"``).

        Returns
        -------
        object
        """
        return resolve(path, self.package)

    def run(self, data, *, settings=None, **options) -> MeasureResult:
        """Run :attr:`analysis` (``settings`` keyword-only, measure options as keywords).

        Parameters
        ----------
        data : object
            The analysis' input (a trial table, a judgement table).
        settings : ResamplingSettings, optional
            The one settings object (default: the analysis' default).
        **options
            The measure's own options.

        Returns
        -------
        MeasureResult
        """
        return self.part(self.analysis)(data, settings=settings, **options)

    def register_cli(self, subparsers, plan_subparsers) -> None:
        """Add the measure's commands to the ``humanlike`` parser under its name (see :attr:`cli`).

        Parameters
        ----------
        subparsers, plan_subparsers : argparse._SubParsersAction
            The subcommands of ``humanlike`` and of ``humanlike plan``.
        """
        self.part(self.cli)(subparsers, plan_subparsers, self.name)
        command = subparsers.choices.get(self.name)
        if command is not None and self.citation:
            command.epilog = f"Cite: {self.citation}."

    def run_for_report(self, data, *, settings, exclusions=None):
        """What the report page computes for this measure (see :attr:`report_run`).

        Parameters
        ----------
        data : object
            The input of kind :attr:`report_input`.
        settings : ResamplingSettings
            The report's one settings object, passed on unchanged.
        exclusions : dict or None
            Conditions to drop per experiment.

        Returns
        -------
        MeasureResult
        """
        if self.report_run is None:
            raise ValueError(f"{self.name} has no analysis of its own on the report")
        return self.part(self.report_run)(data, settings=settings, exclusions=exclusions)

    def section(self, result):
        """The result as a section of the report page (see :attr:`report_section`).

        Parameters
        ----------
        result : MeasureResult
            What :meth:`run_for_report` (or the demo part) gave.

        Returns
        -------
        SectionResult
        """
        if self.report_section is None:
            raise ValueError(f"{self.name} has no report section")
        return self.part(self.report_section)(result)

    def run_demo(self, trials, run: DemoRun) -> list[Path]:
        """The measure's part of ``humanlike demo`` (see :attr:`demo`).

        Parameters
        ----------
        trials : pandas.DataFrame
            The demo's simulated trial table.
        run : DemoRun
            The demo's options, files and shared results.

        Returns
        -------
        list of pathlib.Path
            The files written (none where the measure has no demo part).
        """
        return [] if self.demo is None else list(self.part(self.demo)(trials, run))

    def simulated(self, seed: int = 0) -> Example:
        """Small simulated data for the measure's analysis (see :attr:`simulate`).

        Parameters
        ----------
        seed : int
            Seed of the simulation.

        Returns
        -------
        Example
        """
        if self.simulate is None:
            raise ValueError(f"{self.name} declares no simulated data")
        return self.part(self.simulate)(seed)

    def broken_inputs(self, example: Example) -> list[tuple[str, Example]]:
        """Broken copies of ``example`` with the name the error must mention (see :attr:`bad_inputs`).

        Parameters
        ----------
        example : Example
            From :meth:`simulated`.

        Returns
        -------
        list of (str, Example)
        """
        return [] if self.bad_inputs is None else list(self.part(self.bad_inputs)(example))


@dataclass(frozen=True)
class Tool:
    """A cross-measure command family: commands (and a report section) that work on several measures' results
    and are not a measure themselves (no analysis of their own, no result shape, no common test).

    Paired model comparisons (``humanlike compare``, ``humanlike plan compare``) are one: they take the result
    of EC, DMC, DVC or OOD and compare its models. A folder ``humanlike/measures/<name>/`` registers one as
    ``TOOL`` in its ``tool.py``; :func:`humanlike.measures.registry.command_families` lists it beside the measures,
    so the command line reaches it through the registry as it reaches a measure (docs/architecture.md).

    Attributes
    ----------
    name : str
        Short name (``"compare"``).
    title : str
        Human name.
    summary : str
        One line: what it does.
    docs : str
        Its page in the documentation.
    order : int
        Place in ``humanlike --help`` among the measures (smaller first); its report section comes after every
        measure's.
    cli : str
        ``register(subparsers, plan_subparsers, name)``: adds its commands to the ``humanlike`` parser, under the
        entry's ``name``.
    report_section : str or None
        ``section(results) -> SectionResult or None``: a section of the report page from the measures' results
        (``{measure name: result}``, as the report computed them), None where they hold nothing for it.
    demo : str or None
        ``demo(trials, run) -> list[Path]``: its part of ``humanlike demo`` (as a measure's, see
        :attr:`Measure.demo`), in the order of :func:`humanlike.measures.registry.command_families`.
    depends_on : tuple of str
        The measures' modules it imports, and why it may (tests/test_architecture.py checks them).
    api_intro : str
        The opening line of its API page.
    package : str
        Its folder as a package, set by the registry; relative parts are read against it.

    Examples
    --------
    >>> from humanlike.measures.registry import tools
    >>> [tool.name for tool in tools()]
    ['benchmark', 'compare']
    """

    name: str
    title: str
    summary: str
    docs: str
    order: int
    cli: str
    report_section: str | None = None
    demo: str | None = None
    depends_on: tuple[str, ...] = ()
    api_intro: str = ""
    package: str = ""

    def run_demo(self, trials, run: DemoRun) -> list[Path]:
        """The tool's part of ``humanlike demo`` (see :attr:`demo`).

        Parameters
        ----------
        trials : pandas.DataFrame
            The demo's simulated trial table.
        run : DemoRun
            The demo's options, files and shared results.

        Returns
        -------
        list of pathlib.Path
            The files written (none where the tool has no demo part).
        """
        return [] if self.demo is None else list(resolve(self.demo, self.package)(trials, run))

    def register_cli(self, subparsers, plan_subparsers) -> None:
        """Add the tool's commands to the ``humanlike`` parser under its name (see :attr:`cli`).

        Parameters
        ----------
        subparsers, plan_subparsers : argparse._SubParsersAction
            The subcommands of ``humanlike`` and of ``humanlike plan``.
        """
        resolve(self.cli, self.package)(subparsers, plan_subparsers, self.name)

    def section(self, results: dict):
        """The tool's section of the report page from the measures' results (see :attr:`report_section`).

        Parameters
        ----------
        results : dict
            ``{measure name: result}``; a missing entry, None or a string (why a measure was not computed) is
            no result.

        Returns
        -------
        SectionResult or None
            None where the tool has no section or the results hold nothing for it.
        """
        return None if self.report_section is None else resolve(self.report_section, self.package)(results)


def trial_table_bad_inputs(example: Example) -> list[tuple[str, Example]]:
    """Broken copies of a trial-table example: a missing column and an unknown experiment.

    Shared by the measures that take a trial table (their analyses take ``experiments=``).

    Parameters
    ----------
    example : Example
        A trial table and the analysis' options.

    Returns
    -------
    list of (str, Example)
        ``("correct", the table without its correct column)`` and ``("no-such-experiment", ...)``.

    Examples
    --------
    >>> import pandas as pd
    >>> example = Example(pd.DataFrame({"correct": [True]}), {"experiments": ["a"]})
    >>> [what for what, _ in trial_table_bad_inputs(example)]
    ['correct', 'no-such-experiment']
    """
    trials = example.data
    return [("correct", Example(trials.drop(columns=["correct"]), example.options)),
            ("no-such-experiment", Example(trials, {**example.options, "experiments": ["no-such-experiment"]}))]
