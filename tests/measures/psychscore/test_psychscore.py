"""Psychophysical-Score: sequences, observers, batched MLDS fits, skewness, the score and its bootstrap."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from humanlike.measures.psychscore.analysis import (JudgementError, normalise_judgements, orient_judgements,
                                           pool_class_counts, psychophysical_score)
from humanlike.measures.psychscore.blending import blend_alphas, blend_sequence, jaccard_matrix, top_pairs
from humanlike.trials.judgements import to_physical_order
from humanlike.measures.mlds.observers import (judgements_from_distances, pair_differences, pairwise_distances,
                                      random_judgements, sequence_distances, triad_design)
from humanlike.measures.psychscore.simulate import simulate_population
from humanlike.measures.psychscore.sequences import (ManifestSequences, build_sequences, load_object_images, object_mask,
                                      read_sequence_manifest, to_grey, write_sequences)
from humanlike.measures.psychscore.metric import scale_skewness
from humanlike.measures.psychscore.scales import design_matrix, fit_count_scales, flat_scale_test
from humanlike.resampling.settings import ResamplingSettings


def _pairs(n_classes=6, per_pair=3):
    classes = [f"c{k}" for k in range(n_classes)]
    rows = [{"sequence": f"{a}-{b}-{k}", "class_a": a, "class_b": b}
            for a, b in itertools.combinations(classes, 2) for k in range(per_pair)]
    return pd.DataFrame(rows)


# --- stimuli ---------------------------------------------------------------------------------------


def test_jaccard_hand_made_masks():
    a = np.zeros((2, 3, 3), bool)
    a[0, 0, :] = True                      # top row (3 px)
    a[1, :, :] = True                      # everything (9 px)
    b = np.zeros((2, 3, 3), bool)
    b[0, :, 0] = True                      # left column (3 px)
    # b[1] empty
    jac = jaccard_matrix(a, b)
    assert jac[0, 0] == pytest.approx(1 / 5)        # 1 shared of 5
    assert jac[1, 0] == pytest.approx(3 / 9)
    assert jac[0, 1] == 0.0 and jac[1, 1] == 0.0     # one empty mask: union > 0, overlap 0
    assert np.isnan(jaccard_matrix(np.zeros((1, 2, 2), bool), np.zeros((1, 2, 2), bool))[0, 0])


def test_top_pairs_order_and_ties():
    jac = np.array([[0.2, 0.9, 0.5], [0.9, np.nan, 0.1]])
    ia, ib = top_pairs(jac, 4)
    assert list(zip(ia, ib)) == [(0, 1), (1, 0), (0, 2), (0, 0)]   # ties keep row-major order
    ia, ib = top_pairs(jac, 10)
    assert (ia[-1], ib[-1]) == (1, 1)                               # NaN last


def test_blend_levels_exact():
    alphas = blend_alphas(7)
    assert np.array_equal(alphas, np.arange(7) / 6)
    a = np.random.default_rng(0).random((5, 4)) * 255
    b = np.random.default_rng(1).random((5, 4)) * 255
    seq = blend_sequence(a, b, alphas)
    assert np.array_equal(seq[0], a) and np.array_equal(seq[-1], b)
    np.testing.assert_allclose(seq[3], (a + b) / 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(seq[1], a * 5 / 6 + b / 6, rtol=0, atol=1e-12)
    with pytest.raises(ValueError):
        blend_alphas(2)


def test_grey_and_mask():
    rgb = np.array([[[30, 60, 90], [255, 255, 255]]], dtype=np.uint8)
    np.testing.assert_array_equal(to_grey(rgb), [[60.0, 255.0]])
    grey = np.full((5, 5), 255.0)
    grey[1:3, 1:4] = 10.0
    grey[4, 4] = 200.0                                     # light grey: background side of the threshold
    assert object_mask(grey).sum() == 6


def _image_folder(tmp_path, classes=("cat", "ant", "bee"), per_class=3):
    from PIL import Image

    rng = np.random.default_rng(0)
    for c in classes:
        (tmp_path / c).mkdir(parents=True)
        for k in range(per_class):
            img = np.full((32, 32, 3), 255, np.uint8)
            y, x = rng.integers(2, 14, size=2)
            h, w = rng.integers(8, 18, size=2)
            img[y:y + h, x:x + w] = 0
            Image.fromarray(img).save(tmp_path / c / f"{c}{k + 1}.png")
    return tmp_path


def test_build_and_write_sequences(tmp_path):
    from scipy.ndimage import gaussian_filter

    folder = _image_folder(tmp_path / "imgs")
    objects = load_object_images(folder)
    seqs = build_sequences(objects, pairs_per_class_pair=4, n_levels=5, blur=2.0)
    # Class pairs oriented by sorted names, whatever the folder order.
    assert seqs.class_pairs() == [("ant", "bee"), ("ant", "cat"), ("bee", "cat")]
    assert len(seqs.pairs) == 12
    for (a, b), group in seqs.pairs.groupby(["class_a", "class_b"]):
        jac = jaccard_matrix(objects.masks[a], objects.masks[b])
        best = np.sort(jac.ravel())[::-1][:4]
        np.testing.assert_allclose(group["jaccard"].to_numpy(), best)
    images = seqs.images(0)
    rec = seqs.pairs.iloc[0]
    a = gaussian_filter(objects.grey[rec.class_a][rec.index_a].astype(float), 2.0, mode="nearest")
    np.testing.assert_allclose(images[0], a)
    path = write_sequences(seqs, tmp_path / "out")
    manifest = read_sequence_manifest(path)
    assert len(manifest) == 12 * 5
    assert {"item", "path", "label", "experiment", "condition", "sequence", "level", "alpha"} <= set(manifest)
    assert manifest["item"].is_unique
    # The ends read back from the PNGs equal the in-memory ends up to 8-bit rounding.
    ms = ManifestSequences(manifest)
    row = int(np.flatnonzero(ms.pairs["sequence"] == rec.sequence)[0])
    np.testing.assert_allclose(ms.blurred_image(rec.class_a, int(ms.pairs["index_a"][row])), a, atol=0.5)


def test_unknown_class_and_size_errors(tmp_path):
    folder = _image_folder(tmp_path / "imgs", classes=("ant", "bee"))
    with pytest.raises(ValueError, match="not found"):
        load_object_images(folder, classes=["ant", "zebra"])


# --- observers and judgements ----------------------------------------------------------------------


def test_pair_differences_by_hand():
    d = np.array([[0, 1, 3], [1, 0, 2], [3, 2, 0]], float)
    # triad (1,2,3): d(2,3) - d(1,2) = 2 - 1
    assert pair_differences(d, [[1, 2, 3]])[0] == 1.0
    d4 = pairwise_distances(np.array([[0.0], [1.0], [3.0], [7.0]]))
    # quad (1,2,3,4): d(3,4) - d(1,2) = 4 - 1
    assert pair_differences(d4, [[1, 2, 3, 4]])[0] == 3.0


def test_pixel_observer_is_a_linear_scale(tmp_path):
    """Pixel distances between blends are |α_i − α_j|·||a′ − b′||: every non-tied triad is answered as a
    linear scale would, ties (equal steps) are coin flips."""
    seqs = build_sequences(load_object_images(_image_folder(tmp_path)), pairs_per_class_pair=2, n_levels=7)
    dist = sequence_distances(seqs, "pixel")
    norms = dist[:, 0, -1]
    alphas = seqs.alphas
    np.testing.assert_allclose(dist, np.abs(alphas[:, None] - alphas[None, :])[None] * norms[:, None, None],
                               rtol=1e-9)
    j = judgements_from_distances(dist, seqs.pairs, "pixel", seed=3)
    t = j[["s1", "s2", "s3"]].to_numpy()
    linear_delta = t[:, 0] - 2 * t[:, 1] + t[:, 2]
    assert np.array_equal(j["tie"].to_numpy(), linear_delta == 0)
    assert np.array_equal(j.loc[~j["tie"], "response"].to_numpy(), (linear_delta[~j["tie"]] > 0).astype(int))
    # Same seed, same coin flips; another seed, other flips.
    again = judgements_from_distances(dist, seqs.pairs, "pixel", seed=3)
    assert again.equals(j)


def test_gabor_observer_runs_and_is_symmetric(tmp_path):
    seqs = build_sequences(load_object_images(_image_folder(tmp_path)), pairs_per_class_pair=1, n_levels=5)
    dist = sequence_distances(seqs, "gabor")
    assert dist.shape == (3, 5, 5)
    np.testing.assert_allclose(dist, np.swapaxes(dist, 1, 2))
    assert np.all(np.diagonal(dist, axis1=1, axis2=2) < 1e-6 * dist.max())
    assert np.all(dist[:, 0, 1:] > 0)


def test_random_observer_is_seeded_coin():
    pairs = _pairs(4, 50)
    j = random_judgements(pairs, 7, seed=1)
    assert abs(j["response"].mean() - 0.5) < 0.02
    assert random_judgements(pairs, 7, seed=1).equals(j)
    assert not random_judgements(pairs, 7, seed=2)["response"].equals(j["response"])


# --- skewness and fits -----------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=5, max_size=5))
def test_skewness_equals_printed_eq2(interior):
    psi = np.array([0.0, *interior, 1.0])
    printed = -2 * ((psi.sum() - 1) / 5 - 0.5)       # eq. 2 as printed (7 levels)
    assert scale_skewness(psi) == pytest.approx(printed, abs=1e-12)


def test_skewness_sign_and_reversal():
    x = np.linspace(0, 1, 7)
    assert scale_skewness(x) == pytest.approx(0, abs=1e-12)
    assert scale_skewness(np.sqrt(x)) < 0                    # compressive -> S < 0 by the formula
    assert scale_skewness(x ** 2) > 0
    mirrored = 1 - np.sqrt(x)[::-1]                          # the same sequence run from B to A
    assert scale_skewness(mirrored) == pytest.approx(-scale_skewness(np.sqrt(x)))
    assert scale_skewness(3 * np.sqrt(x)) == pytest.approx(scale_skewness(np.sqrt(x)))   # GLM ψ normalised


def test_count_fit_matches_statsmodels_probit():
    import statsmodels.api as sm

    t = triad_design(6)
    x = design_matrix(t, 6)
    rng = np.random.default_rng(5)
    n = rng.integers(3, 12, size=len(t)).astype(float)
    k = rng.binomial(n.astype(int), special.ndtr(x @ np.array([0.8, 1.4, 1.9, 2.3, 2.6])))
    fit = fit_count_scales(t, 6, k, n)
    ref = sm.GLM(np.column_stack([k, n - k]), x,
                 family=sm.families.Binomial(sm.families.links.Probit())).fit(tol=1e-13)
    np.testing.assert_allclose(fit.psi[1:], ref.params, rtol=1e-7, atol=1e-9)
    # Trial-level Bernoulli log-likelihood = binomial llf without the log C(n, k) constants.
    const = np.sum(special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1))
    assert fit.loglik == pytest.approx(ref.llf - const, rel=1e-9)
    assert not fit.separated


def test_separation_is_detected_and_smoothed():
    t = triad_design(7)
    x = design_matrix(t, 7)
    delta = x @ (np.linspace(0, 1, 7) ** 0.5)[1:]
    k = (delta > 0) * 10.0                                   # a deterministic observer, no ties
    fit = fit_count_scales(t, 7, k, np.full(len(t), 10.0))
    assert fit.separated and np.all(np.isfinite(fit.psi))
    assert np.all(np.diff(fit.standard) > 0)                  # a sane, monotone smoothed scale
    assert scale_skewness(fit.psi) < 0                        # compressive, as the observer's scale


def test_flat_scale_test_holds_its_level():
    t = triad_design(7)
    rng = np.random.default_rng(11)
    n = np.full((400, len(t)), 8.0)
    k = rng.binomial(8, 0.5, size=n.shape)
    fit = fit_count_scales(t, 7, k, n)
    _, df, p = flat_scale_test(fit.loglik, fit.n_trials, 7)
    assert df == 6
    assert 0.02 < np.mean(p < 0.05) < 0.09


# --- the pipeline ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def population():
    return simulate_population(_pairs(7, 3), n_observers=6, instance_sd=0.0, seed=4)


def test_planted_skewness_is_the_skewness_of_the_planted_scale(population):
    # the simulator (data layer) writes the formula out; it must stay the metric's
    alphas = blend_alphas(7)
    expected = scale_skewness(alphas[None, :] ** population.planted["gamma"].to_numpy()[:, None])
    np.testing.assert_allclose(population.planted["skewness"], expected, rtol=0, atol=1e-15)
    assert population.planted["skewness"].std() > 0.1   # the planted exponents differ, so the check has teeth


def test_planted_skewness_recovered(population):
    result = psychophysical_score(population.judgements, settings=ResamplingSettings(n_resamples=0), random_baseline=False)
    humans = result.scales[result.scales["observer"] == "humans"].merge(population.planted, on=["class_a", "class_b"],
                                                                       suffixes=("", "_planted"))
    assert len(humans) == 21
    assert np.max(np.abs(humans["skewness"] - humans["skewness_planted"])) < 0.06
    assert np.corrcoef(humans["skewness"], humans["skewness_planted"])[0, 1] > 0.98
    assert result.chance.loc[0, "p"] < 1e-10 and result.chance.loc[0, "class_pairs_not_flat"] == 21


@pytest.fixture(scope="module")
def scored(population):
    # The twin has the humans' planted scales but its own responses (another response seed).
    twin = simulate_population(_pairs(7, 3), n_observers=3, instance_sd=0.0, seed=4, response_seed=99).judgements
    twin = twin.assign(observer="twin", observer_kind="model")
    other = simulate_population(_pairs(7, 3), n_observers=3, instance_sd=0.0, seed=77).judgements
    other = other.assign(observer="unrelated", observer_kind="model")
    data = pd.concat([population.judgements, twin, other], ignore_index=True)
    return data, psychophysical_score(data, settings=ResamplingSettings(n_resamples=200, seed=1))


def test_observer_with_human_scales_scores_near_one(scored):
    _, result = scored
    frame = result.to_wide().set_index("observer")
    assert frame.loc["twin", "score"] > 0.9
    assert frame.loc["twin", "score_ci_low"] > 0.5
    assert frame.loc["twin", "score_ci_low"] <= frame.loc["twin", "score"] <= frame.loc["twin", "score_ci_high"]


def test_random_and_unrelated_observers_score_near_zero(scored):
    _, result = scored
    frame = result.to_wide().set_index("observer")
    for name in ("random", "unrelated"):
        assert frame.loc[name, "rho_ci_low"] < 0 < frame.loc[name, "rho_ci_high"]
        assert frame.loc[name, "score"] < 0.6
    # The coin flipper's skewness is far more variable than any real scale's.
    assert frame.loc["random", "variance_S"] > 5 * frame.loc["humans", "variance_S"]


def test_orientation_invariance_under_relabelling(scored):
    data, result = scored
    flipped = data.copy()
    rows = flipped["class_a"].isin(["c0", "c3"])          # relabel these sequences as running B -> A
    s = flipped.loc[rows, ["s1", "s2", "s3"]].to_numpy(dtype=int)
    flipped["s1"] = flipped["s1"].astype(int)
    flipped["s2"] = flipped["s2"].astype(int)
    flipped["s3"] = flipped["s3"].astype(int)
    flipped.loc[rows, ["s1", "s2", "s3"]] = (8 - s)          # level L -> n + 1 - L (descending triads)
    flipped.loc[rows, "response"] = flipped.loc[rows, "response"]   # same judgement: stored in presentation order
    flipped.loc[rows, ["class_a", "class_b"]] = flipped.loc[rows, ["class_b", "class_a"]].to_numpy()
    # Rows in presentation order are declared as such (a tidy table is in physical order: issue 22).
    again = psychophysical_score(to_physical_order(flipped), settings=ResamplingSettings(n_resamples=200, seed=1))
    pd.testing.assert_frame_equal(again.to_wide(), result.to_wide())
    np.testing.assert_allclose(again.scales["skewness"], result.scales["skewness"], atol=1e-9)


def test_reversed_sequences_flip_skewness(population):
    data = population.judgements
    counts = pool_class_counts(data)
    mirrored = data.copy()
    mirrored[["s1", "s2", "s3"]] = 8 - data[["s3", "s2", "s1"]].to_numpy(dtype=int)
    mirrored["response"] = 1 - data["response"]
    fit = fit_count_scales(counts.trials, 7, counts.successes, counts.totals)
    c2 = pool_class_counts(mirrored)
    fit2 = fit_count_scales(c2.trials, 7, c2.successes, c2.totals)
    np.testing.assert_allclose(scale_skewness(fit2.psi), -scale_skewness(fit.psi), atol=1e-7)


def test_same_seed_same_numbers_and_chunk_independence(scored):
    data, result = scored
    again = psychophysical_score(data, settings=ResamplingSettings(n_resamples=200, seed=1), chunk=50)
    # Identical draws; only the batch composition of the linear algebra differs (last-digit rounding),
    # which can move a refit's stopping iteration by one: agreement to the refits' tolerance (1e-8,
    # amplified by the coin flipper's near-zero psi_p).
    np.testing.assert_allclose(again.replicates, result.replicates, rtol=1e-6, atol=1e-9)
    other = psychophysical_score(data, settings=ResamplingSettings(n_resamples=200, seed=2))
    assert not np.array_equal(other.replicates, result.replicates)


def test_result_shapes_and_json(scored):
    _, result = scored
    doc = json.loads(json.dumps(result.to_json_dict(), default=float))
    assert doc["reference"] == "humans"
    assert {r["observer"] for r in doc["observers"]} == {"humans", "twin", "unrelated", "random"}
    low, high = result.interval()
    assert low.shape == result.scores.estimate.shape
    assert set(result.score.index) == {"twin", "unrelated", "random"}


def test_descending_triads_are_reordered():
    frame = pd.DataFrame({"observer": "o", "class_a": "a", "class_b": "b", "S1": [3, 1], "S2": [2, 2], "S3": [1, 3],
                          "response": [1, 0]})
    out = normalise_judgements(frame)               # the R layout, one descending triad
    assert out[["s1", "s2", "s3"]].to_numpy(dtype=int).tolist() == [[1, 2, 3], [1, 2, 3]]
    assert out["response"].tolist() == [0, 0]
    mirrored = orient_judgements(out.assign(class_a="b", class_b="a"), 3)
    assert mirrored[["class_a", "class_b"]].iloc[0].tolist() == ["a", "b"]
    assert mirrored["response"].tolist() == [1, 1]


def test_bad_tables_name_the_fault():
    good = simulate_population(_pairs(3, 1), n_observers=1, seed=0).judgements
    with pytest.raises(JudgementError, match=r"missing column\(s\) \['response'\]"):
        pool_class_counts(good.drop(columns="response"))
    bad = good.copy()
    bad.loc[5, "response"] = 2
    with pytest.raises(JudgementError, match="'response' must be 0 or 1; 1 row.*row 6 "):  # 1-based
        pool_class_counts(bad)
    model = good[good["class_a"] != "c0"].assign(observer="m", observer_kind="model")
    with pytest.raises(JudgementError, match="'m' has no trials for class pair"):
        pool_class_counts(pd.concat([good, model]))
    with pytest.raises(JudgementError, match="no observer of kind 'human'"):
        pool_class_counts(good.assign(observer_kind="model"))
