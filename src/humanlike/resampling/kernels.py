"""What an analysis hands the resampling engine besides its design: a kernel and an aggregation.

A *kernel* says what one stratum yields under item weights W (R x items) and observer weights U (R x members);
it is the engine's only view of a metric. Kernels whose outputs are functions of weighted sums of per-item
statistics subclass :class:`SufficientStatisticKernel`: the estimate, every resample and every jackknife row
then go through the same ``reduce``. An *aggregation* turns the kernel values of all strata into the
analysis' output columns, described by an :class:`Output`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..trials.design import Design, Stratum


class Kernel(Protocol):
    """What one stratum yields under weights; the engine's only view of a metric.

    ``evaluate(stratum, item_weights, observer_weights)`` returns an array (R x k_stratum): item_weights is
    (R x items) float, observer_weights (R x group members) or None. ``width(stratum)`` is k_stratum and
    ``bytes_per_resample(stratum)`` the memory one resample needs while evaluated (weights and temporaries).

    Attributes
    ----------
    evaluate_resamples : callable, optional
        ``(stratum, item_weights, observer_weights, seed, start, stop) -> (R x k)``, defined only by kernels
        that draw randomness of their own in each resample or choose per resample what to compute (see
        :func:`humanlike.resampling.engine.evaluate_chunk`).
    leave_one_out_rows : callable, optional
        ``(stratum, start, stop) -> (stop - start x k)``: exact leave-one-item-out values of items start..stop-1
        (e.g. totals minus one item's statistics) for kernels that are not a :class:`SufficientStatisticKernel`
        but can do the same; :func:`humanlike.resampling.item_jackknife.item_jackknife` then evaluates them in
        memory-sized chunks.
    weights_items_first : bool, optional
        True for a kernel that works on the weights as (items x R): the engine then draws them in that layout
        (:func:`humanlike.resampling.draws.item_weights` with ``items_first=True``) and hands over its transpose, an
        (R x items) view in column-major order: the same weights, without a transposing copy per chunk.

    Examples
    --------
    Any object with these methods is a kernel:

    >>> class SumKernel:
    ...     def evaluate(self, stratum, item_weights, observer_weights):
    ...         return item_weights @ stratum.arrays["value"][:, None]
    ...     def width(self, stratum):
    ...         return 1
    ...     def bytes_per_resample(self, stratum):
    ...         return 8 * stratum.n_items
    >>> stratum = Stratum(("a",), np.array(["i", "j"]), ("obs",), {"value": np.array([1.0, 10.0])})
    >>> SumKernel().evaluate(stratum, np.array([[1.0, 1.0], [2.0, 0.0]]), None).ravel().tolist()
    [11.0, 2.0]
    """

    def evaluate(self, stratum: Stratum, item_weights: np.ndarray,
                 observer_weights: np.ndarray | None) -> np.ndarray:
        """Values of one stratum under item weights (R x items) and observer weights (R x members or None).

        Parameters
        ----------
        stratum : Stratum
            The stratum evaluated.
        item_weights : numpy.ndarray
            Item weights, shape (R x items) (all ones: the estimate).
        observer_weights : numpy.ndarray or None
            Observer weights, shape (R x group members), or None without an observer level.

        Returns
        -------
        numpy.ndarray
            Shape (R x :meth:`width`).
        """

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum.

        Parameters
        ----------
        stratum : Stratum
            The stratum.

        Returns
        -------
        int
        """

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size).

        Parameters
        ----------
        stratum : Stratum
            The stratum.

        Returns
        -------
        int
            Bytes.
        """


class SufficientStatisticKernel:
    """A kernel whose outputs are a function of weighted sums of per-item statistics.

    Subclasses give ``statistics(stratum) -> (items x S)`` and ``reduce(stratum, sums (R x S),
    observer_weights) -> (R x k)``; a resample is then one matrix product ``W @ statistics``, and the item
    jackknife is exact and cheap (``total - row``). Statistics are cached per stratum key.

    Examples
    --------
    A mean as a sufficient-statistic kernel; its leave-one-out values are exact ((12 - 1) / 3, ...):

    >>> class MeanKernel(SufficientStatisticKernel):
    ...     def statistics(self, stratum):          # per item: value and 1, so sums give total and count
    ...         return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])
    ...     def reduce(self, stratum, sums, observer_weights):
    ...         return sums[:, :1] / sums[:, 1:]
    >>> stratum = Stratum(("a",), np.arange(4).astype(str), ("obs",), {"value": np.array([1.0, 2.0, 3.0, 6.0])})
    >>> kernel = MeanKernel()
    >>> kernel.evaluate(stratum, np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 4.0]]), None).ravel().tolist()
    [3.0, 6.0]
    >>> kernel.leave_one_out(stratum).ravel().round(3).tolist()
    [3.667, 3.333, 3.0, 2.0]
    """

    def __init__(self) -> None:
        self._cache: dict[tuple, np.ndarray] = {}
        self._totals: dict[tuple, np.ndarray] = {}

    def statistics(self, stratum: Stratum) -> np.ndarray:  # pragma: no cover - abstract
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them.

        Parameters
        ----------
        stratum : Stratum
            The stratum.

        Returns
        -------
        numpy.ndarray
            Shape (items x S).
        """
        raise NotImplementedError

    def reduce(self, stratum: Stratum, sums: np.ndarray, observer_weights: np.ndarray | None) -> np.ndarray:
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width).

        Parameters
        ----------
        stratum : Stratum
            The stratum.
        sums : numpy.ndarray
            Weighted sums of the statistics, shape (R x S).
        observer_weights : numpy.ndarray or None
            Observer weights (R x group members), or None.

        Returns
        -------
        numpy.ndarray
            Shape (R x width).
        """
        raise NotImplementedError  # pragma: no cover - abstract

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum.

        Parameters
        ----------
        stratum : Stratum
            The stratum.

        Returns
        -------
        int
        """
        return self.reduce(stratum, self.cached_statistics(stratum).sum(axis=0, keepdims=True), None).shape[1]

    def cached_statistics(self, stratum: Stratum) -> np.ndarray:
        """The statistics of a stratum, computed once per stratum key.

        Parameters
        ----------
        stratum : Stratum
            The stratum.

        Returns
        -------
        numpy.ndarray of float64
            :meth:`statistics` of the stratum (items x S).
        """
        if stratum.key not in self._cache:
            self._cache[stratum.key] = np.asarray(self.statistics(stratum), dtype=np.float64)
        return self._cache[stratum.key]

    def evaluate(self, stratum, item_weights, observer_weights):
        """Values of one stratum under item weights (R x items) and observer weights (R x members or None): R x width.

        Parameters
        ----------
        stratum : Stratum
            The stratum.
        item_weights : numpy.ndarray
            Shape (R x items).
        observer_weights : numpy.ndarray or None
            Shape (R x group members), or None.

        Returns
        -------
        numpy.ndarray
            Shape (R x width).
        """
        sums = np.asarray(item_weights, dtype=np.float64) @ self.cached_statistics(stratum)
        return self.reduce(stratum, sums, observer_weights)

    def leave_one_out(self, stratum: Stratum, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Exact leave-one-item-out outputs of items ``start..stop-1`` (default all): (rows x k).

        Parameters
        ----------
        stratum : Stratum
            The stratum.
        start, stop : int, optional
            The items left out, one per row (default: every item), so that the item jackknife can take a
            stratum's rows a memory-sized block at a time; a row does not depend on the block it is in.

        Returns
        -------
        numpy.ndarray
            Row i: the values without item ``start + i``.
        """
        stats = self.cached_statistics(stratum)
        if stratum.key not in self._totals:   # the sums over all items, once per stratum (not once per block)
            self._totals[stratum.key] = stats.sum(axis=0)[None, :]
        return self.reduce(stratum, self._totals[stratum.key] - stats[start:stop], None)

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size).

        Parameters
        ----------
        stratum : Stratum
            The stratum.

        Returns
        -------
        int
            ``8 * (items + 3 S)`` bytes.
        """
        stats = self.cached_statistics(stratum)
        return 8 * (stratum.n_items + 3 * stats.shape[1])



Aggregate = Callable[[Mapping[tuple, np.ndarray]], np.ndarray]
"""``{stratum key: (R x k) kernel values} -> (R x K)`` output columns.

An aggregation that also takes a keyword ``out`` is handed, for the bootstrap chunks, the (R x K) rows of the kept
replicates (in :attr:`Output.replicate_dtype`) to fill and return: no full-width float64 temporary per chunk and
no copy. The estimate and the jackknife rows are still aggregated without ``out`` (float64).
"""



@dataclass(frozen=True)
class Output:
    """The output columns of an aggregation: labels and the reason each estimate is undefined (if it is).

    Attributes
    ----------
    labels : list of tuple
        One label tuple per output column.
    label_names : tuple of str
        Names of the label fields.
    reasons : callable, optional
        ``estimate (K,) -> reasons (K,)``: why each estimate is undefined ("" where defined).
    replicate_dtype : numpy dtype, default float64
        The precision in which the replicates are kept; ``np.float32`` halves their memory for a kernel whose
        resamples are float32 computations anyway (the estimate is always float64).

    Examples
    --------
    >>> output = Output([("edge", "kappa"), ("overall", "kappa")], ("scope", "metric"))
    >>> len(output.labels), output.label_names
    (2, ('scope', 'metric'))
    """

    labels: list[tuple]
    label_names: tuple[str, ...]
    reasons: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    replicate_dtype: type = np.float64


def fixed_observer_weights(design: Design, stratum: Stratum, observer_level: str) -> np.ndarray | None:
    """The observer weights a kernel gets where the observers are not resampled: at the estimate, in the item
    jackknife's rows and, unless they are bootstrapped, in every resample.

    Parameters
    ----------
    design : Design
        Its observer groups.
    stratum : Stratum
        The stratum evaluated.
    observer_level : {"none", "bootstrap", "jackknife"}
        The settings' observer level.

    Returns
    -------
    numpy.ndarray or None
        Ones over the members of the stratum's observer group (1 x members); None where the stratum has no
        observer group or the observer level is "none" (the kernel then gets no observer weights).

    Examples
    --------
    >>> stratum = Stratum(("e", "c"), np.arange(3).astype(str), ("h1", "h2"), {"value": np.zeros((3, 2))},
    ...                   group=("e",), group_columns=np.arange(2))
    >>> design = Design((stratum,), {("e",): ("h1", "h2")})
    >>> fixed_observer_weights(design, stratum, "jackknife").tolist(), fixed_observer_weights(design, stratum, "none")
    ([[1.0, 1.0]], None)
    """
    members = design.groups.get(stratum.group)
    if members is None or observer_level == "none":
        return None
    return np.ones((1, len(members)))
