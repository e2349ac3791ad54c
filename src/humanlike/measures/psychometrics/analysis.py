"""Accuracy and response entropy per condition (the psychometric figure of every experiment), with intervals.

model-vs-human's definitions (its ``SixteenClassAccuracy`` and ``Entropy`` analyses;
docs/measures/model-vs-human-report.md):

- **accuracy** of an observer in a condition: correct trials / trials (a human's ``na`` is wrong); its
  ``humans`` value pools every human trial of the condition;
- **response entropy** of an observer in a condition: ``-sum_k p_k log2 p_k`` in bits over the classes shown
  in the condition, ``p_k`` = responses ``k`` / trials (``na`` responses count in the trials, not as a
  class); its ``humans`` value is the mean of the humans' entropies (not the entropy of pooled responses).
  ``entropy_normalised`` divides by ``log2`` of the number of classes (16: 4 bits), so 1 is a uniform
  response distribution.

Every value per experiment and condition, for every observer, for ``humans`` (model-vs-human's summary) and
``human mean`` (the mean over humans of each human's value); the humans' range (lowest and highest single
human) from the estimates. Intervals: the one resampling engine, images resampled within each (experiment,
condition) from its own stream, jointly for all observers; ``observer_level="bootstrap"`` also resamples the
humans of each experiment (it widens only the two human summaries).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.design import Design, Stratum, build_design
from ...trials.schema import TrialTableError, validate_trials
from ..measure_result import MeasureResult
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings

__all__ = ["HUMAN_MEAN", "HUMANS", "PSYCHOMETRIC_METRICS", "PsychometricKernel", "PsychometricResult",
           "condition_order", "psychometric_design", "psychometrics", "response_entropy"]

HUMANS = "humans"
HUMAN_MEAN = "human mean"
PSYCHOMETRIC_METRICS = ("accuracy", "entropy", "entropy_normalised")
REASON_NO_TRIALS = "no trials"


def response_entropy(counts, trials, axis: int = -1) -> np.ndarray:
    """Entropy in bits of response counts over classes, with ``p_k = counts_k / trials``; ``0 log 0 = 0``.

    ``trials`` may exceed the sum of the counts (responses outside the classes, e.g. ``na``), as in
    model-vs-human's definition.

    Parameters
    ----------
    counts : array-like
        Response counts (or weighted counts), classes on ``axis``.
    trials : array-like
        Trials, broadcastable to ``counts`` without ``axis``.
    axis : int
        The class axis.

    Returns
    -------
    numpy.ndarray
        Entropy in bits; NaN where there are no trials.

    Examples
    --------
    >>> float(response_entropy([5, 5], 10)), float(response_entropy([4, 4, 4, 4], 16))
    (1.0, 2.0)
    >>> round(float(response_entropy([6, 2], 10)), 4)   # two na responses: -(0.6 log2 0.6 + 0.2 log2 0.2)
    0.9066
    """
    counts = np.asarray(counts, dtype=float)
    trials = np.expand_dims(np.asarray(trials, dtype=float), axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts / trials
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    h = -terms.sum(axis=axis)
    return np.where(np.squeeze(trials, axis) > 0, h + 0.0, np.nan)


def condition_order(conditions) -> list[str]:
    """Conditions in their natural order: by the leading number where every condition has one, else as given.

    Parameters
    ----------
    conditions : iterable of str

    Returns
    -------
    list of str

    Examples
    --------
    >>> condition_order(["c30", "c100", "c05"]), condition_order(["16-3-10", "2-3-10", "1-3-10"])
    (['c05', 'c30', 'c100'], ['1-3-10', '2-3-10', '16-3-10'])
    >>> condition_order(["0.7", "inf", "3"]), condition_order(["true", "false"])
    (['0.7', '3', 'inf'], ['true', 'false'])
    """
    conditions = list(dict.fromkeys(str(c) for c in conditions))

    def number(c: str) -> float | None:
        if c.lower() == "inf":
            return np.inf
        m = re.match(r"^[a-z]*(-?\d+(?:\.\d+)?)", c.lower())
        return float(m.group(1)) if m else None

    keys = [number(c) for c in conditions]
    if any(k is None for k in keys):
        return conditions
    return [c for _, c in sorted(zip(keys, conditions), key=lambda x: x[0])]


def psychometric_design(trials: pd.DataFrame, classes: list[str] | None = None) -> tuple[Design, list[str]]:
    """Strata (experiment, condition) with, per image and observer, correct and trial counts and the response
    counts of every class.

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table (every presentation counts, as in model-vs-human).
    classes : list of str, optional
        The response classes (default: the table's labels).

    Returns
    -------
    (Design, list of str)
        The design (arrays ``n_correct``, ``n_trials``, ``responses`` of shape items x observers*classes,
        ``shown`` the classes shown in the stratum) and the classes.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["a", "a", "b", "b"], "observer_kind": "human", "experiment": "e",
    ...                   "condition": "0", "item": ["i1", "i2", "i1", "i2"], "label": ["cat", "dog"] * 2,
    ...                   "response": ["cat", "cat", "na", "dog"], "correct": [True, False, False, True]})
    >>> design, classes = psychometric_design(t)
    >>> classes, design.strata[0].arrays["responses"].tolist()
    (['cat', 'dog'], [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0]])
    """
    classes = sorted(trials["label"].unique()) if classes is None else list(classes)
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), group_kind="human",
                          observer_order="kind", margins=False)
    k = len(classes)
    class_index = pd.Index(classes)
    strata = []
    for (key, rows) in trials.groupby(["experiment", "condition"], sort=True, observed=True):
        s = design.stratum(tuple(str(v) for v in key))
        n_obs = len(s.observers)
        item = pd.Index(s.items).get_indexer(rows["item"].astype(str))
        observer = pd.Index(s.observers).get_indexer(rows["observer"].astype(str))
        response = class_index.get_indexer(rows["response"].astype(str))
        answered = response >= 0        # 'na' and other non-class responses count as trials only
        cells = (item[answered] * n_obs + observer[answered]) * k + response[answered]
        responses = np.bincount(cells, minlength=s.n_items * n_obs * k).reshape(s.n_items, n_obs * k).astype(float)
        shown = np.zeros(k, dtype=bool)
        shown[class_index.get_indexer(rows["label"].astype(str).unique())] = True
        arrays = dict(s.arrays, responses=responses, shown=np.broadcast_to(shown, (s.n_items, k)))
        strata.append(Stratum(s.key, s.items, s.observers, arrays, s.group, s.group_columns))
    strata.sort(key=lambda st: st.key)
    return Design(tuple(strata), design.groups), classes


class PsychometricKernel(SufficientStatisticKernel):
    """Per stratum: each observer's correct and trial sums and response entropy, then the humans' weights.

    Output columns (width 3 n + m): correct sums (n), trial sums (n), entropy in bits (n), the observer weights
    of the experiment's humans (m; ones without an observer level).

    Parameters
    ----------
    n_classes : int
        The number of response classes (the width of each observer's block of response counts).

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["a", "a"], "observer_kind": "human", "experiment": "e", "condition": "0",
    ...                   "item": ["i1", "i2"], "label": ["cat", "dog"], "response": ["cat", "cat"],
    ...                   "correct": [True, False]})
    >>> design, classes = psychometric_design(t)
    >>> PsychometricKernel(len(classes)).evaluate(design.strata[0], np.ones((1, 2)), None).tolist()
    [[1.0, 2.0, 0.0, 1.0]]
    """

    measure = "psychometrics"  # names the engine's undefined-share warning

    def __init__(self, n_classes: int):
        super().__init__()
        self.n_classes = int(n_classes)

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per image: correct and trial counts (n each), then the response counts (n x classes).

        Parameters
        ----------
        stratum : Stratum
            One (experiment, condition) of :func:`psychometric_design`.

        Returns
        -------
        numpy.ndarray
            Shape (items x n (2 + classes)).
        """
        a = stratum.arrays
        shown = np.tile(a["shown"][0], len(stratum.observers))
        return np.concatenate([a["n_correct"], a["n_trials"], a["responses"][:, shown]], axis=1)

    def reduce(self, stratum: Stratum, sums: np.ndarray, observer_weights: np.ndarray | None) -> np.ndarray:
        """Correct and trial sums, each observer's entropy (bits over the shown classes), the humans' weights.

        Parameters
        ----------
        stratum : Stratum
            The stratum.
        sums : numpy.ndarray
            Weighted sums of :meth:`statistics`, shape (R x S).
        observer_weights : numpy.ndarray or None
            The humans' weights (R x m), or None.

        Returns
        -------
        numpy.ndarray
            Shape (R x (3 n + m)).
        """
        n = len(stratum.observers)
        shown = int(stratum.arrays["shown"][0].sum())
        trials = sums[:, n:2 * n]
        counts = sums[:, 2 * n:].reshape(sums.shape[0], n, shown)
        entropy = response_entropy(counts, trials, axis=2)
        m = stratum.group_columns.size
        u = np.ones((1, m)) if observer_weights is None else np.asarray(observer_weights, dtype=float)
        return np.concatenate([sums[:, :2 * n], entropy, np.broadcast_to(u, (sums.shape[0], m))], axis=1)


