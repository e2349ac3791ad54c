"""model-vs-human's benchmark registered as a cross-measure tool: error consistency's benchmark with
decision-margin consistency beside it (``humanlike benchmark``, and the benchmark part of ``humanlike demo``).

Importing this module imports nothing but the contract: every part is named by its dotted path.
"""

from __future__ import annotations

from ..contract import Tool

TOOL = Tool(
    name="benchmark",
    title="The model-vs-human benchmark",
    summary="Error consistency with humans, OOD accuracy, the ranking and the leaderboard, with decision-margin "
            "consistency beside EC for the models with margins",
    docs="docs/your-model-against-the-benchmark.md",
    order=10,
    cli=".cli:register",
    demo=".demo:demo",
    # the benchmark is EC's (its options, pipeline, leaderboard and figures); DMC's rows join it
    depends_on=("humanlike.measures.ec.analysis", "humanlike.measures.ec.cli",
                "humanlike.measures.ec.benchmark", "humanlike.measures.ec.plot", "humanlike.measures.ec.leaderboard",
                "humanlike.measures.ec.leaderboard_view", "humanlike.measures.dmc.analysis",
                "humanlike.measures.dmc.cli"),
    api_intro="model-vs-human's benchmark (a cross-measure tool, not a measure): error consistency's benchmark with "
              "decision-margin consistency beside it, its command and its part of the demo.",
)
