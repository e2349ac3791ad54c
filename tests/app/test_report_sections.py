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


def test_the_leaderboard_orders_the_headline_and_the_compare_tool_adds_its_section():
    import matplotlib.pyplot as plt
    import numpy as np

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    results, notes = run_report_analyses({"trials": trials}, ["ec", "dmc", "shapebias"],
                                         ResamplingSettings(n_resamples=100, seed=0), None)
    assert notes == ["shape bias skipped: the data hold no 'cue-conflict' experiment"]
    try:
        sections, headline = build_sections(results)
    finally:
        plt.close("all")
    keys = [s.key for s in sections]
    # the leaderboard right after EC's section; the cross-measure tool's section after every measure's
    assert keys[:2] == ["error-consistency", "leaderboard"] and keys[-1] == "compare"
    assert "decision-margin-consistency" in keys[2:-1]
    assert {t.key for t in sections[-1].tables} == {"compare-ec", "compare-dmc"}
    assert headline.title == "Headline: models ranked by mean rank"
    models = headline.frame[headline.frame["observer"] != "humans"]
    assert headline.frame["observer"].iloc[0] == "humans"
    mean_rank = models["mean rank"].to_numpy(dtype=float)
    assert (np.diff(mean_rank) >= 0).all() and len(set(mean_rank)) > 1     # lower mean rank first
    assert list(models["rank"]) == list(range(1, len(models) + 1))


def test_without_models_to_rank_the_headline_goes_by_ec_and_the_comparison_says_why_not():
    import matplotlib.pyplot as plt

    trials = simulate_benchmark(seed=0, n_humans=4, n_items=48)
    humans = trials[trials["observer_kind"] == "human"]
    results, _ = run_report_analyses({"trials": humans}, ["ec"], ResamplingSettings(n_resamples=20, seed=0), None)
    try:
        sections, headline = build_sections(results)
    finally:
        plt.close("all")
    assert [s.key for s in sections] == ["error-consistency", "compare"]
    assert headline.title == "Headline: models ranked by EC"
    compared = sections[-1]
    assert not compared.tables and len(compared.notes) == 1 and compared.notes[0].startswith("EC: not compared: ")


def test_compare_and_the_benchmark_are_command_families_not_measures():
    from humanlike.app.cli import build_parser

    assert not {"compare", "benchmark"} & {m.name for m in registry.measures()}
    assert [t.name for t in registry.tools()] == ["benchmark", "compare"]
    assert [f.name for f in registry.command_families()][-1] == "compare"
    assert [f.name for f in registry.command_families()][:2] == ["benchmark", "ec"]   # the demo's first part
    parser = build_parser()
    assert parser.parse_args(["compare", "data.csv", "--measure", "ec"]).handler.__name__ == "run_compare_command"
    assert parser.parse_args(["plan", "compare", "--delta", "0.1"]).handler.__name__ == "run_plan_compare"
    assert parser.parse_args(["benchmark", "raw/"]).handler.__name__ == "run_benchmark_command"
