"""The model-vs-human leaderboard, ranked as the benchmark ranks it, with intervals for values and ranks.

model-vs-human (its ``plotting/plot.py``: ``print_benchmark_table_humanlike_to_latex`` and
``print_benchmark_table_accuracy_to_latex``; docs/measures/model-vs-human-report.md) ranks the models twice:

- **most human-like**: over the 17 experiments with its condition exclusions, per model the mean over
  experiments of the mean over humans of the mean over conditions of (1) the squared accuracy difference
  to the human (lower is better), (2) observed consistency and (3) error consistency (higher is better);
  each column is ranked over the models (ties share the average rank) and the **mean rank** of the three
  orders the table;
- **OOD accuracy**: the mean over experiments of the model's accuracy (higher is better).

Here each value carries the interval :func:`humanlike.measures.ec.benchmark.run_benchmark` reports for it (images
resampled within conditions, jointly for all observers, optionally the humans too; EC's own jackknife-t unless
another is chosen), and each rank its own
interval: every resample's values are ranked the same way (so the mean rank is recomputed per resample),
which gives the percentile interval of each model's three ranks, of its mean rank, of its place in the
table (the rank of the mean rank) and the probability of being first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...resampling.intervals import containing_estimate, percentile_interval
from ...stats.ranking import ranks_descending
from .benchmark import BenchmarkResult
from ..pairs.aggregation import HUMANS

__all__ = ["LEADERBOARD_COLUMNS", "RANKED_METRICS", "Leaderboard", "leaderboard", "rank_columns"]

#: metric -> True where higher is better (model-vs-human's arrows in its tables)
RANKED_METRICS = {"accuracy_difference": False, "observed_consistency": True, "error_consistency": True}
OOD = "ood_accuracy"
RANK_NAMES = {"accuracy_difference": "accuracy_difference_rank", "observed_consistency": "observed_consistency_rank",
              "error_consistency": "error_consistency_rank"}
LEADERBOARD_COLUMNS = ["place", "place_low", "place_high", "observer", "mean_rank", "mean_rank_low", "mean_rank_high",
                       "probability_first"]


def rank_columns(values: np.ndarray, higher_is_better: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the models' ranks (1 = best, ties share the average rank) and their mean over columns.

    Vectorised over any leading axes (e.g. resamples): ``values`` is (..., models, metrics).

    Parameters
    ----------
    values : numpy.ndarray
        Shape (..., models, metrics).
    higher_is_better : list of bool
        Per metric, whether a higher value ranks first.

    Returns
    -------
    (ranks, mean_rank) : tuple of numpy.ndarray
        Shapes (..., models, metrics) and (..., models). NaN values rank last.

    Examples
    --------
    Three models; accuracy difference (lower is better) and error consistency (higher is better):

    >>> values = np.array([[0.01, 0.20], [0.03, 0.30], [0.02, 0.30]])
    >>> ranks, mean = rank_columns(values, [False, True])
    >>> ranks.tolist(), mean.tolist()
    ([[1.0, 3.0], [3.0, 1.5], [2.0, 1.5]], [2.0, 2.25, 1.75])
    """
    values = np.asarray(values, dtype=float)
    sign = np.where(np.asarray(higher_is_better), 1.0, -1.0)
    ranks = ranks_descending(np.swapaxes(values * sign, -1, -2))      # ranked along models
    ranks = np.swapaxes(ranks, -1, -2)
    return ranks, ranks.mean(axis=-1)


