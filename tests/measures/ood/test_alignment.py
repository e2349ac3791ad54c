"""Misclassification agreement (MA) and class-level error divergence (CLED): hand cases and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy

from humanlike.measures.ood.alignment_divergence import (
    REASON_NO_ERRORS,
    class_level_error_divergence,
    class_level_error_divergence_batch,
    cled_similarity,
)
from humanlike.measures.ood.alignment_metric import (
    REASON_DEGENERATE_MA,
    REASON_NO_JOINT_ERRORS,
    confusion_counts,
    encode_classes,
    error_agreement_matrix,
    misclassification_agreement,
    misclassification_agreement_batch,
    misclassification_agreement_reason,
)

# ------------------------------------------------------------------------------------------ tables


def test_error_agreement_matrix_hand_case():
    labels = [0, 0, 1, 1, 2, 2, 0]
    r1 = [1, 0, 2, 0, 0, 1, 2]
    r2 = [2, 1, 2, 1, 1, 2, 2]
    m = error_agreement_matrix(labels, r1, r2, 3)
    expected = np.zeros((3, 3), dtype=int)
    expected[1, 2] = 1  # item 0
    expected[2, 2] = 2  # items 2 and 6
    expected[0, 1] = 1  # item 4
    np.testing.assert_array_equal(m, expected)
    # classes may be given as a sequence too
    np.testing.assert_array_equal(error_agreement_matrix(labels, r1, r2, ["a", "b", "c"]), expected)


def test_confusion_counts_hand_case():
    c = confusion_counts([0, 0, 1, 2, 2, 2], [0, 1, 1, 0, 2, 2], 3)
    np.testing.assert_array_equal(c, [[1, 1, 0], [0, 1, 0], [1, 0, 2]])
    assert c.sum() == 6


def test_codes_are_validated():
    with pytest.raises(ValueError, match="outside 0..2"):
        confusion_counts([0, 1, 3], [0, 1, 2], 3)
    with pytest.raises(ValueError, match="encode_classes"):
        confusion_counts(["a", "b"], ["a", "b"], 2)
    with pytest.raises(ValueError, match="differ in length"):
        error_agreement_matrix([0, 1], [0, 1], [0], 2)
    with pytest.raises(ValueError, match="at least 2 classes"):
        confusion_counts([0], [0], 1)


def test_encode_classes():
    codes, classes = encode_classes(["cat", "dog", "cat", "bird"])
    assert classes == ("bird", "cat", "dog")
    np.testing.assert_array_equal(codes, [1, 2, 1, 0])
    codes, classes = encode_classes(["dog", "cat"], classes=["cat", "dog"])
    np.testing.assert_array_equal(codes, [1, 0])
    with pytest.raises(ValueError, match="'na'"):
        encode_classes(["na"], classes=["cat", "dog"])


# ---------------------------------------------------------------------------------------------- MA


def test_ma_hand_case_3x3():
    m = np.array([[0, 3, 1], [2, 0, 0], [1, 1, 4]])
    r = misclassification_agreement(m)
    # N = 12, trace 4; rows (4, 2, 6), cols (3, 4, 5): p_e = 50/144
    assert r.n_joint_errors == 12
    assert r.p_observed == pytest.approx(1 / 3)
    assert r.p_expected == pytest.approx(50 / 144)
    assert r.value == pytest.approx(-2 / 94)
    assert r.reason == ""


def test_ma_hand_case_2x2():
    r = misclassification_agreement([[5, 1], [1, 3]])
    # p_o = 0.8, p_e = 0.6^2 + 0.4^2 = 0.52
    assert r.value == pytest.approx(0.28 / 0.48)


def test_ma_no_joint_errors_is_nan_with_reason():
    r = misclassification_agreement(np.zeros((4, 4)))
    assert np.isnan(r.value)
    assert r.reason == REASON_NO_JOINT_ERRORS
    assert r.n_joint_errors == 0
    one = misclassification_agreement(np.zeros((4, 4)), undefined="one")
    assert one.value == 1.0
    assert one.reason.startswith(REASON_NO_JOINT_ERRORS) and "set to 1" in one.reason


def test_ma_degenerate_table():
    m = [[0, 0, 0], [0, 7, 0], [0, 0, 0]]  # every joint error: both said class 1
    r = misclassification_agreement(m)
    assert np.isnan(r.value) and r.reason == REASON_DEGENERATE_MA
    assert r.p_expected == pytest.approx(1.0)
    assert misclassification_agreement(m, undefined="one").value == 1.0
    # one constant observer vs the other constant on a *different* class: p_o = p_e = 0 -> MA = 0
    assert misclassification_agreement([[0, 5], [0, 0]]).value == 0.0


def test_ma_identical_observers_give_one():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 5, 300)
    resp = np.where(rng.random(300) < 0.4, rng.integers(0, 5, 300), labels)
    m = error_agreement_matrix(labels, resp, resp, 5)
    assert np.count_nonzero(m - np.diag(np.diag(m))) == 0
    assert misclassification_agreement(m).value == pytest.approx(1.0)


def test_ma_batch_matches_scalar_and_reasons():
    rng = np.random.default_rng(0)
    stack = rng.integers(0, 4, size=(5, 7, 3, 3))
    stack[0, 0] = 0
    stack[1, 2] = np.diag([0, 9, 0])
    batch = misclassification_agreement_batch(stack)
    assert batch.shape == (5, 7)
    for idx in np.ndindex(5, 7):
        np.testing.assert_equal(batch[idx], misclassification_agreement(stack[idx]).value)
    reasons = misclassification_agreement_reason(stack)
    assert reasons[0, 0] == REASON_NO_JOINT_ERRORS and reasons[1, 2] == REASON_DEGENERATE_MA
    assert np.sum(reasons != "") == 2
    one = misclassification_agreement_batch(stack, undefined="one")
    assert one[0, 0] == 1.0 and one[1, 2] == 1.0
    with pytest.raises(ValueError):
        misclassification_agreement_batch(stack, undefined="zero")


def test_ma_to_frame():
    f = misclassification_agreement([[5, 1], [1, 3]]).to_frame()
    assert list(f["n_joint_errors"]) == [10] and f.loc[0, "reason"] == ""


count_matrices = st.integers(2, 5).flatmap(
    lambda k: arrays(np.int64, (k, k), elements=st.integers(0, 15))
)


@settings(max_examples=150, deadline=None)
@given(count_matrices)
def test_ma_symmetric_and_bounded(m):
    r = misclassification_agreement(m)
    rt = misclassification_agreement(m.T)
    if np.isnan(r.value):
        assert np.isnan(rt.value) and r.reason and r.reason == rt.reason
    else:
        assert r.value == pytest.approx(rt.value, abs=1e-12)
        assert -1.0 - 1e-12 <= r.value <= 1.0 + 1e-12
        assert r.reason == ""


# -------------------------------------------------------------------------------------------- CLED


def _conf(rows):
    return np.asarray(rows, dtype=float)


def test_cled_hand_case_single_class_with_errors():
    # Class 0: observer 1 errs (2, 0) on classes (1, 2), observer 2 errs (0, 2). Other classes: no errors.
    c1 = _conf([[5, 2, 0], [0, 7, 0], [0, 0, 7]])
    c2 = _conf([[5, 0, 2], [0, 7, 0], [0, 0, 7]])
    r = class_level_error_divergence(c1, c2)
    p = np.array([2.5, 0.5]) / 3  # (c + 0.5) / (2 + 2 * 0.5)
    q = p[::-1]
    expected = 5 / 6 * np.log2(5 / 3) + 1 / 6 * np.log2(1 / 3)  # KL(P || 1/2,1/2) = JSD here
    assert r.value == pytest.approx(expected)
    assert r.value == pytest.approx(jensenshannon(p, q, base=2) ** 2)
    np.testing.assert_allclose(r.weights, [1, 0, 0])
    assert np.isnan(r.per_class[1]) and np.isnan(r.per_class[2])  # classes without errors
    np.testing.assert_array_equal(r.n_errors_1, [2, 0, 0])
    assert r.similarity == pytest.approx(1 / (1 + expected))
    assert r.reason == ""


def test_cled_weights_and_one_sided_class():
    # class 0: both err; class 1: only observer 1 errs (3 errors); class 2: nobody errs.
    c1 = _conf([[6, 1, 1], [3, 5, 0], [0, 0, 8]])
    c2 = _conf([[6, 2, 0], [0, 8, 0], [0, 0, 8]])
    r = class_level_error_divergence(c1, c2)
    np.testing.assert_allclose(r.weights, np.array([4, 3, 0]) / 7)
    post = lambda c: (np.asarray(c) + 0.5) / (np.sum(c) + 1.0)  # noqa: E731
    jsd0 = jensenshannon(post([1, 1]), post([2, 0]), base=2) ** 2
    jsd1 = jensenshannon(post([3, 0]), post([0, 0]), base=2) ** 2  # vs the uniform prior
    np.testing.assert_allclose(r.per_class[:2], [jsd0, jsd1])
    assert r.value == pytest.approx((4 * jsd0 + 3 * jsd1) / 7)
    u = class_level_error_divergence(c1, c2, weighting="uniform")
    assert u.value == pytest.approx((jsd0 + jsd1) / 2)


def test_cled_no_errors_is_nan_with_reason():
    c = np.diag([4.0, 5.0, 6.0])
    r = class_level_error_divergence(c, c)
    assert np.isnan(r.value) and r.reason == REASON_NO_ERRORS
    assert np.isnan(r.similarity)
    assert np.isnan(class_level_error_divergence_batch(c, c))


def test_cled_identical_systems_zero():
    rng = np.random.default_rng(5)
    c = rng.integers(0, 20, (6, 6))
    r = class_level_error_divergence(c, c)
    assert r.value == pytest.approx(0.0, abs=1e-12)
    assert r.similarity == pytest.approx(1.0)
    # The published (pooled-mixture) variant is *not* 0 for identical observers: the pooled posterior
    # (2c + a) / (2n + (K-1) a) shrinks less towards uniform than each observer's (c + a) / (n + (K-1) a).
    pub = class_level_error_divergence(c, c, mixture="pooled")
    assert 0 < pub.value < 0.05


def test_cled_two_classes_is_zero():
    assert class_level_error_divergence([[3, 2], [1, 4]], [[5, 0], [4, 1]]).value == pytest.approx(0.0)


def test_cled_published_variant_differs_as_expected():
    c1 = _conf([[1, 4, 0], [0, 5, 0], [0, 0, 5]])
    c2 = _conf([[4, 0, 1], [0, 5, 0], [0, 0, 5]])
    p = np.array([4.5, 0.5]) / 5
    q = np.array([0.5, 1.5]) / 2
    pooled_mix = np.array([4.5, 1.5]) / 6
    avg = class_level_error_divergence(c1, c2)
    pub = class_level_error_divergence(c1, c2, mixture="pooled")
    assert avg.log_base == 2 and pub.log_base == pytest.approx(np.e)
    assert avg.value == pytest.approx(jensenshannon(p, q, base=2) ** 2)
    assert pub.value == pytest.approx(0.5 * entropy(p, pooled_mix) + 0.5 * entropy(q, pooled_mix))
    # same base: the (P+Q)/2 mixture minimises 1/2 KL(P||M) + 1/2 KL(Q||M), so the pooled variant is larger
    pub2 = class_level_error_divergence(c1, c2, mixture="pooled", log_base=2)
    assert pub2.value > avg.value
    assert pub.value == pytest.approx(pub2.value * np.log(2))


def test_cled_batch_matches_scalar_and_broadcasts():
    rng = np.random.default_rng(1)
    s1 = rng.integers(0, 6, (8, 4, 4))
    s2 = rng.integers(0, 6, (8, 4, 4))
    batch = class_level_error_divergence_batch(s1, s2)
    want = [class_level_error_divergence(a, b).value for a, b in zip(s1, s2)]
    np.testing.assert_allclose(batch, want)
    against_one = class_level_error_divergence_batch(s1, s2[0])
    np.testing.assert_allclose(against_one, [class_level_error_divergence(a, s2[0]).value for a in s1])
    with pytest.raises(ValueError, match="different numbers of classes"):
        class_level_error_divergence_batch(s1, np.ones((3, 3)))


def test_cled_to_frame_and_validation():
    c1 = _conf([[5, 2, 0], [0, 7, 0], [0, 0, 7]])
    f = class_level_error_divergence(c1, c1.T).to_frame()
    assert list(f["class"]) == [0, 1, 2] and f["weight"].sum() == pytest.approx(1.0)
    with pytest.raises(ValueError):
        class_level_error_divergence(c1, c1, alpha=0)
    with pytest.raises(ValueError):
        class_level_error_divergence(c1, c1, mixture="geometric")
    with pytest.raises(ValueError):
        class_level_error_divergence(c1, -c1)


def test_cled_similarity():
    np.testing.assert_allclose(cled_similarity([0.0, 1.0, 3.0]), [1.0, 0.5, 0.25])
    assert np.isnan(cled_similarity(np.nan))


pairs_of_tables = st.integers(2, 5).flatmap(
    lambda k: st.tuples(
        arrays(np.int64, (k, k), elements=st.integers(0, 30)),
        arrays(np.int64, (k, k), elements=st.integers(0, 30)),
    )
)


@settings(max_examples=150, deadline=None)
@given(pairs_of_tables, st.sampled_from([0.01, 0.5, 1.0]))
def test_cled_symmetric_and_bounded(tables, alpha):
    c1, c2 = tables
    r = class_level_error_divergence(c1, c2, alpha=alpha)
    rs = class_level_error_divergence(c2, c1, alpha=alpha)
    pooled = class_level_error_divergence(c1, c2, alpha=alpha, mixture="pooled", log_base=2)
    if np.isnan(r.value):
        assert r.reason == REASON_NO_ERRORS and np.isnan(rs.value) and np.isnan(pooled.value)
        return
    assert r.value == pytest.approx(rs.value, abs=1e-12)
    assert -1e-12 <= r.value <= 1.0 + 1e-12
    assert np.nanmax(r.per_class) <= 1.0 + 1e-12
    assert r.weights.sum() == pytest.approx(1.0)
    assert pooled.value >= r.value - 1e-12
    assert pooled.value == pytest.approx(
        class_level_error_divergence(c2, c1, alpha=alpha, mixture="pooled", log_base=2).value, abs=1e-12
    )
