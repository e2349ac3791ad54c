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

# Public modules, grouped as the API reference shows them (layer order: data -> metrics -> stats -> analyses).
API_PAGES: dict[str, list[str]] = {
    "data": ["humanlike.data.schema", "humanlike.data.loaders", "humanlike.data.design",
             "humanlike.data.representations", "humanlike.data.simulate"],
    "metrics": ["humanlike.metrics.ec", "humanlike.metrics.copy_model", "humanlike.metrics.margins",
                "humanlike.metrics.alignment", "humanlike.metrics.correlation"],
    "stats": ["humanlike.stats.engine", "humanlike.stats.results", "humanlike.stats.intervals",
              "humanlike.stats.rng", "humanlike.stats.significance", "humanlike.stats.planning"],
    "analyses": ["humanlike.analyses.errorconsistency", "humanlike.analyses.benchmark",
                 "humanlike.analyses.dmc", "humanlike.analyses.ood"],
}


def existing(module: str) -> bool:
    return (ROOT / "src" / (module.replace(".", "/") + ".py")).exists() or \
        (ROOT / "src" / module.replace(".", "/") / "__init__.py").exists()


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
    body = [f"# API: {group}", ""]
    for module in modules:
        if existing(module):
            body.extend([f"::: {module}", ""])
    return "\n".join(body)


def on_files(files, config):
    generated = {"cli.md": cli_reference()}
    for group, modules in API_PAGES.items():
        generated[f"api/{group}.md"] = api_page(group, modules)
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files
