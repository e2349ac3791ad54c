"""EC and DMC of every model against its accuracy, per experiment, with human-human, model-model and mean
model-human reference levels (Alvarez & Konkle's Figure 2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics.ec import UndefinedPolicy
from ..stats.intervals import percentile_interval
from ..stats.rng import make_rng
from .dmc import decision_margin_consistency
from .dmc_kernel import ACCURACY, DMC, HUMANS, MODEL_HUMAN_MEAN, MODEL_MODEL, nanmean_quiet
from .dmc_results import DMCResult
from .errorconsistency import apply_exclusions


@dataclass(frozen=True)
class ConsistencyComparison:
    """Per experiment, each model's EC and DMC to humans against its accuracy, with reference levels.

    ``models``: experiment, observer, accuracy, measure (``error_consistency`` /
    ``decision_margin_consistency``), estimate, ci_low, ci_high. ``levels``: experiment, measure, group
    (``human-human``, ``model-model``, ``model-human (mean)``), estimate, ci_low, ci_high, plus the mean
    human accuracy (``human_accuracy``).
    """

    models: pd.DataFrame
    levels: pd.DataFrame
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The result as a tidy table (one row per estimate: labels, estimate, interval and reason where they apply)."""
        m = self.models.assign(row="model")
        lv = self.levels.rename(columns={"group": "observer"}).assign(row="level")
        return pd.concat([m, lv], ignore_index=True)


def consistency_vs_accuracy(
    trials: pd.DataFrame,
    *,
    experiments: list[str] | None = None,
    exclusions: dict[str, tuple[str, ...]] | None = None,
    dmc_result: DMCResult | None = None,
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
    observer_level: str = "jackknife",
    method: str = "pearson",
    dprime: bool = False,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
) -> ConsistencyComparison:
    """EC and DMC of every model with decision margins, per experiment, against its accuracy.

    Examples
    --------
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> c = consistency_vs_accuracy(simulate_benchmark(seed=0), experiments=["sim-blur"], n_resamples=0)
    >>> sorted(c.models["measure"].unique())
    ['decision_margin_consistency', 'error_consistency']

    DMC comes from :func:`decision_margin_consistency` (or ``dmc_result``); EC from
    :func:`humanlike.analyses.errorconsistency.error_consistency`, run per experiment on the humans and the
    same models (so both measures describe the same systems). Levels: human–human (EC: mean over human
    pairs; DMC: the split-half ceiling), model–model, and the mean model–human value, each with its
    bootstrap band (for EC the mean model–human band comes from the per-model replicates of the same
    resamples). Accuracy: per model, mean over the experiment's conditions (from the DMC result). EC
    intervals resample items (and human observers only when ``observer_level="bootstrap"``; the EC pipeline
    has no jackknife level), so its bands can be a little narrower than the DMC ones.
    """
    from .errorconsistency import HUMANS as EC_HUMANS
    from .errorconsistency import MODEL_MODEL as EC_MODEL_MODEL
    from .errorconsistency import error_consistency

    if dmc_result is None:
        dmc_result = decision_margin_consistency(
            trials, experiments=experiments, exclusions=exclusions, n_resamples=n_resamples, level=level,
            seed=seed, observer_level=observer_level, method=method, dprime=dprime)
    names = dmc_result.experiments if experiments is None else [e for e in dmc_result.experiments if e in experiments]
    s = dmc_result.summary
    s = s[s["level"] == "experiment"]
    trials = apply_exclusions(trials, exclusions)
    model_rows, level_rows = [], []
    rng = make_rng(seed)
    for k, experiment in enumerate(names):
        rows = s[s["scope"] == experiment]
        dmc_rows = rows[rows["metric"] == DMC].set_index("group")
        acc_rows = rows[rows["metric"] == ACCURACY].set_index("group")
        models = [g for g in dmc_rows.index if g not in (HUMANS, MODEL_MODEL, MODEL_HUMAN_MEAN)]
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
        sub = trials[(trials["experiment"] == experiment)
                     & ((trials["observer_kind"] == "human") | trials["observer"].isin(models))]
        if sub.empty or sub["observer"].nunique() < 2:
            continue
        ec = error_consistency(sub, n_resamples=n_resamples, level=level, seed=int(rng.integers(2**62)),
                               resample_observers=observer_level == "bootstrap", policy=policy)
        es = ec.summary
        es = es[(es["scope"] == experiment) & (es["metric"] == "error_consistency")].set_index("group")
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
            mean = float(nanmean_quiet(es.loc[ec_models, "estimate"].to_numpy(float), axis=0))
            lo = hi = np.nan
            model_replicates = getattr(ec, "model_replicates", None)
            if model_replicates is not None and n_resamples > 0:
                lo, hi = percentile_interval(nanmean_quiet(model_replicates, axis=1)[:, None], level)
                lo, hi = lo[0], hi[0]
            level_rows.append(dict(experiment=experiment, measure="error_consistency", group="model-human (mean)",
                                   estimate=mean, ci_low=float(lo), ci_high=float(hi), human_accuracy=h_acc))
    models_frame = pd.DataFrame(model_rows, columns=["experiment", "observer", "accuracy", "measure", "estimate",
                                                     "ci_low", "ci_high"])
    levels_frame = pd.DataFrame(level_rows, columns=["experiment", "measure", "group", "estimate", "ci_low",
                                                     "ci_high", "human_accuracy"])
    settings = dict(n_resamples=n_resamples, level=level, seed=seed if isinstance(seed, int) else None,
                    observer_level=observer_level, experiments=names,
                    dmc=dict(dmc_result.settings))
    return ConsistencyComparison(models_frame, levels_frame, settings)
