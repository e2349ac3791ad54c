"""Qian, Geisler & Wei's Appendix A.3 as a figure: python benchmarks/dvc_appendix_a3.py [OUT.png]

10 classes x 100 samples; each system's class scores = one-hot + N(0, 1) noise + a class-wise bias shared by
both systems. Kappa of the argmax choices rises with the bias SD; the DVC (within-class correlations of the
pairwise score differences) stays at its true value 0. Mean and SD over 20 simulations per bias level.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def main() -> int:
    import numpy as np

    from humanlike.measures.dvc.simulate import appendix_a3_decisions
    from humanlike.measures.dvc.metric import known_dv_correlation
    from humanlike.measures.pairs.metric import counts_from_correctness, kappa
    from humanlike.files import save_figure
    from humanlike.measures.dvc.plot import appendix_a3_figure

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/figures/dvc_appendix_a3.png")
    levels = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
    kappas, dvcs = [], []
    for bias in levels:
        k_runs, d_runs = [], []
        for seed in range(20):
            a, b, labels = appendix_a3_decisions(bias, seed=seed)
            k_runs.append(kappa(*counts_from_correctness(a.argmax(1) == labels, b.argmax(1) == labels)))
            d_runs.append(known_dv_correlation(a, b, labels)[0])
        kappas.append(k_runs)
        dvcs.append(d_runs)
    kappas, dvcs = np.array(kappas), np.array(dvcs)
    for bias, k, d in zip(levels, kappas.mean(1), dvcs.mean(1)):
        print(f"bias SD {bias:4.2f}: kappa {k:.3f}  DVC {d:+.3f}")
    save_figure(appendix_a3_figure(levels, kappas.mean(1), dvcs.mean(1), kappas.std(1), dvcs.std(1)), out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
