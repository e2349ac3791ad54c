"""The one resampling engine: streams per key, chunk/selection/order independence, kernels, intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from humanlike.trials.design import Design, Stratum, build_design
from humanlike.trials.representations import (
    Representation, RepresentationError, align_representations, load_representation, save_representation,
)
from humanlike.resampling.draws import BLOCK, bernoulli_responses, item_weights
from humanlike.resampling.engine import ResourceError, bootstrap, resample_chunks
from humanlike.resampling.item_jackknife import item_jackknife
from humanlike.resampling.jackknife import JackknifeMoments
from humanlike.resampling.kernels import Output, SufficientStatisticKernel
from humanlike.resampling.results import Resampled
from humanlike.resampling.rng import stream
from humanlike.resampling.settings import ResamplingSettings


class MeanKernel(SufficientStatisticKernel):
    """Mean of the per-item values of a stratum: sums (value, 1) -> value / count."""

    def statistics(self, stratum):
        return np.column_stack([stratum.arrays["value"], np.ones(stratum.n_items)])

    def reduce(self, stratum, sums, observer_weights):
        return sums[:, :1] / sums[:, 1:]


class LoopMeanKernel:
    """The same statistic without sufficient statistics (exercises the engine's generic paths)."""

    def evaluate(self, stratum, item_weights, observer_weights):
        w = np.asarray(item_weights, dtype=float)
        return (w @ stratum.arrays["value"])[:, None] / w.sum(axis=1, keepdims=True)

    def width(self, stratum):
        return 1

    def bytes_per_resample(self, stratum):
        return 8 * stratum.n_items


def make_design(sizes: dict[str, int], seed: int = 1) -> Design:
    rng = np.random.default_rng(seed)
    strata = [Stratum((name,), np.array([f"{name}{k}" for k in range(n)]), ("obs",),
                      {"value": rng.normal(size=n)}) for name, n in sizes.items()]
    return Design(tuple(sorted(strata, key=lambda s: s.key)))


def mean_over_strata(design: Design):
    keys = design.keys

    def aggregate(values):
        rows = max(np.shape(values[k])[0] for k in keys)
        per = np.column_stack([np.broadcast_to(values[k][:, 0], (rows,)) for k in keys])
        return np.column_stack([per, per.mean(axis=1)])

    output = Output([(k[0],) for k in keys] + [("overall",)], ("scope",))
    return aggregate, output


def run(design, settings, kernel=None):
    aggregate, output = mean_over_strata(design)
    return bootstrap(design, kernel or MeanKernel(), aggregate, output, settings)


# --- streams and draws ------------------------------------------------------------------------------------

def test_stream_depends_on_seed_and_key_only():
    assert stream(3, "a", 1).random() == stream(3, "a", 1).random()
    assert stream(3, "a", 1).random() != stream(3, "a", 2).random()
    assert stream(3, "a").random() != stream(4, "a").random()
    with pytest.raises(TypeError):
        stream(np.random.default_rng(0), "a")
    with pytest.raises(ValueError):
        stream(-1, "a")


@given(start=st.integers(0, 450), length=st.integers(1, 300))
@settings(max_examples=40, deadline=None)
def test_item_weights_do_not_depend_on_the_chunk(start, length):
    full = item_weights(7, ("e", "c"), 13, 0, 800)
    part = item_weights(7, ("e", "c"), 13, start, start + length)
    np.testing.assert_array_equal(part, full[start:start + length])
    assert (full.sum(axis=1) == 13).all()


def counted_int64_draws(seed, key, n_items, start, stop):
    """The definition of the item weights, spelled out: block b of BLOCK resamples draws (BLOCK x n_items) int64
    item indices from stream(seed, "items", *key, b); a resample's weights are its row's counts."""
    rows = []
    for b in range(start // BLOCK, (stop - 1) // BLOCK + 1):
        draws = stream(seed, "items", *key, b).integers(0, n_items, size=(BLOCK, n_items), dtype=np.int64)
        rows += [np.bincount(row, minlength=n_items) for row in draws]
    return np.array(rows[start % BLOCK:start % BLOCK + stop - start], dtype=np.float32)


@given(n_items=st.integers(1, 300), start=st.integers(0, 450), length=st.integers(1, 260), items_first=st.booleans())
@settings(max_examples=60, deadline=None)
def test_item_weights_are_the_counts_of_int64_draws(n_items, start, length, items_first):
    # int32 draws (half the memory traffic) and the compiled counting of items-first weights change no number
    expected = counted_int64_draws(11, ("e", "c"), n_items, start, start + length)
    got = item_weights(11, ("e", "c"), n_items, start, start + length, items_first)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.T if items_first else got, expected)


def test_item_weights_are_multinomial():
    w = item_weights(0, ("x",), 4, 0, 20_000)
    # Each count is Binomial(4, 1/4): mean 1, variance 0.75.
    assert abs(w.mean() - 1.0) < 0.01
    assert abs(w.var() - 0.75) < 0.02


def test_bernoulli_responses_chunk_independent_and_calibrated():
    p = np.array([0.1, 0.5, 0.9])
    full = bernoulli_responses(5, ("fit",), p, 0, 5000)
    np.testing.assert_array_equal(bernoulli_responses(5, ("fit",), p, 1234, 2345), full[1234:2345])
    np.testing.assert_allclose(full.mean(axis=0), p, atol=0.02)
    with pytest.raises(ValueError):
        bernoulli_responses(5, ("fit",), np.array([1.5]), 0, 10)


def test_resample_chunks_cover_and_respect_budget():
    chunks = resample_chunks(1050, bytes_per_resample=1000, memory_budget=250_000)
    assert chunks[0] == (0, 200) and chunks[-1][1] == 1050
    assert all(b - a <= 250 for a, b in chunks)
    assert sum(b - a for a, b in chunks) == 1050


# --- the driver ---------------------------------------------------------------------------------------------

def test_estimate_equals_the_plain_statistic():
    design = make_design({"a": 30, "b": 50})
    res = run(design, ResamplingSettings(n_resamples=0))
    a, b = design.stratum(("a",)).arrays["value"], design.stratum(("b",)).arrays["value"]
    np.testing.assert_allclose(res.estimate, [a.mean(), b.mean(), (a.mean() + b.mean()) / 2])
    assert res.n_resamples == 0 and np.isnan(res.interval()[0]).all()


def test_numbers_do_not_depend_on_chunk_size_selection_or_order():
    design = make_design({"a": 30, "b": 50, "c": 20})
    big = run(design, ResamplingSettings(n_resamples=700, seed=11))
    small = run(design, ResamplingSettings(n_resamples=700, seed=11, memory_budget=1024**2 + 0))
    tiny_chunks = bootstrap(design, MeanKernel(), *mean_over_strata(design),
                            ResamplingSettings(n_resamples=700, seed=11, memory_budget=2**20))
    np.testing.assert_array_equal(big.replicates, small.replicates)
    np.testing.assert_array_equal(big.replicates, tiny_chunks.replicates)
    # Selecting one stratum alone reproduces its column of the full run exactly.
    alone = run(design.select(lambda s: s.key == ("b",)), ResamplingSettings(n_resamples=700, seed=11))
    np.testing.assert_array_equal(alone.replicates[:, 0], big.replicates[:, 1])
    # Order of the strata given to the design does not matter (Design keys name the streams).
    reordered = Design(tuple(reversed(design.strata)))
    agg, out = mean_over_strata(reordered)
    rev = bootstrap(reordered, MeanKernel(), agg, out, ResamplingSettings(n_resamples=700, seed=11))
    np.testing.assert_array_equal(rev.replicates[:, [2, 1, 0]], big.replicates[:, :3])


def test_a_label_names_its_stream_by_the_number_it_spells_and_other_labels_by_themselves():
    """Issue 22: ``0.00``, ``0.0``, ``0`` and ``0.000`` draw the same resamples (pandas re-spells labels); a
    label that is no number keeps the stream of its own spelling, and different numbers differ."""
    settings = ResamplingSettings(n_resamples=150, seed=4)
    values = np.random.default_rng(0).normal(size=40)

    def replicates(condition: str) -> np.ndarray:
        stratum = Stratum(("noise", condition), np.array([f"i{k}" for k in range(40)]), ("obs",), {"value": values})
        return run(Design((stratum,)), settings).replicates[:, 0]

    zero = replicates("0")
    for spelling in ("0.00", "0.0", "0.000", "0e0"):
        np.testing.assert_array_equal(replicates(spelling), zero)
    np.testing.assert_array_equal(replicates("0.90"), replicates("0.9"))
    assert not np.array_equal(replicates("0.9"), zero)
    # Labels that are no number: their spelling names the stream, case included (as before issue 22).
    weights = item_weights(4, ("noise", "BW"), 40, 0, 150)
    expected = (weights @ values) / weights.sum(axis=1)
    np.testing.assert_allclose(replicates("BW"), expected, rtol=1e-12)
    assert not np.array_equal(replicates("BW"), replicates("bw"))


def test_same_seed_same_bytes_other_seed_other_numbers():
    design = make_design({"a": 25})
    r1 = run(design, ResamplingSettings(n_resamples=300, seed=2))
    r2 = run(design, ResamplingSettings(n_resamples=300, seed=2))
    r3 = run(design, ResamplingSettings(n_resamples=300, seed=3))
    assert r1.replicates.tobytes() == r2.replicates.tobytes()
    assert not np.array_equal(r1.replicates, r3.replicates)


def test_generic_and_sufficient_statistic_kernels_agree_including_bca_jackknife():
    design = make_design({"a": 15, "b": 12})
    s = ResamplingSettings(n_resamples=400, seed=4, interval="bca")
    fast, slow = run(design, s), run(design, s, LoopMeanKernel())
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-12)
    fields = ("n", "variance", "bias", "influence_2", "influence_3", "terms_2")
    for name in fields:
        np.testing.assert_allclose(getattr(fast.jackknife, name), getattr(slow.jackknife, name), rtol=1e-12,
                                   atol=1e-14)   # the bias of a mean is 0: rounding only
    # Leave-one-out of a mean, by hand; the kept sums are the stratified jackknife's of these rows.
    a = design.stratum(("a",)).arrays["value"]
    aggregate, _ = mean_over_strata(design)
    point = {s.key: MeanKernel().evaluate(s, np.ones((1, s.n_items)), None) for s in design}
    rows = item_jackknife(design, MeanKernel(), aggregate, point)
    np.testing.assert_allclose(rows[:15, 0], (a.sum() - a) / 14)
    by_hand = JackknifeMoments.of(rows, fast.estimate, strata=np.repeat([0, 1], [15, 12]))
    for name in fields:
        np.testing.assert_allclose(getattr(fast.jackknife, name), getattr(by_hand, name), rtol=1e-12, atol=1e-15)
    low, high = fast.interval(method="bca")
    assert (low < fast.estimate).all() and (fast.estimate < high).all()


