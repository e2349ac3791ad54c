"""Long commands (demo, benchmark, report) show their stages on a terminal and stay quiet in a pipe
(issue 24). stderr is a real pseudo-terminal (pty) or a real pipe; the commands run in-process on tiny
simulated data."""

from __future__ import annotations

import fcntl
import os
import struct
import sys
import termios
import threading

import pytest

from humanlike.trials.simulate import simulate_benchmark
from humanlike.measures import registry
from humanlike.app.cli import main


def run_with_stderr(argv, *, terminal: bool, monkeypatch) -> tuple[int, str]:
    """Run ``main(argv)`` with stderr on a pty (terminal) or a pipe; returns the exit code and what stderr got."""
    if terminal:
        reader_fd, writer_fd = os.openpty()
        # a terminal of 24 x 120 characters (a fresh pty has 0 columns, where tqdm draws nothing)
        fcntl.ioctl(writer_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    else:
        reader_fd, writer_fd = os.pipe()
    stream = os.fdopen(writer_fd, "w", buffering=1)
    assert stream.isatty() is terminal
    chunks: list[bytes] = []

    def drain():
        while True:
            try:
                chunk = os.read(reader_fd, 65536)
            except OSError:  # pty: the terminal side was closed
                return
            if not chunk:
                return
            chunks.append(chunk)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    monkeypatch.setattr(sys, "stderr", stream)
    try:
        code = main(argv)
    finally:
        stream.flush()
        stream.close()
        thread.join(timeout=10)
        os.close(reader_fd)
    return code, b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def trials_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("progress") / "trials.csv"
    simulate_benchmark(seed=0, n_humans=3, n_items=32).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("terminal", [True, False], ids=["pty", "pipe"])
def test_benchmark_progress(trials_csv, tmp_path, terminal, monkeypatch):
    code, err = run_with_stderr(["benchmark", str(trials_csv), "--no-exclusions", "--resamples", "200",
                                 "--out", str(tmp_path / "out")], terminal=terminal, monkeypatch=monkeypatch)
    assert code == 0
    if terminal:
        for stage in ("load data", "error consistency", "write"):
            assert f"benchmark: {stage}" in err, err
    else:
        assert err == ""


@pytest.mark.parametrize("terminal", [True, False], ids=["pty", "pipe"])
def test_report_progress(trials_csv, tmp_path, terminal, monkeypatch):
    code, err = run_with_stderr(["report", str(trials_csv), "--analyses", "ec,dvc", "--no-exclusions",
                                 "--resamples", "100", "--out", str(tmp_path / "r.html")],
                                terminal=terminal, monkeypatch=monkeypatch)
    assert code == 0 and (tmp_path / "r.html").is_file()
    if terminal:
        for stage in ("load data", "ec", "dvc", "write"):
            assert f"report: {stage}" in err, err
    else:
        assert err == ""


@pytest.mark.parametrize("terminal", [True, False], ids=["pty", "pipe"])
def test_demo_progress_and_quiet(tmp_path, terminal, monkeypatch):
    every_measure = registry.measures
    monkeypatch.setattr(registry, "measures", lambda: [m for m in every_measure() if m.name == "ec"])  # the rest: slow
    code, err = run_with_stderr(["demo", "--resamples", "50", "--out", str(tmp_path / "demo")],
                                terminal=terminal, monkeypatch=monkeypatch)
    assert code == 0
    if terminal:
        # the EC part of the demo is the benchmark tool's (EC with DMC's rows beside it)
        assert "demo: benchmark" in err and "demo: report" in err, err
        # --quiet silences the terminal too
        code, err = run_with_stderr(["demo", "--resamples", "50", "--out", str(tmp_path / "demo2"), "--quiet"],
                                    terminal=True, monkeypatch=monkeypatch)
        assert code == 0 and err == ""
    else:
        assert err == ""
