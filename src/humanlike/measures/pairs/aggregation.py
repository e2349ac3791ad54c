"""The one aggregation of the pairwise measures, and the groups it averages.

:class:`PairAggregation` is the one aggregation (docs/measures/error-consistency.md) used for the estimate, every resample and
every jackknife row of the pair kernels' outputs (:mod:`humanlike.measures.pairs.kernels`): per pair, the
NaN-skipping mean over the conditions of its experiment; per experiment, the (observer-weighted) mean over the
human–human pairs, over the model–model pairs and, per model, over its pairs with humans; OOD accuracy pooled
over the conditions; overall, the mean over experiments with equal weight. Optionally every pair's condition
mean is an output column too (pair intervals from the same run).

Here too: the group names every measure's tables use (:data:`HUMANS`, :data:`MODEL_MODEL`, :func:`group_kind`),
the reasons of undefined values, and each experiment's observers, pairs and groups (:class:`ExperimentLayout`,
:func:`experiment_layouts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ...trials.design import Design, Stratum
from .correctness_sums import POOL_COUNTS, pair_indices
from ...resampling.kernels import Output
from ...resampling.weights import nanmean_quiet

HUMANS = "humans"
MODEL_MODEL = "model-model"
PAIR = "pair"
OOD_ACCURACY = "ood_accuracy"
REASON_NO_PAIRS = "no pairs of this kind"
REASON_ALL_UNDEFINED = "every pair undefined (both observers constant in every condition)"
REASON_NO_TRIALS = "no trials"
REASON_POOLED_UNDEFINED = "no pair of this kind shares a trial, or all answered every shared trial alike"
LABEL_NAMES = ("scope", "group", "kind", "metric", "observer_1", "observer_2")


@dataclass(frozen=True)
class ExperimentLayout:
    """The observers, pairs and groups of one experiment (its strata share the observer columns).

    Made by :func:`experiment_layouts`.

    Parameters
    ----------
    name : str
        The experiment.
    keys : tuple of tuple of str
        The keys of its strata (one per condition).
    observers : tuple of str
        Its observers, humans first.
    n_humans : int
        How many of them are humans.
    groups : tuple of str
        ``("humans", "model-model", model_1, ...)``.
    group_matrix : numpy.ndarray
        Pairs x groups indicator: which group each pair belongs to.
    first, second : numpy.ndarray
        Observer indices of every pair (:func:`~humanlike.measures.pairs.correctness_sums.pair_indices` order).

    Examples
    --------
    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> layout = experiment_layouts(design)[0]
    >>> layout.groups, layout.n_pairs, layout.pair_kinds().tolist()
    (('humans', 'model-model', 'm'), 3, ['human-human', 'model-human', 'model-human'])
    """

    name: str
    keys: tuple[tuple[str, ...], ...]
    observers: tuple[str, ...]
    n_humans: int
    groups: tuple[str, ...]
    group_matrix: np.ndarray = field(repr=False)   # pairs x groups indicator
    first: np.ndarray = field(repr=False)
    second: np.ndarray = field(repr=False)

    @property
    def models(self) -> tuple[str, ...]:
        """Model names of the experiment, in column order."""
        return self.observers[self.n_humans:]

    @property
    def n_pairs(self) -> int:
        """Number of observer pairs in the experiment."""
        return int(self.first.size)

    @cached_property
    def pair_order(self) -> tuple[np.ndarray, np.ndarray]:
        """Pairs sorted by group, and each group's (start, stop) in that order (every pair is in one group)."""
        group_of_pair = np.argmax(self.group_matrix, axis=1)
        order = np.argsort(group_of_pair, kind="stable")
        bounds = np.searchsorted(group_of_pair[order], np.arange(self.group_matrix.shape[1] + 1))
        return order, bounds

    def pair_kinds(self) -> np.ndarray:
        """Kind of every pair: ``human-human``, ``model-human`` or ``model-model``.

        Returns
        -------
        numpy.ndarray of str
            One kind per pair, shape (P,).
        """
        human = np.arange(len(self.observers)) < self.n_humans
        a, b = human[self.first], human[self.second]
        return np.where(a & b, "human-human", np.where(~a & ~b, "model-model", "model-human"))


