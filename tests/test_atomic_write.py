"""The one atomic writer: a write killed midway (SIGKILL, no cleanup runs) leaves the old file intact, and no
other module keeps a copy of the temporary-file-and-rename dance."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from humanlike.files import atomic_write

SOURCE = Path(__file__).resolve().parents[1] / "src" / "humanlike"

CHILD = """
import sys, time
from pathlib import Path
from humanlike.files import atomic_write

def slow(tmp):
    with open(tmp, "w") as handle:
        handle.write("new " * 1000)
        handle.flush()
        Path(sys.argv[2]).write_text("writing")   # tell the parent: half-way through
        time.sleep(60)
        handle.write("end")

atomic_write(Path(sys.argv[1]), slow)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_write_leaves_the_old_file_intact(tmp_path):
    target, flag = tmp_path / "table.csv", tmp_path / "flag"
    target.write_text("old,content\n")
    env = {**os.environ, "PYTHONPATH": str(SOURCE.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(target), str(flag)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not flag.exists():
            assert child.poll() is None, "the writer ended before it was killed"
            assert time.monotonic() < deadline, "the writer never started writing"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL
    assert target.read_text() == "old,content\n"   # the old file, whole
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".table.csv.")]
    assert len(leftovers) == 1   # SIGKILL runs no cleanup: the temporary file stays, hidden, never the target


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "doc.json"
    target.write_text("{}")

    def broken(tmp):
        tmp.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, broken)
    assert target.read_text() == "{}" and sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_only_files_py_replaces_files_into_place():
    """One writer: no other module renames a temporary file over its target (the model runner publishes a
    whole folder of work-unit outputs with one directory rename, which is a different act)."""
    pattern = re.compile(r"os\.replace\(|tempfile\.mkstemp\(|NamedTemporaryFile\(")
    offenders = [str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*.py")
                 if p.name != "files.py" and pattern.search(p.read_text())]
    assert offenders == []
