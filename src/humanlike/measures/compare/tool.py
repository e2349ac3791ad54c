"""Paired model comparisons registered as a cross-measure tool (docs/compare.md): not a measure of its own, it
compares the models of another measure's result (EC, DMC, DVC, OOD).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Tool

TOOL = Tool(
    name="compare",
    title="Which differences are resolved",
    summary="Paired differences between models' scores, with intervals, tests and a correction over the family",
    docs="docs/compare.md",
    order=90,
    cli=".cli:register",
    report_section=".report:compare_section",
    # the adapters read each measure's result (and EC's exact label-exchange test); the command runs the
    # measures' analyses; the planning simulates EC's copy model and its kappa; a single-table EC difference's
    # interval combines the two tables' profile-likelihood intervals (MOVER)
    depends_on=("humanlike.measures.ec.analysis", "humanlike.measures.ec.copy_model", "humanlike.measures.ec.exchange",
                "humanlike.measures.ec.interval",
                "humanlike.measures.ec.result", "humanlike.measures.dmc.analysis",
                "humanlike.measures.dmc.kernel", "humanlike.measures.dmc.result", "humanlike.measures.dvc.choices",
                "humanlike.measures.dvc.choices_benchmark",
                "humanlike.measures.ood.alignment", "humanlike.measures.ood.analysis", "humanlike.measures.ood.cli"),
    api_intro=("Paired model comparisons (a cross-measure tool, not a measure): the adapters of each measure's "
               "result, planning, command, report section and figures."),
)
