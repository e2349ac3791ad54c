"""The command modules of the optional command families (a measure's ``cli``), loaded where they are present, and
the one message for a missing optional extra (:func:`require_extra`)."""

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


# The modules each optional extra brings, in the order a message names them.
EXTRA_MODULES = {"models": ("torch", "torchvision")}


def require_extra(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Refuse, in one line and before any work, what needs an optional extra that is not installed.

    Parameters
    ----------
    extra : str
        The extra's name (``"models"``).
    what : str
        What needs it, as the message's subject (``"running models"``, ``"psychscore --network"``).
    modules : tuple of str, optional
        The modules to look for (default: the extra's, :data:`EXTRA_MODULES`).

    Raises
    ------
    ValueError
        ``WHAT needs MODULE and MODULE: install humanlike[EXTRA] (pip install 'humanlike[EXTRA]')``.

    Examples
    --------
    >>> require_extra("models", "this", modules=("json",))   # present: nothing happens
    >>> try:
    ...     require_extra("models", "psychscore --network", modules=("no_such_module_here",))
    ... except ValueError as err:
    ...     print(err)
    psychscore --network needs no_such_module_here: install humanlike[models] (pip install 'humanlike[models]')
    """
    needed = tuple(modules or EXTRA_MODULES[extra])
    for name in needed:
        try:
            importlib.import_module(name)
        except ImportError:
            # name the extra's every module, not only the first that failed: whether torchvision fails on its
            # own depends on whether it was imported before torch went missing
            raise ValueError(f"{what} needs {' and '.join(needed)}: install humanlike[{extra}] "
                             f"(pip install 'humanlike[{extra}]')") from None
