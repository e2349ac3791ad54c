"""The DMC kernel of the resampling engine and the one DMC aggregation (conditions -> experiment -> overall).

:class:`DMCKernel` gives, per stratum (experiment x condition) and weights, the condition's columns
(:func:`humanlike.measures.dmc.metric.condition_columns`): the split-half ceiling, the raw split-half r, the human
accuracy, the mean over model pairs, the mean over models, then each model's DMC with the pooled human index and
its accuracy. Pearson on the accuracy index with the same number of responses per item (the usual design) runs
on sufficient statistics (one matrix product per chunk; the item jackknife is exact and cheap); every other
option runs the explicit item vectors. In bootstrap resamples the ceiling is the mean over a random subset of
``bootstrap_splits`` splits, drawn per resample from ``stream(seed, "splits", experiment, block)``.

:class:`DMCAggregation` maps the kernel outputs of all strata to the output columns, in the order of the
summary: per experiment its conditions' columns and their mean (NaN-skipping) over conditions, then the overall
mean over experiments.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...trials.design import Design, Stratum
from ...trials.summary_rows import summary_row
from .metric import condition_columns, condition_values, pooled_statistics, uniform_trials, values_from_sums
from ...resampling.draws import BLOCK, random_subsets
from ...resampling.kernels import SufficientStatisticKernel
from ...resampling.weights import nanmean_quiet
from .data import DMCExperiment
from ..pairs.aggregation import HUMANS, MODEL_MODEL, group_kind

DMC = "decision_margin_consistency"
SPLIT_HALF_R = "split_half_r"
ACCURACY = "accuracy"
MODEL_HUMAN_MEAN = summary_row("model-human (mean)")
LABEL_NAMES = ("level", "scope", "condition", "group", "kind", "metric")
FIXED_GROUPS = (HUMANS, MODEL_MODEL, MODEL_HUMAN_MEAN)


def nanmean_blocks(blocks: list[np.ndarray]) -> np.ndarray:
    """Elementwise mean of equally shaped (R x k) arrays skipping NaN; NaN where all are NaN.

    The same numbers, bit for bit, as ``np.nanmean(np.stack(blocks, axis=1), axis=1)``: numpy adds along that
    axis in order, which this does without the stacked copy. Where numpy may add in another order (one column;
    broadcast blocks, which ``np.stack`` lays out differently) the call goes through numpy.

    Parameters
    ----------
    blocks : list of numpy.ndarray
        Arrays of one shape (R x k), e.g. a value per resample and column for each condition.

    Returns
    -------
    numpy.ndarray
        (R x k) means over the blocks, skipping NaN.

    Examples
    --------
    >>> nanmean_blocks([np.array([[1.0, np.nan]]), np.array([[3.0, np.nan]])]).tolist()
    [[2.0, nan]]
    """
    if (len(blocks) == 0 or blocks[0].ndim != 2 or blocks[0].shape[1] < 2
            or not all(b.flags.c_contiguous for b in blocks)):
        return nanmean_quiet(np.stack(blocks, axis=1), axis=1)
    total = count = None
    for block in blocks:
        missing = np.isnan(block)
        if total is None:
            total = np.where(missing, 0.0, block)
            count = (~missing).astype(np.intp)
        else:
            total += np.where(missing, 0.0, block)
            count += ~missing
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(total, count)


def experiment_columns(experiment: DMCExperiment) -> list[tuple[str, str]]:
    """(group, metric) of each kernel output column of a stratum of ``experiment``.

    Parameters
    ----------
    experiment : DMCExperiment
        The experiment (its kept models set the columns after the five fixed ones).

    Returns
    -------
    list of tuple of str
        Humans' DMC ceiling, split-half r and accuracy; model–model DMC; mean model–human DMC; then DMC and
        accuracy of each model.

    Examples
    --------
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])   # 6 humans, 5 models, 4 conditions
    >>> columns = experiment_columns(data.experiments["sim-blur"])
    >>> len(columns), columns[1], columns[5]
    (15, ('humans', 'split_half_r'), ('model-alien', 'decision_margin_consistency'))
    """
    cols = [(HUMANS, DMC), (HUMANS, SPLIT_HALF_R), (HUMANS, ACCURACY), (MODEL_MODEL, DMC), (MODEL_HUMAN_MEAN, DMC)]
    for m in experiment.models:
        cols += [(m, DMC), (m, ACCURACY)]
    return cols


class DMCKernel(SufficientStatisticKernel):
    """Engine kernel: a stratum's DMC columns under item weights (R x items) and human weights (R x humans).

    Parameters
    ----------
    experiments : Mapping[tuple, DMCExperiment]
        Observer-group key (``(experiment,)``) -> the experiment's humans, models, splits and d' table.
    method : {"pearson", "spearman"}
        The correlation of the DMC.
    bootstrap_splits : int or None
        Splits evaluated per bootstrap resample (a random subset; None: all). Estimates and jackknife rows
        always use every split.

    Examples
    --------
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])   # 6 humans, 5 models, 4 conditions
    >>> kernel = DMCKernel({(name,): e for name, e in data.experiments.items()})
    >>> stratum = data.design.stratum(("sim-blur", "0"))
    >>> values = kernel.evaluate(stratum, np.ones((1, stratum.n_items)), None)
    >>> values.shape, values[0, :3].round(3).tolist()   # humans' DMC ceiling, split-half r, accuracy
    ((1, 15), [0.801, 0.67, 0.839])
    """

    measure = "decision-margin consistency"  # names the engine's undefined-share warning

    def __init__(self, experiments: Mapping[tuple, DMCExperiment], method: str = "pearson",
                 bootstrap_splits: int | None = 32) -> None:
        super().__init__()
        self.experiments = dict(experiments)
        self.method = method
        self.bootstrap_splits = bootstrap_splits
        self._layouts: dict[tuple, object] = {}
        self._observer_cache: dict[tuple, tuple] = {}

    # -- the arrays of a stratum, in the (observers x items) orientation of the metric functions
    @staticmethod
    def _arrays(stratum: Stratum):
        a = stratum.arrays
        return a["correct"].T, a["trials"].T, a["margin"].T, a["model_correct"].T

    def experiment(self, stratum: Stratum) -> DMCExperiment:
        """The experiment a stratum belongs to.

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        DMCExperiment
            The experiment of the stratum's observer group.
        """
        return self.experiments[stratum.group]

    def pooled(self, stratum: Stratum) -> bool:
        """Whether the stratum runs on sufficient statistics (Pearson, accuracy index, uniform responses).

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        bool
            True for the fast pooled path, False for the explicit item vectors.
        """
        return (self.method == "pearson" and self.experiment(stratum).table is None
                and uniform_trials(stratum.arrays["trials"].T))

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them.

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        numpy.ndarray
            (items x S) pooled cross products (see :func:`humanlike.measures.dmc.metric.pooled_statistics`).
        """
        # Every observer once (item resamples, the estimate, the item jackknife): pooled cross products.
        stats, layout = pooled_statistics(*self._arrays(stratum), per_observer=False)
        self._layouts[stratum.key] = layout
        return stats

    def observer_statistics(self, stratum: Stratum) -> tuple[np.ndarray, object]:
        """Statistics with per-observer cross products, for observer weights (observer bootstrap, jackknife).

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        (statistics, layout) : tuple
            The (items x S') statistics and the layout naming their columns; cached per stratum.
        """
        if stratum.key not in self._observer_cache:
            self._observer_cache[stratum.key] = pooled_statistics(*self._arrays(stratum), per_observer=True)
        return self._observer_cache[stratum.key]

    def width(self, stratum: Stratum) -> int:
        """Number of values this kernel yields for one stratum.

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        int
            5 + 2 x the number of kept models.
        """
        return 5 + 2 * len(self.experiment(stratum).models)

    def bytes_per_resample(self, stratum: Stratum) -> int:
        """Memory one resample of this stratum needs while evaluated (sets the engine's chunk size).

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        int
            Bytes per resample (an upper estimate).
        """
        exp = self.experiment(stratum)
        n_h, n_m, n_i = len(exp.humans), len(exp.models), stratum.n_items
        n_s = max(exp.splits.shape[0], 1)
        n_sub = min(n_s, self.bootstrap_splits or n_s)
        if self.pooled(stratum):
            n_stats = 1 + n_h + n_h * (n_h + 1) // 2 + n_m + n_m * (n_m + 1) // 2 + n_m * n_h + n_m
            return 8 * (2 * n_i + n_stats + 3 * n_h * n_h + 8 * n_s + 4 * n_sub * n_h + 4 * n_m * n_m + 12 * n_m + 16)
        return 8 * (4 * n_i * (n_m + 1) + 6 * n_sub * n_i + 3 * n_sub * n_h + 4 * n_m * n_m + 12 * n_m + 16)

    # -- evaluation
    def values(self, stratum: Stratum, item_weights: np.ndarray, observer_weights: np.ndarray | None,
               split_index: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Per-split, per-pair and per-model values (see :func:`humanlike.measures.dmc.metric.condition_values`).

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).
        item_weights : numpy.ndarray
            Item weights (R x items): bootstrap counts, or ones for the estimate.
        observer_weights : numpy.ndarray or None
            Weights of the experiment's humans (R x humans, or 1 x humans); None means all ones.
        split_index : numpy.ndarray, optional
            (R x k) indices of the splits each row uses; None: every split.

        Returns
        -------
        dict of str to numpy.ndarray
            ``hh`` and ``hh_r`` (R x splits), ``acc_h`` (R,), ``mm`` (R x model pairs), ``mh`` and ``acc_m``
            (R x models).
        """
        exp = self.experiment(stratum)
        w = np.asarray(item_weights, dtype=np.float64)
        u = observer_weights
        if u is not None and (u.shape[1] == 0 or (u.shape[0] == 1 and np.all(u == 1.0))):
            u = None
        if self.pooled(stratum):
            if u is None:
                stats = self.cached_statistics(stratum)
                layout = self._layouts[stratum.key]
            else:
                stats, layout = self.observer_statistics(stratum)
            return values_from_sums(w @ stats, layout, stratum.arrays["margin"].T, exp.splits,
                                    lambda rows: w[rows], u, split_index)
        if u is not None and u.shape[0] != w.shape[0]:
            u = np.broadcast_to(u, (w.shape[0], u.shape[1]))
        return condition_values(*self._arrays(stratum), exp.splits, w, u, split_index, self.method, exp.table)

    def evaluate(self, stratum, item_weights, observer_weights):
        """Values of one stratum under item weights and observer weights.

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).
        item_weights : numpy.ndarray
            Item weights (R x items): bootstrap counts, or ones for the estimate.
        observer_weights : numpy.ndarray or None
            Weights of the experiment's humans (R x humans, or 1 x humans); None means all ones.

        Returns
        -------
        numpy.ndarray
            (R x :meth:`width`), columns as :func:`experiment_columns`.
        """
        return condition_columns(self.values(stratum, item_weights, observer_weights))

    def evaluate_resamples(self, stratum, item_weights, observer_weights, seed, start, stop):
        """Values of one stratum for resamples start..stop-1, drawing the split subsets from per-key streams.

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).
        item_weights : numpy.ndarray
            Item weights (R x items): bootstrap counts, or ones for the estimate.
        observer_weights : numpy.ndarray or None
            Weights of the experiment's humans (R x humans, or 1 x humans); None means all ones.
        seed : int
            The root seed of the split-subset streams.
        start, stop : int
            Absolute positions of the resamples (``item_weights`` has stop - start rows).

        Returns
        -------
        numpy.ndarray
            ((stop - start) x :meth:`width`).
        """
        # Matrix products (BLAS) may round a row differently depending on where it sits in the matrix; the
        # rows are therefore evaluated in whole blocks of BLOCK resamples at their absolute positions (a chunk
        # that does not cover whole blocks is padded), so a resample's value never depends on the chunking.
        n_rows = stop - start
        offset = start % BLOCK
        padded = -(-(offset + n_rows) // BLOCK) * BLOCK
        w, u = item_weights, observer_weights
        if padded != n_rows:
            w = np.ones((padded, item_weights.shape[1]), dtype=item_weights.dtype)
            w[offset:offset + n_rows] = item_weights
            if u is not None and u.shape[0] == n_rows and n_rows > 1:
                u = np.ones((padded, u.shape[1]))
                u[offset:offset + n_rows] = observer_weights
        exp = self.experiment(stratum)
        n_splits = exp.splits.shape[0]
        split_index = None
        if self.bootstrap_splits is not None and n_splits > self.bootstrap_splits:
            split_index = random_subsets(seed, ("splits",) + stratum.group, n_splits, self.bootstrap_splits,
                                         start - offset, start - offset + padded)
        return condition_columns(self.values(stratum, w, u, split_index))[offset:offset + n_rows]

    def leave_one_out(self, stratum: Stratum) -> np.ndarray:
        """Exact leave-one-item-out values of one stratum (items x width), for the BCa acceleration.

        Parameters
        ----------
        stratum : Stratum
            A DMC stratum (from :func:`~humanlike.measures.dmc.data.assemble`).

        Returns
        -------
        numpy.ndarray
            (items x :meth:`width`): row i is the stratum's values without item i.
        """
        n = stratum.n_items
        if self.pooled(stratum):
            stats = self.cached_statistics(stratum)
            sums = stats.sum(axis=0)[None, :] - stats
            exp = self.experiment(stratum)

            def weights(rows):
                w = np.ones((len(rows), n))
                w[np.arange(len(rows)), rows] = 0.0
                return w

            return condition_columns(values_from_sums(sums, self._layouts[stratum.key], stratum.arrays["margin"].T,
                                                      exp.splits, weights))
        step = max(1, (64 * 1024**2) // max(self.bytes_per_resample(stratum), 1))
        rows = []
        for lo in range(0, n, step):
            w = np.ones((min(step, n - lo), n))
            w[np.arange(w.shape[0]), np.arange(lo, lo + w.shape[0])] = 0.0
            rows.append(self.evaluate(stratum, w, None))
        return np.concatenate(rows)


class DMCAggregation:
    """The one DMC aggregation: condition columns, their mean per experiment, the mean over experiments.

    Called by the engine with ``{stratum key: (R|1 x k)}``; returns (R x K) in the order of :attr:`labels`
    (``level, scope, condition, group, kind, metric``). Means skip undefined (NaN) values.

    Parameters
    ----------
    design : Design
        The DMC design (kept for the engine's interface; the layout comes from ``experiments``).
    experiments : mapping of str to DMCExperiment
        The experiments by name.

    Examples
    --------
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])   # 6 humans, 5 models, 4 conditions
    >>> aggregate = DMCAggregation(data.design, data.experiments)
    >>> len(aggregate.labels)   # 15 columns x (4 conditions + the experiment mean + overall)
    90
    >>> aggregate.labels[-1][:4]
    ('overall', 'overall', '', 'model-texture')
    """

    def __init__(self, design: Design, experiments: Mapping[str, DMCExperiment]) -> None:
        self.experiments = [experiments[name] for name in sorted(experiments)]
        self.columns = {e.name: experiment_columns(e) for e in self.experiments}
        groups: list[tuple[str, str]] = []
        for e in self.experiments:
            groups += [c for c in self.columns[e.name] if c not in groups]
        fixed = [g for g in groups if g[0] in FIXED_GROUPS]
        self.overall_groups = fixed + sorted(g for g in groups if g not in fixed)
        self._overall_index = {e.name: [self.overall_groups.index(c) for c in self.columns[e.name]]
                               for e in self.experiments}
        labels = []
        for e in self.experiments:
            for key in e.keys:
                labels += [("condition", e.name, key[1], g, group_kind(g), m) for g, m in self.columns[e.name]]
            labels += [("experiment", e.name, "", g, group_kind(g), m) for g, m in self.columns[e.name]]
        labels += [("overall", "overall", "", g, group_kind(g), m) for g, m in self.overall_groups]
        self.labels = labels
        self.label_names = LABEL_NAMES

    def __call__(self, values: Mapping[tuple, np.ndarray]) -> np.ndarray:
        n_rows = max(np.shape(v)[0] for v in values.values())
        out = np.empty((n_rows, len(self.labels)))
        overall = np.full((n_rows, len(self.experiments), len(self.overall_groups)), np.nan)
        position = 0
        for j, e in enumerate(self.experiments):
            width = len(self.columns[e.name])
            blocks = [np.broadcast_to(values[key], (n_rows, np.shape(values[key])[1])) for key in e.keys]
            for block in blocks:
                out[:, position:position + width] = block
                position += width
            per_experiment = nanmean_blocks(blocks)
            out[:, position:position + width] = per_experiment
            position += width
            overall[:, j, self._overall_index[e.name]] = per_experiment
        out[:, position:] = nanmean_quiet(overall, axis=1)
        return out
