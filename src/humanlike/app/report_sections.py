"""Report sections: each analysis result becomes a section of the report, and the headline table is
assembled from the models' overall values of every measure.

An adapter takes a result object and returns a :class:`~humanlike.app.report.ReportSection` plus its
headline columns (model -> estimate and interval of that measure, and the human–human row). Adapters only read
the results' public tables (``to_frame`` and the like); they compute nothing statistical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .report import ReportFigure, ReportSection, ReportTable

HUMAN_ROW = "humans"


@dataclass
class HeadlineMeasure:
    """One measure's column group in the headline table: per observer (models and ``humans``) the overall
    estimate with its interval.

    Parameters
    ----------
    name : str
        Column name of the measure in the headline table (e.g. ``"EC"``).
    values : pandas.DataFrame
        Columns ``observer, estimate, ci_low, ci_high``; the row ``humans`` is the human–human value.

    Examples
    --------
    >>> import pandas as pd
    >>> m = HeadlineMeasure("EC", pd.DataFrame({"observer": ["humans", "m"], "estimate": [0.4, 0.2],
    ...                                         "ci_low": [0.3, 0.1], "ci_high": [0.5, 0.3]}))
    >>> m.name, list(m.values["observer"])
    ('EC', ['humans', 'm'])
    """

    name: str
    values: pd.DataFrame  # columns: observer, estimate, ci_low, ci_high
    higher_is_better: bool = True  # the direction the headline sorts in when this measure comes first


@dataclass
class SectionResult:
    """One analysis' contribution to the report: its section and its rows of the headline table.

    Parameters
    ----------
    section : ReportSection
        The analysis' section of the page.
    headline : list of HeadlineMeasure
        Its measures for the headline table (empty when the analysis ranks no models).

    Examples
    --------
    >>> made = SectionResult(ReportSection("x", "X", "A summary."))
    >>> made.section.key, made.headline
    ('x', [])
    """

    section: ReportSection
    headline: list[HeadlineMeasure] = field(default_factory=list)


def _headline_table(measures: list[HeadlineMeasure], sort_by: str | None = None) -> ReportTable | None:
    """Models ranked by the first measure, one estimate and interval column per measure; humans first."""
    if not measures:
        return None
    table: pd.DataFrame | None = None
    for m in measures:
        part = m.values[["observer", "estimate", "ci_low", "ci_high"]].rename(columns={
            "estimate": m.name, "ci_low": f"{m.name} low", "ci_high": f"{m.name} high"})
        table = part if table is None else table.merge(part, on="observer", how="outer")
    key = sort_by or measures[0].name
    ascending = not next((m.higher_is_better for m in measures if m.name == key), True)
    is_human = table["observer"] == HUMAN_ROW
    ordered = pd.concat([table[is_human], table[~is_human].sort_values(key, ascending=ascending,
                                                                       na_position="last")])
    ordered = ordered.reset_index(drop=True)
    ranks = (ordered["observer"] != HUMAN_ROW).to_numpy()
    rank = pd.array([pd.NA] * len(ordered), dtype="Int64")
    rank[ranks] = np.arange(1, ranks.sum() + 1)
    ordered.insert(1, "rank", rank)
    return ReportTable("headline", "Headline: models ranked by " + key, ordered,
                       caption="humans: the human–human value (the ceiling); low/high: interval bounds")


def _settings_text(settings: dict) -> dict[str, object]:
    keep = ("n_resamples", "level", "interval", "observer_level", "seed", "policy", "exclusions", "experiments")
    return {k: settings[k] for k in keep if k in settings}


# --- error consistency ------------------------------------------------------------------------------------


def ec_section(benchmark) -> SectionResult:
    """The benchmark's error consistency as a report section.

    Parameters
    ----------
    benchmark : BenchmarkResult
        From :func:`humanlike.measures.ec.benchmark.run_benchmark`.

    Returns
    -------
    SectionResult
        Tables ``ec-overall``, ``ec-experiments`` (and ``ec-ranking``), the benchmark and ranking figures, and
        the headline measure ``EC``.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> made = ec_section(run_benchmark(trials, exclusions=None, n_resamples=20))
    >>> [t.key for t in made.section.tables], made.headline[0].name
    (['ec-overall', 'ec-experiments', 'ec-ranking'], 'EC')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.ec.plot import benchmark_figure, ranking_figure

    rows = benchmark.rows
    ec_rows = rows[rows["metric"] == "error_consistency"]
    overall = ec_rows[ec_rows["scope"] == "overall"]
    per_experiment = ec_rows[ec_rows["scope"] != "overall"].pivot_table(
        index="observer", columns="scope", values="estimate", aggfunc="first").reset_index()
    figures = [ReportFigure("ec-benchmark", "Error consistency with humans", benchmark_figure(benchmark),
                            alt="Left: models ranked by error consistency with humans, with intervals and the "
                                "human–human band. Right: error consistency against OOD accuracy.",
                            caption="Intervals: bootstrap through the whole aggregation (items resampled within "
                                    "conditions, jointly for all observers).")]
    tables = [ReportTable("ec-overall", "Error consistency, overall",
                          overall[["observer", "estimate", "ci_low", "ci_high", "n_pairs", "undefined_share",
                                   "reason"]].sort_values("estimate", ascending=False)),
              ReportTable("ec-experiments", "Error consistency per experiment (estimates)", per_experiment)]
    if benchmark.ranking is not None:
        figures.append(ReportFigure("ec-ranking", "Rank stability", ranking_figure(benchmark.ranking),
                                    alt="Rank intervals of the models under resampling."))
        tables.append(ReportTable("ec-ranking", "Rank stability under resampling", benchmark.ranking.to_frame()))
    section = ReportSection(
        "error-consistency", "Error consistency",
        "Cohen's kappa of trial-by-trial correctness between each model and each human (and between humans), "
        "averaged over conditions, humans and experiments as the model-vs-human benchmark does.",
        tables=tables, figures=figures, methods=_settings_text(benchmark.details.settings))
    measure = HeadlineMeasure("EC", overall[["observer", "estimate", "ci_low", "ci_high"]])
    return SectionResult(section, [measure])