def test_percentile_interval_of_a_mean_covers_at_its_level():
    """Ground truth by simulation: 95% intervals of a normal mean (n = 60) cover about 95% of the time."""
    hits = 0
    n_sets = 300
    for k in range(n_sets):
        design = make_design({"a": 60}, seed=100 + k)
        res = run(design, ResamplingSettings(n_resamples=400, seed=k))
        low, high = res.interval()
        hits += low[0] <= 0.0 <= high[0]
    assert 0.90 <= hits / n_sets <= 0.985


def test_observer_bootstrap_and_jackknife_reach_the_kernel():
    seen = {}

    class ObserverMean:
        def evaluate(self, stratum, w, u):
            x = stratum.arrays["x"]  # items x observers
            u = np.ones((1, x.shape[1])) if u is None else u
            seen.setdefault("shapes", set()).add(u.shape)
            per_item = (u @ x.T) / u.sum(axis=1, keepdims=True)  # (R|1) x items
            return ((w * per_item).sum(axis=1) / w.sum(axis=1))[:, None]

        def width(self, s):
            return 1

        def bytes_per_resample(self, s):
            return 64 * s.n_items

    rng = np.random.default_rng(0)
    stratum = Stratum(("e", "c"), np.arange(40).astype(str), ("h1", "h2", "h3", "h4"),
                      {"x": rng.normal(size=(40, 4)) + np.array([0, 1, 2, 3])}, ("e",), np.arange(4))
    design = Design((stratum,), {("e",): ("h1", "h2", "h3", "h4")})
    out = Output([("mean",)], ("metric",))
    agg = lambda v: v[("e", "c")]  # noqa: E731
    none = bootstrap(design, ObserverMean(), agg, out, ResamplingSettings(n_resamples=500, seed=1))
    boot = bootstrap(design, ObserverMean(), agg, out,
                     ResamplingSettings(n_resamples=500, seed=1, observer_level="bootstrap"))
    jack = bootstrap(design, ObserverMean(), agg, out,
                     ResamplingSettings(n_resamples=500, seed=1, observer_level="jackknife"))
    # Observers differ a lot (means 0..3): resampling them must widen the interval clearly.
    width = lambda r: float(np.subtract(*r.interval()[::-1])[0])  # noqa: E731
    assert width(boot) > 2 * width(none)
    assert width(jack) > 2 * width(none)
    np.testing.assert_allclose(boot.estimate, none.estimate)


