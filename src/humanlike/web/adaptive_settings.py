"""The settings of the adaptive discriminating design (config key ``adaptive``; ``serve init --adaptive``).

Apart from :mod:`humanlike.web.adaptive`, which refits and looks, so that building the command line and reading a
study's config need neither scipy nor the design code (``humanlike --help`` stays fast).
"""

from __future__ import annotations

import argparse

from ..stats.sequential import SPENDING

#: The settings of an adaptive study (config key ``adaptive``) and their defaults.
DEFAULTS = {"batch": 10, "max_participants": 80, "alpha": 0.05, "spending": "obrien-fleming", "floor": 0.2}


def check_adaptive(settings: dict, design: str) -> dict:
    """The config key ``adaptive`` checked, defaults filled in.

    Parameters
    ----------
    settings : dict
        ``batch``, ``max_participants``, ``alpha``, ``spending``, ``floor`` (any may be left out).
    design : str
        The study's design (only ``discriminate`` adapts).

    Returns
    -------
    dict

    Raises
    ------
    humanlike.web.config.StudyConfigError
        Naming the key at fault.

    Examples
    --------
    >>> check_adaptive({"batch": 5}, "discriminate")["max_participants"]
    80
    >>> check_adaptive({"batch": 100}, "discriminate")
    Traceback (most recent call last):
        ...
    humanlike.web.config.StudyConfigError: key 'adaptive.batch': expected a whole number from 2 to max_participants (80), got 100
    """
    from .config import StudyConfigError

    if not isinstance(settings, dict):
        raise StudyConfigError(f"key 'adaptive': expected a table of {sorted(DEFAULTS)}, got {settings!r}")
    if design != "discriminate":
        raise StudyConfigError(f"key 'adaptive': the adaptive discriminating design's settings apply with design "
                               f"'discriminate' only, not {design!r} (design 'adaptive', MLDS judgements, refits "
                               "every 'refit_every' participants)")
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise StudyConfigError(f"key 'adaptive': unknown key(s) {unknown}; known: {sorted(DEFAULTS)}")
    out = {**DEFAULTS, **settings}
    n_max = out["max_participants"]
    if not isinstance(n_max, int) or isinstance(n_max, bool) or n_max < 2:
        raise StudyConfigError(f"key 'adaptive.max_participants': expected a whole number >= 2, got {n_max!r}")
    batch = out["batch"]
    if not isinstance(batch, int) or isinstance(batch, bool) or not 2 <= batch <= n_max:
        raise StudyConfigError(f"key 'adaptive.batch': expected a whole number from 2 to max_participants "
                               f"({n_max}), got {batch!r}")
    for name, low, high in (("alpha", 0.0, 1.0), ("floor", 0.0, float("inf"))):
        value = out[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value < high:
            raise StudyConfigError(f"key 'adaptive.{name}': expected a number in ({low:g}, {high:g}), got {value!r}")
        out[name] = float(value)
    if out["spending"] not in SPENDING:
        raise StudyConfigError(f"key 'adaptive.spending': expected one of {list(SPENDING)}, got {out['spending']!r}")
    return out


def planned_counts(settings: dict) -> list[int]:
    """Participants at each planned look: every ``batch``, and ``max_participants`` last.

    Parameters
    ----------
    settings : dict
        :func:`check_adaptive`'s.

    Returns
    -------
    list of int

    Examples
    --------
    >>> planned_counts({"batch": 10, "max_participants": 35})
    [10, 20, 30, 35]
    """
    return [*range(settings["batch"], settings["max_participants"], settings["batch"]), settings["max_participants"]]


def add_adaptive_options(init: argparse.ArgumentParser) -> None:
    """Add ``--adaptive``, ``--max-participants``, ``--alpha`` and ``--spending`` to ``serve init`` (``--batch``,
    the completed participants between looks, is ``serve init``'s own: design adaptive's refits share it).

    Parameters
    ----------
    init : argparse.ArgumentParser
        The ``serve init`` parser.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_adaptive_options(parser)
    >>> parser.parse_args(["--adaptive", "--max-participants", "40"]).max_participants
    40
    """
    from ..measures.options import float_in, int_at_least

    init.add_argument("--adaptive", action="store_true",
                      help="design discriminate: refit the design after every batch of participants and stop "
                           "recruiting when the group-sequential test resolves the comparison")
    init.add_argument("--max-participants", type=int_at_least(2), default=None, metavar="N",
                      help="with --adaptive: the planned maximum; recruiting stops there (default 80)")
    init.add_argument("--alpha", type=float_in(0, 1, open_low=True, open_high=True), default=None,
                      help="with --adaptive: the sequential test's two-sided level (default 0.05)")
    init.add_argument("--spending", choices=SPENDING, default=None,
                      help="with --adaptive: how the level is spent over the looks (default obrien-fleming)")


def adaptive_study(args, config):
    """The config with the ``adaptive`` key of the command line (``--adaptive`` and its settings).

    Parameters
    ----------
    args : argparse.Namespace
        The ``serve init`` command line (``floor`` is the design's).
    config : humanlike.web.config.StudyConfig
        The study being created.

    Returns
    -------
    humanlike.web.config.StudyConfig

    Raises
    ------
    ValueError
        For settings without ``--adaptive``, or ``--adaptive`` without design discriminate.

    Examples
    --------
    >>> from humanlike.web.config import StudyConfig
    >>> config = StudyConfig(title="t", task="classify", stimuli=".", design="discriminate",
    ...                      trials_per_participant=4, design_file="d.csv")
    >>> args = argparse.Namespace(adaptive=True, batch=5, max_participants=None, alpha=None, spending=None, floor=None)
    >>> adaptive_study(args, config).adaptive["batch"], config.adaptive["max_participants"]
    (5, 80)
    """
    given = {name: getattr(args, name, None) for name in ("batch", "max_participants", "alpha", "spending")}
    if not getattr(args, "adaptive", False):
        # --batch is serve init's own (design adaptive refits with it too): checked there
        named = [f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None and k != "batch"]
        if named:
            raise ValueError(f"{', '.join(named)} apply with --adaptive only")
        return config
    if config.design != "discriminate":
        raise ValueError("--adaptive applies with --design discriminate only")
    chosen = {k: v for k, v in given.items() if v is not None}
    if getattr(args, "floor", None) is not None:
        chosen["floor"] = args.floor
    config.adaptive = check_adaptive(chosen, config.design)
    return config
