"""Is model A more human-like than model B? Paired comparisons of a measure's result (docs/compare.md).

One small adapter per measure result extracts ``{model: score, paired replicates}`` and the human ceiling
(:class:`humanlike.stats.scores.Scores`); :func:`compare` hands them to the measure-agnostic machinery
(:func:`humanlike.stats.comparison.compare_scores`). For error consistency on one 2x2 table per pair (one
human, one condition) the exact label-exchange test is added
(:func:`humanlike.measures.ec.exchange.ec_label_exchange_test`), and each pair's difference gets the MOVER
interval on the two tables' profile-likelihood intervals (:mod:`humanlike.measures.compare.mover`) in place of
the percentile interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...stats.comparison import NO_RESAMPLES, ComparisonResult, compare_scores
from ...stats.scores import Scores
from ..ec.exchange import ec_label_exchange_test
from .mover import ec_difference_interval, joint_correlation
from ..dmc.kernel import DMC, MODEL_HUMAN_MEAN
from ..dmc.result import DMCResult
from ..dvc.choices_benchmark import LatentBenchmarkResult
from ..ec.result import ErrorConsistencyResult, bootstrap_label
from ..ood.analysis import OODResult
from ..ood.alignment import OODAlignment
from ...trials.selection import select_trials
from ..pairs.aggregation import HUMANS

EC = "error_consistency"
#: The exact test of one EC table, as named in the output's ``test`` column.
EXCHANGE_TEST = "exact label exchange"


def _replicates(resampled, n: int) -> np.ndarray:
    reps = np.asarray(resampled.replicates, dtype=float)
    return reps if reps.shape[0] else np.zeros((0, n))


def _table_level(resampled, level: float | None) -> float | None:
    """None (the result's tables as it reports them) where ``level`` is the result's own, else ``level``."""
    return None if level is None or float(level) == float(resampled.level) else float(level)


def _reported(frame: pd.DataFrame, columns, method: str | None = None) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``(low, high, methods)`` of the labelled ``columns`` (a Resampled selection) as the result's own table
    ``frame`` reports them: its rows are found by the label fields; each row's method is the table's
    ``interval_method`` column, or ``method`` where the table has none."""
    keys = list(columns.label_names)
    position = {tuple(row): k for k, row in enumerate(frame[keys].itertuples(index=False, name=None))}
    rows = frame.iloc[[position[tuple(label)] for label in columns.labels]]
    methods = (rows["interval_method"].astype(str).tolist() if method is None
               else [method] * len(rows))
    low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
    if columns.n_resamples < 2:   # a bootstrap interval needs replicates (a profile interval does not)
        methods = [m if np.isfinite(lo) else NO_RESAMPLES for m, lo in zip(methods, low)]
    return low, high, tuple(methods)


def _own_intervals(frame: pd.DataFrame, model_cols, ceiling_cols, method: str | None, level: float) -> dict:
    """The :class:`~humanlike.stats.scores.Scores` interval fields from the result's own table."""
    low, high, methods = _reported(frame, model_cols, method)
    out = {"low": low, "high": high, "interval_method": methods, "interval_level": level}
    if len(ceiling_cols):
        c_low, c_high, c_method = _reported(frame, ceiling_cols, method)
        out.update(ceiling_low=float(c_low[0]), ceiling_high=float(c_high[0]), ceiling_interval_method=c_method[0])
    return out


def ec_scores(result: ErrorConsistencyResult, *, scope: str = "overall", level: float | None = None) -> Scores:
    """The models' error consistency with the humans, the human–human ceiling, and their paired replicates.

    Each score's interval is the one the result's summary reports for it (``humanlike ec``'s table): the
    profile-likelihood interval where the score is one 2x2 table (one human, one condition), else the
    result's own bootstrap (or jackknife) interval (:meth:`ErrorConsistencyResult.summary_frame
    <humanlike.measures.ec.result.ErrorConsistencyResult.summary_frame>`; docs/compare.md).

    Parameters
    ----------
    result : ErrorConsistencyResult
        From :func:`humanlike.measures.ec.analysis.error_consistency`.
    scope : str
        ``"overall"`` (mean over experiments) or one experiment.
    level : float, optional
        Level of the scores' intervals (default: the result's).

    Returns
    -------
    Scores
        With ``per_experiment`` (for the Brain-Score convention) filled from the experiments' rows.

    Raises
    ------
    ValueError
        On an unknown scope, or a result without models.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(simulate_benchmark(seed=0, n_humans=3, n_items=32), settings=ResamplingSettings(n_resamples=10, seed=0))
    >>> s = ec_scores(r)
    >>> s.models[:2], s.replicates.shape, round(s.ceiling, 3) == round(float(r.table().iloc[0]["estimate"]), 3)
    (('model-alien', 'model-humanlike'), (10, 5), True)
    """
    ec = result.resampled.where(metric=EC)
    scopes = sorted({lab[0] for lab in ec.labels})
    if scope not in scopes:
        raise ValueError(f"no error-consistency scope {scope!r}; scopes: {scopes}")
    models = sorted({lab[1] for lab in ec.labels if lab[2] == "model-human"})
    if not models:
        raise ValueError("the error-consistency result has no model (no model–human pairs to compare)")
    here = ec.where(scope=scope)
    model_cols = here.where(group=models, kind="model-human")
    present = [lab[1] for lab in model_cols.labels]
    ceiling = here.where(group=HUMANS)
    # Brain-Score's ceiled score of the scope: each experiment's, averaged over the experiments of the scope
    experiments = [e for e in result.settings.get("experiments", []) if e in scopes and scope in ("overall", e)]
    per = None
    if experiments:
        est = np.full((len(experiments), len(present)), np.nan)
        reps = np.full((ec.n_resamples, len(experiments), len(present)), np.nan)
        ceil = np.full(len(experiments), np.nan)
        ceil_reps = np.full((ec.n_resamples, len(experiments)), np.nan)
        for e, name in enumerate(experiments):
            cols = ec.where(scope=name)
            for k, model in enumerate(present):
                col = cols.where(group=model, kind="model-human")
                if len(col):
                    est[e, k] = col.estimate[0]
                    reps[:, e, k] = _replicates(col, 1)[:, 0]
            hum = cols.where(group=HUMANS)
            if len(hum):
                ceil[e] = hum.estimate[0]
                ceil_reps[:, e] = _replicates(hum, 1)[:, 0]
        per = {"experiments": experiments, "estimate": est, "replicates": reps, "ceiling": ceil,
               "ceiling_replicates": ceil_reps}
    own = _own_intervals(result.frame_rows(_table_level(result.resampled, level)), model_cols, ceiling, None,
                         float(level if level is not None else result.resampled.level))
    return Scores(EC, scope, tuple(present), model_cols.estimate, _replicates(model_cols, len(present)),
                  float(ceiling.estimate[0]) if len(ceiling) else np.nan,
                  _replicates(ceiling, 1)[:, 0] if len(ceiling) else None, 0.0, dict(result.settings), per,
                  tuple(model_cols.reasons), **own)


def dmc_scores(result: DMCResult, *, scope: str = "overall", level: float | None = None) -> Scores:
    """The models' decision-margin consistency with the pooled humans, the split-half ceiling, replicates.

    Each score's interval is the one the result's summary reports for it (``humanlike dmc``'s table; with
    :meth:`~humanlike.measures.dmc.result.DMCResult.with_published_intervals`, the published t-intervals).

    Parameters
    ----------
    result : DMCResult
        From :func:`humanlike.measures.dmc.analysis.decision_margin_consistency`.
    scope : str
        ``"overall"`` (mean over experiments) or one experiment (mean over its conditions).
    level : float, optional
        Level of the scores' intervals (default: the result's).

    Returns
    -------
    Scores
        ``per_experiment`` is None (Brain-Score has no DMC convention).

    Raises
    ------
    ValueError
        On an unknown scope, or a result without models.

    Examples
    --------
    >>> from humanlike.measures.dmc.analysis import decision_margin_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.measures.dmc.analysis import dmc_settings
    >>> r = decision_margin_consistency(simulate_benchmark(seed=0, n_humans=4, n_items=32), settings=dmc_settings(n_resamples=10, seed=0))
    >>> s = dmc_scores(r)
    >>> len(s.models), s.replicates.shape, s.per_experiment is None
    (5, (10, 5), True)
    """
    aggregate = "overall" if scope == "overall" else "experiment"
    dmc = result.resampled.where(metric=DMC, level=aggregate, condition="")
    scopes = sorted({lab[1] for lab in result.resampled.labels if lab[0] in ("overall", "experiment")})
    here = dmc.where(scope=scope)
    if not len(here):
        raise ValueError(f"no decision-margin-consistency scope {scope!r}; scopes: {scopes}")
    models = sorted({lab[3] for lab in here.labels if lab[4] == "model-human" and lab[3] != MODEL_HUMAN_MEAN})
    if not models:
        raise ValueError("the decision-margin-consistency result has no model with margins to compare")
    model_cols = here.where(group=models, kind="model-human")
    present = [lab[3] for lab in model_cols.labels]
    ceiling = here.where(group=HUMANS)
    table_level = _table_level(result.resampled, level)
    published = table_level is None and result.settings.get("preset") == "paper"
    method = result.settings["interval"] if published else bootstrap_label(result.resampled, None)
    own = _own_intervals(result.frame_rows(table_level), model_cols, ceiling, method,
                         float(level if level is not None else result.resampled.level))
    return Scores(DMC, scope, tuple(present), model_cols.estimate, _replicates(model_cols, len(present)),
                  float(ceiling.estimate[0]) if len(ceiling) else np.nan,
                  _replicates(ceiling, 1)[:, 0] if len(ceiling) else None, 0.0, dict(result.settings), None,
                  tuple(model_cols.reasons), **own)


def dvc_scores(result: LatentBenchmarkResult, *, scope: str = "overall", level: float | None = None) -> Scores:
    """The models' latent correlation with the humans (decision-variable correlation from choices), the
    human–human ceiling, and their paired replicates.

    Parameters
    ----------
    result : LatentBenchmarkResult
        From :func:`humanlike.measures.dvc.choices.latent_correctness_correlation` (or
        :func:`~humanlike.measures.dvc.choices_probit.margin_probit_correlation`).
    scope : str
        ``"overall"`` or one experiment.
    level : float, optional
        Level of the scores' intervals (default: the result's); each is the interval the result's table
        reports for that score.

    Returns
    -------
    Scores

    Raises
    ------
    ValueError
        On an unknown scope, or a result without models.

    Examples
    --------
    >>> from humanlike.measures.dvc.choices import latent_correctness_correlation
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = latent_correctness_correlation(simulate_benchmark(seed=0, n_humans=3, n_items=32),
    ...                                    settings=ResamplingSettings(n_resamples=10, seed=0))
    >>> s = dvc_scores(r)
    >>> s.measure, len(s.models)
    ('tetrachoric_correctness', 5)
    """
    values = result.values

    scopes = sorted({lab[0] for lab in values.labels})
    if scope not in scopes:
        raise ValueError(f"no {result.metric} scope {scope!r}; scopes: {scopes}")
    here = values.where(scope=scope)
    models = sorted({lab[1] for lab in here.labels if lab[2] == "model-human"})
    if not models:
        raise ValueError(f"the {result.metric} result has no model (no model–human pairs to compare)")
    model_cols = here.where(group=models, kind="model-human")
    ceiling = here.where(group=HUMANS)
    own = _own_intervals(result.frame_rows(_table_level(values, level)), model_cols, ceiling,
                         bootstrap_label(values, None), float(level if level is not None else values.level))
    return Scores(result.metric, scope, tuple(lab[1] for lab in model_cols.labels), model_cols.estimate,
                  _replicates(model_cols, len(model_cols)),
                  float(ceiling.estimate[0]) if len(ceiling) else np.nan,
                  _replicates(ceiling, 1)[:, 0] if len(ceiling) else None, 0.0, dict(values.settings), None,
                  tuple(model_cols.reasons), **own)


def ood_alignment_scores(result, *, scope: str | None = None, level: float | None = None) -> Scores:
    """The models' OOD error-alignment ratios in one regime, with their paired replicates.

    The ratio is already relative to the humans (model's ½(EC+MA) with humans over the humans' own), so the
    human reference is the fixed value 1: models are compared with 1 (``ceiling_fixed``), and there is no
    ceiling-against-chance test. Each ratio's interval is the one the alignment's regime table reports
    (``ratio_low``/``ratio_high``; at another level, its resampled values' interval by the same method).

    Parameters
    ----------
    result : OODResult or OODAlignment
        From :func:`humanlike.measures.ood.analysis.ood_analysis` (its ``alignment``) or
        :func:`humanlike.measures.ood.alignment.ood_alignment`.
    scope : str, optional
        The regime (default: the first, the reference-like regime; ``"overall"`` means the same).
    level : float, optional
        Level of the ratios' intervals (default: the alignment's).

    Returns
    -------
    Scores

    Raises
    ------
    ValueError
        On an unknown regime, or an alignment without replicates.

    Examples
    --------
    >>> import pandas as pd
    >>> from humanlike.measures.ood.alignment import OODAlignment
    >>> ratios = pd.DataFrame({"regime": "near", "model": ["a", "b"], "ratio": [0.9, 0.5]})
    >>> alignment = OODAlignment(pd.DataFrame(), pd.DataFrame(), ratios, pd.DataFrame(), ("a", "b"),
    ...                          {"near": np.array([[0.9, 0.5], [0.8, 0.6]])}, {})
    >>> s = ood_alignment_scores(alignment)
    >>> s.scope, s.estimate.tolist(), s.ceiling, s.ceiling_fixed
    ('near', [0.9, 0.5], 1.0, True)
    """
    alignment = result.alignment if isinstance(result, OODResult) else result
    regimes = list(alignment.ratio_replicates)
    if not regimes:
        raise ValueError("the OOD alignment has no resampled regime ratios (run with resamples)")
    regime = regimes[0] if scope in (None, "overall") else scope
    if regime not in alignment.ratio_replicates:
        raise ValueError(f"no OOD regime {regime!r}; regimes: {regimes}")
    table = alignment.regime_ratios[alignment.regime_ratios["regime"] == regime].set_index("model")
    models = list(alignment.models)
    estimate = table["ratio"].reindex(models).to_numpy(dtype=float)
    replicates = np.asarray(alignment.ratio_replicates[regime], dtype=float)
    return Scores("ood_alignment_ratio", regime, tuple(models), estimate, replicates, 1.0,
                  np.ones(replicates.shape[0]), 0.0, dict(alignment.settings), None,
                  ceiling_fixed=True, **_ood_intervals(alignment, regime, table, models, level))


def _ood_intervals(alignment: OODAlignment, regime: str, table: pd.DataFrame, models: list,
                   level: float | None) -> dict:
    """The regime ratios' intervals as the alignment reports them (its table at its own level, its resampled
    values at another); empty (the percentile interval of the replicates) where neither is at hand."""
    settings, resampled = alignment.settings, alignment.resampled
    own_level = settings.get("level", resampled.level if resampled is not None else None)
    if own_level is not None and (level is None or float(level) == float(own_level)) \
            and {"ratio_low", "ratio_high"} <= set(table.columns):
        low, high = (table[c].reindex(models).to_numpy(dtype=float) for c in ("ratio_low", "ratio_high"))
        label = bootstrap_label(resampled, settings.get("interval", "percentile"))
        return {"low": low, "high": high, "interval_method": (label,) * len(models),
                "interval_level": float(own_level)}
    if resampled is None:
        return {}
    ratios = resampled.where(table="regime", regime=regime, metric="ratio")
    observer = ratios.label_names.index("observer_1")
    position = {lab[observer]: k for k, lab in enumerate(ratios.labels)}
    if set(models) - set(position):
        return {}
    level = float(level if level is not None else resampled.level)
    low, high = ratios.select([position[m] for m in models]).interval(level)
    return {"low": low, "high": high, "interval_method": (bootstrap_label(resampled, None),) * len(models),
            "interval_level": level}


#: The adapters: result class -> function giving its :class:`~humanlike.stats.scores.Scores`.
ADAPTERS = {ErrorConsistencyResult: ec_scores, DMCResult: dmc_scores, LatentBenchmarkResult: dvc_scores,
            OODResult: ood_alignment_scores, OODAlignment: ood_alignment_scores}


def scores_of(result, *, scope: str = "overall", level: float | None = None) -> Scores:
    """The :class:`~humanlike.stats.scores.Scores` of any supported measure result.

    Parameters
    ----------
    result : ErrorConsistencyResult, DMCResult, LatentBenchmarkResult, OODResult or OODAlignment
        A measure's result.
    scope : str
        ``"overall"`` or one experiment.
    level : float, optional
        Level of the scores' intervals, each the one the result reports for that score (default: the
        result's level).

    Returns
    -------
    Scores

    Raises
    ------
    TypeError
        For a result with no adapter.

    Examples
    --------
    >>> scores_of("not a result")
    Traceback (most recent call last):
    ...
    TypeError: no comparison for str; supported: ['ErrorConsistencyResult', 'DMCResult', 'LatentBenchmarkResult', 'OODResult', 'OODAlignment']
    """
    for cls, adapter in ADAPTERS.items():
        if isinstance(result, cls):
            return adapter(result, scope=scope, level=level)
    raise TypeError(f"no comparison for {type(result).__name__}; supported: "
                    f"{[c.__name__ for c in ADAPTERS]}")


def _one_table(trials: pd.DataFrame, result: ErrorConsistencyResult, scores: Scores):
    """``(wide correctness table item x observer, the human)`` where the scope's trials (after the result's own
    exclusions, experiment and condition filters) hold one human and one condition; otherwise None."""
    from ...trials.selection import MODELVSHUMAN_EXCLUSIONS

    settings = result.settings
    exclusions = MODELVSHUMAN_EXCLUSIONS if settings.get("exclusions") else None
    experiments = settings.get("experiments")
    if scores.scope != "overall":
        experiments = [scores.scope]
    selected = select_trials(trials, experiments=experiments, condition=settings.get("condition"),
                             exclusions=exclusions, validate=False)
    humans = selected.loc[selected["observer_kind"] == "human", "observer"].unique()
    cells = selected[["experiment", "condition"]].drop_duplicates()
    if len(humans) != 1 or len(cells) != 1:
        return None
    wide = selected.pivot_table(index="item", columns="observer", values="correct", aggfunc="first")
    return wide, humans[0]


def ec_exchange_tests(trials: pd.DataFrame, result: ErrorConsistencyResult, scores: Scores) -> pd.DataFrame | None:
    """The exact label-exchange test for every pair of models, where the scope is one table per pair.

    That is when the scope's trials (after the result's own exclusions, experiment and condition filters)
    hold one human and one condition; otherwise None.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table the result was computed from.
    result : ErrorConsistencyResult
        The result (its settings name the selection).
    scores : Scores
        The models compared.

    Returns
    -------
    pandas.DataFrame or None
        Columns model_a, model_b, p_value, test, reason.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> t = simulate_benchmark(seed=0, n_humans=1, n_items=64, experiments={"sim": {"0": 0.7}})
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(t, settings=ResamplingSettings(n_resamples=10, seed=0))
    >>> tests = ec_exchange_tests(t, r, ec_scores(r))
    >>> len(tests), tests["test"].iloc[0]   # 10 pairs of 5 models
    (10, 'exact label exchange')
    """
    one = _one_table(trials, result, scores)
    if one is None:
        return None
    wide, human = one
    rows = []
    for i, a in enumerate(scores.models):
        for b in scores.models[i + 1:]:
            both = wide[[human, a, b]].dropna()
            if both.empty:
                rows.append((a, b, np.nan, EXCHANGE_TEST, "no trial seen by the human and both models"))
                continue
            _, p, why = ec_label_exchange_test(*(both[c].to_numpy(dtype=bool) for c in (human, a, b)))
            rows.append((a, b, p, EXCHANGE_TEST, why))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "p_value", "test", "reason"])


