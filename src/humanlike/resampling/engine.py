"""The one resampling engine: a paired, stratified bootstrap that knows no metric.

An analysis hands the engine a :class:`~humanlike.trials.design.Design` (strata of items, observer groups), a
*kernel* (what one stratum yields under item weights W (R x items) and observer weights U (R x members)) and an
*aggregation* (the kernel outputs of all strata -> the analysis' output columns). The engine

- draws multinomial item weights per stratum, from the stratum's own random stream, in fixed blocks of
  :data:`BLOCK` resamples, so resample r has the same weights whatever the chunk size, the selection of other
  strata or the order of the data;
- optionally resamples observers (``observer_level="bootstrap"``: multinomial weights per observer group) or
  adds their leave-one-out spread (``"jackknife"``);
- processes resamples in chunks sized from a memory budget, never looping in Python over single resamples;
- computes the exact leave-one-item-out jackknife for BCa and the jackknife intervals
  (:mod:`humanlike.resampling.item_jackknife`; its moments and intervals in :mod:`humanlike.resampling.jackknife`);
- returns a :class:`~humanlike.resampling.results.Resampled`.

Kernels and aggregations are described in :mod:`humanlike.resampling.kernels`, the random draws in
:mod:`humanlike.resampling.draws` and the settings in :mod:`humanlike.resampling.settings`. Parametric resampling
(responses drawn from fitted probabilities) uses :func:`~humanlike.resampling.draws.bernoulli_responses` with the
same block scheme and :func:`resample_chunks` (the MLDS diagnostics, :mod:`humanlike.measures.mlds.diagnostics`).
"""

from __future__ import annotations

import contextlib
import inspect
import math
import warnings
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..trials.design import Design, Stratum
from .draws import BLOCK, item_weights, observer_weights, standard_normals
from .item_jackknife import item_jackknife_moments
from .kernels import Aggregate, Kernel, Output, SufficientStatisticKernel, fixed_observer_weights
from .results import ITEM_JACKKNIFE_INTERVALS, Resampled
from .settings import DEFAULT_MEMORY_BUDGET, ResamplingSettings, progress_enabled

#: Share of undefined replicates above which :func:`warn_undefined` flags a defined estimate.
UNDEFINED_WARN_SHARE = 0.1
#: Effective number of items below which :func:`warn_few_items` flags a jackknife interval: one or two items
#: make up its variance (benchmarks/ec_aggregate_coverage.py --part model-model; docs/ec_coverage.md).
FEW_ITEMS = 3.0


class ResourceError(ValueError):
    """A request would need more memory than the budget allows; the message gives the estimate.

    Examples
    --------
    >>> class MeanKernel(SufficientStatisticKernel):
    ...     def statistics(self, stratum):          # per item: value and 1, so sums give total and count
    ...         return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])
    ...     def reduce(self, stratum, sums, observer_weights):
    ...         return sums[:, :1] / sums[:, 1:]
    >>> stratum = Stratum(("a",), np.arange(4).astype(str), ("obs",), {"value": np.array([1.0, 2.0, 3.0, 6.0])})
    >>> design, output = Design((stratum,)), Output([("a",)], ("stratum",))
    >>> settings = ResamplingSettings(n_resamples=10**9, memory_budget=2**20)
    >>> bootstrap(design, MeanKernel(), lambda values: values[("a",)], output, settings)
    Traceback (most recent call last):
    ...
    humanlike.resampling.engine.ResourceError: 1000000000 resamples of 1 outputs need 7.45 GiB to keep the replicates (budget 0.00 GiB); ask for fewer resamples or raise the memory budget
    """



def _takes_out(aggregate: Aggregate) -> bool:
    try:
        return "out" in inspect.signature(aggregate).parameters
    except (TypeError, ValueError):   # a callable without a signature
        return False



