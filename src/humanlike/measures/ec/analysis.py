"""Error consistency over a trial table, with bootstrap intervals through the whole aggregation.

The pipeline (docs/measures/error-consistency.md): per condition, every pairwise EC (and observed consistency and squared
accuracy difference); mean over conditions per pair; per experiment, the human–human mean over unordered
pairs, each model's mean over humans, and the model–model mean; overall, the mean over experiments with
equal weight. It runs through the one resampling engine (:func:`humanlike.resampling.engine.bootstrap`): the
design's strata are the (experiment, condition) cells of first presentations, the kernel is
:class:`~humanlike.measures.pairs.kernels.ErrorConsistencyKernel`, the aggregation
:class:`~humanlike.measures.pairs.aggregation.PairAggregation`. Items are resampled within each condition jointly for
all observers (pairs stay aligned), each condition from its own random stream; optionally the human
observers of each experiment are resampled too (``observer_level="bootstrap"``) or their leave-one-out
spread is added (``"jackknife"``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...trials.design import Design
from ...trials.selection import select_trials
from ...trials.sources import experiments_scored
from ..pairs.correctness_sums import POOL_COUNTS, correctness_counts
from ..pairs.metric import UndefinedPolicy, kappa_reason
from ...resampling.engine import bootstrap, warn_few_items
from ...stats.ranking import ranking_stability
from ...resampling.results import ITEM_JACKKNIFE_INTERVALS, Resampled
from ...resampling.settings import ResamplingSettings
from .significance import ec_test_beta_posterior, ec_test_exact
from .result import PAIR_INTERVALS, ErrorConsistencyResult
from ..pairs.design import pair_design
from ..pairs.kernels import ErrorConsistencyKernel, PairKernel
from ..pairs.aggregation import (
    HUMANS, MODEL_MODEL, PAIR, REASON_ALL_UNDEFINED, REASON_NO_PAIRS, PairAggregation, experiment_layouts,
)

__all__ = [
    "HUMANS", "MODEL_MODEL", "METRICS", "REASON_ALL_UNDEFINED", "REASON_NO_PAIRS",
    "ErrorConsistencyResult", "error_consistency",
    "pair_measures",
]

METRICS = ("error_consistency", "observed_consistency", "accuracy_difference")


P_VALUE_METHODS = ("exact", "beta-posterior", "beta-posterior-published")


def pair_p_values(counts: np.ndarray, method: str = "exact", policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
                  seed: int = 0) -> np.ndarray:
    """Two-sided p-values of independence for 2x2 tables (4 x tables: a, b, c, d).

    ``"exact"``: the exact conditional test (:func:`~humanlike.measures.ec.significance.ec_test_exact`).
    ``"beta-posterior"``: Klein et al.'s simulation test with a uniform prior and ties counted as extreme.
    ``"beta-posterior-published"``: Klein et al.'s published rule — posterior Beta(k, n-k) and only strictly
    more extreme simulated kappas — NaN where that posterior is improper (an observer always right or wrong).

    Parameters
    ----------
    counts : numpy.ndarray
        The 2x2 counts, shape (4, n_tables): both correct, only the first, only the second, both wrong.
    method : {"exact", "beta-posterior", "beta-posterior-published"}
        The test.
    policy : {"strict", "model-vs-human"}
        Kappa's undefined policy (simulation tests only).
    seed : int
        Seed of the simulation tests.

    Returns
    -------
    numpy.ndarray
        One p-value per table, shape (n_tables,).

    Raises
    ------
    ValueError
        On an unknown ``method``.

    Examples
    --------
    Perfect agreement on 20 items with 10 correct each: the two-sided exact p is 2 / C(20, 10).

    >>> import numpy as np
    >>> p = pair_p_values(np.array([[10], [0], [0], [10]]))
    >>> round(float(p[0]) * 184756, 6)
    2.0
    """
    if method not in P_VALUE_METHODS:
        raise ValueError(f"p_value must be one of {P_VALUE_METHODS}, not {method!r}")
    counts = np.asarray(counts)
    shared = counts.sum(axis=0) > 0
    if not shared.all():
        # A pair that shares no trial in a condition (an observer skipped it) has no table and no test.
        out = np.full(shared.shape, np.nan)
        if shared.any():
            out[shared] = pair_p_values(counts[:, shared], method, policy, seed)
        return out
    if method == "exact":
        return ec_test_exact(*counts).p_value
    if method == "beta-posterior":
        return ec_test_beta_posterior(*counts, seed=seed, policy=policy).p_value
    a, b, c, d = counts
    n = a + b + c + d
    k1, k2 = a + b, a + c
    proper = (k1 > 0) & (k1 < n) & (k2 > 0) & (k2 < n)
    out = np.full(n.shape, np.nan)
    if proper.any():
        out[proper] = ec_test_beta_posterior(*(x[proper] for x in counts), seed=seed, policy=policy,
                                             prior=(0.0, 0.0), extreme="greater").p_value
    return out


def _share(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """part / whole, NaN where whole is 0 (a pair without shared trials has no accuracies)."""
    out = np.full(np.shape(whole), np.nan)
    np.divide(part, whole, out=out, where=np.asarray(whole) > 0)
    return out


def pair_measures(design: Design, kernel: PairKernel, p_value: str = "exact", seed: int = 0) -> pd.DataFrame:
    """Per (experiment, condition, pair): the 2x2 counts, accuracies, the kernel's measures and p-values
    (:func:`pair_p_values`).

    Parameters
    ----------
    design : Design
        The design from :func:`pair_design`.
    kernel : PairKernel
        The pair kernel whose ``measures`` become columns (e.g. :class:`ErrorConsistencyKernel`).
    p_value : {"exact", "beta-posterior", "beta-posterior-published"}
        The per-condition test.
    seed : int
        Seed of the simulation tests.

    Returns
    -------
    pandas.DataFrame
        One row per (experiment, condition, unordered pair): experiment, condition, observer_1, observer_2,
        kind_1, kind_2, both_correct, only_1_correct, only_2_correct, both_wrong, accuracy_1, accuracy_2, the
        kernel's measures (with ``reason`` for EC), p_value, pair_kind.

    Examples
    --------
    >>> from humanlike.measures.pairs.kernels import ErrorConsistencyKernel
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> pairs = pair_measures(pair_design(select_trials(trials, experiments=["sim-noise"])), ErrorConsistencyKernel())
    >>> len(pairs)  # 55 pairs of 11 observers x 4 conditions
    220
    >>> first = pairs.iloc[0]
    >>> [int(first[k]) for k in ("both_correct", "only_1_correct", "only_2_correct", "both_wrong")]
    [120, 17, 13, 10]
    >>> round(float(first["observed_consistency"]), 4)  # (120 + 10) / 160
    0.8125
    """
    frames = []
    for layout in experiment_layouts(design):
        names = np.asarray(layout.observers)
        human = np.arange(names.size) < layout.n_humans
        kinds = np.where(human, "human", "model")
        for key in layout.keys:
            s = design.stratum(key)
            total = kernel.cached_statistics(s).sum(axis=0, keepdims=True, dtype=np.float64)
            masked = kernel.masked(s)
            counts = correctness_counts(total, names.size, masked)
            values = kernel.pair_values(total, names.size, masked)
            a = counts["both"][0]
            b = counts["first"][0] - a
            c = counts["second"][0] - a
            d = counts["trials"][0] - a - b - c
            frame = pd.DataFrame({
                "experiment": key[0], "condition": key[1],
                "observer_1": names[layout.first], "observer_2": names[layout.second],
                "kind_1": kinds[layout.first], "kind_2": kinds[layout.second],
                "both_correct": a.astype(int), "only_1_correct": b.astype(int),
                "only_2_correct": c.astype(int), "both_wrong": d.astype(int),
                "accuracy_1": _share(counts["first"][0], counts["trials"][0]),
                "accuracy_2": _share(counts["second"][0], counts["trials"][0])})
            for m in (m for m in kernel.measures if m not in POOL_COUNTS):
                frame[m] = values[m][0]
                if m == "error_consistency":
                    frame["reason"] = (kappa_reason(a, b, c, d) if kernel.policy is UndefinedPolicy.STRICT
                                       else "")
            frames.append(frame)
    pairs = pd.concat(frames, ignore_index=True)
    counts = pairs[["both_correct", "only_1_correct", "only_2_correct", "both_wrong"]].to_numpy().T
    # A pair that shared no trial in a condition (a Latin-square design shows them other conditions) has no test.
    shared = counts.sum(axis=0) > 0
    pairs["p_value"] = np.nan
    if shared.any():
        pairs.loc[shared, "p_value"] = pair_p_values(counts[:, shared], p_value, kernel.policy, seed)
    pairs["pair_kind"] = np.where(
        (pairs["kind_1"] == "human") & (pairs["kind_2"] == "human"), "human-human",
        np.where((pairs["kind_1"] == "model") & (pairs["kind_2"] == "model"), "model-model", "model-human"))
    return pairs


#: EC's default settings: the studentized jackknife interval (``jackknife-t``) for every aggregate. The
#: percentile interval covers EC averaged over conditions and observers as little as 0.69 at a nominal 0.95 in
#: the benchmark's regime; ``jackknife-t`` at least 0.93 (docs/measures/error-consistency.md, docs/ec_coverage.md).
#: A pair that is one 2x2 table keeps its profile-likelihood interval (``pair_interval``).
DEFAULT_SETTINGS = ResamplingSettings(interval="jackknife-t")


def error_consistency(
    trials: pd.DataFrame,
    *,
    experiments: list[str] | None = None,
    condition: str | None = None,
    exclusions: dict[str, tuple[str, ...]] | None = None,
    settings: ResamplingSettings | None = None,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
    pair_intervals: bool = False,
    pair_interval: str = "profile",
    p_value: str = "exact",
    pool_pairs: bool = False,
    validate: bool = True,
) -> ErrorConsistencyResult:
    """Pairwise error consistency with bootstrap intervals through the whole aggregation.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (see :mod:`humanlike.trials.schema`).
    experiments : list of str, optional
        Restrict to these experiments. Each experiment's numbers (intervals included) do not depend on
        which others are selected.
    condition : str, optional
        Restrict to this one condition.
    exclusions : dict, optional
        ``{experiment: conditions}`` to drop first (:data:`~humanlike.trials.selection.MODELVSHUMAN_EXCLUSIONS` for the benchmark).
    settings : ResamplingSettings, optional
        Resamples, level, interval method, observer level, seed, memory budget, progress (default
        :data:`DEFAULT_SETTINGS`: 10,000 resamples, the ``jackknife-t`` interval for the aggregates).
    policy : {"strict", "model-vs-human"}
        What kappa is where it is undefined (:class:`~humanlike.measures.pairs.metric.UndefinedPolicy`).
    pair_intervals : bool
        Also give every experiment pair's condition-averaged EC an interval (same resamples).
    pair_interval : {"profile", "bootstrap"}
        The interval of a pair whose EC is one 2x2 table (its experiment has one condition, or ``condition``
        is given): ``"profile"`` (default) the profile-likelihood interval
        (:func:`humanlike.measures.ec.interval.ec_profile_interval`), which holds its level where errors are few
        (docs/ec_coverage.md); ``"bootstrap"`` the settings' bootstrap interval. Pairs averaged over several
        conditions and every aggregate keep the bootstrap through the aggregation.
    p_value : {"exact", "beta-posterior", "beta-posterior-published"}
        The per-condition test of independence in :attr:`ErrorConsistencyResult.pairs` (:func:`pair_p_values`;
        the simulation tests use the settings' seed).
    pool_pairs : bool
        Each group's error consistency per condition is the kappa of its pairs' pooled 2x2 table
        (:func:`humanlike.measures.pairs.aggregation.pooled_kappa`: pairs weighted by the trials they share,
        one chance agreement from all of them), then the mean over conditions; for designs whose pairs share
        few trials, where the mean of pair kappas is biased towards 0 (docs/measures/error-consistency.md,
        "Sparse designs"). Default False: the mean over pairs of each pair's kappa. Pairs keep their own
        kappas either way.
    validate : bool
        Validate the trial table first.

    Returns
    -------
    ErrorConsistencyResult

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=200, seed=1))
    >>> row = r.table("error_consistency").set_index("group").loc["humans"]
    >>> bool(row["ci_low"] < row["estimate"] < row["ci_high"])
    True
    """
    settings = DEFAULT_SETTINGS if settings is None else settings
    policy = UndefinedPolicy(policy)
    if p_value not in P_VALUE_METHODS:
        raise ValueError(f"p_value must be one of {P_VALUE_METHODS}, not {p_value!r}")
    if pair_interval not in PAIR_INTERVALS:
        raise ValueError(f"pair_interval must be one of {PAIR_INTERVALS}, not {pair_interval!r}")
    selected = select_trials(trials, experiments=experiments, condition=condition, exclusions=exclusions,
                             validate=validate)
    design = pair_design(selected)
    kernel = ErrorConsistencyKernel(policy, pooled=pool_pairs)
    aggregation = PairAggregation(design, kernel.measures, pair_columns=pair_intervals)
    resampled = bootstrap(design, kernel, aggregation, aggregation.output, settings)  # warns on undefined shares

    is_pair = np.array([lab[1] == PAIR for lab in resampled.labels], dtype=bool)
    summary = _trim_labels(resampled.select(~is_pair), 4)
    pairs_resampled = _trim_labels(resampled.select(is_pair), None) if pair_intervals else None
    n_pairs = np.array([aggregation.n_pairs.get((scope, group), 0) for scope, group, *_ in summary.labels])

    ranking, model_replicates = None, None
    models = list(aggregation.all_groups[2:])
    # Only models scored on every experiment of the run are ranked: a model with 2 of 17 would be ranked
    # by a mean over other experiments (docs/your-model-against-the-benchmark.md).
    complete, partial = experiments_scored(selected, [e.name for e in aggregation.layouts])
    ranked = [m for m in models if m in set(complete)]
    if ranked and settings.n_resamples > 0:
        ec_models = summary.where(scope="overall", metric="error_consistency", group=ranked)
        model_replicates = ec_models.replicates
        if np.isfinite(ec_models.estimate).all():
            ranking = ranking_stability(ranked, ec_models.estimate, model_replicates, settings.level)

    record = dict(settings.to_dict(), policy=policy.value,
                  resample_observers=settings.observer_level == "bootstrap",
                  experiments=[e.name for e in aggregation.layouts], condition=condition,
                  exclusions=bool(exclusions), p_value=p_value, pool_pairs=bool(pool_pairs),
                  pair_interval=pair_interval, partial_models=partial)
    result = ErrorConsistencyResult(summary, n_pairs, pair_measures(design, kernel, p_value, settings.seed),
                                    pairs_resampled, ranking, model_replicates, record)
    if settings.interval in ITEM_JACKKNIFE_INTERVALS and settings.n_resamples > 0:
        # only where the jackknife's interval is the one shown: not a one-table pair's profile interval
        shown = result.frame_rows()["interval_method"].str.startswith("jackknife").to_numpy()
        warn_few_items(summary, kernel.measure, columns=shown)   # a mask: no copy of the replicates
        if pairs_resampled is not None:
            conditions = result.pairs.groupby("experiment")["condition"].nunique()
            several = np.array([pair_interval != "profile" or conditions.get(lab[0], 0) > 1
                                for lab in pairs_resampled.labels], dtype=bool)
            warn_few_items(pairs_resampled, f"{kernel.measure} (pairs)", columns=several)
    return result


def _trim_labels(resampled: Resampled, keep: int | None) -> Resampled:
    """Drop the label fields a part of the output does not use (pair names in the summary, ``group`` in pairs)."""
    if keep is not None:
        return replace(resampled, labels=[lab[:keep] for lab in resampled.labels],
                       label_names=resampled.label_names[:keep])
    fields = (0, 4, 5, 2, 3)   # experiment, observer_1, observer_2, kind, metric
    return replace(resampled, labels=[tuple(lab[k] for k in fields) for lab in resampled.labels],
                   label_names=("experiment", "observer_1", "observer_2", "kind", "metric"))
