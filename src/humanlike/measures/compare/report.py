"""Paired comparisons on the report page: "Which differences are resolved", over the EC and DMC results the
report computed."""

from __future__ import annotations

import numpy as np

from ..sections import ReportFigure, ReportSection, ReportTable, SectionResult

#: The measures whose models the report's section compares: registered name -> the name shown.
COMPARED = {"ec": "EC", "dmc": "DMC"}


def compared_results(results: dict) -> dict:
    """The results the report's comparison section compares, by the name it shows.

    Parameters
    ----------
    results : dict
        ``{measure name: result}`` as the report computed them; EC's is the benchmark (its error-consistency
        details are compared); a missing entry, None or a string (why it was not computed) is left out.

    Returns
    -------
    dict
        ``{"EC": ErrorConsistencyResult, "DMC": DMCResult}`` (either may be absent).

    Examples
    --------
    >>> compared_results({"ec": "the memory budget is too small", "dmc": None, "mlds": object()})
    {}
    """
    out = {}
    for name, shown in COMPARED.items():
        result = results.get(name)
        if result is None or isinstance(result, str):
            continue
        out[shown] = getattr(result, "details", result)   # the benchmark keeps its error-consistency result there
    return out


def compare_section(results: dict) -> SectionResult | None:
    """"Which differences are resolved": per measure, the paired comparisons of every pair of models.

    Parameters
    ----------
    results : dict
        ``{measure name: result}`` as the report computed them (:func:`compared_results` picks EC and DMC).

    Returns
    -------
    SectionResult or None
        Per measure a table of the pairs (difference, interval, Holm-adjusted p, resolved) and the comparison
        figure; no headline measure. None where no result has two models to compare.

    Examples
    --------
    >>> from humanlike.measures.ec.benchmark import run_benchmark
    >>> from humanlike.trials.simulate import simulate_benchmark
    >>> from humanlike.resampling.settings import ResamplingSettings
    >>> benchmark = run_benchmark(simulate_benchmark(seed=0, n_humans=4, n_items=48), exclusions=None,
    ...                           settings=ResamplingSettings(n_resamples=50, seed=0))
    >>> made = compare_section({"ec": benchmark})
    >>> [t.key for t in made.section.tables]
    ['compare-ec']
    >>> compare_section({"ec": "not computed"}) is None
    True
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    import warnings

    from .adapters import compare
    from .plot import comparison_figure

    tables, figures, summary, notes, resamples = [], [], [], [], []
    for name, result in compared_results(results).items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=RuntimeWarning)
                # at the result's own level, so each score shows the interval the measure's section shows
                comparison = compare(result, level=result.resampled_values().level)
        except ValueError as err:      # fewer than two models, no resamples, ...: said, not hidden
            notes.append(f"{name}: not compared: {err}")
            continue
        scores = comparison.scores["estimate"].to_numpy(dtype=float)
        if not np.isfinite(scores).any():   # nothing to draw or resolve: said, and the section left out
            notes.append(f"{name}: not compared: no model has a defined score on these data (its section says why)")
            continue
        pairs = comparison.pairs
        resamples.append(f"{name}: {len(result.resampled_values().replicates):,}")
        resolved = int(pairs["resolved"].sum())
        summary.append(f"{name}: {resolved} of {len(pairs)} pairs resolved")
        key = f"compare-{name.lower()}"
        tables.append(ReportTable(key, f"{name}: differences between models", pairs[
            ["model_a", "model_b", "difference", "ci_low", "ci_high", "p_value", "p_adjusted", "resolved", "family",
             "interval"]],
            caption="difference = model A - model B (A the higher-scoring); interval (its method in column "
                    "interval) and p-value from the paired bootstrap replicates; p_adjusted: Holm over all pairs; "
                    "resolved: p_adjusted <= 1 - level"))
        figures.append(ReportFigure(key, f"{name}: which differences are resolved", comparison_figure(comparison),
                                    alt=f"{name} of every model with its interval, ordered by score, the human "
                                        "ceiling band, letters shared by models whose difference is not resolved."))
    if not tables and not notes:
        return None
    section = ReportSection(
        "compare", "Which differences are resolved",
        "Two models scored on the same trials are correlated, so overlapping intervals say little about their "
        "difference; here each difference has its own interval and test from the paired resamples ("
        + ("; ".join(summary) or "nothing compared") + ").", tables=tables, figures=figures, notes=notes,
        methods={"n_resamples": "; ".join(resamples)} if resamples else {})
    return SectionResult(section)
