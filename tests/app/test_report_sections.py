"""The report's sections come from the registered measures; a measure that cannot be computed says why, on the
page, and the settings are never changed behind the user's back (issue 21)."""

import humanlike.measures.registry as registry
from humanlike.app.report_sections import build_sections, run_report_analyses
from humanlike.measures.contract import Measure
from humanlike.resampling.settings import ResamplingSettings
from humanlike.trials.simulate import simulate_benchmark


def test_a_measure_that_fails_gets_a_section_saying_why():
    trials = simulate_benchmark(seed=0, n_humans=3, n_items=24)   # none of model-vs-human's reference conditions
    results, notes = run_report_analyses({"trials": trials}, ["ood"], ResamplingSettings(n_resamples=0), None)
    assert isinstance(results["ood"], str) and results["ood"]
    assert notes == [f"OOD spectrum not computed: {results['ood']}"]
    sections, headline = build_sections(results)
    assert [s.key for s in sections] == ["ood"] and headline is None
    assert sections[0].summary == f"Not computed: {results['ood']}" and sections[0].notes


def failing_analysis(data, *, settings, exclusions=None):
    from humanlike.resampling.engine import ResourceError

    failing_analysis.seen.append(settings)
    raise ResourceError("the kept replicates need 3.0 GiB (budget 2.0 GiB)")


failing_analysis.seen = []


def test_a_memory_budget_too_small_is_shown_and_never_doubled(monkeypatch):
    fake = Measure(name="fake", title="Fake measure", summary="fails", docs="docs/index.md", order=1,
                   analysis=f"{__name__}:failing_analysis", cli="humanlike.measures.ec.cli:register",
                   report_run=f"{__name__}:failing_analysis",
                   report_section="humanlike.measures.ood.report:ood_section")
    monkeypatch.setattr(registry, "measures", lambda: (fake,))
    monkeypatch.setattr("humanlike.app.report_sections.measures", lambda: (fake,))
    settings = ResamplingSettings(n_resamples=10)
    failing_analysis.seen.clear()
    results, notes = run_report_analyses({"trials": object()}, ["fake"], settings, None)
    assert failing_analysis.seen == [settings]                     # one try, with the user's settings
    assert results == {"fake": "the kept replicates need 3.0 GiB (budget 2.0 GiB)"}
    assert notes == ["fake measure not computed: the kept replicates need 3.0 GiB (budget 2.0 GiB)"]
    sections, _ = build_sections(results)
    assert "budget 2.0 GiB" in sections[0].summary
