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


def resolve(path: str) -> Callable:
    """The object a dotted ``"package.module:name"`` path names (imported on first use).

    Parameters
    ----------
    path : str
        ``"module:attribute"``.

    Returns
    -------
    object
        The attribute.

    Examples
    --------
    >>> resolve("humanlike.resampling.results:Resampled").__name__
    'Resampled'
    """
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Measure:
    """One measure as the command line, the demo and the report page see it.

    Parts are dotted paths (``"module:function"``), imported when first called, so registering a measure costs
    nothing at start-up.

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
        ``register(subparsers, plan_subparsers)``: adds the measure's commands to the ``humanlike`` parser.
    report_run : str or None
        ``run(data, *, settings, exclusions) -> MeasureResult``: what the report page computes, or None when the
        measure has no analysis of its own on the report.
    report_section : str or None
        ``section(result) -> SectionResult``: the result as a section of the report page.
    report_input : {"trials", "judgements"}
        What :attr:`report_run` is given.
    demo : str or None
        ``demo(trials, args) -> list[Path]``: the measure's part of ``humanlike demo`` (it writes through
        ``args.run_outputs`` and may leave its result in ``args.demo_results[name]`` for the demo's report page).
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
        return resolve(self.analysis)(data, settings=settings, **options)

    def register_cli(self, subparsers, plan_subparsers) -> None:
        """Add the measure's commands to the ``humanlike`` parser (see :attr:`cli`).

        Parameters
        ----------
        subparsers, plan_subparsers : argparse._SubParsersAction
            The subcommands of ``humanlike`` and of ``humanlike plan``.
        """
        resolve(self.cli)(subparsers, plan_subparsers)
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
        return resolve(self.report_run)(data, settings=settings, exclusions=exclusions)

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
        return resolve(self.report_section)(result)

    def run_demo(self, trials, args) -> list[Path]:
        """The measure's part of ``humanlike demo`` (see :attr:`demo`).

        Parameters
        ----------
        trials : pandas.DataFrame
            The demo's simulated trial table.
        args : argparse.Namespace
            The demo's namespace (``run_outputs``, ``demo_results``, ``demo_json``, ``demo_summary``).

        Returns
        -------
        list of pathlib.Path
            The files written (none where the measure has no demo part).
        """
        return [] if self.demo is None else list(resolve(self.demo)(trials, args))

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
        return resolve(self.simulate)(seed)

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
        return [] if self.bad_inputs is None else list(resolve(self.bad_inputs)(example))


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
        ``register(subparsers, plan_subparsers)``: adds its commands to the ``humanlike`` parser.
    report_section : str or None
        ``section(results) -> SectionResult or None``: a section of the report page from the measures' results
        (``{measure name: result}``, as the report computed them), None where they hold nothing for it.
    depends_on : tuple of str
        The measures' modules it imports, and why it may (tests/test_architecture.py checks them).

    Examples
    --------
    >>> from humanlike.measures.registry import tools
    >>> [tool.name for tool in tools()]
    ['compare']
    """

    name: str
    title: str
    summary: str
    docs: str
    order: int
    cli: str
    report_section: str | None = None
    depends_on: tuple[str, ...] = ()

    def register_cli(self, subparsers, plan_subparsers) -> None:
        """Add the tool's commands to the ``humanlike`` parser (see :attr:`cli`).

        Parameters
        ----------
        subparsers, plan_subparsers : argparse._SubParsersAction
            The subcommands of ``humanlike`` and of ``humanlike plan``.
        """
        resolve(self.cli)(subparsers, plan_subparsers)

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
        return None if self.report_section is None else resolve(self.report_section)(results)


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