def test_absurd_requests_are_refused_with_an_estimate():
    design = make_design({"a": 10})
    with pytest.raises(ResourceError, match="GiB"):
        run(design, ResamplingSettings(n_resamples=100_000_000, memory_budget=2**30))
    for bad in (-5, 1, 2.5, True):
        with pytest.raises(ValueError):
            ResamplingSettings(n_resamples=bad)
    with pytest.raises(ValueError):
        ResamplingSettings(interval="studentised")
    with pytest.raises(ValueError):
        ResamplingSettings(observer_level="some")


# --- the result shape ---------------------------------------------------------------------------------------

def test_resampled_result_shape():
    reps = np.column_stack([np.linspace(0, 1, 101), np.where(np.arange(101) < 10, np.nan, 1.0)])
    r = Resampled(np.array([0.5, 1.0]), reps, [("x", "a"), ("y", "b")], ("name", "group"),
                  reasons=np.array(["", ""]), settings={"seed": 0})
    frame = r.to_frame(level=0.9)
    assert list(frame.columns) == ["name", "group", "estimate", "ci_low", "ci_high", "undefined_share", "reason"]
    assert frame.loc[0, "ci_low"] == pytest.approx(0.05) and frame.loc[0, "ci_high"] == pytest.approx(0.95)
    assert frame.loc[1, "undefined_share"] == pytest.approx(10 / 101)
    assert r.where(group="b").estimate.tolist() == [1.0]
    doc = r.to_json_dict()
    assert doc["rows"][0]["name"] == "x" and doc["settings"] == {"seed": 0}
    with pytest.raises(ValueError, match="jackknife"):
        r.interval(method="bca")


