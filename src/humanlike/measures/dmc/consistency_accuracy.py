"""EC and DMC of every model against its accuracy, per experiment, with human-human, model-model and mean
model-human reference levels (Alvarez & Konkle's Figure 2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..ec.metric import UndefinedPolicy
from ...resampling.intervals import percentile_interval
from ...resampling.weights import nanmean_quiet
from ...resampling.settings import ResamplingSettings
from .analysis import decision_margin_consistency, dmc_settings
from .kernel import ACCURACY, DMC, MODEL_HUMAN_MEAN
from .result import DMCResult
from ...trials.selection import apply_exclusions
from ..pairwise import HUMANS, MODEL_MODEL


@dataclass(frozen=True)
class ConsistencyComparison:
    """Per experiment, each model's EC and DMC to humans against its accuracy, with reference levels.

    ``models``: experiment, observer, accuracy, measure (``error_consistency`` /
    ``decision_margin_consistency``), estimate, ci_low, ci_high. ``levels``: experiment, measure, group
    (``human-human``, ``model-model``, ``model-human (mean)``), estimate, ci_low, ci_high, plus the mean
    human accuracy (``human_accuracy``). Made by :func:`consistency_vs_accuracy`.

    Parameters
    ----------
    models : pandas.DataFrame
        One row per (experiment, model, measure), columns as above.
    levels : pandas.DataFrame
        One row per (experiment, measure, reference group), columns as above.
    settings : dict
        The resampling settings the comparison ran with, ``experiments``, and the DMC and EC runs' settings
        under ``dmc`` and ``ec``.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> c = consistency_vs_accuracy(simulate_benchmark(seed=0), experiments=["sim-blur"],
    ...                             settings=dmc_settings(n_resamples=0))
    >>> dmc = c.models[c.models["measure"] == "decision_margin_consistency"].set_index("observer")
    >>> round(float(dmc.loc["model-humanlike", "estimate"]), 3), round(float(dmc.loc["model-alien", "estimate"]), 3)
    (0.582, -0.09)
    >>> c.levels["group"].unique().tolist()
    ['human-human', 'model-model', 'model-human (mean)']
    """

    models: pd.DataFrame
    levels: pd.DataFrame
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The model rows and the reference levels in one tidy table.

        Returns
        -------
        pandas.DataFrame
            :attr:`models` (``row="model"``) followed by :attr:`levels` (``row="level"``, ``group`` renamed
            ``observer``); columns experiment, observer, accuracy, measure, estimate, ci_low, ci_high, row,
            human_accuracy (NaN where a column does not apply).
        """
        m = self.models.assign(row="model")
        lv = self.levels.rename(columns={"group": "observer"}).assign(row="level")
        return pd.concat([m, lv], ignore_index=True)


