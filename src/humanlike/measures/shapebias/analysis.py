"""Shape bias on cue-conflict images, per observer and shape class, with bootstrap intervals.

The definition is model-vs-human's (:mod:`humanlike.measures.shapebias.metric`; docs/measures/model-vs-human-report.md).
The analysis runs through the one resampling engine (:func:`humanlike.resampling.engine.bootstrap`): the strata are
the shape classes of the experiment (the cue-conflict images of one shape class, same-class images dropped),
each resampled from its own random stream, jointly for all observers; the human observers are resampled too
with ``observer_level="bootstrap"`` (the default of ``humanlike shapebias``), which widens the intervals of
the two human summaries (a single observer's value depends on the images only):

- ``humans``: all human trials pooled (model-vs-human's "humans" in its shape-bias figure and table);
- ``human mean``: the mean over humans of each human's own shape bias (its box plot's centre).

Scopes: each shape class, and ``overall`` (the ratio of the decision counts summed over classes, not a
mean of the per-class ratios, as model-vs-human computes it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ...trials.design import Design, Stratum, build_design
from ...trials.schema import TrialTableError, validate_trials
from ...trials.summary_rows import summary_row
from ..measure_result import MeasureResult
from .metric import REASON_NO_CUE_DECISION, shape_bias, texture_classes
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings

__all__ = ["CUE_CONFLICT", "FRACTIONS", "HUMAN_MEAN", "HUMANS_POOLED", "OVERALL", "SHAPE_BIAS_METRICS",
           "ShapeBiasKernel", "ShapeBiasResult", "shape_bias_analysis", "shape_bias_design"]

CUE_CONFLICT = "cue-conflict"
HUMANS_POOLED = summary_row("humans")
HUMAN_MEAN = summary_row("human mean")
OVERALL = "overall"
#: shape_bias: shape / (shape + texture decisions); shape_fraction and texture_fraction: shape (texture)
#: decisions over the cue-conflict trials (the rest chose a third class).
SHAPE_BIAS_METRICS = ("shape_bias", "shape_fraction", "texture_fraction")
#: What the two fractions divide by: ``"conflict"`` the cue-conflict trials (shape and texture classes differ;
#: 1,200 of the 1,280 images), ``"model-vs-human"`` every trial of the scope, the same-class images too, as
#: model-vs-human's ``ShapeBias`` analysis does (``len(df)``), so that its published fractions are reproduced.
#: The shape bias itself is the same under both.
FRACTIONS = ("conflict", "model-vs-human")


def shape_bias_design(trials: pd.DataFrame, experiment: str = CUE_CONFLICT, fractions: str = "conflict") -> Design:
    """One stratum per shape class of the experiment's cue-conflict trials whose two classes differ.

    Each stratum holds, per image and observer, ``shape`` and ``texture`` (decisions for the shape and the
    texture class) and ``n_trials``; the experiment's humans form one observer group. With
    ``fractions="model-vs-human"`` the same-class images are items too, with trials but never a shape or a
    texture decision (model-vs-human's denominators).

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table.
    experiment : str
        The cue-conflict experiment's name.
    fractions : {"conflict", "model-vs-human"}
        Which trials the fractions divide by (:data:`FRACTIONS`).

    Returns
    -------
    Design
        Strata keyed ``(experiment, shape class)``.

    Raises
    ------
    TrialTableError
        When the experiment is missing, an image name is not a cue-conflict name or names a texture class that
        is neither a label nor a response of the data, or no trial has two different classes.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["h", "m"] * 2, "observer_kind": ["human", "model"] * 2,
    ...                   "experiment": "cue-conflict", "condition": "0",
    ...                   "item": ["cat1-dog1.png"] * 2 + ["dog2-cat3.png"] * 2, "label": ["cat"] * 2 + ["dog"] * 2,
    ...                   "response": ["cat", "dog", "cat", "cat"], "correct": [True, False, False, False]})
    >>> design = shape_bias_design(t)
    >>> design.keys, design.stratum(("cue-conflict", "cat")).arrays["texture"].tolist()
    ([('cue-conflict', 'cat'), ('cue-conflict', 'dog')], [[0.0, 1.0]])
    """
    if experiment not in set(trials["experiment"]):
        raise TrialTableError(f"no '{experiment}' trials: the shape bias needs the cue-conflict experiment "
                              f"(experiments found: {sorted(trials['experiment'].unique())[:10]})")
    cue = trials[trials["experiment"] == experiment]
    texture = texture_classes(cue["item"]).to_numpy()
    # a texture class no image shows as its shape and no observer ever chose is a misspelt name
    classes = set(trials["label"].astype(str)) | set(trials["response"].astype(str))
    unknown = ~pd.Series(texture).isin(classes).to_numpy()
    if unknown.any():
        item = cue["item"].to_numpy()[unknown][0]
        raise TrialTableError(f"'{experiment}': image '{item}' names texture class '{texture[unknown][0]}', which is "
                              "neither a label nor a response of the data; cue-conflict names end in "
                              "'<shape><k>-<texture><m>.png'")
    if fractions not in FRACTIONS:
        raise ValueError(f"fractions must be one of {FRACTIONS}, not {fractions!r}")
    differ = cue["label"].to_numpy() != texture
    if not differ.any():
        raise TrialTableError(f"'{experiment}': no trial whose shape and texture classes differ")
    # model-vs-human keeps the same-class images in the denominators only: they never count as a decision
    kept = differ if fractions == "conflict" else np.ones(len(cue), dtype=bool)
    conflict = cue.loc[kept].assign(shape_class=lambda f: f["label"])
    texture, differ = texture[kept], differ[kept]
    by = ("experiment", "shape_class")
    options = dict(by=by, group_by=("experiment",), group_kind="human", observer_order="kind", margins=False)
    shape = build_design(conflict.assign(correct=differ & (conflict["response"] == conflict["label"]).to_numpy()),
                         **options)
    texture_design = build_design(conflict.assign(correct=differ & (conflict["response"].to_numpy() == texture)),
                                  **options)
    strata = []
    for s, t in zip(shape, texture_design):
        arrays = {"shape": s.arrays["n_correct"], "texture": t.arrays["n_correct"], "n_trials": s.arrays["n_trials"]}
        strata.append(replace(s, arrays=arrays))
    return Design(tuple(strata), shape.groups)


class ShapeBiasKernel(SufficientStatisticKernel):
    """Per stratum: each observer's shape, texture and trial sums, then the human observer weights.

    Output columns (width 3 n + m for n observers, m humans): shape sums (n), texture sums (n), trial sums
    (n), the observer weights of the group's humans (m; ones without an observer level). The aggregation
    forms the ratios, so the overall values are ratios of sums over the classes.

    Examples
    --------
    >>> t = pd.DataFrame({"observer": ["h", "m"] * 2, "observer_kind": ["human", "model"] * 2,
    ...                   "experiment": "cue-conflict", "condition": "0",
    ...                   "item": ["cat1-dog1.png"] * 2 + ["cat2-bird3.png"] * 2, "label": "cat",
    ...                   "response": ["cat", "dog", "cat", "bird"], "correct": [True, False, True, False]})
    >>> stratum = shape_bias_design(t).strata[0]
    >>> ShapeBiasKernel().evaluate(stratum, np.array([[1.0, 1.0], [2.0, 0.0]]), None).tolist()
    [[2.0, 0.0, 0.0, 2.0, 2.0, 2.0, 1.0], [2.0, 0.0, 0.0, 2.0, 2.0, 2.0, 1.0]]
    """

    measure = "shape bias"  # names the engine's undefined-share warning

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per image: each observer's shape decisions, texture decisions and trials (items x 3 observers).

        Parameters
        ----------
        stratum : Stratum
            One shape class of :func:`shape_bias_design`.

        Returns
        -------
        numpy.ndarray
            Shape (items x 3 n).
        """
        a = stratum.arrays
        return np.concatenate([a["shape"], a["texture"], a["n_trials"]], axis=1)

    def reduce(self, stratum: Stratum, sums: np.ndarray, observer_weights: np.ndarray | None) -> np.ndarray:
        """The weighted sums, followed by the humans' observer weights (ones where none are drawn).

        Parameters
        ----------
        stratum : Stratum
            The stratum.
        sums : numpy.ndarray
            Weighted sums of :meth:`statistics`, shape (R x 3 n).
        observer_weights : numpy.ndarray or None
            The humans' weights (R x m), or None.

        Returns
        -------
        numpy.ndarray
            Shape (R x (3 n + m)).
        """
        m = stratum.group_columns.size
        u = np.ones((1, m)) if observer_weights is None else np.asarray(observer_weights, dtype=float)
        return np.concatenate([sums, np.broadcast_to(u, (sums.shape[0], m))], axis=1)


