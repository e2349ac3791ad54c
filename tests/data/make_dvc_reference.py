"""Reference numbers of the DVC-of-representations code before the engine port (main at 095fce8), for
tests/measures/dvc/test_dvc_port.py.

Run from a checkout of 095fce8 (the numbers must come from the old code, not the code under test):

    git worktree add /tmp/dvc-old 095fce8
    PYTHONPATH=/tmp/dvc-old/src python tests/data/make_dvc_reference.py tests/data/dvc_reference.json

Stored: every row of the summary (estimate, percentile interval at 200 resamples, split SD) for six option
sets on one simulated data set, and the kappa table. The port keeps the random streams (unit splits, PCA test
matrices, image weights ``("dvc", class)``), so it must reproduce the estimates and the replicates up to
float32 rounding.
"""

from __future__ import annotations

import json
import sys
import warnings

from humanlike.measures.dvc.representations import dvc_representations
from humanlike.measures.dvc.simulate import planted_representations
from humanlike.resampling.settings import ResamplingSettings

CASES = {"default": {}, "cv3": {"cv": 3}, "spearman": {"correlation": "spearman"},
         "standardize": {"standardize": True}, "all": {"split_bootstrap": "all"}, "ridge": {"ridge": 0.1}}


def data():
    """The simulated data set of the reference."""
    return planted_representations(0.5, n_classes=3, n_per_class=60, n_units=40, unit_noise=1.5, seed=21)


def run(name, **extra):
    """The analysis of one case."""
    fa, fb, labels = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dvc_representations(fa, fb, labels, n_components=4, n_splits=3, pca_iterations=2,
                                   kappa_folds=3 if name == "default" else 0,
                                   settings=ResamplingSettings(n_resamples=200, seed=3), **CASES[name], **extra)


def main(path: str) -> None:
    out = {}
    for name in CASES:
        frame = run(name).to_frame()
        out[name] = {col: [None if v != v else float(v) for v in frame[col]]
                     for col in ("estimate", "ci_low", "ci_high", "split_sd")}
        if name == "default":
            k = run(name).kappa.to_frame()
            out[name]["kappa"] = k[["estimate", "ci_low", "ci_high"]].values.tolist()
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