def experiment_layouts(design: Design) -> list[ExperimentLayout]:
    """One layout per experiment (first key field) of a design built with ``group_by=("experiment",)``.

    Parameters
    ----------
    design : Design
        A design whose strata are keyed (experiment, ...), humans as the observer group and first.

    Returns
    -------
    list of ExperimentLayout
        Sorted by experiment name.

    Raises
    ------
    ValueError
        When the humans are not the first observers of an experiment.

    Examples
    --------
    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> [(layout.name, layout.observers) for layout in experiment_layouts(design)]
    [('e', ('h1', 'h2', 'm'))]
    """
    by_experiment: dict[str, list[Stratum]] = {}
    for s in design:
        by_experiment.setdefault(s.key[0], []).append(s)
    layouts = []
    for name, strata in sorted(by_experiment.items()):
        observers = strata[0].observers
        n_humans = int(strata[0].group_columns.size)
        if not np.array_equal(strata[0].group_columns, np.arange(n_humans)):
            raise ValueError(f"experiment '{name}': the humans must come first among the observers")
        first, second = pair_indices(len(observers))
        is_human = np.arange(len(observers)) < n_humans
        models = observers[n_humans:]
        matrix = np.zeros((first.size, 2 + len(models)))
        matrix[:, 0] = is_human[first] & is_human[second]
        matrix[:, 1] = ~is_human[first] & ~is_human[second]
        for k in range(len(models)):
            m = n_humans + k
            matrix[:, 2 + k] = ((first == m) & is_human[second]) | ((second == m) & is_human[first])
        layouts.append(ExperimentLayout(name, tuple(s.key for s in strata), observers, n_humans,
                                        (HUMANS, MODEL_MODEL) + tuple(models), matrix, first, second))
    return layouts


def group_kind(group: str) -> str:
    """``human-human``, ``model-model`` or ``model-human`` for a summary group name.

    Parameters
    ----------
    group : str
        ``"humans"``, ``"model-model"`` or a model's name.

    Returns
    -------
    str
        The kind of the pairs the group averages.

    Examples
    --------
    >>> group_kind("humans"), group_kind("model-model"), group_kind("resnet50")
    ('human-human', 'model-model', 'model-human')
    """
    if group == HUMANS:
        return "human-human"
    if group == MODEL_MODEL:
        return "model-model"
    return "model-human"


