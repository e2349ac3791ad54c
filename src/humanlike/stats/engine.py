"""The one resampling engine: a paired, stratified bootstrap that knows no metric.

An analysis hands the engine a :class:`~humanlike.data.design.Design` (strata of items, observer groups), a
*kernel* (what one stratum yields under item weights W (R x items) and observer weights U (R x members)) and an
*aggregation* (the kernel outputs of all strata -> the analysis' output columns). The engine

- draws multinomial item weights per stratum, from the stratum's own random stream, in fixed blocks of
  :data:`BLOCK` resamples, so resample r has the same weights whatever the chunk size, the selection of other
  strata or the order of the data;
- optionally resamples observers (``observer_level="bootstrap"``: multinomial weights per observer group) or
  adds their leave-one-out spread (``"jackknife"``);
- processes resamples in chunks sized from a memory budget, never looping in Python over single resamples;
- computes the exact leave-one-item-out jackknife for BCa intervals;
- returns a :class:`~humanlike.stats.results.Resampled`.

Kernels whose outputs are functions of weighted sums of per-item statistics subclass
:class:`SufficientStatisticKernel`: the estimate, every resample and every jackknife row then go through the
same ``reduce``. Parametric resampling (responses drawn from fitted probabilities) uses
:func:`bernoulli_responses` with the same block scheme, driven by :func:`parametric_replicates`.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Protocol

import numpy as np

from ..data.design import Design, Stratum
from .results import INTERVAL_METHODS, Resampled
from .rng import stream

BLOCK = 100
DEFAULT_RESAMPLES = 10_000
DEFAULT_MEMORY_BUDGET = 2 * 1024**3
OBSERVER_LEVELS = ("none", "bootstrap", "jackknife")


class ResourceError(ValueError):
    """A request would need more memory than the budget allows; the message gives the estimate."""


@dataclass(frozen=True)
class ResamplingSettings:
    """Everything that decides the numbers of a resampled analysis; recorded in every output.

    Parameters
    ----------
    n_resamples : int
        Bootstrap resamples (0: estimates only, intervals NaN). One default for every analysis.
    level : float
        Confidence level of the reported intervals.
    interval : {"percentile", "bca"}
        Interval method; ``"bca"`` also computes the item jackknife.
    observer_level : {"none", "bootstrap", "jackknife"}
        Second level for the observers of each observer group (e.g. the humans of an experiment).
    seed : int
        Root seed; every stratum draws from ``stream(seed, kind, *stratum_key, block)``.
    memory_budget : int
        Bytes the engine may use for one chunk of resamples and the kept replicates.
    progress : bool
        Show a progress bar (tqdm) over chunks.

    Examples
    --------
    >>> ResamplingSettings(n_resamples=2000, seed=1).to_dict()["n_resamples"]
    2000
    """

    n_resamples: int = DEFAULT_RESAMPLES
    level: float = 0.95
    interval: str = "percentile"
    observer_level: str = "none"
    seed: int = 0
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    progress: bool = False

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
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.memory_budget < 1024**2:
            raise ValueError(f"memory_budget must be at least 1 MiB, got {self.memory_budget} bytes")

    def to_dict(self) -> dict:
        """The settings as a plain dict (for JSON outputs)."""
        return {k: (int(v) if isinstance(v, np.integer) else v) for k, v in asdict(self).items()}


class Kernel(Protocol):
    """What one stratum yields under weights; the engine's only view of a metric.

    ``evaluate(stratum, item_weights, observer_weights)`` returns an array (R x k_stratum): item_weights is
    (R x items) float, observer_weights (R x group members) or None. ``width(stratum)`` is k_stratum and
    ``bytes_per_resample(stratum)`` the memory one resample needs while evaluated (weights and temporaries).
    """

    def evaluate(self, stratum: Stratum, item_weights: np.ndarray,
                 observer_weights: np.ndarray | None) -> np.ndarray:
        """Values of one stratum under item weights (R x items) and observer weights (R x members or None)."""

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum."""

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size)."""


class SufficientStatisticKernel:
    """A kernel whose outputs are a function of weighted sums of per-item statistics.

    Subclasses give ``statistics(stratum) -> (items x S)`` and ``reduce(stratum, sums (R x S),
    observer_weights) -> (R x k)``; a resample is then one matrix product ``W @ statistics``, and the item
    jackknife is exact and cheap (``total - row``). Statistics are cached per stratum key.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple, np.ndarray] = {}

    def statistics(self, stratum: Stratum) -> np.ndarray:  # pragma: no cover - abstract
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them."""
        raise NotImplementedError

    def reduce(self, stratum: Stratum, sums: np.ndarray, observer_weights: np.ndarray | None) -> np.ndarray:
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum."""
        return self.reduce(stratum, self.cached_statistics(stratum).sum(axis=0, keepdims=True), None).shape[1]

    def cached_statistics(self, stratum: Stratum) -> np.ndarray:
        """The statistics of a stratum, computed once per stratum key."""
        if stratum.key not in self._cache:
            self._cache[stratum.key] = np.asarray(self.statistics(stratum), dtype=np.float64)
        return self._cache[stratum.key]

    def evaluate(self, stratum, item_weights, observer_weights):
        """Values of one stratum under item weights (R x items) and observer weights (R x members or None): R x width."""
        sums = np.asarray(item_weights, dtype=np.float64) @ self.cached_statistics(stratum)
        return self.reduce(stratum, sums, observer_weights)

    def leave_one_out(self, stratum: Stratum) -> np.ndarray:
        """Exact leave-one-item-out outputs (items x k)."""
        stats = self.cached_statistics(stratum)
        return self.reduce(stratum, stats.sum(axis=0)[None, :] - stats, None)

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size)."""
        stats = self.cached_statistics(stratum)
        return 8 * (stratum.n_items + 3 * stats.shape[1])


Aggregate = Callable[[Mapping[tuple, np.ndarray]], np.ndarray]


@dataclass(frozen=True)
class Output:
    """The output columns of an aggregation: labels and the reason each estimate is undefined (if it is).

    ``replicate_dtype``: the precision in which the replicates are kept; ``np.float32`` halves their memory for
    a kernel whose resamples are float32 computations anyway (the estimate is always float64).
    """

    labels: list[tuple]
    label_names: tuple[str, ...]
    reasons: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    replicate_dtype: type = np.float64


# --------------------------------------------------------------------------------------------------
# Random draws: chunk-independent blocks per key
# --------------------------------------------------------------------------------------------------


def _blocks(start: int, stop: int) -> range:
    return range(start // BLOCK, (stop - 1) // BLOCK + 1) if stop > start else range(0)


def item_weights(seed: int, key: tuple, n_items: int, start: int, stop: int) -> np.ndarray:
    """Multinomial bootstrap weights of resamples ``start..stop-1`` of one stratum, (stop-start) x n_items.

    Each row counts how often each item is drawn (rows sum to ``n_items``). Resample r's row depends only on
    ``seed``, ``key`` and r.

    Examples
    --------
    >>> w = item_weights(0, ("edge", "0"), 5, 0, 250)
    >>> bool((w.sum(axis=1) == 5).all()), bool((item_weights(0, ("edge", "0"), 5, 120, 130) == w[120:130]).all())
    (True, True)
    """
    if n_items <= 0:
        raise ValueError(f"stratum {key}: cannot resample an empty set of items")
    parts = []
    for b in _blocks(start, stop):
        rng = stream(seed, "items", *key, b)
        idx = rng.integers(0, n_items, size=(BLOCK, n_items))
        idx += (np.arange(BLOCK) * n_items)[:, None]
        counts = np.bincount(idx.ravel(), minlength=BLOCK * n_items).reshape(BLOCK, n_items)
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(counts[lo:hi])
    return np.concatenate(parts).astype(np.float32) if parts else np.zeros((0, n_items), np.float32)


def observer_weights(seed: int, key: tuple, n_observers: int, start: int, stop: int) -> np.ndarray:
    """Multinomial weights of the observers of one group for resamples ``start..stop-1`` (float64)."""
    if n_observers <= 0:
        return np.zeros((stop - start, 0))
    return item_weights(seed, ("observers",) + tuple(key), n_observers, start, stop).astype(np.float64)


def bernoulli_responses(seed: int, key: tuple, probabilities: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Simulated 0/1 responses for resamples ``start..stop-1``: row r is Bernoulli(probabilities).

    Used by parametric bootstraps (e.g. MLDS). Row r depends only on ``seed``, ``key`` and r.

    Examples
    --------
    >>> p = np.array([0.0, 1.0, 0.5])
    >>> y = bernoulli_responses(0, ("fit",), p, 0, 1000)
    >>> y.shape, bool(y[:, 0].any()), bool(y[:, 1].all())
    ((1000, 3), False, True)
    """
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError("probabilities must be a 1-D array of values in [0, 1]")
    parts = []
    for b in _blocks(start, stop):
        u = stream(seed, "bernoulli", *key, b).random((BLOCK, p.size))
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(u[lo:hi] < p)
    return np.concatenate(parts) if parts else np.zeros((0, p.size), bool)


