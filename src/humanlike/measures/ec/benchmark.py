"""The model-vs-human benchmark (Geirhos et al. 2021), reproduced with bootstrap intervals.

Per condition, EC, observed consistency and squared accuracy difference of every model with every human
and of every human pair; the benchmark's condition exclusions; mean over conditions, then over humans,
then over experiments with equal weight; OOD accuracy per model. Every number carries a bootstrap interval
(items resampled within conditions, jointly for all observers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..pairs.metric import UndefinedPolicy
from ...stats.ranking import RankingStability
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings
from .result import ErrorConsistencyResult
from .analysis import error_consistency
from ...trials.selection import MODELVSHUMAN_EXCLUSIONS
from ..measure_result import MeasureResult
from ..pairs.aggregation import HUMANS, MODEL_MODEL

BENCHMARK_METRICS = ("error_consistency", "observed_consistency", "accuracy_difference", "ood_accuracy")


@dataclass(frozen=True, repr=False)
class BenchmarkResult(MeasureResult):
    """The benchmark rows: one per observer (each model, and ``humans``), scope (experiment/overall), metric.

    ``rows`` columns: observer, observer_kind, scope, metric, estimate, ci_low, ci_high, n_pairs, reason,
    undefined_share (the share of resamples in which the value is undefined). ``details`` is the full
    :class:`~humanlike.measures.ec.analysis.ErrorConsistencyResult` (model–model rows, pairs, replicates).
    Made by :func:`run_benchmark`.

    Parameters
    ----------
    rows : pandas.DataFrame
        The benchmark rows (columns above), experiment rows first, then the ``overall`` rows.
    ranking : RankingStability or None
        How stable the models' ranking by EC to humans is over the resamples (``None`` without resamples).
    details : ErrorConsistencyResult
        The full error-consistency result the rows come from.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = run_benchmark(trials, exclusions=None, experiments=["sim-noise"], settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> sorted(result.rows["scope"].unique())
    ['overall', 'sim-noise']
    >>> humans = result.rows.query("observer == 'humans' and scope == 'overall'").set_index("metric")
    >>> round(float(humans.loc["error_consistency", "estimate"]), 3), int(humans.loc["error_consistency", "n_pairs"])
    (0.313, 15)
    """

    rows: pd.DataFrame
    ranking: RankingStability | None
    details: ErrorConsistencyResult
    # the text `humanlike benchmark` prints is its summary (MeasureResult.summary)
    text_formatter = ".cli:format_overall"

    @property
    def resampled(self) -> Resampled:
        """The benchmark columns (all but model–model) with their replicates."""
        return self.details.resampled.select(self._columns())

    def _columns(self) -> np.ndarray:
        return np.array([lab[1] != MODEL_MODEL for lab in self.details.resampled.labels], dtype=bool)

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The tidy frame's rows: the benchmark's EC columns (no model–model, no DMC rows), with ``n_pairs``.

        Parameters
        ----------
        level : float, optional
            Confidence level of ``ci_low``/``ci_high`` (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        pandas.DataFrame
            One row per estimate.
        """
        # the EC result's own rows (its interval method, one-table aggregates' profile intervals, clipped to each
        # metric's range), without the model-model ones
        frame = self.details.frame_rows(level, method)
        return frame[frame["group"] != MODEL_MODEL].reset_index(drop=True)

    def benchmark_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """:attr:`rows`, or the rows recomputed at another level / interval method (EC rows only).

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); ``None`` (with ``method=None``) returns :attr:`rows` as computed.
        method : {"percentile", "bca"}, optional
            Interval method.

        Returns
        -------
        pandas.DataFrame
            The benchmark rows with the columns listed in the class docstring.
        """
        if level is None and method is None:
            return self.rows
        return _benchmark_rows(self.details, level, method)

    def overall(self) -> pd.DataFrame:
        """Overall rows, wide: one line per observer, models sorted by EC to humans.

        Returns
        -------
        pandas.DataFrame
            Columns: observer, one column per metric (its estimate), and ``ci_low``/``ci_high`` of the error
            consistency; sorted by error consistency, highest first.
        """
        rows = self.rows[self.rows["scope"] == "overall"]
        wide = rows.pivot(index="observer", columns="metric", values="estimate")
        wide = wide.join(rows[rows["metric"] == "error_consistency"].set_index("observer")[["ci_low", "ci_high"]])
        return wide.sort_values("error_consistency", ascending=False).reset_index()

    def to_json_dict(self) -> dict:
        """The result as plain JSON-ready Python objects (non-finite numbers become ``None``).

        Returns
        -------
        dict
            ``{observers: {observer: {metric: {estimate, ci_low, ci_high, undefined_share},
            experiments: {experiment: {metric: {...}}}}}, settings, ranking}``.
        """
        out: dict = {}
        for (observer, scope), group in self.rows.groupby(["observer", "scope"], sort=False):
            entry = {}
            for r in group.itertuples():
                entry[r.metric] = _clean({"estimate": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                                          "undefined_share": getattr(r, "undefined_share", np.nan)})
            target = out.setdefault(observer, {"experiments": {}})
            if scope == "overall":
                target.update(entry)
            else:
                target["experiments"][scope] = entry
        return {"observers": out, "settings": self.details.settings,
                "ranking": None if self.ranking is None else _clean_records(self.ranking.to_frame())}


def _clean(d: dict) -> dict:
    return {k: (None if v is None or (isinstance(v, float) and not np.isfinite(v)) else float(v))
            for k, v in d.items()}


def _clean_records(frame: pd.DataFrame) -> list[dict]:
    return [{k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in r.items()}
            for r in frame.to_dict("records")]


BENCHMARK_COLUMNS = ["observer", "observer_kind", "scope", "metric", "estimate", "ci_low", "ci_high", "n_pairs",
                     "reason", "undefined_share"]


def _benchmark_rows(details: ErrorConsistencyResult, level: float | None = None,
                   method: str | None = None) -> pd.DataFrame:
    """The benchmark's rows of an EC result (model–model rows dropped, ``group`` renamed ``observer``)."""
    s = details.summary_frame(level, method)
    rows = s[s["group"] != MODEL_MODEL].rename(columns={"group": "observer"}).copy()
    rows["observer_kind"] = np.where(rows["observer"] == HUMANS, "human", "model")
    return rows[BENCHMARK_COLUMNS].reset_index(drop=True)


def run_benchmark(
    trials: pd.DataFrame,
    *,
    exclusions: dict[str, tuple[str, ...]] | None = MODELVSHUMAN_EXCLUSIONS,
    settings: ResamplingSettings | None = None,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
    experiments: list[str] | None = None,
    validate: bool = True,
    p_value: str = "exact",
    pool_pairs: bool = False,
) -> BenchmarkResult:
    """Reproduce the model-vs-human benchmark rows with bootstrap intervals.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    exclusions : dict or None
        Defaults to the benchmark's table (:data:`MODELVSHUMAN_EXCLUSIONS`); ``None`` keeps every condition
        (e.g. for simulated data).
    settings : ResamplingSettings, optional
        The one settings object (default EC's :data:`~humanlike.measures.ec.analysis.DEFAULT_SETTINGS`).
    policy : {"strict", "model-vs-human"}
        ``"model-vs-human"`` reproduces the benchmark code's kappa exactly (observed agreement 1 gives 1);
        the default skips undefined kappas.
    experiments : list of str, optional
        Only these experiments (their rows are identical to those of the full run).
    validate : bool
        Validate the trial table first (skip only for tables that come validated, e.g. from a loader).
    p_value : str
        The per-condition test in ``details.pairs`` (see
        :func:`~humanlike.measures.ec.analysis.pair_p_values`).
    pool_pairs : bool
        Pooled group error consistency (:func:`~humanlike.measures.ec.analysis.error_consistency`), for study
        designs whose pairs share part of the trials.

    Returns
    -------
    BenchmarkResult

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=100))
    >>> sorted(result.rows["metric"].unique())[:2]
    ['accuracy_difference', 'error_consistency']
    """
    details = error_consistency(
        trials, experiments=experiments, exclusions=exclusions, settings=settings, policy=policy, validate=validate,
        p_value=p_value, pool_pairs=pool_pairs)
    return BenchmarkResult(_benchmark_rows(details), details.ranking, details)
