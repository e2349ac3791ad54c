"""The engine's exact item jackknife: every stratum's leave-one-item-out rows, through the kernel and the aggregation.

Leaving out item i of stratum s, the other strata at their estimate, gives one row of the analysis' outputs.
:func:`item_jackknife` returns the rows (items x outputs); :func:`item_jackknife_moments`, what
:func:`~humanlike.resampling.engine.bootstrap` keeps for BCa and the jackknife intervals, adds them up one stratum
(and memory-sized block) at a time as the stratified jackknife's sums
(:class:`~humanlike.resampling.jackknife.JackknifeMoments`, where the intervals they give live too). A
:class:`~humanlike.resampling.kernels.SufficientStatisticKernel` gives its rows exactly by subtraction, a kernel
with ``leave_one_out_rows`` in row chunks, any other kernel through ``evaluate`` with leave-one-out weights.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping

import numpy as np

from ..trials.design import Design, Stratum
from .jackknife import JackknifeMoments, RowMoments
from .kernels import Aggregate, Kernel, SufficientStatisticKernel, fixed_observer_weights
from .settings import ResamplingSettings


def item_jackknife(design: Design, kernel: Kernel, aggregate: Aggregate, point: Mapping[tuple, np.ndarray],
                   settings: ResamplingSettings = ResamplingSettings()) -> np.ndarray:
    """Leave-one-item-out outputs: one row per item of every stratum (the other strata at their estimate).

    A kernel with ``leave_one_out_rows(stratum, start, stop)`` (exact leave-one-out kernel values of items
    start..stop-1, e.g. totals minus one item's statistics) is evaluated and aggregated in row chunks sized by
    its ``bytes_per_resample`` and the memory budget.

    Parameters
    ----------
    design : Design
        The strata.
    kernel : Kernel
        Per-stratum values under weights.
    aggregate : callable
        As for :func:`~humanlike.resampling.engine.bootstrap`.
    point : Mapping
        Stratum key to the kernel's values at the estimate (1 x k).
    settings : ResamplingSettings, optional
        Gives the memory budget and the observer level.

    Returns
    -------
    numpy.ndarray
        Shape (total items x K), strata in design order.

    Examples
    --------
    >>> class MeanKernel(SufficientStatisticKernel):
    ...     def statistics(self, stratum):          # per item: value and 1, so sums give total and count
    ...         return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])
    ...     def reduce(self, stratum, sums, observer_weights):
    ...         return sums[:, :1] / sums[:, 1:]
    >>> stratum = Stratum(("a",), np.arange(4).astype(str), ("obs",), {"value": np.array([1.0, 2.0, 3.0, 6.0])})
    >>> kernel = MeanKernel()
    >>> point = {("a",): kernel.evaluate(stratum, np.ones((1, 4)), None)}
    >>> item_jackknife(Design((stratum,)), kernel, lambda values: values[("a",)], point).ravel().tolist()
    [3.6666666666666665, 3.3333333333333335, 3.0, 2.0]
    """
    n_outputs = np.asarray(aggregate(point)).size
    return np.concatenate([rows for blocks in _jackknife_row_blocks(design, kernel, aggregate, point, settings,
                                                                    n_outputs) for rows in blocks])


def item_jackknife_moments(design: Design, kernel: Kernel, aggregate: Aggregate, point: Mapping[tuple, np.ndarray],
                           settings: ResamplingSettings = ResamplingSettings(),
                           memory_budget: int | None = None) -> JackknifeMoments:
    """The stratified jackknife's sums of :func:`item_jackknife`'s rows, one stratum (and block) at a time.

    What the engine keeps: the intervals need only these (:class:`~humanlike.resampling.jackknife.
    JackknifeMoments`), and the rows themselves (items x outputs) would outgrow the replicates on data with
    many experiments. The rows are computed a memory-sized block at a time (:func:`jackknife_rows_per_block`), so
    the memory stays within the budget whatever the number of items and observers, and the time grows with them
    as one bootstrap resample's does.

    Parameters
    ----------
    design, kernel, aggregate, point, settings
        As for :func:`item_jackknife`.
    memory_budget : int, optional
        Bytes a block of rows may use (default: the settings' memory budget; the engine gives what keeping the
        replicates leaves of it, as for the bootstrap's chunks).

    Returns
    -------
    JackknifeMoments
        Per output column.

    Examples
    --------
    >>> class MeanKernel(SufficientStatisticKernel):
    ...     def statistics(self, stratum):
    ...         return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])
    ...     def reduce(self, stratum, sums, observer_weights):
    ...         return sums[:, :1] / sums[:, 1:]
    >>> stratum = Stratum(("a",), np.arange(4).astype(str), ("obs",), {"value": np.array([1.0, 2.0, 3.0, 6.0])})
    >>> kernel = MeanKernel()
    >>> point = {("a",): kernel.evaluate(stratum, np.ones((1, 4)), None)}
    >>> moments = item_jackknife_moments(Design((stratum,)), kernel, lambda values: values[("a",)], point)
    >>> moments.n.tolist(), round(float(moments.variance[0]), 6)   # 3/4 of sum d^2 = 3/4 * 14/9
    ([4], 1.166667)
    """
    estimate = np.asarray(aggregate(point), dtype=float).reshape(-1)
    moments = JackknifeMoments.zero(estimate.size)
    for blocks in _jackknife_row_blocks(design, kernel, aggregate, point, settings, estimate.size, memory_budget):
        stratum = None
        for rows in blocks:   # one stratum's rows, minus the estimate: exactly 0 where it does not matter
            block = RowMoments.of(rows - estimate)
            stratum = block if stratum is None else stratum.merged(block)
        moments = moments.plus_stratum(stratum)
    return moments


def jackknife_rows_per_block(design: Design, kernel: Kernel, stratum: Stratum, n_outputs: int,
                             memory_budget: int) -> int:
    """How many of a stratum's leave-one-out rows are computed and aggregated at once, within ``memory_budget``.

    One row costs what one bootstrap resample costs (the kernel's ``bytes_per_resample`` summed over every
    stratum: an aggregation may work on every stratum at the rows' count), plus the varying stratum's kernel
    values once more, the aggregated row and its deviations from the estimate (``16 * n_outputs``) and, for a
    kernel evaluated through leave-one-out weights, those weights. The rows of a stratum are independent, so
    the block size changes no row; the jackknife's memory is then bounded like the bootstrap's, whatever the
    number of items and observers (rather than one (items x outputs) block per stratum).

    Parameters
    ----------
    design : Design
        All strata.
    kernel : Kernel
        Gives ``bytes_per_resample`` per stratum.
    stratum : Stratum
        The stratum whose items are left out.
    n_outputs : int
        The aggregation's output columns.
    memory_budget : int
        Bytes one block may use.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> class MeanKernel(SufficientStatisticKernel):
    ...     def statistics(self, stratum):
    ...         return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])
    ...     def reduce(self, stratum, sums, observer_weights):
    ...         return sums[:, :1] / sums[:, 1:]
    >>> stratum = Stratum(("a",), np.arange(4).astype(str), ("obs",), {"value": np.array([1.0, 2.0, 3.0, 6.0])})
    >>> # per row: 2 x 8 (4 items + 3 x 2 statistics) bytes of kernel and 16 of the one output
    >>> jackknife_rows_per_block(Design((stratum,)), MeanKernel(), stratum, 1, memory_budget=1000)
    5
    """
    per_row = (sum(int(kernel.bytes_per_resample(s)) for s in design) + int(kernel.bytes_per_resample(stratum))
               + 16 * int(n_outputs))
    if getattr(kernel, "leave_one_out_rows", None) is None and not isinstance(kernel, SufficientStatisticKernel):
        per_row += 32 * stratum.n_items   # a row of leave-one-out weights and its temporaries
    return max(1, int(memory_budget) // max(per_row, 1))


def _jackknife_row_blocks(design: Design, kernel: Kernel, aggregate: Aggregate, point: Mapping[tuple, np.ndarray],
                         settings: ResamplingSettings, n_outputs: int,
                         memory_budget: int | None = None) -> Iterator[Iterator[np.ndarray]]:
    """:func:`item_jackknife`'s rows: per stratum (design order), its rows in memory-sized blocks.

    Parameters
    ----------
    design, kernel, aggregate, point, settings
        As for :func:`item_jackknife`.
    n_outputs : int
        The aggregation's output columns.
    memory_budget : int, optional
        Bytes a block may use (default: the settings' memory budget).

    Yields
    ------
    Iterator of numpy.ndarray
        One per stratum: its aggregated leave-one-out rows (rows x K), a block at a time.
    """
    own = getattr(kernel, "leave_one_out_rows", None)
    budget = settings.memory_budget if memory_budget is None else memory_budget
    sufficient = own is None and isinstance(kernel, SufficientStatisticKernel)
    # a sufficient-statistic kernel with a leave_one_out of its own that gives all rows at once
    whole = sufficient and "start" not in inspect.signature(kernel.leave_one_out).parameters

    def kernel_rows(s: Stratum, lo: int, hi: int, every: np.ndarray | None) -> np.ndarray:
        if every is not None:
            return every[lo:hi]
        if own is not None:
            return own(s, lo, hi)
        if sufficient:
            return kernel.leave_one_out(s, lo, hi)
        weights = np.ones((hi - lo, s.n_items))
        weights[np.arange(hi - lo), np.arange(lo, hi)] = 0.0
        return kernel.evaluate(s, weights, fixed_observer_weights(design, s, settings.observer_level))

    def stratum_rows(s: Stratum) -> Iterator[np.ndarray]:
        step = jackknife_rows_per_block(design, kernel, s, n_outputs, budget)
        every = kernel.leave_one_out(s) if whole else None
        for lo in range(0, s.n_items, step):
            values = dict(point)
            values[s.key] = kernel_rows(s, lo, min(lo + step, s.n_items), every)
            yield np.asarray(aggregate(values), dtype=float)

    for s in design:
        yield stratum_rows(s)
