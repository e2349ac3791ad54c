"""Psychometric functions per observer and experiment: threshold, slope and lapse with bootstrap intervals.

An experiment whose conditions are stimulus levels (model-vs-human's contrast, uniform-noise, low-pass,
high-pass, eidolon) gives every observer a psychometric function: proportion correct against the level. Per
observer (every human, every model) and for ``humans`` (every human trial pooled, as model-vs-human pools
them), :func:`psychometric_fits` fits the model of :mod:`humanlike.measures.psychfit.fit` by maximum likelihood
and reports

- ``threshold``: the level at which the fitted function reaches the stated performance ``level`` (in the
  units the conditions spell: contrast ``c05`` is 5, noise ``0.35`` is 0.35);
- ``slope``: dp/dx at the threshold, per unit of the fitting space (per log10 unit in log space);
- ``lapse``: the fitted lapse rate (the guess rate is fixed, 1 / number of classes by default, 1/16 in
  model-vs-human);
- ``threshold_vs_humans`` (models and single humans): the threshold's distance from the humans' in the fitting
  space (log10 of the ratio in log space, the difference in linear space); its interval excluding 0 means the
  observer is *resolved* from the humans (:meth:`PsychometricFitResult.resolved`).

Intervals come from the one resampling engine: the trials of each observer and condition are resampled within
their own stratum (own random stream), and every resample is refitted
(:func:`humanlike.measures.psychfit.fit.fit_batch`, vectorised over resamples). ``observer_level="bootstrap"`` also resamples the humans behind ``humans``. The
stimulus axis of each experiment (levels, log or linear space, direction) is :mod:`humanlike.measures.psychfit.axes`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings
from ...trials.design import Design, Stratum
from ...trials.schema import TrialTableError, validate_trials
from ..measure_result import MeasureResult
from .axes import Axis, experiment_axes
from .fit import SIGMOIDS, fit_batch, predicted, threshold_slope

__all__ = ["FIT_METRICS", "HUMANS", "CountKernel", "PsychometricFitResult", "psychfit_design", "psychometric_fits"]

HUMANS = "humans"
FIT_METRICS = ("threshold", "slope", "lapse", "threshold_vs_humans")
LEVELS_OF = ("accuracy", "sigmoid")
REASON_NOT_REACHED = "the fitted function does not reach the performance level"
REASON_NOT_REACHED_EITHER = "the observer's or the humans' fitted function does not reach the performance level"


def psychfit_design(trials: pd.DataFrame, axes: dict) -> tuple[Design, dict]:
    """One stratum per experiment, observer and condition (its trials, resampled within it), and per experiment
    and condition one for ``humans`` (every human trial; the humans are its observer group).

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table of the experiments in ``axes``.
    axes : dict
        From :func:`humanlike.measures.psychfit.axes.experiment_axes`.

    Returns
    -------
    (Design, dict)
        The design (arrays ``correct`` and ``trials``, items x members: one member for a single observer) and
        experiment -> the observers fitted (``humans`` first, then humans, then models, each sorted).

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["h1", "h2", "m"] * 3, "observer_kind": ["human", "human", "model"] * 3,
    ...                   "experiment": "e", "condition": ["1"] * 3 + ["2"] * 3 + ["3"] * 3, "item": "i",
    ...                   "label": "x", "response": "x", "correct": True})
    >>> design, observers = psychfit_design(t, experiment_axes(t, direction="increasing"))
    >>> observers["e"], design.keys[:2], design.groups
    (['humans', 'h1', 'h2', 'm'], [('e', '1', 'h1'), ('e', '1', 'h2')], {('e',): ('h1', 'h2')})
    """
    strata, groups, observers = [], {}, {}
    for experiment, axis in axes.items():
        rows = trials[(trials["experiment"] == experiment) & trials["condition"].astype(str).isin(axis.conditions)]
        kinds = rows.drop_duplicates("observer").set_index("observer")["observer_kind"]
        humans = sorted(o for o, k in kinds.items() if k == "human")
        models = sorted(o for o, k in kinds.items() if k != "human")
        observers[experiment] = ([HUMANS] if humans else []) + humans + models
        if humans:
            groups[(experiment,)] = tuple(humans)
        for (condition, observer), part in rows.groupby([rows["condition"].astype(str), "observer"], sort=True,
                                                         observed=True):
            # trials in an order of their own values, so that the row order of the table never matters
            part = part.sort_values(["item", "correct"], kind="stable")
            correct = part["correct"].to_numpy(dtype=float)[:, None]
            strata.append(Stratum((experiment, condition, str(observer)), _item_ids(part["item"]), (str(observer),),
                                  {"correct": correct, "trials": np.ones_like(correct)}))
        if humans:
            for condition, part in rows[rows["observer"].isin(humans)].groupby(rows["condition"].astype(str),
                                                                                 sort=True, observed=True):
                part = part.sort_values(["observer", "item", "correct"], kind="stable")
                member = pd.Index(humans).get_indexer(part["observer"].astype(str))
                onehot = np.zeros((len(part), len(humans)))
                onehot[np.arange(len(part)), member] = 1.0
                correct = onehot * part["correct"].to_numpy(dtype=float)[:, None]
                strata.append(Stratum((experiment, condition, HUMANS), _item_ids(part["observer"] + "/" + part["item"]),
                                      tuple(humans), {"correct": correct, "trials": onehot}, group=(experiment,),
                                      group_columns=np.arange(len(humans))))
    return Design(tuple(sorted(strata, key=lambda s: s.key)), groups), observers


def _item_ids(names: pd.Series) -> np.ndarray:
    names = names.astype(str).to_numpy()
    repeat = pd.Series(names).groupby(names).cumcount().to_numpy()
    suffix = np.where(repeat > 0, np.char.add("#", repeat.astype(str)), "")
    return np.char.add(names.astype(str), suffix)


class CountKernel(SufficientStatisticKernel):
    """Per stratum: correct trials and trials, summed over the (weighted) members: (R x 2).

    Examples
    --------
    >>> s = Stratum(("e", "1", "humans"), np.array(["a", "b", "c"]), ("h1", "h2"),
    ...             {"correct": np.array([[1.0, 0], [0, 0], [0, 1.0]]), "trials": np.array([[1.0, 0], [0, 1], [0, 1]])},
    ...             group=("e",), group_columns=np.arange(2))
    >>> CountKernel().evaluate(s, np.ones((1, 3)), np.array([[2.0, 0.0]])).tolist()   # h1 twice, h2 not at all
    [[2.0, 2.0]]
    """

    measure = "psychometric fit"  # names the engine's undefined-share warning

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per trial: correct and trial indicators of every member.

        Parameters
        ----------
        stratum : Stratum
            One stratum of :func:`psychfit_design`.

        Returns
        -------
        numpy.ndarray
            Shape (items x 2 members).
        """
        return np.concatenate([stratum.arrays["correct"], stratum.arrays["trials"]], axis=1)

    def reduce(self, stratum: Stratum, sums: np.ndarray, observer_weights: np.ndarray | None) -> np.ndarray:
        """Correct and trial sums, each member weighted by its observer weight (1 without an observer level).

        Parameters
        ----------
        stratum : Stratum
            The stratum.
        sums : numpy.ndarray
            Weighted sums of :meth:`statistics`, shape (R x 2 members).
        observer_weights : numpy.ndarray or None
            The members' weights (R x members), or None.

        Returns
        -------
        numpy.ndarray
            Shape (R x 2): correct, trials.
        """
        members = sums.shape[1] // 2
        u = np.ones((1, members)) if observer_weights is None else np.asarray(observer_weights, dtype=float)
        return np.stack([(sums[:, :members] * u).sum(axis=1), (sums[:, members:] * u).sum(axis=1)], axis=1)


