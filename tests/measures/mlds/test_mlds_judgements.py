"""The difference-judgement table: validation, the R and Python-wrapper layouts, reordering."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humanlike.trials.judgement_files import load_judgements, read_judgement_file
from humanlike.trials.judgements import (JudgementTableError, level_arrays, stimulus_values, to_physical_order,
                                       validate_judgements)


def _table(**over):
    base = {"observer": "o", "scale": "s", "s1": [1, 2], "s2": [2, 3], "s3": [3, 4], "s4": [4, 5],
            "response": [1, 0]}
    base.update(over)
    return pd.DataFrame(base)


def test_quad_swap_and_flip_as_swaporder():
    t = pd.DataFrame({"s1": [6, 1], "s2": [9, 2], "s3": [1, 3], "s4": [4, 4], "response": [0, 1],
                      "v1": [.6, .1], "v2": [.9, .2], "v3": [.1, .3], "v4": [.4, .4]})
    out = to_physical_order(t)
    assert out[["s1", "s2", "s3", "s4"]].values.tolist() == [[1, 4, 6, 9], [1, 2, 3, 4]]
    assert out["response"].tolist() == [1, 1]
    assert out[["v1", "v2", "v3", "v4"]].values.tolist()[0] == [.1, .4, .6, .9]
    assert out["reversed"].tolist() == [True, False]


def test_triad_reverse_and_flip():
    t = pd.DataFrame({"s1": [8, 2], "s2": [7, 5], "s3": [2, 10], "response": [1, 1]})
    out = to_physical_order(t)
    assert out[["s1", "s2", "s3"]].values.tolist() == [[2, 7, 8], [2, 5, 10]]
    assert out["response"].tolist() == [0, 1]
    assert out["s4"].isna().all()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.permutations([1, 2, 3, 4, 5, 6]), st.integers(0, 1)), min_size=1, max_size=20))
def test_reordering_is_idempotent_and_keeps_the_signed_decision(rows):
    """Reordering an ordered table changes nothing, and the model's decision variable times (2r - 1) is invariant."""
    psi = np.array([0, .1, .3, .35, .7, 1.0])
    quads = [(sorted(p[:2]), sorted(p[2:4]), r) for p, r in rows]
    t = pd.DataFrame({"s1": [a[0] for a, _, _ in quads], "s2": [a[1] for a, _, _ in quads],
                      "s3": [b[0] for _, b, _ in quads], "s4": [b[1] for _, b, _ in quads],
                      "response": [r for _, _, r in quads]})
    out = to_physical_order(t)
    assert (out["s1"] <= out["s4"]).all()

    def signed(frame):
        s = frame[["s1", "s2", "s3", "s4"]].to_numpy(int) - 1
        delta = psi[s[:, 0]] - psi[s[:, 1]] - psi[s[:, 2]] + psi[s[:, 3]]
        return delta * (2 * frame["response"].to_numpy(float) - 1)

    np.testing.assert_allclose(signed(out), signed(t), atol=1e-12)
    again = to_physical_order(out.drop(columns="reversed"))
    assert again[["s1", "s2", "s3", "s4", "response"]].astype(int).equals(out[["s1", "s2", "s3", "s4", "response"]].astype(int))


@pytest.mark.parametrize("change, message", [
    ({"response": [2, 1]}, "response"),
    ({"s1": [0, 2]}, "below 1"),
    ({"s1": [1.5, 2]}, "non-integer"),
    ({"s1": [3, 2], "s2": [2, 3]}, "physical order"),
])
def test_validation_names_column_and_row(change, message):
    with pytest.raises(JudgementTableError, match=message) as err:
        validate_judgements(_table(**change), source="f.csv")
    assert "f.csv" in str(err.value) and "row 1" in str(err.value)


def test_missing_column_and_mixed_designs():
    with pytest.raises(JudgementTableError, match="missing column"):
        validate_judgements(_table().drop(columns="response"))
    mixed = _table(s4=pd.array([4, pd.NA], dtype="Int64"))
    with pytest.raises(JudgementTableError, match="mixes triads and quadruples"):
        validate_judgements(mixed)


def test_r_layout_with_observer_column_and_sidecar(tmp_path):
    (tmp_path / "x.csv").write_text("resp,S1,S2,S3,S4,Obs\n0,3,4,1,2,A\n1,1,2,3,4,B\n")
    (tmp_path / "stimulus_levels.json").write_text('{"x": {"stimulus": [10, 20, 30, 40]}}')
    t = read_judgement_file(tmp_path / "x.csv")
    assert t["observer"].tolist() == ["A", "B"]
    assert t[["s1", "s2", "s3", "s4", "response"]].astype(int).values.tolist() == [[1, 2, 3, 4, 1], [1, 2, 3, 4, 1]]
    np.testing.assert_array_equal(stimulus_values(t, 4), [10, 20, 30, 40])


def test_wrapper_layout_and_invord_check(tmp_path):
    text = "Trial,Response,s1,s2,s3,invord,i1,i2,i3\n0,0,0.4,0.1,0.0,1,5,2,1\n1,1,0.1,0.2,0.8,0,2,3,9\n"
    (tmp_path / "w.csv").write_text(text)
    t = read_judgement_file(tmp_path / "w.csv")
    assert t[["s1", "s2", "s3", "response"]].astype(int).values.tolist() == [[1, 2, 5, 1], [2, 3, 9, 1]]
    assert t["v1"].tolist() == [0.0, 0.1] and t["trial"].tolist() == [0, 1]
    (tmp_path / "bad.csv").write_text(text.replace(",1,5,2,1", ",0,5,2,1"))
    with pytest.raises(JudgementTableError, match="invord"):
        read_judgement_file(tmp_path / "bad.csv")


def test_unknown_layout_and_missing_file(tmp_path):
    (tmp_path / "u.csv").write_text("a,b\n1,2\n")
    with pytest.raises(JudgementTableError, match="unknown judgement layout"):
        load_judgements(tmp_path / "u.csv")
    with pytest.raises(FileNotFoundError):
        load_judgements(tmp_path / "none.csv")


def test_level_arrays_marks_triads():
    t = validate_judgements(pd.DataFrame({"observer": "o", "scale": "s", "s1": [1], "s2": [2], "s3": [3],
                                          "response": [1]}))
    levels, y = level_arrays(t)
    assert levels.tolist() == [[1, 2, 3, 0]] and y.tolist() == [1]


@pytest.mark.realdata
def test_real_files_reordered_as_documented(shared_data):
    root = shared_data / "mlds"
    kk1 = load_judgements(root / "kk1.csv")
    raw = pd.read_csv(root / "kk1.csv")
    assert int(kk1["reversed"].sum()) == int((raw["S1"] > raw["S4"]).sum()) == 156
    assert (kk1["s1"] < kk1["s2"]).all() and (kk1["s2"] < kk1["s3"]).all()
    autumn = load_judgements(root / "AutumnLab.csv")
    assert not autumn["reversed"].any()  # stored in physical order: nothing to swap
    pooled = load_judgements([root / f"kk{i}.csv" for i in (1, 2, 3)])
    assert len(pooled) == 990 and pooled["scale"].nunique() == 1 and pooled["session"].nunique() == 3
    triads = load_judgements(root / "triads_11levels.csv")
    assert int(triads["reversed"].sum()) == 355 and triads["s4"].isna().all()
    transparency = load_judgements(root / "Transparency.csv")
    assert sorted(transparency["observer"].unique()) == [f"O{i}" for i in range(1, 7)]
