"""The MLDS pipeline and the ``humanlike mlds`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from humanlike.measures.mlds.analysis import analyse_mlds
from humanlike.measures.mlds.simulate import simulate_judgements
from humanlike.resampling.settings import ResamplingSettings
from humanlike.app.cli import main


@pytest.fixture()
def r_file(tmp_path):
    table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=2)
    raw = table.rename(columns={"response": "resp", "s1": "S1", "s2": "S2", "s3": "S3", "s4": "S4"})
    path = tmp_path / "sim.csv"
    raw[["resp", "S1", "S2", "S3", "S4"]].to_csv(path, index=False)
    return path


def test_analysis_per_observer_with_intervals_and_tests():
    a = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=3, seed=1, observer="a")
    b = simulate_judgements(np.linspace(0, 1, 7), 0.15, repeats=3, seed=2, observer="b")
    import pandas as pd

    results = analyse_mlds(pd.concat([a, b]), settings=ResamplingSettings(n_resamples=100, seed=3), six_point=50,
                           runs=50)
    assert [r.observer for r in results] == ["a", "b"]
    frame = results.scale_table()
    assert {"ci_low", "ci_high", "standard_scale", "undefined_share"} <= set(frame.columns)
    defined = frame["ci_low"].notna()
    assert np.all(frame.loc[defined, "ci_low"] <= frame.loc[defined, "ci_high"] + 1e-12)
    # the standard scale's anchors (0 and 1 by construction) have no interval: NaN with its reason
    assert frame.loc[~defined, "standard_scale"].isin([0.0, 1.0]).all() and (~defined).sum() == 4
    record = results.to_json_dict()["results"][0]
    assert {"scale", "standard_scale", "sigma", "loglik", "aic", "daf", "n_trials", "intervals", "six_point",
            "runs"} <= set(record)
    again = analyse_mlds(pd.concat([a, b]), settings=ResamplingSettings(n_resamples=100, seed=3))
    np.testing.assert_array_equal(again[0].bootstrap.result.replicates, results[0].bootstrap.result.replicates)
    with pytest.raises(ValueError, match="not in the data"):
        analyse_mlds(a, observer="zz")


def test_separated_observer_is_reported_with_a_note():
    table = simulate_judgements(np.linspace(0, 1, 7), 0.0, seed=1)
    result = analyse_mlds(table, settings=ResamplingSettings(n_resamples=20))[0]
    assert result.status == "separated" and result.bootstrap is None and result.notes
    assert np.isnan(result.to_json_dict()["sigma"])


def test_cli_json_figure_and_table(r_file, tmp_path, capsys):
    figure, table = tmp_path / "scale.png", tmp_path / "out" / "mlds.csv"
    code = main(["mlds", str(r_file), "--resamples", "50", "--six-point", "30", "--seed", "1", "--json",
                 "--figure", str(figure), "--out", str(tmp_path / "out")])
    assert code == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert len(record["scale"]) == 7 and record["scale"][0] == 0 and record["n_trials"] == 105
    assert record["standard_scale"][-1] == pytest.approx(1.0)
    assert "p_value" in record["six_point"] and len(record["intervals"]["standard_scale"]["low"]) == 7
    assert figure.stat().st_size > 0 and table.read_text().startswith("observer,scale_id,level")
    manifest = json.loads((tmp_path / "out" / "humanlike-manifest.json").read_text())
    assert manifest["settings"]["n_resamples"] == 50 and manifest["settings"]["seed"] == 1


def test_cli_text_output_and_errors(r_file, tmp_path, capsys):
    assert main(["mlds", str(r_file), "--link", "logit", "--method", "optim"]) == 0
    assert "optim (logit)" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("resp,S1,S2,S3,S4\n2,1,2,3,4\n")
    assert main(["mlds", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("humanlike mlds: error:") and "bad.csv" in err and "row 1" in err


@pytest.mark.realdata
def test_cli_on_the_vignette_data(shared_data, capsys):
    files = [str(shared_data / "mlds" / f"kk{i}.csv") for i in (1, 2, 3)]
    assert main(["mlds", *files, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert record["n_trials"] == 990 and record["sigma"] == pytest.approx(0.17940608, rel=1e-6)
    assert record["stimulus"][-1] == pytest.approx(0.98)
    assert main(["mlds", str(shared_data / "mlds" / "Transparency.csv"), "--observer", "O3", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"]
    assert [r["observer"] for r in record] == ["O3"]


def test_keep_separated_changes_the_bootstrap_as_r_does(tmp_path, capsys):
    """--keep-separated (R's boot.mlds keeps separated replicates where glm.fit stopped) must change the
    intervals and standard deviations of a bootstrap with separated replicates, and say so."""
    table = simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.2, repeats=1, seed=3)   # steep: many separated
    path = tmp_path / "steep.csv"
    table.to_csv(path, index=False)
    records = []
    for flag in ([], ["--keep-separated"]):
        assert main(["mlds", str(path), "--resamples", "200", "--seed", "2", "--json", *flag]) == 0
        records.append(json.loads(capsys.readouterr().out)["results"][0])
    exclude, keep = records
    assert exclude["bootstrap"]["separated_replicates"] == "exclude" and keep["bootstrap"]["separated_replicates"] == "keep"
    assert exclude["bootstrap"]["separated_share"] == keep["bootstrap"]["separated_share"] > 0.05
    assert exclude["intervals"]["sigma"] != keep["intervals"]["sigma"]
    # Kept replicates are finite: nothing undefined; excluded ones are NaN and counted.
    results = [analyse_mlds(table, settings=ResamplingSettings(n_resamples=200, seed=2), separated_replicates=mode)[0] for mode in ("exclude", "keep")]
    assert np.isnan(results[0].bootstrap.result.replicates).any()
    assert np.isfinite(results[1].bootstrap.result.replicates[:, :-1]).all()
    with pytest.raises(ValueError, match="separated must be one of"):
        analyse_mlds(table, settings=ResamplingSettings(n_resamples=20), separated_replicates="drop")
