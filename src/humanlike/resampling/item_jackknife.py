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
    return np.concatenate([rows for blocks in _jackknife_row_blocks(design, kernel, aggregate, point, settings)
                           for rows in blocks])


def item_jackknife_moments(design: Design, kernel: Kernel, aggregate: Aggregate, point: Mapping[tuple, np.ndarray],
                           settings: ResamplingSettings = ResamplingSettings()) -> JackknifeMoments:
    """The stratified jackknife's sums of :func:`item_jackknife`'s rows, one stratum (and block) at a time.

    What the engine keeps: the intervals need only these (:class:`~humanlike.resampling.jackknife.
    JackknifeMoments`), and the rows themselves (items x outputs) would outgrow the replicates on data with
    many experiments.

    Parameters
    ----------
    design, kernel, aggregate, point, settings
        As for :func:`item_jackknife`.

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
    for blocks in _jackknife_row_blocks(design, kernel, aggregate, point, settings):
        stratum = None
        for rows in blocks:   # one stratum's rows, minus the estimate: exactly 0 where it does not matter
            block = RowMoments.of(rows - estimate)
            stratum = block if stratum is None else stratum.merged(block)
        moments = moments.plus_stratum(stratum)
    return moments


def _jackknife_row_blocks(design: Design, kernel: Kernel, aggregate: Aggregate, point: Mapping[tuple, np.ndarray],
                         settings: ResamplingSettings) -> Iterator[Iterator[np.ndarray]]:
    """:func:`item_jackknife`'s rows: per stratum (design order), its rows in memory-sized blocks.

    Parameters
    ----------
    design, kernel, aggregate, point, settings
        As for :func:`item_jackknife`.

    Yields
    ------
    Iterator of numpy.ndarray
        One per stratum: its aggregated leave-one-out rows (rows x K), a block at a time.
    """
    own = getattr(kernel, "leave_one_out_rows", None)

    def stratum_rows(s: Stratum) -> Iterator[np.ndarray]:
        if own is not None:
            step = max(1, int(settings.memory_budget // max(2 * int(kernel.bytes_per_resample(s)), 1)))
            for lo in range(0, s.n_items, step):
                values = dict(point)
                values[s.key] = own(s, lo, min(lo + step, s.n_items))
                yield np.asarray(aggregate(values), dtype=float)
            return
        if isinstance(kernel, SufficientStatisticKernel):
            loo = kernel.leave_one_out(s)
        else:
            step = max(1, int(settings.memory_budget // max(8 * s.n_items * 4, 1)))
            loo = np.concatenate([
                kernel.evaluate(s, 1.0 - np.eye(s.n_items)[lo:lo + step],
                                fixed_observer_weights(design, s, settings.observer_level))
                for lo in range(0, s.n_items, step)])
        values = dict(point)
        values[s.key] = loo
        yield np.asarray(aggregate(values), dtype=float)

    for s in design:
        yield stratum_rows(s)
