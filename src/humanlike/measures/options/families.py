"""The command modules of the optional command families (a measure's ``cli``), loaded where they are present."""

from __future__ import annotations

import importlib


def optional_module(name: str):
    """A command module of this package, or None when it is absent (optional command families).

    Parameters
    ----------
    name : str
        Module path within :mod:`humanlike` (e.g. ``"measures.ood.cli"``).

    Returns
    -------
    module or None
        The module; None only when that module itself is missing (an import error inside it is raised).

    Examples
    --------
    >>> optional_module("measures.mlds.cli").__name__, optional_module("measures.no_such_family.cli")
    ('humanlike.measures.mlds.cli', None)
    """
    try:
        return importlib.import_module(f"humanlike.{name}")
    except ModuleNotFoundError as err:
        wanted = f"humanlike.{name}"
        if err.name != wanted and not wanted.startswith(f"{err.name}."):  # a missing package of that path
            raise
        return None
