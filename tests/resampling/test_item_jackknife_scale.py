"""The item jackknife at scale (issue 31, class 10): memory-sized blocks of rows, the same numbers, and an
aggregation that computes only the varying experiment at the rows' count. Counts and shapes, not time."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.pairs.aggregation import PairAggregation
from humanlike.measures.pairs.design import pair_design
from humanlike.measures.pairs.kernels import ErrorConsistencyKernel
from humanlike.resampling.engine import bootstrap
from humanlike.resampling.item_jackknife import item_jackknife_moments, jackknife_rows_per_block
from humanlike.resampling.jackknife import JackknifeMoments
from humanlike.resampling.settings import ResamplingSettings
from humanlike.trials.simulate import SDTObserver, simulate_benchmark

EXPERIMENTS = {"blur": {"0": 3.0, "1": 1.5}, "noise": {"0": 2.5, "1": 1.0, "2": 0.5}}


def benchmark_pieces(copies: int = 1):
    """Design, EC kernel, pair aggregation and point values of a small simulated benchmark, each of its two
    models present ``copies`` times (the same answers under other names, as benchmarks/ec_scale.py does)."""
    models = [SDTObserver(f"net-{k}", kind="model", noise_sd=0.5, sensitivity=1.0 + 0.3 * k) for k in range(2)]
    trials = simulate_benchmark(3, n_humans=4, models=models, experiments=EXPERIMENTS, n_items=24)
    model_rows = trials[trials["observer_kind"] == "model"]
    copied = [model_rows.assign(observer=model_rows["observer"] + f"~copy{c}") for c in range(2, copies + 1)]
    design = pair_design(pd.concat([trials, *copied], ignore_index=True))
    kernel = ErrorConsistencyKernel()
    aggregation = PairAggregation(design, kernel.measures)
    point = {s.key: kernel.evaluate(s, np.ones((1, s.n_items)), None) for s in design}
    return design, kernel, aggregation, point


def brute_force_moments(design, kernel, aggregation, point) -> JackknifeMoments:
    """The definition: every item of every stratum left out through the kernel's weights, one row at a time."""
    rows, strata = [], []
    for s in design:
        for i in range(s.n_items):
            weights = np.ones((1, s.n_items))
            weights[0, i] = 0.0
            values = dict(point)
            values[s.key] = kernel.evaluate(s, weights, None)
            rows.append(aggregation(values)[0])
            strata.append(s.key)
    labels = np.array([hash(k) for k in strata])
    return JackknifeMoments.of(np.array(rows), aggregation(point)[0], strata=labels)


def assert_same_moments(a: JackknifeMoments, b: JackknifeMoments) -> None:
    for f in fields(JackknifeMoments):
        np.testing.assert_allclose(getattr(a, f.name), getattr(b, f.name), rtol=1e-12, atol=1e-14,
                                   equal_nan=True, err_msg=f.name)


@pytest.mark.parametrize("budget", [None, 300_000])   # one block per stratum, and blocks of a few rows
def test_blocked_jackknife_gives_the_numbers_of_the_definition(budget):
    design, kernel, aggregation, point = benchmark_pieces()
    settings = ResamplingSettings(interval="jackknife-t")
    if budget is not None:
        steps = [jackknife_rows_per_block(design, kernel, s, len(aggregation.output.labels), budget) for s in design]
        assert 1 < min(steps) and max(steps) < min(s.n_items for s in design)   # several blocks in every stratum
    moments = item_jackknife_moments(design, kernel, aggregation, point, settings, budget)
    assert_same_moments(moments, brute_force_moments(design, kernel, aggregation, point))


def test_jackknife_blocks_stay_within_the_memory_budget_and_cover_every_item_once():
    design, kernel, aggregation, point = benchmark_pieces(copies=3)
    n_out, budget = len(aggregation.output.labels), 400_000
    seen = []

    def recording(values):
        varying = [k for k, v in values.items() if v is not point[k]]   # the stratum whose items are left out
        seen.append((varying[0] if varying else None, max(np.shape(v)[0] for v in values.values())))
        return aggregation(values)

    item_jackknife_moments(design, kernel, recording, point, ResamplingSettings(interval="jackknife-t"), budget)
    calls = [(key, rows) for key, rows in seen if key is not None]
    for s in design:
        blocks = [rows for key, rows in calls if key == s.key]
        step = jackknife_rows_per_block(design, kernel, s, n_out, budget)
        assert sum(blocks) == s.n_items and max(blocks) <= step < s.n_items
        per_row = sum(kernel.bytes_per_resample(t) for t in design) + kernel.bytes_per_resample(s) + 16 * n_out
        assert max(blocks) * per_row <= budget


def test_the_engine_gives_the_jackknife_what_the_kept_replicates_leave_of_the_budget():
    design, kernel, aggregation, point = benchmark_pieces()
    n_out, budget = len(aggregation.output.labels), 1024**2
    per_row = {s.key: sum(kernel.bytes_per_resample(t) for t in design) + kernel.bytes_per_resample(s) + 16 * n_out
               for s in design}
    n_resamples = (budget - 4 * max(per_row.values())) // (8 * n_out)   # leaves room for about four rows
    left = budget - 8 * n_out * n_resamples
    blocks = []

    def recording(values):
        rows = {k: np.shape(v)[0] for k, v in values.items()}
        if sorted(rows.values())[-2] == 1 and max(rows.values()) > 1:   # one stratum's leave-one-out rows
            blocks.append(max(rows, key=rows.get))
            assert max(rows.values()) * per_row[blocks[-1]] <= left
        return aggregation(values)

    settings = ResamplingSettings(n_resamples=n_resamples, seed=1, interval="jackknife-t", memory_budget=budget)
    shown = bootstrap(design, kernel, recording, aggregation.output, settings)
    assert len(blocks) > 2 * len(design)   # several blocks per stratum: the budget left was used
    assert_same_moments(shown.jackknife, brute_force_moments(design, kernel, aggregation, point))


@pytest.mark.parametrize("copies", [1, 3])
def test_pair_aggregation_computes_only_the_left_out_items_experiment_at_many_rows(copies, monkeypatch):
    """The jackknife's rows of one stratum leave every other experiment at its estimate: those are computed at
    one row, so a row costs its own experiment's pairs, not every experiment's (the superlinear part)."""
    design, kernel, aggregation, point = benchmark_pieces(copies)
    calls = []
    original = aggregation.experiment_values

    def recording(layout, values, rows):
        calls.append((layout.name, rows, layout.n_pairs))
        return original(layout, values, rows)

    monkeypatch.setattr(aggregation, "experiment_values", recording)
    item_jackknife_moments(design, kernel, aggregation, point, ResamplingSettings(interval="jackknife-t"))
    n_layouts = len(aggregation.layouts)
    pair_rows = 0
    for start in range(0, len(calls), n_layouts):   # one aggregation call per block: one experiment call each
        block = calls[start:start + n_layouts]
        assert sum(rows > 1 for _, rows, _ in block) <= 1
        pair_rows += sum(rows * pairs for _, rows, pairs in block)
    # pair-rows processed: each experiment's items times its pairs, plus one row of the others per block
    items = {layout.name: sum(design.stratum(k).n_items for k in layout.keys) for layout in aggregation.layouts}
    pairs = {layout.name: layout.n_pairs for layout in aggregation.layouts}
    expected = sum(pairs.values()) + sum(items[e] * pairs[e] + len(layout.keys) * (sum(pairs.values()) - pairs[e])
                                         for e, layout in zip(items, aggregation.layouts))   # the estimate, then the rows
    assert pair_rows == expected
