"""The result of an error-consistency analysis: resampled summary and pairs, their tables and JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...stats.ranking import RankingStability
from ...resampling.intervals import containing_estimate
from ...resampling.results import Resampled
from ..measure_result import MeasureResult
from ..pairs.aggregation import HUMANS, MODEL_MODEL, OOD_ACCURACY

#: Intervals of a single-table pair's EC: the profile likelihood (default) or the bootstrap of the analysis.
PAIR_INTERVALS = ("profile", "bootstrap")

SUMMARY_COLUMNS = ["scope", "group", "kind", "metric", "estimate", "ci_low", "ci_high", "n_pairs", "reason",
                   "undefined_share", "interval_method"]


def _plain(value):
    if isinstance(value, (float, np.floating)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _condition_p_values(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per pair, the exact p-values of its conditions summarised: the smallest (uncorrected) and Bonferroni's.

    ``p_value_min_uncorrected`` is the smallest per-condition p — not a p-value of anything when there are
    several conditions; ``p_value_bonferroni`` = min(1, k x smallest p) over the k conditions with a defined
    p tests "independent in every condition" at its nominal level.
    """
    grouped = pairs.groupby(["observer_1", "observer_2"], sort=False)["p_value"]
    smallest = grouped.min()
    k = grouped.count()
    return pd.DataFrame({"p_value_min_uncorrected": smallest,
                         "p_value_bonferroni": np.minimum(1.0, smallest * k)}).reset_index()


def single_table_profile_intervals(pairs: pd.DataFrame, level: float, policy: str) -> pd.DataFrame:
    """The profile-likelihood interval of every pair whose EC is one 2x2 table (one condition in its experiment)
    with at least one shared trial.

    Under the benchmark's undefined policy a table whose kappa is undefined is left out (it keeps the
    bootstrap: its estimate is the policy's convention, which no likelihood describes).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Per (experiment, condition, pair) counts, as :attr:`ErrorConsistencyResult.pairs`.
    level : float
        Confidence level.
    policy : str
        The analysis' undefined policy.

    Returns
    -------
    pandas.DataFrame
        Columns experiment, observer_1, observer_2, ci_low, ci_high, interval_method; one row per such pair.

    Examples
    --------
    >>> pairs = pd.DataFrame({"experiment": ["e"], "condition": ["c"], "observer_1": ["a"], "observer_2": ["b"],
    ...                       "both_correct": [86], "only_1_correct": [4], "only_2_correct": [9],
    ...                       "both_wrong": [1], "reason": [""]})
    >>> single_table_profile_intervals(pairs, 0.95, "strict")[["ci_low", "ci_high"]].round(3).values.tolist()
    [[-0.066, 0.401]]
    """
    from .interval import ec_profile_interval

    keys = ["experiment", "observer_1", "observer_2"]
    cells = ["both_correct", "only_1_correct", "only_2_correct", "both_wrong"]
    single = pairs[pairs.groupby(keys)["condition"].transform("size") == 1]
    # a pair that shares no trial (a subset design) has no table: its EC stays NaN with its reason
    single = single[single[cells].sum(axis=1) > 0]
    if policy != "strict":
        single = single[single["reason"].fillna("") == ""]
    out = single[keys].reset_index(drop=True)
    if single.empty:
        return out.assign(ci_low=np.array([], float), ci_high=np.array([], float), interval_method="")
    r = ec_profile_interval(*single[cells].to_numpy(dtype=np.int64).T, level=level)
    return out.assign(ci_low=np.atleast_1d(r.low), ci_high=np.atleast_1d(r.high), interval_method=r.method)