# --- the design -------------------------------------------------------------------------------------------

def test_build_design_counts_and_groups():
    t = pd.DataFrame({
        "observer": ["s1", "s2", "m1", "s1", "s2", "m1", "s1"],
        "observer_kind": ["human", "human", "model", "human", "human", "model", "human"],
        "experiment": "e", "condition": ["c1", "c1", "c1", "c2", "c2", "c2", "c1"],
        "item": ["i1", "i1", "i1", "i2", "i2", "i2", "i1"], "label": "x",
        "response": ["x", "y", "x", "x", "x", "y", "x"],
        "correct": [True, False, True, True, True, False, True],
        "decision_margin": [np.nan, np.nan, 0.5, np.nan, np.nan, -0.2, np.nan],
    })
    d = build_design(t)
    assert d.keys == [("e", "c1"), ("e", "c2")]
    s1 = d.stratum(("e", "c1"))
    assert s1.observers == ("s1", "s2", "m1")
    np.testing.assert_array_equal(s1.arrays["n_trials"], [[2, 1, 1]])
    np.testing.assert_array_equal(s1.arrays["n_correct"], [[2, 0, 1]])
    assert s1.arrays["margin"][0, 2] == 0.5 and np.isnan(s1.arrays["margin"][0, 0])
    assert d.groups == {("e",): ("s1", "s2")}
    np.testing.assert_array_equal(s1.group_columns, [0, 1])


# --- representations -----------------------------------------------------------------------------------------