def _table(human: np.ndarray, model: np.ndarray) -> list[int]:
    """(both correct, only the human correct, only the model correct, both wrong)."""
    return [int(np.sum(human & model)), int(np.sum(human & ~model)), int(np.sum(~human & model)),
            int(np.sum(~human & ~model))]


def ec_pair_intervals(trials: pd.DataFrame, result: ErrorConsistencyResult, scores: Scores,
                      level: float = 0.95) -> pd.DataFrame | None:
    """The MOVER interval of every pair's EC difference, where the scope is one table per pair.

    Each model's EC is the kappa of its 2x2 table with the human (the trials both saw); the interval combines
    the two tables' profile-likelihood intervals with the lower limit of the two kappas' multinomial correlation,
    computed from the trials all three saw (:func:`humanlike.measures.compare.mover.ec_difference_interval`,
    :func:`humanlike.measures.compare.mover.joint_correlation`, docs/compare.md). None where the scope is not
    one human and one condition.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table the result was computed from.
    result : ErrorConsistencyResult
        The result (its settings name the selection).
    scores : Scores
        The models compared.
    level : float
        Confidence level.

    Returns
    -------
    pandas.DataFrame or None
        Columns model_a, model_b, difference, ci_low, ci_high, correlation (the ``r`` used), interval, reason.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> t = simulate_benchmark(seed=0, n_humans=1, n_items=64, experiments={"sim": {"0": 0.7}})
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(t, settings=ResamplingSettings(n_resamples=50, seed=0))
    >>> out = ec_pair_intervals(t, r, ec_scores(r))
    >>> len(out), bool((out["ci_low"] <= out["difference"]).all() and (out["difference"] <= out["ci_high"]).all())
    (10, True)
    """
    one = _one_table(trials, result, scores)
    if one is None:
        return None
    wide, human = one
    names, table_a, table_b, joint = [], [], [], []
    for i, a in enumerate(scores.models):
        for b in scores.models[i + 1:]:
            names.append((a, b))
            pair_a, pair_b = wide[[human, a]].dropna(), wide[[human, b]].dropna()
            table_a.append(_table(*(pair_a[c].to_numpy(dtype=bool) for c in (human, a))))
            table_b.append(_table(*(pair_b[c].to_numpy(dtype=bool) for c in (human, b))))
            three = wide[[human, a, b]].dropna().to_numpy(dtype=bool).astype(int)
            # joint cells 4 h + 2 a + b of the trials all three saw
            joint.append(np.bincount(4 * three[:, 0] + 2 * three[:, 1] + three[:, 2], minlength=8))
    if not names:
        return None
    joint = np.array(joint)
    out = ec_difference_interval(table_a, table_b, joint_correlation(joint), joint[:, :7].sum(axis=1), level)
    return pd.DataFrame({"model_a": [a for a, _ in names], "model_b": [b for _, b in names],
                         "difference": out.difference, "ci_low": out.low, "ci_high": out.high,
                         "correlation": out.correlation, "interval": out.method, "reason": out.reason})