def standard_normals(seed: int, key: tuple, n: int, start: int, stop: int) -> np.ndarray:
    """Standard normal draws (stop-start) x n for resamples ``start..stop-1`` of one key."""
    parts = []
    for b in _blocks(start, stop):
        z = stream(seed, "normal", *key, b).standard_normal((BLOCK, n))
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(z[lo:hi])
    return np.concatenate(parts) if parts else np.zeros((0, n))


def random_subsets(seed: int, key: tuple, n: int, size: int, start: int, stop: int) -> np.ndarray:
    """Per resample ``start..stop-1``, a random subset of ``size`` of the indices ``0..n-1`` (rows, sorted).

    Drawn in blocks of :data:`BLOCK` resamples from ``stream(seed, *key, block)``, so row r depends only on
    ``seed``, ``key`` and r (e.g. DMC evaluates a random subset of the split halves in each resample, one
    subset per observer group shared by its strata).

    Examples
    --------
    >>> a = random_subsets(0, ("splits", "edge"), 10, 3, 0, 250)
    >>> a.shape, bool((random_subsets(0, ("splits", "edge"), 10, 3, 150, 160) == a[150:160]).all())
    ((250, 3), True)
    """
    if not 0 < size <= n:
        raise ValueError(f"a subset of {size} from {n} indices is not possible")
    parts = []
    for b in _blocks(start, stop):
        u = stream(seed, *key, b).random((BLOCK, n))
        chosen = np.sort(np.argpartition(u, size - 1, axis=1)[:, :size], axis=1) if size < n else \
            np.broadcast_to(np.arange(n), (BLOCK, n))
        lo, hi = max(start - b * BLOCK, 0), min(stop - b * BLOCK, BLOCK)
        parts.append(chosen[lo:hi])
    return np.concatenate(parts) if parts else np.zeros((0, size), dtype=np.int64)


