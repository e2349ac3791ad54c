"""Error consistency on the report page: the benchmark's section and what the report computes for it."""

from __future__ import annotations

from ..sections import HeadlineMeasure, ReportFigure, ReportSection, ReportTable, SectionResult, settings_text


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
        the headline measure ``EC``; with models to rank, the leaderboard (:func:`leaderboard_section`) follows
        as a section of its own and its headline measures come first (the mean rank orders the headline).

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> made = ec_section(run_benchmark(trials, exclusions=None, settings=ResamplingSettings(n_resamples=20)))
    >>> [t.key for t in made.section.tables], [m.name for m in made.headline][::4]
    (['ec-overall', 'ec-experiments', 'ec-ranking'], ['mean rank', 'EC'])
    >>> [s.key for s in made.more_sections]
    ['leaderboard']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from .plot import benchmark_figure, ranking_figure
    from .result import bootstrap_label

    rows = benchmark.rows
    ec_rows = rows[rows["metric"] == "error_consistency"]
    overall = ec_rows[ec_rows["scope"] == "overall"]
    per_experiment = ec_rows[ec_rows["scope"] != "overall"].pivot_table(
        index="observer", columns="scope", values="estimate", aggfunc="first").reset_index()
    figures = [ReportFigure("ec-benchmark", "Error consistency with humans", benchmark_figure(benchmark),
                            alt="Left: models ranked by error consistency with humans, with intervals and the "
                                "human–human band. Right: error consistency against OOD accuracy.",
                            caption=f"Intervals: {bootstrap_label(benchmark.details.resampled, None)} through the "
                                    "whole aggregation (items resampled within conditions, jointly for all "
                                    "observers).")]
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
        "averaged over conditions, humans and experiments as the model-vs-human benchmark does."
        + (" The study's pairs share part of the trials, so each group's error consistency is pooled: per "
           "condition, the kappa of the summed 2x2 tables of its pairs (chance agreement from the pooled "
           "accuracy), then the mean over conditions and experiments."
           if benchmark.details.settings.get("pool_pairs") else ""),
        tables=tables, figures=figures, methods=settings_text(benchmark.details.settings))
    measure = HeadlineMeasure("EC", overall[["observer", "estimate", "ci_low", "ci_high"]])
    board = leaderboard_section(benchmark)
    if board is None:
        return SectionResult(section, [measure])
    return SectionResult(section, [*board.headline, measure], more_sections=[board.section])


def leaderboard_section(benchmark) -> SectionResult | None:
    """model-vs-human's leaderboard of the benchmark as a report section; its mean rank orders the headline.

    Parameters
    ----------
    benchmark : BenchmarkResult
        From :func:`humanlike.measures.ec.benchmark.run_benchmark`.

    Returns
    -------
    SectionResult or None
        Tables ``leaderboard`` and ``leaderboard-ood``; headline measures ``mean rank`` (lower first: it orders
        the headline), ``accuracy diff.`` (lower is better), ``observed consistency`` and ``OOD accuracy``. None
        where the benchmark ranks no model (:func:`humanlike.measures.ec.leaderboard.leaderboard` refuses it).

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> made = leaderboard_section(run_benchmark(simulate_benchmark(seed=0), exclusions=None, settings=ResamplingSettings(n_resamples=50)))
    >>> [t.key for t in made.section.tables], [m.name for m in made.headline]
    (['leaderboard', 'leaderboard-ood'], ['mean rank', 'accuracy diff.', 'observed consistency', 'OOD accuracy'])
    """
    from .leaderboard import leaderboard

    try:
        board = leaderboard(benchmark)
    except ValueError:      # no model to rank: the EC section stands alone, the headline goes by EC
        return None
    table, ood = board.table, board.ood_table

    def measure(name, frame, column, higher_is_better=True, key=True):
        values = frame[["observer", column, f"{column}_low", f"{column}_high"]].rename(columns={
            column: "estimate", f"{column}_low": "ci_low", f"{column}_high": "ci_high"})
        return HeadlineMeasure(name, values.dropna(subset=["estimate"]), higher_is_better, key)

    level = round(100 * board.level)
    section = ReportSection(
        "leaderboard", "Leaderboard (model-vs-human's ranking)",
        "Models ranked as the model-vs-human benchmark ranks them: each of accuracy difference (lower is better), "
        "observed consistency and error consistency is ranked over the models, and the mean of the three ranks "
        f"orders the table; OOD accuracy is ranked on its own. Every value has its {level}% interval "
        f"({board.interval_method}); "
        "the ranks are recomputed in every resample, which gives each model's interval of places and its "
        "probability of ranking first.",
        tables=[ReportTable("leaderboard", "Most human-like", table),
                ReportTable("leaderboard-ood", "Highest OOD accuracy", ood)],
        methods={"n_resamples": benchmark.details.settings.get("n_resamples"),
                 "experiments": ", ".join(board.experiments), "level": board.level,
                 "ranking": "mean of the three ranks (ties share the average rank), as model-vs-human"})
    return SectionResult(section, [measure("mean rank", table, "mean_rank", False),
                                   # components of the mean rank: in the leaderboard's table, not the headline
                                   measure("accuracy diff.", table, "accuracy_difference", False, key=False),
                                   measure("observed consistency", table, "observed_consistency", key=False),
                                   measure("OOD accuracy", ood, "ood_accuracy")])


def report_analysis(trials, *, settings, exclusions=None):
    """What ``humanlike report`` computes for error consistency: the benchmark (:func:`run_benchmark`), pooled
    over pairs where the trials come from a ``humanlike serve`` study whose pairs share part of the trials (as
    ``humanlike ec STUDY`` does; ``trials.attrs["study_designs"]``).

    Parameters
    ----------
    trials : pandas.DataFrame
        The trial table.
    settings : ResamplingSettings
        The report's one settings object.
    exclusions : dict or None
        Conditions to drop per experiment (the benchmark's by default on the report), or None.

    Returns
    -------
    BenchmarkResult
        The benchmark rows, ranking and the error-consistency details.

    Examples
    --------
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> result = report_analysis(simulate_benchmark(seed=0, n_humans=3, n_items=24),
    ...                          settings=ResamplingSettings(n_resamples=0))
    >>> sorted(result.rows["scope"].unique())[-1]
    'sim-rotation'
    """
    from .benchmark import run_benchmark
    from .cli import pool_pairs_for

    return run_benchmark(trials, exclusions=exclusions, settings=settings,
                         pool_pairs=pool_pairs_for("auto", trials.attrs.get("study_designs", {})))