def consistency_vs_accuracy(
    trials: pd.DataFrame,
    *,
    experiments: list[str] | None = None,
    exclusions: dict[str, tuple[str, ...]] | None = None,
    dmc_result: DMCResult | None = None,
    ec_result=None,
    settings: ResamplingSettings | None = None,
    method: str = "pearson",
    dprime: bool = False,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
) -> ConsistencyComparison:
    """EC and DMC of every model with decision margins, per experiment, against its accuracy.

    DMC comes from :func:`decision_margin_consistency` (or ``dmc_result``); EC from one run of
    :func:`humanlike.measures.ec.analysis.error_consistency` over the selected experiments, on the humans
    and the models with margins (or ``ec_result``, e.g. the benchmark's own, which is not recomputed). Both use
    the engine's per-condition random streams, so an experiment's numbers do not depend on which others are
    selected, and a model's EC rows equal those of any other EC run with the same seed and settings.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table (humans, and models with decision margins).
    experiments : list of str, optional
        Restrict to these experiments (default: every experiment of the DMC result).
    exclusions : dict, optional
        ``{experiment: conditions}`` to drop first.
    dmc_result : DMCResult, optional
        A DMC result to reuse; otherwise computed with the settings below.
    ec_result : ErrorConsistencyResult, optional
        An EC result to reuse (its model-model level then covers the models of that run).
    settings : ResamplingSettings, optional
        Resamples, level, seed and observer level (both measures) of what is computed here; default
        :data:`~humanlike.measures.dmc.analysis.DEFAULT_SETTINGS` (10,000 resamples, observer jackknife).
    method : {"pearson", "spearman"}
        DMC correlation.
    dprime : bool
        DMC with the d' index.
    policy : UndefinedPolicy or str
        EC where kappa is undefined.

    Returns
    -------
    ConsistencyComparison
        ``models``: per experiment and model its accuracy, EC and DMC with intervals; ``levels``: human-human,
        model-model and mean model-human levels of both measures with their bands.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> c = consistency_vs_accuracy(simulate_benchmark(seed=0), experiments=["sim-blur"],
    ...                             settings=dmc_settings(n_resamples=0))
    >>> sorted(c.models["measure"].unique())
    ['decision_margin_consistency', 'error_consistency']
    >>> ec = c.models[c.models["measure"] == "error_consistency"].set_index("observer")
    >>> round(float(ec.loc["model-humanlike", "estimate"]), 3), round(float(ec.loc["model-humanlike", "accuracy"]), 3)
    (0.258, 0.622)
    """
    from ..ec.analysis import error_consistency
    from ..pairwise import HUMANS as EC_HUMANS
    from ..pairwise import MODEL_MODEL as EC_MODEL_MODEL

    settings = dmc_settings(settings)
    if dmc_result is None:
        dmc_result = decision_margin_consistency(
            trials, experiments=experiments, exclusions=exclusions, settings=settings, method=method, dprime=dprime)
    names = dmc_result.experiments if experiments is None else [e for e in dmc_result.experiments if e in experiments]
    s = dmc_result.summary_table
    s = s[s["level"] == "experiment"]
    dmc_models = {e: [g for g in s.loc[(s["scope"] == e) & (s["metric"] == DMC), "group"]
                      if g not in (HUMANS, MODEL_MODEL, MODEL_HUMAN_MEAN)] for e in names}
    if ec_result is None:
        trials = apply_exclusions(trials, exclusions)
        keep = trials["experiment"].isin(names) & (
            (trials["observer_kind"] == "human")
            | pd.Series(list(zip(trials["experiment"], trials["observer"])), index=trials.index).isin(
                {(e, m) for e, ms in dmc_models.items() for m in ms}))
        sub = trials[keep]
        enough = sub.groupby("experiment")["observer"].nunique()
        sub = sub[sub["experiment"].isin(enough[enough >= 2].index)]
        ec_result = error_consistency(sub, settings=settings, policy=policy) if len(sub) else None
    ec = ec_result.resampled.where(metric="error_consistency") if ec_result is not None else None
    ec_rows = ec.to_frame() if ec is not None else pd.DataFrame(columns=["scope", "group", "estimate"])

    model_rows, level_rows = [], []
    for experiment in names:
        rows = s[s["scope"] == experiment]
        dmc_rows = rows[rows["metric"] == DMC].set_index("group")
        acc_rows = rows[rows["metric"] == ACCURACY].set_index("group")
        models = dmc_models[experiment]
        for m in models:
            r = dmc_rows.loc[m]
            model_rows.append(dict(experiment=experiment, observer=m, accuracy=acc_rows.loc[m, "estimate"],
                                   measure=DMC, estimate=r["estimate"], ci_low=r["ci_low"], ci_high=r["ci_high"]))
        h_acc = acc_rows.loc[HUMANS, "estimate"] if HUMANS in acc_rows.index else np.nan
        for group, label in ((HUMANS, "human-human"), (MODEL_MODEL, "model-model"),
                             (MODEL_HUMAN_MEAN, "model-human (mean)")):
            r = dmc_rows.loc[group]
            level_rows.append(dict(experiment=experiment, measure=DMC, group=label, estimate=r["estimate"],
                                   ci_low=r["ci_low"], ci_high=r["ci_high"], human_accuracy=h_acc))
        es = ec_rows[ec_rows["scope"] == experiment].set_index("group")
        if es.empty:
            continue
        for m in models:
            if m in es.index:
                r = es.loc[m]
                model_rows.append(dict(experiment=experiment, observer=m, accuracy=acc_rows.loc[m, "estimate"],
                                       measure="error_consistency", estimate=r["estimate"], ci_low=r["ci_low"],
                                       ci_high=r["ci_high"]))
        for group, label in ((EC_HUMANS, "human-human"), (EC_MODEL_MODEL, "model-model")):
            if group in es.index:
                r = es.loc[group]
                level_rows.append(dict(experiment=experiment, measure="error_consistency", group=label,
                                       estimate=r["estimate"], ci_low=r["ci_low"], ci_high=r["ci_high"],
                                       human_accuracy=h_acc))
        ec_models = [m for m in models if m in es.index]
        if ec_models:
            # The mean over models of each resample: the band of the mean model-human EC.
            columns = ec.where(scope=experiment, group=ec_models)
            mean = float(nanmean_quiet(columns.estimate[None, :], axis=1)[0])
            lo = hi = np.nan
            if columns.replicates.shape[0] > 0:
                lo, hi = percentile_interval(nanmean_quiet(columns.replicates, axis=1)[:, None], settings.level)
                lo, hi = float(lo[0]), float(hi[0])
            level_rows.append(dict(experiment=experiment, measure="error_consistency", group="model-human (mean)",
                                   estimate=mean, ci_low=lo, ci_high=hi, human_accuracy=h_acc))
    models_frame = pd.DataFrame(model_rows, columns=["experiment", "observer", "accuracy", "measure", "estimate",
                                                     "ci_low", "ci_high"])
    levels_frame = pd.DataFrame(level_rows, columns=["experiment", "measure", "group", "estimate", "ci_low",
                                                     "ci_high", "human_accuracy"])
    record = dict(settings.to_dict(), experiments=names, dmc=dict(dmc_result.settings),
                  ec=dict(ec_result.settings) if ec_result is not None else None)
    return ConsistencyComparison(models_frame, levels_frame, record)
