"""The aggregated-EC coverage study (benchmarks/ec_aggregate_coverage.py): its truth and its bootstrap are
the library's (same estimator, same resampling scheme, same jackknife), so the table it publishes measures
what `humanlike ec` does."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "ec_aggregate_coverage.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("ec_aggregate_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trial_table(correct: np.ndarray) -> pd.DataFrame:
    """conditions x trials x observers correctness (observer 0 the model) as a trial table."""
    n_conditions, n_trials, n_obs = correct.shape
    frames = []
    for c in range(n_conditions):
        label = np.where(np.arange(n_trials) % 2 == 0, "cat", "dog")
        for o in range(n_obs):
            right = correct[c, :, o]
            frames.append(pd.DataFrame({
                "observer": "model" if o == 0 else f"subject-{o:02d}", "observer_kind": "model" if o == 0 else "human",
                "experiment": "sim", "condition": f"c{c}", "item": [f"c{c}-{i}" for i in range(n_trials)],
                "label": label, "response": np.where(right, label, np.where(label == "cat", "dog", "cat"))}))
    trials = pd.concat(frames, ignore_index=True)
    trials["correct"] = trials["response"] == trials["label"]
    return trials


def test_the_truth_is_the_kappa_of_the_simulated_process(study):
    # Known ground truth: with very many trials the simulated data's aggregates converge to the cell's truth.
    design = study.cell_design(4, 3, 0.4, study.cell_seed("test"))
    n = 200_000
    x = study.simulate_correctness(design, n, 0.4, np.random.default_rng(1)).astype(float)
    first, second = np.triu_indices(5, 1)      # observer 0 (the model) first: model-human pairs come first
    kappa = study.kappas((x[:, :, first] * x[:, :, second]).sum(axis=1), x[:, :, first].sum(axis=1),
                         x[:, :, second].sum(axis=1), n)
    model_human, human_human = study._aggregate(kappa[None], 4)[0]
    assert model_human == pytest.approx(design["truth"]["model-human"], abs=0.004)
    assert human_human == pytest.approx(design["truth"]["human-human"], abs=0.004)


def test_the_studys_bootstrap_is_the_librarys(study):
    from humanlike.analyses.errorconsistency import error_consistency

    design = study.cell_design(4, 3, 0.4, study.cell_seed("library"))
    correct = study.simulate_correctness(design, 120, 0.4, np.random.default_rng(3))
    estimate, replicates, jackknife = study.bootstrap_aggregates(correct, 3000, np.random.default_rng(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = error_consistency(_trial_table(correct), n_resamples=3000, seed=5, interval="bca")
    columns = result.resampled.where(scope="sim", metric="error_consistency")
    by_group = dict(zip([label[1] for label in columns.labels], range(len(columns.labels))))
    library = [by_group["model"], by_group["humans"]]
    # The same estimates, to rounding ...
    np.testing.assert_allclose(estimate, columns.estimate[library], atol=1e-12)
    # ... the same leave-one-item-out rows (the engine's BCa jackknife), as multisets ...
    np.testing.assert_allclose(np.sort(jackknife, axis=0), np.sort(columns.jackknife[:, library], axis=0), atol=1e-12)
    # ... and the same resampling distribution (different random streams: within Monte-Carlo error).
    np.testing.assert_allclose(np.nanstd(replicates, axis=0), np.nanstd(columns.replicates[:, library], axis=0),
                               rtol=0.08)
    np.testing.assert_allclose(np.nanmean(replicates, axis=0), np.nanmean(columns.replicates[:, library], axis=0),
                               atol=0.2 * np.nanstd(replicates, axis=0).max())


def test_the_section_replaces_itself_in_the_page(study, tmp_path):
    page = tmp_path / "coverage.md"
    page.write_text("# single pair\n\ntable\n")
    study.write_section(page, f"{study.BEGIN}\nfirst\n{study.END}\n")
    study.write_section(page, f"{study.BEGIN}\nsecond\n{study.END}\n")
    text = page.read_text()
    assert text.startswith("# single pair") and "second" in text and "first" not in text