class _PsychometricAggregation:
    """Kernel values of every stratum -> accuracy and entropy of every observer and the two human summaries."""

    def __init__(self, design: Design, n_classes: int):
        self.design = design
        self.log_classes = np.log2(n_classes)
        labels = []
        for s in design:
            rows = list(s.observers) + ([HUMANS, HUMAN_MEAN] if s.group_columns.size else [])
            labels += [(*s.key, row, metric) for row in rows for metric in PSYCHOMETRIC_METRICS]
        self.output = Output(labels, ("experiment", "condition", "observer", "metric"), reasons=self._reasons)

    def _block(self, s: Stratum, values: np.ndarray) -> np.ndarray:
        n, h = len(s.observers), s.group_columns
        correct, trials, entropy = values[:, :n], values[:, n:2 * n], values[:, 2 * n:3 * n]
        with np.errstate(invalid="ignore", divide="ignore"):
            accuracy = correct / trials
        own = np.stack([accuracy, entropy, entropy / self.log_classes], axis=2)      # R x n x 3
        if not h.size:
            return own.reshape(values.shape[0], -1)
        u = values[:, 3 * n:]
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled_accuracy = (correct[:, h] * u).sum(axis=1) / (trials[:, h] * u).sum(axis=1)
            humans_own = own[:, h, :]
            weight = np.where(np.isnan(humans_own), 0.0, u[:, :, None])
            mean = np.nansum(humans_own * weight, axis=1) / weight.sum(axis=1)          # R x 3
        humans = np.column_stack([pooled_accuracy, mean[:, 1], mean[:, 2]])   # model-vs-human's "humans"
        return np.concatenate([own, humans[:, None, :], mean[:, None, :]], axis=1).reshape(values.shape[0], -1)

    def __call__(self, values) -> np.ndarray:
        rows = max(np.shape(values[s.key])[0] for s in self.design)
        return np.concatenate([np.broadcast_to(self._block(s, np.asarray(values[s.key], dtype=float)),
                                               (rows, len(s.observers) * 3 + (6 if s.group_columns.size else 0)))
                               for s in self.design], axis=1)

    def _reasons(self, estimate: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(estimate), REASON_NO_TRIALS, "").astype(object)


