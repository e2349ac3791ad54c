"""Reference numbers of the OOD analysis before its speed-up (branch ood-speed, made from main at 095fce8).

Run from a checkout of the code before the speed-up (the numbers must come from the old code):

    git worktree add /tmp/ood-before 095fce8
    HUMANLIKE_SHARED_DATA=/work/shared/data PYTHONPATH=/tmp/ood-before/src \
        python tests/data/make_ood_speed_reference.py tests/data/ood_speed_reference.npz

Stored (float64): on model-vs-human, ``ood_analysis(trials, n_resamples=200, n_observer_resamples=100,
n_permutations=999, seed=0)`` (the ``mvh_result`` fixture of tests/measures/ood/test_ood_pipeline.py): the estimate,
percentile interval and undefined share of every alignment output (pairs, groups, ratios, regime ratios), the
spectrum (OOD scores and their intervals, regime labels, initialisation and bootstrap stability, mixture
means, SDs, weights, BIC) and the two structure tests; on the demo data (``simulate_benchmark(seed=0)``), the
intervals of every output at 1,000 resamples. The speed-up must keep the estimates to 1e-12 and the intervals
to float32 rounding of the replicates.

Regenerated (issue 22) when a stratum's random stream came to be named by the number its condition spells
(``humanlike.trials.design.Stratum.stream_key``): the same old code 095fce8 (``git archive 095fce8``) with its
one item-weights line in ``stats/engine.py``, ``item_weights(settings.seed, s.key, ...)``, given the key
``tuple(stream_label(p) for p in s.key)`` (``humanlike.trials.names.stream_label`` of the new code), run with
this script's imports as they were at 76424ea (``humanlike.analyses.ood``, ``humanlike.data.loaders``,
``humanlike.data.simulate``, ``humanlike.presentation.cli_ood``, ``humanlike.stats.engine``). Only the
intervals (and undefined shares) of uniform-noise 0.00/0.10/0.20/0.60/0.90, of the demo's sim-noise
0.00/0.10/0.20 and of the far-OOD regime ratios moved; estimates and the spectrum are the same numbers.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np


def main(out: str) -> None:
    from humanlike.measures.ood import analysis as ood
    from humanlike.trials.loaders import load_trials
    from humanlike.trials.simulate import simulate_benchmark
    from humanlike.measures.ood.cli import demo_reference
    from humanlike.resampling.settings import ResamplingSettings

    data = Path(os.environ["HUMANLIKE_SHARED_DATA"]) / "modelvshuman" / "raw-data"
    trials = load_trials(data)
    r = ood.ood_analysis(trials, settings=ResamplingSettings(n_resamples=200, seed=0), n_observer_resamples=100, n_permutations=999)
    res = r.resampled
    low, high = res.interval()
    cond = r.spectrum.conditions
    fit = r.spectrum.regimes
    demo = simulate_benchmark(seed=0)
    sp = ood.ood_spectrum(demo, demo_reference(demo), n_observer_resamples=0)
    dres = ood.ood_alignment(demo, sp, settings=ResamplingSettings(n_resamples=1000, seed=0)).resampled
    dlow, dhigh = dres.interval()
    np.savez_compressed(
        out,
        labels=np.array(["|".join(map(str, lab)) for lab in res.labels]),
        estimate=res.estimate, low=low, high=high, undefined_share=res.undefined_share(),
        ood_score=cond["ood_score"].to_numpy(float), ood_score_low=cond["ood_score_low"].to_numpy(float),
        ood_score_high=cond["ood_score_high"].to_numpy(float), regime_label=cond["regime_label"].to_numpy(),
        init_stability=cond["init_stability"].to_numpy(float),
        bootstrap_stability=cond["bootstrap_stability"].to_numpy(float),
        regime_means=fit.means, regime_sds=fit.sds, regime_weights=fit.weights, bic=fit.bic,
        tests=np.array([r.family_test.statistic, r.family_test.p_value, r.regime_test.statistic,
                        r.regime_test.p_value]),
        demo_labels=np.array(["|".join(map(str, lab)) for lab in dres.labels]),
        demo_estimate=dres.estimate, demo_low=dlow, demo_high=dhigh, demo_undefined_share=dres.undefined_share(),
    )


if __name__ == "__main__":
    main(sys.argv[1])
