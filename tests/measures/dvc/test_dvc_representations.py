"""DVC from representations: kernels against hand values and a naive implementation, ground truth by
simulation (planted DVCs, Appendix A.3, the self-comparison trap), the bootstrap's invariances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from humanlike.measures.dvc.representations import dvc_representations
from humanlike.measures.dvc.representations_options import DVCInputError
from humanlike.measures.dvc.aggregation import half_correlations
from humanlike.measures.dvc.split import weighted_midranks
from humanlike.trials.representations import Representation
from humanlike.measures.dvc.simulate import appendix_a3_decisions, planted_representations
from humanlike.measures.dvc.metric import (
    CORRELATION_PAIRS, known_dv_correlation, lda_axes, split_normalised_dvc, weighted_moments,
)
from humanlike.measures.ec.metric import counts_from_correctness, kappa
from humanlike.resampling.settings import ResamplingSettings

NO_BOOT = ResamplingSettings(n_resamples=0)


# --- kernels -----------------------------------------------------------------------------------------

def test_split_normalisation_hand_values():
    r = np.array([0.3, 0.4, 0.5, 0.6, 0.8, 0.5])
    expected = (0.3 * 0.4 * 0.5 * 0.6) ** 0.25 / np.sqrt(0.8 * 0.5)
    assert split_normalised_dvc(r) == pytest.approx(expected)
    assert split_normalised_dvc(r, absolute=True) == pytest.approx(expected)
    flipped = r * np.array([-1, -1, -1, 1, 1, 1])
    assert split_normalised_dvc(flipped) == pytest.approx(-expected)      # sign of the mean cross r
    assert split_normalised_dvc(flipped, absolute=True) == pytest.approx(expected)
    unreliable = r * np.array([1, 1, 1, 1, -1, 1])
    assert np.isnan(split_normalised_dvc(unreliable))
    assert split_normalised_dvc(unreliable, absolute=True) == pytest.approx(expected)
    assert split_normalised_dvc(np.array([0.0, 0.4, 0.5, 0.6, 0.8, 0.5])) == 0.0   # the trap: one zero


def test_weighted_moments_equal_duplicated_rows():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(7, 3))
    w = np.array([[0, 2, 1, 1, 3, 0, 0]], dtype=float)
    n, m, c = weighted_moments(w, y)
    rows = np.repeat(y, w[0].astype(int), axis=0)
    assert n[0] == 7
    np.testing.assert_allclose(m[0], rows.mean(axis=0))
    np.testing.assert_allclose(c[0], np.cov(rows.T, ddof=0), atol=1e-12)


def test_lda_axis_oriented_toward_class_j():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(50, 3))
    b = rng.normal(size=(50, 3)) + np.array([2.0, -1.0, 0.5])
    w = lda_axes(a.mean(0), b.mean(0), np.cov(a.T, ddof=0), np.cov(b.T, ddof=0), 50, 50)
    assert (b @ w).mean() > (a @ w).mean()
    pooled = (np.cov(a.T, ddof=0) + np.cov(b.T, ddof=0)) / 2
    np.testing.assert_allclose(w, np.linalg.solve(pooled, b.mean(0) - a.mean(0)))


def _naive_correlations(scores, labels, p, folds=None, spearman=False):
    """Direct implementation: fit LDA per pair and half, compute DVs, correlate within class."""
    classes = sorted(set(labels))
    out = []
    for i, j in zip(*np.triu_indices(len(classes), 1)):
        ci, cj = classes[i], classes[j]
        dv = np.full((labels.size, 4), np.nan)
        fold_ids = np.zeros(labels.size, int) if folds is None else folds
        for f in np.unique(fold_ids):
            train = (fold_ids != f) if folds is not None else np.ones(labels.size, bool)
            test = fold_ids == f
            for h in range(4):
                x = scores[:, h * p:(h + 1) * p].astype(float)
                xi, xj = x[train & (labels == ci)], x[train & (labels == cj)]
                pooled = (len(xi) * np.cov(xi.T, ddof=0) + len(xj) * np.cov(xj.T, ddof=0)) / (len(xi) + len(xj))
                w = np.linalg.solve(pooled, xj.mean(0) - xi.mean(0))
                mid = (xi.mean(0) + xj.mean(0)) / 2
                dv[test, h] = (x[test] - mid) @ w
        sides = []
        for c in (ci, cj):
            d = dv[labels == c]
            corr = stats.spearmanr(d).statistic if spearman else np.corrcoef(d.T)
            sides.append([corr[h, g] for h, g in CORRELATION_PAIRS])
        out.append(sides)
    return np.array(out)


@pytest.mark.parametrize("cv", [False, True])
@pytest.mark.parametrize("spearman", [False, True])
def test_moment_path_equals_naive_lda(cv, spearman):
    rng = np.random.default_rng(2)
    p, n = 3, 90
    labels = np.repeat(np.array(["x", "y", "z"]), n // 3)
    scores = rng.normal(size=(n, 4 * p)) + (labels == "y")[:, None] * 1.0 + (labels == "z")[:, None] * np.linspace(-1, 1, 4 * p)
    scores[:, p:2 * p] += 0.5 * scores[:, :p]
    folds = (np.arange(n) % 4) if cv else None
    got, classes = half_correlations(scores, labels, n_components=p, folds=folds,
                                     correlation="spearman" if spearman else "pearson")
    np.testing.assert_allclose(got[0], _naive_correlations(scores, labels, p, folds, spearman), atol=1e-5)


def test_bootstrap_weights_equal_duplicated_images():
    rng = np.random.default_rng(3)
    p, n = 2, 60
    labels = np.repeat(np.array(["a", "b"]), n // 2)
    scores = rng.normal(size=(n, 4 * p)) + (labels == "b")[:, None]
    counts = np.zeros(n)
    for c in ("a", "b"):
        idx = np.flatnonzero(labels == c)
        np.add.at(counts, rng.choice(idx, idx.size), 1)
    got, _ = half_correlations(scores, labels, n_components=p, weights=counts[None, :])
    rows = np.repeat(np.arange(n), counts.astype(int))
    np.testing.assert_allclose(got[0], _naive_correlations(scores[rows], labels[rows], p), atol=1e-5)


def test_weighted_midranks_match_ranks_of_resampled_data():
    values = np.array([[[0.3], [0.1], [0.7], [0.5]]])
    w = np.array([[2.0, 1.0, 0.0, 1.0]])
    ranks = weighted_midranks(values, w)[0, :, 0]
    # resampled data: 0.1, 0.3, 0.3, 0.5 -> ranks 1, 2.5, 2.5, 4
    assert ranks[[1, 0, 3]].tolist() == [1.0, 2.5, 4.0]


# --- ground truth by simulation -------------------------------------------------------------------------

@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
@pytest.mark.parametrize("noise", [0.5, 2.0])
def test_planted_dvc_recovered_across_noise(rho, noise):
    fa, fb, labels = planted_representations(rho, n_classes=3, n_per_class=200, n_units=120, unit_noise=noise,
                                             seed=11)
    r = dvc_representations(fa, fb, labels, n_components=8, n_splits=3, kappa_folds=0, settings=NO_BOOT)
    assert r.dvc == pytest.approx(rho, abs=0.08)


def test_signed_is_centred_where_abs_is_biased_at_zero():
    est_signed, est_abs = [], []
    for seed in range(3):
        fa, fb, labels = planted_representations(0.0, n_classes=3, n_per_class=100, n_units=80,
                                                 unit_noise=2.0, seed=seed)
        r = dvc_representations(fa, fb, labels, n_components=6, n_splits=2, kappa_folds=0, settings=NO_BOOT)
        est_signed.append(r.table("overall", "signed")["estimate"].iloc[0])
        est_abs.append(r.table("overall", "abs")["estimate"].iloc[0])
    assert abs(np.mean(est_signed)) < 0.05
    assert np.mean(est_abs) > np.mean(est_signed) + 0.03


def test_negative_planted_dvc_keeps_its_sign():
    fa, fb, labels = planted_representations(-0.6, n_classes=3, n_per_class=200, n_units=120, seed=4)
    r = dvc_representations(fa, fb, labels, n_components=8, n_splits=2, kappa_folds=0, settings=NO_BOOT)
    assert r.dvc == pytest.approx(-0.6, abs=0.08)
    assert r.table("overall", "abs")["estimate"].iloc[0] == pytest.approx(0.6, abs=0.08)


def test_self_comparison_trap():
    """A representation against itself shares its unit noise across the 'two systems': DVC > 1, not 1."""
    fa, fb, labels = planted_representations(1.0, n_classes=3, n_per_class=150, n_units=120, unit_noise=2.0,
                                             seed=5)
    same = dvc_representations(fa, fa, labels, n_components=8, n_splits=3, kappa_folds=0, settings=NO_BOOT)
    fresh = dvc_representations(fa, fb, labels, n_components=8, n_splits=3, kappa_folds=0, settings=NO_BOOT)
    assert same.dvc > 1.1
    assert fresh.dvc == pytest.approx(1.0, abs=0.06)


def test_appendix_a3_kappa_rises_with_shared_bias_dvc_does_not():
    kappas, dvcs = [], []
    for bias in (0.0, 1.5):
        k_runs, d_runs = [], []
        for seed in range(4):
            a, b, labels = appendix_a3_decisions(bias, seed=seed)
            ca, cb = a.argmax(1) == labels, b.argmax(1) == labels
            k_runs.append(kappa(*counts_from_correctness(ca, cb)))
            d_runs.append(known_dv_correlation(a, b, labels)[0])
        kappas.append(np.mean(k_runs))
        dvcs.append(np.mean(d_runs))
    assert kappas[1] > kappas[0] + 0.1
    assert abs(dvcs[0]) < 0.03 and abs(dvcs[1]) < 0.03


# --- the analysis: intervals, kappa, inputs -----------------------------------------------------------------

def test_interval_covers_truth_and_chunking_does_not_change_numbers():
    fa, fb, labels = planted_representations(0.6, n_classes=3, n_per_class=120, n_units=80, seed=6)
    kw = dict(n_components=6, n_splits=3, kappa_folds=0)
    big = dvc_representations(fa, fb, labels, settings=ResamplingSettings(n_resamples=300, seed=2), **kw)
    small = dvc_representations(fa, fb, labels, settings=ResamplingSettings(n_resamples=300, seed=2,
                                                                             memory_budget=2 * 1024**2), **kw)
    # Same resamples whatever the chunking; float32 products may round differently in the 7th digit.
    np.testing.assert_allclose(big.resampled.replicates, small.resampled.replicates, rtol=1e-5)
    row = big.table("overall").iloc[0]
    assert row["ci_low"] < 0.6 < row["ci_high"]
    assert row["ci_high"] - row["ci_low"] < 0.3
    pairs = big.table("pair")
    assert len(pairs) == 3 and (pairs["ci_low"] <= pairs["estimate"]).all()
    assert len(big.table("class")) == 3


def test_rotating_splits_interval_at_least_as_wide_as_exact():
    fa, fb, labels = planted_representations(0.5, n_classes=3, n_per_class=100, n_units=80, seed=7)
    kw = dict(n_components=6, n_splits=3, kappa_folds=0)
    widths = {}
    for mode in ("rotate", "all"):
        r = dvc_representations(fa, fb, labels, split_bootstrap=mode,
                                settings=ResamplingSettings(n_resamples=300, seed=1), **kw)
        row = r.table("overall").iloc[0]
        widths[mode] = row["ci_high"] - row["ci_low"]
    assert widths["rotate"] >= 0.9 * widths["all"]


def test_kappa_and_bound_alongside():
    fa, fb, labels = planted_representations(0.8, n_classes=3, n_per_class=100, n_units=80, separation=0.8,
                                             seed=8)
    r = dvc_representations(fa, fb, labels, n_components=6, n_splits=2,
                            settings=ResamplingSettings(n_resamples=200))
    k = r.kappa.to_frame().set_index("statistic")
    assert k.loc["kappa", "estimate"] <= k.loc["kappa_bound", "estimate"] + 1e-12
    assert 0.3 < k.loc["accuracy_a", "estimate"] < 1
    doc = r.to_json_dict()
    assert set(doc["dvc"]) >= {"estimate", "ci_low", "ci_high", "split_sd"}
    assert "dvc_abs" in doc and "kappa" in doc and len(doc["pairs"]) == 3


def test_representations_are_aligned_by_item():
    fa, fb, labels = planted_representations(0.5, n_classes=2, n_per_class=80, n_units=60, seed=9)
    items = np.array([f"img{k:03d}" for k in range(labels.size)])
    a = Representation(fa, items, labels, name="A")
    perm = np.random.default_rng(0).permutation(labels.size)
    b = Representation(fb[perm], items[perm], labels[perm], name="B")
    direct = dvc_representations(fa, fb, labels, n_components=5, n_splits=2, kappa_folds=0, settings=NO_BOOT)
    aligned = dvc_representations(a, b, n_components=5, n_splits=2, kappa_folds=0, settings=NO_BOOT)
    assert aligned.dvc == pytest.approx(direct.dvc, abs=1e-5)


@pytest.mark.parametrize("change, message", [
    (dict(n_components=50), "fewer than 50 principal components"),
    (dict(labels=np.repeat(["only"], 160)), "at least two classes"),
    (dict(labels=np.repeat(["a", "b"], 40)), "images but there are 80 labels"),
    (dict(cv=1), "at least 2 folds"),
])
def test_clear_errors(change, message):
    fa, fb, labels = planted_representations(0.5, n_classes=2, n_per_class=80, n_units=60, seed=9)
    labels = change.pop("labels", labels)
    with pytest.raises(DVCInputError, match=message):
        dvc_representations(fa, fb, labels, settings=NO_BOOT, **change)
