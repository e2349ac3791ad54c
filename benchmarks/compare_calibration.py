"""Calibration of the paired comparisons: level, coverage and power (docs/compare_calibration.md).

Parts (each writes benchmarks/results/compare_<part>.json; ``--part markdown`` assembles the page and the
power figure docs/figures/compare_power.png from them):

* ``level``: planted null, one human and two models with the same EC and accuracy (copy model, A and B
  independent given the human), 2,000 data sets per cell: rejection rate at alpha 0.05 of the paired bootstrap
  and of the exact label-exchange test.
* ``coverage``: the grid of docs/ec_coverage.md (trials 100-1600, its six accuracy pairs (human, models) and
  five kappas), model A with the cell's kappa, model B with half of it: coverage of the 95% interval of
  EC_A - EC_B that ``compare`` reports for one table (MOVER on the profile-likelihood intervals,
  humanlike.measures.compare.mover), of MOVER with the bootstrap replicates' correlation (its lower limit, and
  as estimated) and of the paired bootstrap's percentile interval, on the same 1,000 data sets per cell.
* ``correlated``: models correlated beyond what the human induces (model B repeats model A's answer on a
  share ``repeat`` of the trials, else answers by its own copy model with EC 0): model A's EC 0.5, B's the
  mixture; trials 100/400/1600, accuracies 0.7/0.8, 0.9/0.95, 0.98/0.98, repeat 0.5 and 0.9; coverage and mean
  width of the four intervals, 1,000 data sets per cell.
* ``pipeline``: the same null through the real pipelines (error_consistency / decision_margin_consistency on a
  trial table, then compare): 1,000 simulated benchmarks each for EC (3 humans, 2 conditions), EC on one
  table (1 human, 1 condition; both tests) and DMC (6 humans).
* ``power``: rejection rate against planted differences (EC: copy model, 400 trials; DMC: margin model, 200
  items, 8 observers), 1,000 data sets per point.

    PYTHONPATH=src python benchmarks/compare_calibration.py --part level   # etc., then --part markdown
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
from humanlike.resampling.settings import ResamplingSettings
from humanlike.measures.dmc.analysis import dmc_settings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
TRIALS = (100, 200, 400, 800, 1600)
ACCURACIES = ((0.55, 0.55), (0.7, 0.8), (0.55, 0.9), (0.9, 0.95), (0.95, 0.98), (0.98, 0.98))
KAPPAS = (-0.2, 0.0, 0.2, 0.5, 0.8)
ALPHA = 0.05


def cell_seed(*key) -> int:
    """A seed fixed by the cell's key (not Python's per-process string hash)."""
    return zlib.crc32(repr(key).encode())


def feasible(k, a1, a2) -> bool:
    from humanlike.measures.ec.copy_model import cell_probabilities

    try:
        cell_probabilities(k, a1, a2)
        cell_probabilities(k / 2, a1, a2)
    except ValueError:
        return False
    return True


def part_level(args) -> dict:
    from humanlike.measures.compare.planning_ec import simulate_ec_comparisons

    rows = []
    for n in (100, 400, 1600):
        for a1, a2 in ACCURACIES:
            for k in (0.0, 0.3):
                if not feasible(k, a1, a2):
                    continue
                t = time.perf_counter()
                n_exact = args.sets if n <= 400 else 250   # the enumeration grows as n^2 near accuracy 0.5
                sim = simulate_ec_comparisons(n, k, k, a1, a2, n_sets=args.sets, n_resamples=args.resamples,
                                              n_exact=n_exact, seed=cell_seed("level", n, a1, a2, k))
                rows.append(dict(trials=n, a_human=a1, a_model=a2, kappa=k, n_sets=args.sets, n_exact=n_exact,
                                 bootstrap=sim.rejection_rate(ALPHA), exact=sim.rejection_rate(ALPHA, "exact"),
                                 seconds=time.perf_counter() - t))
                print(rows[-1], flush=True)
                RESULTS.mkdir(parents=True, exist_ok=True)
                partial = RESULTS / "compare_level.partial.json"
                partial.write_text(json.dumps({"rows": rows, "n_resamples": args.resamples}, indent=1))
    return {"rows": rows, "n_resamples": args.resamples}


def part_coverage(args) -> dict:
    from humanlike.measures.compare.planning_ec import simulate_ec_comparisons

    rows = []
    for n in TRIALS:
        for a1, a2 in ACCURACIES:
            for k in KAPPAS:
                if not feasible(k, a1, a2):
                    continue
                sim = simulate_ec_comparisons(n, k, k / 2, a1, a2, n_sets=args.sets, n_resamples=args.resamples,
                                              exact=False, seed=cell_seed("coverage", n, a1, a2, k))
                rows.append(dict(trials=n, a_human=a1, a_model=a2, kappa_a=k, kappa_b=k / 2,
                                 coverage=sim.coverage(), coverage_mover_bootstrap=sim.coverage("mover-bootstrap"),
                                 coverage_mover_plain=sim.coverage("mover-plain"),
                                 coverage_percentile=sim.coverage("percentile"),
                                 undefined=float(np.mean(~np.isfinite(sim.difference)))))
                print(rows[-1], flush=True)
    return {"rows": rows, "n_resamples": args.resamples, "n_sets": args.sets}


def part_correlated(args) -> dict:
    from humanlike.measures.compare.planning_ec import simulate_ec_comparisons

    rows = []
    for n in (100, 400, 1600):
        for a1, a2 in ((0.7, 0.8), (0.9, 0.95), (0.98, 0.98)):
            for repeat in (0.5, 0.9):
                sim = simulate_ec_comparisons(n, 0.5, 0.0, a1, a2, n_sets=args.sets, n_resamples=args.resamples,
                                              exact=False, repeat=repeat,
                                              seed=cell_seed("correlated", n, a1, a2, repeat))
                widths = {"mover": np.nanmean(sim.ci_high - sim.ci_low)}
                for key, (low, high) in sim.alternatives.items():
                    widths[key] = np.nanmean(high - low)
                rows.append(dict(trials=n, a_human=a1, a_model=a2, repeat=repeat, difference=sim.true_difference,
                                 coverage=sim.coverage(), coverage_mover_bootstrap=sim.coverage("mover-bootstrap"),
                                 coverage_mover_plain=sim.coverage("mover-plain"),
                                 coverage_percentile=sim.coverage("percentile"), width=float(widths["mover"]),
                                 width_mover_bootstrap=float(widths["mover-bootstrap"]),
                                 width_mover_plain=float(widths["mover-plain"]),
                                 width_percentile=float(widths["percentile"])))
                print(rows[-1], flush=True)
    return {"rows": rows, "n_resamples": args.resamples, "n_sets": args.sets}


def _twins(seed, n_items, n_humans, experiments):
    from humanlike.trials.simulate import SDTObserver, simulate_benchmark

    twins = [SDTObserver(name, "model", noise_sd=0.0, sensitivity=0.7, bias=0.0, shared=0.5)
             for name in ("model-a", "model-b")]
    return simulate_benchmark(seed=seed, n_humans=n_humans, models=twins, n_items=n_items, experiments=experiments)


def part_pipeline(args) -> dict:
    from humanlike.measures.compare.adapters import compare
    from humanlike.measures.dmc.analysis import decision_margin_consistency
    from humanlike.measures.ec.analysis import error_consistency

    warnings.simplefilter("ignore")
    out = {}
    jobs = {
        "ec (3 humans, 2 conditions, 160 items each)": ("ec", 3, 160, {"sim": {"0": 0.9, "1": 0.6}}, False),
        "ec one table (1 human, 400 trials)": ("ec", 1, 400, {"sim": {"0": 0.8}}, True),
        "dmc (6 humans, 2 conditions, 160 items each)": ("dmc", 6, 160, {"sim": {"0": 0.9, "1": 0.6}}, False),
    }
    for name, (measure, humans, items, experiments, exact) in jobs.items():
        t = time.perf_counter()
        boot, ex = [], []
        for k in range(args.sets):
            trials = _twins(10_000 + k, items, humans, experiments)
            if measure == "ec":
                r = error_consistency(trials, settings=ResamplingSettings(n_resamples=args.resamples, seed=k), validate=False)
            else:
                r = decision_margin_consistency(trials, settings=dmc_settings(n_resamples=args.resamples, seed=k), validate=False)
            c = compare(r, trials=trials if exact else None).pairs
            boot.append(bool(c.loc[c["test"].str.startswith("paired"), "resolved"].iloc[0]))
            if exact:
                ex.append(bool(c.loc[c["test"] == "exact label exchange", "resolved"].iloc[0]))
        out[name] = dict(n_sets=args.sets, n_resamples=args.resamples, bootstrap=float(np.mean(boot)),
                         exact=float(np.mean(ex)) if ex else None, seconds=time.perf_counter() - t)
        print(name, out[name], flush=True)
    return out


def part_power(args) -> dict:
    from humanlike.measures.compare.planning_dmc import simulate_dmc_comparisons
    from humanlike.measures.compare.planning_ec import simulate_ec_comparisons

    ec = []
    for delta in (0.0, 0.05, 0.1, 0.15, 0.2, 0.3):
        sim = simulate_ec_comparisons(400, 0.2 + delta, 0.2, 0.8, 0.8, n_sets=args.sets, n_resamples=args.resamples,
                                      seed=int(delta * 1000) + 1)
        ec.append(dict(delta=delta, bootstrap=sim.rejection_rate(ALPHA), exact=sim.rejection_rate(ALPHA, "exact"),
                       coverage=sim.coverage(), coverage_percentile=sim.coverage("percentile")))
        print("ec", ec[-1], flush=True)
    dmc = []
    for delta in (0.0, 0.05, 0.1, 0.15, 0.2, 0.3):
        sim = simulate_dmc_comparisons(200, 8, 0.4 + delta, 0.4, n_sets=args.sets, n_resamples=args.resamples,
                                       seed=int(delta * 1000) + 2)
        dmc.append(dict(delta_rho=delta, delta_dmc=sim.true_difference, bootstrap=sim.rejection_rate(ALPHA),
                        coverage=sim.coverage()))
        print("dmc", dmc[-1], flush=True)
    return {"ec": ec, "dmc": dmc, "n_sets": args.sets, "n_resamples": args.resamples}


def _se(p, n):
    return np.sqrt(p * (1 - p) / n)


def part_markdown(args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    level_file = RESULTS / "compare_level.json"
    if not level_file.exists():   # an interrupted run: its finished cells
        level_file = RESULTS / "compare_level.partial.json"
    level = json.loads(level_file.read_text())
    cov = json.loads((RESULTS / "compare_coverage.json").read_text())
    pipe = json.loads((RESULTS / "compare_pipeline.json").read_text())
    power = json.loads((RESULTS / "compare_power.json").read_text())
    lines = ["# Calibration of the paired comparisons", "",
             "<!-- generated by benchmarks/compare_calibration.py --part markdown: do not edit by hand -->", "",
             "Nominal level alpha = 0.05, intervals 95%. Monte-Carlo standard error of a rate p over N data sets: "
             "sqrt(p (1 - p) / N) (0.0049 at 0.05 with N = 2,000; 0.0069 with N = 1,000). Definitions: "
             "[compare](compare.md). Rerun: `PYTHONPATH=src python benchmarks/compare_calibration.py --part "
             "level|coverage|correlated|pipeline|power`, then `--part markdown`.", ""]
    # pipeline
    lines += ["## Level through the real pipelines", "",
              "Two models with identical parameters (equal population EC, DMC and accuracy) in a simulated "
              "benchmark; each data set analysed by `error_consistency` / `decision_margin_consistency` and "
              "`humanlike.compare`; the share declared resolved.", "",
              "| data | data sets | resamples | paired bootstrap | exact label exchange |", "|---|---:|---:|---:|---:|"]
    for name, r in pipe.items():
        if not isinstance(r, dict):
            continue
        ex = "" if r["exact"] is None else f"{r['exact']:.3f}"
        lines.append(f"| {name} | {r['n_sets']} | {r['n_resamples']} | {r['bootstrap']:.3f} "
                     f"(SE {_se(r['bootstrap'], r['n_sets']):.3f}) | {ex} |")
    # level grid
    rows = level["rows"]
    lines += ["", "## Level on one table (copy model)", "",
              f"One human, two models with the same EC and accuracy; {rows[0]['n_sets']} data sets per cell for the "
              f"paired bootstrap ({level['n_resamples']} resamples), the exact test on the first `n exact` of them "
              "(its enumeration grows as n^2 near accuracy 0.5). Rates above 0.05 + 2 SE are marked `*`.", "",
              "| trials | acc human | acc models | kappa | paired bootstrap | exact label exchange | n exact |",
              "|---:|---:|---:|---:|---:|---:|---:|"]

    def mark(v, n):
        return f"{v:.3f}{' *' if v > ALPHA + 2 * _se(ALPHA, n) else ''}"

    for r in rows:
        lines.append(f"| {r['trials']} | {r['a_human']} | {r['a_model']} | {r['kappa']:+.1f} | "
                     f"{mark(r['bootstrap'], r['n_sets'])} | {mark(r['exact'], r['n_exact'])} | {r['n_exact']} |")
    boot = np.array([r["bootstrap"] for r in rows])
    exact = np.array([r["exact"] for r in rows])
    lines += ["", f"Paired bootstrap: mean {boot.mean():.3f}, max {boot.max():.3f}; exact: mean {exact.mean():.3f}, "
              f"max {exact.max():.3f} over {len(rows)} cells.", ""]
    # coverage
    crow = cov["rows"]
    corner = np.array([r["trials"] <= 200 and min(r["a_human"], r["a_model"]) >= 0.95 for r in crow])
    methods = [("coverage", "MOVER, reported by `compare`"),
               ("coverage_mover_bootstrap", "MOVER, bootstrap correlation's lower limit"),
               ("coverage_mover_plain", "plain MOVER (bootstrap correlation)"),
               ("coverage_percentile", "percentile (paired bootstrap)")]
    lines += ["## Coverage of the difference interval", "",
              f"Model A with the cell's kappa, model B with half of it, both with the models' accuracy; one human, "
              f"one table; {cov['n_sets']} data sets per cell (Monte-Carlo SE 0.007 at 0.95), {cov['n_resamples']} "
              "resamples; an undefined interval counts as a miss (`undefined`: the share of data sets whose "
              "difference is undefined, a kappa being undefined; the percentile interval is then undefined, "
              "MOVER's is every difference the two profile intervals allow). Four intervals of the same data "
              "sets: **MOVER** as `compare` reports it for one table (the two profile-likelihood intervals "
              "combined with the lower confidence limit of the two kappas' multinomial correlation; "
              "[compare](compare.md)), MOVER with the lower limit of the **bootstrap** replicates' correlation "
              "instead, **plain MOVER** (the bootstrap correlation as estimated) and the paired bootstrap's "
              "**percentile** interval (what `compare` reports for aggregated scores). The discrete corner is "
              "100-200 trials with both accuracies at least 0.95, where the single-pair profile interval is itself "
              "conservative ([EC coverage](ec_coverage.md)).", "",
              "| interval | cells within 0.93-0.97 | below 0.93 | above 0.97 | above 0.97 outside the corner | "
              "min | max |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for key, name in methods:
        c = np.array([r[key] for r in crow])
        inside = int(((c >= 0.93) & (c <= 0.97)).sum())
        lines.append(f"| {name} | {inside} of {len(crow)} | {int((c < 0.93).sum())} | {int((c > 0.97).sum())} | "
                     f"{int(((c > 0.97) & ~corner).sum())} | {c.min():.3f} | {c.max():.3f} |")
    lines += ["", "Cells where the reported (MOVER) interval is outside 0.93-0.97 (`*`):", "",
              "| trials | acc human | acc models | kappa A | kappa B | MOVER | MOVER, bootstrap r | plain MOVER | "
              "percentile | undefined |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in crow:
        if not 0.93 <= r["coverage"] <= 0.97:
            lines.append(f"| {r['trials']} | {r['a_human']} | {r['a_model']} | {r['kappa_a']:+.1f} | "
                         f"{r['kappa_b']:+.2f} | {r['coverage']:.3f} * | {r['coverage_mover_bootstrap']:.3f} | "
                         f"{r['coverage_mover_plain']:.3f} | {r['coverage_percentile']:.3f} | {r['undefined']:.3f} |")
    lines += ["", "<details><summary>Every cell</summary>", "",
              "| trials | acc human | acc models | kappa A | kappa B | MOVER | MOVER, bootstrap r | plain MOVER | "
              "percentile |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in crow:
        lines.append(f"| {r['trials']} | {r['a_human']} | {r['a_model']} | {r['kappa_a']:+.1f} | {r['kappa_b']:+.2f} | "
                     f"{r['coverage']:.3f} | {r['coverage_mover_bootstrap']:.3f} | {r['coverage_mover_plain']:.3f} | "
                     f"{r['coverage_percentile']:.3f} |")
    lines += ["", "</details>", ""]
    correlated_file = RESULTS / "compare_correlated.json"
    if correlated_file.exists():
        corr = json.loads(correlated_file.read_text())
        lines += ["## Coverage with correlated models", "",
                  "In the grid above the two models are independent given the human. Here model B repeats model "
                  "A's answer on a share `repeat` of the trials (else it answers by its own copy model with EC 0 "
                  "and the models' accuracy), so the two estimates are correlated beyond what the human induces; "
                  f"model A's EC 0.5, B's the mixture (0.25 at repeat 0.5, 0.45 at 0.9). {corr['n_sets']} data "
                  f"sets per cell, {corr['n_resamples']} resamples; `*`: below 0.93.", "",
                  "| trials | acc human | acc models | repeat | EC_A - EC_B | MOVER | MOVER, bootstrap r | "
                  "plain MOVER | percentile | width MOVER | width bootstrap r | width plain | width percentile |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

        def star(v):
            return f"{v:.3f}{' *' if v < 0.93 else ''}"

        for r in corr["rows"]:
            lines.append(f"| {r['trials']} | {r['a_human']} | {r['a_model']} | {r['repeat']} | "
                         f"{r['difference']:+.3f} | {star(r['coverage'])} | {star(r['coverage_mover_bootstrap'])} | "
                         f"{star(r['coverage_mover_plain'])} | {star(r['coverage_percentile'])} | {r['width']:.3f} | "
                         f"{r['width_mover_bootstrap']:.3f} | {r['width_mover_plain']:.3f} | "
                         f"{r['width_percentile']:.3f} |")
        lines.append("")
    # power
    lines += ["## Power against planted differences", "",
              f"{power['n_sets']} data sets per point, {power['n_resamples']} resamples, alpha 0.05 (one comparison).",
              "", "![Power of the paired comparisons against the planted difference](figures/compare_power.png)", "",
              "EC: one human, 400 trials, accuracies 0.8, model B's EC 0.2, model A's 0.2 + delta.", "",
              "| delta EC | paired bootstrap | exact label exchange | coverage (MOVER) | coverage (percentile) |",
              "|---:|---:|---:|---:|---:|"]
    for r in power["ec"]:
        lines.append(f"| {r['delta']:.2f} | {r['bootstrap']:.3f} | {r['exact']:.3f} | {r['coverage']:.3f} | "
                     f"{r['coverage_percentile']:.3f} |")
    lines += ["", "DMC: 200 items, 8 observers, true item accuracies Uniform(0.2, 0.95); model B's margin-truth "
              "correlation 0.4, model A's 0.4 + delta; the population DMC difference is delta times the square root "
              "of the pooled index's reliability.", "",
              "| delta rho | delta DMC | paired bootstrap | coverage |", "|---:|---:|---:|---:|"]
    for r in power["dmc"]:
        lines.append(f"| {r['delta_rho']:.2f} | {r['delta_dmc']:.3f} | {r['bootstrap']:.3f} | {r['coverage']:.3f} |")
    (ROOT / "docs" / "compare_calibration.md").write_text("\n".join(lines) + "\n")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    ec = power["ec"]
    axes[0].plot([r["delta"] for r in ec], [r["bootstrap"] for r in ec], "o-", label="paired bootstrap")
    axes[0].plot([r["delta"] for r in ec], [r["exact"] for r in ec], "s--", label="exact label exchange")
    axes[0].set_xlabel("planted EC difference (400 trials, one human)")
    dmc = power["dmc"]
    axes[1].plot([r["delta_dmc"] for r in dmc], [r["bootstrap"] for r in dmc], "o-", label="paired bootstrap")
    axes[1].set_xlabel("planted DMC difference (200 items, 8 observers)")
    for ax in axes:
        ax.axhline(0.05, color="0.5", ls=":", lw=0.8)
        ax.axhline(0.8, color="0.5", ls="--", lw=0.8)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("share declared different (alpha 0.05)")
        ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "figures" / "compare_power.png", dpi=110)
    print("wrote docs/compare_calibration.md and docs/figures/compare_power.png")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("level", "coverage", "correlated", "pipeline", "power", "markdown"),
                        required=True)
    parser.add_argument("--sets", type=int, default=None, help="data sets per cell (defaults per part)")
    parser.add_argument("--resamples", type=int, default=None)
    args = parser.parse_args(argv)
    defaults = {"level": (2000, 500), "coverage": (1000, 500), "correlated": (1000, 500), "pipeline": (1000, 199),
                "power": (1000, 500)}
    if args.part == "markdown":
        part_markdown(args)
        return 0
    sets, resamples = defaults[args.part]
    args.sets = args.sets or sets
    args.resamples = args.resamples or resamples
    started = time.perf_counter()
    result = globals()[f"part_{args.part}"](args)
    result = {"part": args.part, "seconds": time.perf_counter() - started, "result": result}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"compare_{args.part}.json").write_text(json.dumps(result["result"] | {"seconds": result["seconds"]},
                                                                   indent=1))
    print(f"{args.part}: {result['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
