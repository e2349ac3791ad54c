"""Issue 11, lower layers: reasons and exact p, the published tie rule, planning by simulation,
output integrity (atomic writes, modes, collisions, manifest)."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from humanlike.measures.pairs.metric import REASON_BOTH_CONSTANT, kappa, kappa_reason
from humanlike import files as io
from humanlike.measures.ec.planning import trials_for_ci_width
from humanlike.measures.ec.significance import ec_test_beta_posterior, ec_test_exact
from humanlike.resampling.settings import ResamplingSettings


# --- one observer all right, the other all wrong ---------------------------------------------------

def test_one_right_one_wrong_is_kappa_zero_with_a_true_reason_and_p_one():
    # a=0, b=20 (observer 1 always right), c=0, d=0 -> observer 2 always wrong
    assert kappa(0, 20, 0, 0) == 0.0
    assert kappa_reason(0, 20, 0, 0).item() == ""
    assert kappa_reason(0, 0, 20, 0).item() == ""
    assert kappa_reason(20, 0, 0, 0).item() == REASON_BOTH_CONSTANT
    assert kappa_reason(0, 0, 0, 20).item() == REASON_BOTH_CONSTANT
    r = ec_test_exact(0, 20, 0, 0)
    assert r.p_value == 1.0 and r.p_greater == 1.0
    assert np.isnan(ec_test_exact(20, 0, 0, 0).p_value)


def test_one_trial_reason_is_not_both_constant():
    for table in ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 1)):
        assert kappa_reason(*table).item() == "fewer than two trials"
        assert np.isnan(kappa(*table)) and np.isnan(ec_test_exact(*table).p_value)
    assert kappa(0, 1, 0, 0, policy="model-vs-human") == 0.0  # the benchmark's code: formula as is


# --- Beta-posterior test: the published rule ---------------------------------------------------------

def test_published_rule_counts_strictly_greater_and_is_never_larger():
    counts = (88, 6, 4, 2)
    at_least = ec_test_beta_posterior(*counts, n_simulations=20000, seed=3)
    greater = ec_test_beta_posterior(*counts, n_simulations=20000, seed=3, extreme="greater")
    # Same random numbers: the strict rule drops the ties, which are frequent for a discrete kappa.
    assert greater.p_value < at_least.p_value
    with pytest.raises(ValueError, match="extreme"):
        ec_test_beta_posterior(*counts, extreme="gt")


def test_published_rule_matches_a_direct_count():
    rng_seed = 11
    counts = np.array([70, 10, 12, 8])
    r = ec_test_beta_posterior(*counts, n_simulations=5000, seed=rng_seed, prior=(0, 0), extreme="greater")
    # Re-draw the same null tables (same generator order) and count '>' by hand.
    rng = np.random.default_rng(rng_seed)
    n, k1, k2 = 100, 80, 82
    p1 = rng.beta(k1, n - k1, size=(1, 5000))
    p2 = rng.beta(k2, n - k2, size=(1, 5000))
    s1 = rng.binomial(n, p1)
    sa = rng.binomial(s1, p2)
    sc = rng.binomial(n - s1, p2)
    k_null = kappa(sa, s1 - sa, sc, n - s1 - sc)
    k_obs = kappa(*counts)
    assert r.p_value == pytest.approx(np.mean(np.abs(k_null) > np.abs(k_obs) + 1e-9))


# --- planning: the simulation method gives its own trial count -----------------------------------------

def test_trials_for_width_by_simulation_differs_from_analytic_where_errors_are_few():
    analytic = trials_for_ci_width(0.3, 0.9, 0.95, 0.2, method="analytic")
    simulated = trials_for_ci_width(0.3, 0.9, 0.95, 0.2, method="simulation", n_sim=2000, seed=0)
    assert simulated != analytic


def test_cli_plan_width_by_simulation_prints_the_simulated_count(capsys):
    from humanlike.app.cli import main
    simulated = trials_for_ci_width(0.3, 0.9, 0.95, 0.2, method="simulation", seed=0)
    main(["plan", "ec", "--method", "simulation", "--width", "0.3", "--accuracy", "0.9", "0.95",
          "--kappa", "0.2", "--seed", "0", "--json"])
    assert f'"trials": {simulated}' in capsys.readouterr().out


def test_p_value_min_is_corrected_or_renamed(demo_trials):
    from humanlike.measures.ec.analysis import error_consistency
    name = sorted(demo_trials["experiment"].unique())[0]
    result = error_consistency(demo_trials, experiments=[name], settings=ResamplingSettings(n_resamples=0), pair_intervals=True)
    pairs = pd.DataFrame(result.experiment_json_dict(name)["pairs"])
    assert "p_value_min" not in pairs
    per_condition = result.pairs.groupby(["observer_1", "observer_2"])["p_value"]
    expected = (per_condition.min() * per_condition.count()).clip(upper=1.0)
    got = pairs.set_index(["observer_1", "observer_2"])["p_value_bonferroni"]
    np.testing.assert_allclose(got.loc[expected.index], expected)
    assert (pairs["p_value_bonferroni"] >= pairs["p_value_min_uncorrected"]).all()


# --- output integrity ---------------------------------------------------------------------------------------

def test_written_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        path = io.write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.csv")
        assert (path.stat().st_mode & 0o777) == 0o644
        os.umask(0o077)
        path = io.write_json({"a": 1}, tmp_path / "d.json")
        assert (path.stat().st_mode & 0o777) == 0o600
    finally:
        os.umask(old)


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_no_tmp_left_behind_on_failure(tmp_path, exc):
    def broken(tmp):
        tmp.write_text("half")
        raise exc("interrupted")

    with pytest.raises(exc):
        io.atomic_write(tmp_path / "out.csv", broken)
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_file(tmp_path):
    target = io.write_json({"v": 1}, tmp_path / "r.json")

    class Unserialisable:
        pass

    with pytest.raises(TypeError):
        io.write_json({"v": Unserialisable()}, target)
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_two_outputs_with_one_name_are_refused_or_renamed(tmp_path):
    run = io.RunOutputs(tmp_path)
    run.table(pd.DataFrame({"x": [1]}), tmp_path / "summary", fmt="json")
    with pytest.raises(io.OutputCollisionError, match="summary.json"):
        run.json({"k": 1}, tmp_path / "summary.json")
    renaming = io.RunOutputs(tmp_path / "r", on_collision="rename")
    a = renaming.table(pd.DataFrame({"x": [1]}), tmp_path / "r" / "summary.csv", fmt="json")
    b = renaming.table(pd.DataFrame({"x": [2]}), tmp_path / "r" / "summary.parquet", fmt="json")
    assert a.name == "summary.json" and b.name == "summary-2.json"
    assert json.loads(a.read_text()) == [{"x": 1}] and json.loads(b.read_text()) == [{"x": 2}]


def test_manifest_lists_every_file_with_size_and_hash(tmp_path):
    import hashlib
    run = io.RunOutputs(tmp_path)
    t = run.table(pd.DataFrame({"x": [1, 2]}), tmp_path / "pairs.csv")
    j = run.json({"a": 1}, tmp_path / "summary.json")
    manifest = run.manifest({"command": "ec", "seed": 0})
    doc = json.loads(manifest.read_text())
    assert doc["complete"] is True and doc["settings"] == {"command": "ec", "seed": 0}
    assert [f["path"] for f in doc["files"]] == ["pairs.csv", "summary.json"]
    for entry, path in zip(doc["files"], (t, j)):
        assert entry["bytes"] == path.stat().st_size
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(FileNotFoundError):
        io.write_manifest(tmp_path, [tmp_path / "missing.csv"])