@dataclass(frozen=True, repr=False)
class PsychometricResult(MeasureResult):
    """Accuracy and response entropy per experiment, condition and observer, with bootstrap intervals.

    The tidy :meth:`to_frame` (the one result shape, docs/architecture.md) has ``scope`` (the experiment),
    ``group`` (the observer or human summary), ``condition`` and ``metric``; :meth:`observer_frame` is the same
    rows with ``experiment`` and ``observer`` columns, the table ``humanlike psychometrics`` writes.

    Attributes
    ----------
    resampled : Resampled
        Columns labelled (experiment, condition, observer, metric).
    kinds : dict
        Observer -> ``"human"`` / ``"model"`` (the two human summaries are ``"human"``).
    classes : list of str
        The response classes (entropy is normalised by ``log2(len(classes))``).
    settings : dict
        The resampling settings.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> r = psychometrics(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=50))
    >>> sorted(r.to_frame()["metric"].unique())
    ['accuracy', 'entropy', 'entropy_normalised']
    """

    resampled: Resampled
    kinds: dict
    classes: list
    settings: dict
    measure = "psychometrics"
    # the text its command prints is its summary (MeasureResult.summary)
    text_formatter = "humanlike.measures.psychometrics.cli:format_psychometrics"
    scope_label = "experiment"
    group_label = "observer"

    def interval(self, level: float | None = None, method: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of every row of :meth:`to_frame`: accuracy by ``method``, entropy by the basic bootstrap.

        Parameters
        ----------
        level : float, optional
            Confidence level (default: the result's).
        method : {"percentile", "bca"}, optional
            Interval method of the accuracy rows (default: the result's).

        Returns
        -------
        (low, high) : tuple of numpy.ndarray
        """
        frame = self.frame_rows(level, method)
        return frame["ci_low"].to_numpy(dtype=float), frame["ci_high"].to_numpy(dtype=float)

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The rows of the tidy :meth:`to_frame` (labels, values, then ``interval`` and ``observer_kind``).

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
        frame = self.observer_frame(level, method).drop(columns="measure")
        kind = frame.pop("observer_kind")
        frame["observer_kind"] = kind
        return frame

    def observer_frame(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """Rows as ``humanlike psychometrics`` writes them: measure, experiment, condition, observer, observer_kind,
        metric, estimate, ci_low, ci_high, ...

        Accuracy rows carry the settings' interval (percentile or BCa); entropy rows the basic bootstrap
        interval, clipped to [0, log2 classes] and widened to include the estimate (column ``interval`` says
        which).

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
        frame = self.resampled.to_frame(level, "percentile" if method is None else method)
        frame["interval"] = self.resampled.method if method is None else method
        # Entropy: the plug-in estimate is biased low, and its resamples (images drawn with replacement, so
        # fewer distinct responses) lower still; near the maximum their whole distribution lies below the
        # estimate and percentile and BCa intervals miss the truth. The basic bootstrap interval
        # (2 estimate - upper quantile, 2 estimate - lower quantile) carries that shift back (docs page). It can
        # then lie wholly above the plug-in estimate; it is widened to include it (it also reports that number).
        entropy = frame["metric"].isin(["entropy", "entropy_normalised"]).to_numpy()
        if entropy.any() and self.resampled.n_resamples:
            low, high = self.resampled.interval(level, "percentile")
            est = self.resampled.estimate
            top = np.where(frame["metric"] == "entropy", np.log2(len(self.classes)), 1.0)
            with np.errstate(invalid="ignore"):
                basic_low = np.fmin(np.clip(2 * est - high, 0, top), est)
                basic_high = np.fmax(np.clip(2 * est - low, 0, top), est)
            frame.loc[entropy, "ci_low"] = np.where(np.isfinite(low), basic_low, np.nan)[entropy]
            frame.loc[entropy, "ci_high"] = np.where(np.isfinite(high), basic_high, np.nan)[entropy]
            frame.loc[entropy, "interval"] = "basic"
        frame.insert(3, "observer_kind", frame["observer"].map(self.kinds))
        frame.insert(0, "measure", "psychometrics")
        return frame

    def experiments(self) -> list[str]:
        """The experiments, in order.

        Returns
        -------
        list of str
        """
        return list(dict.fromkeys(lab[0] for lab in self.resampled.labels))

    def table(self, experiment: str, metric: str = "accuracy") -> pd.DataFrame:
        """Observers x conditions (natural order): the estimates of one metric in one experiment.

        Parameters
        ----------
        experiment : str
        metric : str
            One of :data:`PSYCHOMETRIC_METRICS`.

        Returns
        -------
        pandas.DataFrame
            Index observer (humans' summaries first), one column per condition.
        """
        rows = self.observer_frame()
        rows = rows[(rows["experiment"] == experiment) & (rows["metric"] == metric)]
        if rows.empty:
            raise KeyError(f"no experiment {experiment!r} / metric {metric!r}")
        wide = rows.pivot(index="observer", columns="condition", values="estimate")
        wide = wide[condition_order(wide.columns)]
        order = sorted(wide.index, key=lambda o: (o not in (HUMANS, HUMAN_MEAN), self.kinds.get(o) != "human", o))
        return wide.loc[order]

    def human_range(self) -> pd.DataFrame:
        """Per experiment, condition and metric: the lowest and highest single human (estimates).

        Returns
        -------
        pandas.DataFrame
            Columns experiment, condition, metric, min, max, n_humans.
        """
        rows = self.observer_frame()
        rows = rows[(rows["observer_kind"] == "human") & ~rows["observer"].isin([HUMANS, HUMAN_MEAN])]
        out = rows.groupby(["experiment", "condition", "metric"], sort=False)["estimate"].agg(
            ["min", "max", "count"]).reset_index()
        return out.rename(columns={"count": "n_humans"})

    def to_json_dict(self) -> dict:
        """JSON-ready: settings, classes, rows (:meth:`observer_frame` records) and the human range.

        Returns
        -------
        dict
        """
        doc = self.resampled.to_json_dict()
        doc["rows"] = [{k: _plain(v) for k, v in r.items()} for r in self.observer_frame().to_dict("records")]
        doc["human_range"] = [{k: _plain(v) for k, v in r.items()} for r in self.human_range().to_dict("records")]
        doc["settings"], doc["classes"] = dict(self.settings), list(self.classes)
        return doc


def _plain(value):
    if isinstance(value, (np.floating, float)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def psychometrics(trials: pd.DataFrame, *, settings: ResamplingSettings | None = None,
                  experiments: list[str] | None = None, validate: bool = True) -> PsychometricResult:
    """Accuracy and response entropy per condition of every experiment, with bootstrap intervals.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table.
    settings : ResamplingSettings, optional
        Resamples, level, interval, seed, observer level, memory budget.
    experiments : list of str, optional
        Only these experiments (their numbers do not depend on which others are selected).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    PsychometricResult

    Raises
    ------
    TrialTableError
        For an unknown experiment.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> r = psychometrics(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=0))
    >>> r.table("sim-noise").round(3).iloc[0].tolist()       # pooled humans' accuracy per noise level
    [0.837, 0.714, 0.517, 0.323]
    """
    settings = settings if settings is not None else ResamplingSettings()
    if validate:
        trials = validate_trials(trials)
    if experiments is not None:
        unknown = sorted(set(experiments) - set(trials["experiment"]))
        if unknown:
            raise TrialTableError(f"unknown experiment(s) {unknown}; available: {sorted(trials['experiment'].unique())}")
        trials = trials[trials["experiment"].isin(experiments)]
    design, classes = psychometric_design(trials)
    aggregation = _PsychometricAggregation(design, len(classes))
    resampled = bootstrap(design, PsychometricKernel(len(classes)), aggregation, aggregation.output, settings)
    kinds = dict(zip(trials["observer"], trials["observer_kind"]))
    kinds.update({HUMANS: "human", HUMAN_MEAN: "human"})
    return PsychometricResult(resampled, kinds, classes, dict(settings.to_dict(), experiments=sorted(
        trials["experiment"].unique())))
