"""Coverage of the psychometric-fit intervals (threshold, slope, lapse) in model-vs-human's regime.

One command (prints a markdown table; the table in docs/measures/psychometric-fits.md used the defaults)::

    PYTHONPATH=src python benchmarks/psychfit_coverage.py                       # 200 data sets per cell
    PYTHONPATH=src python benchmarks/psychfit_coverage.py --datasets 40 --quick  # one cell, a smoke run

Each data set is one observer answering from a known Weibull function in log10 contrast (guess 1/16, accuracy
0.5 at the planted threshold; :func:`humanlike.measures.psychfit.simulate.simulate_psychometric`) at 9 levels,
with 40 or 160 trials a level (model-vs-human has 160 per observer and condition) and a lapse of 0 or 0.05. It
is analysed exactly as ``humanlike psychfit`` does (:func:`humanlike.measures.psychfit.analysis.
psychometric_fits`: trials resampled within condition by the engine, every resample refitted), and the share
of data sets whose interval covers the planted value is reported per parameter, with its binomial standard
error. CPU time is measured (process time), not wall time, since the machine is shared.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from humanlike.measures.psychfit.analysis import psychometric_fits
from humanlike.measures.psychfit.fit import threshold_slope
from humanlike.measures.psychfit.simulate import planted_location, simulate_psychometric
from humanlike.resampling.settings import ResamplingSettings

GUESS = 1 / 16
THRESHOLD, SCALE = 8.0, 0.2


def cell(trials_per_level: int, lapse: float, datasets: int, resamples: int, level: float) -> dict:
    """Coverage of one cell: share of data sets whose interval covers the planted threshold, slope, lapse."""
    _, slope = threshold_slope("weibull", planted_location(THRESHOLD, SCALE, lapse, GUESS), SCALE, lapse, GUESS, 1, 0.5)
    truth = {"threshold": THRESHOLD, "slope": float(slope), "lapse": lapse}
    hits = {k: 0 for k in truth}
    widths = {k: [] for k in truth}
    for seed in range(datasets):
        trials = simulate_psychometric(seed=10_000 + seed, threshold=THRESHOLD, scale=SCALE, lapse=lapse, n_humans=1,
                                       trials_per_level=trials_per_level, models={}, validate=False)
        row = psychometric_fits(trials, settings=ResamplingSettings(n_resamples=resamples, level=level, seed=seed),
                                validate=False).table("sim-contrast").set_index("observer").loc["subject-01"]
        for name, value in truth.items():
            low, high = row[f"{name}_low"], row[f"{name}_high"]
            if not (np.isfinite(low) and np.isfinite(high)):     # a lapse always at its bound 0: [0, 0]
                low = high = row[name]
            hits[name] += bool(low - 1e-12 <= value <= high + 1e-12)
            widths[name].append(high - low)
    return {name: (hits[name] / datasets, float(np.median(widths[name]))) for name in truth}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=500)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--quick", action="store_true", help="one cell only")
    args = parser.parse_args()
    cells = [(40, 0.0)] if args.quick else [(40, 0.0), (40, 0.05), (160, 0.0), (160, 0.05)]
    se = np.sqrt(args.level * (1 - args.level) / args.datasets)
    print(f"{int(args.level * 100)}% percentile intervals, {args.datasets} data sets per cell, {args.resamples} "
          f"resamples each (binomial SE of a coverage {se:.3f})\n")
    print("| trials/level | lapse | threshold | slope | lapse coverage | median threshold width | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for trials_per_level, lapse in cells:
        start = time.process_time()
        result = cell(trials_per_level, lapse, args.datasets, args.resamples, args.level)
        cpu = time.process_time() - start
        print(f"| {trials_per_level} | {lapse} | {result['threshold'][0]:.3f} | {result['slope'][0]:.3f} | "
              f"{result['lapse'][0]:.3f} | {result['threshold'][1]:.2f} | {cpu:.0f} |")


if __name__ == "__main__":
    main()
