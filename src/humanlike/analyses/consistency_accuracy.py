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
    human accuracy (``human_accuracy``). Made by :func:`consistency_vs_accuracy`.

    Parameters
    ----------
    models : pandas.DataFrame
        One row per (experiment, model, measure), columns as above.
    levels : pandas.DataFrame
        One row per (experiment, measure, reference group), columns as above.
    settings : dict
        The settings the comparison ran with (``n_resamples``, ``level``, ``seed``, ``observer_level``,
        ``experiments`` and the DMC run's settings under ``dmc``).

    Examples
    --------
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> c = consistency_vs_accuracy(simulate_benchmark(seed=0), experiments=["sim-blur"], n_resamples=0)
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
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
    observer_level: str = "jackknife",
    method: str = "pearson",
    dprime: bool = False,
    policy: UndefinedPolicy | str = UndefinedPolicy.STRICT,
) -> ConsistencyComparison:
    """EC and DMC of every model with decision margins, per experiment, against its accuracy.

    DMC comes from :func:`decision_margin_consistency` (or ``dmc_result``); EC from
    :func:`humanlike.analyses.errorconsistency.error_consistency`, run per experiment on the humans and the
    same models (so both measures describe the same systems). Levels: human–human (EC: mean over human
    pairs; DMC: the split-half ceiling), model–model, and the mean model–human value, each with its
    bootstrap band (for EC the mean model–human band comes from the per-model replicates of the same
    resamples). Accuracy: per model, mean over the experiment's conditions (from the DMC result). EC
    intervals resample items (and human observers only when ``observer_level="bootstrap"``; the EC pipeline
    has no jackknife level), so its bands can be a little narrower than the DMC ones.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table; models need a ``decision_margin`` column (models without one are left out).
    experiments : list of str, optional
        Only these experiments (default: every experiment of the DMC result).
    exclusions : dict, optional
        ``{experiment: conditions}`` to drop first (e.g. ``MODELVSHUMAN_EXCLUSIONS``); default none.
    dmc_result : DMCResult, optional
        A DMC result already computed on the same trials; when given, DMC is not recomputed and
        ``n_resamples`` ... ``dprime`` only apply to the EC part.
    n_resamples : int
        Bootstrap resamples (0: point estimates only, intervals NaN).
    level : float
        Confidence level in (0, 1).
    seed : int
        Seed of the DMC run and of the per-experiment EC seeds.
    observer_level : {"jackknife", "bootstrap", "none"}
        How observers enter the DMC intervals (see :func:`decision_margin_consistency`); with
        ``"bootstrap"`` EC resamples human observers too.
    method : {"pearson", "spearman"}
        The DMC correlation.
    dprime : bool
        Convert the human DMC index to m-AFC d'.
    policy : {"strict", "model-vs-human"}
        How EC treats undefined kappas (see :func:`humanlike.analyses.errorconsistency.error_consistency`).

    Returns
    -------
    ConsistencyComparison
        The per-model rows and the reference levels.

    Examples
    --------
    >>> from humanlike.data.simulate import simulate_benchmark
    >>> c = consistency_vs_accuracy(simulate_benchmark(seed=0), experiments=["sim-blur"], n_resamples=0)
    >>> sorted(c.models["measure"].unique())
    ['decision_margin_consistency', 'error_consistency']
    >>> ec = c.models[c.models["measure"] == "error_consistency"].set_index("observer")
    >>> round(float(ec.loc["model-humanlike", "estimate"]), 3), round(float(ec.loc["model-humanlike", "accuracy"]), 3)
    (0.258, 0.622)
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