def compare(result, *, models=None, correction: str = "holm", level: float = 0.95, normalise: str | None = None,
            scope: str = "overall", trials: pd.DataFrame | None = None) -> ComparisonResult:
    """Is model A more human-like than model B? Every pair of models, each against the human ceiling.

    The differences, their intervals and p-values come from the paired replicates the result already keeps
    (the same resampled items and observers for every model); definitions in
    :mod:`humanlike.stats.comparison` and docs/compare.md. Each model's score (and the ceiling) carries the
    interval the result itself reports for it at ``level`` (its ``interval`` column names the method).

    Parameters
    ----------
    result : ErrorConsistencyResult, DMCResult, LatentBenchmarkResult, OODResult or OODAlignment
        A measure's result, computed with resamples.
    models : sequence of str, optional
        The models to compare (default: all with a score); the family of pairs is these models' pairs.
    correction : {"holm", "bh", "none"}
        Multiple-testing correction within each family.
    level : float
        Confidence level; ``1 - level`` is the alpha that decides "resolved".
    normalise : {"ceiling", "brainscore"}, optional
        Compare ceiling-normalised scores: the ratio to the human ceiling, or Brain-Score's ceiled EC
        (error consistency only).
    scope : str
        ``"overall"`` or one experiment (for the OOD alignment: a regime; ``"overall"`` is the first regime).
    trials : pandas.DataFrame, optional
        The trial table of an EC result: where the scope is one table per pair (one human, one condition), the
        exact label-exchange test (:func:`humanlike.measures.ec.exchange.ec_label_exchange_test`) is added for
        every pair, and each pair's difference gets the MOVER interval (:func:`ec_pair_intervals`; the
        ``interval`` column names it) instead of the percentile interval, on the raw scale.

    Returns
    -------
    ComparisonResult

    Raises
    ------
    ValueError
        Naming an unknown model, fewer than two models, an unknown correction or normalisation.
    TypeError
        For a result of a measure without an adapter.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> r = error_consistency(simulate_benchmark(seed=0), experiments=["sim-noise"], settings=ResamplingSettings(n_resamples=200, seed=0))
    >>> c = compare(r, models=["model-humanlike", "model-alien"])
    >>> row = c.pairs.iloc[0]
    >>> row["model_a"], row["model_b"], bool(row["resolved"])
    ('model-humanlike', 'model-alien', True)
    """
    scores = scores_of(result, scope=scope, level=level)
    if models is not None:
        scores = scores.select(models)
    extra = intervals = None
    if trials is not None and isinstance(result, ErrorConsistencyResult):
        extra = ec_exchange_tests(trials, result, scores)
        intervals = ec_pair_intervals(trials, result, scores, level) if normalise is None else None
    return compare_scores(scores, correction=correction, level=level, normalise=normalise, extra_tests=extra,
                          pair_intervals=intervals)
