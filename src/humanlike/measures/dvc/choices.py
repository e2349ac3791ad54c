"""Decision-variable correlation from binary choices (Sebastian & Geisler 2018), on trial tables.

Three views, all with bootstrap intervals from the resampling engine (items resampled within each stratum,
jointly for all observers, pushed through the whole aggregation); the first two, which share the kernel of
every pair's 2x2 table, are here:

* :func:`choice_dvc` — two-category data (exactly two labels per experiment, responses "a"/"b"): per
  observer d' and criterion, and per observer pair and category the bivariate-normal ML correlation of the
  joint responses, the thresholds coming from each observer's d' and criterion (rates of 0 or 1 clipped to
  1/(2n), 1 - 1/(2n)). With a ``repeat`` column and ``passes="split"``, each pass is its own observer, and the
  pair of an observer's two passes is its double-pass (internal-noise) self-DVC.
* :func:`latent_correctness_correlation` — benchmark data (any number of classes): per condition, the
  tetrachoric correlation of the two observers' correctness (the latent-variable analogue of error
  consistency), averaged over conditions per pair, then over the human–human pairs, each model's pairs with
  the humans and the model–model pairs of each experiment, then over experiments — the EC benchmark's
  aggregation (:mod:`humanlike.measures.dvc.choices_benchmark`, with its result
  :class:`~humanlike.measures.dvc.choices_benchmark.LatentBenchmarkResult`).
* :func:`~humanlike.measures.dvc.choices_probit.margin_probit_correlation`, in
  :mod:`humanlike.measures.dvc.choices_probit` — for models with decision margins: per condition, the probit
  regression of a human's correctness on the model's margin standardised within the condition gives the latent
  correlation rho = beta / sqrt(1 + beta^2) (one-step bootstrap), aggregated the same way.

Zero cells: a 2x2 table with an empty cell has its ML correlation on the boundary (+-1). By default 0.5 is
added to the empty cells only (``zero_cell_correction=0.5``, as R's ``psych::tetrachoric``), which keeps
single tables from jumping to +-1 in averages; 0 gives the plain ML estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...trials.design import Stratum, build_design, observer_kinds
from ...trials.schema import TrialTableError, first_presentations, validate_trials
from .choices_benchmark import LatentBenchmarkResult, benchmark_aggregate, benchmark_plan
from .choices_metric import category_thresholds, dprime_criterion, latent_correlation
from ...resampling.engine import bootstrap
from ...resampling.kernels import Output, SufficientStatisticKernel
from ...resampling.results import Resampled
from ...resampling.settings import ResamplingSettings
from ...trials.selection import select_trials
from ..measure_result import MeasureResult

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


@dataclass(frozen=True, repr=False)
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
    trials = select_trials(trials, experiments=experiments, exclusions=exclusions, validate=validate)
    kinds = observer_kinds(trials)
    design = build_design(trials, by=("experiment", "condition"), group_by=("experiment",), margins=False)
    plan, labels_out = benchmark_plan(design, kinds, pair_intervals, models_filter=None)

    def per_stratum(stratum, sums):
        _, _, counts = _pair_tables(sums, len(stratum.observers))
        return latent_correlation(_corrected(counts, zero_cell_correction))

    aggregate = benchmark_aggregate(design, plan, labels_out, per_stratum)
    output = Output(labels_out, ("scope", "group", "kind", "observer_1", "observer_2"))
    result = bootstrap(design, _PairTableKernel(), aggregate, output, settings)
    return LatentBenchmarkResult(result, "tetrachoric_correctness")