# --- decision-margin consistency ------------------------------------------------------------------------


def dmc_section(result) -> SectionResult:
    """Decision-margin consistency as a report section.

    Parameters
    ----------
    result : DMCResult
        From :func:`humanlike.measures.dmc.analysis.decision_margin_consistency`.

    Returns
    -------
    SectionResult
        Tables ``dmc-overall`` and ``dmc-experiments``, the ranking figure, and the headline measure ``DMC``
        (models against the pooled human index; ``humans``: the split-half ceiling).

    Examples
    --------
    >>> from humanlike.measures.dmc.analysis import decision_margin_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> made = dmc_section(decision_margin_consistency(trials, experiments=["sim-blur"], n_resamples=20))
    >>> made.section.key, list(made.headline[0].values["observer"])[:2]
    ('decision-margin-consistency', ['humans', 'model-alien'])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.dmc.plot import dmc_ranking_figure

    overall = result.table("overall")
    shown = overall[["group", "kind", "estimate", "ci_low", "ci_high", "t_low", "t_high", "n", "undefined_share",
                     "reason"]].rename(columns={"group": "observer"})
    per_experiment = result.summary[(result.summary["scope"] != "overall") & (result.summary["condition"] == "")
                                    & (result.summary["metric"] == overall["metric"].iloc[0])]
    per_experiment = per_experiment.pivot_table(index="group", columns="scope", values="estimate",
                                                aggfunc="first").reset_index().rename(columns={"group": "observer"})
    section = ReportSection(
        "decision-margin-consistency", "Decision-margin consistency",
        "Correlation over items between each model's decision margin and the humans' item accuracy (Alvarez & "
        "Konkle); the human row is the split-half noise ceiling (Spearman–Brown corrected).",
        tables=[ReportTable("dmc-overall", "Decision-margin consistency, overall", shown,
                            caption="t_low/t_high: the published t-interval over splits (too narrow: splits share "
                                    "observers), shown for comparison"),
                ReportTable("dmc-experiments", "Decision-margin consistency per experiment (estimates)",
                            per_experiment)],
        figures=[ReportFigure("dmc-ranking", "Models ranked by decision-margin consistency",
                              dmc_ranking_figure(result),
                              alt="Models ranked by decision-margin consistency with humans, with intervals and "
                                  "the human split-half ceiling.")],
        methods=_settings_text(result.settings), notes=list(result.notes)[:20])
    models = overall[overall["kind"] == "model-human"]
    models = models[~models["group"].str.contains("(mean)", regex=False)]
    humans = overall[overall["group"] == HUMAN_ROW]
    values = pd.concat([humans, models])[["group", "estimate", "ci_low", "ci_high"]].rename(columns={"group": "observer"})
    return SectionResult(section, [HeadlineMeasure("DMC", values)])


# --- decision-variable correlation (latent correlation of correctness) ----------------------------------


def latent_section(result) -> SectionResult:
    """The tetrachoric (latent) correlation of correctness as a report section.

    Parameters
    ----------
    result : LatentBenchmarkResult
        From :func:`humanlike.measures.dvc.choices.latent_correctness_correlation`.

    Returns
    -------
    SectionResult
        Table ``latent-overall``, the per-model figure and the headline measure ``latent r``.

    Examples
    --------
    >>> from humanlike.measures.dvc.choices import latent_correctness_correlation
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> result = latent_correctness_correlation(trials, experiments=["sim-blur"],
    ...                                         settings=ResamplingSettings(n_resamples=20))
    >>> made = latent_section(result)
    >>> made.section.key, made.headline[0].name
    ('latent-correlation', 'latent r')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.dvc.plot import benchmark_latent_figure

    groups = result.groups("overall")
    shown = groups[["group", "kind", "estimate", "ci_low", "ci_high", "undefined_share", "reason"]].rename(
        columns={"group": "observer"})
    section = ReportSection(
        "latent-correlation", "Decision-variable correlation of correctness",
        "The correlation of the latent decision variables behind two observers' correct/incorrect outcomes "
        "(the tetrachoric analogue of error consistency, Sebastian & Geisler), per condition, aggregated like the "
        "benchmark. Unlike kappa it is not capped by differences in accuracy.",
        tables=[ReportTable("latent-overall", "Latent correlation of correctness, overall", shown)],
        figures=[ReportFigure("latent-models", "Latent correlation with humans", benchmark_latent_figure(result),
                              alt="Model–human latent correlation of correctness per model, with the human–human "
                                  "band.")],
        methods=_settings_text(result.values.settings))
    values = groups[(groups["kind"] == "model-human") | (groups["group"] == HUMAN_ROW)]
    values = values[["group", "estimate", "ci_low", "ci_high"]].rename(columns={"group": "observer"})
    return SectionResult(section, [HeadlineMeasure("latent r", values)])


