"""The EC benchmark's aggregation of a pairwise latent correlation, and its result.

Per experiment, a per-stratum correlation of every observer pair (per condition) is averaged over the
conditions per pair (undefined values skipped), then over the human–human pairs, each model's pairs with the
humans and the model–model pairs, then over experiments with equal weight
(docs/measures/decision-variable-correlation.md): :func:`benchmark_plan` lays out the groups and the output
labels, :func:`benchmark_aggregate` is the aggregation the engine runs on the estimate and every resample,
:class:`LatentBenchmarkResult` the result. The two views that use it are
:func:`humanlike.measures.dvc.choices.latent_correctness_correlation` (tetrachoric correlation of correctness)
and :func:`humanlike.measures.dvc.choices_probit.margin_probit_correlation` (models' margins, probit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.design import Design
from ...resampling.weights import group_mean, nanmean_quiet
from ...resampling.results import Resampled
from ..measure_result import MeasureResult
from ..pairwise import HUMANS, MODEL_MODEL


@dataclass(frozen=True, repr=False)
class LatentBenchmarkResult(MeasureResult):
    """Group means of a pairwise latent correlation per experiment and overall, with intervals.

    ``values`` is a :class:`Resampled` labelled (scope, group, kind, observer_1, observer_2): scope is an
    experiment or ``"overall"``; group ``"humans"`` (human–human), ``"model-model"``, a model name
    (model–human) or ``"pair"`` (one pair's mean over conditions, observer fields set). Made by
    :func:`humanlike.measures.dvc.choices.latent_correctness_correlation` and
    :func:`humanlike.measures.dvc.choices_probit.margin_probit_correlation`.

    Parameters
    ----------
    values : Resampled
        Estimates and replicates, labelled as above.
    metric : str
        ``"tetrachoric_correctness"`` or ``"margin_probit"``.

    Examples
    --------
    >>> from humanlike.measures.dvc.choices import latent_correctness_correlation
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_benchmark(seed=0)
    >>> result = latent_correctness_correlation(trials, experiments=["sim-noise"],
    ...                                         settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.metric, result.groups()["group"].tolist()[:3]
    ('tetrachoric_correctness', ['humans', 'model-model', 'model-alien'])
    """

    values: Resampled
    metric: str
    measure = "dvc"
    resampled_field = "values"

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The tidy frame's rows, with the ``metric`` column after the core columns.

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
        frame = self.values.to_frame(level, method)
        frame["metric"] = self.metric
        return frame

    def table(self) -> pd.DataFrame:
        """The table ``humanlike dvc choices`` writes, one row per estimate (:meth:`to_frame` is the same rows
        with the core columns first).

        Returns
        -------
        pandas.DataFrame
            Columns metric, scope, group, kind, observer_1, observer_2, estimate, ci_low, ci_high,
            undefined_share, reason.
        """
        frame = self.values.to_frame()
        frame.insert(0, "metric", self.metric)
        return frame

    def groups(self, scope: str = "overall") -> pd.DataFrame:
        """Group rows (humans, model-model, each model) of one scope, without the per-pair rows.

        Parameters
        ----------
        scope : str
            An experiment name or ``"overall"``.

        Returns
        -------
        pandas.DataFrame
            The rows of :meth:`table` of that scope whose group is not ``"pair"``.
        """
        frame = self.table()
        return frame[(frame["scope"] == scope) & (frame["group"] != "pair")].reset_index(drop=True)

    def to_json_dict(self, scope: str = "overall") -> dict:
        """``human_human``, ``model_human`` (per model), ``model_model`` with mean, ci_low, ci_high.

        Parameters
        ----------
        scope : str
            An experiment name or ``"overall"``.

        Returns
        -------
        dict
            Keys metric, scope, human_human, model_human (``{model: entry}``), model_model (an entry is
            ``{mean, ci_low, ci_high, undefined_share, reason}`` or None where the group has no pairs), pairs (with
            pair intervals) and settings.
        """
        rows = self.groups(scope).set_index("group")

        def entry(group):
            if group not in rows.index:
                return None
            r = rows.loc[group]
            return {"mean": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                    "undefined_share": r["undefined_share"], "reason": r["reason"]}

        doc = {"metric": self.metric, "scope": scope, "human_human": entry(HUMANS),
               "model_human": {g: entry(g) for g in rows.index if g not in (HUMANS, MODEL_MODEL)},
               "model_model": entry(MODEL_MODEL)}
        frame = self.table()
        pairs = frame[(frame["group"] == "pair") & (frame["scope"] == scope)]
        if not pairs.empty:
            doc["pairs"] = pairs[["observer_1", "observer_2", "estimate", "ci_low", "ci_high"]].to_dict("records")
        doc["settings"] = self.values.settings
        return doc



def _group_matrix(observers, kinds, first, second, models):
    is_human = np.array([kinds[o] == "human" for o in observers])
    groups = [HUMANS, MODEL_MODEL] + models
    g = np.zeros((first.size, len(groups)))
    g[:, 0] = is_human[first] & is_human[second]
    g[:, 1] = ~is_human[first] & ~is_human[second]
    for k, model in enumerate(models):
        m = observers.index(model)
        g[:, 2 + k] = ((first == m) & is_human[second]) | ((second == m) & is_human[first])
    return groups, g


def benchmark_plan(design: Design, kinds: dict, pair_intervals: bool, models_filter):
    """Per experiment: observers, pair indices, groups; and the output labels.

    Parameters
    ----------
    design : Design
        The (experiment, condition) strata, grouped by experiment; every stratum of an experiment has the same
        observers.
    kinds : dict of str to str
        ``{observer: "human" or "model"}``.
    pair_intervals : bool
        Also label every pair's condition-averaged value (group ``"pair"``).
    models_filter : callable or None
        ``models_filter(observers, first, second)`` -> boolean mask of the pairs to keep (None: every pair).

    Returns
    -------
    plan : list of dict
        Per experiment: ``experiment``, ``keys`` (its strata), ``observers``, ``first``, ``second`` (the kept
        pairs), ``groups``, ``matrix`` (pairs x groups membership), ``start`` (its first output column) and
        ``overall_columns`` (its groups' columns among the overall ones).
    labels : list of tuple
        Output labels (scope, group, kind, observer_1, observer_2): per experiment its groups (and pairs), then
        the overall groups.

    Examples
    --------
    >>> from humanlike.trials.design import build_design, observer_kinds
    >>> from humanlike.trials.selection import select_trials
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = select_trials(simulate_benchmark(seed=0), experiments=["sim-noise"])
    >>> design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), margins=False)
    >>> plan, labels = benchmark_plan(design, observer_kinds(trials), False, None)
    >>> plan[0]["groups"][:3]
    ['humans', 'model-model', 'model-alien']
    >>> labels[0], labels[-1]
    (('sim-noise', 'humans', 'human-human', '', ''), ('overall', 'model-texture', 'model-human', '', ''))
    """
    experiments = sorted({s.key[0] for s in design})
    plan = []
    labels_out = []
    all_groups = [HUMANS, MODEL_MODEL]
    for experiment in experiments:
        strata = [s for s in design if s.key[0] == experiment]
        observers = list(strata[0].observers)
        first, second = np.triu_indices(len(observers), 1)
        if models_filter is not None:
            keep = models_filter(observers, first, second)
            first, second = first[keep], second[keep]
        models = [o for o in observers if kinds[o] == "model"]
        groups, matrix = _group_matrix(observers, kinds, first, second, models)
        used = matrix.sum(axis=0) > 0
        groups = [g for g, u in zip(groups, used) if u]
        matrix = matrix[:, used]
        all_groups += [g for g in groups if g not in all_groups]
        start = len(labels_out)
        labels_out += [(experiment, g, _kind(g), "", "") for g in groups]
        if pair_intervals:
            labels_out += [(experiment, "pair", _pair_kind(kinds, observers[a], observers[b]),
                            observers[a], observers[b]) for a, b in zip(first, second)]
        plan.append(dict(experiment=experiment, keys=[s.key for s in strata], observers=observers,
                         first=first, second=second, groups=groups, matrix=matrix, start=start))
    overall_start = len(labels_out)
    all_groups = [g for g in all_groups if any(g in p["groups"] for p in plan)]
    labels_out += [("overall", g, _kind(g), "", "") for g in all_groups]
    for p in plan:
        p["overall_columns"] = [overall_start + all_groups.index(g) for g in p["groups"]]
    return plan, labels_out


def benchmark_aggregate(design, plan, labels_out, per_stratum):
    """The aggregation the engine runs on the estimate and every resample: per-stratum pair values -> group means.

    Parameters
    ----------
    design : Design
        The strata (as given to :func:`benchmark_plan`).
    plan : list of dict
        From :func:`benchmark_plan`.
    labels_out : list of tuple
        The labels from :func:`benchmark_plan`.
    per_stratum : callable
        ``per_stratum(stratum, sums)`` -> (R x pairs) values of every pair of the stratum's observers (NaN where
        undefined), from the kernel's weighted sums (R x S).

    Returns
    -------
    callable
        ``aggregate(values)``: ``{stratum key: sums}`` -> (R x len(labels_out)): per experiment the mean over
        conditions per pair, the group means (and the pairs), then per group the mean over the experiments that
        have it.

    Examples
    --------
    >>> from humanlike.trials.design import build_design, observer_kinds
    >>> from humanlike.trials.selection import select_trials
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = select_trials(simulate_benchmark(seed=0), experiments=["sim-noise"])
    >>> design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), margins=False)
    >>> plan, labels = benchmark_plan(design, observer_kinds(trials), False, None)
    >>> def half(stratum, sums):   # every pair's value 0.5
    ...     n = len(stratum.observers)
    ...     return np.full((sums.shape[0], n * (n - 1) // 2), 0.5)
    >>> out = benchmark_aggregate(design, plan, labels, half)({s.key: np.zeros((2, 1)) for s in design})
    >>> out.shape == (2, len(labels)), bool(np.all(out == 0.5))
    (True, True)
    """
    n_overall = sum(1 for lab in labels_out if lab[0] == "overall")

    def aggregate(values):
        rows = max(v.shape[0] for v in values.values())
        out = np.full((rows, len(labels_out)), np.nan)
        overall_sum = np.zeros((rows, n_overall))
        overall_n = np.zeros((rows, n_overall))
        first_overall = len(labels_out) - n_overall
        for p in plan:
            per_condition = []
            for key in p["keys"]:
                v = values[key]
                stratum = design.stratum(key)
                rho = per_stratum(stratum, v)
                per_condition.append(np.broadcast_to(rho, (rows, rho.shape[1])))
            pairs = nanmean_quiet(np.stack(per_condition), axis=0)
            pairs = pairs if pairs.shape[1] == p["first"].size else pairs[:, _pair_positions(p)]
            group_values = group_mean(pairs, p["matrix"])
            g = len(p["groups"])
            out[:, p["start"]:p["start"] + g] = group_values
            if labels_out[p["start"] + g:p["start"] + g + 1] and labels_out[p["start"] + g][1] == "pair":
                out[:, p["start"] + g:p["start"] + g + pairs.shape[1]] = pairs
            cols = np.asarray(p["overall_columns"]) - first_overall
            defined = ~np.isnan(group_values)
            overall_sum[:, cols] += np.where(defined, group_values, 0.0)
            overall_n[:, cols] += defined
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, first_overall:] = np.where(overall_n > 0, overall_sum / overall_n, np.nan)
        return out

    return aggregate


def _pair_positions(p):
    n = len(p["observers"])
    full_first, full_second = np.triu_indices(n, 1)
    index = {(a, b): k for k, (a, b) in enumerate(zip(full_first, full_second))}
    return np.array([index[(a, b)] for a, b in zip(p["first"], p["second"])])


def _kind(group: str) -> str:
    return "human-human" if group == HUMANS else "model-model" if group == MODEL_MODEL else "model-human"


def _pair_kind(kinds, a, b) -> str:
    ka, kb = kinds[a], kinds[b]
    return "human-human" if ka == kb == "human" else "model-model" if ka == kb == "model" else "model-human"
