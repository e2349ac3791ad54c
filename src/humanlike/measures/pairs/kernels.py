"""Pairwise correctness measures as engine kernels: the pair kernels EC, DMC, DVC and OOD share.

A :class:`PairKernel` turns the correctness block of one stratum (an experiment x condition: items x
observers, from :func:`humanlike.trials.design.build_design`) into per-item sufficient statistics
(:func:`humanlike.measures.pairs.correctness_sums.correctness_statistics`) and reduces weighted sums of them to per-pair measures
(error consistency, observed consistency, squared accuracy difference, or any measure a subclass adds), the
per-observer correct/answered counts, and the observer weights of the resample. :class:`ErrorConsistencyKernel`
and :class:`ErrorOverlapKernel` are the concrete kernels.

Their outputs of all strata go through the one aggregation, :class:`humanlike.measures.pairs.aggregation.PairAggregation`
(pairs -> condition mean -> experiment groups -> overall), which also names the groups (``humans``,
``model-model``, each model).
"""

from __future__ import annotations

import numpy as np

from ...trials.design import Stratum
from .correctness_sums import (
    PAIR_MEASURES, POOL_COUNTS, consistency_from_sums, correctness_statistics, error_overlap_from_sums,
    pooled_counts_from_sums,
)
from .metric import UndefinedPolicy
from ...resampling.kernels import SufficientStatisticKernel


def stratum_correctness(stratum: Stratum) -> tuple[np.ndarray, np.ndarray]:
    """(correct, observed) boolean blocks (items x observers) of a stratum built from first presentations.

    Parameters
    ----------
    stratum : Stratum
        A stratum of a design built from first presentations (at most one trial per item and observer).

    Returns
    -------
    correct, observed : numpy.ndarray of bool
        Each (items x observers): whether the observer answered the item correctly / answered it at all.

    Raises
    ------
    ValueError
        When an observer answered an item more than once, naming the stratum, observer and item.

    Examples
    --------
    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> stratum = design.stratum(("e", "c"))
    >>> correct, observed = stratum_correctness(stratum)
    >>> correct.astype(int).T.tolist(), bool(observed.all())
    ([[1, 1, 0, 0], [1, 0, 0, 1], [1, 1, 1, 0]], True)
    """
    n_trials = stratum.arrays["n_trials"]
    if np.any(n_trials > 1):
        item, obs = np.argwhere(n_trials > 1)[0]
        raise ValueError(f"stratum {stratum.key}: observer '{stratum.observers[obs]}' answered item "
                         f"'{stratum.items[item]}' more than once; pairwise measures use first presentations")
    return stratum.arrays["n_correct"] > 0, n_trials > 0