# --- the human-centred OOD spectrum ------------------------------------------------------------------------


def ood_section(result) -> SectionResult:
    """The OOD spectrum and error alignment per regime as a report section.

    Parameters
    ----------
    result : OODResult
        From :func:`humanlike.measures.ood.analysis.ood_analysis`.

    Returns
    -------
    SectionResult
        Tables ``ood-conditions`` and ``ood-regimes`` and the spectrum figure; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.ood.analysis import ood_analysis
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> reference = trials.groupby("experiment")["condition"].first().to_dict()
    >>> result = ood_analysis(trials, reference, n_resamples=0, n_observer_resamples=0, n_permutations=9,
    ...                       regimes=2, n_init=2)
    >>> [t.key for t in ood_section(result).section.tables]
    ['ood-conditions', 'ood-regimes']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.ood.plot import spectrum_figure

    conditions = result.spectrum.conditions
    section = ReportSection(
        "ood-spectrum", "A human-centred OOD spectrum",
        "Every condition scored by how far human accuracy falls from the reference conditions (Glass's delta on "
        "logit accuracy), grouped into regimes by a Gaussian mixture, and each model's error alignment with humans "
        "(error consistency and misclassification agreement, relative to human–human) per regime (Xu et al.).",
        tables=[ReportTable("ood-conditions", "Conditions on the spectrum", conditions),
                ReportTable("ood-regimes", "Alignment with humans per regime", result.alignment.regime_ratios)],
        figures=[ReportFigure("ood-spectrum", "The OOD spectrum", spectrum_figure(result),
                              alt="Conditions placed on the human-centred OOD spectrum, coloured by regime, with "
                                  "models' alignment per regime.")],
        methods=_settings_text(getattr(result, "settings", {}) or {}))
    return SectionResult(section)


# --- difference scaling and the Psychophysical-Score ------------------------------------------------------


def mlds_section(results) -> SectionResult:
    """Difference scales as a report section.

    Parameters
    ----------
    results : MldsResults
        From :func:`humanlike.measures.mlds.analysis.analyse_mlds`.

    Returns
    -------
    SectionResult
        Tables ``mlds-fits`` and ``mlds-scales`` and the scale figure; no headline measure.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.analysis import analyse_mlds
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
    >>> made = mlds_section(analyse_mlds(table))
    >>> [t.key for t in made.section.tables], made.headline
    (['mlds-fits', 'mlds-scales'], [])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.mlds.plot import mlds_scale_figure

    fits = pd.DataFrame([{k: doc.get(k) for k in ("observer", "scale_id", "sigma", "loglik", "aic", "daf",
                                                   "n_trials", "status")} for doc in results.to_json_dict()["results"]])
    section = ReportSection(
        "difference-scaling", "Difference scaling (MLDS)",
        "Maximum-likelihood difference scales (Maloney & Yang; as R's MLDS computes them): the perceptual scale "
        "of each observer and stimulus sequence, with parametric-bootstrap intervals where asked.",
        tables=[ReportTable("mlds-fits", "Fits", fits), ReportTable("mlds-scales", "Scales", results.to_frame())],
        figures=[ReportFigure("mlds-scales", "Perceptual scales", mlds_scale_figure(results),
                              alt="The fitted perceptual scale of each observer against the stimulus level.")])
    return SectionResult(section)