def test_representation_roundtrip_shards_and_errors(tmp_path):
    rep = Representation(np.arange(12.0).reshape(4, 3), ["a", "b", "c", "d"], ["x", "x", "y", "y"], "toy",
                         {"layer": "fc"})
    back = load_representation(save_representation(rep, tmp_path / "toy.npz"))
    np.testing.assert_array_equal(back.features, rep.features)
    assert back.items.tolist() == ["a", "b", "c", "d"] and back.metadata == {"layer": "fc"}
    shards = tmp_path / "shards"
    save_representation(rep.subset(["a", "b"]), shards / "part-00000.npz")
    save_representation(rep.subset(["c", "d"]), shards / "part-00001.npz")
    assert load_representation(shards).items.tolist() == ["a", "b", "c", "d"]
    assert not list(tmp_path.rglob("*.tmp"))
    other = Representation(np.ones((2, 5)), ["d", "b"], ["y", "x"], "other")
    a2, b2 = align_representations(rep, other)
    assert a2.items.tolist() == b2.items.tolist() == ["b", "d"]
    with pytest.raises(RepresentationError, match="unique"):
        Representation(np.ones((2, 2)), ["a", "a"], ["x", "x"])
    with pytest.raises(RepresentationError, match="NaN"):
        Representation(np.array([[np.nan, 1.0]]), ["a"], ["x"])
    np.savez(tmp_path / "bad.npz", feats=np.ones((2, 2)))
    with pytest.raises(RepresentationError, match="bad.npz.*features"):
        load_representation(tmp_path / "bad.npz")
    with pytest.raises(RepresentationError, match="share no item"):
        align_representations(rep, Representation(np.ones((1, 2)), ["zz"], ["x"]))



def test_threads_never_change_a_number():
    design = make_design({"a": 30, "b": 50, "c": 20, "d": 7})
    one = run(design, ResamplingSettings(n_resamples=500, seed=4, workers=1))
    three = run(design, ResamplingSettings(n_resamples=500, seed=4, workers=3, memory_budget=2**20))
    assert one.replicates.tobytes() == three.replicates.tobytes()
    assert "workers" not in three.settings and ResamplingSettings(workers=2).threads == 2
    with pytest.raises(ValueError, match="workers"):
        ResamplingSettings(workers=0)


def test_threads_never_change_the_analyses():
    from humanlike import decision_margin_consistency, error_consistency, simulate_benchmark

    trials = simulate_benchmark(seed=3)
    trials = trials[trials["experiment"].isin(sorted(trials["experiment"].unique())[:2])]
    for analysis in (error_consistency, decision_margin_consistency):
        results = [analysis(trials, settings=ResamplingSettings(n_resamples=300, seed=1, workers=w,
                                                                 observer_level="bootstrap"))
                   for w in (1, 2)]
        frames = [r.resampled.replicates if hasattr(r, "resampled") else r.replicates for r in results]
        assert frames[0].tobytes() == frames[1].tobytes(), analysis.__name__


# --- items-first weights, aggregation into the kept replicates, pipelined chunks -------------------------

@given(n_items=st.integers(1, 40), start=st.integers(0, 350), length=st.integers(1, 260))
@settings(max_examples=40, deadline=None)
def test_items_first_weights_are_the_transposed_counts(n_items, start, length):
    rows = item_weights(5, ("e", "c"), n_items, start, start + length)
    columns = item_weights(5, ("e", "c"), n_items, start, start + length, items_first=True)
    assert columns.shape == (n_items, length) and columns.flags.c_contiguous and columns.dtype == np.float32
    np.testing.assert_array_equal(columns, rows.T)


class RecordingMeanKernel(LoopMeanKernel):
    """LoopMeanKernel that keeps every weight matrix it is handed (with its memory layout)."""

    def __init__(self):
        self.seen = {}

    def evaluate(self, stratum, item_weights, observer_weights):
        if item_weights.shape[0] > 1:
            self.seen[(stratum.key, float(item_weights[0, 0]), item_weights.shape)] = item_weights
        return super().evaluate(stratum, item_weights, observer_weights)


class ItemsFirstMeanKernel(RecordingMeanKernel):
    weights_items_first = True


def test_kernel_asking_for_items_first_weights_gets_the_same_weights_transposed_in_memory():
    design = make_design({"a": 30, "b": 50, "c": 20})
    settings = ResamplingSettings(n_resamples=400, seed=3, workers=1, memory_budget=2**20)
    items_first, plain = ItemsFirstMeanKernel(), RecordingMeanKernel()
    first = run(design, settings, items_first)
    rows = run(design, settings, plain)
    assert items_first.seen.keys() == plain.seen.keys()
    for key, weights in items_first.seen.items():
        assert weights.T.flags.c_contiguous and plain.seen[key].flags.c_contiguous
        np.testing.assert_array_equal(weights, plain.seen[key])
    # the kernel's own arithmetic may round differently on the other layout (a matrix-vector product here)
    np.testing.assert_allclose(first.replicates, rows.replicates, rtol=1e-12, atol=1e-15)