@dataclass(frozen=True)
class Leaderboard:
    """The benchmark's two tables with value and rank intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        Most human-like first: place (rank of the mean rank) with its interval, observer, mean rank with its
        interval, probability of being first, and per metric of :data:`RANKED_METRICS` its value
        (``<metric>``, ``<metric>_low``, ``<metric>_high``) and rank (``<metric>_rank`` with
        ``_low``/``_high``); the humans' values on a last row without ranks (model-vs-human's table lists them
        for reference).
    ood_table : pandas.DataFrame
        Highest OOD accuracy first: place, its interval, observer, ood_accuracy with its interval,
        probability of being first; humans last, unranked.
    experiments : list of str
        The experiments the values average over.
    level : float
        The level of every interval.
    interval_method : str
        The values' interval, the benchmark's own (e.g. ``"jackknife t"``, ``"percentile bootstrap"``); the ranks'
        intervals are percentile intervals over the resamples.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> board = leaderboard(run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=100, seed=0)))
    >>> board.table[["observer", "mean_rank"]].head(2).values.tolist()
    [['model-humanlike', 2.0], ['model-medium', 2.3333333333333335]]
    """

    table: pd.DataFrame
    ood_table: pd.DataFrame
    experiments: list
    level: float
    interval_method: str = "percentile bootstrap"

    def to_json_dict(self) -> dict:
        """JSON-ready: both tables as records (NaN as None), the experiments and the level.

        Returns
        -------
        dict
            ``{"humanlike": [...], "ood_accuracy": [...], "experiments": [...], "level": float}``.
        """
        def records(frame):
            return [{k: (None if isinstance(v, float) and not np.isfinite(v) else
                         v.item() if isinstance(v, np.generic) else v) for k, v in r.items()}
                    for r in frame.to_dict("records")]
        return {"humanlike": records(self.table), "ood_accuracy": records(self.ood_table),
                "experiments": list(self.experiments), "level": self.level, "interval_method": self.interval_method,
                "ranking": "model-vs-human: rank of each of accuracy difference (lower first), observed and error "
                           "consistency (higher first) over the models, ties averaged; ordered by their mean"}


def _share_first(places: np.ndarray) -> np.ndarray:
    """Per model, the share of resamples (rows) in which it is first; a first place shared by k models counts
    1/k for each (as :func:`humanlike.stats.ranking.ranking_stability`), so the shares sum to 1."""
    first = places == np.nanmin(places, axis=1, keepdims=True)
    return (first / first.sum(axis=1, keepdims=True)).mean(axis=0)


def _place(mean_rank: np.ndarray) -> np.ndarray:
    """Place in the table: rank of the mean rank (1 = lowest mean rank), ties averaged."""
    return ranks_descending(-np.asarray(mean_rank, dtype=float))


