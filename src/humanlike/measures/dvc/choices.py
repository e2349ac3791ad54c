"""Decision-variable correlation from binary choices (Sebastian & Geisler 2018), on trial tables.

Three views, all with bootstrap intervals from the resampling engine (items resampled within each stratum,
jointly for all observers, pushed through the whole aggregation):

* :func:`choice_dvc` — two-category data (exactly two labels per experiment, responses "a"/"b"): per
  observer d' and criterion, and per observer pair and category the bivariate-normal ML correlation of the
  joint responses, the thresholds coming from each observer's d' and criterion (rates of 0 or 1 clipped to
  1/(2n), 1 - 1/(2n)). With a ``repeat`` column and ``passes="split"``, each pass is its own observer, and the
  pair of an observer's two passes is its double-pass (internal-noise) self-DVC.
* :func:`latent_correctness_correlation` — benchmark data (any number of classes): per condition, the
  tetrachoric correlation of the two observers' correctness (the latent-variable analogue of error
  consistency), averaged over conditions per pair, then over the human–human pairs, each model's pairs with
  the humans and the model–model pairs of each experiment, then over experiments — the EC benchmark's
  aggregation.
* :func:`margin_probit_correlation` — for models with decision margins: per condition, the model's margin
  standardised within the condition is a known continuous DV; the probit regression of a human's
  correctness on it gives the latent correlation rho = beta / sqrt(1 + beta^2). Replicates take one Newton
  step from the full-data fit under the resample's weights (the one-step bootstrap; same first-order
  accuracy, exact weighted sums), so the whole bootstrap is one matrix product per condition.

Zero cells: a 2x2 table with an empty cell has its ML correlation on the boundary (+-1). By default 0.5 is
added to the empty cells only (``zero_cell_correction=0.5``, as R's ``psych::tetrachoric``), which keeps
single tables from jumping to +-1 in averages; 0 gives the plain ML estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.design import Design, Stratum, build_design, observer_kinds
from ...trials.schema import TrialTableError, first_presentations, validate_trials
from .choices_metric import (
    category_thresholds, dprime_criterion, latent_correlation, probit_fit, probit_score, rho_from_probit,
)
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.weights import group_mean, nanmean_quiet
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings
from ...trials.selection import select_trials
from ..contract import MeasureResult
from ..pairwise import HUMANS, MODEL_MODEL

DEFAULT_CORRECTION = 0.5


# --------------------------------------------------------------------------------------------------
# Kernels: weighted sums of per-item indicators of every observer and every pair
# --------------------------------------------------------------------------------------------------


class _PairTableKernel(SufficientStatisticKernel):
    """Per stratum, the weighted sums behind every observer's rate and every pair's 2x2 table.

    The indicator ``x`` is ``n_correct > 0`` (first presentations: correct, or in two-category data "said
    a"), ``m`` marks an observed response. Statistics per item: x_o, m_o for all observers, then for every
    pair (i < j) x_i x_j, x_i m_j, m_i x_j, m_i m_j. ``reduce`` returns the sums unchanged: the aggregations
    below turn them into tables.
    """

    measure = "decision-variable correlation (choices)"  # names the engine's undefined-share warning

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them."""
        m = stratum.arrays["n_trials"] > 0
        x = (stratum.arrays["n_correct"] > 0) & m
        i, j = np.triu_indices(m.shape[1], 1)
        return np.concatenate([x, m, x[:, i] & x[:, j], x[:, i] & m[:, j], m[:, i] & x[:, j], m[:, i] & m[:, j]],
                              axis=1).astype(np.float64)

    def reduce(self, stratum, sums, observer_weights):
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width)."""
        return sums


def _pair_tables(sums: np.ndarray, n_observers: int):
    """Split ``_PairTableKernel`` sums (R x S) into per-observer (x, m) and per-pair 2x2 counts (R, P, 4)."""
    o = n_observers
    x, m = sums[:, :o], sums[:, o:2 * o]
    p = o * (o - 1) // 2
    xx, xm, mx, mm = (sums[:, 2 * o + k * p: 2 * o + (k + 1) * p] for k in range(4))
    counts = np.stack([xx, xm - xx, mx - xx, mm - xm - mx + xx], axis=-1)
    return x, m, counts


def _corrected(counts: np.ndarray, correction: float) -> np.ndarray:
    """Add ``correction`` to the empty cells of each 2x2 table (..., 4)."""
    if correction <= 0:
        return counts
    return np.where(counts <= 0, correction, counts)


# --------------------------------------------------------------------------------------------------
# Two-category data: Sebastian & Geisler per observer pair and category
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChoiceDVCResult(MeasureResult):
    """Per observer d' and criterion, per pair and category the latent correlation rho, with intervals.

    ``values`` is a :class:`Resampled` labelled (experiment, statistic, observer_1, observer_2, category);
    statistic is ``"dprime"``, ``"criterion"`` (observer_2 empty) or ``"rho"``. ``categories`` maps each
    experiment to its (a, b) labels. Made by :func:`choice_dvc`.

    Parameters
    ----------
    values : Resampled
        Estimates and replicates, labelled as above.
    categories : dict of str to tuple of str
        ``{experiment: (label_a, label_b)}``.

    Examples
    --------
    >>> from humanlike.measures.dvc.simulate import simulate_choice_pair
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_choice_pair(0.6, n_per_category=2000, seed=0)   # planted rho = 0.6 per category
    >>> result = choice_dvc(trials, settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.categories
    {'sim': ('a', 'b')}
    >>> dprime = result.table().query("statistic == 'dprime'")
    >>> dprime["estimate"].round(2).tolist()   # planted d' 1.5 and 1.0
    [1.48, 0.89]
    """

    values: Resampled
    categories: dict
    measure = "dvc"
    resampled_field = "values"
    scope_label = "experiment"

    def table(self) -> pd.DataFrame:
        """The table ``humanlike dvc choices`` writes, one row per estimate (:meth:`to_frame` is the same rows
        with the core columns first: ``scope`` is the experiment).

        Returns
        -------
        pandas.DataFrame
            Columns experiment, statistic, observer_1, observer_2, category, estimate, ci_low, ci_high,
            undefined_share, reason.
        """
        return self.values.to_frame()

    def rho(self) -> pd.DataFrame:
        """The correlation rows: one per observer pair and category, with intervals.

        Returns
        -------
        pandas.DataFrame
            The ``statistic == "rho"`` rows of :meth:`table`.
        """
        frame = self.table()
        return frame[frame["statistic"] == "rho"].reset_index(drop=True)

    def to_json_dict(self) -> dict:
        """The result as a dict of records per experiment, with the settings.

        Returns
        -------
        dict
            ``{"experiments": {experiment: {"categories", "pairs" (rho records), "observers" (d' and criterion
            records)}}, "settings": {...}}``.
        """
        frame = self.table()
        keep = ["observer_1", "observer_2", "category", "estimate", "ci_low", "ci_high", "undefined_share"]
        doc = {"experiments": {}}
        for experiment, rows in frame.groupby("experiment", sort=True):
            rho = rows[rows["statistic"] == "rho"][keep].rename(columns={"estimate": "rho"})
            obs = rows[rows["statistic"] != "rho"]
            doc["experiments"][experiment] = {
                "categories": list(self.categories[experiment]),
                "pairs": rho.to_dict("records"),
                "observers": obs[["observer_1", "statistic", "estimate", "ci_low", "ci_high"]]
                .rename(columns={"observer_1": "observer"}).to_dict("records")}
        doc["settings"] = self.values.settings
        return doc


def _two_category_table(trials: pd.DataFrame, passes: str) -> tuple[pd.DataFrame, dict]:
    categories = {}
    for experiment, rows in trials.groupby("experiment", sort=True):
        labels = sorted(rows["label"].unique())
        if len(labels) != 2:
            raise TrialTableError(f"experiment '{experiment}' has {len(labels)} categories {labels[:5]}; "
                                  "choice DVC needs exactly two (use the benchmark view for more)")
        categories[experiment] = tuple(labels)
    out = trials.copy()
    a = out["experiment"].map({e: c[0] for e, c in categories.items()})
    # The design counts "correct"; here it carries the response "a", so every table is in a/b terms.
    out["correct"] = (out["response"] == a).to_numpy()
    if passes == "split":
        if "repeat" not in out:
            raise TrialTableError("passes='split' needs a 'repeat' column (0 for the first pass, 1 for the second)")
        out["observer"] = out["observer"] + " pass " + (out["repeat"] + 1).astype(str)
    elif passes == "first":
        out = first_presentations(out)
    else:
        raise ValueError(f"passes must be 'first' or 'split', not {passes!r}")
    return out, categories


def choice_dvc(trials: pd.DataFrame, *, experiments: list[str] | None = None, passes: str = "first",
               zero_cell_correction: float = DEFAULT_CORRECTION, settings: ResamplingSettings | None = None,
               validate: bool = True) -> ChoiceDVCResult:
    """Sebastian & Geisler's DVC of every observer pair, per category, for two-category data.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table with exactly two labels per experiment (responses among them).
    experiments : list of str, optional
        Restrict to these experiments.
    passes : {"first", "split"}
        ``"first"``: each observer's first presentation; ``"split"``: each pass its own observer (needs a
        ``repeat`` column), for double-pass self-DVC.
    zero_cell_correction : float
        Added to the empty cells of a joint table (0: plain ML, +-1 at the boundary).
    settings : ResamplingSettings, optional
        Resampling settings (items resampled within category, jointly for all observers).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    ChoiceDVCResult
        d' and criterion per observer, rho per pair and category, with intervals.

    Raises
    ------
    TrialTableError
        On an unknown experiment, an experiment without exactly two categories, observers that differ
        between the categories, or ``passes="split"`` without a ``repeat`` column.

    Examples
    --------
    >>> from humanlike.measures.dvc.simulate import simulate_choice_pair
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_choice_pair(0.6, n_per_category=2000, seed=0)   # planted rho = 0.6 per category
    >>> result = choice_dvc(trials, settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.rho()["estimate"].round(2).tolist()   # categories a and b
    [0.57, 0.59]
    """
    settings = settings or ResamplingSettings()
    if validate:
        trials = validate_trials(trials)
    if experiments is not None:
        unknown = sorted(set(experiments) - set(trials["experiment"]))
        if unknown:
            raise TrialTableError(f"unknown experiment(s) {unknown}; available: {sorted(trials['experiment'].unique())}")
        trials = trials[trials["experiment"].isin(experiments)]
    table, categories = _two_category_table(trials, passes)
    design = build_design(table, by=("experiment", "label"), group_by=("experiment",), group_kind=None,
                          observer_order="name", margins=False)
    labels_out, plan = [], []
    for experiment, (cat_a, cat_b) in categories.items():
        observers = design.stratum((experiment, cat_a)).observers
        if design.stratum((experiment, cat_b)).observers != observers:
            raise TrialTableError(f"experiment '{experiment}': observers differ between the categories")
        i, j = np.triu_indices(len(observers), 1)
        start = len(labels_out)
        labels_out += [(experiment, "dprime", o, "", "") for o in observers]
        labels_out += [(experiment, "criterion", o, "", "") for o in observers]
        for cat in (cat_a, cat_b):
            labels_out += [(experiment, "rho", observers[a], observers[b], cat) for a, b in zip(i, j)]
        plan.append((experiment, cat_a, cat_b, len(observers), start, len(labels_out)))

    def aggregate(values):
        rows = max(v.shape[0] for v in values.values())
        out = np.full((rows, len(labels_out)), np.nan)
        for experiment, cat_a, cat_b, n_obs, start, stop in plan:
            sums_a, sums_b = (values[(experiment, c)] for c in (cat_a, cat_b))
            xa, ma, ca = _pair_tables(np.broadcast_to(sums_a, (rows, sums_a.shape[1])), n_obs)
            xb, mb, cb = _pair_tables(np.broadcast_to(sums_b, (rows, sums_b.shape[1])), n_obs)
            # "b" responses: hits in category b, false alarms in category a.
            dprime, gamma, _ = dprime_criterion(mb - xb, mb, ma - xa, ma)
            t_a, t_b = category_thresholds(dprime, gamma)
            i, j = np.triu_indices(n_obs, 1)
            rho_a = latent_correlation(_corrected(ca, zero_cell_correction), t_a[:, i], t_a[:, j])
            rho_b = latent_correlation(_corrected(cb, zero_cell_correction), t_b[:, i], t_b[:, j])
            out[:, start:stop] = np.concatenate([dprime, gamma, rho_a, rho_b], axis=1)
        return out

    output = Output(labels_out, ("experiment", "statistic", "observer_1", "observer_2", "category"),
                    reasons=lambda est: np.where(np.isnan(est), "an observer's responses are constant "
                                                 "within the category (no threshold)", ""))
    result = bootstrap(design, _PairTableKernel(), aggregate, output, settings)
    return ChoiceDVCResult(result, categories)


# --------------------------------------------------------------------------------------------------
# Benchmark data: tetrachoric correlation of correctness, aggregated like error consistency
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LatentBenchmarkResult(MeasureResult):
    """Group means of a pairwise latent correlation per experiment and overall, with intervals.

    ``values`` is a :class:`Resampled` labelled (scope, group, kind, observer_1, observer_2): scope is an
    experiment or ``"overall"``; group ``"humans"`` (human–human), ``"model-model"``, a model name
    (model–human) or ``"pair"`` (one pair's mean over conditions, observer fields set). Made by
    :func:`latent_correctness_correlation` and :func:`margin_probit_correlation`.

    Parameters
    ----------
    values : Resampled
        Estimates and replicates, labelled as above.
    metric : str
        ``"tetrachoric_correctness"`` or ``"margin_probit"``.

    Examples
    --------
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


def _prepare(trials, experiments, exclusions, validate):
    return select_trials(trials, experiments=experiments, exclusions=exclusions, validate=validate)


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


def latent_correctness_correlation(trials: pd.DataFrame, *, experiments: list[str] | None = None,
                                   exclusions: dict | None = None,
                                   zero_cell_correction: float = DEFAULT_CORRECTION,
                                   pair_intervals: bool = False, settings: ResamplingSettings | None = None,
                                   validate: bool = True) -> LatentBenchmarkResult:
    """Tetrachoric correlation of correctness for every observer pair and condition, aggregated like EC.

    Per (experiment, condition): the 2x2 table of the two observers' correctness over the items both
    answered, its tetrachoric correlation (thresholds from each observer's accuracy there; NaN where an
    observer is always right or always wrong, skipped in the means). Then the mean over conditions per pair,
    the group means per experiment, the mean over experiments (equal weight).

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (benchmark data; first presentations are used).
    experiments : list of str, optional
        Restrict to these experiments.
    exclusions : dict, optional
        ``{experiment: conditions}`` to drop first (``MODELVSHUMAN_EXCLUSIONS`` for the benchmark).
    zero_cell_correction : float
        Added to the empty cells of each 2x2 table (see the module docs; 0: plain ML).
    pair_intervals : bool
        Also output every pair's condition-averaged value.
    settings : ResamplingSettings, optional
        Resampling settings (``observer_level`` must be ``"none"``).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    LatentBenchmarkResult
        Group means per experiment and overall (metric ``"tetrachoric_correctness"``).

    Raises
    ------
    ValueError
        When ``settings.observer_level`` is not ``"none"``.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_benchmark(seed=0)
    >>> result = latent_correctness_correlation(trials, experiments=["sim-noise"],
    ...                                         settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> overall = result.groups().set_index("group")["estimate"].round(3)
    >>> float(overall["humans"]), float(overall["model-humanlike"]), float(overall["model-alien"])
    (0.493, 0.534, -0.055)
    """
    settings = settings or ResamplingSettings()
    if settings.observer_level != "none":
        raise ValueError("the latent-correlation benchmark resamples items only (observer_level='none')")
    trials = _prepare(trials, experiments, exclusions, validate)
    kinds = observer_kinds(trials)
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), margins=False)
    plan, labels_out = _benchmark_plan(design, kinds, pair_intervals, models_filter=None)

    def per_stratum(stratum, sums):
        _, _, counts = _pair_tables(sums, len(stratum.observers))
        return latent_correlation(_corrected(counts, zero_cell_correction))

    aggregate = _benchmark_aggregate(design, plan, labels_out, per_stratum)
    output = Output(labels_out, ("scope", "group", "kind", "observer_1", "observer_2"))
    result = bootstrap(design, _PairTableKernel(), aggregate, output, settings)
    return LatentBenchmarkResult(result, "tetrachoric_correctness")