def psychscore_section(result) -> SectionResult:
    """The Psychophysical-Score as a report section.

    Parameters
    ----------
    result : PsychScoreResult
        From :func:`humanlike.measures.psychscore.analysis.psychophysical_score`.

    Returns
    -------
    SectionResult
        Tables ``psychscore`` and ``psychscore-chance`` and the skewness/score figure; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.psychscore.analysis import psychophysical_score
    >>> from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
    >>> result = psychophysical_score(simulate_psychscore_demo(n_classes=3, n_humans=2), n_resamples=20)
    >>> [t.key for t in psychscore_section(result).section.tables]
    ['psychscore', 'psychscore-chance']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.psychscore.plot import psychscore_figure

    section = ReportSection(
        "psychophysical-score", "Psychophysical-Score",
        "Skewness of every class-level perceptual scale per observer, and the |Spearman correlation| of each "
        f"observer's skewness values with the reference's ({result.reference}) over class pairs "
        "(RichardWebster et al.).",
        tables=[ReportTable("psychscore", "Scores", result.to_frame()),
                ReportTable("psychscore-chance", "Are the scales more than chance?", result.chance)],
        figures=[ReportFigure("psychscore", "Skewness distributions and scores", psychscore_figure(result),
                              alt="Per observer, the distribution of scale skewness over class pairs, and each "
                                  "observer's Psychophysical-Score with its interval.")],
        methods=_settings_text(result.settings))
    return SectionResult(section)


# --- model-vs-human's report: leaderboard, shape bias, psychometric figures ------------------------------


def leaderboard_section(board) -> SectionResult:
    """model-vs-human's leaderboard as the report's first section; its mean rank orders the headline.

    Parameters
    ----------
    board : Leaderboard
        From :func:`humanlike.measures.ec.leaderboard.leaderboard`.

    Returns
    -------
    SectionResult
        Tables ``leaderboard`` and ``leaderboard-ood``; headline measures ``mean rank`` (lower first: it
        orders the headline), ``accuracy diff.`` (lower is better), ``observed consistency`` and
        ``OOD accuracy``.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.measures.ec.leaderboard import leaderboard
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> board = leaderboard(run_benchmark(simulate_benchmark(seed=0), exclusions=None, n_resamples=50))
    >>> made = leaderboard_section(board)
    >>> [t.key for t in made.section.tables], [m.name for m in made.headline]
    (['leaderboard', 'leaderboard-ood'], ['mean rank', 'accuracy diff.', 'observed consistency', 'OOD accuracy'])
    """
    table, ood = board.table, board.ood_table

    def measure(name, frame, column, higher_is_better=True):
        values = frame[["observer", column, f"{column}_low", f"{column}_high"]].rename(columns={
            column: "estimate", f"{column}_low": "ci_low", f"{column}_high": "ci_high"})
        return HeadlineMeasure(name, values.dropna(subset=["estimate"]), higher_is_better)

    level = int(round(100 * board.level))
    section = ReportSection(
        "leaderboard", "Leaderboard (model-vs-human's ranking)",
        "Models ranked as the model-vs-human benchmark ranks them: each of accuracy difference (lower is better), "
        "observed consistency and error consistency is ranked over the models, and the mean of the three ranks "
        f"orders the table; OOD accuracy is ranked on its own. Every value has its {level}% bootstrap interval; "
        "the ranks are recomputed in every resample, which gives each model's interval of places and its "
        "probability of ranking first.",
        tables=[ReportTable("leaderboard", "Most human-like", table),
                ReportTable("leaderboard-ood", "Highest OOD accuracy", ood)],
        methods={"experiments": ", ".join(board.experiments), "level": board.level,
                 "ranking": "mean of the three ranks (ties share the average rank), as model-vs-human"})
    return SectionResult(section, [measure("mean rank", table, "mean_rank", False),
                                   measure("accuracy diff.", table, "accuracy_difference", False),
                                   measure("observed consistency", table, "observed_consistency"),
                                   measure("OOD accuracy", ood, "ood_accuracy")])


def shape_bias_section(result) -> SectionResult:
    """Shape bias on cue-conflict images as a report section, with model-vs-human's figure.

    Parameters
    ----------
    result : ShapeBiasResult
        From :func:`humanlike.measures.shapebias.analysis.shape_bias_analysis`.

    Returns
    -------
    SectionResult
        Tables ``shape-bias`` (overall) and ``shape-bias-classes`` (per class), the figure, and the headline
        measure ``shape bias`` (the pooled humans as the ``humans`` row).

    Examples
    --------
    >>> from humanlike.measures.shapebias.analysis import shape_bias_analysis
    >>> from humanlike.measures.shapebias.simulate import simulate_cue_conflict
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> made = shape_bias_section(shape_bias_analysis(simulate_cue_conflict(seed=0),
    ...                                               settings=ResamplingSettings(n_resamples=50)))
    >>> [t.key for t in made.section.tables], made.headline[0].name
    (['shape-bias', 'shape-bias-classes'], 'shape bias')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.shapebias.plot import shape_bias_figure

    overall = result.overall()
    per_class = result.per_class().reset_index()
    rng = result.human_range().set_index("scope")
    summary = ("Shape bias on cue-conflict images (Geirhos et al. 2019, model-vs-human's definition): shape "
               "decisions / (shape + texture decisions) over trials whose shape and texture classes differ.")
    if "overall" in rng.index:
        r = rng.loc["overall"]
        summary += (f" Single humans range from {r['min']:.3f} to {r['max']:.3f}; 'humans' pools every human trial, "
                    "'human mean' averages each human's value.")
    section = ReportSection(
        "shape-bias", "Shape bias (cue conflict)", summary,
        tables=[ReportTable("shape-bias", "Shape bias, overall", overall),
                ReportTable("shape-bias-classes", "Shape bias per shape class (estimates)", per_class)],
        figures=[ReportFigure("shape-bias", "Shape vs texture decisions per class", shape_bias_figure(result),
                              alt="Per shape class, the fraction of texture (bottom axis) and shape (top axis) "
                                  "decisions of the pooled humans with intervals and of each model.")],
        methods=_settings_text(result.settings))
    values = overall.rename(columns={"shape_bias": "estimate"})[["observer", "estimate", "ci_low", "ci_high"]]
    values = values[values["observer"] != "human mean"]
    values = values[(overall["observer_kind"] == "model").to_numpy()[values.index] | (values["observer"] == HUMAN_ROW)]
    return SectionResult(section, [HeadlineMeasure("shape bias", values)])


