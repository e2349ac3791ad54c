"""The registry of measures: every folder ``humanlike/measures/<name>/`` with a ``measure.py`` that defines
``MEASURE`` (a :class:`~humanlike.measures.contract.Measure`) is a measure.

The command line, the demo and the report page find measures here and nowhere else, so a new measure folder
is on all three without editing them (docs/adding-a-measure.md). Finding the measures imports only their
``measure.py`` files, which import nothing heavy.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil

from .contract import Measure

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
    ['ec', 'dmc', 'dvc', 'ood', 'mlds', 'psychscore']
    """
    package = importlib.import_module(PACKAGE)
    found: dict[str, Measure] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if not info.ispkg or importlib.util.find_spec(f"{PACKAGE}.{info.name}.measure") is None:
            continue
        entry = getattr(importlib.import_module(f"{PACKAGE}.{info.name}.measure"), "MEASURE", None)
        if not isinstance(entry, Measure):
            raise TypeError(f"{PACKAGE}.{info.name}.measure must define MEASURE = Measure(...)")
        if entry.name in found:
            raise TypeError(f"two folders register the measure {entry.name!r}")
        found[entry.name] = entry
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
