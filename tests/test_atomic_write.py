"""The one atomic writer: a failed write leaves the old file, and no other module keeps a copy of the
temporary-file-and-rename dance (a killed write: tests/app/test_atomic_writes.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from humanlike.files import atomic_write

SOURCE = Path(__file__).resolve().parents[1] / "src" / "humanlike"

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