def _benchmark_plan(design: Design, kinds: dict, pair_intervals: bool, models_filter):
    """Per experiment: observers, pair indices, groups; and the output labels."""
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


def _benchmark_aggregate(design, plan, labels_out, per_stratum):
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


# --------------------------------------------------------------------------------------------------
# Models' decision margins against humans' correctness: the probit variant
# --------------------------------------------------------------------------------------------------


class _MarginProbitKernel(SufficientStatisticKernel):
    """Per stratum and (model with margins, human) pair: the probit score and information of each item at
    the pair's full-data fit; a resample's one-step estimate is a weighted sum of them.

    Parameters
    ----------
    kinds : dict of str to str
        ``{observer: "human" or "model"}``.
    """

    measure = "margin-probit correlation"  # names the engine's undefined-share warning

    def __init__(self, kinds: dict):
        super().__init__()
        self.kinds = kinds
        self.fits: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def pairs(self, stratum: Stratum):
        """(model, human) column pairs of a stratum whose model has decision margins."""
        margin = stratum.arrays.get("margin")
        obs = stratum.observers
        models = [k for k, o in enumerate(obs) if self.kinds[o] == "model" and margin is not None
                  and np.isfinite(margin[:, k]).any()]
        humans = [k for k, o in enumerate(obs) if self.kinds[o] == "human"]
        return [(m, h) for m in models for h in humans]

    def statistics(self, stratum: Stratum) -> np.ndarray:
        """Per-item sufficient statistics of one stratum (items x S); the engine forms weighted sums of them."""
        pairs = self.pairs(stratum)
        n = stratum.n_items
        if not pairs:
            self.fits[stratum.key] = (np.zeros(0), np.zeros(0))
            return np.zeros((n, 0))
        margin = stratum.arrays["margin"]
        observed = stratum.arrays["n_trials"] > 0
        m_idx = np.array([m for m, _ in pairs])
        h_idx = np.array([h for _, h in pairs])
        z = margin[:, m_idx].T                                              # (P, n)
        mask = np.isfinite(z) & observed[:, h_idx].T & observed[:, m_idx].T
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(np.where(mask, z, 0), axis=1, keepdims=True) / mask.sum(axis=1, keepdims=True)
            sd = np.sqrt(np.sum(np.where(mask, (z - mean) ** 2, 0), axis=1, keepdims=True) / mask.sum(axis=1, keepdims=True))
            z = np.where(mask, (z - mean) / sd, 0.0)
        y = (stratum.arrays["n_correct"][:, h_idx].T > 0).astype(float)
        w = mask.astype(float)
        alpha, beta = probit_fit(z, y, w)
        self.fits[stratum.key] = (alpha, beta)
        a0, b0 = np.nan_to_num(alpha), np.nan_to_num(beta)
        # Per-item score and information at the fit (zero weight where not observed).
        return np.concatenate([part.T for part in _item_terms(a0, b0, z, y, w)], axis=1)   # (n, 5P)

    def reduce(self, stratum, sums, observer_weights):
        """Per-stratum values from weighted sums of the statistics (R x S) -> (R x width)."""
        alpha, beta = self.fits[stratum.key]
        p = alpha.size
        if p == 0:
            return np.zeros((sums.shape[0], 0))
        g_a, g_b, i_aa, i_ab, i_bb = (sums[:, k * p:(k + 1) * p] for k in range(5))
        det = i_aa * i_bb - i_ab ** 2
        with np.errstate(invalid="ignore", divide="ignore"):
            step_b = (i_aa * g_b - i_ab * g_a) / det
        return rho_from_probit(beta + step_b)


