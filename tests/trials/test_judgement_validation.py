"""One validation of difference-judgement tables for MLDS and the Psychophysical-Score (issue 22): what
MLDS refuses, the Psychophysical-Score refuses too, with an error naming the file, column and rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.mlds.analysis import analyse_mlds
from humanlike.measures.psychscore.analysis import JudgementError, psychophysical_score, skewness_table
from humanlike.trials.judgement_files import load_judgements
from humanlike.trials.judgements import JudgementTableError, design_levels, to_physical_order, validate_judgements
from humanlike.measures.psychscore.simulate import simulate_psychscore_demo
from humanlike.app.cli import main
from humanlike.resampling.settings import ResamplingSettings


@pytest.fixture(scope="module")
def demo():
    return simulate_psychscore_demo(n_classes=4, n_humans=2)       # 6 class pairs, 3 sequences each


def test_the_demo_is_valid(demo):
    result = psychophysical_score(demo, settings=ResamplingSettings(n_resamples=0, seed=0))
    assert len(result.scales[["class_a", "class_b"]].drop_duplicates()) == 6
    assert np.isfinite(result.estimate).all()


def test_missing_class_columns_are_refused_not_split_into_sequences(demo):
    # Before: every sequence became its own unit, 6 class pairs turned into 18 and every score changed.
    with pytest.raises(JudgementError, match=r"lacks columns \['class_a', 'class_b'\].*class_a and class_b"):
        psychophysical_score(demo.drop(columns=["class_a", "class_b"]), settings=ResamplingSettings(n_resamples=0))
    with pytest.raises(JudgementError, match=r"lacks columns \['class_b'\]"):
        psychophysical_score(demo.drop(columns=["class_b"]), settings=ResamplingSettings(n_resamples=0))


def test_missing_class_values_name_the_rows(demo):
    holes = demo.copy()
    holes["class_b"] = holes["class_b"].astype(object)
    holes.loc[[3, 10], "class_b"] = np.nan
    with pytest.raises(JudgementError, match=r"column 'class_b' is missing in 2 row\(s\), e\.g\. row 4 "):
        psychophysical_score(holes, settings=ResamplingSettings(n_resamples=0))
    holes.loc[[3, 10], "class_b"] = "  "
    with pytest.raises(JudgementError, match=r"column 'class_b' is missing in 2 row\(s\)"):
        psychophysical_score(holes, settings=ResamplingSettings(n_resamples=0))


def test_a_level_outside_the_design_is_named_with_its_row(demo):
    # Before: every score NaN with "skewness undefined in some class pair".
    stray = demo.copy()
    stray["s3"] = stray["s3"].astype(int)
    stray.loc[5, "s3"] = 8                                            # a 7-level design
    with pytest.raises(JudgementError, match=r"level\(s\) \[8\] appear in no trial of observer .*"
                                             r"level\(s\) 8 used by only 1 row\(s\), e\.g\. row 6 "):
        psychophysical_score(stray, settings=ResamplingSettings(n_resamples=0))
    with pytest.raises(JudgementError, match=r"level indices must lie in 1\.\.7.*row 6 "):
        psychophysical_score(stray, settings=ResamplingSettings(n_resamples=0), n_levels=7)


def test_descending_tidy_triads_are_refused_by_both(demo):
    # Before: the Psychophysical-Score flipped them silently; MLDS refused them.
    descending = demo.copy()
    descending[["s1", "s3"]] = descending[["s3", "s1"]].to_numpy()
    pattern = r"triads must have s1 < s2 < s3 \(physical order.*to_physical_order"
    with pytest.raises(JudgementError, match=pattern):
        psychophysical_score(descending, settings=ResamplingSettings(n_resamples=0))
    with pytest.raises(JudgementTableError, match=pattern):
        analyse_mlds(descending)
    # Declared as presentation order, they are reordered with the response flipped: the same scores.
    declared = to_physical_order(descending.assign(response=1 - descending["response"]))
    a = psychophysical_score(declared, settings=ResamplingSettings(n_resamples=0, seed=0)).score
    b = psychophysical_score(demo, settings=ResamplingSettings(n_resamples=0, seed=0)).score
    pd.testing.assert_series_equal(a, b)


def test_r_layout_columns_are_presentation_order(demo):
    r_layout = demo.rename(columns={"s1": "S1", "s2": "S2", "s3": "S3", "s4": "S4"})
    r_layout[["S1", "S3"]] = r_layout[["S3", "S1"]].to_numpy()
    r_layout["response"] = 1 - r_layout["response"]
    pd.testing.assert_series_equal(psychophysical_score(r_layout, settings=ResamplingSettings(n_resamples=0, seed=0)).score,
                                   psychophysical_score(demo, settings=ResamplingSettings(n_resamples=0, seed=0)).score)


@pytest.mark.parametrize("change,pattern", [
    (lambda t: t.assign(response=np.where(np.arange(len(t)) == 2, 3, t["response"])),
     r"'response' must be 0 or 1; 1 row\(s\), e\.g\. row 3 "),
    (lambda t: t.assign(s2=np.where(np.arange(len(t)) == 0, 0, t["s2"])), r"'s2' has level indices below 1.*row 1 "),
    (lambda t: t.assign(s1=t["s1"].astype(object).where(np.arange(len(t)) != 1, "x")), r"'s1' is not numeric.*row 2 "),
    (lambda t: t.drop(columns="observer"), r"missing column\(s\) \['observer'\]"),
])
def test_mlds_and_psychscore_give_the_same_error(demo, change, pattern):
    bad = change(demo)
    with pytest.raises(JudgementError, match=pattern):
        psychophysical_score(bad, settings=ResamplingSettings(n_resamples=0))
    with pytest.raises(JudgementTableError, match=pattern):
        analyse_mlds(bad)


def test_validate_and_design_levels_directly():
    table = pd.DataFrame({"observer": "o", "scale": "s", "class_a": ["a", None], "s1": [1, 1], "s2": [2, 2],
                          "s3": [3, 4], "response": [1, 0]})
    assert list(validate_judgements(table.drop(columns="class_a"), n_levels=4)["s3"]) == [3, 4]
    with pytest.raises(JudgementTableError, match=r"run\.csv: column 'class_a' is missing in 1 row\(s\), e\.g\. row 2"):
        validate_judgements(table, required=("class_a",), source="run.csv")
    with pytest.raises(JudgementTableError, match=r"level indices must lie in 1\.\.3.*row 2 "):
        validate_judgements(table, n_levels=3)
    two_scales = validate_judgements(pd.concat([table.drop(columns="class_a"),
                                                table.drop(columns="class_a").assign(scale="t", s3=3)]))
    with pytest.raises(JudgementTableError, match=r"level\(s\) \[4\] appear in no trial of scale 't'"):
        design_levels(two_scales, ("scale",))


def test_the_command_line_names_the_file(tmp_path, demo, capsys):
    path = tmp_path / "judgements.csv"
    demo.drop(columns=["class_a", "class_b"]).to_csv(path, index=False)
    assert main(["psychscore", str(path), "--resamples", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("humanlike psychscore: error: ") and f"{path}: judgement table lacks columns" in err
    assert "Traceback" not in err


@pytest.mark.realdata
def test_skewness_table_still_takes_scales_without_class_pairs(shared_data):
    scales, _ = skewness_table(load_judgements([shared_data / "mlds" / "AutumnLab.csv"]))
    assert len(scales) == 1 and scales["class_a"].iloc[0] == scales["class_b"].iloc[0] == "scale"
