"""The registry of measures: every folder ``humanlike/measures/<name>/`` with a ``measure.py`` that defines
``MEASURE`` (a :class:`~humanlike.measures.contract.Measure`) is a measure; one with a ``tool.py`` that defines
``TOOL`` (a :class:`~humanlike.measures.contract.Tool`) is a cross-measure tool (paired comparisons), whose
commands and report section work on several measures' results.

The command line, the demo and the report page find measures here and nowhere else, so a new measure folder
is on all three without editing them (docs/adding-a-measure.md). Finding the measures imports only their
``measure.py`` files, which import nothing heavy.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from dataclasses import replace

from .contract import Measure, Tool

PACKAGE = __name__.rpartition(".")[0]   # humanlike.measures


@functools.cache
def measures() -> tuple[Measure, ...]:
    """Every registered measure, in their declared order.

    Returns
    -------
    tuple of Measure
        Sorted by :attr:`Measure.order` (then name).

    Raises
    ------
    TypeError
        When a folder's ``measure.py`` has no ``MEASURE`` of type Measure, or two folders register one name.

    Examples
    --------
    >>> [m.name for m in measures()]
    ['ec', 'dmc', 'dvc', 'ood', 'mlds', 'psychscore', 'shapebias', 'psychometrics', 'psychfit']
    """
    return _entries("measure", "MEASURE", Measure)


@functools.cache
def tools() -> tuple[Tool, ...]:
    """Every registered cross-measure tool (a folder with a ``tool.py`` defining ``TOOL``), in their declared order.

    Returns
    -------
    tuple of Tool
        Sorted by :attr:`Tool.order` (then name).

    Examples
    --------
    >>> [t.name for t in tools()]
    ['benchmark', 'compare']
    """
    return _entries("tool", "TOOL", Tool)


def command_families() -> tuple[Measure | Tool, ...]:
    """Everything that adds commands to ``humanlike``: the measures and the cross-measure tools, in their order.

    Returns
    -------
    tuple of Measure or Tool
        Each with ``name``, ``order`` and ``register_cli(subparsers, plan_subparsers)``.

    Examples
    --------
    >>> [f.name for f in command_families()][-3:]
    ['psychometrics', 'psychfit', 'compare']
    """
    return tuple(sorted((*measures(), *tools()), key=lambda f: (f.order, f.name)))


def _entries(module: str, attribute: str, kind: type) -> tuple:
    package = importlib.import_module(PACKAGE)
    found: dict[str, object] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if not info.ispkg or importlib.util.find_spec(f"{PACKAGE}.{info.name}.{module}") is None:
            continue
        entry = getattr(importlib.import_module(f"{PACKAGE}.{info.name}.{module}"), attribute, None)
        if not isinstance(entry, kind):
            raise TypeError(f"{PACKAGE}.{info.name}.{module} must define {attribute} = {kind.__name__}(...)")
        if entry.name in found:
            raise TypeError(f"two folders register the {module} {entry.name!r}: {found[entry.name].package} and "
                            f"{PACKAGE}.{info.name}")
        found[entry.name] = replace(entry, package=f"{PACKAGE}.{info.name}")
    return tuple(sorted(found.values(), key=lambda m: (m.order, m.name)))


def get_measure(name: str) -> Measure:
    """The registered measure called ``name``.

    Parameters
    ----------
    name : str
        A measure's short name (``"ec"``).

    Returns
    -------
    Measure

    Raises
    ------
    KeyError
        For a name no folder registers (the message lists those that are).

    Examples
    --------
    >>> get_measure("dmc").title
    'Decision-margin consistency'
    """
    for measure in measures():
        if measure.name == name:
            return measure
    raise KeyError(f"no measure {name!r}; registered: {', '.join(m.name for m in measures())}")


def name_of_folder(module: str) -> str:
    """The registered name of the measure (or tool) whose folder holds ``module``, "" where none does.

    A result class takes its measure's name from here (:attr:`humanlike.measures.measure_result.MeasureResult.measure`),
    so a folder copied under a new name names its results by its own entry.

    Parameters
    ----------
    module : str
        A module's dotted name (``"humanlike.measures.ec.result"``).

    Returns
    -------
    str

    Examples
    --------
    >>> name_of_folder("humanlike.measures.dmc.result"), name_of_folder("humanlike.resampling.engine")
    ('dmc', '')
    """
    for entry in (*measures(), *tools()):
        if module == entry.package or module.startswith(entry.package + "."):
            return entry.name
    return ""