def _item_terms(alpha, beta, z, y, w):
    """Per-item probit score (2) and information (3) terms at (alpha, beta): five (P, n) arrays."""
    # probit_score sums over items; evaluate it item by item through a trailing axis of length 1.
    grad, info = probit_score(alpha[:, None], beta[:, None], z[..., None], y[..., None], w[..., None])
    return grad[0], grad[1], info[0], info[1], info[2]


def margin_probit_correlation(trials: pd.DataFrame, *, experiments: list[str] | None = None,
                              exclusions: dict | None = None, pair_intervals: bool = False,
                              settings: ResamplingSettings | None = None,
                              validate: bool = True) -> LatentBenchmarkResult:
    """Latent correlation of each model's decision margin with each human's correctness (probit variant).

    Per (experiment, condition) and (model, human): the model's margin standardised within the condition
    (over the items both answered) is z, the human's correctness y; the probit fit
    P(correct | z) = Phi(alpha + beta z) gives rho = beta / sqrt(1 + beta^2). Mean over conditions per pair,
    over humans per model (group = the model), over experiments. Models without margins are left out.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table whose models have a ``decision_margin`` column.
    experiments : list of str, optional
        Restrict to these experiments.
    exclusions : dict, optional
        ``{experiment: conditions}`` to drop first.
    pair_intervals : bool
        Also output every (model, human) pair's condition-averaged value.
    settings : ResamplingSettings, optional
        Resampling settings (``observer_level`` must be ``"none"``).
    validate : bool
        Validate the trial table first.

    Returns
    -------
    LatentBenchmarkResult
        One group per model (its mean over humans), per experiment and overall (metric ``"margin_probit"``).

    Raises
    ------
    ValueError
        When ``settings.observer_level`` is not ``"none"``.
    TrialTableError
        When the data have no decision margins, or no condition has both a model with margins and a human.

    Examples
    --------
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> trials = simulate_benchmark(seed=0)
    >>> result = margin_probit_correlation(trials, experiments=["sim-noise"],
    ...                                    settings=ResamplingSettings(n_resamples=20, seed=0))
    >>> result.groups().set_index("group")["estimate"].round(3).to_dict()
    {'model-alien': -0.055, 'model-humanlike': 0.535, 'model-medium': 0.32, 'model-strong': 0.384, 'model-texture': 0.197}
    """
    settings = settings or ResamplingSettings()
    if settings.observer_level != "none":
        raise ValueError("the probit view resamples items only (observer_level='none')")
    trials = _prepare(trials, experiments, exclusions, validate)
    if "decision_margin" not in trials or trials["decision_margin"].notna().sum() == 0:
        raise TrialTableError("no decision margins in the data: the probit view needs models with a "
                              "'decision_margin' column")
    kinds = observer_kinds(trials)
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), margins=True)
    kernel = _MarginProbitKernel(kinds)
    with_margins = {o for s in design for k, o in enumerate(s.observers)
                    if kinds[o] == "model" and np.isfinite(s.arrays["margin"][:, k]).any()}
    design = design.select(lambda s: bool(kernel.pairs(s)))
    if len(design) == 0:
        raise TrialTableError("no condition has both a model with margins and a human")

    def models_filter(observers, first, second):
        return np.array([(observers[a] in with_margins and kinds[observers[b]] == "human")
                         or (observers[b] in with_margins and kinds[observers[a]] == "human")
                         for a, b in zip(first, second)], dtype=bool)

    plan, labels_out = _benchmark_plan(design, kinds, pair_intervals, models_filter)

    def per_stratum(stratum, rho_model_human):
        # Kernel columns are (model, human) pairs; map them onto the plan's (first, second) pair order.
        pairs = kernel.pairs(stratum)
        p = next(q for q in plan if q["experiment"] == stratum.key[0])
        index = {(min(m, h), max(m, h)): k for k, (m, h) in enumerate(pairs)}
        cols = [index.get((a, b)) for a, b in zip(p["first"], p["second"])]
        out = np.full((rho_model_human.shape[0], len(cols)), np.nan)
        have = [k for k, c in enumerate(cols) if c is not None]
        out[:, have] = rho_model_human[:, [cols[k] for k in have]]
        return out

    aggregate = _benchmark_aggregate(design, plan, labels_out, per_stratum)
    output = Output(labels_out, ("scope", "group", "kind", "observer_1", "observer_2"))
    result = bootstrap(design, kernel, aggregate, output, settings)
    return LatentBenchmarkResult(result, "margin_probit")