class _FitAggregation:
    """Counts of every stratum -> threshold, slope, lapse (and distance to the humans) of every observer."""

    def __init__(self, axes: dict, observers: dict, options: dict):
        self.axes, self.observers, self.options = axes, observers, options
        labels = [(e, o, m) for e in axes for o in observers[e] for m in FIT_METRICS if m != "threshold_vs_humans"
                  or (o != HUMANS and HUMANS in observers[e])]
        self.output = Output(labels, ("experiment", "observer", "metric"), reasons=self._reasons)
        self.labels = labels

    def fit(self, axis: Axis, k: np.ndarray, n: np.ndarray) -> dict:
        o = self.options
        fit = fit_batch(k, n, axis.x, name=o["sigmoid"], guess=axis.guess, direction=axis.direction,
                        max_lapse=o["max_lapse"])
        t, slope = threshold_slope(o["sigmoid"], fit["location"], fit["scale"], fit["lapse"], axis.guess,
                                   axis.direction, o["performance"], o["level_of"])
        return dict(fit, threshold_x=t, slope=slope)

    def __call__(self, values) -> np.ndarray:
        rows = max(np.shape(v)[0] for v in values.values())
        out = []
        for experiment, axis in self.axes.items():
            fits = {}
            for observer in self.observers[experiment]:
                # a level the observer never saw (a skipped block) counts 0 of 0: it adds nothing to the likelihood
                counts = [np.broadcast_to(np.asarray(values.get((experiment, c, observer), (0.0, 0.0)), dtype=float),
                                          (rows, 2)) for c in axis.conditions]
                fits[observer] = self.fit(axis, np.stack([c[:, 0] for c in counts], axis=1),
                                          np.stack([c[:, 1] for c in counts], axis=1))
            for observer in self.observers[experiment]:
                f = fits[observer]
                out += [axis.to_level(f["threshold_x"]), f["slope"], f["lapse"]]
                if observer != HUMANS and HUMANS in fits:
                    out.append(f["threshold_x"] - fits[HUMANS]["threshold_x"])
        return np.stack(out, axis=1)

    def _reasons(self, estimate: np.ndarray) -> np.ndarray:
        reasons = np.full(estimate.size, "", dtype=object)
        for j, (_, _, metric) in enumerate(self.labels):
            if np.isnan(estimate[j]):
                reasons[j] = REASON_NOT_REACHED_EITHER if metric == "threshold_vs_humans" else REASON_NOT_REACHED
        return reasons


