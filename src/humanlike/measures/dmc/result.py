"""The DMC result: the engine's :class:`~humanlike.resampling.results.Resampled` plus the published t-intervals,
counts, reasons, the per-split and per-item tables, and the JSON document of ``humanlike dmc``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...stats.correlation import constant_reason
from .metric import human_index
from ...stats.reliability import n_unique_splits, t_interval
from ...resampling.weights import nanmean_quiet
from ...resampling.results import Resampled
from .data import DMCData, DMCExperiment
from .kernel import ACCURACY, DMC, FIXED_GROUPS, MODEL_HUMAN_MEAN, SPLIT_HALF_R, DMCAggregation
from ..measure_result import MeasureResult
from ..pairwise import HUMANS, MODEL_MODEL
from .self_consistency import SelfConsistencyResult

FRAME_COLUMNS = ("level", "scope", "condition", "group", "kind", "metric", "estimate", "ci_low", "ci_high",
                 "undefined_share", "t_low", "t_high", "n", "n_items", "reason")
_HALF_NAMES = {"x constant": "half A constant", "y constant": "half B constant",
               "x and y constant": "both halves constant"}


def _summarise(reasons) -> str:
    counts = Counter(s for s in reasons if s)
    return "; ".join(f"{why} x{k}" for why, k in counts.most_common())


def point_reasons(exp: DMCExperiment, stratum, point: dict) -> dict[str, str]:
    """Why the point values of one condition are undefined (group -> reason).

    Parameters
    ----------
    exp : DMCExperiment
        The condition's experiment.
    stratum : Stratum
        The condition's DMC stratum.
    point : dict
        The kernel's point values of the stratum (:meth:`~humanlike.measures.dmc.kernel.DMCKernel.values`
        with unit weights).

    Returns
    -------
    dict of str to str
        ``{group: reason}`` for the groups whose value is undefined or averages fewer values than planned.

    Examples
    --------
    A model whose margins are constant in a condition has no DMC there:

    >>> import numpy as np
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.measures.dmc.kernel import DMCKernel
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-blur"]
    >>> flat = (trials["observer"] == "model-alien") & (trials["condition"] == "0")
    >>> data = assemble(trials.assign(decision_margin=np.where(flat, 1.0, trials["decision_margin"])))
    >>> experiment = data.experiments["sim-blur"]
    >>> stratum = data.design.stratum(("sim-blur", "0"))
    >>> point = DMCKernel({experiment.group: experiment}).values(stratum, np.ones((1, stratum.n_items)), None)
    >>> point_reasons(experiment, stratum, point)["model-alien"]
    'model margins constant'
    """
    reasons: dict[str, str] = {}
    correct, trials = stratum.arrays["correct"].T, stratum.arrays["trials"].T
    margins = stratum.arrays["margin"].T
    n_h, n_m = len(exp.humans), len(exp.models)
    index = human_index(correct.sum(axis=0), trials.sum(axis=0), exp.table) if n_h else None
    if n_h < 2:
        reasons[HUMANS] = f"split-half needs at least 2 human observers, found {n_h}"
    else:
        values = point["hh"][0]
        if np.isnan(values).any():
            why = []
            for s in np.flatnonzero(np.isnan(values)):
                a = exp.splits[s]
                ta, tb = trials[a].sum(axis=0), trials[~a].sum(axis=0)
                if (ta <= 0).any() or (tb <= 0).any():
                    why.append("an item has no responses in one half")
                    continue
                ha = human_index(correct[a].sum(axis=0), ta, exp.table)
                hb = human_index(correct[~a].sum(axis=0), tb, exp.table)
                c = str(constant_reason(ha, hb))
                why.append(_HALF_NAMES.get(c, c) or "r = -1 (Spearman-Brown undefined)")
            n_bad, n_all = int(np.isnan(values).sum()), values.size
            reasons[HUMANS] = (f"all {n_all} splits undefined: {_summarise(why)}" if n_bad == n_all else
                               f"{n_bad} of {n_all} splits undefined ({_summarise(why)}); mean over the rest")
    why_mh = []
    for k, model in enumerate(exp.models):
        if not n_h:
            reasons[model] = "no human observers"
        elif np.isnan(point["mh"][0, k]):
            c = str(constant_reason(margins[k], index))
            reasons[model] = {"x constant": "model margins constant", "y constant": "human index constant",
                              "x and y constant": "model margins and human index constant"}.get(c, c or "undefined")
        if model in reasons:
            why_mh.append(reasons[model])
    if n_m == 0:
        reasons[MODEL_HUMAN_MEAN] = "no models with decision margins"
    elif why_mh:
        n_bad = len(why_mh)
        reasons[MODEL_HUMAN_MEAN] = (f"undefined for every model: {_summarise(why_mh)}" if n_bad == n_m else
                                     f"undefined for {n_bad} of {n_m} models ({_summarise(why_mh)}); "
                                     "mean over the rest")
    if n_m < 2:
        reasons[MODEL_MODEL] = f"needs at least 2 models with decision margins, found {n_m}"
    else:
        mm = point["mm"][0]
        if np.isnan(mm).any():
            n_bad = int(np.isnan(mm).sum())
            reasons[MODEL_MODEL] = (f"all {mm.size} model pairs undefined (constant margins)" if n_bad == mm.size
                                    else f"{n_bad} of {mm.size} model pairs undefined (constant margins); "
                                    "mean over the rest")
    return reasons


def _details(exp: DMCExperiment, group: str, metric: str, values: dict) -> tuple[float, float, int]:
    """Published t-interval and n (defined values averaged) of one group from per-split/pair/model values."""
    if metric == ACCURACY:
        return np.nan, np.nan, (len(exp.humans) if group == HUMANS else 1)
    if group == HUMANS:
        n = int(np.isfinite(values["hh"]).sum()) if len(exp.humans) >= 2 else 0
        if metric == SPLIT_HALF_R:
            return np.nan, np.nan, n
        ti = t_interval(values["hh"])
        return ti.low, ti.high, n
    if group in (MODEL_MODEL, MODEL_HUMAN_MEAN):
        key = "mm" if group == MODEL_MODEL else "mh"
        ti = t_interval(values[key])
        return ti.low, ti.high, int(values[key].size)
    return np.nan, np.nan, 1


def _with_undefined_share(reason: str, share: float, estimate: float) -> str:
    if np.isfinite(estimate) and share > 0:
        extra = f"{100 * share:.1f}% of resamples undefined (left out of the interval)"
        return f"{reason}; {extra}" if reason else extra
    return reason


def summary_frame(resampled: Resampled, data: DMCData, aggregation: DMCAggregation,
                  points: dict[tuple, dict], reasons: dict[tuple, dict]) -> pd.DataFrame:
    """The tidy summary: the resampled frame plus t_low/t_high (published), n, n_items and full reasons.

    Parameters
    ----------
    resampled : Resampled
        The engine's result over the aggregation's labels.
    data : DMCData
        The assembled strata.
    aggregation : DMCAggregation
        The aggregation that produced ``resampled``.
    points : dict
        ``{stratum key: kernel point values}``.
    reasons : dict
        ``{stratum key: point_reasons(...)}``.

    Returns
    -------
    pandas.DataFrame
        One row per column of ``resampled``, columns :data:`FRAME_COLUMNS`.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.measures.dmc.kernel import DMCKernel
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])
    >>> kernel = DMCKernel({e.group: e for e in data.experiments.values()})
    >>> points = {s.key: kernel.values(s, np.ones((1, s.n_items)), None) for s in data.design}
    >>> from humanlike.measures.dmc.kernel import LABEL_NAMES, DMCAggregation
    >>> from humanlike.resampling.engine import bootstrap
    >>> from humanlike.resampling.kernels import Output
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> aggregation = DMCAggregation(data.design, data.experiments)
    >>> reasons = {s.key: point_reasons(kernel.experiment(s), s, points[s.key]) for s in data.design}
    >>> resampled = bootstrap(data.design, kernel, aggregation, Output(aggregation.labels, LABEL_NAMES),
    ...                       ResamplingSettings(n_resamples=0))
    >>> summary = summary_frame(resampled, data, aggregation, points, reasons)
    >>> row = summary[(summary["level"] == "experiment") & (summary["group"] == "humans")].iloc[0]
    >>> round(float(row["estimate"]), 3), int(row["n"]), int(row["n_items"])  # ceiling over 10 splits, 4 x 160 items
    (0.684, 10, 640)
    """
    frame = resampled.to_frame()
    estimate = resampled.estimate
    share = np.nan_to_num(resampled.undefined_share())
    t_low, t_high = np.full(len(frame), np.nan), np.full(len(frame), np.nan)
    n, n_items = np.zeros(len(frame), dtype=int), np.zeros(len(frame), dtype=int)
    why = np.full(len(frame), "", dtype=object)
    position = 0
    exp_estimates: dict[str, dict] = {}
    for exp in aggregation.experiments:
        cols = aggregation.columns[exp.name]
        sizes = {key: int(data.design.stratum(key).n_items) for key in exp.keys}
        start = position
        for key in exp.keys:
            p = points[key]
            values = {"hh": p["hh"][0], "mm": p["mm"][0], "mh": p["mh"][0]}
            for k, (group, metric) in enumerate(cols):
                t_low[position], t_high[position], n[position] = _details(exp, group, metric, values)
                n_items[position] = sizes[key]
                why[position] = reasons[key].get(group, "") if metric != ACCURACY else ""
                position += 1
        est = estimate[start:position].reshape(len(exp.keys), len(cols))
        avg = {k: nanmean_quiet(np.stack([points[key][k][0] for key in exp.keys]), axis=0) for k in ("hh", "mm", "mh")}
        for k, (group, metric) in enumerate(cols):
            t_low[position], t_high[position], n[position] = _details(exp, group, metric, avg)
            n_items[position] = sum(sizes.values())
            bad = [key[1] for c, key in enumerate(exp.keys) if np.isnan(est[c, k])]
            if bad and len(bad) == len(exp.keys):
                why[position] = "undefined in every condition: " + _summarise(reasons[key].get(group, "")
                                                                            for key in exp.keys)
            elif bad:
                shown = ", ".join(bad[:5]) + (", ..." if len(bad) > 5 else "")
                why[position] = f"undefined in {len(bad)} of {len(exp.keys)} conditions ({shown}); mean over the rest"
            exp_estimates.setdefault(exp.name, {})[(group, metric)] = (estimate[position], n_items[position])
            position += 1
    names = [e.name for e in aggregation.experiments]
    for group, metric in aggregation.overall_groups:
        per = [exp_estimates[e].get((group, metric), (np.nan, 0)) for e in names]
        values = np.array([v for v, _ in per], dtype=float)
        finite = values[np.isfinite(values)]
        if metric == DMC:
            ti = t_interval(finite)
            t_low[position], t_high[position] = ti.low, ti.high
        n[position] = int(finite.size)
        n_items[position] = int(sum(size for _, size in per))
        missing = int(np.isnan(values).sum())
        if missing and missing == len(names):
            why[position] = "undefined in every experiment"
        elif missing:
            why[position] = f"undefined or absent in {missing} of {len(names)} experiments; mean over the rest"
        position += 1
    frame["t_low"], frame["t_high"], frame["n"], frame["n_items"] = t_low, t_high, n, n_items
    frame["reason"] = [_with_undefined_share(r, s, e) for r, s, e in zip(why, share, estimate)]
    return frame[list(FRAME_COLUMNS)]


def splits_frame(exp: DMCExperiment, points: dict[tuple, dict]) -> pd.DataFrame:
    """Per split of the humans of one experiment: halves and the values averaged over conditions.

    Parameters
    ----------
    exp : DMCExperiment
        The experiment.
    points : dict
        ``{stratum key: kernel point values}`` of (at least) its strata.

    Returns
    -------
    pandas.DataFrame
        One row per split: experiment, split, half_a, half_b (comma-joined names), corrected (Spearman–Brown),
        raw_r, enumerated, n_unique_splits.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.measures.dmc.kernel import DMCKernel
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])
    >>> kernel = DMCKernel({e.group: e for e in data.experiments.values()})
    >>> points = {s.key: kernel.values(s, np.ones((1, s.n_items)), None) for s in data.design}
    >>> splits = splits_frame(data.experiments["sim-blur"], points)
    >>> len(splits), splits.loc[0, "half_a"]
    (10, 'subject-01,subject-02,subject-03')
    """
    if exp.splits.shape[0] == 0:
        return pd.DataFrame(columns=["experiment", "split", "half_a", "half_b", "corrected", "raw_r", "enumerated"])
    hh = nanmean_quiet(np.stack([points[key]["hh"][0] for key in exp.keys]), axis=0)
    hr = nanmean_quiet(np.stack([points[key]["hh_r"][0] for key in exp.keys]), axis=0)
    names = np.asarray(exp.humans, dtype=object)
    return pd.DataFrame({
        "experiment": exp.name, "split": np.arange(exp.splits.shape[0]),
        "half_a": [",".join(names[row]) for row in exp.splits],
        "half_b": [",".join(names[~row]) for row in exp.splits],
        "corrected": hh, "raw_r": hr, "enumerated": exp.enumerated,
        "n_unique_splits": n_unique_splits(len(exp.humans)),
    })


def items_frame(exp: DMCExperiment, design) -> pd.DataFrame:
    """The item vectors of one experiment: the pooled human index (observer ``humans``) and each model's margins.

    Parameters
    ----------
    exp : DMCExperiment
        The experiment.
    design : Design
        The DMC design holding its strata.

    Returns
    -------
    pandas.DataFrame
        Columns experiment, condition, item, observer, value (human index or margin), n_responses.

    Examples
    --------
    >>> from humanlike.measures.dmc.data import assemble
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> data = assemble(trials[trials["experiment"] == "sim-blur"])
    >>> items = items_frame(data.experiments["sim-blur"], data.design)
    >>> len(items), int(items.loc[0, "n_responses"])   # (humans + 5 models) x 640 items; 6 responses per item
    (3840, 6)
    """
    cols: dict[str, list] = {"condition": [], "item": [], "observer": [], "value": [], "n_responses": []}
    for key in exp.keys:
        s = design.stratum(key)
        n = s.n_items
        if exp.humans:
            den = s.arrays["trials"].sum(axis=1)
            cols["value"].append(human_index(s.arrays["correct"].sum(axis=1), den, exp.table))
            cols["n_responses"].append(den.astype(int))
            cols["observer"].append(np.full(n, HUMANS, dtype=object))
            cols["condition"].append(np.full(n, key[1], dtype=object))
            cols["item"].append(s.items.astype(object))
        for k, model in enumerate(exp.models):
            cols["value"].append(s.arrays["margin"][:, k])
            cols["n_responses"].append(np.ones(n, dtype=int))
            cols["observer"].append(np.full(n, model, dtype=object))
            cols["condition"].append(np.full(n, key[1], dtype=object))
            cols["item"].append(s.items.astype(object))
    if not cols["item"]:
        return pd.DataFrame(columns=["experiment", "condition", "item", "observer", "value", "n_responses"])
    frame = pd.DataFrame({k: np.concatenate(v) for k, v in cols.items()})
    frame.insert(0, "experiment", exp.name)
    return frame


@dataclass(frozen=True, repr=False)
class DMCResult(MeasureResult):
    """Decision-margin consistency of a trial table.

    Attributes
    ----------
    resampled : Resampled
        The engine's result: one column per (level, scope, condition, group, kind, metric) with its estimate,
        kept replicates and (with ``interval="bca"``) the item jackknife; ``.interval(level, method)`` at any
        level without rerunning.
    summary_table : pandas.DataFrame
        Tidy, one row per column of ``resampled``: level (``condition`` / ``experiment`` / ``overall``), scope
        (experiment or ``overall``), condition (``""`` when averaged), group (``humans`` = the split-half noise
        ceiling, a model = its DMC with the pooled human index, ``model-model``, ``model-human (mean)``), kind,
        metric (``decision_margin_consistency``; ``split_half_r``; ``accuracy``), estimate, ci_low / ci_high
        (the bootstrap interval of the settings), undefined_share (of the resamples), t_low / t_high (the
        published t-interval over splits, pairs or models; too narrow, see :mod:`humanlike.measures.dmc.analysis`), n
        (values averaged: defined splits, model pairs, models; experiments at the overall level), n_items,
        reason (why an estimate is NaN or averages fewer values than planned).
    splits, items : pandas.DataFrame
        Per split the halves and values (averaged over conditions); the item vectors.
    skipped_models : dict
        Model -> why it has no DMC (no usable margins).
    notes : tuple of str
        What the data assembly dropped or skipped.
    self_consistency : SelfConsistencyResult or None
        See :func:`humanlike.measures.dmc.self_consistency.self_consistency`.
    settings : dict
        The resampling settings (:class:`~humanlike.resampling.settings.ResamplingSettings`) and the DMC options.

    Examples
    --------
    >>> from humanlike.measures.dmc.analysis import decision_margin_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> result = decision_margin_consistency(simulate_benchmark(seed=0), experiments=["sim-blur"], settings=dmc_settings(n_resamples=20))
    >>> table = result.table("sim-blur").set_index("group")
    >>> round(float(table.loc["humans", "estimate"]), 3), round(float(table.loc["model-humanlike", "estimate"]), 3)
    (0.684, 0.582)
    >>> len(result.splits), result.skipped_models
    (10, {})
    """

    resampled: Resampled
    summary_table: pd.DataFrame
    splits: pd.DataFrame
    items: pd.DataFrame
    skipped_models: dict
    notes: tuple
    self_consistency: SelfConsistencyResult | None
    settings: dict

    measure = "dmc"
    # the text its command prints is its summary (MeasureResult.summary)
    text_formatter = "humanlike.measures.dmc.cli:format_dmc"

    @property
    def experiments(self) -> list[str]:
        """Names of the analysed experiments."""
        return list(self.settings["experiments"])

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The summary, with the intervals at ``level`` by ``method`` (default: those of the settings; the
        published t-intervals under ``--preset paper``); :meth:`to_frame` puts the core columns first.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); defaults to the settings' level.
        method : {"percentile", "bca"}, optional
            Interval method (``"bca"`` needs the jackknife kept); defaults to the settings' method.

        Returns
        -------
        pandas.DataFrame
            :attr:`summary_table`, with ci_low/ci_high recomputed when ``level`` or ``method`` is given.
        """
        if level is None and method is None:
            return self.summary_table
        low, high = self.interval(level, method)
        return self.summary_table.assign(ci_low=low, ci_high=high)

    def with_published_intervals(self) -> DMCResult:
        """The result as the paper reports it (``--preset paper``): ci_low/ci_high are the published
        t-intervals (mean +- t sd / sqrt(n) over splits, model pairs, models, or experiments at the overall level);
        rows without one (a single model's DMC, accuracies) get no interval. The estimates are unchanged; the
        bootstrap replicates stay in :attr:`resampled`.

        Returns
        -------
        DMCResult
            A copy whose summary intervals are the t-intervals and whose settings say so.
        """
        summary = self.summary_table.assign(ci_low=self.summary_table["t_low"], ci_high=self.summary_table["t_high"])
        settings = dict(self.settings, preset="paper", interval="t (published)")
        return DMCResult(self.resampled, summary, self.splits, self.items, self.skipped_models, self.notes,
                         self.self_consistency, settings)

    def table(self, scope: str = "overall", metric: str = DMC, condition: str = "") -> pd.DataFrame:
        """Rows of one scope (experiment or ``overall``), metric and condition (``""`` = mean over them).

        Parameters
        ----------
        scope : str
            An experiment name or ``"overall"``.
        metric : str
            ``"decision_margin_consistency"``, ``"split_half_r"`` or ``"accuracy"``.
        condition : str
            One condition, or ``""`` for the mean over conditions.

        Returns
        -------
        pandas.DataFrame
            The matching :attr:`summary_table` rows, one per group.
        """
        s = self.summary_table
        return s[(s["scope"] == scope) & (s["metric"] == metric) & (s["condition"] == condition)].reset_index(drop=True)

    def to_json_dict(self, experiment: str | None = None) -> dict:
        """The ``humanlike dmc --json`` document.

        For one experiment (``experiment``, or the only one): ``human_human`` {mean (Spearman–Brown corrected
        ceiling), ci_low, ci_high, undefined_share, n_splits, raw_r, t_low, t_high, conditions},
        ``model_human`` {model: {mean, ci_low, ci_high, accuracy, conditions}}, ``model_human_mean``,
        ``model_model`` {..., n_pairs}, where ``conditions`` maps each condition to the same fields. With
        several experiments and ``experiment=None`` the top level is the overall mean and ``experiments`` holds
        one such document per experiment. ``settings`` records everything needed to reproduce the run.

        Parameters
        ----------
        experiment : str, optional
            One experiment's document (default: the only experiment, else the overall document).

        Returns
        -------
        dict
            The document described above, plus skipped_models, notes, self_consistency (when computed) and
            settings.

        Raises
        ------
        KeyError
            When ``experiment`` was not analysed.
        """
        if experiment is None and len(self.experiments) == 1:
            experiment = self.experiments[0]
        if experiment is not None:
            doc = self._scope_doc(experiment, with_conditions=True)
            doc["experiment"] = experiment
        else:
            doc = self._scope_doc("overall", with_conditions=False)
            doc["experiments"] = {e: self._scope_doc(e, with_conditions=True) for e in self.experiments}
        doc["skipped_models"] = dict(self.skipped_models)
        doc["notes"] = list(self.notes)
        if self.self_consistency is not None:
            doc["self_consistency"] = self.self_consistency.to_json_dict()
        doc["settings"] = dict(self.settings)
        return doc

    def _rows(self) -> dict:
        """(scope, condition) -> {(group, metric): row} over the summary (built once; dict lookups after)."""
        cached = self.__dict__.get("_row_index")
        if cached is None:
            cached = {}
            for row in self.summary_table.to_dict("records"):
                cached.setdefault((row["scope"], row["condition"]), {})[(row["group"], row["metric"])] = row
            object.__setattr__(self, "_row_index", cached)
        return cached

    def _scope_doc(self, scope: str, with_conditions: bool) -> dict:
        index = self._rows()
        if (scope, "") not in index:
            raise KeyError(f"no results for {scope!r}; available: {self.experiments + ['overall']}")

        def entry(rows: dict, group: str, count: str | None) -> dict:
            r = rows.get((group, DMC))
            if r is None:
                return {"mean": None, "ci_low": None, "ci_high": None, "reason": "not computed"}
            out = {"mean": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                   "undefined_share": r["undefined_share"], "t_low": r["t_low"], "t_high": r["t_high"]}
            if count:
                out["n_experiments" if scope == "overall" else count] = int(r["n"])
            acc = rows.get((group, ACCURACY))
            if acc is not None:
                out["accuracy"] = acc["estimate"]
            if group == HUMANS:
                raw = rows.get((group, SPLIT_HALF_R))
                out["raw_r"] = raw["estimate"] if raw is not None else None
            if r["reason"]:
                out["reason"] = r["reason"]
            return out

        def block(rows: dict) -> dict:
            models = list(dict.fromkeys(g for g, _ in rows if g not in FIXED_GROUPS))
            return {"human_human": entry(rows, HUMANS, "n_splits"),
                    "model_human": {m: entry(rows, m, None) for m in models},
                    "model_human_mean": entry(rows, MODEL_HUMAN_MEAN, "n_models"),
                    "model_model": entry(rows, MODEL_MODEL, "n_pairs")}

        top = block(index[(scope, "")])
        if with_conditions:
            conditions = sorted(c for sc, c in index if sc == scope and c != "")
            per = {c: block(index[(scope, c)]) for c in conditions}
            for key in ("human_human", "model_human_mean", "model_model"):
                top[key]["conditions"] = {c: doc[key] for c, doc in per.items()}
            for m in top["model_human"]:
                top["model_human"][m]["conditions"] = {c: doc["model_human"].get(m) for c, doc in per.items()}
        return top
