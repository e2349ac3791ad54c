"""The one atomic writer (``humanlike.files.atomic_write``): a write killed mid-way (SIGKILL: no finally, no handler
runs) or failing (an exception, KeyboardInterrupt) leaves the old file and nothing else, and no other module keeps
a copy of the temporary-file-and-rename dance."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from humanlike.files import atomic_write, atomic_write_text, save_figure, write_json, write_table

SRC = Path(__file__).resolve().parents[2] / "src"
SOURCE = SRC / "humanlike"

# The child writes a big table through the package's atomic writer; it says "writing" once the table's bytes
# are flowing into the temporary file (from inside pandas' writer), then keeps writing until killed.
CHILD = r"""
import sys, time
import numpy as np
import pandas as pd
from humanlike.files import write_table

original = pd.DataFrame.to_csv

def slow_to_csv(self, path, **kwargs):
    with open(path, "w") as handle:
        handle.write("observer,estimate\n")
        for block in range(10**6):
            handle.write("x,1.0\n" * 10_000)
            handle.flush()
            if block == 2:
                print("writing", flush=True)
            time.sleep(0.01)

pd.DataFrame.to_csv = slow_to_csv
write_table(pd.DataFrame({"observer": ["x"] * 3, "estimate": np.arange(3.0)}), sys.argv[1])
print("finished", flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX")
def test_a_killed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "pairs.csv"
    old = pd.DataFrame({"observer": ["a", "b"], "estimate": [0.1, 0.2]})
    write_table(old, target)
    before = target.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "writing"
        time.sleep(0.2)
        assert child.poll() is None          # still writing
        # the half-written bytes exist (the child's open file is bigger than the old table)
        open_files = [os.path.realpath(f"/proc/{child.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{child.pid}/fd")]
        assert any(str(tmp_path) in f for f in open_files)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.csv"]


def test_every_writer_still_writes_and_leaves_only_its_file(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    write_table(frame, tmp_path / "t.csv")
    write_table(frame, tmp_path / "t.parquet")
    write_table(frame, tmp_path / "t", fmt="json")
    write_json({"n": 1}, tmp_path / "r.json")
    atomic_write_text(tmp_path / "n.txt", "né")
    fig = plt.figure()
    save_figure(fig, tmp_path / "f.svg")
    plt.close(fig)
    assert pd.read_csv(tmp_path / "t.csv").equals(frame)
    assert pd.read_parquet(tmp_path / "t.parquet").equals(frame)
    assert (tmp_path / "n.txt").read_text(encoding="utf-8") == "né"
    assert (tmp_path / "f.svg").read_text().lstrip().startswith("<?xml")
    mask = os.umask(0)
    os.umask(mask)
    assert all((p.stat().st_mode & 0o777) == (0o666 & ~mask) for p in tmp_path.iterdir())
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_failing_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "x.txt"
    atomic_write_text(target, "old")

    class Boom(Exception):
        pass

    def explode(self, *args, **kwargs):
        raise Boom

    with pytest.raises(Boom):
        from unittest import mock

        with mock.patch.object(pd.DataFrame, "to_csv", explode):
            write_table(pd.DataFrame({"a": [1]}), target.with_suffix(".csv"))
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "doc.json"
    target.write_text("{}")

    def broken(tmp):
        tmp.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, broken)
    assert target.read_text() == "{}" and sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_only_the_atomic_writer_replaces_files_into_place():
    """One writer: no other module renames a temporary file over its target (the model runner publishes a
    whole folder of work-unit outputs with one directory rename, which is a different act)."""
    pattern = re.compile(r"os\.replace\(|tempfile\.mkstemp\(|NamedTemporaryFile\(")
    offenders = [str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*.py")
                 if p != SOURCE / "files" / "atomic.py" and pattern.search(p.read_text())]
    assert offenders == []
