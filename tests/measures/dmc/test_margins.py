import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special
from scipy.stats import norm

from humanlike.measures.dmc.margins import (
    accuracy_to_dprime,
    aggregate_outputs,
    decision_margin,
    dprime_to_accuracy,
    item_accuracy,
    load_imagenet16_mapping,
    margin_correct,
    margins_from_outputs,
    validate_mapping,
)

R2 = np.sqrt(2.0)


# ---------------------------------------------------------------- model margins


def test_decision_margin_hand_values_including_tie():
    logits = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 1.0], [2.0, 2.0, 0.0], [1.0, 3.0, 0.0]])
    m = decision_margin(logits, [0, 1, 0, 0])
    np.testing.assert_allclose(m, [1 / R2, 4 / R2, 0.0, -2 / R2])
    # The tie (row 3) has margin exactly 0 and is not correct.
    assert m[2] == 0.0
    np.testing.assert_array_equal(margin_correct(m), [True, True, False, False])


def test_decision_margin_rejects_bad_input():
    with pytest.raises(ValueError, match="out of range"):
        decision_margin(np.zeros((2, 3)), [0, 3])
    with pytest.raises(ValueError, match="one entry per row"):
        decision_margin(np.zeros((2, 3)), [0])
    with pytest.raises(ValueError, match="NaN"):
        decision_margin(np.array([[np.nan, 1.0]]), [0])
    with pytest.raises(ValueError, match="two classes"):
        decision_margin(np.zeros((2, 1)), [0, 0])
    with pytest.raises(ValueError, match="integer"):
        decision_margin(np.zeros((1, 3)), [0.5])


SMALL = {"a": [0, 1], "b": [2], "c": [3, 4]}


def test_aggregate_logit_rule_small_mapping():
    x = np.array([[1.0, 3.0, 5.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    scores, cats = aggregate_outputs(x, SMALL, "logit")
    assert cats == ("a", "b", "c")
    np.testing.assert_allclose(scores, [[2.0, 5.0, 1.0], [0.0, 0.0, 0.0]])


def test_aggregate_probability_rule_small_mapping():
    x = np.array([[1.0, 3.0, 5.0, 0.0, 2.0]])
    e = np.exp([1.0, 3.0, 5.0, 0.0, 2.0])
    p = e / e.sum()
    scores, _ = aggregate_outputs(x, SMALL, "probability")
    np.testing.assert_allclose(scores, [[(p[0] + p[1]) / 2, p[2], (p[3] + p[4]) / 2]])


def test_margins_from_outputs_small_mapping_both_rules():
    x = np.array([[1.0, 3.0, 5.0, 0.0, 2.0]])
    res = margins_from_outputs(x, ["a"], SMALL, rule="logit")
    np.testing.assert_allclose(res.margin, [(2.0 - 5.0) / R2])
    assert res.predicted.tolist() == [1] and res.correct.tolist() == [False]
    p = special.softmax(x[0])
    res_p = margins_from_outputs(x, [1], SMALL, rule="probability")
    np.testing.assert_allclose(res_p.margin, [(p[2] - (p[0] + p[1]) / 2) / R2])
    assert res_p.correct.tolist() == [True]
    frame = res.to_frame()
    assert frame.loc[0, "target"] == "a" and frame.loc[0, "predicted"] == "b"


def test_rules_can_disagree_on_the_decision():
    # Category a: one huge and one tiny logit -> mean logit 0 but mean probability ~0.5.
    x = np.array([[10.0, -10.0, 1.0]])
    mapping = {"a": [0, 1], "b": [2]}
    assert margins_from_outputs(x, [0], mapping, rule="logit").predicted[0] == 1
    assert margins_from_outputs(x, [0], mapping, rule="probability").predicted[0] == 0


def test_argmax_tie_goes_to_first_category_and_tie_is_not_correct():
    x = np.array([[2.0, 2.0, 1.0], [1.0, 2.0, 2.0]])
    res = margins_from_outputs(x, [0, 2], rule="logit")
    assert res.predicted.tolist() == [0, 1]
    assert res.tie.tolist() == [True, True]
    np.testing.assert_array_equal(res.margin, [0.0, 0.0])
    assert res.correct.tolist() == [False, False]


def test_identity_mapping_equals_decision_margin():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 7))
    t = rng.integers(0, 7, 20)
    np.testing.assert_allclose(margins_from_outputs(x, t).margin, decision_margin(x, t))


def test_packaged_mapping_shape():
    m = load_imagenet16_mapping()
    assert len(m) == 16
    flat = [i for v in m.values() for i in v]
    assert len(flat) == 207 and len(set(flat)) == 207
    assert all(0 <= i < 1000 for i in flat)
    assert list(m) == sorted(m)
    assert len(m["dog"]) == 109 and len(m["knife"]) == 1
    # A copy: mutating it does not touch the package's mapping.
    m["dog"].clear()
    assert len(load_imagenet16_mapping()["dog"]) == 109


@pytest.mark.parametrize("rule", ["probability", "logit"])
def test_packaged_mapping_aggregation(rule):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 1000)) * 3
    scores, cats = aggregate_outputs(x, "imagenet16", rule)
    assert scores.shape == (5, 16) and len(cats) == 16
    base = special.softmax(x, axis=1) if rule == "probability" else x
    m = load_imagenet16_mapping()
    expected = np.column_stack([base[:, m[c]].mean(axis=1) for c in cats])
    np.testing.assert_allclose(scores, expected)
    res = margins_from_outputs(x, ["dog"] * 5, "imagenet16", rule)
    assert res.margin.shape == (5,)
    np.testing.assert_array_equal(res.predicted, scores.argmax(axis=1))


