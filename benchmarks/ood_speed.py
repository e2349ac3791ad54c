"""Speed of the OOD analysis (issue 7): python benchmarks/ood_speed.py [--data DIR] [--resamples N]

Times loading the model-vs-human raw data and ``ood_analysis`` at N item resamples (default 10,000; 500
observer resamples, 9,999 permutations per test, as the CLI), and reports wall time, CPU time (user + system)
and peak memory as one JSON line. ``--workers 1`` evaluates the strata on one thread (the CPU-time figure).
``--alignment`` times only the alignment: the spectrum first (100 observer resamples), then ``ood_alignment``,
with the wall and CPU time of its resampling-engine call (the alignment bootstrap) reported apart.
Without ``--alignment`` the script uses only the API shared with the pre-port code, so the "before" figure
is the same command against commit bd872ce:
``git worktree add /tmp/old-ood bd872ce && PYTHONPATH=/tmp/old-ood/src python benchmarks/ood_speed.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from humanlike.resampling.settings import ResamplingSettings

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("HUMANLIKE_SHARED_DATA", ROOT.parent / "shared" / "data")) / "modelvshuman" / "raw-data"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=None,
                        help="threads that evaluate strata (default: the engine's, one per core); 1 gives the "
                             "single-threaded CPU figure (not available before the engine had threads)")
    parser.add_argument("--alignment", action="store_true",
                        help="time the alignment alone (after the spectrum), its bootstrap reported apart")
    args = parser.parse_args()
    if args.alignment:
        return time_alignment(args)

    import humanlike
    from humanlike.measures.ood.analysis import ood_analysis
    from humanlike.trials.loaders import load_trials

    wall0, cpu0 = time.perf_counter(), time.process_time()
    trials = load_trials(args.data)
    load_wall = time.perf_counter() - wall0
    if args.workers is None:
        result = ood_analysis(trials, settings=ResamplingSettings(n_resamples=args.resamples, seed=0))
    else:
        from humanlike.resampling.settings import ResamplingSettings

        result = ood_analysis(trials, settings=ResamplingSettings(n_resamples=args.resamples, seed=0,
                                                                  workers=args.workers))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(json.dumps({
        "code": str(Path(humanlike.__file__).resolve().parents[1]), "resamples": args.resamples,
        "workers": args.workers,
        "load_s": round(load_wall, 1), "total_wall_s": round(wall, 1), "total_cpu_s": round(cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0),
        "cpus": os.cpu_count(), "load_average": os.getloadavg()[0],
        "regimes": list(result.spectrum.regimes.names),
    }))
    return 0


def time_alignment(args) -> int:
    """The alignment bootstrap alone: wall and CPU time of ``ood_alignment`` and of its engine call."""
    import humanlike
    import humanlike.measures.ood.alignment as alignment_module
    from humanlike.measures.ood.spectrum import ood_spectrum
    from humanlike.trials.loaders import load_trials
    from humanlike.resampling.settings import ResamplingSettings

    trials = load_trials(args.data)
    spectrum = ood_spectrum(trials, n_observer_resamples=100)
    engine_call = alignment_module.bootstrap
    timed = {}

    def bootstrap(*a, **k):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        result = engine_call(*a, **k)
        timed.update(bootstrap_wall_s=round(time.perf_counter() - wall0, 2),
                     bootstrap_cpu_s=round(time.process_time() - cpu0, 2))
        return result

    alignment_module.bootstrap = bootstrap
    wall0, cpu0 = time.perf_counter(), time.process_time()
    alignment_module.ood_alignment(trials, spectrum, settings=ResamplingSettings(
        n_resamples=args.resamples, seed=0, workers=args.workers))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(json.dumps({
        "code": str(Path(humanlike.__file__).resolve().parents[1]), "part": "alignment",
        "resamples": args.resamples, "workers": args.workers, **timed,
        "alignment_wall_s": round(wall, 2), "alignment_cpu_s": round(cpu, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0),
        "cpus": os.cpu_count(), "load_average": os.getloadavg()[0],
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