def evaluate_chunk(kernel: Kernel, stratum: Stratum, item_weights_: np.ndarray, observer_weights_: np.ndarray | None,
                   seed: int, start: int, stop: int) -> np.ndarray:
    """A kernel's values for the bootstrap resamples ``start..stop-1`` of one stratum.

    A kernel that draws randomness of its own in each resample (beyond the weights) defines
    ``evaluate_resamples(stratum, item_weights, observer_weights, seed, start, stop)`` and draws it from
    per-key block streams (:func:`random_subsets`), so that resample r still depends only on the seed, the key
    and r; every other kernel is called through ``evaluate``. Point estimates and jackknife rows always go
    through ``evaluate`` (no randomness).

    Parameters
    ----------
    kernel : Kernel
        The kernel.
    stratum : Stratum
        The stratum.
    item_weights_ : numpy.ndarray
        Item weights, shape (R x items).
    observer_weights_ : numpy.ndarray or None
        Observer weights, shape (R x members), or None.
    seed : int
        Root seed (for kernels with their own randomness).
    start, stop : int
        The resamples these weights belong to (R = stop - start).

    Returns
    -------
    numpy.ndarray
        Shape (R x width).

    Examples
    --------
    >>> class SumKernel:
    ...     def evaluate(self, stratum, item_weights, observer_weights):
    ...         return item_weights @ stratum.arrays["value"][:, None]
    ...     def width(self, stratum):
    ...         return 1
    ...     def bytes_per_resample(self, stratum):
    ...         return 8 * stratum.n_items
    >>> stratum = Stratum(("a",), np.array(["i", "j"]), ("obs",), {"value": np.array([1.0, 10.0])})
    >>> evaluate_chunk(SumKernel(), stratum, np.array([[2.0, 0.0], [1.0, 1.0]]), None, 0, 0, 2).ravel().tolist()
    [2.0, 11.0]
    """
    own = getattr(kernel, "evaluate_resamples", None)
    if own is None:
        return kernel.evaluate(stratum, item_weights_, observer_weights_)
    return own(stratum, item_weights_, observer_weights_, seed, start, stop)


