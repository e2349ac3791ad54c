"""MkDocs hook: pages generated from the code itself, so they can never drift from it.

- ``cli.md``: the command-line reference, from the argparse parser (every command's ``--help``).
- ``api/*.md``: one API page per public module, rendered by mkdocstrings from the docstrings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

# One API page per layer of the shared core, one per measure, then the shared measure modules, models and the
# app. The modules are found in the source tree (not imported: griffe reads the files statically, so the
# torch-backed ``humanlike.models`` renders without torch), so a new module can never be left out of the reference.
MEASURES = ("ec", "dmc", "ood", "dvc", "mlds", "psychscore", "shapebias", "psychometrics", "psychfit", "compare")
API_GROUPS = ("trials", "resampling", "stats", "files", *(f"measures/{m}" for m in MEASURES), "measures", "models",
              "app", "web")


def public_modules(group: str) -> list[str]:
    """Every public module of ``humanlike.<group>`` (a folder's own files, or one module): sorted, no leading _."""
    package = "humanlike." + group.replace("/", ".")
    single = ROOT / "src" / "humanlike" / f"{group}.py"
    if single.exists():
        return [package]
    folder = ROOT / "src" / "humanlike" / group
    modules = [f"{package}.{path.stem}" for path in sorted(folder.glob("*.py")) if not path.stem.startswith("_")]
    # a subpackage without a page of its own (measures/options) joins its folder's page, module by module
    return modules + [f"{package}.{sub.name}.{path.stem}" for sub in sorted(folder.iterdir())
                      if (sub / "__init__.py").exists() and f"{group}/{sub.name}" not in API_GROUPS
                      for path in sorted(sub.glob("*.py")) if not path.stem.startswith("_")]


def page_name(group: str) -> str:
    """The API page of a group: ``measures/ec`` -> ``measures-ec``."""
    return group.replace("/", "-")


API_PAGES: dict[str, list[str]] = {page_name(group): public_modules(group) for group in API_GROUPS}

API_INTROS = {
    "trials": "The trial table, the difference-judgement table, representations, stimuli, loaders, designs and "
              "the generic simulators. Nothing here imports a higher layer.",
    "resampling": "The resampling engine: kernels, draws, random streams, settings, results, intervals, the item "
                  "jackknife, parallel evaluation.",
    "stats": "Measure-agnostic statistics: correlations, reliability, multiple testing, permutation tests, ranking, "
             "paired comparisons (their scores, p-values, intervals and letter display).",
    "files": "Atomic file output: tables, JSON, figures and the run manifest (`humanlike.files.*`, all imported "
             "from `humanlike.files`).",
    "measures-ec": "Error consistency: kappa, its intervals and tests, the pipeline, the benchmark, planning, "
                   "command and figures.",
    "measures-dmc": "Decision-margin consistency: margins, the kernel and pipeline, planning, command and figures.",
    "measures-ood": "The human-centred OOD spectrum: OOD scores, regimes, error alignment (EC, MA, CLED), "
                    "command and figures.",
    "measures-dvc": "Decision-variable correlation of representations and of choices, command and figures.",
    "measures-mlds": "Maximum-likelihood difference scaling: fits, diagnostics, machine observers, command and "
                     "figures.",
    "measures-psychscore": "The Psychophysical-Score: blend sequences, class-level scales, the score, command and "
                           "figures.",
    "measures-shapebias": "Shape bias on cue-conflict images: the metric, the pipeline, simulation, command, "
                          "report section and figures.",
    "measures-psychometrics": "Accuracy and response entropy per condition: the pipeline, command, report section "
                              "and figures.",
    "measures-psychfit": "Psychometric functions: the maximum-likelihood fit, the stimulus axis, the pipeline, "
                         "simulation, command, report section and figure.",
    "measures-compare": "Paired model comparisons (a cross-measure tool, not a measure): the adapters of each "
                        "measure's result, planning, command, report section and figures.",
    "measures": "Modules several measures share: the pairwise kernels and aggregation, the command-line options "
                "(`humanlike.measures.options.*`, all imported from `humanlike.measures.options`).",
    "models": "Running torch models on stimuli (the optional `models` extra: `pip install \"humanlike[models]\"`). "
              "Nothing outside this subpackage imports torch.",
    "app": "The command line's entry point, the models command, the HTML report and its sections.",
    "web": "`humanlike serve`, the web experiment server (the optional `web` extra: `pip install \"humanlike[web]\"`): "
           "study config, designs, database, the HTTP application, export. See "
           "[Run your own experiment](../run-your-own-experiment.md).",
}


def cli_reference() -> str:
    from humanlike.app.cli import build_parser

    parser = build_parser()
    lines = ["# Command-line reference", "",
             "Generated from the parser at build time: every command's `--help`, exactly as the program prints it.", ""]

    def walk(p: argparse.ArgumentParser, name: str) -> None:
        lines.extend([f"## `{name}`", "", "```text", p.format_help().rstrip(), "```", ""])
        for action in p._actions:  # argparse keeps sub-commands here; there is no public accessor
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(sub, f"{name} {sub_name}")

    walk(parser, "humanlike")
    return "\n".join(lines) + "\n"


def api_page(group: str, modules: list[str]) -> str:
    body = [f"# API: {group}", "", API_INTROS[group], ""]
    for module in modules:
        # the module heading shows its import path; its members keep their short names
        body.extend([f"::: {module}", "    options:", "      show_root_full_path: true", ""])
    return "\n".join(body)


def on_files(files, config):
    generated = {"cli.md": cli_reference()}
    for page, modules in API_PAGES.items():
        generated[f"api/{page}.md"] = api_page(page, modules)
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files