def _profile_single_tables(frame: pd.DataFrame, intervals: pd.DataFrame) -> pd.DataFrame:
    """Rows of pairs whose EC is one 2x2 table get that table's profile-likelihood interval (``intervals``)."""
    keys = ["experiment", "observer_1", "observer_2"]
    if intervals.empty:
        return frame
    merged = frame.reset_index(drop=True).merge(intervals.rename(columns={
        "ci_low": "_low", "ci_high": "_high", "interval_method": "_method"}), on=keys, how="left")
    use = merged["_low"].notna().to_numpy() & (frame["n_conditions"].to_numpy() == 1)
    if use.any():
        merged.loc[use, "ci_low"] = merged.loc[use, "_low"]
        merged.loc[use, "ci_high"] = merged.loc[use, "_high"]
        merged.loc[use, "interval_method"] = merged.loc[use, "_method"]
        merged.loc[use, "undefined_share"] = np.nan
    return merged.drop(columns=["_low", "_high", "_method"])


def one_table_groups(pairs: pd.DataFrame, intervals: pd.DataFrame) -> pd.DataFrame:
    """The summary groups that are one 2x2 table, with that table's profile interval.

    A group of an experiment with one condition and one pair (one human with a model, two humans, two
    models) is one table; so is an ``overall`` group whose only pair is such a table. Without this the same
    number would be printed with the pair's profile interval and, as the group's mean, with a bootstrap
    interval that covers far less where errors are few (docs/ec_coverage.md).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Per (experiment, condition, pair) counts and kinds, as :attr:`ErrorConsistencyResult.pairs`.
    intervals : pandas.DataFrame
        :func:`single_table_profile_intervals` of those pairs.

    Returns
    -------
    pandas.DataFrame
        Columns scope, group, ci_low, ci_high, interval_method (the groups' rows to use only where the
        summary row's ``n_pairs`` is 1).

    Examples
    --------
    >>> pairs = pd.DataFrame({"experiment": ["e"], "condition": ["c"], "observer_1": ["s1"], "observer_2": ["m"],
    ...                       "kind_1": ["human"], "kind_2": ["model"], "pair_kind": ["model-human"],
    ...                       "both_correct": [86], "only_1_correct": [4], "only_2_correct": [9],
    ...                       "both_wrong": [1], "reason": [""]})
    >>> groups = one_table_groups(pairs, single_table_profile_intervals(pairs, 0.95, "strict"))
    >>> groups[["scope", "group"]].values.tolist(), groups["ci_low"].round(3).tolist()
    ([['e', 'm'], ['overall', 'm']], [-0.066, -0.066])
    """
    columns = ["scope", "group", "ci_low", "ci_high", "interval_method"]
    if intervals.empty:
        return pd.DataFrame(columns=columns)
    keys = ["experiment", "observer_1", "observer_2"]
    conditions = pairs.groupby("experiment")["condition"].transform("nunique")
    one = pairs[conditions == 1]
    model = np.where(one["kind_2"] == "model", one["observer_2"], one["observer_1"])
    group = np.where(one["pair_kind"] == "human-human", HUMANS,
                     np.where(one["pair_kind"] == "model-model", MODEL_MODEL, model))
    one = one[keys].assign(group=group)
    one = one[one.groupby(["experiment", "group"])["group"].transform("size") == 1]
    one = one.merge(intervals, on=keys, how="inner")
    rows = [one.assign(scope=one["experiment"])]
    in_one_experiment = one.groupby("group")["experiment"].transform("size") == 1
    rows.append(one[in_one_experiment].assign(scope="overall"))
    return pd.concat(rows, ignore_index=True)[columns]


