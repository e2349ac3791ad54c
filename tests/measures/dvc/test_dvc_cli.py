"""The ``humanlike dvc`` commands: JSON documents, figures, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from humanlike.trials.representations import Representation, save_representation
from humanlike.measures.dvc.simulate import planted_representations, simulate_choice_pair
from humanlike.app.cli import main


@pytest.fixture()
def representation_files(tmp_path):
    fa, fb, labels = planted_representations(0.6, n_classes=3, n_per_class=100, n_units=60, seed=2)
    items = np.array([f"img{k:03d}" for k in range(labels.size)])
    a = save_representation(Representation(fa, items, labels, name="net-a"), tmp_path / "a.npz")
    b = save_representation(Representation(fb, items, labels, name="net-b"), tmp_path / "b.npz")
    return a, b


def test_represent_json_and_figure(representation_files, tmp_path, capsys):
    a, b = representation_files
    figure = tmp_path / "dvc.png"
    code = main(["dvc", "represent", str(a), str(b), "--pcs", "5", "--splits", "2", "--resamples", "200",
                 "--json", "--figure", str(figure)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dvc"]["ci_low"] < doc["dvc"]["estimate"] < doc["dvc"]["ci_high"]
    assert abs(doc["dvc"]["estimate"] - 0.6) < 0.15
    assert len(doc["pairs"]) == 3 and len(doc["classes_table"]) == 3
    assert doc["kappa"]["kappa"]["estimate"] <= doc["kappa"]["kappa_bound"]["estimate"]
    assert figure.stat().st_size > 1000


def test_represent_bca_and_pca_per_pair(representation_files, capsys):
    a, b = representation_files
    code = main(["dvc", "represent", str(a), str(b), "--pcs", "4", "--splits", "2", "--resamples", "150",
                 "--interval", "bca", "--pca-scope", "pair", "--workers", "1", "--no-kappa", "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["interval"] == "bca" and doc["settings"]["pca_scope"] == "pair"
    assert doc["dvc"]["ci_low"] < doc["dvc"]["estimate"] < doc["dvc"]["ci_high"]
    assert abs(doc["dvc"]["estimate"] - 0.6) < 0.15


def test_represent_observer_level_is_a_clear_error(representation_files, capsys):
    a, b = representation_files
    assert main(["dvc", "represent", str(a), str(b), "--pcs", "4", "--resamples", "0",
                 "--observer-level", "bootstrap"]) == 2
    assert "observer_level" in capsys.readouterr().err


def test_represent_too_many_pcs_is_a_clear_error(representation_files, capsys):
    a, b = representation_files
    assert main(["dvc", "represent", str(a), str(b), "--pcs", "40", "--resamples", "0"]) == 2
    assert "principal components" in capsys.readouterr().err


def test_choices_two_category_json(tmp_path, capsys):
    path = tmp_path / "trials.csv"
    simulate_choice_pair(0.6, n_per_category=400, seed=1).to_csv(path, index=False)
    assert main(["dvc", "choices", str(path), "--resamples", "200", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    pairs = doc["experiments"]["sim"]["pairs"]
    assert {p["category"] for p in pairs} == {"a", "b"}
    assert all(p["ci_low"] < p["rho"] < p["ci_high"] for p in pairs)


def test_choices_benchmark_groups(demo_trials, tmp_path, capsys):
    path = tmp_path / "trials.csv"
    demo_trials[demo_trials["experiment"] == demo_trials["experiment"].iloc[0]].to_csv(path, index=False)
    assert main(["dvc", "choices", str(path), "--resamples", "100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    tet = doc["tetrachoric_correctness"]
    assert set(tet) >= {"human_human", "model_human", "model_model"}
    assert tet["human_human"]["ci_low"] <= tet["human_human"]["mean"] <= tet["human_human"]["ci_high"]
