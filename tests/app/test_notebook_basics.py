"""A notebook user's first hour (issue 33): ``python -m humanlike``, the type-hint marker, the citation file and
every measure's papers in its ``--help`` and the report's methods."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

import humanlike
from humanlike.app.cli import build_parser
from humanlike.measures.registry import measures

ROOT = Path(__file__).resolve().parents[2]


def test_python_dash_m_runs_the_command_line():
    done = subprocess.run([sys.executable, "-m", "humanlike", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(m.name in done.stdout for m in measures())


def test_the_package_ships_its_type_hint_marker():
    assert (Path(humanlike.__file__).parent / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["humanlike"]
    assert "py.typed" in data


def test_citation_file_names_the_project_and_the_papers():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["title"].startswith("humanlike") and cff["authors"]
    assert cff["version"] == humanlike.__version__
    titles = [ref["title"] for ref in cff["references"]]
    assert all(ref["authors"] and ref["year"] for ref in cff["references"])
    # the papers a measure's entry names by title are in the citation file
    for entry in measures():
        for title in titles:
            if title.split(":")[0].lower() in entry.citation.lower():
                break
        else:
            assert entry.name in ("dmc", "ood", "psychscore"), (entry.name, entry.citation)


def test_every_measure_names_its_papers_in_its_help():
    parser = build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    for entry in measures():
        assert entry.citation, f"{entry.name} names no paper to cite"
        assert commands[entry.name].format_help().replace("\n", " ").count("Cite:") == 1
        first_author = entry.citation.split(",")[0].split(" ")[0]
        assert first_author in commands[entry.name].format_help()


def test_the_report_lists_the_papers_in_a_sections_methods():
    import numpy as np

    from humanlike.app.report_sections import build_sections
    from humanlike.measures.mlds.analysis import analyse_mlds
    from humanlike.measures.mlds.simulate import simulate_judgements
    from humanlike.measures.registry import get_measure
    from humanlike.resampling.settings import ResamplingSettings

    table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=2, seed=0)
    sections, _ = build_sections({"mlds": analyse_mlds(table, settings=ResamplingSettings(n_resamples=20, seed=0))})
    assert sections[0].methods["cite"] == get_measure("mlds").citation
