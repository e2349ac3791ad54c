# src/humanlike/measures/overlap/measure.py
"""Error overlap registered as a measure: the worked example of docs/adding-a-measure.md."""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """A small simulated benchmark (3 humans, 40 items, one experiment) for the common test."""
    from ...trials.simulate import simulate_benchmark

    return Example(simulate_benchmark(seed=seed, n_humans=3, n_items=40), {"experiments": ["sim-blur"]})


MEASURE = Measure(
    name="overlap", title="Error overlap", summary="Jaccard index of two observers' error sets",
    docs="docs/adding-a-measure.md", order=15,
    analysis=".analysis:error_overlap_analysis",
    cli=".cli:register",
    report_run=".report:report_analysis",
    report_section=".report:section",
    simulate=".measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    api_intro="Error overlap, the worked example of the guide: its analysis, command and report section.",
)
