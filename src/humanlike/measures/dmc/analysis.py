"""Decision-margin consistency (DMC; Alvarez & Konkle 2024) over a trial table, with honest intervals.

The pipeline (docs/measures/decision-margin-consistency.md), per experiment and condition:

* **item vectors** — each model's decision margins (the ``decision_margin`` column; models without margins
  are skipped with a note) and the human decision-margin index: mean correctness per item pooled over all
  human observers and repeats (every response weighs the same), optionally converted to the d' of an
  m-alternative forced choice (:func:`humanlike.measures.dmc.margins.accuracy_to_dprime`, m = number of classes,
  1/(2N) correction at 0 and 1 with N the item's pooled responses, below-chance accuracy clipped to d' = 0).
* **DMC** between two systems = Pearson (option: Spearman, average ranks for ties) correlation of their
  item vectors within the condition.
* **groups** — ``humans``: the split-half noise ceiling (correlate the pooled indices of two halves of the
  observers, Spearman–Brown 2r/(1+r) per split, mean over splits; all unique splits when there are at most
  ``max_splits``, else a seeded sample, see :mod:`humanlike.stats.reliability`); each model: its margins
  against the pooled human index (model–human); ``model-model``: mean over all model pairs;
  ``model-human (mean)``: mean over models of the model–human DMC.
* **aggregation** — mean over conditions per experiment, then the mean over experiments (equal weights).

Intervals come from the one resampling engine (:func:`humanlike.resampling.engine.bootstrap`, one
:class:`~humanlike.resampling.settings.ResamplingSettings`). It resamples items within each condition with multinomial
weights shared by every vector of the condition (paired across systems: a model's margins, the human index and
the split halves see the same resampled items), drawn from the condition's own random stream, and pushes every
resample through the one aggregation (conditions -> experiment -> overall; :mod:`.dmc_kernel`); percentile or
BCa (exact item jackknife) intervals. Numbers do not depend on the memory budget, on which experiments are
selected, or on the order of the data. The kernel (:mod:`humanlike.measures.dmc.metric`) works on weighted sums:
per-observer (observers x items) correct and response counts ``C``, ``T`` give the pooled index under observer
weights ``u`` as ``(u @ C) / (u @ T)``; in the usual design (Pearson, accuracy index, one response count per
observer) every correlation, splits included, follows from one matrix product of the weights with per-item
sufficient statistics.

The human observers enter the interval through ``observer_level``:

* ``"jackknife"`` (default): the item bootstrap plus an observer-level perturbation from the
  leave-one-observer-out (jackknife) values of every statistic: replicate r gets
  ``sum_o g_ro sqrt((N-1)/N) (theta_(-o) - mean theta_(-.))`` with ``g ~ N(0, 1)`` (a Gaussian multiplier
  on the jackknife deviations, so the added variance is the jackknife variance over observers and the
  covariances between statistics of one experiment are kept). Leaving an observer out shifts every
  leave-one-out value alike (N-1 observers), and that shift cancels in the deviations. The observer
  jackknife partly re-counts trial noise that the item bootstrap already carries, so the interval is
  somewhat conservative. In simulations of SDT observers (4-10 observers, 160 items, homogeneous and
  heterogeneous observers) it covered the truth in 92-100% of data sets at 95%.
* ``"bootstrap"``: a two-level bootstrap, observers resampled with replacement in each resample (the same
  draw for every condition of an experiment); the split halves keep the membership of the *original*
  observers, so a duplicated observer sits twice in the same half (never on both sides, which would
  correlate an observer with itself). Duplicates lower the effective number of observers, and every
  reliability-type statistic with them: the resampled ceiling sits below the point estimate (its interval
  covered the truth in only 44-86% of simulated data sets) and model-human intervals widen. Kept for
  comparison; not recommended for the ceiling.
* ``"none"``: items only (covered 89-96% in the same simulations; observer-to-observer differences that are
  shared across items, such as class biases, are then left out).

To bound the cost each resample evaluates the ceiling on a random subset of ``bootstrap_splits`` splits
(different per resample, drawn from ``stream(seed, "splits", experiment, block)``, shared by the experiment's
conditions): the mean over a random subset is unbiased for the mean over all splits and, splits being highly
correlated, adds little Monte Carlo spread (point estimates always use every split).

The published t-interval (mean +- t sd / sqrt(n) over splits, model pairs or models) is reported as a
secondary, compatibility figure (``t_low``, ``t_high``). It is too narrow: split-half values share
observers (every observer is in every split) and pairs share members, so the values are strongly dependent
and their spread measures how much splits disagree, not the sampling uncertainty of the mean; it also
treats the items as fixed. The overall t-interval is over the experiments' estimates.

Modules: :mod:`.dmc_data` (data assembly via the design), :mod:`.dmc_kernel` (engine kernel, aggregation),
:mod:`.dmc_results` (result, tables, JSON), :mod:`.self_consistency` (repeated presentations; attached when a
``repeat`` column exists) and :mod:`.consistency_accuracy` (EC and DMC against accuracy).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...trials.names import condition_mask
from ...trials.schema import TrialTableError, validate_trials
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output
from ...resampling.results import Resampled
from ...resampling.settings import DEFAULT_RESAMPLES, ResamplingSettings
from .data import assemble
from .kernel import ACCURACY, DMC, LABEL_NAMES, MODEL_HUMAN_MEAN, SPLIT_HALF_R, DMCAggregation, DMCKernel
from .result import FRAME_COLUMNS, DMCResult, items_frame, point_reasons, splits_frame, summary_frame
from ...trials.selection import apply_exclusions, pick_condition
from ..pairs.aggregation import HUMANS, MODEL_MODEL
from .self_consistency import SelfConsistencyResult, self_consistency

__all__ = ["ACCURACY", "DMC", "DMCResult", "FRAME_COLUMNS", "HUMANS", "LABEL_NAMES", "MODEL_HUMAN_MEAN",
           "MODEL_MODEL", "OBSERVER_LEVELS", "PRESETS", "SPLIT_HALF_R", "SelfConsistencyResult",
           "decision_margin_consistency", "dmc", "dmc_settings", "self_consistency"]

OBSERVER_LEVELS = ("jackknife", "bootstrap", "none")
METHODS = ("pearson", "spearman")
#: The default DMC settings: 10,000 resamples, observer jackknife, percentile intervals.
DEFAULT_SETTINGS = ResamplingSettings(n_resamples=DEFAULT_RESAMPLES, observer_level="jackknife")
PRESETS = ("default", "paper")


def dmc_settings(settings: ResamplingSettings | None = None, *, n_resamples: int | None = None,
                 level: float | None = None, seed=None, observer_level: str | None = None,
                 interval: str | None = None, memory_budget: int | None = None,
                 progress: bool | None = None) -> ResamplingSettings:
    """The one settings object of a DMC run: ``settings`` (default :data:`DEFAULT_SETTINGS`) with the
    keyword arguments given (not None) replacing its fields.

    Parameters
    ----------
    settings : ResamplingSettings, optional
        The starting settings (default :data:`DEFAULT_SETTINGS`: 10,000 resamples, observer jackknife).
    n_resamples, level, seed, observer_level, interval, memory_budget, progress : optional
        Replace the field of the same name when not None.

    Returns
    -------
    ResamplingSettings
        The settings of the run.

    Raises
    ------
    TypeError
        When ``settings`` is not a ResamplingSettings.
    ValueError
        On an unknown ``observer_level``.

    Examples
    --------
    >>> dmc_settings(n_resamples=500).observer_level, dmc_settings(n_resamples=500).n_resamples
    ('jackknife', 500)
    """
    base = DEFAULT_SETTINGS if settings is None else settings
    if not isinstance(base, ResamplingSettings):
        raise TypeError(f"settings must be a ResamplingSettings, not {type(base).__name__}")
    given = dict(n_resamples=n_resamples, level=level, seed=seed, observer_level=observer_level, interval=interval,
                 memory_budget=memory_budget, progress=progress)
    if observer_level is not None and observer_level not in OBSERVER_LEVELS:
        raise ValueError(f"observer_level must be one of {OBSERVER_LEVELS}, not {observer_level!r}")
    return replace(base, **{k: v for k, v in given.items() if v is not None})


def decision_margin_consistency(
    trials: pd.DataFrame,
    *,
    experiments: list[str] | None = None,
    condition: str | None = None,
    exclusions: dict[str, tuple[str, ...]] | None = None,
    method: str = "pearson",
    dprime: bool = False,
    n_alternatives: int | None = None,
    max_splits: int = 1000,
    bootstrap_splits: int | None = 32,
    settings: ResamplingSettings | None = None,
    validate: bool = True,
) -> DMCResult:
    """Decision-margin consistency with bootstrap intervals through the whole aggregation.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial table; models need a ``decision_margin`` column (models without margins are skipped and listed
        in ``skipped_models``).
    experiments, condition : list of str, str, optional
        Restrict to these experiments / this one condition (default: every experiment, mean over conditions).
    exclusions : dict, optional
        {experiment: conditions} to drop first (e.g. ``MODELVSHUMAN_EXCLUSIONS``); default none.
    method : {"pearson", "spearman"}
        ``"pearson"`` (the published DMC) or ``"spearman"`` (average ranks for ties; in resamples the
        midranks of the resampled data).
    dprime : bool
        Convert the human index to m-AFC d' (m = ``n_alternatives``, default the number of labels of the
        experiment); 1/(2N) correction at 0% and 100% (N = the item's pooled responses, in every half and
        resample alike), below-chance accuracy gives d' = 0. Model margins are used as they are.
    n_alternatives : int, optional
    max_splits : int
        All unique splits when there are at most this many, else a seeded sample of this many.
    bootstrap_splits : int or None
        Splits evaluated per bootstrap resample (a random subset per resample; None = all).
    settings : ResamplingSettings, optional
        The one settings object (resamples, level, interval ``"percentile"``/``"bca"``, observer level, seed,
        memory budget, progress). Default :data:`DEFAULT_SETTINGS` (10,000 resamples,
        ``observer_level="jackknife"``; :func:`dmc_settings` builds settings from it). ``observer_level``:
        ``"jackknife"`` (item bootstrap plus the observer jackknife), ``"bootstrap"`` (two-level bootstrap,
        biased for the ceiling) or ``"none"`` (items only); see the module docstring.
    validate : bool
        Validate the trial table first.

    Returns
    -------
    DMCResult
        Undefined values (a constant vector: e.g. humans at 100% on every item of a condition; fewer than 2
        observers) are NaN with a reason; means skip them and say so.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> r = decision_margin_consistency(simulate_benchmark(seed=0), experiments=["sim-blur"],
    ...                                 settings=dmc_settings(n_resamples=200))
    >>> row = r.table("sim-blur").set_index("group").loc["humans"]
    >>> bool(row["ci_low"] < row["estimate"] < row["ci_high"])
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be 'pearson' or 'spearman', not {method!r}")
    if bootstrap_splits is not None and bootstrap_splits < 1:
        raise ValueError("bootstrap_splits must be >= 1 or None")
    if max_splits < 1:
        raise ValueError("max_splits must be >= 1")
    settings = dmc_settings(settings)
    if validate:
        trials = validate_trials(trials)
    sc_trials = trials
    trials = apply_exclusions(trials, exclusions)
    if experiments is not None:
        experiments = [str(e) for e in experiments]
        unknown = sorted(set(experiments) - set(trials["experiment"].unique()))
        if unknown:
            raise TrialTableError(f"unknown experiment(s) {unknown}; "
                                  f"available: {sorted(trials['experiment'].unique())}")
        trials = trials[trials["experiment"].isin(experiments)]
    if condition is not None:
        trials = pick_condition(trials, condition, sc_trials[sc_trials["experiment"].isin(trials["experiment"])])
    if trials.empty:
        raise TrialTableError("no trials left after the exclusions and filters")

    data = assemble(trials, dprime=dprime, n_alternatives=n_alternatives, max_splits=max_splits,
                    seed=settings.seed)
    groups = {e.group: e for e in data.experiments.values()}
    kernel = DMCKernel(groups, method=method, bootstrap_splits=bootstrap_splits)
    aggregation = DMCAggregation(data.design, data.experiments)
    points = {s.key: kernel.values(s, np.ones((1, s.n_items)), None) for s in data.design}
    reasons = {s.key: point_reasons(kernel.experiment(s), s, points[s.key]) for s in data.design}
    resampled: Resampled = bootstrap(data.design, kernel, aggregation,
                                     Output(aggregation.labels, LABEL_NAMES), settings)
    summary = summary_frame(resampled, data, aggregation, points, reasons)
    resampled = replace(resampled, reasons=summary["reason"].to_numpy(dtype=object))

    self_cons = None
    names = list(data.experiments)
    if "repeat" in sc_trials.columns:
        kept = sc_trials[sc_trials["experiment"].isin(names)]
        if condition is not None:
            kept = kept[condition_mask(kept["condition"], condition)]
        self_cons = self_consistency(apply_exclusions(kept, exclusions), validate=False)
    record = settings.to_dict()
    record.update(method=method, scale="dprime" if dprime else "accuracy", max_splits=max_splits,
                  bootstrap_splits=bootstrap_splits, experiments=names, condition=condition,
                  exclusions=bool(exclusions),
                  n_alternatives={e.name: e.n_alternatives for e in data.experiments.values()} if dprime else None)
    splits = pd.concat([splits_frame(e, points) for e in data.experiments.values()], ignore_index=True)
    items = pd.concat([items_frame(e, data.design) for e in data.experiments.values()], ignore_index=True)
    return DMCResult(replace(resampled, settings=record), summary, splits, items, data.skipped_models,
                     tuple(data.notes), self_cons, record)


#: Short alias.
dmc = decision_margin_consistency
