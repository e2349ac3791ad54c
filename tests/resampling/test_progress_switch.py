"""Progress bars of long API calls: shown where someone watches, off with one switch (issue 33)."""

from __future__ import annotations

import io
import sys

import pytest

from humanlike.resampling import engine
from humanlike.resampling.settings import ResamplingSettings, progress_enabled, set_progress
from humanlike.trials.simulate import simulate_benchmark


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def bars(monkeypatch):
    """The bars the engine opens (it opens tqdm.auto's only when showing progress)."""
    opened = []
    real = engine.progress_bar

    def spy(total, enabled, description, unit="chunk"):
        opened.append(enabled)
        return real(total, False, description, unit)

    monkeypatch.setattr(engine, "progress_bar", spy)
    monkeypatch.delenv("HUMANLIKE_PROGRESS", raising=False)
    yield opened
    set_progress(None)


def run(settings):
    from humanlike.measures.ec.analysis import error_consistency

    trials = simulate_benchmark(seed=0, n_humans=3, n_items=24)
    # a small memory budget: several chunks, so a bar would have steps to show
    error_consistency(trials, experiments=["sim-blur"], settings=settings)


def test_the_default_shows_progress_on_a_terminal_and_the_switch_turns_it_off(bars, monkeypatch):
    monkeypatch.setattr(sys, "stderr", Terminal())
    settings = ResamplingSettings(n_resamples=50, seed=0)
    assert settings.progress is None
    run(settings)
    assert bars and all(bars)
    bars.clear()
    set_progress(False)
    run(settings)
    assert bars and not any(bars)
    bars.clear()
    run(ResamplingSettings(n_resamples=50, seed=0, progress=True))   # the settings still decide
    assert bars and all(bars)


def test_no_progress_in_a_pipe_or_when_the_environment_says_so(bars, monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_enabled(None) is False
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert progress_enabled(None) is True
    monkeypatch.setenv("HUMANLIKE_PROGRESS", "0")
    assert progress_enabled(None) is False


def test_a_notebook_kernel_shows_progress(bars, monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setitem(sys.modules, "ipykernel", object())
    assert progress_enabled(None) is True


def test_the_switch_refuses_what_is_not_a_switch():
    with pytest.raises(ValueError, match="True, False or None"):
        set_progress("off")
