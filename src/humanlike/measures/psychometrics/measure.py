"""Accuracy and response entropy per condition (model-vs-human's psychometric figures) registered as a measure
(docs/measures/model-vs-human-report.md).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Example, Measure


def simulate(seed: int = 0) -> Example:
    """A small simulated benchmark (3 humans and the 5 simulated models, 40 items, two experiments).

    Parameters
    ----------
    seed : int
        Seed of the simulation.

    Returns
    -------
    Example
        The data and the options that keep the analysis small.

    Examples
    --------
    >>> simulate(0).options
    {'experiments': ['sim-blur', 'sim-noise']}
    """
    from ...trials.simulate import simulate_benchmark

    return Example(simulate_benchmark(seed=seed, n_humans=3, n_items=40), {"experiments": ["sim-blur", "sim-noise"]})


MEASURE = Measure(
    name="psychometrics",
    title="Accuracy and entropy per condition",
    citation=('Geirhos et al. (2021), Partial success in closing the gap between human and machine vision, '
              'NeurIPS 34'),
    summary="Accuracy and normalised response entropy per condition of every experiment, humans and models "
            "(model-vs-human's psychometric figures)",
    docs="docs/measures/model-vs-human-report.md",
    order=80,
    analysis="humanlike.measures.psychometrics.analysis:psychometrics",
    cli="humanlike.measures.psychometrics.cli:register",
    report_run="humanlike.measures.psychometrics.report:report_analysis",
    report_section="humanlike.measures.psychometrics.report:psychometrics_section",
    simulate="humanlike.measures.psychometrics.measure:simulate",
    bad_inputs="humanlike.measures.contract:trial_table_bad_inputs",
    # `humanlike psychometrics` prints observed consistency beside error consistency per experiment
    depends_on=("humanlike.measures.ec.analysis",),
)