def resample_chunks(n_resamples: int, bytes_per_resample: int, memory_budget: int = DEFAULT_MEMORY_BUDGET
                    ) -> list[tuple[int, int]]:
    """(start, stop) ranges covering ``n_resamples``, each using at most ``memory_budget`` bytes.

    Chunk boundaries fall on multiples of :data:`BLOCK` where the budget allows, and numbers do not depend on
    them. A budget too small for one block splits blocks: the weights stay the same, but a matrix product over
    fewer rows may round its edge rows differently in the last bit (the BLAS's choice, seen with OpenBLAS).

    Parameters
    ----------
    n_resamples : int
        Total resamples (0 or less gives no chunk).
    bytes_per_resample : int
        Memory one resample needs.
    memory_budget : int, default 2 GiB
        Bytes one chunk may use.

    Returns
    -------
    list of tuple of int
        ``(start, stop)`` pairs covering ``0..n_resamples-1`` in order.

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
    """Estimate, bootstrap replicates and (for BCa and the jackknife intervals) the item jackknife's moments.

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

    Raises
    ------
    ValueError
        If the design has no strata or the labels do not match the aggregation's columns.
    ResourceError
        If keeping the replicates would exceed the memory budget.

    Examples
    --------
    The mean of one stratum of four values, with a BCa interval:

    >>> class MeanKernel(SufficientStatisticKernel):
    ...     def statistics(self, stratum):          # per item: value and 1, so sums give total and count
    ...         return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])
    ...     def reduce(self, stratum, sums, observer_weights):
    ...         return sums[:, :1] / sums[:, 1:]
    >>> stratum = Stratum(("a",), np.arange(4).astype(str), ("obs",), {"value": np.array([1.0, 2.0, 3.0, 6.0])})
    >>> settings = ResamplingSettings(n_resamples=200, seed=0, interval="bca")
    >>> result = bootstrap(Design((stratum,)), MeanKernel(), lambda values: values[("a",)],
    ...                    Output([("a",)], ("stratum",)), settings)
    >>> result.estimate.tolist(), result.replicates.shape, result.jackknife.n.tolist()   # 4 leave-one-out rows
    ([3.0], (200, 1), [4])
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
    row of chunks of whole blocks is computed the same way (see :func:`resample_chunks` for smaller ones). On
    the small machines this package targets, one thread is also no slower (the work is already vectorised over
    resamples).

    Returns
    -------
    contextlib.AbstractContextManager
        A context manager; BLAS runs on one thread inside it (unchanged without threadpoolctl).

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with one_blas_thread():
    ...     threads = {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}
    >>> threads <= {1}
    True
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
    # Strata are independent given their own streams, so threads change when a stratum is computed, never
    # what: numpy and the compiled kernels release the GIL in the array work, and a kernel caches per stratum
    # key. The largest strata are handed out first, so that no thread is left with a big one at the end.
    threads = min(settings.threads, len(design))
    with ThreadPoolExecutor(max_workers=threads) if threads > 1 else contextlib.nullcontext() as pool:
        def estimated(s: Stratum) -> np.ndarray:
            return kernel.evaluate(s, np.ones((1, s.n_items)),
                                   fixed_observer_weights(design, s, settings.observer_level))

        point = dict(zip(design.keys, map(estimated, design) if pool is None else pool.map(estimated, design)))
        estimate = np.asarray(aggregate(point), dtype=float).reshape(-1)
        n_out = estimate.size
        if len(output.labels) != n_out:
            raise ValueError(f"aggregation gives {n_out} columns but {len(output.labels)} labels")
        reasons = output.reasons(estimate) if output.reasons is not None else None

        sizes = {s.key: int(kernel.bytes_per_resample(s)) for s in design}
        pipelined = 8 * sum(np.shape(v)[1] for v in point.values()) if pool is not None else 0
        per_resample = 8 * n_out + sum(sizes.values()) + pipelined
        kept = np.dtype(output.replicate_dtype).itemsize * n_out * settings.n_resamples
        if kept + per_resample > settings.memory_budget:
            raise ResourceError(
                f"{settings.n_resamples} resamples of {n_out} outputs need {_gib(kept)} to keep the replicates "
                f"(budget {_gib(settings.memory_budget)}); ask for fewer resamples or raise the memory budget")
        chunks = resample_chunks(settings.n_resamples, per_resample, settings.memory_budget - kept)
        replicates = np.empty((settings.n_resamples, n_out), dtype=output.replicate_dtype)
        into = _takes_out(aggregate)
        largest_first = sorted(design, key=lambda s: -sizes[s.key])
        bar = progress_bar(len(chunks), progress_enabled(settings.progress), "bootstrap")

        items_first = bool(getattr(kernel, "weights_items_first", False))

        def resampled_stratum(s: Stratum, start: int, stop: int) -> np.ndarray:
            w = item_weights(settings.seed, s.stream_key, s.n_items, start, stop, items_first)
            w = w.T if items_first else w
            u = None
            if settings.observer_level == "bootstrap" and s.group in design.groups:
                members = len(design.groups[s.group])
                u = observer_weights(settings.seed, s.group, members, start, stop) if members else None
            elif s.group in design.groups:
                u = fixed_observer_weights(design, s, settings.observer_level)
            return evaluate_chunk(kernel, s, w, u, settings.seed, start, stop)

        def aggregated(start: int, stop: int, computed: Iterator[np.ndarray]) -> None:
            done = dict(zip((s.key for s in largest_first), computed))
            values = {s.key: done[s.key] for s in design}   # the aggregation sees the design's order
            if into:
                aggregate(values, out=replicates[start:stop])
            else:
                replicates[start:stop] = aggregate(values)
            bar.update(1)

        # With threads, a chunk is aggregated here while the workers already compute the next one: its kernel
        # values are the one chunk kept beyond the budget's working set (counted in ``per_resample``).
        pending = None
        for start, stop in chunks:
            if pool is None:
                aggregated(start, stop, (resampled_stratum(s, start, stop) for s in largest_first))
                continue
            futures = [pool.submit(resampled_stratum, s, start, stop) for s in largest_first]
            if pending is not None:
                aggregated(*pending)
            pending = (start, stop, (f.result() for f in futures))
        if pending is not None:
            aggregated(*pending)
        bar.close()

    if settings.observer_level == "jackknife" and settings.n_resamples > 0:
        observer_jackknife_noise(design, kernel, aggregate, point, estimate, settings, out=replicates)

    jackknife = None
    if settings.interval in ("bca", *ITEM_JACKKNIFE_INTERVALS) and settings.n_resamples > 0:
        jackknife = item_jackknife_moments(design, kernel, aggregate, point, settings)
    result = Resampled(estimate, replicates, output.labels, output.label_names, reasons, jackknife,
                       settings.to_dict(), settings.level, settings.interval)
    warn_undefined(result, getattr(kernel, "measure", "resampled estimates"))
    if settings.interval in ITEM_JACKKNIFE_INTERVALS and jackknife is not None and getattr(kernel, "warns_few_items",
                                                                                             True):
        warn_few_items(result, getattr(kernel, "measure", "resampled estimates"))
    return result


