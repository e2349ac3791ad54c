"""Numbers a reader trusts at a glance (issue 33): no interval in any table `humanlike benchmark` writes excludes the
estimate it is shown with or leaves its metric's range; `compare` gives the human ceiling one interval."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from humanlike.app.cli import main
from humanlike.measures.ec.result import METRIC_RANGES
from humanlike.resampling.intervals import containing_estimate
from humanlike.trials.simulate import simulate_benchmark


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "trials.parquet"
    simulate_benchmark(0).to_parquet(path)   # the demo's data: the humans' squared accuracy difference is ~0.002
    return path


def interval_triples(table: pd.DataFrame):
    """(value column, low column, high column) of every interval in a table, by the tables' two conventions."""
    triples = [("estimate", "ci_low", "ci_high")] if {"estimate", "ci_low", "ci_high"} <= set(table) else []
    triples += [(c, f"{c}_low", f"{c}_high") for c in table if f"{c}_low" in table and f"{c}_high" in table]
    return triples


def metric_of(table: pd.DataFrame, column: str) -> pd.Series:
    """Each row's metric: the ``metric`` column of a tidy table, else the column's own name."""
    if column == "estimate" and "metric" in table:
        return table["metric"].astype(str)
    return pd.Series(column, index=table.index)


@pytest.mark.parametrize("interval", ["jackknife-t", "percentile"])
def test_no_interval_the_benchmark_writes_excludes_its_estimate_or_leaves_its_range(demo_file, tmp_path, interval):
    out = tmp_path / "out"
    assert main(["benchmark", str(demo_file), "--resamples", "200", "--interval", interval, "--quiet",
                 "--out", str(out)]) == 0
    checked = 0
    tables = sorted(out.glob("*.csv"))
    assert {p.stem for p in tables} >= {"benchmark", "leaderboard", "leaderboard_ood", "ranking"}
    for path in tables:
        table = pd.read_csv(path)
        for value, low, high in interval_triples(table):
            v, lo, hi = (table[c].to_numpy(float) for c in (value, low, high))
            shown = np.isfinite(v) & np.isfinite(lo) & np.isfinite(hi)
            bad = shown & ((lo > v) | (hi < v))
            assert not bad.any(), f"{path.name}: {value} outside [{low}, {high}]: {table.loc[bad].head(3).to_dict()}"
            metric = metric_of(table, value)
            bounds = np.array([METRIC_RANGES.get(m, (-np.inf, np.inf)) for m in metric])
            outside = shown & ((lo < bounds[:, 0]) | (hi > bounds[:, 1]))
            assert not outside.any(), f"{path.name}: [{low}, {high}] leaves the range of {value}"
            checked += int(shown.sum())
    assert checked > 100
    # the case the issue saw: the humans' squared accuracy difference, whose bias correction pulls the jackknife
    # interval's centre below the estimate (and its low end below 0)
    board = pd.read_csv(out / "leaderboard.csv").set_index("observer")
    humans = board.loc["humans", ["accuracy_difference", "accuracy_difference_low", "accuracy_difference_high"]]
    assert humans.iloc[1] >= 0.0 and humans.iloc[1] <= humans.iloc[0] <= humans.iloc[2]


def test_containing_estimate_only_widens_and_keeps_undefined_ends():
    low, high = containing_estimate([0.1, 0.3, np.nan, -0.2], [0.2, 0.5, np.nan, 0.4], [0.25, 0.1, 0.3, 0.0])
    assert low.tolist()[:2] == [0.1, 0.1] and high.tolist()[:2] == [0.25, 0.5]
    assert np.isnan(low[2]) and np.isnan(high[2]) and (low[3], high[3]) == (-0.2, 0.4)


def test_compare_gives_the_human_ceiling_one_interval(demo_file, tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", str(demo_file), "--measure", "ec", "--resamples", "200", "--quiet", "--json",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    pairs = pd.read_csv(out / "compare_pairs.csv")
    document = json.loads((out / "compare.json").read_text())
    ceiling = document["ceiling"]
    chance = pairs[pairs["comparison"] == "ceiling vs chance"].iloc[0]
    assert chance["interval"] == ceiling["interval"] != ""
    np.testing.assert_allclose([chance["ci_low"] + ceiling["chance"], chance["ci_high"] + ceiling["chance"]],
                               [ceiling["ci_low"], ceiling["ci_high"]], rtol=0, atol=1e-12)
