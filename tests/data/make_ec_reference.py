"""Reference numbers of the pre-engine error-consistency code (commit bd872ce), for tests/measures/ec/test_ec_port.py.

Run from a checkout of bd872ce (the numbers must come from the old code, not the code under test):

    git worktree add /tmp/ec-old bd872ce
    HUMANLIKE_SHARED_DATA=/work/shared/data PYTHONPATH=/tmp/ec-old/src \
        python tests/data/make_ec_reference.py tests/data/ec_reference.json

Stored: point estimates of every summary row (demo data and real data, both undefined policies) — the port
must reproduce them to 1e-12 — and percentile intervals at 2,000 resamples, against which the port's
intervals must agree within Monte-Carlo error.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
from humanlike.resampling.settings import ResamplingSettings


def rows(summary, with_interval=False):
    out = []
    for r in summary.itertuples():
        entry = {"scope": r.scope, "group": r.group, "metric": r.metric,
                 "estimate": None if not np.isfinite(r.estimate) else float(r.estimate)}
        if with_interval:
            entry["ci_low"] = None if not np.isfinite(r.ci_low) else float(r.ci_low)
            entry["ci_high"] = None if not np.isfinite(r.ci_high) else float(r.ci_high)
        out.append(entry)
    return out


def main() -> int:
    from humanlike.measures.ec.analysis import error_consistency
    from humanlike.trials.selection import MODELVSHUMAN_EXCLUSIONS
    from humanlike.trials.loaders import load_trials
    from humanlike.trials.simulate import simulate_benchmark

    target = Path(sys.argv[1])
    demo = simulate_benchmark(seed=0)
    data = Path(os.environ.get("HUMANLIKE_SHARED_DATA", "/work/shared/data")) / "modelvshuman" / "raw-data"
    real = load_trials(data)
    doc = {"source_commit": "bd872ce", "resamples": 2000, "seed": 0, "level": 0.95}
    for policy in ("strict", "model-vs-human"):
        doc[f"demo/{policy}"] = rows(error_consistency(demo, settings=ResamplingSettings(n_resamples=0), policy=policy).summary_table)
        doc[f"real-benchmark/{policy}"] = rows(error_consistency(
            real, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=ResamplingSettings(n_resamples=0), policy=policy).summary_table)
        doc[f"real-all-conditions/{policy}"] = rows(error_consistency(real, settings=ResamplingSettings(n_resamples=0), policy=policy).summary_table)
    doc["demo/intervals"] = rows(error_consistency(demo, settings=ResamplingSettings(n_resamples=2000, seed=0)).summary_table, True)
    doc["demo/intervals-two-level"] = rows(
        error_consistency(demo, settings=ResamplingSettings(n_resamples=2000, seed=0, observer_level="bootstrap")).summary_table, True)
    doc["real-benchmark/intervals"] = rows(error_consistency(
        real, exclusions=MODELVSHUMAN_EXCLUSIONS, settings=ResamplingSettings(n_resamples=2000, seed=0)).summary_table, True)
    target.write_text(json.dumps(compact(doc), allow_nan=False) + "\n")
    return 0


def compact(doc: dict) -> dict:
    """One key list per data set ("scope|group|metric"), then columns of values (None = undefined)."""
    out = {k: v for k, v in doc.items() if not isinstance(v, list)}
    for name, entries in doc.items():
        if not isinstance(entries, list):
            continue
        dataset = name.split("/")[0]
        keys = ["|".join((e["scope"], e["group"], e["metric"])) for e in entries]
        out.setdefault(f"{dataset}/keys", keys)
        if out[f"{dataset}/keys"] != keys:
            raise AssertionError(f"{name}: rows differ from the other runs on {dataset}")
        out[name] = [e["estimate"] for e in entries]
        if "ci_low" in entries[0]:
            out[name + "/ci_low"] = [e["ci_low"] for e in entries]
            out[name + "/ci_high"] = [e["ci_high"] for e in entries]
    return out


if __name__ == "__main__":
    sys.exit(main())