def _one_table_aggregates(frame: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Summary rows of EC that are one 2x2 table get that table's interval (``table``: :func:`one_table_groups`)."""
    if table.empty:
        return frame
    merged = frame.merge(table.rename(columns={"ci_low": "_low", "ci_high": "_high", "interval_method": "_method"}),
                         on=["scope", "group"], how="left")
    use = (merged["_low"].notna() & (merged["metric"] == "error_consistency") & (merged["n_pairs"] == 1)).to_numpy()
    merged.loc[use, "ci_low"] = merged.loc[use, "_low"]
    merged.loc[use, "ci_high"] = merged.loc[use, "_high"]
    merged.loc[use, "interval_method"] = merged.loc[use, "_method"]
    merged.loc[use, "undefined_share"] = np.nan
    return merged.drop(columns=["_low", "_high", "_method"])


#: The values each EC metric can take; intervals are clipped to them (the truth lies inside, so clipping never
#: costs coverage; a jackknife interval, centre +- t SE, can otherwise pass 1 where one item decides the mean,
#: or fall below 0 for the squared accuracy difference, whose bias correction pulls its centre towards 0).
METRIC_RANGES = {"error_consistency": (-1.0, 1.0), "observed_consistency": (0.0, 1.0),
                 "accuracy_difference": (0.0, 1.0), OOD_ACCURACY: (0.0, 1.0)}


def clip_to_metric_range(frame: pd.DataFrame, metrics) -> pd.DataFrame:
    """``ci_low``/``ci_high`` clipped to the range of each row's metric (:data:`METRIC_RANGES`), in place.

    Where the frame has an ``estimate`` column, the intervals are first widened to contain it
    (:func:`~humanlike.resampling.intervals.containing_estimate`), so no row shows an interval that excludes
    its estimate.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows with ``ci_low`` and ``ci_high``.
    metrics : str or array_like of str
        The metric of every row (or one for all).

    Returns
    -------
    pandas.DataFrame
        The same frame.

    Examples
    --------
    >>> frame = pd.DataFrame({"ci_low": [-0.86, 0.2], "ci_high": [1.73, 0.4]})
    >>> clip_to_metric_range(frame, "error_consistency")[["ci_low", "ci_high"]].values.tolist()
    [[-0.86, 1.0], [0.2, 0.4]]
    """
    metrics = pd.Series(metrics, index=frame.index)
    low = metrics.map(lambda m: METRIC_RANGES.get(m, (-np.inf, np.inf))[0]).astype(float)
    high = metrics.map(lambda m: METRIC_RANGES.get(m, (-np.inf, np.inf))[1]).astype(float)
    if "estimate" in frame:   # first widened to contain the estimate (the jackknife's centre is bias-corrected)
        frame["ci_low"], frame["ci_high"] = containing_estimate(frame["ci_low"], frame["ci_high"], frame["estimate"])
    frame["ci_low"] = frame["ci_low"].clip(lower=low, upper=high)
    frame["ci_high"] = frame["ci_high"].clip(lower=low, upper=high)
    return frame


def bootstrap_label(resampled: Resampled, method: str | None) -> str:
    """The ``interval_method`` of a bootstrap interval: ``method`` (or the result's own) and "bootstrap".

    Parameters
    ----------
    resampled : Resampled
        The resampled result the interval comes from.
    method : str or None
        The requested interval method; None means the result's own.

    Returns
    -------
    str
        For example ``"percentile bootstrap"``; ``"jackknife normal"`` and ``"jackknife t"`` for the jackknife
        intervals.

    Examples
    --------
    >>> import numpy as np
    >>> bootstrap_label(Resampled(np.zeros(1), np.zeros((3, 1)), ("x",)), None)
    'percentile bootstrap'
    """
    method = method if method is not None else resampled.method
    labels = {"jackknife": "jackknife normal", "jackknife-t": "jackknife t"}
    return labels.get(method, f"{method} bootstrap")


@dataclass(frozen=True, repr=False)
class ErrorConsistencyResult(MeasureResult):
    """Error consistency of a trial table: resampled summary rows, pairs, ranking.

    Attributes
    ----------
    resampled : Resampled
        One column per (scope, group, kind, metric): scope = an experiment or ``"overall"``, group =
        ``"humans"`` (human–human), ``"model-model"``, or a model name (model–human); metrics
        ``error_consistency``, ``observed_consistency``, ``accuracy_difference`` and ``ood_accuracy``. Holds
        the estimate, the kept replicates (and jackknife rows for BCa), so :meth:`interval` at any level or
        method needs no rerun.
    n_pairs : numpy.ndarray
        Pairs behind each column of :attr:`resampled`.
    pairs : pandas.DataFrame
        Per (experiment, condition, pair): the 2x2 counts, EC, observed consistency, squared accuracy
        difference, exact p-value.
    pair_resampled : Resampled or None
        Per experiment pair, EC averaged over conditions, from the same resamples (when
        ``pair_intervals=True``).
    ranking : RankingStability or None
        Stability of the models' ranking by overall EC to humans; only models scored on every experiment of
        the run are ranked (``settings["partial_models"]``: each other model -> the experiments it has).
    model_replicates : numpy.ndarray or None
        Replicates of the models' overall EC (resamples x models), in :attr:`ranking` order.
    settings : dict
        The resampling settings and the analysis options.
    cache : dict
        What is computed on first use and then reused: the single-table profile intervals by level
        (:meth:`profile_intervals`), the summary and pair frames by their arguments (``humanlike ec`` asks
        for them once per experiment; rebuilding them each time made its output quadratic in experiments).

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> result = error_consistency(simulate_benchmark(seed=0), experiments=["sim-noise"], settings=ResamplingSettings(n_resamples=20, seed=0),
    ...                            pair_intervals=True)
    >>> humans = result.table().set_index("group").loc["humans"]
    >>> round(float(humans["estimate"]), 3), int(humans["n_pairs"])  # mean EC over the 15 human pairs
    (0.313, 15)
    >>> result.pair_frame().shape  # 55 pairs of 11 observers
    (55, 12)
    """

    resampled: Resampled
    n_pairs: np.ndarray = field(repr=False)
    pairs: pd.DataFrame = field(repr=False)
    pair_resampled: Resampled | None = field(default=None, repr=False)
    ranking: RankingStability | None = None
    model_replicates: np.ndarray | None = field(default=None, repr=False)
    settings: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    # the text its command prints is its summary (MeasureResult.summary)
    text_formatter = ".cli:format_ec"

    def interval(self, level: float | None = None, method: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of every row of :meth:`to_frame`: the resampled interval widened to contain the estimate
        and clipped to the metric's range (:func:`clip_to_metric_range`), as the table shows it.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the result's.
        method : {"percentile", "bca"}, optional
            Defaults to the result's.

        Returns
        -------
        (low, high) : tuple of numpy.ndarray
            NaN where undefined.
        """
        frame = self.frame_rows(level, method)
        return frame["ci_low"].to_numpy(), frame["ci_high"].to_numpy()

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The tidy frame's rows, with ``n_pairs`` and ``interval_method`` beside the core columns.

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
        key = ("rows", level, method)
        if key not in self.cache:
            frame = self.resampled.to_frame(level, method)
            clip_to_metric_range(frame, frame["metric"])
            frame["n_pairs"] = self.n_pairs.astype(int)
            # Every aggregate of several tables (a mean over pairs or conditions) keeps the bootstrap through the
            # aggregation; an aggregate of one table is that table's EC and carries its interval.
            frame["interval_method"] = bootstrap_label(self.resampled, method)
            if self.settings.get("pair_interval", "bootstrap") == "profile":
                groups = ("one-table groups", float(level if level is not None else self.resampled.level))
                if groups not in self.cache:
                    self.cache[groups] = one_table_groups(self.pairs, self.profile_intervals(level))
                frame = _one_table_aggregates(frame, self.cache[groups])
            self.cache[key] = frame
        return self.cache[key].copy()

    def summary_frame(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The summary table ``humanlike ec`` writes (``ec_summary``), one row per column of :attr:`resampled`.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the level the result was computed at.
        method : {"percentile", "bca"}, optional
            Interval method (``"bca"`` needs the jackknife rows kept); defaults to the result's.

        Returns
        -------
        pandas.DataFrame
            Columns scope, group, kind, metric, estimate, ci_low, ci_high, n_pairs, reason, undefined_share,
            interval_method (e.g. ``"percentile bootstrap"``).
        """
        return self.frame_rows(level, method)[SUMMARY_COLUMNS]

    @property
    def summary_table(self) -> pd.DataFrame:
        """:meth:`summary_frame` at the result's own level and interval method."""
        return self.summary_frame()

    def table(self, metric: str = "error_consistency", scope: str = "overall") -> pd.DataFrame:
        """One row per group for one metric and scope.

        Parameters
        ----------
        metric : str
            ``"error_consistency"``, ``"observed_consistency"``, ``"accuracy_difference"`` or ``"ood_accuracy"``.
        scope : str
            An experiment name or ``"overall"``.

        Returns
        -------
        pandas.DataFrame
            The :attr:`summary` rows of that metric and scope (humans, model-model, then each model).
        """
        s = self.summary_table
        return s[(s["metric"] == metric) & (s["scope"] == scope)].reset_index(drop=True)

    def pair_frame(self, level: float | None = None, method: str | None = None,
                   metric: str = "error_consistency", pair_interval: str | None = None) -> pd.DataFrame | None:
        """Per experiment pair: the condition-averaged ``metric`` with its interval (None without pair intervals).

        A pair whose EC is one 2x2 table (its experiment has one condition, or one condition was selected)
        gets the profile-likelihood interval by default (:func:`humanlike.measures.ec.interval.ec_profile_interval`:
        it holds its level where errors are few, the bootstrap does not; docs/ec_coverage.md). A pair whose EC
        is a mean of kappas over several conditions keeps the bootstrap through that mean. The column
        ``interval_method`` names each row's interval.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the level the result was computed at.
        method : {"percentile", "bca"}, optional
            Bootstrap interval method (``"bca"`` needs the jackknife rows kept); defaults to the result's.
        metric : str
            The pair metric (``"error_consistency"``, ``"observed_consistency"`` or ``"accuracy_difference"``).
        pair_interval : {"profile", "bootstrap"}, optional
            The interval of single-table pairs' EC; defaults to the result's (``settings["pair_interval"]``).

        Returns
        -------
        pandas.DataFrame or None
            Columns experiment, observer_1, observer_2, kind_1, kind_2, ``metric`` (the estimate), ci_low,
            ci_high, interval_method, undefined_share (of the bootstrap resamples; NaN for a profile
            interval), reason, n_conditions; None when the analysis ran without ``pair_intervals=True``.

        Raises
        ------
        ValueError
            On an unknown ``pair_interval``.
        """
        if self.pair_resampled is None:
            return None
        choice = pair_interval if pair_interval is not None else self.settings.get("pair_interval", "bootstrap")
        if choice not in PAIR_INTERVALS:
            raise ValueError(f"pair_interval must be one of {PAIR_INTERVALS}, not {choice!r}")
        key = ("pairs", level, method, metric, choice)
        if key not in self.cache:
            self.cache[key] = self._pair_frame(level, method, metric, choice)
        return self.cache[key].copy()

    def _pair_frame(self, level, method, metric: str, choice: str) -> pd.DataFrame:
        selected = self.pair_resampled.where(metric=metric)
        frame = clip_to_metric_range(selected.to_frame(level, method), metric)
        frame["interval_method"] = bootstrap_label(selected, method)
        kinds = frame["kind"].str.split("-", expand=True)
        frame["kind_1"], frame["kind_2"] = kinds[0], kinds[1]
        frame = frame.rename(columns={"estimate": metric})
        conditions = self.pairs.groupby("experiment")["condition"].nunique()
        frame["n_conditions"] = frame["experiment"].map(conditions).astype(int)
        if metric == "error_consistency" and choice == "profile":
            frame = _profile_single_tables(frame, self.profile_intervals(level))
        return frame[["experiment", "observer_1", "observer_2", "kind_1", "kind_2", metric, "ci_low", "ci_high",
                      "interval_method", "undefined_share", "reason", "n_conditions"]]

    def profile_intervals(self, level: float | None = None) -> pd.DataFrame:
        """:func:`single_table_profile_intervals` of this result's pairs, computed once per level.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the level the result was computed at.

        Returns
        -------
        pandas.DataFrame
            experiment, observer_1, observer_2, ci_low, ci_high, interval_method of every single-table pair.
        """
        level = float(level if level is not None else self.resampled.level)
        key = ("profile", level)
        if key not in self.cache:
            self.cache[key] = single_table_profile_intervals(self.pairs, level,
                                                                       self.settings.get("policy", "strict"))
        return self.cache[key]

    @property
    def pair_intervals(self) -> pd.DataFrame | None:
        """:meth:`pair_frame` of error consistency at the result's own level and method."""
        return self.pair_frame()

    def experiment_json_dict(self, experiment: str, level: float | None = None, method: str | None = None) -> dict:
        """One experiment as a document: human_human, model_human per model, model_model, and every pair.

        Parameters
        ----------
        experiment : str
            The experiment's name.
        level : float, optional
            Confidence level in (0, 1); defaults to the level the result was computed at.
        method : {"percentile", "bca"}, optional
            Interval method (``"bca"`` needs the jackknife rows kept); defaults to the result's.

        Returns
        -------
        dict
            ``{experiment, condition, human_human, model_human: {model: {...}}, model_model, pairs, settings}``;
            each group entry holds mean, ci_low, ci_high, n_pairs, undefined_share, reason, interval_method and an accuracy.
            ``pairs`` (with the per-pair exact p-values summarised over conditions) only with pair intervals.

        Raises
        ------
        KeyError
            When the result has no such experiment.
        """
        s = self.summary_frame(level, method)
        s = s[s["scope"] == experiment]
        if s.empty:
            raise KeyError(f"no experiment {experiment!r}; experiments: {self.settings.get('experiments')}")
        ec = s[s["metric"] == "error_consistency"].set_index("group")
        acc = s[s["metric"] == OOD_ACCURACY].set_index("group")

        def entry(group):
            row = ec.loc[group]
            return {"mean": _plain(row["estimate"]), "ci_low": _plain(row["ci_low"]),
                    "ci_high": _plain(row["ci_high"]), "n_pairs": int(row["n_pairs"]),
                    "undefined_share": _plain(row["undefined_share"]), "reason": row["reason"],
                    "interval_method": row["interval_method"]}

        doc = {"experiment": experiment, "condition": self.settings.get("condition"),
               "human_human": {**entry(HUMANS), "mean_accuracy": _plain(acc.loc[HUMANS, "estimate"])},
               "model_human": {}, "model_model": entry(MODEL_MODEL)}
        for group in ec.index:
            if group not in (HUMANS, MODEL_MODEL):
                doc["model_human"][group] = {**entry(group), "accuracy": _plain(acc.loc[group, "estimate"])}
        pairs = self.pair_frame(level, method)
        if pairs is not None:
            pairs = pairs[pairs["experiment"] == experiment]
            pairs = pairs.merge(_condition_p_values(self.pairs[self.pairs["experiment"] == experiment]),
                                on=["observer_1", "observer_2"])
            if self.settings.get("condition") is not None:
                pairs = pairs.drop(columns=["p_value_bonferroni"]).rename(
                    columns={"p_value_min_uncorrected": "p_value"})
            doc["pairs"] = _records(pairs.drop(columns=["experiment"]))
        doc["settings"] = dict(self.settings)
        return doc

    def to_json_dict(self, level: float | None = None, method: str | None = None) -> dict:
        """The whole result as JSON-ready dict: settings, summary rows, one document per experiment, ranking.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the level the result was computed at.
        method : {"percentile", "bca"}, optional
            Interval method (``"bca"`` needs the jackknife rows kept); defaults to the result's.

        Returns
        -------
        dict
            Keys settings, level, interval, n_resamples, summary (records of :meth:`summary_frame`), experiments
            (:meth:`experiment_json_dict` of each, without settings) and ranking; non-finite numbers are None.
        """
        return {
            "settings": dict(self.settings),
            "level": level if level is not None else self.resampled.level,
            "interval": method if method is not None else self.resampled.method,
            "n_resamples": self.resampled.n_resamples,
            "summary": _records(self.summary_frame(level, method)),
            "experiments": {name: {k: v for k, v in self.experiment_json_dict(name, level, method).items()
                                   if k != "settings"}
                            for name in self.settings.get("experiments", [])},
            "ranking": None if self.ranking is None else _records(self.ranking.to_frame()),
        }
