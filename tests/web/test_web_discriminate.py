"""Design ``discriminate`` from ``serve init`` to the pool-level estimate (docs/designs-that-decide.md, issue 34).

``serve init --design discriminate --models M --compare A B`` writes the items' inclusion probabilities beside the
config; simulated participants whose errors follow model A's answer through the participant API (Starlette's
TestClient); each one's main trials are the draw ``ItemDesign.sample(seed, slot)`` of the written design, and the
export's pool-level EC difference equals a hand recomputation from the same responses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from humanlike.app.cli import main
from humanlike.measures.compare.design_estimate import estimate_difference
from humanlike.measures.compare.discriminating import ItemDesign
from humanlike.measures.pairs.metric import kappa
from humanlike.web.config import load_config
from web_bots import answer_all, item_classifier, start

LABELS = ["cat", "dog", "car", "cup"]
N_ITEMS, CONDITIONS = 24, ("clear", "blurred")


def a_right(item: str) -> bool:
    return int(item[-2:]) % 3 != 0


def b_right(item: str) -> bool:
    return int(item[-2:]) % 2 == 0


def make_inputs(folder):
    rows, models = [], []
    for condition in CONDITIONS:
        for i in range(N_ITEMS):
            item, label = f"item{i:02d}", LABELS[i % 4]
            path = folder / "stimuli" / condition / f"{item}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.new("L", (4, 4), 10 * i).save(path)
            rows.append({"item": item, "path": path.relative_to(folder / "stimuli").as_posix(), "label": label,
                         "experiment": "e", "condition": condition})
            for model, right in (("A", a_right(item)), ("B", b_right(item))):
                models.append({"observer": model, "observer_kind": "model", "experiment": "e",
                               "condition": condition, "item": item, "label": label,
                               "response": label if right else LABELS[(i + 1) % 4], "correct": right})
    pd.DataFrame(rows).to_csv(folder / "stimuli" / "manifest.csv", index=False)
    pd.DataFrame(models).to_csv(folder / "models.csv", index=False)
    return folder / "stimuli" / "manifest.csv", folder / "models.csv"


def init(folder, *extra) -> int:
    manifest, models = make_inputs(folder)
    return main(["serve", "init", str(folder / "study"), "--stimuli", str(manifest), "--task", "classify",
                 "--models", str(models), *extra])


def follows_a(study, seed):
    """Right with 0.85 where model A is right and 0.25 where it errs; passes the attention checks."""
    return item_classifier(study, lambda row: 0.85 if a_right(row["item"]) else 0.25, seed)


def by_hand(pool, table):
    """The post-stratified pool-level EC difference, by hand: per condition, the human accuracy on each model
    outcome type (weights are constant within a type) times the type's pool share, the two kappas, averaged."""
    differences = []
    for condition, items in pool.groupby("condition"):
        answers = table[table["condition"] == condition].merge(items, on="item")
        share = items.groupby(["correct_a", "correct_b"]).size() / len(items)
        right = answers.groupby(["correct_a", "correct_b"])["correct"].mean()
        cells = {}
        for model in ("correct_a", "correct_b"):
            # (both right, only the human, only the model, both wrong)
            t = [0.0, 0.0, 0.0, 0.0]
            for (ca, cb), s in share.items():
                p, m = right[(ca, cb)], (ca if model == "correct_a" else cb)
                t[0 if m else 1] += s * p
                t[2 if m else 3] += s * (1 - p)
            cells[model] = t
        differences.append(float(kappa(*cells["correct_a"])) - float(kappa(*cells["correct_b"])))
    return float(np.mean(differences))