def test_packaged_mapping_needs_1000_outputs():
    with pytest.raises(ValueError, match="out of range"):
        aggregate_outputs(np.zeros((2, 10)), "imagenet16", "logit")


@pytest.mark.parametrize(
    "mapping, pattern",
    [
        ({"a": [0], "empty": []}, "'empty'"),
        ({"a": [0], "far": [5]}, "'far'.*out of range"),
        ({"a": [0], "neg": [-1]}, "'neg'.*out of range"),
        ({"rep": [1, 1]}, "'rep'.*duplicate index 1"),
        ({"a": [0, 1], "b": [1]}, "'b'.*duplicate index 1.*'a'"),
        ({"a": [0.5]}, "'a'.*not an integer"),
        ({}, "non-empty"),
    ],
)
def test_bad_mappings_raise_naming_category(mapping, pattern):
    with pytest.raises(ValueError, match=pattern):
        validate_mapping(mapping, n_outputs=5)
    if mapping:
        with pytest.raises(ValueError, match=pattern):
            aggregate_outputs(np.zeros((1, 5)), mapping, "logit")


def test_unknown_rule_and_target_name():
    with pytest.raises(ValueError):
        aggregate_outputs(np.zeros((1, 5)), SMALL, "median")
    with pytest.raises(ValueError, match="'zebra'"):
        margins_from_outputs(np.zeros((1, 5)), ["zebra"], SMALL)


# ---------------------------------------------------------------- human side


def test_item_accuracy_pools_responses():
    c = np.array([[1, 2], [0, 1]])
    t = np.array([[1, 2], [1, 3]])
    np.testing.assert_allclose(item_accuracy(c, t), [0.5, 0.6])
    np.testing.assert_allclose(item_accuracy([3, 0], [4, 2]), [0.75, 0.0])


@pytest.mark.parametrize(
    "c, t, pattern",
    [
        ([2], [1], "correct <= trials"),
        ([0, 0], [1, 0], "item 1 has no trials"),
        ([1], [1, 1], "shape"),
        ([-1], [1], "0 <="),
    ],
)
def test_item_accuracy_errors(c, t, pattern):
    with pytest.raises(ValueError, match=pattern):
        item_accuracy(c, t)