def psychometrics_section(result) -> SectionResult:
    """Accuracy and entropy per condition (model-vs-human's psychometric figures) as a report section.

    Parameters
    ----------
    result : PsychometricResult
        From :func:`humanlike.measures.psychometrics.analysis.psychometrics`.

    Returns
    -------
    SectionResult
        One accuracy table and one figure per experiment with more than one condition; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.psychometrics.analysis import psychometrics
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> made = psychometrics_section(psychometrics(simulate_benchmark(seed=0), settings=ResamplingSettings(n_resamples=20)))
    >>> [t.key for t in made.section.tables][:2], made.headline
    (['psychometrics-sim-blur', 'psychometrics-sim-contrast'], [])
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from ..measures.psychometrics.plot import psychometric_figure

    tables, figures = [], []
    for experiment in result.experiments():
        table = result.table(experiment, "accuracy")
        if table.shape[1] < 2:
            continue
        tables.append(ReportTable(f"psychometrics-{experiment}", f"{experiment}: accuracy per condition",
                                  table.reset_index()))
        figures.append(ReportFigure(f"psychometrics-{experiment}", f"{experiment}: accuracy and entropy",
                                    psychometric_figure(result, experiment),
                                    alt=f"Accuracy and response entropy per condition of {experiment}: humans "
                                        "with interval and range, each model."))
    section = ReportSection(
        "psychometrics", "Accuracy and entropy per condition",
        "model-vs-human's psychometric figures: accuracy (humans: every human trial pooled) and response entropy "
        "in bits (humans: the mean of each human's) per condition, with bootstrap intervals over images (and "
        "humans for the human summaries); entropy intervals are basic bootstrap intervals.",
        tables=tables, figures=figures, methods=_settings_text(result.settings))
    return SectionResult(section)


# Adapters by analysis name, in page order; other analyses register theirs here.
ADAPTERS: dict[str, Callable[[object], SectionResult]] = {
    "leaderboard": leaderboard_section,
    "benchmark": ec_section, "dmc": dmc_section, "latent": latent_section, "ood": ood_section, "mlds": mlds_section,
    "psychscore": psychscore_section,
    "shapebias": shape_bias_section, "psychometrics": psychometrics_section,
}


# --- which differences are resolved (paired comparisons, docs/compare.md) --------------------------------


def compare_section(results: dict) -> SectionResult:
    """"Which differences are resolved": per measure, the paired comparisons of every pair of models.

    Parameters
    ----------
    results : dict
        ``{"EC": ErrorConsistencyResult, "DMC": DMCResult}`` (either may be missing or None).

    Returns
    -------
    SectionResult
        Per measure a table of the pairs (difference, interval, Holm-adjusted p, resolved) and the comparison
        figure; no headline measure.

    Examples
    --------
    >>> from humanlike.measures.ec.analysis import error_consistency
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> ec = error_consistency(simulate_benchmark(seed=0, n_humans=4, n_items=48), n_resamples=50, seed=0)
    >>> made = compare_section({"EC": ec})
    >>> [t.key for t in made.section.tables]
    ['compare-ec']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    import warnings

    from ..measures.compare.adapters import compare
    from ..measures.compare.plot import comparison_figure

    tables, figures, summary = [], [], []
    for name, result in results.items():
        if result is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=RuntimeWarning)
            comparison = compare(result)
        pairs = comparison.pairs
        resolved = int(pairs["resolved"].sum())
        summary.append(f"{name}: {resolved} of {len(pairs)} pairs resolved")
        key = f"compare-{name.lower()}"
        tables.append(ReportTable(key, f"{name}: differences between models", pairs[
            ["model_a", "model_b", "difference", "ci_low", "ci_high", "p_value", "p_adjusted", "resolved", "family"]],
            caption="difference = model A - model B (A the higher-scoring); interval and p-value from the paired "
                    "bootstrap replicates; p_adjusted: Holm over all pairs; resolved: p_adjusted <= 1 - level"))
        figures.append(ReportFigure(key, f"{name}: which differences are resolved", comparison_figure(comparison),
                                    alt=f"{name} of every model with its interval, ordered by score, the human "
                                        "ceiling band, letters shared by models whose difference is not resolved."))
    section = ReportSection(
        "compare", "Which differences are resolved",
        "Two models scored on the same trials are correlated, so overlapping intervals say little about their "
        "difference; here each difference has its own interval and test from the paired resamples ("
        + "; ".join(summary) + ").", tables=tables, figures=figures)
    return SectionResult(section)