@dataclass(frozen=True, repr=False)
class PsychometricFitResult(MeasureResult):
    """Psychometric fits per experiment and observer, with bootstrap intervals.

    The tidy :meth:`to_frame` has ``scope`` (the experiment), ``group`` (the observer) and ``metric`` (one of
    :data:`FIT_METRICS`); :meth:`table` is one line per observer, :meth:`resolved` the comparison with the
    humans, :meth:`curve` a fitted function to draw.

    Attributes
    ----------
    resampled : Resampled
        Columns labelled (experiment, observer, metric).
    kinds : dict
        Observer -> ``"human"`` / ``"model"`` (``humans`` is ``"human"``).
    parameters : pandas.DataFrame
        Per experiment and observer the fitted location, scale and lapse (fitting space), the guess rate, the
        direction, the space and the log-likelihood: what :meth:`curve` draws.
    counts : pandas.DataFrame
        Per experiment, observer and condition: level, trials, correct (the data points).
    settings : dict
        The resampling settings (``level`` is the confidence level) and the fit's options (sigmoid,
        ``performance`` (the threshold's level), level_of, space, direction, guess, max_lapse), per experiment
        the conditions left out, the space and the direction.

    Examples
    --------
    >>> from humanlike.measures.psychfit.simulate import simulate_psychometric
    >>> r = psychometric_fits(simulate_psychometric(seed=0), settings=ResamplingSettings(n_resamples=50))
    >>> r.experiments(), list(r.to_frame()["metric"].unique())
    (['sim-contrast'], ['threshold', 'slope', 'lapse', 'threshold_vs_humans'])
    >>> r.resolved().set_index("observer").loc["model-worse", "side"]
    'higher'
    """

    resampled: Resampled
    kinds: dict
    parameters: pd.DataFrame
    counts: pd.DataFrame
    settings: dict
    measure = "psychfit"
    text_formatter = "humanlike.measures.psychfit.cli:format_psychfit"
    scope_label = "experiment"
    group_label = "observer"

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The rows of the tidy :meth:`to_frame`: labels, values, then ``observer_kind`` and ``within_levels``
        (a threshold inside the tested levels; False: extrapolated).

        Parameters
        ----------
        level : float, optional
            Confidence level (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method (default: the result's).

        Returns
        -------
        pandas.DataFrame
        """
        frame = self.resampled.to_frame(level, method)
        frame["observer_kind"] = frame["observer"].map(self.kinds)
        span = self.counts.groupby("experiment")["level"].agg(["min", "max"])
        low = frame["experiment"].map(span["min"]).to_numpy(dtype=float)
        high = frame["experiment"].map(span["max"]).to_numpy(dtype=float)
        inside = (frame["estimate"].to_numpy(dtype=float) >= low) & (frame["estimate"].to_numpy(dtype=float) <= high)
        frame["within_levels"] = np.where(frame["metric"] == "threshold", inside, True)
        return frame

    def experiments(self) -> list[str]:
        """The experiments fitted.

        Returns
        -------
        list of str
        """
        return list(dict.fromkeys(self.parameters["experiment"]))

    def table(self, experiment: str) -> pd.DataFrame:
        """One line per observer of one experiment: every metric's estimate with its interval.

        Parameters
        ----------
        experiment : str

        Returns
        -------
        pandas.DataFrame
            Columns observer, observer_kind, then per metric ``<metric>``, ``<metric>_low``, ``<metric>_high``.

        Raises
        ------
        KeyError
            For an experiment the result does not hold.
        """
        frame = self.to_frame()
        frame = frame[frame["scope"] == experiment]
        if frame.empty:
            raise KeyError(f"no experiment {experiment!r}; experiments: {self.experiments()}")
        order = list(dict.fromkeys(frame["group"]))
        parts = [frame[frame["metric"] == m].set_index("group")[["estimate", "ci_low", "ci_high"]].rename(
            columns={"estimate": m, "ci_low": f"{m}_low", "ci_high": f"{m}_high"}) for m in FIT_METRICS]
        wide = pd.concat(parts, axis=1).reindex(order)
        wide.insert(0, "observer_kind", [self.kinds.get(o, "") for o in order])
        return wide.rename_axis("observer").reset_index()

    def resolved(self) -> pd.DataFrame:
        """Per experiment and observer: is its threshold resolved from the humans'?

        Resolved means the interval of ``threshold_vs_humans`` excludes 0: the observer's threshold is
        reliably lower (``"lower"``) or higher (``"higher"``) than the pooled humans'.

        Returns
        -------
        pandas.DataFrame
            Columns experiment, observer, observer_kind, threshold (with _low, _high), humans' threshold (with
            _low, _high), vs_humans (with _low, _high: log10 ratio in log space, difference in linear space),
            resolved (bool), side.
        """
        rows = []
        for experiment in self.experiments():
            table = self.table(experiment).set_index("observer")
            if HUMANS not in table.index:
                continue
            h = table.loc[HUMANS]
            for observer, r in table.drop(index=HUMANS).iterrows():
                lo, hi = r["threshold_vs_humans_low"], r["threshold_vs_humans_high"]
                resolved = bool(np.isfinite(lo) and np.isfinite(hi) and (lo > 0 or hi < 0))
                rows.append({"experiment": experiment, "observer": observer, "observer_kind": r["observer_kind"],
                             "threshold": r["threshold"], "threshold_low": r["threshold_low"],
                             "threshold_high": r["threshold_high"], "humans": h["threshold"],
                             "humans_low": h["threshold_low"], "humans_high": h["threshold_high"],
                             "vs_humans": r["threshold_vs_humans"], "vs_humans_low": lo, "vs_humans_high": hi,
                             "resolved": resolved,
                             "side": ("lower" if hi < 0 else "higher") if resolved else ""})
        return pd.DataFrame(rows)

    def curve(self, experiment: str, observer: str, n: int = 200) -> pd.DataFrame:
        """The fitted function of one observer over its experiment's tested range.

        Parameters
        ----------
        experiment, observer : str
        n : int
            Points.

        Returns
        -------
        pandas.DataFrame
            Columns level, p.
        """
        p = self.parameters.set_index(["experiment", "observer"]).loc[(experiment, observer)]
        levels = self.counts[self.counts["experiment"] == experiment]["level"]
        lo, hi = float(levels.min()), float(levels.max())
        x = np.linspace(np.log10(lo), np.log10(hi), n) if p["space"] == "log" else np.linspace(lo, hi, n)
        y = predicted(self.settings["sigmoid"], x, p["location"], p["scale"], p["lapse"], p["guess"],
                      int(p["direction"]))
        return pd.DataFrame({"level": np.power(10.0, x) if p["space"] == "log" else x, "p": y})

    def to_json_dict(self) -> dict:
        """JSON-ready: the resampled values, the rows of :meth:`to_frame`, the fitted parameters, the settings.

        Returns
        -------
        dict
        """
        doc = self.resampled.to_json_dict()
        doc["rows"] = [{k: _plain(v) for k, v in r.items()} for r in self.to_frame().to_dict("records")]
        doc["parameters"] = [{k: _plain(v) for k, v in r.items()} for r in self.parameters.to_dict("records")]
        doc["settings"] = dict(self.settings)
        return doc


def _plain(value):
    if isinstance(value, (np.floating, float)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    return value


def psychometric_fits(trials: pd.DataFrame, *, settings: ResamplingSettings | None = None,
                      experiments: list[str] | None = None, sigmoid: str = "weibull", level: float = 0.5,
                      level_of: str = "accuracy", space: str = "auto", direction: str = "auto",
                      guess: float | None = None, max_lapse: float = 0.5, validate: bool = True
                      ) -> PsychometricFitResult:
    """Psychometric functions of every observer (and the pooled humans) per experiment, with intervals.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table whose conditions are stimulus levels (:func:`humanlike.measures.psychfit.axes.stimulus_level`).
    settings : ResamplingSettings, optional
        Resamples, level, interval, seed, observer level (``"bootstrap"`` resamples the humans of ``humans``).
    experiments : list of str, optional
        Only these experiments (default: every experiment).
    sigmoid : {"logistic", "gaussian", "weibull"}
        The sigmoid; ``"weibull"`` (default) is the Weibull function in log space, the Gumbel in linear space.
    level : float
        The performance level that defines the threshold (default 0.5).
    level_of : {"accuracy", "sigmoid"}
        ``level`` as proportion correct (default) or as the sigmoid's value (psignifit's ``threshPC``).
    space : {"auto", "log", "linear"}
        Fitting space (:func:`humanlike.measures.psychfit.axes.experiment_axes`).
    direction : {"auto", "increasing", "decreasing"}
        Whether performance rises with the level (:func:`humanlike.measures.psychfit.axes.experiment_axes`).
    guess : float, optional
        Fixed guess rate (default 1 / number of classes).
    max_lapse : float
        Upper bound of the lapse rate.
    validate : bool
        Validate the trial table first.

    Returns
    -------
    PsychometricFitResult

    Raises
    ------
    TrialTableError
        For an unknown experiment or conditions that are no stimulus levels.

    Examples
    --------
    >>> from humanlike.measures.psychfit.simulate import simulate_psychometric
    >>> trials = simulate_psychometric(seed=0, threshold=8.0)
    >>> r = psychometric_fits(trials, settings=ResamplingSettings(n_resamples=100))
    >>> row = r.table("sim-contrast").set_index("observer").loc["model-planted"]
    >>> bool(row["threshold_low"] < 8.0 < row["threshold_high"])
    True
    """
    settings = settings if settings is not None else ResamplingSettings()
    if sigmoid not in SIGMOIDS:
        raise ValueError(f"sigmoid must be one of {SIGMOIDS}, not {sigmoid!r}")
    if level_of not in LEVELS_OF:
        raise ValueError(f"level_of must be one of {LEVELS_OF}, not {level_of!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be a proportion in (0, 1), not {level}")
    if validate:
        trials = validate_trials(trials)
    if experiments is not None:
        unknown = sorted(set(experiments) - set(trials["experiment"].astype(str)))
        if unknown:
            raise TrialTableError(f"no experiment {unknown[0]!r} in the trials; experiments: "
                                  f"{sorted(trials['experiment'].astype(str).unique())}")
        trials = trials[trials["experiment"].astype(str).isin(experiments)]
    axes = experiment_axes(trials, space=space, direction=direction, guess=guess)
    for experiment, axis in axes.items():
        if not 0.0 <= max_lapse < 1.0 - axis.guess:
            raise ValueError(f"max_lapse must be in [0, 1 - guess) = [0, {1 - axis.guess:.3g}), not {max_lapse}")
    options = {"sigmoid": sigmoid, "performance": float(level), "level_of": level_of, "max_lapse": float(max_lapse)}
    design, observers = psychfit_design(trials, axes)
    aggregation = _FitAggregation(axes, observers, options)
    resampled = bootstrap(design, CountKernel(), aggregation, aggregation.output, settings)

    counts, parameters = [], []
    for s in design:
        experiment, condition, observer = s.key
        counts.append((experiment, observer, condition, axes[experiment].levels[axes[experiment].conditions.index(
            condition)], float(s.arrays["trials"].sum()), float(s.arrays["correct"].sum())))
    counts = pd.DataFrame(counts, columns=["experiment", "observer", "condition", "level", "trials", "correct"])
    for experiment, axis in axes.items():
        for observer in observers[experiment]:
            part = counts[(counts["experiment"] == experiment) & (counts["observer"] == observer)].set_index(
                "condition").reindex(list(axis.conditions))
            f = aggregation.fit(axis, part["correct"].to_numpy()[None], part["trials"].to_numpy()[None])
            parameters.append({"experiment": experiment, "observer": observer, "location": float(f["location"][0]),
                               "scale": float(f["scale"][0]), "lapse": float(f["lapse"][0]), "guess": axis.guess,
                               "direction": axis.direction, "space": axis.space, "loglik": float(f["loglik"][0])})
    kinds = dict(zip(trials["observer"].astype(str), trials["observer_kind"]))
    kinds[HUMANS] = "human"
    record = dict(settings.to_dict(), **options, space=space, direction=direction, guess=guess,
                  excluded={e: list(a.excluded) for e, a in axes.items() if a.excluded},
                  spaces={e: a.space for e, a in axes.items()}, directions={e: a.direction for e, a in axes.items()})
    return PsychometricFitResult(resampled, kinds, pd.DataFrame(parameters), counts, record)