def evaluate_chunk(kernel: Kernel, stratum: Stratum, item_weights_: np.ndarray, observer_weights_: np.ndarray | None,
                   seed: int, start: int, stop: int) -> np.ndarray:
    """A kernel's values for the bootstrap resamples ``start..stop-1`` of one stratum.

    A kernel that draws randomness of its own in each resample (beyond the weights) defines
    ``evaluate_resamples(stratum, item_weights, observer_weights, seed, start, stop)`` and draws it from
    per-key block streams (:func:`random_subsets`), so that resample r still depends only on the seed, the key
    and r; every other kernel is called through ``evaluate``. Point estimates and jackknife rows always go
    through ``evaluate`` (no randomness).
    """
    own = getattr(kernel, "evaluate_resamples", None)
    if own is None:
        return kernel.evaluate(stratum, item_weights_, observer_weights_)
    return own(stratum, item_weights_, observer_weights_, seed, start, stop)


def resample_chunks(n_resamples: int, bytes_per_resample: int, memory_budget: int = DEFAULT_MEMORY_BUDGET
                    ) -> list[tuple[int, int]]:
    """(start, stop) ranges covering ``n_resamples``, each using at most ``memory_budget`` bytes.

    Chunk boundaries fall on multiples of :data:`BLOCK` where the budget allows; numbers never depend on them.

    Examples
    --------
    >>> resample_chunks(250, bytes_per_resample=10**6, memory_budget=10**8)
    [(0, 100), (100, 200), (200, 250)]
    """
    if n_resamples <= 0:
        return []
    per = max(int(bytes_per_resample), 1)
    size = max(int(memory_budget) // per, 1)
    if size >= BLOCK:
        size -= size % BLOCK
    return [(lo, min(lo + size, n_resamples)) for lo in range(0, n_resamples, size)]


# --------------------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------------------


def bootstrap(design: Design, kernel: Kernel, aggregate: Aggregate, output: Output,
              settings: ResamplingSettings = ResamplingSettings()) -> Resampled:
    """Estimate, bootstrap replicates and (for BCa) the item jackknife of an analysis.

    Parameters
    ----------
    design : Design
        The strata (items resampled within each, jointly for all observers: pairs stay aligned).
    kernel : Kernel
        Per-stratum values under weights.
    aggregate : callable
        ``{stratum key: (R x k) kernel values} -> (R x K)`` output columns; must accept any R, including
        broadcast 1-row inputs mixed with R-row inputs.
    output : Output
        Labels of the K output columns, and optionally a function from the estimate to the reasons.
    settings : ResamplingSettings

    Returns
    -------
    Resampled
    """
    if len(design) == 0:
        raise ValueError("the design has no strata")
    with one_blas_thread():
        return _bootstrap(design, kernel, aggregate, output, settings)


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run matrix products on one BLAS thread (threadpoolctl), so that numbers never depend on the chunking.

    A multithreaded BLAS splits a matrix product among threads by its shape, and a row of the result can then
    be rounded differently (in the last bit) depending on how many rows the chunk holds; with one thread every
    row is computed the same way. On the small machines this package targets, one thread is also no slower
    (the work is already vectorised over resamples).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _bootstrap(design: Design, kernel: Kernel, aggregate: Aggregate, output: Output,
               settings: ResamplingSettings) -> Resampled:
    point = {s.key: kernel.evaluate(s, np.ones((1, s.n_items)), _ones_or_none(design, s, settings))
             for s in design}
    estimate = np.asarray(aggregate(point), dtype=float).reshape(-1)
    n_out = estimate.size
    if len(output.labels) != n_out:
        raise ValueError(f"aggregation gives {n_out} columns but {len(output.labels)} labels")
    reasons = output.reasons(estimate) if output.reasons is not None else None

    per_resample = 8 * n_out + sum(int(kernel.bytes_per_resample(s)) for s in design)
    kept = np.dtype(output.replicate_dtype).itemsize * n_out * settings.n_resamples
    if kept + per_resample > settings.memory_budget:
        raise ResourceError(
            f"{settings.n_resamples} resamples of {n_out} outputs need {_gib(kept)} to keep the replicates "
            f"(budget {_gib(settings.memory_budget)}); ask for fewer resamples or raise the memory budget")
    chunks = resample_chunks(settings.n_resamples, per_resample, settings.memory_budget - kept)
    replicates = np.empty((settings.n_resamples, n_out), dtype=output.replicate_dtype)
    bar = progress_bar(len(chunks), settings.progress, "bootstrap")
    for start, stop in chunks:
        values = {}
        for s in design:
            w = item_weights(settings.seed, s.key, s.n_items, start, stop)
            u = None
            if settings.observer_level == "bootstrap" and s.group in design.groups:
                members = len(design.groups[s.group])
                u = observer_weights(settings.seed, s.group, members, start, stop) if members else None
            elif s.group in design.groups:
                u = _ones_or_none(design, s, settings)
            values[s.key] = evaluate_chunk(kernel, s, w, u, settings.seed, start, stop)
        replicates[start:stop] = aggregate(values)
        bar.update(1)
    bar.close()

    if settings.observer_level == "jackknife" and settings.n_resamples > 0:
        replicates += observer_jackknife_noise(design, kernel, aggregate, point, estimate, settings)

    jackknife = None
    if settings.interval == "bca" and settings.n_resamples > 0:
        jackknife = item_jackknife(design, kernel, aggregate, point, settings)
    return Resampled(estimate, replicates, output.labels, output.label_names, reasons, jackknife,
                     settings.to_dict(), settings.level, settings.interval)


def item_jackknife(design: Design, kernel: Kernel, aggregate: Aggregate, point: Mapping[tuple, np.ndarray],
                   settings: ResamplingSettings = ResamplingSettings()) -> np.ndarray:
    """Leave-one-item-out outputs: one row per item of every stratum (the other strata at their estimate)."""
    rows = []
    for s in design:
        if isinstance(kernel, SufficientStatisticKernel):
            loo = kernel.leave_one_out(s)
        else:
            step = max(1, int(settings.memory_budget // max(8 * s.n_items * 4, 1)))
            loo = np.concatenate([
                kernel.evaluate(s, 1.0 - np.eye(s.n_items)[lo:lo + step], _ones_or_none(design, s, settings))
                for lo in range(0, s.n_items, step)])
        values = dict(point)
        values[s.key] = loo
        rows.append(aggregate(values))
    return np.concatenate(rows)


def observer_jackknife_noise(design: Design, kernel: Kernel, aggregate: Aggregate,
                             point: Mapping[tuple, np.ndarray], estimate: np.ndarray,
                             settings: ResamplingSettings) -> np.ndarray:
    """The observer level as a jackknife: per group, normal draws times the scaled leave-one-observer-out
    deviations sqrt((N-1)/N) (theta_(-o) - mean), added to every item resample (R x K).

    Undefined leave-one-out values contribute 0 (they carry no information about the spread).
    """
    noise = np.zeros((settings.n_resamples, estimate.size))
    for group, members in sorted(design.groups.items()):
        n = len(members)
        if n < 2:
            continue
        drop_one = 1.0 - np.eye(n)
        values = dict(point)
        for s in design:
            if s.group == group:
                values[s.key] = kernel.evaluate(s, np.ones((n, s.n_items)), drop_one)
        loo = np.asarray(aggregate(values), dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            centre = np.nanmean(loo, axis=0)
        deviation = np.nan_to_num(math.sqrt((n - 1) / n) * (loo - centre))
        # Only the outputs that depend on this group move (e.g. its experiment's rows and the overall ones); an
        # output that leaving an observer out does not change gets exactly no noise (the mean of equal values
        # can differ from them in the last bit, which would make numbers depend on the other groups).
        unchanged = np.all((loo == loo[:1]) | (np.isnan(loo) & np.isnan(loo[:1])), axis=0)
        deviation[:, unchanged] = 0.0
        columns = np.flatnonzero(np.any(deviation != 0, axis=0))
        if columns.size == 0:
            continue
        deviation = deviation[:, columns]
        for start, stop in resample_chunks(settings.n_resamples, 8 * (n + 2 * columns.size), settings.memory_budget):
            z = standard_normals(settings.seed, ("observer-jackknife",) + group, n, start, stop)
            # Summed observer by observer (not one matrix product, whose rounding depends on the number of
            # columns): an output's noise is then the same whichever other groups and outputs exist.
            added = np.zeros((stop - start, columns.size))
            for o in range(n):
                added += z[:, o:o + 1] * deviation[o]
            noise[start:stop, columns] += added
    return noise


def parametric_replicates(key: tuple, probabilities: np.ndarray, refit: Callable[[np.ndarray], np.ndarray],
                          settings: ResamplingSettings, bytes_per_resample: int | None = None) -> np.ndarray:
    """Replicates of a parametric bootstrap: responses drawn from ``probabilities``, refitted in batches.

    ``refit`` maps a (R x n) 0/1 response matrix to (R x K) statistics (a batched fit: no loop over R).
    Returns the (n_resamples x K) replicates; rows do not depend on the chunking.
    """
    p = np.asarray(probabilities, dtype=float)
    per = bytes_per_resample or 64 * p.size
    parts = []
    chunks = resample_chunks(settings.n_resamples, per, settings.memory_budget)
    bar = progress_bar(len(chunks), settings.progress, "parametric bootstrap")
    with one_blas_thread():
        for start, stop in chunks:
            y = bernoulli_responses(settings.seed, key, p, start, stop)
            parts.append(np.asarray(refit(y.astype(np.float64)), dtype=float))
            bar.update(1)
    bar.close()
    if not parts:
        return np.zeros((0, 0))
    return np.concatenate(parts)


def _ones_or_none(design: Design, stratum: Stratum, settings: ResamplingSettings) -> np.ndarray | None:
    members = design.groups.get(stratum.group)
    if members is None or settings.observer_level == "none":
        return None
    return np.ones((1, len(members)))


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 1024**3:.2f} GiB"


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, enabled: bool, description: str):
    """A tqdm progress bar over ``total`` steps when ``enabled`` (stderr), else a no-op object."""
    if not enabled or total <= 1:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="chunk", leave=False)
