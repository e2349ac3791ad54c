"""Error alignment across the OOD spectrum: EC, MA and CLED of every pair, through the resampling engine.

Data and kernel: :mod:`humanlike.measures.ood.alignment_kernel` (:func:`~.ood_alignment_kernel.alignment_design`,
:class:`~.ood_alignment_kernel.AlignmentKernel`). Aggregation: :class:`AlignmentLayout` — the conditions side
by side, then per regime the mean ratio over the representative conditions. Result: :class:`OODAlignment`,
whose ``resampled`` is the engine's :class:`~humanlike.resampling.results.Resampled`; its tables are views of it.
Pipeline: :func:`alignment_setup` (strata and per-item statistics, from the trials only) and
:func:`ood_alignment`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...trials.design import Design
from ...trials.schema import TrialTableError, first_presentations, validate_trials
from .alignment_sums import UNDEFINED_REASONS, AlignmentOptions
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output
from .regimes import RegimeFit
from ...resampling.weights import nanmean_quiet
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings
from .alignment_kernel import AlignmentKernel, alignment_design
from .common import METRICS, class_names, families_for
from ..measure_result import MeasureResult
from ..pairwise import HUMANS

LABEL_NAMES = ("table", "regime", "experiment", "condition", "observer_1", "observer_2", "metric")



class AlignmentLayout:
    """The output columns of the alignment and its one aggregation function.

    Columns: per condition (design order) its kernel outputs; then per regime and model the mean alignment
    ratio over the regime's representative conditions (NaN-skipping).

    Parameters
    ----------
    design : Design
        The alignment design (:func:`alignment_design`).
    kernel : AlignmentKernel
        The kernel (its pairs set the per-condition columns).
    models : tuple of str
        Every model, in output order.
    representatives : pandas.DataFrame
        :func:`representative_conditions` of the spectrum.
    regime_names : tuple of str
        The regimes, in output order.

    Examples
    --------
    >>> from humanlike.measures.ood.spectrum import ood_spectrum
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> from humanlike.measures.ood.common import class_names
    >>> from humanlike.measures.ood.alignment_sums import AlignmentOptions
    >>> classes = class_names(trials)
    >>> design = alignment_design(trials, classes)
    >>> kernel = AlignmentKernel(len(classes), AlignmentOptions())
    >>> models = tuple(sorted(trials.loc[trials["observer_kind"] == "model", "observer"].unique()))
    >>> layout = AlignmentLayout(design, kernel, models, representative_conditions(spectrum.conditions,
    ...                          spectrum.regimes), spectrum.regimes.names)
    >>> len(layout.labels)   # 4 conditions x (45 pairs x 3 + 6 groups x 3 + 5 ratios) + 5 regime ratios
    637
    """

    def __init__(self, design: Design, kernel: AlignmentKernel, models: tuple, representatives: pd.DataFrame,
                 regime_names: tuple):
        self.keys = design.keys
        self.models = tuple(models)
        self.pairs = {s.key: kernel.pairs(s) for s in design}
        self.offsets, labels, start = {}, [], 0
        for key in self.keys:
            cp = self.pairs[key]
            e, c = key
            self.offsets[key] = start
            start += cp.width
            names = np.asarray(cp.observers, dtype=object)
            for metric in METRICS:
                labels += [("pair", "", e, c, str(a), str(b), metric)
                           for a, b in zip(names[cp.first], names[cp.second])]
            for metric in METRICS:
                labels += [("group", "", e, c, g, "", metric) for g in (HUMANS,) + cp.models]
            labels += [("group", "", e, c, m, "", "ratio") for m in cp.models]
        self.n_conditions = start
        self.regimes = []
        for name in regime_names:
            sub = representatives[representatives["regime"] == name]
            keys = [k for k in zip(sub["experiment"], sub["condition"]) if k in self.pairs]
            if not keys or not self.models:
                continue
            take = []
            for key in keys:
                cp = self.pairs[key]
                ratio_start = self.offsets[key] + cp.width - len(cp.models)
                take.append(np.array([ratio_start + cp.models.index(m) if m in cp.models else -1
                                      for m in self.models]))
            self.regimes.append((name, keys, np.stack(take)))
            labels += [("regime", name, "", "", m, "", "ratio") for m in self.models]
        self.labels = labels

    def aggregate(self, values: Mapping[tuple, np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
        """Kernel values of every condition -> the regime-level alignment outputs.

        Parameters
        ----------
        values : mapping of tuple to numpy.ndarray
            ``{stratum key: (R|1 x width)}`` kernel outputs.
        out : numpy.ndarray, optional
            (R x len(labels)) array to fill (the engine's kept float32 replicates); by default a new float64
            one. The regime means are taken from the float64 kernel values either way, so a float32 ``out``
            holds exactly the rounded float64 result.

        Returns
        -------
        numpy.ndarray
            (R x len(labels)): the conditions' columns side by side, then the regime ratios (``out`` if given).
        """
        r = max(np.shape(v)[0] for v in values.values())
        if out is None:
            out = np.empty((r, len(self.labels)))
        for key in self.keys:   # written in place: no full-width temporaries per chunk
            block = values[key]
            out[:, self.offsets[key]:self.offsets[key] + np.shape(block)[1]] = block
        position = self.n_conditions
        for _, keys, take in self.regimes:
            ratios = np.full((r, *take.shape), np.nan)         # a model without a condition stays NaN
            for j, key in enumerate(keys):
                present = take[j] >= 0
                ratios[:, j, present] = values[key][:, take[j][present] - self.offsets[key]]
            out[:, position:position + take.shape[1]] = nanmean_quiet(ratios, axis=1)
            position += take.shape[1]
        return out

    def output(self) -> Output:
        """Labels of the aggregated outputs; replicates kept in float32.

        Returns
        -------
        Output
            The labels with :data:`LABEL_NAMES`, and ``replicate_dtype=np.float32``: the resamples are float32
            computations (see :meth:`PairAlignmentSums.resample
            <humanlike.measures.ood.alignment_sums.PairAlignmentSums.resample>`).
        """
        return Output(self.labels, LABEL_NAMES, reasons=self.reasons, replicate_dtype=np.float32)

    def reasons(self, estimate: np.ndarray) -> np.ndarray:
        """Why each output is undefined (``""`` where its estimate is defined), by its metric.

        Parameters
        ----------
        estimate : numpy.ndarray
            The estimates, one per label.

        Returns
        -------
        numpy.ndarray of object
            One reason per label.
        """
        metric = LABEL_NAMES.index("metric")
        return np.array(["" if np.isfinite(value) else UNDEFINED_REASONS[label[metric]]
                         for value, label in zip(np.asarray(estimate, dtype=float), self.labels)], dtype=object)


def representative_conditions(conditions: pd.DataFrame, fit: RegimeFit) -> pd.DataFrame:
    """One representative condition per (regime, distortion type).

    Rule: among a distortion type's conditions assigned to a regime, the one whose OOD score is closest
    to the regime's mixture mean (ties: the less distorted, i.e. the first in level order).

    Parameters
    ----------
    conditions : pandas.DataFrame
        The spectrum's condition table (experiment, condition, ood_score, regime_label).
    fit : RegimeFit
        The regime mixture (names and means).

    Returns
    -------
    pandas.DataFrame
        One row per (regime, experiment): regime, regime_label, regime_mean, experiment, condition, ood_score.

    Examples
    --------
    >>> from humanlike.measures.ood.spectrum import ood_spectrum
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> reps = representative_conditions(spectrum.conditions, spectrum.regimes)
    >>> reps[["regime", "condition"]].values.tolist()   # one regime; 0.20 is closest to its mean score
    [['reference', '0.20']]
    """
    rows = []
    for label, name in enumerate(fit.names):
        centre = fit.means[label]
        sub = conditions[conditions["regime_label"] == label]
        for e, g in sub.groupby("experiment", sort=True):
            j = int(np.argmin(np.abs(g["ood_score"].to_numpy() - centre)))
            r = g.iloc[j]
            rows.append(dict(regime=name, regime_label=label, regime_mean=float(centre), experiment=e,
                             condition=r["condition"], ood_score=float(r["ood_score"])))
    return pd.DataFrame(rows, columns=["regime", "regime_label", "regime_mean", "experiment", "condition",
                                       "ood_score"])


@dataclass(frozen=True, repr=False)
class OODAlignment(MeasureResult):
    """Error alignment per condition across the spectrum.

    ``resampled``: every number below with its replicates (labels ``table, regime, experiment, condition,
    observer_1, observer_2, metric``; ``.to_frame()`` is the tidy table with intervals and undefined shares).
    ``pairs``: one row per (condition, pair) — EC, MA, CLED with intervals and undefined shares.
    ``groups``: one row per (condition, group), group = ``'humans'`` (mean over human-human pairs) or a
    model (mean over its pairs with each human): accuracy, EC, MA, CLED with intervals, the alignment
    ratio with its interval (models), OOD score and regime.
    ``regime_ratios``: one row per (regime, model): the mean ratio over the regime's representative
    conditions, interval, rank (1 = most human-like), rank interval, probability of being best, the number
    of representatives at chance and the human baseline (mean over representatives of ½(EC+MA) among
    humans). Where the baseline is near 0 (humans at chance share no error structure) the ratio is a
    quotient of noise: its interval says so.
    ``representatives``: the representative condition of each (regime, distortion type).
    ``ratio_replicates``: {regime: (resamples x models)}; ``models``: model names. Made by
    :func:`ood_alignment`.

    Parameters
    ----------
    pairs, groups, regime_ratios, representatives : pandas.DataFrame
        The tables above.
    models : tuple of str
        Model names.
    ratio_replicates : dict
        ``{regime: (resamples x models)}`` replicates of the regime ratios.
    settings : dict
        Every option the alignment ran with.
    resampled : Resampled, optional
        The engine's result behind every table.

    Examples
    --------
    >>> from humanlike.measures.ood.spectrum import ood_spectrum
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0)
    >>> trials = trials[trials["experiment"] == "sim-noise"]
    >>> spectrum = ood_spectrum(trials, {"sim-noise": "0.00"}, n_observer_resamples=0)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> alignment = ood_alignment(trials, spectrum, settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> ranked = alignment.regime_ratios.set_index("model")
    >>> ranked["rank"].idxmin(), round(float(ranked.loc["model-alien", "ratio"]), 3)
    ('model-humanlike', 0.255)
    """

    pairs: pd.DataFrame
    groups: pd.DataFrame
    regime_ratios: pd.DataFrame
    representatives: pd.DataFrame
    models: tuple
    ratio_replicates: dict = field(repr=False)
    settings: dict
    resampled: Resampled | None = field(default=None, repr=False)

    measure = "ood"
    scope_label = "table"

    def to_wide(self) -> pd.DataFrame:
        """The per-condition group table (wide: EC, MA, CLED and the ratio side by side); :meth:`to_frame` is the
        tidy table of every output.

        Returns
        -------
        pandas.DataFrame
            :attr:`groups`: one row per (condition, group) with EC, MA, CLED, ratio and their intervals.
        """
        return self.groups

    def ratios(self) -> pd.DataFrame:
        """Per model and condition: the alignment ratio with its interval.

        Returns
        -------
        pandas.DataFrame
            Columns experiment, condition, model, family, ood_score, regime, ratio, ratio_low, ratio_high.
        """
        g = self.groups[self.groups["group"] != HUMANS]
        return g[["experiment", "condition", "group", "family", "ood_score", "regime", "ratio", "ratio_low",
                  "ratio_high"]].rename(columns={"group": "model"}).reset_index(drop=True)


@dataclass(frozen=True)
class AlignmentSetup:
    """The alignment's strata and kernel, made before the spectrum is known (:func:`alignment_setup`).

    Everything here depends on the trials and the metric options only, so it can be made while the spectrum is
    fitted; :func:`ood_alignment` then keeps the strata of the spectrum's conditions.

    Parameters
    ----------
    trials : pandas.DataFrame
        The first presentations of the trial table it was made from.
    design : Design
        Every (experiment, condition) stratum of the trials (:func:`alignment_design`).
    kernel : AlignmentKernel
        The kernel, its per-stratum statistics computed when ``alignment_setup(..., prepare=True)``.
    classes : tuple of str
        The class names, in code order.
    models : tuple of str
        Every model, sorted.
    na_as_class : bool
        Whether the no-answer response is a class.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> setup = alignment_setup(simulate_benchmark(seed=0))
    >>> len(setup.design), setup.models[:2]
    (16, ('model-alien', 'model-humanlike'))
    """

    trials: pd.DataFrame = field(repr=False)
    design: Design = field(repr=False)
    kernel: AlignmentKernel = field(repr=False)
    classes: tuple
    models: tuple
    na_as_class: bool = False


def alignment_setup(trials: pd.DataFrame, *, policy="strict", ma_undefined: str = "nan", cled_alpha: float = 0.5,
                    cled_mixture: str = "average", cled_log_base: float | None = None,
                    cled_weighting: str = "errors", na_as_class: bool = False, prepare: bool = False,
                    validate: bool = True) -> AlignmentSetup:
    """The strata and kernel of the alignment, independent of the spectrum.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting
        See :class:`humanlike.measures.ood.alignment_sums.AlignmentOptions`.
    na_as_class : bool
        Treat the no-answer response as its own class in MA and CLED.
    prepare : bool, default False
        Also compute every stratum's sufficient statistics now (the bulk of the estimate's work), e.g. in a
        thread beside the spectrum's fit.
    validate : bool, default True
        Validate the trial table first.

    Returns
    -------
    AlignmentSetup

    Raises
    ------
    TrialTableError
        With fewer than two classes, or a label or response outside them.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> setup = alignment_setup(simulate_benchmark(seed=0), prepare=True)
    >>> setup.kernel.sums(setup.design.strata[0]).n_pairs   # 6 humans and 5 models: 15 + 30 pairs
    45
    """
    options = AlignmentOptions(policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting)
    if validate:
        trials = validate_trials(trials)
    trials = first_presentations(trials)
    classes = class_names(trials, na_as_class)
    if len(classes) < 2:
        raise TrialTableError("need at least two classes")
    models = tuple(sorted(trials.loc[trials["observer_kind"] == "model", "observer"].astype(str).unique()))
    design = alignment_design(trials, classes)
    kernel = AlignmentKernel(len(classes), options)
    if prepare:
        for stratum in design:
            if kernel.pairs(stratum).n_pairs > 0:
                kernel.sums(stratum)
    return AlignmentSetup(trials, design, kernel, classes, models, bool(na_as_class))


def ood_alignment(
    trials: pd.DataFrame,
    spectrum,
    *,
    families: Mapping[str, str] | None = None,
    settings: ResamplingSettings | None = None,
    policy="strict",
    ma_undefined: str = "nan",
    cled_alpha: float = 0.5,
    cled_mixture: str = "average",
    cled_log_base: float | None = None,
    cled_weighting: str = "errors",
    na_as_class: bool = False,
    validate: bool = True,
    setup: AlignmentSetup | None = None,
) -> OODAlignment:
    """EC, MA and CLED per condition (human-human and model-human), alignment ratios and regime rankings.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    spectrum : OODSpectrum
        The spectrum (conditions, regimes) from :func:`humanlike.measures.ood.spectrum.ood_spectrum`.
    families : mapping, optional
        ``{model: family}``; default :data:`humanlike.measures.ood.common.DEFAULT_FAMILIES`.
    settings : ResamplingSettings, optional
        Resamples, level, interval (percentile / BCa), observer level (none / bootstrap / jackknife), seed,
        memory budget, progress (default ``ResamplingSettings()``).
    policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting
        See :class:`humanlike.measures.ood.alignment_sums.AlignmentOptions`.
    na_as_class : bool
        Treat the no-answer response as its own class in MA and CLED (the published code) instead of leaving
        those trials out.
    setup : AlignmentSetup, optional
        :func:`alignment_setup` of the same trials with the same options, made beforehand (e.g. beside the
        spectrum's fit); ``trials`` and ``validate`` are then not used again.

    Returns
    -------
    OODAlignment
        Pair, group and regime tables with intervals, and the resampled values behind them.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.ood.spectrum import ood_spectrum
    >>> t = simulate_benchmark(seed=0)
    >>> t = t[t["experiment"] == t["experiment"].iloc[0]]
    >>> sp = ood_spectrum(t, {t["experiment"].iloc[0]: sorted(t["condition"].unique())[0]}, n_observer_resamples=0)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> al = ood_alignment(t, sp, settings=ResamplingSettings(n_resamples=20))
    >>> {"ec", "ma", "cled", "ratio"} <= set(al.groups.columns)
    True
    """
    options = AlignmentOptions(policy, ma_undefined, cled_alpha, cled_mixture, cled_log_base, cled_weighting)
    settings = ResamplingSettings() if settings is None else settings
    if setup is None:
        setup = alignment_setup(trials, policy=policy, ma_undefined=ma_undefined, cled_alpha=cled_alpha,
                                cled_mixture=cled_mixture, cled_log_base=cled_log_base,
                                cled_weighting=cled_weighting, na_as_class=na_as_class, validate=validate)
    elif setup.kernel.options != options or setup.na_as_class != bool(na_as_class):
        raise ValueError("the alignment setup was made with other options than this call's")
    trials, kernel, models = setup.trials, setup.kernel, setup.models
    cond_frame = spectrum.conditions
    wanted = {(str(e), str(c)) for e, c in zip(cond_frame["experiment"], cond_frame["condition"])}
    fam = families_for(models, families)
    design = setup.design.select(lambda s: s.key in wanted and kernel.pairs(s).n_pairs > 0)
    reps_table = representative_conditions(cond_frame, spectrum.regimes)
    record = dict(settings=settings.to_dict(), policy=options.policy.value, ma_undefined=ma_undefined,
                  cled_alpha=cled_alpha, cled_mixture=cled_mixture, cled_log_base=cled_log_base,
                  cled_weighting=cled_weighting, na_as_class=na_as_class, families=fam,
                  n_classes=len(setup.classes),
                  n_resamples=settings.n_resamples, level=settings.level, seed=settings.seed)
    if len(design) == 0:
        raise TrialTableError("no condition has an observer pair: the alignment needs at least two humans, or a "
                              "human and a model, in one condition")
    layout = AlignmentLayout(design, kernel, models, reps_table, spectrum.regimes.names)
    res = bootstrap(design, kernel, layout.aggregate, layout.output(), settings)
    from .tables import alignment_tables

    pairs, groups, regime_ratios, ratio_reps = alignment_tables(res, layout, design, cond_frame, fam, settings)
    return OODAlignment(pairs, groups, regime_ratios, reps_table, models, ratio_reps, record, res)


__all__ = ["AlignmentLayout", "AlignmentSetup", "OODAlignment", "alignment_setup", "ood_alignment",
           "representative_conditions"]
