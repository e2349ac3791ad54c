"""Permutation tests on pairwise distances and Benjamini-Hochberg."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from humanlike.stats.multiple import benjamini_hochberg
from humanlike.stats.permutation import grouping_contrast_cohens_d, within_vs_between_groups

# ----------------------------------------------------------------------------------------------- BH


@pytest.mark.parametrize("seed", range(5))
def test_bh_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 1, 30), rng.uniform(0, 0.01, 10), [0.02, 0.02, 0.02, 1.0, 0.0]])
    rng.shuffle(p)
    res = benjamini_hochberg(p, alpha=0.1)
    reject, adjusted, _, _ = multipletests(p, alpha=0.1, method="fdr_bh")
    np.testing.assert_allclose(res.adjusted, adjusted, rtol=1e-12)
    np.testing.assert_array_equal(res.reject, reject)
    assert res.n_tests == p.size
    order = np.argsort(p)
    assert np.all(np.diff(res.adjusted[order]) >= 0)  # monotone in the raw p-values
    assert np.all(res.adjusted <= 1.0) and np.all(res.adjusted >= p)


def test_bh_hand_case_and_nan_preserving():
    p = np.array([[0.01, np.nan], [0.04, 0.03]])
    res = benjamini_hochberg(p)
    # m = 3 finite: sorted 0.01, 0.03, 0.04 -> 0.03, 0.045, 0.04 -> step-up min: 0.03, 0.04, 0.04
    np.testing.assert_allclose(res.adjusted, [[0.03, np.nan], [0.04, 0.04]])
    np.testing.assert_array_equal(res.reject, [[True, False], [True, True]])
    assert res.n_tests == 3 and res.adjusted.shape == (2, 2)
    frame = res.to_frame()
    assert list(frame["reason"] != "") == [False, True, False, False]
    assert np.all(benjamini_hochberg([0.9, 0.95]).adjusted == 0.95)  # capped and monotone
    assert benjamini_hochberg([]).n_tests == 0
    with pytest.raises(ValueError):
        benjamini_hochberg([0.5, 1.2])
    with pytest.raises(ValueError):
        benjamini_hochberg([0.5], alpha=0)


# --------------------------------------------------------------------------------- within vs between


def _planted_profiles(rng, n_per=8, shift=2.0):
    groups = np.repeat([0, 1, 2], n_per)
    centres = np.eye(3)[groups] * shift
    return centres + rng.normal(0, 0.5, (groups.size, 3)), groups


def test_within_vs_between_hand_statistic():
    d = np.array(
        [
            [0.0, 1.0, 4.0, 5.0],
            [1.0, 0.0, 6.0, 3.0],
            [4.0, 6.0, 0.0, 2.0],
            [5.0, 3.0, 2.0, 0.0],
        ]
    )
    r = within_vs_between_groups(d, ["a", "a", "b", "b"], metric="precomputed", n_permutations=3000, seed=0)
    # within pairs: (0,1)=1, (2,3)=2 -> 1.5; between: 4, 5, 6, 3 -> 4.5
    assert r.statistic == pytest.approx(3.0)
    # 3 equally likely splits into two pairs, statistics 3, 0, -3: the exact p-value is 1/3
    assert r.p_value == pytest.approx(1 / 3, abs=0.03)
    assert r.p_value * 3001 == pytest.approx(round(r.p_value * 3001))
    assert r.null_mean == pytest.approx(0.0, abs=0.15)


def test_within_vs_between_planted_structure_small_p():
    rng = np.random.default_rng(0)
    x, g = _planted_profiles(rng)
    r = within_vs_between_groups(x, g, n_permutations=999, seed=1)
    assert r.statistic > 0
    assert r.p_value == pytest.approx(1 / 1000)  # +1 corrected: never 0
    assert r.null_q025 < 0 < r.null_q975 and abs(r.null_mean) < 0.05
    assert r.reason == "" and r.to_frame().shape[0] == 1
    # the profiles path equals the precomputed path with the same seed
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    r2 = within_vs_between_groups(d, g, metric="precomputed", n_permutations=999, seed=1)
    assert r2.statistic == pytest.approx(r.statistic) and r2.p_value == r.p_value
    # reproducible, and 'less' sees no evidence
    assert within_vs_between_groups(x, g, n_permutations=999, seed=1).null_sd == r.null_sd
    assert within_vs_between_groups(x, g, n_permutations=999, seed=1, alternative="less").p_value > 0.99


def test_within_vs_between_null_is_roughly_uniform():
    rng = np.random.default_rng(42)
    ps = []
    for _ in range(300):
        x = rng.normal(size=(12, 4))
        g = rng.permutation(np.repeat([0, 1, 2], 4))
        ps.append(within_vs_between_groups(x, g, n_permutations=199, seed=rng).p_value)
    ps = np.array(ps)
    assert np.all((ps > 0) & (ps <= 1))
    assert np.allclose(ps * 200, np.round(ps * 200))  # (1 + hits) / (1 + n_perm)
    assert 0.42 < ps.mean() < 0.58
    assert 0.01 <= np.mean(ps <= 0.05) <= 0.10


def test_within_vs_between_two_sided_and_undefined():
    rng = np.random.default_rng(3)
    x, g = _planted_profiles(rng)
    two = within_vs_between_groups(x, g, n_permutations=199, seed=0, alternative="two-sided")
    assert two.p_value == pytest.approx(1 / 200)
    one_group = within_vs_between_groups(x, np.zeros(len(g)), n_permutations=9, seed=0)
    assert np.isnan(one_group.p_value) and "single group" in one_group.reason
    singletons = within_vs_between_groups(x, np.arange(len(g)), n_permutations=9, seed=0)
    assert np.isnan(singletons.statistic) and "one item" in singletons.reason
    with pytest.raises(ValueError):
        within_vs_between_groups(x, g[:-1])
    with pytest.raises(ValueError):
        within_vs_between_groups(x, g, alternative="bigger")
    with pytest.raises(ValueError):
        within_vs_between_groups(np.triu(np.ones((4, 4))), [0, 0, 1, 1], metric="precomputed")


# ----------------------------------------------------------------------------------- Cohen's d contrast


def _pair_sets(d, a, b):
    iu, ju = np.triu_indices(len(a), 1)
    return d[iu, ju][a[iu] == a[ju]], d[iu, ju][b[iu] == b[ju]]


def test_cohens_d_hand_value():
    rng = np.random.default_rng(5)
    pts = rng.normal(size=(10, 2))
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    a = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])
    b = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
    wa, wb = _pair_sets(d, a, b)
    pooled = np.sqrt(((wa.size - 1) * wa.var(ddof=1) + (wb.size - 1) * wb.var(ddof=1)) / (wa.size + wb.size - 2))
    want = (wb.mean() - wa.mean()) / pooled
    r = grouping_contrast_cohens_d(d, a, b, n_permutations=99, seed=0)
    assert r.observed == pytest.approx(want)
    raw = grouping_contrast_cohens_d(d, a, b, n_permutations=99, seed=0, statistic="d")
    assert raw.statistic == pytest.approx(want) and r.statistic == pytest.approx(want - raw.null_mean)
    assert 0 < r.p_value <= 1 and r.p_value * 100 == pytest.approx(round(r.p_value * 100))


def test_cohens_d_planted_regime_structure():
    """Items (conditions) sit near a regime centre; distortion type (B) is unrelated to the distances."""
    rng = np.random.default_rng(7)
    regime = np.repeat([0, 1, 2, 3], 6)
    dtype = np.tile(np.arange(6), 4)
    pts = np.eye(4)[regime] * 3 + rng.normal(0, 0.4, (24, 4))
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    r = grouping_contrast_cohens_d(d, regime, dtype, n_permutations=999, seed=3)
    assert r.statistic > 2
    assert r.p_value == pytest.approx(1 / 1000)
    # the reverse question (is distortion type tighter than regime?) is clearly not supported
    rev = grouping_contrast_cohens_d(d, dtype, regime, n_permutations=999, seed=3)
    # d itself is strongly negative, but no more than random groupings of the same sizes give: the excess
    # over the null is near 0 and agrees with the p-value
    assert rev.observed < -2 and rev.p_value > 0.5 and rev.statistic < 2 * rev.null_sd
    again = grouping_contrast_cohens_d(d, regime, dtype, n_permutations=999, seed=3)
    assert again.null_mean == r.null_mean


def test_cohens_d_null_is_roughly_uniform():
    rng = np.random.default_rng(11)
    ps = []
    for _ in range(300):
        pts = rng.normal(size=(12, 3))
        d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
        a = rng.permutation(np.repeat([0, 1, 2], 4))
        b = rng.permutation(np.repeat([0, 1, 2, 3], 3))
        ps.append(grouping_contrast_cohens_d(d, a, b, n_permutations=199, seed=rng).p_value)
    ps = np.array(ps)
    assert np.all((ps > 0) & (ps <= 1))
    assert 0.40 < ps.mean() < 0.60
    assert 0.01 <= np.mean(ps <= 0.05) <= 0.10


def test_cohens_d_undefined_cases():
    d = np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]], dtype=float)
    r = grouping_contrast_cohens_d(d, [0, 0, 1], [0, 1, 2], n_permutations=9, seed=0)
    assert np.isnan(r.statistic) and "no within-group pair" in r.reason
    r = grouping_contrast_cohens_d(d, [0, 0, 1], [0, 0, 1], n_permutations=9, seed=0)
    assert np.isnan(r.statistic) and "pooled SD" in r.reason
    flat = np.ones((4, 4)) - np.eye(4)
    r = grouping_contrast_cohens_d(flat, [0, 0, 1, 1], [0, 1, 0, 1], n_permutations=9, seed=0)
    assert np.isnan(r.p_value) and "SD of the pair distances is 0" in r.reason
