"""MkDocs hook: pages generated from the code itself, so they can never drift from it.

- ``cli.md``: the command-line reference, from the argparse parser (every command's ``--help``).
- ``api/*.md``: one API page per public module, rendered by mkdocstrings from the docstrings.
- the navigation's measure pages and their API pages, from the registry (:mod:`humanlike.measures.registry`):
  a new measure folder is in the site without an edit here or in ``mkdocs.yml``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from humanlike.measures.registry import command_families  # noqa: E402 - after the path is set

# One API page per layer of the shared core, one per measure (and cross-measure tool) that the registry finds,
# then the shared measure modules, models and the app. The modules are found in the source tree (not imported:
# griffe reads the files statically, so the torch-backed ``humanlike.models`` renders without torch), so a new
# module can never be left out of the reference.
FAMILIES = {family.package.rpartition(".")[2]: family for family in command_families()}
API_GROUPS = ("trials", "resampling", "stats", "files", *(f"measures/{m}" for m in FAMILIES), "measures", "models",
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
    "measures": "Modules several measures share: the pairwise kernels and aggregation, the command-line options "
                "(`humanlike.measures.options.*`, all imported from `humanlike.measures.options`).",
    "models": "Running torch models on stimuli (the optional `models` extra: `pip install \"humanlike[models]\"`). "
              "Nothing outside this subpackage imports torch.",
    "app": "The command line's entry point, the models command, the HTML report and its sections.",
    "web": "`humanlike serve`, the web experiment server (the optional `web` extra: `pip install \"humanlike[web]\"`): "
           "study config, designs, database, the HTTP application, export. See "
           "[Run your own experiment](../run-your-own-experiment.md).",
    **{page_name(f"measures/{m}"): family.api_intro or family.summary for m, family in FAMILIES.items()},
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


def pages_of(nav) -> list[str]:
    """Every page a navigation (a list of ``{title: page or list}``) names, at any depth."""
    found = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += pages_of(value) if isinstance(value, list) else [value]
    return found


def measure_nav(config) -> None:
    """Fill the navigation from the registry: every measure's (and tool's) page under "Measures", in the
    registry's order before the pages ``mkdocs.yml`` lists there, and its API page under "API reference" after
    the core layers' pages."""
    nav = {next(iter(item)): item for item in config["nav"] if isinstance(item, dict)}
    pages = {}
    for family in FAMILIES.values():   # a copied folder keeps its original's page: shown once
        pages.setdefault(family.docs.removeprefix("docs/"), family.title)
    listed = set(pages_of(config["nav"]))
    nav["Measures"]["Measures"][:0] = [{title: page} for page, title in pages.items() if page not in listed]
    api = nav["API reference"]["API reference"]
    after = next(i for i, entry in enumerate(api) if next(iter(entry.values())) == "api/files.md") + 1
    api[after:after] = [{family.title: f"api/{page_name(f'measures/{m}')}.md"} for m, family in FAMILIES.items()]


def on_config(config):
    measure_nav(config)
    return config


def on_files(files, config):
    generated = {"cli.md": cli_reference()}
    for page, modules in API_PAGES.items():
        generated[f"api/{page}.md"] = api_page(page, modules)
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files