@pytest.mark.filterwarnings("ignore:experiment .e.. 24 items filed under 2 conditions")
def test_discriminate_study_from_init_to_the_pool_estimate(tmp_path, client_for, capsys):
    assert init(tmp_path, "--design", "discriminate", "--per-participant", "8", "--compare", "A", "B") == 0
    study = tmp_path / "study"
    config = load_config(study)
    assert (config.design, config.design_file, config.trials_per_participant) == ("discriminate",
                                                                                   "discriminate.csv", 8)
    written = pd.read_csv(study / "discriminate.csv", dtype={"condition": str, "item": str, "experiment": str})
    assert written.groupby("condition")["probability"].sum().round(9).tolist() == [4.0, 4.0]
    design = ItemDesign.from_outcomes(written[["experiment", "condition", "item", "correct_a", "correct_b"]],
                                      ("A", "B"), "discriminating", per_condition=4, floor=0.2)
    assert np.allclose(design.pool["probability"], written["probability"])
    served = ItemDesign.read(study / "discriminate.csv")
    assert served.per_condition == 4 and np.array_equal(served.pool["probability"], written["probability"])

    n = 12
    client, prepared = client_for(study)
    for k in range(n):
        answer_all(client, start(client, {"PROLIFIC_PID": f"sim-{k}"}), follows_a(prepared, k))
    assert main(["export", str(study)]) == 0
    capsys.readouterr()
    table = pd.read_csv(study / "trials.csv", dtype={"condition": str, "item": str, "experiment": str})
    table = table[table["item"].notna()]
    # each participant's main trials are a slot's draw of the written design (slots 1..n, in order of arrival)
    drawn = sorted(sorted(zip(design.pool.loc[design.sample(config.seed, slot)[0], "condition"],
                              design.pool.loc[design.sample(config.seed, slot)[0], "item"]))
                   for slot in range(1, n + 1))
    seen = sorted(sorted(zip(g["condition"], g["item"])) for _, g in table.groupby("observer"))
    assert seen == drawn and all(len(s) == 8 for s in seen)
    # the design shows the items where the models differ (one in four of the pool) on most trials
    differ = table.merge(written, on=["experiment", "condition", "item"])
    assert (differ["correct_a"] != differ["correct_b"]).mean() > 0.5
    estimate = estimate_difference(design, table)
    assert estimate.n_participants == n
    assert estimate.difference == pytest.approx(by_hand(written, table), abs=1e-12)
    chosen = estimate_difference(design, table, estimand="chosen")
    assert chosen.difference != pytest.approx(estimate.difference)


@pytest.mark.filterwarnings("ignore:experiment .e.. 24 items filed under 2 conditions")
@pytest.mark.parametrize("extra,message", [
    (["--design", "discriminate", "--per-participant", "7", "--compare", "A", "B"], "multiple of 2"),
    (["--design", "discriminate", "--per-participant", "8", "--compare", "A", "C"], "model 'C' has no trials"),
    (["--design", "discriminate", "--per-participant", "8"], "needs --models RUNS"),
    (["--design", "subset", "--per-participant", "8", "--compare", "A", "B"], "apply with --design discriminate"),
])
def test_discriminate_init_refuses_what_it_cannot_build(tmp_path, capsys, extra, message):
    assert init(tmp_path, *extra) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "study" / "study.toml").exists()


# --- --measure dmc: the items where the models' margins disagree, and the pool-level DMC estimate ---------------

def margin_of(model: str, condition: str, item: str) -> float:
    """Planted margins: A's rise with the item's number; B's follow A on half the items and oppose it on the rest."""
    i = int(item[-2:]) + (0.5 if condition == "blurred" else 0.0)
    a = (i - 11.5) / 6.0
    return a if model == "A" else (a if int(item[-2:]) % 2 == 0 else -a) + 0.1


def human_chance(condition: str, item: str) -> float:
    """The population's chance of being right: logistic in A's margin (so DMC_A > DMC_B)."""
    return float(1.0 / (1.0 + np.exp(-(0.3 + 1.5 * margin_of("A", condition, item)))))


def make_margin_models(folder):
    models = pd.read_csv(folder / "models.csv", dtype={"item": str, "condition": str})
    models["decision_margin"] = [margin_of(o, c, i) for o, c, i in zip(models["observer"], models["condition"],
                                                                         models["item"])]
    models["correct"] = models["decision_margin"] > 0       # as `humanlike evaluate` writes them
    wrong = [LABELS[(LABELS.index(label) + 1) % 4] for label in models["label"]]
    models["response"] = np.where(models["correct"], models["label"], wrong)
    models.to_csv(folder / "models.csv", index=False)


def follows_chance(study, seed):
    return item_classifier(study, lambda row: human_chance(row["condition"], row["item"]), seed)


def dmc_by_hand(pool, table, estimand):
    """The DMC difference's estimator written out per item (docs/designs-that-decide.md): trial weight
    t = lambda / pi, pair weight t / pi over the pairs of different people; Hajek means; the correlations."""
    differences = []
    for condition, items in pool.groupby("condition"):
        counts = table[table["condition"] == condition].groupby("item")["correct"].agg(["size", "sum"])
        sums = dict.fromkeys(["n", "m", "mm", "mp", "p", "pairs", "pp"], 0.0)
        moments = {"correct_a": dict(sums), "correct_b": dict(sums)}
        for row in items.itertuples():
            n, h = (float(counts.loc[row.item, "size"]), float(counts.loc[row.item, "sum"])) \
                if row.item in counts.index else (0.0, 0.0)
            t = (1.0 if estimand == "pool" else row.probability) / row.probability
            for name, m in (("correct_a", row.margin_a), ("correct_b", row.margin_b)):
                s = moments[name]
                s["n"] += n * t
                s["m"] += n * t * m
                s["mm"] += n * t * m * m
                s["mp"] += h * t * m
                s["p"] += h * t
                s["pairs"] += (n * n - n) * t / row.probability
                s["pp"] += (h * h - h) * t / row.probability
        r = {}
        for name, s in moments.items():
            mean_m, mean_p = s["m"] / s["n"], s["p"] / s["n"]
            cov = s["mp"] / s["n"] - mean_m * mean_p
            r[name] = cov / np.sqrt((s["mm"] / s["n"] - mean_m ** 2) * (s["pp"] / s["pairs"] - mean_p ** 2))
        differences.append(r["correct_a"] - r["correct_b"])
    return float(np.mean(differences))


