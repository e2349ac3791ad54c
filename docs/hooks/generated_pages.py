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

# One API page per layer, in layer order. The modules are found in the source tree (not imported: griffe
# reads the files statically, so the torch-backed ``humanlike.models`` renders without torch), so a new
# module can never be left out of the reference.
API_GROUPS = ("data", "metrics", "stats", "analyses", "models", "presentation", "web")


def public_modules(group: str) -> list[str]:
    """Every public module of ``humanlike.<group>``: file names without a leading underscore, sorted."""
    folder = ROOT / "src" / "humanlike" / group
    return [f"humanlike.{group}.{path.stem}" for path in sorted(folder.glob("*.py"))
            if not path.stem.startswith("_")]


API_PAGES: dict[str, list[str]] = {group: public_modules(group) for group in API_GROUPS}

API_INTROS = {
    "data": "The trial table, the difference-judgement table, representations, stimuli, loaders, designs and "
            "simulators. Nothing here imports a higher layer.",
    "metrics": "Pure array functions and their kernels: numpy in, numpy out; no pandas, no I/O, no randomness.",
    "stats": "The resampling engine, results and intervals, significance tests, planning, reliability, "
             "difference-scaling fits and the OOD-spectrum statistics.",
    "analyses": "Pipelines over trial tables: a kernel, an aggregation, a result with intervals.",
    "models": "Running torch models on stimuli (the optional `models` extra: `pip install \"humanlike[models]\"`). "
              "Nothing outside this subpackage imports torch.",
    "presentation": "The command line (one module per command family), figures, the HTML report and atomic "
                    "file output. The CLI only parses, calls an analysis, prints and writes.",
    "web": "`humanlike serve`, the web experiment server (the optional `web` extra: `pip install \"humanlike[web]\"`): "
           "study config, designs, database, the HTTP application, export. See "
           "[Run your own experiment](../run-your-own-experiment.md).",
}


def cli_reference() -> str:
    from humanlike.presentation.cli import build_parser

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
    for group, modules in API_PAGES.items():
        generated[f"api/{group}.md"] = api_page(group, modules)
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files