class PairAggregation:
    """The one aggregation of pairwise measures: pairs -> condition mean -> experiment groups -> overall.

    Call it with the kernel outputs of all strata (``{key: (R|1 x width)}``) to get the (R x K) output
    columns; :attr:`output` names them. Columns: for each metric (the kernel's measures, then
    ``ood_accuracy``), every (experiment, group) and then every (``overall``, group); with ``pair_columns``
    also, per experiment, every pair's condition-mean of the first measure (error consistency for the EC
    kernel; one measure keeps the kept replicates of all pairs of all experiments small).

    Parameters
    ----------
    design : Design
        The design of (experiment, condition) strata (see :func:`experiment_layouts`).
    measures : tuple of str
        The kernel's measures, in its output order.
    pair_columns : bool
        Also output each pair's condition mean (for pair intervals from the same resamples).

    Notes
    -----
    When ``measures`` include the :data:`~humanlike.measures.pairs.correctness_sums.POOL_COUNTS` (an
    :class:`~humanlike.measures.pairs.kernels.ErrorConsistencyKernel` made with ``pooled=True``), a group's
    error consistency is **pooled**: per condition, :func:`pooled_kappa` of the group's pairs' summed 2x2 tables
    (each pair weighted by the trials it shares), then the mean over the conditions where it is defined. The
    counts are not output columns. The other measures and the pair columns stay means over pairs.

    Examples
    --------
    One experiment with two humans and one model: no model–model pair, so that group is NaN.

    >>> import pandas as pd
    >>> from humanlike.measures.pairs.design import pair_design
    >>> correct = {"h1": [1, 1, 0, 0], "h2": [1, 0, 0, 1], "m": [1, 1, 1, 0]}   # two humans, one model
    >>> trials = pd.DataFrame([dict(observer=o, observer_kind="model" if o == "m" else "human", experiment="e",
    ...                             condition="c", item=f"i{k}", label="cat", response="cat" if c else "dog",
    ...                             correct=bool(c)) for o, cs in correct.items() for k, c in enumerate(cs)])
    >>> design = pair_design(trials)
    >>> stratum = design.stratum(("e", "c"))
    >>> import numpy as np
    >>> from humanlike.measures.pairs.kernels import ErrorConsistencyKernel
    >>> kernel = ErrorConsistencyKernel()
    >>> aggregate = PairAggregation(design, kernel.measures)
    >>> values = aggregate({stratum.key: kernel.evaluate(stratum, np.ones((1, 4)), None)})
    >>> [label[:2] for label in aggregate.output.labels[:3]], values[0, :3].tolist()  # EC per group
    ([('e', 'humans'), ('e', 'model-model'), ('e', 'm')], [0.0, nan, 0.0])
    >>> aggregate.reasons(values[0])[1]
    'no pairs of this kind'
    """

    def __init__(self, design: Design, measures: tuple[str, ...], pair_columns: bool = False) -> None:
        self.kernel_measures = tuple(measures)       # the kernel's blocks, in its output order
        self.measures = tuple(m for m in measures if m not in POOL_COUNTS)
        self.pooled = all(m in measures for m in POOL_COUNTS)
        self.metrics = self.measures + (OOD_ACCURACY,)
        self.layouts = experiment_layouts(design)
        self.pair_columns = pair_columns
        self.all_groups = (HUMANS, MODEL_MODEL) + tuple(sorted({m for e in self.layouts for m in e.models}))
        self.columns = ([(e.name, g) for e in self.layouts for g in e.groups]
                        + [("overall", g) for g in self.all_groups])
        self.n_pairs = {(e.name, g): int(e.group_matrix[:, k].sum())
                        for e in self.layouts for k, g in enumerate(e.groups)}
        for g in self.all_groups:
            self.n_pairs[("overall", g)] = sum(self.n_pairs.get((e.name, g), 0) for e in self.layouts)
        # per overall group, its columns among the experiments' columns (which come first in self.columns)
        per_experiment = self.columns[:sum(len(e.groups) for e in self.layouts)]
        self.overall_columns = [[k for k, (_, group) in enumerate(per_experiment) if group == g] for g in self.all_groups]
        labels = [(scope, group, group_kind(group), metric, "", "")
                  for metric in self.metrics for scope, group in self.columns]
        if pair_columns:
            for e in self.layouts:
                names, kinds = np.asarray(e.observers), e.pair_kinds()
                labels += [(e.name, PAIR, str(kind), metric, str(a), str(b)) for metric in self.measures[:1]
                           for a, b, kind in zip(names[e.first], names[e.second], kinds)]
        self.output = Output(labels, LABEL_NAMES, reasons=self.reasons)

    def reasons(self, estimate: np.ndarray) -> np.ndarray:
        """Why each undefined estimate is undefined (``""`` where defined).

        Parameters
        ----------
        estimate : numpy.ndarray
            One value per output column, shape (K,).

        Returns
        -------
        numpy.ndarray of object
            One reason per column: ``""``, :data:`REASON_NO_PAIRS`, :data:`REASON_ALL_UNDEFINED` or
            :data:`REASON_NO_TRIALS`.
        """
        out = np.full(estimate.size, "", dtype=object)
        for k, (scope, group, _, metric, _, _) in enumerate(self.output.labels):
            if np.isfinite(estimate[k]):
                continue
            if group == PAIR:
                out[k] = REASON_ALL_UNDEFINED
            elif metric != OOD_ACCURACY and self.n_pairs[(scope, group)] == 0:
                out[k] = REASON_NO_PAIRS
            elif metric == "error_consistency" and self.pooled:
                out[k] = REASON_POOLED_UNDEFINED
            elif metric == "error_consistency":
                out[k] = REASON_ALL_UNDEFINED
            else:
                out[k] = REASON_NO_TRIALS
        return out

    def experiment_values(self, layout: ExperimentLayout, values, rows: int):
        """The group values and the pair condition means of one experiment.

        Parameters
        ----------
        layout : ExperimentLayout
            The experiment.
        values : dict
            Kernel outputs ``{stratum key: (R|1 x width)}``.
        rows : int
            R, the number of rows to broadcast to.

        Returns
        -------
        group_values : dict of str to numpy.ndarray
            Per metric (the measures and ``ood_accuracy``), (rows x groups) in :attr:`ExperimentLayout.groups`
            order (for ``ood_accuracy``: humans, mean of the models, each model).
        pair_means : dict of str to numpy.ndarray
            Per measure, every pair's NaN-skipping mean over the conditions (rows x P).
        """
        n_obs, n_pairs, n_m = len(layout.observers), layout.n_pairs, len(self.kernel_measures)
        blocks = [np.asarray(values[k]) for k in layout.keys]

        def block(b, measure):
            j = self.kernel_measures.index(measure)
            return np.broadcast_to(b[:, j * n_pairs:(j + 1) * n_pairs], (rows, n_pairs))

        pair_means = {m: nanmean_quiet(np.stack([block(b, m) for b in blocks]), axis=0) for m in self.measures}
        offset = n_m * n_pairs
        correct = sum(np.broadcast_to(b[:, offset:offset + n_obs], (rows, n_obs)) for b in blocks)
        answered = sum(np.broadcast_to(b[:, offset + n_obs:offset + 2 * n_obs], (rows, n_obs)) for b in blocks)
        # Observer weights are the same in every stratum of the experiment; take the most specific block.
        weights_block = max(blocks, key=lambda b: b.shape[0])
        human_w = np.broadcast_to(weights_block[:, offset + 2 * n_obs:], (rows, layout.n_humans))
        pair_w = None
        if not np.all(human_w == 1.0):
            obs_w = np.concatenate([human_w, np.ones((rows, n_obs - layout.n_humans))], axis=1)
            pair_w = obs_w[:, layout.first] * obs_w[:, layout.second]
        out = {m: _grouped_mean(pair_means[m], *layout.pair_order, pair_w) for m in self.measures}
        if self.pooled:
            per_condition = [pooled_kappa(*(_grouped_sum(block(b, c), *layout.pair_order, pair_w) for c in POOL_COUNTS))
                             for b in blocks]
            out["error_consistency"] = nanmean_quiet(np.stack(per_condition), axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = correct / answered
            human_acc = accuracy[:, :layout.n_humans]
            mean_human = np.nansum(human_acc * human_w, axis=1) / np.sum(human_w * ~np.isnan(human_acc), axis=1)
        model_acc = accuracy[:, layout.n_humans:]
        mean_model = nanmean_quiet(model_acc, axis=1) if model_acc.shape[1] else np.full(rows, np.nan)
        out[OOD_ACCURACY] = np.column_stack([mean_human, mean_model, model_acc])
        return out, pair_means

    def __call__(self, values) -> np.ndarray:
        rows = max(np.shape(v)[0] for v in values.values())
        per_metric = {m: [] for m in self.metrics}
        pair_parts = []
        for layout in self.layouts:
            # An experiment whose strata all come as one row (the item jackknife's other experiments) is
            # computed once and broadcast: its cost does not grow with the rows of another experiment.
            layout_rows = max(np.shape(values[k])[0] for k in layout.keys)
            out, pair_means = self.experiment_values(layout, values, layout_rows)
            for m in self.metrics:
                per_metric[m].append(np.broadcast_to(out[m], (rows, out[m].shape[1])))
            if self.pair_columns:
                means = pair_means[self.measures[0]]
                pair_parts.append(np.broadcast_to(means, (rows, means.shape[1])))
        result = []
        for m in self.metrics:
            experiments = np.concatenate(per_metric[m], axis=1)
            overall = [nanmean_quiet(experiments[:, idx], axis=1) for idx in self.overall_columns]
            result += [experiments, np.column_stack(overall)]
        return np.concatenate(result + pair_parts, axis=1)


def pooled_kappa(trials, agreements, correct) -> np.ndarray:
    """Error consistency of a pooled 2x2 table: kappa with one chance agreement from the pooled accuracy.

    ``trials``, ``agreements`` and ``correct`` are sums over pairs of each pair's shared trials, agreements on
    them and the two observers' right answers on them (:data:`~humanlike.measures.pairs.correctness_sums.POOL_COUNTS`).
    Observed agreement ``p_o = agreements / trials``; pooled accuracy ``p = correct / (2 trials)``; chance
    agreement ``p_e = p^2 + (1 - p)^2``; kappa ``(p_o - p_e) / (1 - p_e)``. NaN where no trial is shared or
    ``p_e = 1`` (every answer right, or every answer wrong). A ratio of sums: pairs weigh by the trials they
    share, and the chance agreement comes from all pairs' trials rather than each pair's few ones.

    Parameters
    ----------
    trials, agreements, correct : array_like
        Pooled counts (any shape, the same for the three).

    Returns
    -------
    numpy.ndarray
        The pooled error consistency, of their shape.

    Examples
    --------
    Two pairs: 3 agreements on 4 shared trials with 4 right answers, and 1 of 2 with 2 right answers:
    p_o = 4/6, p = 6/12, p_e = 1/2, kappa = 1/3.

    >>> round(float(pooled_kappa(4 + 2, 3 + 1, 4 + 2)), 6)
    0.333333
    """
    trials, agreements, correct = (np.asarray(x, dtype=float) for x in (trials, agreements, correct))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = agreements / trials
        accuracy = correct / (2.0 * trials)
        chance = accuracy ** 2 + (1.0 - accuracy) ** 2
        kappa = (observed - chance) / (1.0 - chance)
    return np.where((trials > 0) & (chance < 1.0), kappa, np.nan)


def _grouped_sum(values: np.ndarray, order: np.ndarray, bounds: np.ndarray,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """Weighted sum of pair values within each group, (R x P) -> (R x G); an empty group sums to 0."""
    values = np.asarray(values, dtype=float)[:, order]
    if weights is not None:
        values = values * np.broadcast_to(weights, (values.shape[0], weights.shape[-1]))[:, order]
    n_groups = bounds.size - 1
    out = np.zeros((values.shape[0], n_groups))
    nonempty = np.flatnonzero(bounds[1:] > bounds[:-1])
    if nonempty.size:
        out[:, nonempty] = np.add.reduceat(values, bounds[nonempty], axis=1)
    return out


def _grouped_mean(values: np.ndarray, order: np.ndarray, bounds: np.ndarray,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """NaN-skipping weighted mean of pair values within each group, (R x P) -> (R x G).

    Pairs ``order[bounds[g]:bounds[g+1]]`` form group g (each pair in exactly one group); a group with no
    defined value, or no weight, gives NaN. Same numbers as ``stats.resampling.group_mean`` with an
    indicator matrix, without the dense product.
    """
    values = values[:, order]
    valid = ~np.isnan(values)
    num = np.where(valid, values, 0.0)
    if weights is None:
        w = valid
    else:
        weights = np.broadcast_to(weights, values.shape)[:, order]
        w = weights * valid
        num *= weights
    n_groups = bounds.size - 1
    out = np.full((values.shape[0], n_groups), np.nan)
    nonempty = np.flatnonzero(bounds[1:] > bounds[:-1])
    if nonempty.size:
        starts = bounds[nonempty]
        total = np.add.reduceat(num, starts, axis=1)
        weight = np.add.reduceat(w, starts, axis=1, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, nonempty] = np.where(weight > 0, total / weight, np.nan)
    return out
