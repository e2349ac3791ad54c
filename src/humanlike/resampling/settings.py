"""The one settings object of a resampled analysis: it travels from the command line to the engine and is
recorded in every output, so that any run can be reproduced from its output alone.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass, replace

import numpy as np

from .parallel import available_cores
from .results import INTERVAL_METHODS, ITEM_JACKKNIFE_INTERVALS
from .rng import SeedLike, normalise_seed

DEFAULT_RESAMPLES = 10_000
DEFAULT_MEMORY_BUDGET = 2 * 1024**3
OBSERVER_LEVELS = ("none", "bootstrap", "jackknife")


@dataclass(frozen=True)
class ResamplingSettings:
    """Everything that decides the numbers of a resampled analysis; recorded in every output.

    Parameters
    ----------
    n_resamples : int
        Bootstrap resamples (0: estimates only, intervals NaN). One default for every analysis.
    level : float
        Confidence level of the reported intervals.
    interval : {"percentile", "bca", "jackknife", "jackknife-t"}
        Interval method; ``"bca"``, ``"jackknife"`` (the jackknife's bias-corrected normal interval) and
        ``"jackknife-t"`` (the same centre and SE with a t quantile and a skewness shift,
        :func:`~humanlike.resampling.jackknife.jackknife_t_interval`) also compute the item jackknife. The two
        jackknife intervals come from the items alone and need ``observer_level="none"``.
    observer_level : {"none", "bootstrap", "jackknife"}
        Second level for the observers of each observer group (e.g. the humans of an experiment).
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        Root seed; every stratum draws from ``stream(seed, kind, *stratum.stream_key, block)``. Whatever is passed
        becomes one non-negative int (:func:`~humanlike.resampling.rng.normalise_seed`), which is what
        :attr:`seed` holds and every output records: an int stays as it is, a SeedSequence without a spawn
        key becomes its entropy (same numbers as that int), a spawned SeedSequence or a Generator gives one
        63-bit int drawn from it, and ``None`` draws one from fresh OS entropy (recorded, so the run can be
        reproduced by passing it back).
    memory_budget : int
        Bytes the engine may use for one chunk of resamples and the kept replicates.
    progress : bool or None
        Show a progress bar (tqdm) over chunks: True always, False never, None (the default) where someone
        watches (a Jupyter kernel, or standard error on a terminal) unless :func:`set_progress` turned the
        bars off (:func:`progress_enabled`). It never changes a number.
    workers : int or None
        Threads that evaluate the strata of a chunk side by side (None: one per available core). Every
        stratum is computed alone on one BLAS thread, so the numbers are identical for any value; it is
        therefore not recorded by :meth:`to_dict`.

    Examples
    --------
    >>> ResamplingSettings(n_resamples=2000, seed=1).to_dict()["n_resamples"]
    2000
    """

    n_resamples: int = DEFAULT_RESAMPLES
    level: float = 0.95
    interval: str = "percentile"
    observer_level: str = "none"
    seed: SeedLike = 0
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    progress: bool | None = None
    workers: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.n_resamples, bool) or not isinstance(self.n_resamples, (int, np.integer)):
            raise ValueError(f"n_resamples must be an integer, not {self.n_resamples!r}")
        if self.n_resamples < 0:
            raise ValueError(f"n_resamples must be 0 (no intervals) or at least 2, got {self.n_resamples}")
        if self.n_resamples == 1:
            raise ValueError("n_resamples=1 cannot give an interval: use 0 (no intervals) or at least 2")
        if not 0.0 < float(self.level) < 1.0:
            raise ValueError(f"level must lie in (0, 1), got {self.level}")
        if self.interval not in INTERVAL_METHODS:
            raise ValueError(f"interval must be one of {INTERVAL_METHODS}, not {self.interval!r}")
        if self.observer_level not in OBSERVER_LEVELS:
            raise ValueError(f"observer_level must be one of {OBSERVER_LEVELS}, not {self.observer_level!r}")
        if self.interval in ITEM_JACKKNIFE_INTERVALS and self.observer_level != "none":
            raise ValueError(f"interval {self.interval!r} comes from the item jackknife alone and would ignore "
                             f"observer_level {self.observer_level!r}: with resampled observers use 'percentile' "
                             f"or 'bca'")
        object.__setattr__(self, "seed", normalise_seed(self.seed))
        if self.memory_budget < 1024**2:
            raise ValueError(f"memory_budget must be at least 1 MiB, got {self.memory_budget} bytes")
        if self.workers is not None and (isinstance(self.workers, bool) or not isinstance(self.workers, (int, np.integer))
                                         or self.workers < 1):
            raise ValueError(f"workers must be a positive integer or None, got {self.workers!r}")

    @property
    def threads(self) -> int:
        """The number of threads that evaluate strata: :attr:`workers`, or the cores this process may use."""
        return int(self.workers) if self.workers is not None else available_cores()

    def to_dict(self) -> dict:
        """The settings as a plain dict (for JSON outputs); ``workers`` is left out (it never changes a number).

        Returns
        -------
        dict
            Field name to value (numpy integers as int).
        """
        return {k: (int(v) if isinstance(v, np.integer) else v) for k, v in asdict(self).items() if k != "workers"}



#: The session's progress switch (:func:`set_progress`): None follows :func:`progress_enabled`'s rule.
_PROGRESS_SWITCH: dict[str, bool | None] = {"enabled": None}


def set_progress(enabled: bool | None) -> None:
    """Turn the progress bars of long API calls on (True) or off (False) for this session, or back to the
    default (None: shown in a notebook or on a terminal). Settings that name ``progress`` still decide.

    Parameters
    ----------
    enabled : bool or None
        The switch.

    Examples
    --------
    >>> set_progress(False)
    >>> progress_enabled(None)
    False
    >>> progress_enabled(True)
    True
    >>> set_progress(None)
    """
    if enabled is not None and not isinstance(enabled, bool):
        raise ValueError(f"set_progress takes True, False or None, not {enabled!r}")
    _PROGRESS_SWITCH["enabled"] = enabled


def progress_enabled(requested: bool | None) -> bool:
    """Whether to show a progress bar: ``requested`` where it is a bool (the settings, ``--quiet``), else the
    session's switch (:func:`set_progress`), else ``HUMANLIKE_PROGRESS=0`` in the environment turns them off,
    else shown where someone watches: a Jupyter kernel, or standard error on a terminal.

    Parameters
    ----------
    requested : bool or None
        :attr:`ResamplingSettings.progress`.

    Returns
    -------
    bool

    Examples
    --------
    >>> progress_enabled(False), progress_enabled(True)
    (False, True)
    """
    if requested is not None:
        return bool(requested)
    if _PROGRESS_SWITCH["enabled"] is not None:
        return _PROGRESS_SWITCH["enabled"]
    if os.environ.get("HUMANLIKE_PROGRESS", "").strip().lower() in ("0", "false", "no", "off"):
        return False
    stderr = sys.stderr
    return "ipykernel" in sys.modules or bool(stderr is not None and hasattr(stderr, "isatty") and stderr.isatty())


def with_own_interval(settings: ResamplingSettings, interval: str) -> ResamplingSettings:
    """The settings with a measure's own interval method, where the user chose none.

    A measure's own item-jackknife interval (EC's ``jackknife-t``) cannot carry resampled observers; with an
    observer level the settings keep their bootstrap interval.

    Parameters
    ----------
    settings : ResamplingSettings
        Settings whose interval the user did not choose.
    interval : str
        The measure's own interval method (:attr:`humanlike.measures.contract.Measure.interval`).

    Returns
    -------
    ResamplingSettings

    Examples
    --------
    >>> with_own_interval(ResamplingSettings(), "jackknife-t").interval
    'jackknife-t'
    >>> with_own_interval(ResamplingSettings(observer_level="bootstrap"), "jackknife-t").interval
    'percentile'
    """
    if interval in ITEM_JACKKNIFE_INTERVALS and settings.observer_level != "none":
        return settings
    return replace(settings, interval=interval)