def leaderboard(result: BenchmarkResult, level: float | None = None) -> Leaderboard:
    """The model-vs-human leaderboard of a benchmark result, every value and rank with its interval.

    Parameters
    ----------
    result : BenchmarkResult
        From :func:`humanlike.measures.ec.benchmark.run_benchmark` (its overall rows and their replicates).
    level : float, optional
        Interval level (default: the result's).

    Returns
    -------
    Leaderboard

    Raises
    ------
    ValueError
        When the result has no model.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> board = leaderboard(run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=0)))
    >>> board.ood_table["observer"].tolist()[-1]
    'humans'
    """
    details = result.details
    level = float(details.settings["level"] if level is None else level)
    summary = details.resampled
    overall = summary.where(scope="overall")
    groups = list(dict.fromkeys(lab[1] for lab in overall.labels))
    # A model scored on only some experiments of the run is not ranked beside full-benchmark models
    # (docs/your-model-against-the-benchmark.md): it is left out here, listed with its experiments by the benchmark.
    partial = details.settings.get("partial_models") or {}
    models = [g for g in groups if g not in (HUMANS, "model-model") and g not in partial]
    if not models:
        raise ValueError("the leaderboard needs at least one model beside the humans")

    # each value's interval is the one the benchmark reports for it (its own method, clipped to the metric's range)
    reported = details.frame_rows(level).set_index(["scope", "group", "metric"])

    def block(metric: str, names: list[str]):
        part = overall.where(metric=metric, group=names)
        order = [lab[1] for lab in part.labels]
        idx = [order.index(n) for n in names]
        own = reported.loc[[("overall", n, metric) for n in names]]
        return (part.estimate[idx], part.replicates[:, idx].astype(float), own["ci_low"].to_numpy(float),
                own["ci_high"].to_numpy(float))

    metrics = list(RANKED_METRICS)
    est = {m: block(m, models) for m in metrics}
    values = np.stack([est[m][0] for m in metrics], axis=1)                       # models x 3
    ranks, mean_rank = rank_columns(values, [RANKED_METRICS[m] for m in metrics])
    place = _place(mean_rank)
    n_resamples = summary.n_resamples

    table = pd.DataFrame({"observer": models})
    table["place"], table["mean_rank"] = place, mean_rank
    for j, m in enumerate(metrics):
        table[m], table[f"{m}_low"], table[f"{m}_high"] = est[m][0], est[m][2], est[m][3]
        table[RANK_NAMES[m]] = ranks[:, j]
    if n_resamples:
        boot = np.stack([est[m][1] for m in metrics], axis=2)                     # R x models x 3
        boot_ranks, boot_mean = rank_columns(boot, [RANKED_METRICS[m] for m in metrics])
        boot_place = _place(boot_mean)
        # every rank's interval contains the rank shown (containing_estimate), as every value's does
        for j, m in enumerate(metrics):
            table[f"{RANK_NAMES[m]}_low"], table[f"{RANK_NAMES[m]}_high"] = containing_estimate(
                *percentile_interval(boot_ranks[:, :, j], level), ranks[:, j])
        table["mean_rank_low"], table["mean_rank_high"] = containing_estimate(
            *percentile_interval(boot_mean, level), mean_rank)
        table["place_low"], table["place_high"] = containing_estimate(*percentile_interval(boot_place, level), place)
        table["probability_first"] = _share_first(boot_place)
    else:
        for name in ["mean_rank_low", "mean_rank_high", "place_low", "place_high", "probability_first",
                     *[f"{RANK_NAMES[m]}_{s}" for m in metrics for s in ("low", "high")]]:
            table[name] = np.nan
    table = table.sort_values(["place", "observer"], kind="stable").reset_index(drop=True)
    if HUMANS in groups:
        humans = {"observer": HUMANS}
        for m in metrics:
            e, _, lo, hi = block(m, [HUMANS])
            humans.update({m: e[0], f"{m}_low": lo[0], f"{m}_high": hi[0]})
        table = pd.concat([table, pd.DataFrame([humans])], ignore_index=True)
    ordered = LEADERBOARD_COLUMNS + [c for m in metrics for c in (m, f"{m}_low", f"{m}_high", RANK_NAMES[m],
                                                                      f"{RANK_NAMES[m]}_low", f"{RANK_NAMES[m]}_high")]
    table = table[ordered]

    acc, acc_boot, acc_low, acc_high = block(OOD, models)
    ood = pd.DataFrame({"observer": models, OOD: acc, f"{OOD}_low": acc_low, f"{OOD}_high": acc_high})
    ood["place"] = ranks_descending(acc)
    if n_resamples:
        boot_place = ranks_descending(acc_boot)
        ood["place_low"], ood["place_high"] = containing_estimate(*percentile_interval(boot_place, level),
                                                                  ood["place"].to_numpy(float))
        ood["probability_first"] = _share_first(boot_place)
    else:
        ood["place_low"] = ood["place_high"] = ood["probability_first"] = np.nan
    ood = ood.sort_values(["place", "observer"], kind="stable").reset_index(drop=True)
    if HUMANS in groups:
        e, _, lo, hi = block(OOD, [HUMANS])
        ood = pd.concat([ood, pd.DataFrame([{"observer": HUMANS, OOD: e[0], f"{OOD}_low": lo[0],
                                             f"{OOD}_high": hi[0]}])], ignore_index=True)
    ood = ood[["place", "place_low", "place_high", "observer", OOD, f"{OOD}_low", f"{OOD}_high", "probability_first"]]
    shown = reported.loc["overall"]["interval_method"] if "overall" in reported.index else pd.Series(dtype=str)
    method = " / ".join(dict.fromkeys(shown.astype(str))) or "percentile bootstrap"
    return Leaderboard(table, ood, list(details.settings.get("experiments", [])), level, method)
