"""The researcher page shows the report sections of the registered measures that analyse the study's table: a
measure that registers appears there with no edit in ``web/`` (tests/test_architecture.py refuses a measure
spelled in web/'s code), and each section's figures are served one by one."""

from __future__ import annotations

import dataclasses

import pandas as pd

from humanlike.measures.registry import measures
from humanlike.measures.sections import ReportSection, ReportTable, SectionResult
from humanlike.web.export import study_table
from web_bots import answer_all, scale_judge, start
from web_helpers import RESEARCHER, make_study


@dataclasses.dataclass
class ToyResult:
    judgements: int
    observers: list


def toy_run(judgements, *, settings, exclusions=None):   # noqa: ARG001 - the report's signature
    """A toy measure's report analysis: how many judgements, and by whom, it was given."""
    return ToyResult(len(judgements), sorted(judgements["observer"].unique()))


def toy_section(result) -> SectionResult:
    table = pd.DataFrame({"observers": [", ".join(result.observers)], "judgements": [result.judgements]})
    return SectionResult(ReportSection("toy-section", "Toy measure", "Counts the judgements.",
                                       tables=[ReportTable("toy-counts", "Judgements", table)]))


def test_a_registered_measure_appears_on_the_researcher_page(tmp_path, monkeypatch, client_for):
    mlds = next(m for m in measures() if m.report_input == "judgements")
    toy = dataclasses.replace(mlds, name="toy", title="Toy measure", order=mlds.order + 1,
                              report_run=f"{__name__}:toy_run", report_section=f"{__name__}:toy_section")
    registered = (*measures(), toy)
    import humanlike.app.report_sections as report_sections
    import humanlike.web.researcher as researcher

    monkeypatch.setattr(report_sections, "measures", lambda: registered)
    monkeypatch.setattr(researcher, "measures", lambda: registered)
    client, study = client_for(make_study(tmp_path, "triads"))
    for k in range(3):
        answer_all(client, start(client), scale_judge(study, seed=k))
    page = client.get("/researcher", headers=RESEARCHER).text
    # the toy's section, after the measure it was copied from, given the pooled judgement table
    assert page.index('data-section="difference-scaling"') < page.index('data-section="toy-section"')
    counts = page[page.index('data-table="toy-counts"'):]
    main_judgements = len(study_table(study.engine, study.config, study.stimuli))
    assert "<td>all participants</td>" in counts and f"<td>{main_judgements}</td>" in counts
    # every figure of the page is served by its number, an unknown one is a 404 that says how many there are
    shown = page.count('src="/researcher/figure.png?n=')
    assert shown >= 1
    for n in range(shown):
        figure = client.get(f"/researcher/figure.png?n={n}", headers=RESEARCHER)
        assert figure.status_code == 200 and figure.content[:4] == b"\x89PNG"
    assert client.get("/researcher/figure.png", headers=RESEARCHER).content == \
        client.get("/researcher/figure.png?n=0", headers=RESEARCHER).content
    for wrong in (str(shown), "-1", "x"):
        missing = client.get(f"/researcher/figure.png?n={wrong}", headers=RESEARCHER)
        assert missing.status_code == 404 and f"has drawn {shown}" in missing.text


def test_a_classification_study_shows_error_consistency_and_says_what_does_not_apply(tmp_path, client_for):
    from web_bots import classifier

    client, study = client_for(make_study(tmp_path, "classify"))
    for k in range(3):
        answer_all(client, start(client), classifier(study, accuracy_seed=k))
    page = client.get("/researcher", headers=RESEARCHER).text
    assert 'data-section="error-consistency"' in page and 'data-table="ec-overall"' in page
    # a measure the data do not allow is named with the reason, not left out silently
    assert "decision-margin consistency skipped: no model has decision margins" in page