class PairKernel(SufficientStatisticKernel):
    """Per-pair measures of one stratum under item and observer weights.

    Output columns of a stratum with O observers (P = O(O-1)/2 pairs in
    :func:`~humanlike.measures.pairs.correctness_sums.pair_indices` order) and G observers in its observer group:
    ``[measure_1 (P), ..., measure_M (P), correct (O), answered (O), observer weights (G)]``.
    Subclasses set :attr:`measures` and override :meth:`pair_values`.

    Parameters
    ----------
    policy : UndefinedPolicy or str
        What kappa is where it is undefined (only used by measures that need it).

    Examples
    --------
    The base class has no measures; :class:`ErrorConsistencyKernel` is the concrete one:

    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> stratum = design.stratum(("e", "c"))
    >>> kernel = ErrorConsistencyKernel()
    >>> kernel.statistics(stratum).shape, kernel.width(stratum)  # 3 measures x 3 pairs + 2 x 3 observers + 2 humans
    ((4, 7), 17)
    """

    measure = "pairwise agreement"  # names the engine's undefined-share warning (subclasses say which)

    measures: tuple[str, ...] = ()

    def __init__(self, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT) -> None:
        super().__init__()
        self.policy = UndefinedPolicy(policy)
        self._masked: dict[tuple, bool] = {}

    def pair_values(self, sums: np.ndarray, n_observers: int, masked: bool) -> dict[str, np.ndarray]:
        """``{measure: (R x P)}`` plus ``correct`` and ``answered`` (R x O) from weighted sums.

        Parameters
        ----------
        sums : numpy.ndarray
            Weighted sums of the per-item statistics, shape (R, S) (R resamples or 1).
        n_observers : int
            Observers O of the stratum (P = O(O-1)/2 pairs).
        masked : bool
            Whether the block is incomplete (see :meth:`masked`).

        Returns
        -------
        dict of str to numpy.ndarray
            One (R x P) array per measure, and ``correct`` and ``answered`` (R x O).
        """
        raise NotImplementedError  # pragma: no cover - abstract

    def masked(self, stratum: Stratum) -> bool:
        """Whether the stratum's block is incomplete (pairs counted on the items both answered).

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).

        Returns
        -------
        bool
            True when some observer did not answer some item.
        """
        self.cached_statistics(stratum)
        return self._masked[stratum.key]

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them.

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).

        Returns
        -------
        numpy.ndarray
            float32 array (items x S), see :func:`humanlike.measures.pairs.correctness_sums.correctness_statistics`.
        """
        correct, observed = stratum_correctness(stratum)
        stats, masked = correctness_statistics(correct, observed)
        self._masked[stratum.key] = masked
        return stats

    def cached_statistics(self, stratum: Stratum) -> np.ndarray:
        """The statistics of a stratum, computed once per stratum key.

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).

        Returns
        -------
        numpy.ndarray
            :meth:`statistics` of the stratum (items x S), from the cache after the first call.
        """
        # float32 on purpose: 0/1 statistics and integer weights give exact integer sums (see metrics.ec).
        if stratum.key not in self._cache:
            self._cache[stratum.key] = self.statistics(stratum)
        return self._cache[stratum.key]

    def evaluate(self, stratum, item_weights, observer_weights):
        """Values of one stratum under item weights and observer weights.

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).
        item_weights : numpy.ndarray
            Item weights (R x items): bootstrap counts, or ones for the estimate.
        observer_weights : numpy.ndarray or None
            Weights of the observer group's members (R x members); None means all ones.

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`): the measures per pair, correct and answered counts per observer, the observer
            weights.
        """
        w = np.asarray(item_weights, dtype=np.float32)
        sums = (w @ self.cached_statistics(stratum)).astype(np.float64)
        return self.reduce(stratum, sums, observer_weights)

    def reduce(self, stratum: Stratum, sums: np.ndarray, observer_weights: np.ndarray | None) -> np.ndarray:
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width).

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).
        sums : numpy.ndarray
            Weighted sums of the per-item statistics, shape (R, S) (R resamples or 1).
        observer_weights : numpy.ndarray or None
            Weights of the observer group's members (R x members); None means all ones.

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`), laid out as in :meth:`evaluate`.
        """
        n_obs = len(stratum.observers)
        values = self.pair_values(sums, n_obs, self.masked(stratum))
        rows = sums.shape[0]
        members = stratum.group_columns.size
        if observer_weights is None:
            observer_weights = np.ones((rows, members))
        parts = [np.broadcast_to(values[m], (rows, values[m].shape[1])) for m in self.measures]
        parts += [np.broadcast_to(values["correct"], (rows, n_obs)), np.broadcast_to(values["answered"], (rows, n_obs)),
                  np.broadcast_to(observer_weights, (rows, members))]
        return np.concatenate(parts, axis=1)

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum.

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).

        Returns
        -------
        int
            M x P + 2 x O + G (measures, pairs, observers, observer-group members).
        """
        n_obs = len(stratum.observers)
        return len(self.measures) * n_obs * (n_obs - 1) // 2 + 2 * n_obs + stratum.group_columns.size

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size).

        Parameters
        ----------
        stratum : Stratum
            One stratum of the design (items x observers blocks).

        Returns
        -------
        int
            Bytes per resample (an upper estimate).
        """
        n_obs = len(stratum.observers)
        n_pairs = n_obs * (n_obs - 1) // 2
        n_stats = self.cached_statistics(stratum).shape[1]
        # weights (float32), sums (float32 + float64), the outputs, ~10 pair-sized temporaries of the reduction
        # and the aggregation's stack of conditions.
        return (4 * stratum.n_items + 12 * n_stats + 8 * self.width(stratum)
                + 8 * n_pairs * (10 + 3 * len(self.measures)))


class ErrorConsistencyKernel(PairKernel):
    """Error consistency, observed consistency and squared accuracy difference of every pair.

    Parameters
    ----------
    policy : UndefinedPolicy or str
        What kappa is where it is undefined (``"strict"``: NaN; ``"model-vs-human"``: the benchmark's values).
    pooled : bool
        Also output every pair's :data:`~humanlike.measures.pairs.correctness_sums.POOL_COUNTS` (after the three
        measures), which :class:`~humanlike.measures.pairs.aggregation.PairAggregation` sums over pairs for the
        pooled error consistency of sparse designs.

    Examples
    --------
    Pairs (h1, h2), (h1, m), (h2, m): h1 and h2 agree on 2 of 4 items at chance level 1/2, so kappa is 0.

    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> stratum = design.stratum(("e", "c"))
    >>> import numpy as np
    >>> values = ErrorConsistencyKernel().evaluate(stratum, np.ones((1, 4)), None)
    >>> values[0, :3].tolist(), values[0, 3:6].tolist()   # EC, then observed consistency, per pair
    ([0.0, 0.5, -0.5], [0.5, 0.75, 0.25])
    """

    measure = "error consistency"  # names the engine's undefined-share warning
    # EC warns itself of estimates that rest on few items, over the columns whose interval is the jackknife's
    # (a pair that is one 2x2 table shows its profile-likelihood interval instead): error_consistency
    warns_few_items = False

    measures = PAIR_MEASURES

    def __init__(self, policy: UndefinedPolicy | str = UndefinedPolicy.STRICT, pooled: bool = False) -> None:
        super().__init__(policy)
        self.pooled = bool(pooled)
        if self.pooled:
            self.measures = PAIR_MEASURES + POOL_COUNTS

    def pair_values(self, sums, n_observers, masked):
        """EC, observed consistency and squared accuracy difference per pair, from weighted sums.

        Parameters
        ----------
        sums : numpy.ndarray
            Weighted sums of the per-item statistics, shape (R, S) (R resamples or 1).
        n_observers : int
            Observers O of the stratum.
        masked : bool
            Whether the block is incomplete.

        Returns
        -------
        dict of str to numpy.ndarray
            ``error_consistency``, ``observed_consistency``, ``accuracy_difference`` (R x P), ``correct`` and
            ``answered`` (R x O); with ``pooled`` also the :data:`POOL_COUNTS` (R x P).
        """
        values = consistency_from_sums(sums, n_observers, masked, self.policy)
        if self.pooled:
            values.update(pooled_counts_from_sums(sums, n_observers, masked))
        return values


class ErrorOverlapKernel(PairKernel):
    """Error overlap (Jaccard index of the error sets, :func:`humanlike.measures.pairs.metric.error_overlap`) of every pair.

    The worked example of the README's "How to add a metric": a measure of the same 2x2 counts, so only
    :meth:`pair_values` is new.

    Parameters
    ----------
    policy : UndefinedPolicy or str
        Passed on to the base class (error overlap needs no policy).

    Examples
    --------
    h1 and h2 err on {i2, i3} and {i1, i2}: one shared error of three, so the overlap is 1/3.

    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> stratum = design.stratum(("e", "c"))
    >>> import numpy as np
    >>> values = ErrorOverlapKernel().evaluate(stratum, np.ones((1, 4)), None)
    >>> [round(float(v), 4) for v in values[0, :3]]
    [0.3333, 0.5, 0.0]
    """

    measure = "error overlap"  # names the engine's undefined-share warning

    measures = ("error_overlap",)

    def pair_values(self, sums, n_observers, masked):
        """Error overlap per pair (with the per-observer counts), from weighted sums.

        Parameters
        ----------
        sums : numpy.ndarray
            Weighted sums of the per-item statistics, shape (R, S) (R resamples or 1).
        n_observers : int
            Observers O of the stratum.
        masked : bool
            Whether the block is incomplete.

        Returns
        -------
        dict of str to numpy.ndarray
            ``error_overlap`` (R x P), ``correct`` and ``answered`` (R x O).
        """
        values = consistency_from_sums(sums, n_observers, masked, self.policy)
        return {"error_overlap": error_overlap_from_sums(sums, n_observers, masked),
                "correct": values["correct"], "answered": values["answered"]}