class _ShapeBiasAggregation:
    """Kernel sums of every shape class -> the shape-bias outputs of every observer and human summary."""

    def __init__(self, design: Design):
        self.keys = design.keys
        first = design.strata[0]
        self.observers = first.observers
        self.humans = first.group_columns
        self.classes = [k[1] for k in self.keys]
        self.rows = list(self.observers) + ([HUMANS_POOLED, HUMAN_MEAN] if self.humans.size else [])
        labels = [(scope, row, metric) for scope in [*self.classes, OVERALL] for row in self.rows
                  for metric in SHAPE_BIAS_METRICS]
        self.output = Output(labels, ("scope", "observer", "metric"), reasons=self._reasons)

    def _block(self, shape: np.ndarray, texture: np.ndarray, trials: np.ndarray, u: np.ndarray) -> np.ndarray:
        """(R x n) sums of one scope -> (R x rows x metrics)."""
        values = [shape_bias(shape, texture)]
        with np.errstate(invalid="ignore", divide="ignore"):
            values += [shape / trials, texture / trials]
        per_observer = np.stack(values, axis=2)                       # R x n x 3
        if not self.humans.size:
            return per_observer
        h = self.humans
        pooled_s, pooled_t, pooled_n = ((x[:, h] * u).sum(axis=1) for x in (shape, texture, trials))
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled = np.stack([shape_bias(pooled_s, pooled_t), pooled_s / pooled_n, pooled_t / pooled_n], axis=1)
        own = per_observer[:, h, :]                                   # R x m x 3
        weight = np.where(np.isnan(own), 0.0, u[:, :, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(own * weight, axis=1) / weight.sum(axis=1)
        return np.concatenate([per_observer, pooled[:, None, :], mean[:, None, :]], axis=1)

    def __call__(self, values) -> np.ndarray:
        n = len(self.observers)
        parts = [np.asarray(values[k], dtype=float) for k in self.keys]
        rows = max(p.shape[0] for p in parts)
        parts = [np.broadcast_to(p, (rows, p.shape[1])) for p in parts]
        u = parts[0][:, 3 * n:]
        blocks = [self._block(p[:, :n], p[:, n:2 * n], p[:, 2 * n:3 * n], u) for p in parts]
        total = sum(p[:, :3 * n] for p in parts)
        blocks.append(self._block(total[:, :n], total[:, n:2 * n], total[:, 2 * n:], u))
        return np.concatenate([b.reshape(rows, -1) for b in blocks], axis=1)

    def _reasons(self, estimate: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(estimate), REASON_NO_CUE_DECISION, "").astype(object)


@dataclass(frozen=True, repr=False)
class ShapeBiasResult(MeasureResult):
    """Shape bias per observer (and human summary) and scope, with bootstrap intervals.

    The tidy :meth:`to_frame` (the one result shape, docs/architecture.md) has ``scope`` (a shape class or
    ``overall``), ``group`` (the observer or human summary) and ``metric``; :meth:`observer_frame` is the same
    rows with an ``observer`` column, the table ``humanlike shapebias`` writes.

    Attributes
    ----------
    resampled : Resampled
        Columns labelled (scope, observer, metric); scope is a shape class or ``"overall"``.
    kinds : dict
        Observer -> ``"human"`` / ``"model"`` (the summaries ``humans`` and ``human mean`` are ``"human"``).
    counts : pandas.DataFrame
        Per observer and scope: trials, shape_decisions, texture_decisions (the estimate's counts).
    settings : dict
        The resampling settings and the experiment.

    Examples
    --------
    >>> from humanlike.measures.shapebias.simulate import simulate_cue_conflict
    >>> r = shape_bias_analysis(simulate_cue_conflict(seed=0), settings=ResamplingSettings(n_resamples=100))
    >>> row = r.overall().set_index("observer").loc["humans"]
    >>> bool(row["ci_low"] <= row["shape_bias"] <= row["ci_high"])
    True
    """

    resampled: Resampled
    kinds: dict
    counts: pd.DataFrame
    settings: dict
    # the text its command prints is its summary (MeasureResult.summary)
    text_formatter = ".cli:format_shape_bias"
    group_label = "observer"

    def frame_rows(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """The rows of the tidy :meth:`to_frame`: labels, values, then ``observer_kind``.

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
        return frame

    def observer_frame(self, level: float | None = None, method: str | None = None) -> pd.DataFrame:
        """Rows as ``humanlike shapebias`` writes them: measure, scope, observer, observer_kind, metric, estimate,
        ci_low, ci_high, undefined_share, reason.

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
        frame.insert(2, "observer_kind", frame["observer"].map(self.kinds))
        frame.insert(0, "measure", "shape_bias")
        return frame

    def overall(self, scope: str = OVERALL) -> pd.DataFrame:
        """One line per observer of one scope: shape bias with its interval, and the two fractions.

        Parameters
        ----------
        scope : str
            ``"overall"`` or a shape class.

        Returns
        -------
        pandas.DataFrame
            Columns observer, observer_kind, shape_bias, ci_low, ci_high, shape_fraction, texture_fraction;
            humans first, then models by shape bias (highest first).
        """
        rows = self.observer_frame()
        rows = rows[rows["scope"] == scope]
        if rows.empty:
            raise KeyError(f"no scope {scope!r}; scopes: {sorted(self.observer_frame()['scope'].unique())}")
        wide = rows.pivot(index="observer", columns="metric", values="estimate")
        bias = rows[rows["metric"] == "shape_bias"].set_index("observer")[["ci_low", "ci_high"]]
        wide = wide.join(bias).reset_index()
        wide.insert(1, "observer_kind", wide["observer"].map(self.kinds))
        # the two human summaries, then each human, then the models, each by shape bias (highest first)
        wide["_order"] = np.where(wide["observer"].isin([HUMANS_POOLED, HUMAN_MEAN]), 0,
                                  np.where(wide["observer_kind"] == "human", 1, 2))
        wide = wide.sort_values(["_order", "shape_bias"], ascending=[True, False]).drop(columns="_order")
        return wide[["observer", "observer_kind", "shape_bias", "ci_low", "ci_high", "shape_fraction",
                     "texture_fraction"]].reset_index(drop=True)

    def per_class(self, metric: str = "shape_bias") -> pd.DataFrame:
        """Observers x shape classes (and overall): the estimates of one metric (the figure's numbers).

        Parameters
        ----------
        metric : str
            One of :data:`SHAPE_BIAS_METRICS`.

        Returns
        -------
        pandas.DataFrame
            Index observer, one column per scope.
        """
        rows = self.observer_frame()
        rows = rows[rows["metric"] == metric]
        return rows.pivot(index="observer", columns="scope", values="estimate")

    def human_range(self) -> pd.DataFrame:
        """Per scope: the lowest and highest single human's shape bias (estimates; who they are).

        Returns
        -------
        pandas.DataFrame
            Columns scope, min, min_observer, max, max_observer, n_humans.
        """
        rows = self.observer_frame()
        rows = rows[(rows["metric"] == "shape_bias") & (rows["observer_kind"] == "human")
                    & ~rows["observer"].isin([HUMANS_POOLED, HUMAN_MEAN]) & rows["estimate"].notna()]
        out = []
        for scope, g in rows.groupby("scope", sort=False):
            lo, hi = g.loc[g["estimate"].idxmin()], g.loc[g["estimate"].idxmax()]
            out.append({"scope": scope, "min": lo["estimate"], "min_observer": lo["observer"],
                        "max": hi["estimate"], "max_observer": hi["observer"], "n_humans": len(g)})
        return pd.DataFrame(out, columns=["scope", "min", "min_observer", "max", "max_observer", "n_humans"])

    def to_json_dict(self) -> dict:
        """JSON-ready: settings, rows (:meth:`observer_frame` records), the human range and the counts.

        Returns
        -------
        dict
        """
        doc = self.resampled.to_json_dict()
        doc["rows"] = [{k: _plain(v) for k, v in r.items()} for r in self.observer_frame().to_dict("records")]
        doc["human_range"] = [{k: _plain(v) for k, v in r.items()} for r in self.human_range().to_dict("records")]
        doc["settings"] = dict(self.settings)
        return doc


def _plain(value):
    if isinstance(value, (np.floating, float)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


def shape_bias_analysis(trials: pd.DataFrame, *, settings: ResamplingSettings | None = None,
                        experiment: str = CUE_CONFLICT, fractions: str = "conflict",
                        validate: bool = True) -> ShapeBiasResult:
    """Shape bias of every observer, per shape class and overall, with bootstrap intervals over images.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table holding the cue-conflict experiment (other experiments are ignored).
    settings : ResamplingSettings, optional
        Resamples, level, interval, seed, observer level (``"bootstrap"`` resamples the humans too: it
        widens the intervals of ``humans`` and ``human mean``), memory budget.
    experiment : str
        The cue-conflict experiment's name.
    fractions : {"conflict", "model-vs-human"}
        What ``shape_fraction`` and ``texture_fraction`` divide by: the cue-conflict trials (default) or, as
        model-vs-human publishes them, every trial of the scope including the same-class images
        (:data:`FRACTIONS`). The shape bias is the same under both.
    validate : bool
        Validate the trial table first.

    Returns
    -------
    ShapeBiasResult

    Raises
    ------
    TrialTableError
        Without cue-conflict trials, or with an image name that is not a cue-conflict name.

    Examples
    --------
    >>> from humanlike.measures.shapebias.simulate import simulate_cue_conflict
    >>> r = shape_bias_analysis(simulate_cue_conflict(seed=0), settings=ResamplingSettings(n_resamples=200))
    >>> table = r.overall().set_index("observer")
    >>> round(float(table.loc["model-texture", "shape_bias"]), 3)   # planted 0.2 / (0.2 + 0.7) = 0.222
    0.207
    """
    settings = settings if settings is not None else ResamplingSettings()
    if validate:
        trials = validate_trials(trials)
    design = shape_bias_design(trials, experiment, fractions)
    aggregation = _ShapeBiasAggregation(design)
    resampled = bootstrap(design, ShapeBiasKernel(), aggregation, aggregation.output, settings)
    kinds = dict(zip(trials["observer"], trials["observer_kind"]))
    kinds.update({HUMANS_POOLED: "human", HUMAN_MEAN: "human"})
    counts = []
    for s in design:
        for j, name in enumerate(s.observers):
            counts.append((s.key[1], name, s.arrays["n_trials"][:, j].sum(), s.arrays["shape"][:, j].sum(),
                           s.arrays["texture"][:, j].sum()))
    counts = pd.DataFrame(counts, columns=["scope", "observer", "trials", "shape_decisions", "texture_decisions"])
    record = dict(settings.to_dict(), experiment=experiment, classes=[k[1] for k in design.keys], fractions=fractions)
    return ShapeBiasResult(resampled, kinds, counts, record)