def test_aggregation_with_out_fills_the_kept_replicates_with_the_same_numbers():
    design = make_design({"a": 30, "b": 50, "c": 20, "d": 9})
    aggregate, output = mean_over_strata(design)
    calls = []

    def into(values, out=None):
        calls.append(out is not None)
        result = aggregate(values)
        if out is None:
            return result
        out[...] = result
        return out

    float32 = Output(output.labels, output.label_names, replicate_dtype=np.float32)
    for workers, budget in ((1, 2**30), (2, 2**20)):
        settings = ResamplingSettings(n_resamples=500, seed=8, workers=workers, memory_budget=budget)
        calls.clear()
        filled = bootstrap(design, MeanKernel(), into, float32, settings)
        returned = bootstrap(design, MeanKernel(), aggregate, float32, settings)
        assert calls[0] is False and all(calls[1:]) and len(calls) > 1   # the estimate without, chunks with out
        assert filled.replicates.dtype == np.float32
        np.testing.assert_array_equal(filled.replicates, returned.replicates)
        np.testing.assert_array_equal(filled.estimate, returned.estimate)


class WideMeanKernel(MeanKernel):
    """MeanKernel claiming ``claimed`` bytes per resample (so that a 1 MiB budget makes small chunks); it records
    the size of every chunk of resamples of stratum "a" that it evaluates."""

    def __init__(self, claimed: int):
        super().__init__()
        self.claimed, self.chunk_sizes = claimed, []

    def bytes_per_resample(self, stratum):
        return self.claimed

    def evaluate(self, stratum, item_weights, observer_weights):
        if stratum.key == ("a",) and item_weights.shape[0] > 1:   # not the estimate (one row of ones)
            self.chunk_sizes.append(item_weights.shape[0])
        return super().evaluate(stratum, item_weights, observer_weights)


def test_pipelined_chunks_give_the_numbers_of_one_serial_chunk():
    design = make_design({"a": 30, "b": 50, "c": 20, "d": 7})
    serial = run(design, ResamplingSettings(n_resamples=900, seed=2, workers=1), WideMeanKernel(2_000))
    # chunks of one block: 9 chunks, each aggregated while the workers compute the next
    kernel = WideMeanKernel(2_000)
    pipelined = run(design, ResamplingSettings(n_resamples=900, seed=2, workers=2, memory_budget=2**20), kernel)
    assert kernel.chunk_sizes == [BLOCK] * 9
    assert serial.replicates.tobytes() == pipelined.replicates.tobytes()


def test_chunks_smaller_than_a_block_change_a_replicate_at_most_in_its_last_bits():
    # A budget too small for one block of resamples splits blocks. The weights are still the same, but the BLAS
    # may round the rows at the edge of a smaller matrix product differently (docs/uncertainty.md).
    design = make_design({"a": 30, "b": 50, "c": 20, "d": 7})
    whole = run(design, ResamplingSettings(n_resamples=900, seed=2, workers=1), WideMeanKernel(10_000))
    kernel = WideMeanKernel(10_000)
    split = run(design, ResamplingSettings(n_resamples=900, seed=2, workers=2, memory_budget=2**20), kernel)
    assert len(kernel.chunk_sizes) > 9 and max(kernel.chunk_sizes) < BLOCK
    np.testing.assert_allclose(split.replicates, whole.replicates, rtol=1e-13, atol=1e-15)


def test_an_error_in_a_worker_reaches_the_caller():
    class Failing(LoopMeanKernel):
        def evaluate(self, stratum, item_weights, observer_weights):
            if item_weights.shape[0] > 1 and stratum.key == ("b",):
                raise RuntimeError("stratum b failed")
            return super().evaluate(stratum, item_weights, observer_weights)

    with pytest.raises(RuntimeError, match="stratum b failed"):
        run(make_design({"a": 10, "b": 12}), ResamplingSettings(n_resamples=300, seed=0, workers=2), Failing())