ADAPTERS["compare"] = compare_section


def build_sections(results: dict[str, object]) -> tuple[list[ReportSection], ReportTable | None]:
    """Sections (in :data:`ADAPTERS` order) and the headline table for the results given by name.

    Parameters
    ----------
    results : dict
        ``{adapter name: result}`` (names of :data:`ADAPTERS`: ``leaderboard``, ``benchmark``, ``dmc``,
        ``latent``, ``ood``, ``mlds``, ``psychscore``, ``shapebias``, ``psychometrics``); missing or None entries
        are skipped.

    Returns
    -------
    tuple
        ``(sections, headline)``: the list of ReportSection, and the headline ReportTable (models ranked by
        the first measure, humans first) or None when no result has a headline measure.

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.measures.mlds.analysis import analyse_mlds
    >>> from humanlike.measures.mlds.simulate import simulate_judgements
    >>> table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=0)
    >>> sections, headline = build_sections({"mlds": analyse_mlds(table), "dmc": None})
    >>> [s.key for s in sections], headline
    (['difference-scaling'], None)
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    sections, measures = [], []
    for name, adapter in ADAPTERS.items():
        if results.get(name) is None:
            continue
        made = adapter(results[name])
        sections.append(made.section)
        measures.extend(made.headline)
    return sections, _headline_table(measures)


def items_only(settings):
    """``settings`` with observer level ``"none"``, for analyses that resample items only (the latent
    correlation) when one settings object serves several analyses (report, demo).

    Parameters
    ----------
    settings : ResamplingSettings
        The run's settings.

    Returns
    -------
    ResamplingSettings

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> items_only(ResamplingSettings(observer_level="bootstrap")).observer_level
    'none'
    """
    from dataclasses import replace

    return settings if settings.observer_level == "none" else replace(settings, observer_level="none")


def run_report_analyses(trials: pd.DataFrame, analyses: list[str], settings, exclusions) -> tuple[dict, list[str]]:
    """Run the report's analyses on one trial table with one settings object.

    DMC keeps its own observer level (the jackknife) unless one was chosen.

    Parameters
    ----------
    trials : pandas.DataFrame
        A validated trial table (as :func:`humanlike.trials.loaders.load_trials` gives: its declared labels and
        human observers are kept, not re-derived).
    analyses : list of str
        Any of ``"ec"`` (with the leaderboard), ``"dmc"``, ``"dvc"``, ``"ood"``, ``"shapebias"`` (where the data hold
        the cue-conflict experiment), ``"psychometrics"``.
    settings : ResamplingSettings
        The one settings object of every analysis.
    exclusions : dict or None
        Conditions to drop per experiment (e.g. the benchmark's), or None.

    Returns
    -------
    tuple
        ``(results, notes)``: the results by adapter name (for :func:`build_sections`) and notes on analyses
        that do not apply to these data (e.g. no decision margins for DMC).

    Examples
    --------
    >>> import numpy as np
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> results, notes = run_report_analyses(trials.assign(decision_margin=np.nan), ["ec", "dmc"],
    ...                                      ResamplingSettings(n_resamples=0), None)
    >>> sorted(results), notes
    (['benchmark', 'compare', 'leaderboard'], ['decision-margin consistency skipped: no model has decision margins'])
    """
    from dataclasses import replace

    from ..measures.ec.benchmark import run_benchmark
    from ..measures.dmc.analysis import decision_margin_consistency
    from ..measures.dvc.choices import latent_correctness_correlation

    results: dict[str, object] = {}
    notes: list[str] = []
    if "ec" in analyses:
        results["benchmark"] = run_benchmark(trials, exclusions=exclusions, settings=settings, validate=False)
        _add_leaderboard(results, notes)
    if "shapebias" in analyses:
        _add_shape_bias(results, notes, trials, settings)
    if "psychometrics" in analyses:
        from ..measures.psychometrics.analysis import psychometrics

        results["psychometrics"] = psychometrics(trials, settings=settings, validate=False)
    if "dmc" in analyses:
        has_margins = "decision_margin" in trials and trials.loc[trials["observer_kind"] == "model",
                                                                  "decision_margin"].notna().any()
        if has_margins:
            dmc_settings = settings if settings.observer_level != "none" else replace(settings, observer_level="jackknife")
            results["dmc"] = decision_margin_consistency(trials, exclusions=exclusions, settings=dmc_settings,
                                                         validate=False)
        else:
            notes.append("decision-margin consistency skipped: no model has decision margins")
    if "dvc" in analyses:
        results["latent"] = latent_correctness_correlation(trials, exclusions=exclusions,
                                                           settings=items_only(settings), validate=False)
        if settings.observer_level != "none":
            notes.append(f"latent correlation: items resampled only (it has no observer level; "
                         f"--observer-level {settings.observer_level} applies to the other analyses)")
    if "ood" in analyses:
        ood = _run_ood_for_report(trials, settings)
        if isinstance(ood, str):
            notes.append(ood)
        else:
            results["ood"] = ood
    if "benchmark" in results or "dmc" in results:   # the paired comparisons of both measures' models
        results["compare"] = {"EC": results["benchmark"].details if "benchmark" in results else None,
                              "DMC": results.get("dmc")}
    return results, notes


def _add_leaderboard(results: dict, notes: list[str]) -> None:
    """model-vs-human's leaderboard of the benchmark result (it orders the headline), or a note why not."""
    from ..measures.ec.leaderboard import leaderboard

    try:
        results["leaderboard"] = leaderboard(results["benchmark"])
    except ValueError as err:
        notes.append(f"leaderboard skipped: {err}")


def _add_shape_bias(results: dict, notes: list[str], trials: pd.DataFrame, settings) -> None:
    """The shape bias where the data hold the cue-conflict experiment, or a note why not."""
    from ..measures.shapebias.analysis import shape_bias_analysis
    from ..trials.schema import TrialTableError

    try:
        results["shapebias"] = shape_bias_analysis(trials, settings=settings, validate=False)
    except TrialTableError as err:
        notes.append(f"shape bias skipped: {err}")


def _run_ood_for_report(trials: pd.DataFrame, settings):
    """The OOD spectrum with its default (model-vs-human) reference, or a note saying why it does not apply."""
    from ..measures.ood.analysis import ood_analysis
    from ..trials.schema import TrialTableError

    from dataclasses import replace

    from ..resampling.engine import ResourceError

    try:
        try:
            return ood_analysis(trials, None, settings=settings, validate=False)
        except ResourceError:
            # The spectrum keeps replicates of every pair and regime (~30,000 outputs on the benchmark with the
            # decision-margin models): give it twice the budget rather than drop it from the page.
            return ood_analysis(trials, None, settings=replace(settings, memory_budget=2 * settings.memory_budget),
                                validate=False)
    except (TrialTableError, ValueError) as err:
        return f"OOD spectrum skipped: {err}"
