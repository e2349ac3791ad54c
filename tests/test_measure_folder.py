"""A measure is a folder: dropped into a copy of the source tree with no other file edited, a measure folder copied
under a new name (its entry renamed) and the guide's worked example (docs/examples/overlap, shown in
docs/adding-a-measure.md) each pass the common test and the architecture test, and the documentation builds
(``mkdocs build --strict``) with them. So no list outside the registry can go stale, and neither can the guide.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ROOT / "src" / "humanlike" / "measures"
#: The folder copied under a new name: error consistency, the measure the others build on.
COPIED = "ec"


def source_tree(root: Path) -> None:
    """A copy of what the checks read: the source, the two tests, the documentation and its configuration."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src", root / "src", ignore=ignore)
    shutil.copytree(ROOT / "docs", root / "docs", ignore=ignore)
    (root / "tests" / "measures").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "test_architecture.py", root / "tests")
    shutil.copy(ROOT / "tests" / "measures" / "test_common.py", root / "tests" / "measures")
    for name in ("mkdocs.yml", "pyproject.toml", "conftest.py"):
        shutil.copy(ROOT / name, root / name)


def copy_measure(root: Path, folder: str, new_name: str) -> None:
    """``measures/<folder>`` copied to ``measures/<new_name>``, its entry renamed: the one edit."""
    target = root / "src" / "humanlike" / "measures" / new_name
    shutil.copytree(MEASURES / folder, target, ignore=shutil.ignore_patterns("__pycache__"))
    entry = target / "measure.py"
    text = entry.read_text()
    assert text.count(f'name="{folder}"') == 1
    entry.write_text(text.replace(f'name="{folder}"', f'name="{new_name}"'))


def test_a_copied_measure_and_the_guides_example_pass_the_checks_with_no_other_edit(tmp_path):
    pytest.importorskip("mkdocs")
    root = tmp_path / "repo"
    source_tree(root)
    copy_measure(root, COPIED, f"{COPIED}copy")
    shutil.copytree(ROOT / "docs" / "examples" / "overlap", root / "src" / "humanlike" / "measures" / "overlap")
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "MPLBACKEND": "Agg", "NO_MKDOCS_2_WARNING": "1"}
    # the command line finds both (a copied cli.py used to spell its name again: argparse's "conflicting
    # subparser" traceback from `humanlike --help`)
    listed = subprocess.run([sys.executable, "-m", "humanlike.app.cli", "--help"], cwd=root, env=env,
                            capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    commands = {line.split()[0] for line in listed.stdout.splitlines() if line.startswith("    ") and line.split()}
    assert {f"{COPIED}copy", "overlap", COPIED} <= commands
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-o", "addopts=",
         "tests/test_architecture.py", "tests/measures/test_common.py",
         "-k", f"architecture or registered or {COPIED}copy or overlap"],
        cwd=root, env=env, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    for name in (f"{COPIED}copy", "overlap"):   # the common test ran on both, chunking and workers included
        assert f"test_numbers_do_not_depend_on_chunk_size_or_workers[{name}] PASSED" in tests.stdout
        assert f"test_same_seed_gives_the_same_bytes[{name}] PASSED" in tests.stdout
    docs = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                          cwd=root, env=env, capture_output=True, text=True)
    assert docs.returncode == 0, docs.stderr[-4000:]
    for page in (f"api/measures-{COPIED}copy.html", "api/measures-overlap.html"):
        assert (tmp_path / "site" / page).exists(), page