def observer_jackknife_noise(design: Design, kernel: Kernel, aggregate: Aggregate,
                             point: Mapping[tuple, np.ndarray], estimate: np.ndarray,
                             settings: ResamplingSettings, out: np.ndarray | None = None) -> np.ndarray:
    """The observer level as a jackknife: per group, normal draws times the scaled leave-one-observer-out
    deviations sqrt((N-1)/N) (theta_(-o) - mean), added to every item resample (R x K).

    Undefined leave-one-out values contribute 0 (they carry no information about the spread).

    Parameters
    ----------
    design : Design
        The strata and observer groups.
    kernel : Kernel
        Per-stratum values under weights.
    aggregate : callable
        As for :func:`bootstrap`.
    point : Mapping
        Stratum key to the kernel's values at the estimate.
    estimate : numpy.ndarray
        The aggregated estimate, shape (K,).
    settings : ResamplingSettings
        Seed and number of resamples.
    out : numpy.ndarray, optional
        The (n_resamples x K) replicates: the noise is added to them block by block, the same numbers as
        ``out += observer_jackknife_noise(...)`` without an n_resamples x K noise array.

    Returns
    -------
    numpy.ndarray
        Noise to add to the item resamples, shape (n_resamples x K); ``out`` (with the noise added) if given.

    Examples
    --------
    Three observers whose means are 1, 2 and 3: the noise has the SD of their mean, 1 / sqrt(3) = 0.577.

    >>> class ObserverMean:
    ...     def evaluate(self, stratum, item_weights, observer_weights):
    ...         per_observer = item_weights @ stratum.arrays["value"] / item_weights.sum(axis=1, keepdims=True)
    ...         return (per_observer * observer_weights).sum(axis=1, keepdims=True) / observer_weights.sum(
    ...             axis=1, keepdims=True)
    >>> values = np.tile([1.0, 2.0, 3.0], (3, 1))
    >>> stratum = Stratum(("e", "c"), np.arange(3).astype(str), ("h1", "h2", "h3"), {"value": values},
    ...                   group=("e",), group_columns=np.arange(3))
    >>> design = Design((stratum,), {("e",): ("h1", "h2", "h3")})
    >>> settings = ResamplingSettings(n_resamples=4000, seed=0, observer_level="jackknife")
    >>> point = {("e", "c"): np.array([[2.0]])}
    >>> noise = observer_jackknife_noise(design, ObserverMean(), lambda v: v[("e", "c")], point,
    ...                                  np.array([2.0]), settings)
    >>> noise.shape, round(float(noise.std()), 1)
    ((4000, 1), 0.6)
    """
    groups = []  # (normal draws R x n, deviations n x columns, runs of consecutive columns)
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
        # The columns as runs of consecutive indices (typically two: the group's own outputs and the overall
        # ones), so that the noise is added through slices rather than a scatter over all columns.
        breaks = np.flatnonzero(np.diff(columns) != 1) + 1
        runs = [(int(run[0]), int(run[-1]) + 1, int(first))
                for run, first in zip(np.split(columns, breaks), np.concatenate([[0], breaks]))]
        z = standard_normals(settings.seed, ("observer-jackknife",) + group, n, 0, settings.n_resamples)
        groups.append((z, deviation[:, columns], runs))

    n_out = estimate.size
    result = np.zeros((settings.n_resamples, n_out)) if out is None else out
    # Rows in blocks of a few MiB; per block the noise of every group is summed first (in the order of the
    # groups, from zero), then added to the replicates: the numbers of the full-array version.
    step = max(1, min(1024, (4 * 1024**2) // (8 * max(n_out, 1))))
    noise = np.empty((step, n_out))
    for lo in range(0, settings.n_resamples, step):
        hi = min(lo + step, settings.n_resamples)
        block = noise[:hi - lo]
        block.fill(0.0)
        for z, deviation, runs in groups:
            zb = z[lo:hi]
            # Summed observer by observer (not one matrix product, whose rounding depends on the number of
            # columns): an output's noise is then the same whichever other groups and outputs exist.
            added = np.zeros((hi - lo, deviation.shape[1]))
            term = np.empty_like(added)
            for o in range(deviation.shape[0]):
                np.multiply(zb[:, o:o + 1], deviation[o], out=term)
                added += term
            for first_column, stop_column, position in runs:
                block[:, first_column:stop_column] += added[:, position:position + stop_column - first_column]
        result[lo:hi] += block
    return result


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 1024**3:.2f} GiB"


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_description(self, description: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, enabled: bool, description: str, unit: str = "chunk"):
    """A tqdm progress bar over ``total`` steps when ``enabled`` (stderr), else a no-op object.

    Parameters
    ----------
    total : int
        Number of steps (a single step gets no bar).
    enabled : bool
        Whether to show the bar.
    description : str
        Label shown before the bar.
    unit : str, default "chunk"
        What one step is (shown in the rate).

    Returns
    -------
    object
        Has ``update(n=1)``, ``set_description(text)`` and ``close()``.

    Examples
    --------
    >>> bar = progress_bar(10, False, "bootstrap")
    >>> bar.update(1); bar.close()
    >>> type(bar).__name__
    '_NoBar'
    """
    if not enabled or total <= 1:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit=unit, leave=False)