def test_dprime_two_afc_matches_closed_form():
    d = np.linspace(-4, 8, 49)
    np.testing.assert_allclose(dprime_to_accuracy(d, 2), norm.cdf(d / R2), atol=1e-12)
    p = np.array([0.55, 0.6, 0.76, 0.9, 0.99, 0.9999])
    np.testing.assert_allclose(accuracy_to_dprime(p, 2), R2 * norm.ppf(p), atol=1e-8)
    assert accuracy_to_dprime(norm.cdf(1 / R2), 2) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("m, d", [(3, 1.0), (4, 1.5), (16, 2.0), (16, -0.5), (100, 3.0)])
def test_dprime_matches_direct_quadrature(m, d):
    q, _ = integrate.quad(lambda z: norm.pdf(z - d) * norm.cdf(z) ** (m - 1), -np.inf, np.inf, epsabs=1e-13)
    assert dprime_to_accuracy(d, m) == pytest.approx(q, abs=1e-10)


@pytest.mark.parametrize("m", [2, 4, 16, 1000])
def test_dprime_round_trip(m):
    d = np.linspace(-2, 7, 37)
    back = accuracy_to_dprime(dprime_to_accuracy(d, m), m, below_chance="negative")
    np.testing.assert_allclose(back, d, atol=1e-6)
    # Vectorised over any shape.
    assert accuracy_to_dprime(dprime_to_accuracy(d.reshape(37, 1), m), m).shape == (37, 1)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 6.0), st.integers(2, 20))
def test_dprime_round_trip_property(d, m):
    assert accuracy_to_dprime(dprime_to_accuracy(d, m), m) == pytest.approx(d, abs=1e-6)


def test_chance_and_below_chance():
    assert accuracy_to_dprime(0.25, 4) == 0.0
    assert dprime_to_accuracy(0.0, 4) == pytest.approx(0.25, abs=1e-12)
    assert accuracy_to_dprime(0.1, 4) == 0.0
    neg = accuracy_to_dprime(0.1, 4, below_chance="negative")
    assert neg < 0 and dprime_to_accuracy(neg, 4) == pytest.approx(0.1, abs=1e-10)


def test_extremes_need_trial_counts_and_are_finite():
    with pytest.raises(ValueError, match="n_trials"):
        accuracy_to_dprime(1.0, 16)
    d = accuracy_to_dprime([1.0, 0.0, 0.5], 16, n_trials=[10, 10, 10])
    assert np.all(np.isfinite(d))
    assert d[0] == pytest.approx(accuracy_to_dprime(1 - 1 / 20, 16), abs=1e-12)
    assert d[1] == 0.0  # 1/(2N) = 0.05 is below chance 1/16 -> clipped to 0
    d0 = accuracy_to_dprime(0.0, 2, n_trials=10, below_chance="negative")
    assert d0 == pytest.approx(R2 * norm.ppf(0.05), abs=1e-8)
    with pytest.raises(ValueError, match="n_trials"):
        accuracy_to_dprime(0.0, 2, below_chance="negative")


def test_dprime_input_validation_and_nan():
    with pytest.raises(ValueError):
        accuracy_to_dprime(1.2, 2)
    with pytest.raises(ValueError):
        accuracy_to_dprime(0.5, 1)
    with pytest.raises(ValueError):
        dprime_to_accuracy(1.0, 2.5)
    out = accuracy_to_dprime([np.nan, 0.9], 2)
    assert np.isnan(out[0]) and np.isfinite(out[1])


def test_dprime_monotone_in_accuracy_and_m():
    p = np.linspace(0.3, 0.999, 50)
    d = accuracy_to_dprime(p, 8)
    assert np.all(np.diff(d) > 0)
    # More alternatives: the same d' gives a lower Pc.
    assert dprime_to_accuracy(1.0, 2) > dprime_to_accuracy(1.0, 4) > dprime_to_accuracy(1.0, 16)
