"""The DVC of representations on the resampling engine: exact jackknife rows, BCa and percentile coverage by
simulation (fixed systems, new image samples), PCA per class pair, and numbers independent of the threads."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from humanlike.measures.dvc.aggregation import DVCAggregation
from humanlike.measures.dvc.kernel import class_design
from humanlike.measures.dvc.representations import dvc_representations, representation_kernel
from humanlike.measures.dvc.representations_options import DVCOptions
from humanlike.measures.dvc.simulate import planted_representations
from humanlike.resampling.settings import ResamplingSettings

NO_BOOT = ResamplingSettings(n_resamples=0)


@pytest.mark.parametrize("cv", [None, 3])
@pytest.mark.parametrize("spearman", [False, True])
def test_leave_one_out_rows_equal_weights_without_the_image(cv, spearman):
    fa, fb, labels = planted_representations(0.5, n_classes=3, n_per_class=30, n_units=24, seed=3)
    classes, counts = np.unique(labels, return_counts=True)
    options = DVCOptions(n_components=3, n_splits=2, cv=cv, correlation="spearman" if spearman else "pearson")
    kernel = representation_kernel(fa, fb, classes, counts, options, NO_BOOT)
    aggregation = DVCAggregation(kernel, cv=cv is not None, correlation=options.correlation)
    design = class_design(list(classes), counts)
    point = {s.key: kernel.evaluate(s, np.ones((1, s.n_items))) for s in design}
    stratum = design.strata[1]
    rows = kernel.leave_one_out_rows(stratum, 4, 9)
    weights = np.ones((5, stratum.n_items))
    weights[np.arange(5), np.arange(4, 9)] = 0.0
    direct = kernel.evaluate(stratum, weights)
    np.testing.assert_allclose(rows, direct, rtol=1e-5, atol=1e-3)
    got = aggregation({**point, stratum.key: rows})
    want = aggregation({**point, stratum.key: direct})
    np.testing.assert_allclose(got, want, atol=2e-5)
    assert not np.allclose(got, aggregation(point))           # leaving an image out moves the estimate


def test_bca_and_percentile_cover_the_systems_dvc():
    """Two fixed systems, 30 new image samples: 90% intervals cover the DVC on unlimited images."""
    kw = dict(n_components=4, n_splits=2, kappa_folds=0)
    fa, fb, labels = planted_representations(0.5, n_classes=3, n_per_class=20000, n_units=60, seed=999,
                                             system_seed=7)
    truth = dvc_representations(fa, fb, labels, settings=NO_BOOT, **kw).dvc
    assert truth == pytest.approx(0.5, abs=0.03)
    hits = {"percentile": 0, "bca": 0}
    accelerations_differ = 0
    samples = 30
    for seed in range(samples):
        fa, fb, labels = planted_representations(0.5, n_classes=3, n_per_class=100, n_units=60, seed=seed,
                                                 system_seed=7)
        result = dvc_representations(fa, fb, labels, settings=ResamplingSettings(
            n_resamples=300, seed=0, interval="bca", level=0.9), **kw)
        assert result.resampled.jackknife.n.max() == labels.size       # one row per image
        for method in hits:
            low, high = result.resampled.interval(method=method)
            hits[method] += low[0] <= truth <= high[0]
        accelerations_differ += not np.allclose(result.resampled.interval(method="bca")[0],
                                                result.resampled.interval(method="percentile")[0])
    # 30 samples: binomial SD of a 90% coverage is 0.055; measured 0.93 for both (40 samples, 300 resamples).
    assert 0.75 <= hits["percentile"] / samples <= 1.0
    assert 0.75 <= hits["bca"] / samples <= 1.0
    assert accelerations_differ > 0


def test_bca_through_the_cli_options(tmp_path):
    fa, fb, labels = planted_representations(0.6, n_classes=3, n_per_class=80, n_units=40, seed=2)
    r = dvc_representations(fa, fb, labels, n_components=4, n_splits=2,
                            settings=ResamplingSettings(n_resamples=200, interval="bca"))
    row = r.table("overall").iloc[0]
    assert row["ci_low"] < row["estimate"] < row["ci_high"]
    k = r.kappa.to_frame().set_index("statistic")
    assert k.loc["kappa", "ci_low"] <= k.loc["kappa", "estimate"] <= k.loc["kappa", "ci_high"]


def test_pca_per_class_pair_recovers_planted_dvc():
    fa, fb, labels = planted_representations(0.6, n_classes=3, n_per_class=200, n_units=120, seed=11)
    kw = dict(n_components=6, n_splits=2, kappa_folds=0)
    pair = dvc_representations(fa, fb, labels, pca_scope="pair", settings=ResamplingSettings(n_resamples=100), **kw)
    every = dvc_representations(fa, fb, labels, settings=NO_BOOT, **kw)
    assert pair.dvc == pytest.approx(0.6, abs=0.08)
    assert pair.dvc != pytest.approx(every.dvc, abs=1e-6)       # a different PCA, not the same numbers
    row = pair.table("overall").iloc[0]
    assert row["ci_low"] < row["estimate"] < row["ci_high"]
    assert pair.to_json_dict()["settings"]["pca_scope"] == "pair"


def test_pca_per_pair_of_two_classes_is_the_pca_of_all():
    """With two classes the pair's images are all images: with the same unit halves and an exact SVD (small
    halves) both scopes fit the same PCA and give the same DVC."""
    fa, fb, labels = planted_representations(0.5, n_classes=2, n_per_class=60, n_units=30, seed=4)
    kw = dict(n_components=4, n_splits=2, kappa_folds=0, settings=NO_BOOT)
    a = dvc_representations(fa, fb, labels, pca_scope="pair", **kw)
    b = dvc_representations(fa, fb, labels, pca_scope="all", **kw)
    assert a.dvc == pytest.approx(b.dvc, abs=1e-5)


def test_numbers_do_not_depend_on_threads():
    fa, fb, labels = planted_representations(0.5, n_classes=3, n_per_class=60, n_units=40, seed=5)
    kw = dict(n_components=4, n_splits=3, kappa_folds=0)
    one = dvc_representations(fa, fb, labels, settings=ResamplingSettings(n_resamples=150, workers=1), **kw)
    two = dvc_representations(fa, fb, labels, settings=ResamplingSettings(n_resamples=150, workers=3), **kw)
    np.testing.assert_array_equal(one.resampled.replicates, two.resampled.replicates)
    np.testing.assert_array_equal(one.resampled.estimate, two.resampled.estimate)


def test_observer_level_is_refused():
    fa, fb, labels = planted_representations(0.5, n_classes=2, n_per_class=40, n_units=20, seed=5)
    with warnings.catch_warnings(), pytest.raises(ValueError, match="observer_level"):
        warnings.simplefilter("ignore")
        dvc_representations(fa, fb, labels, n_components=3, settings=ResamplingSettings(observer_level="bootstrap"))
