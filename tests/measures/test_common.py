"""The common test: what every registered measure promises (docs/architecture.md, "The measure contract").

Parametrised over :func:`humanlike.measures.registry.measures`, so a new measure is covered as soon as it
registers. Each check runs the measure's own analysis on its own small simulated data (``Measure.simulate``) with
about 200 resamples.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.measure_result import CORE_COLUMNS, MeasureResult
from humanlike.measures.registry import measures
from humanlike.resampling.settings import ResamplingSettings

MEASURES = measures()
IDS = [m.name for m in MEASURES]
SETTINGS = ResamplingSettings(n_resamples=200, seed=7)
#: Measures whose bootstrap goes through the engine's chunks, strata and worker threads (MLDS and the
#: Psychophysical-Score resample by simulation and by items in blocks of their own).
ENGINE_MEASURES = {"ec", "dmc", "dvc", "ood", "shapebias", "psychometrics", "psychfit"}


@pytest.fixture(scope="module", params=MEASURES, ids=IDS)
def measure(request):
    return request.param


@pytest.fixture(scope="module")
def example(measure):
    return measure.simulated(0)


@pytest.fixture(scope="module")
def result(measure, example):
    return measure.run(example.data, settings=SETTINGS, **example.options)


def frame_bytes(result: MeasureResult) -> bytes:
    return result.to_frame().to_csv(index=False).encode()


def json_bytes(result: MeasureResult) -> bytes:
    return json.dumps(result.to_json_dict(), sort_keys=True, default=str).encode()


def test_every_measure_folder_is_registered_with_its_parts():
    assert IDS == ["ec", "dmc", "dvc", "ood", "mlds", "psychscore", "shapebias", "psychometrics", "psychfit"]
    for m in MEASURES:
        assert m.simulate and m.bad_inputs, f"{m.name}: the common test needs simulate and bad_inputs"
        assert m.docs.startswith("docs/") and m.title and m.summary


def test_the_result_derives_from_the_one_result_base(measure, result):
    assert isinstance(result, MeasureResult)
    assert result.measure == measure.name


def test_tidy_frame_has_the_core_columns(result):
    frame = result.to_frame()
    assert len(frame) > 0
    assert list(frame.columns[:3]) == ["measure", "scope", "group"]
    values = [c for c in frame.columns if c in CORE_COLUMNS[3:]]
    assert values == list(CORE_COLUMNS[3:])                  # estimate, ci_low, ci_high, undefined_share, reason
    start = list(frame.columns).index("estimate")
    assert list(frame.columns[start:start + 5]) == list(CORE_COLUMNS[3:])
    assert (frame["measure"] == result.measure).all()
    np.testing.assert_array_equal(frame["estimate"].to_numpy(), result.estimate)
    low, high = result.interval()
    np.testing.assert_array_equal(frame["ci_low"].to_numpy(), low)
    np.testing.assert_array_equal(frame["ci_high"].to_numpy(), high)
    assert result.replicates.shape == (SETTINGS.n_resamples, len(frame))


def test_every_undefined_estimate_has_a_reason(result):
    frame = result.to_frame()
    undefined = frame[frame["estimate"].isna()]
    assert (undefined["reason"].str.len() > 0).all(), undefined[["scope", "group", "reason"]].head()


def test_intervals_at_another_level_need_no_rerun(result):
    low90, high90 = result.interval(level=0.9)
    low99, high99 = result.interval(level=0.99)
    both = np.isfinite(low90) & np.isfinite(low99)
    assert both.any()
    assert (low99[both] <= low90[both]).all() and (high90[both] <= high99[both]).all()


def test_same_seed_gives_the_same_bytes(measure, example, result):
    again = measure.run(example.data, settings=SETTINGS, **example.options)
    assert frame_bytes(again) == frame_bytes(result)
    assert json_bytes(again) == json_bytes(result)


def test_another_seed_gives_other_replicates(measure, example, result):
    # (estimates may move too where the measure has a seeded baseline: the Psychophysical-Score's random observer)
    other = measure.run(example.data, settings=replace(SETTINGS, seed=8), **example.options)
    assert not np.array_equal(np.nan_to_num(other.replicates), np.nan_to_num(result.replicates))


#: Known departures from the contract, each a defect to mend (not a licence): the check must fail while it lasts.
#: None today: MLDS sorts its rows canonically before any draw (issue 22).
KNOWN_DEPARTURES: dict[tuple[str, str], str] = {}


def test_numbers_do_not_depend_on_row_order(measure, example, result, request):
    if ("row order", measure.name) in KNOWN_DEPARTURES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_DEPARTURES["row order", measure.name], strict=True))
    shuffled = example.data.sample(frac=1.0, random_state=3).reset_index(drop=True)
    again = measure.run(shuffled, settings=SETTINGS, **example.options)
    pd.testing.assert_frame_equal(again.to_frame(), result.to_frame())


def test_numbers_do_not_depend_on_chunk_size_or_workers(measure, example, result, monkeypatch):
    if measure.name not in ENGINE_MEASURES:
        pytest.skip(f"{measure.name} does not resample through the engine's chunks and workers")
    from humanlike.resampling import engine
    from humanlike.resampling.draws import BLOCK

    chunkings = []

    def one_block_per_chunk(n_resamples, bytes_per_resample, memory_budget=None):
        chunks = [(lo, min(lo + BLOCK, n_resamples)) for lo in range(0, n_resamples, BLOCK)]
        chunkings.append(chunks)
        return chunks

    # every chunk one block of resamples (as a small memory budget gives), the strata run by one worker in turn
    monkeypatch.setattr(engine, "resample_chunks", one_block_per_chunk)
    again = measure.run(example.data, settings=replace(SETTINGS, workers=1), **example.options)
    assert chunkings and max(len(c) for c in chunkings) == SETTINGS.n_resamples // BLOCK
    pd.testing.assert_frame_equal(again.to_frame(), result.to_frame())
    np.testing.assert_array_equal(again.replicates, result.replicates)
    monkeypatch.undo()
    threads = measure.run(example.data, settings=replace(SETTINGS, workers=2), **example.options)
    np.testing.assert_array_equal(threads.replicates, result.replicates)


def test_bad_input_is_a_clear_value_error_naming_what_is_wrong(measure, example):
    broken = measure.broken_inputs(example)
    assert broken, f"{measure.name} declares no bad inputs"
    for what, bad in broken:
        with pytest.raises(ValueError, match=what):
            measure.run(bad.data, settings=SETTINGS, **bad.options)


def test_save_and_load_give_the_same_result(result, tmp_path_factory):
    path = tmp_path_factory.mktemp("saved") / "result.humanlike.zip"
    result.save(path)
    loaded = type(result).load(path)
    assert type(loaded) is type(result)
    pd.testing.assert_frame_equal(loaded.to_frame(), result.to_frame())
    assert json_bytes(loaded) == json_bytes(result)
    np.testing.assert_array_equal(loaded.replicates, result.replicates)
    np.testing.assert_array_equal(*(r.interval(level=0.8)[0] for r in (loaded, result)))


def test_a_file_saved_before_its_classes_moved_still_loads(result, tmp_path_factory):
    import zipfile

    from humanlike.measures.saved_results import MOVED_CLASSES

    path = tmp_path_factory.mktemp("saved") / "result.humanlike.zip"
    result.save(path)
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    text = members["result.json"].decode()
    moved = [(old, new) for old, new in MOVED_CLASSES.items() if f'"{new}"' in text]
    if not moved:
        pytest.skip(f"a {type(result).__name__} holds none of the classes that moved")
    for old, new in moved:  # the file as the version before the move wrote it
        text = text.replace(f'"{new}"', f'"{old}"')
    members["result.json"] = text.encode()
    old_file = path.with_name("old.humanlike.zip")
    with zipfile.ZipFile(old_file, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    loaded = type(result).load(old_file)
    assert json_bytes(loaded) == json_bytes(result)
    unknown = path.with_name("unknown.humanlike.zip")
    with zipfile.ZipFile(unknown, "w") as z:
        for name, data in members.items():
            z.writestr(name, text.replace(f'"{moved[0][0]}"', '"humanlike.no_such_module:Gone"').encode()
                       if name == "result.json" else data)
    with pytest.raises(ValueError, match="unknown.humanlike.zip: a saved result names the class "
                                         "'humanlike.no_such_module:Gone'"):
        type(result).load(unknown)


def test_every_moved_class_has_a_home():
    import importlib

    from humanlike.measures.saved_results import MOVED_CLASSES

    for old, new in MOVED_CLASSES.items():
        module, _, name = new.partition(":")
        assert isinstance(getattr(importlib.import_module(module), name), type), new
        assert old.rpartition(":")[2] == name, (old, new)


def test_a_file_saved_before_its_fields_were_renamed_still_loads(result, tmp_path_factory):
    import zipfile

    from humanlike.measures.saved_results import RENAMED_FIELDS

    path = tmp_path_factory.mktemp("saved") / "result.humanlike.zip"
    result.save(path)
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    text = members["result.json"].decode()
    renamed = RENAMED_FIELDS.get(f"{type(result).__module__}:{type(result).__qualname__}")
    if not renamed:
        pytest.skip(f"no field of a {type(result).__name__} was renamed")
    for old, new in renamed.items():  # the file as the version before the rename wrote it
        assert f'"{new}":' in text
        text = text.replace(f'"{new}":', f'"{old}":', 1)
    members["result.json"] = text.encode()
    old_file = path.with_name("old.humanlike.zip")
    with zipfile.ZipFile(old_file, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    assert json_bytes(type(result).load(old_file)) == json_bytes(result)


def test_a_result_prints_as_a_short_summary_and_a_notebook_table(measure, result):
    text = result.summary()
    shown = repr(result)
    assert shown.startswith(f"<{type(result).__name__}> ") and len(shown) <= 2000, shown[:300]
    assert str(result) == text
    assert shown[len(type(result).__name__) + 3:][:200] == text[:200]   # the summary, cut only at its end
    assert "array(" not in shown and "DataFrame" not in shown
    page = result._repr_html_()
    assert page.startswith("<table>") and "<td>" in page and len(page) < 20_000
    # the numbers with their intervals: the notebook table shows the headline rows; the text (the measure's
    # own where its command prints one) shows estimates of the result's rows
    first = result.headline().dropna(subset=["estimate", "ci_low"]).iloc[0]
    assert f"{first['estimate']:.3f} [{first['ci_low']:.3f}, {first['ci_high']:.3f}]" in page
    shown_numbers = {f"{v:.3f}" for v in result.to_frame()["estimate"].dropna()}
    assert any(number in text for number in shown_numbers)


def test_load_refuses_a_file_that_is_not_a_result(tmp_path):
    path = tmp_path / "not-a-result.zip"
    path.write_bytes(b"plain text")
    with pytest.raises(ValueError, match="not a saved humanlike result"):
        MeasureResult.load(path)


def test_report_section_builds(measure, example, result):
    if measure.report_section is None:
        pytest.skip(f"{measure.name} has no report section")
    import matplotlib.pyplot as plt

    shown = result
    if measure.report_run is not None:
        try:
            shown = measure.run_for_report(example.data, settings=replace(SETTINGS, n_resamples=20))
        except ValueError:   # the report's defaults do not fit the simulated data (OOD: its reference conditions)
            shown = result
    try:
        made = measure.section(shown)
    finally:
        plt.close("all")
    assert made.section.title and (made.section.tables or made.section.figures)
