"""What the consumer packages lend the core: parts the core uses but never imports.

``humanlike.web`` (a ``humanlike serve`` study as a data source) and ``humanlike.models`` (network observers)
sit above the core (docs/architecture.md): the core never imports them, not even inside a function. Where a
command needs one of their parts, the consumer provides it by name (the command line does, when it builds its
parser: :func:`humanlike.app.cli.build_parser`) and the core asks for it here; a part nobody provided is a
clear error saying which extra to install.
"""

from __future__ import annotations

from collections.abc import Callable

#: The parts the core may ask for, with the extra that provides each.
PARTS = {
    "study reader": "web",            # read_study(source) -> trial or judgement table of a `humanlike serve` study
    "network judgements": "models",   # network_judgements(spec, manifest, layers, **options) -> judgements
}

_provided: dict[str, Callable] = {}


def provide(part: str, function: Callable) -> None:
    """Lend the core one part (a consumer calls this; the last one provided wins).

    Parameters
    ----------
    part : str
        One of :data:`PARTS`.
    function : callable
        The part.

    Raises
    ------
    KeyError
        For a part the core never asks for.

    Examples
    --------
    >>> provide("study reader", lambda source: f"read {source}")
    >>> provided("study reader")("study/")
    'read study/'
    """
    if part not in PARTS:
        raise KeyError(f"the core asks for no part {part!r}; it asks for {', '.join(PARTS)}")
    _provided[part] = function


def provided(part: str) -> Callable:
    """The part a consumer lent, or a clear error naming the extra that provides it.

    Parameters
    ----------
    part : str
        One of :data:`PARTS`.

    Returns
    -------
    callable

    Raises
    ------
    ValueError
        When no consumer provided it (its extra is not installed, or the command line was not built).

    Examples
    --------
    >>> provide("study reader", lambda source: [source])
    >>> provided("study reader")("study/")
    ['study/']
    >>> PARTS["network judgements"]   # the extra named when no one provided it
    'models'
    """
    try:
        return _provided[part]
    except KeyError:
        extra = PARTS[part]
        raise ValueError(f'the {part} comes with the "{extra}" extra (pip install "humanlike[{extra}]") and the '
                         "humanlike command line") from None