@pytest.mark.filterwarnings("ignore:experiment .e.. 24 items filed under 2 conditions")
def test_dmc_discriminate_study_from_init_to_the_pool_estimate(tmp_path, client_for, capsys):
    from humanlike.measures.compare.design_estimate_dmc import DmcLayout, dmc_truth, estimate_dmc_difference
    from humanlike.measures.compare.discriminating import design_from_trials

    make_inputs(tmp_path)
    make_margin_models(tmp_path)
    assert main(["serve", "init", str(tmp_path / "study"), "--stimuli", str(tmp_path / "stimuli" / "manifest.csv"),
                 "--task", "classify", "--models", str(tmp_path / "models.csv"), "--design", "discriminate",
                 "--measure", "dmc", "--per-participant", "12", "--compare", "A", "B"]) == 0
    study = tmp_path / "study"
    config = load_config(study)
    keys = {"condition": str, "item": str, "experiment": str}
    written = pd.read_csv(study / "discriminate.csv", dtype=keys)
    models = pd.read_csv(tmp_path / "models.csv", dtype=keys)
    offline = design_from_trials(models, "A", "B", measure="dmc", per_condition=6)
    # the written design is the DMC design: margins kept, probabilities from the margins' disagreement
    assert np.allclose(written["probability"], offline.pool["probability"])
    assert np.array_equal(written[["margin_a", "margin_b"]].to_numpy(), offline.pool[["margin_a", "margin_b"]]
                          .to_numpy())
    ec_design = design_from_trials(models, "A", "B", per_condition=6)
    assert not np.allclose(written["probability"], ec_design.pool["probability"])   # --measure changed the design
    served = ItemDesign.read(study / "discriminate.csv")

    n = 40
    client, prepared = client_for(study)
    for k in range(n):
        answer_all(client, start(client, {"PROLIFIC_PID": f"sim-{k}"}), follows_chance(prepared, k))
    assert main(["export", str(study)]) == 0
    capsys.readouterr()
    table = pd.read_csv(study / "trials.csv", dtype=keys)
    table = table[table["item"].notna()]
    drawn = sorted(sorted(zip(served.pool.loc[served.sample(config.seed, slot)[0], "condition"],
                              served.pool.loc[served.sample(config.seed, slot)[0], "item"]))
                   for slot in range(1, n + 1))
    assert sorted(sorted(zip(g["condition"], g["item"])) for _, g in table.groupby("observer")) == drawn
    truth = dmc_truth(DmcLayout.from_design(served), [human_chance(c, i) for c, i in
                                                      zip(served.pool["condition"], served.pool["item"])])
    assert truth > 0.3
    for estimand in ("pool", "chosen"):
        estimate = estimate_dmc_difference(served, table, estimand=estimand)
        assert estimate.n_participants == n
        assert estimate.difference == pytest.approx(dmc_by_hand(written, table, estimand), abs=1e-10)
    pool = estimate_dmc_difference(served, table)
    assert pool.ci_low < truth < pool.ci_high


@pytest.mark.filterwarnings("ignore:experiment .e.. 24 items filed under 2 conditions")
@pytest.mark.parametrize("extra,message", [
    (["--design", "discriminate", "--measure", "dmc", "--per-participant", "8", "--compare", "A", "B"],
     "needs the models' decision margins"),
    (["--design", "discriminate", "--measure", "dmc", "--adaptive", "--per-participant", "8", "--compare", "A", "B"],
     "--adaptive refits and tests the EC difference"),
    (["--design", "subset", "--measure", "dmc", "--per-participant", "8"],
     "--measure apply with --design discriminate"),
])
def test_dmc_discriminate_init_refuses_what_it_cannot_build(tmp_path, capsys, extra, message):
    assert init(tmp_path, *extra) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "study" / "study.toml").exists()