def warn_undefined(resampled: Resampled, what: str = "resampled estimates",
                   threshold: float = UNDEFINED_WARN_SHARE) -> None:
    """Warn when some defined estimates are undefined in more than ``threshold`` of the resamples.

    The one warning for undefined shares: :func:`bootstrap` raises it for every measure that runs on the
    engine (named by its kernel's ``measure``), and analyses with their own resampling loop call it on their
    result (the Psychophysical-Score).

    Parameters
    ----------
    resampled : Resampled
        A result with kept replicates (NaN where undefined).
    what : str
        The measure's name, for the message.
    threshold : float
        The share of undefined replicates above which a defined estimate is flagged.

    Warns
    -----
    RuntimeWarning
        Naming how many estimates are flagged and the worst one with its labels.

    Examples
    --------
    >>> import warnings
    >>> r = Resampled(np.array([0.3]), np.array([[0.2], [np.nan], [0.4], [np.nan]]), [("humans",)], ("group",))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warn_undefined(r, "error consistency")
    >>> str(caught[0].message).split(";")[0]
    'error consistency: 1 estimate(s) undefined in more than 10% of the resamples (worst 50%: group=humans)'
    """
    share = resampled.undefined_share()
    flagged = np.isfinite(resampled.estimate) & (share > threshold)
    if resampled.n_resamples == 0 or not flagged.any():
        return
    worst = int(np.argmax(np.where(flagged, share, -1.0)))
    _warn_naming(resampled, worst, f"{what}: {int(flagged.sum())} estimate(s) undefined in more than "
                 f"{threshold:.0%} of the resamples (worst {share[worst]:.0%}: {{labels}}); their intervals describe "
                 "only the resamples where they are defined (see the undefined_share column)")


def warn_few_items(resampled: Resampled, what: str = "resampled estimates", threshold: float = FEW_ITEMS) -> None:
    """Warn when one or two items decide some estimates: their jackknife intervals are then very wide.

    The effective number of items of an estimate (:meth:`~humanlike.resampling.jackknife.JackknifeMoments.
    effective_items`: ``n`` when every item moves it alike, 1 when one item does) below ``threshold`` says that
    leaving out one or two items moves the estimate most; the jackknife-t interval then widens (its t quantile
    has that many degrees of freedom), honestly (it covers 0.92-1.00 in such simulated data sets where the
    percentile bootstrap covers 0.24-0.90; docs/ec_coverage.md), but a reader should know why.

    Parameters
    ----------
    resampled : Resampled
        A result with jackknife moments.
    what : str
        The measure's name, for the message.
    threshold : float
        The effective number of items below which an estimate is flagged.

    Warns
    -----
    RuntimeWarning
        Naming how many estimates are flagged and the one with the fewest effective items.

    Examples
    --------
    >>> import warnings
    >>> rows = np.array([[0.5], [0.5], [0.5], [0.1]])   # one item of four moves it: (sum d^2)^2 / sum d^4 = 1.7
    >>> r = Resampled(np.array([0.4]), np.zeros((0, 1)), [("humans",)], ("group",), jackknife=rows)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warn_few_items(r, "error consistency")
    >>> str(caught[0].message).split(";")[0]
    'error consistency: 1 estimate(s) rest on fewer than 3 effective items (fewest 1.7: group=humans)'
    """
    if resampled.jackknife is None:
        return
    items = resampled.jackknife.effective_items()
    flagged = np.isfinite(resampled.estimate) & np.isfinite(items) & (items < threshold)
    if not flagged.any():
        return
    fewest = int(np.argmin(np.where(flagged, items, np.inf)))
    _warn_naming(resampled, fewest, f"{what}: {int(flagged.sum())} estimate(s) rest on fewer than {threshold:g} "
                 f"effective items (fewest {items[fewest]:.1f}: {{labels}}); leaving out one or two items moves each "
                 "of them most, so their jackknife intervals are wide")


def _warn_naming(resampled: Resampled, column: int, message: str) -> None:
    """One RuntimeWarning, always shown, with ``{labels}`` in ``message`` replaced by the column's labels."""
    label = dict(zip(resampled.label_names, resampled.labels[column]))
    shown = ", ".join(f"{k}={v}" for k, v in label.items() if v != "")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn(message.replace("{labels}", shown), RuntimeWarning, stacklevel=4)
