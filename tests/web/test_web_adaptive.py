"""The adaptive server (docs/designs-that-decide.md, issue 34): ``serve init --design discriminate --adaptive``.

Simulated participants answer through the HTTP API, one after another. With people who err where model A errs
(a planted EC difference between A and B) the server stops recruiting at a look before the planned maximum; a
further start gets 410 and the start page shows the closed screen; the export carries each trial's probability
and look and an ``adaptive.json``, and every look's numbers (participants, estimate, se, Z, bound, decision) equal
the offline recomputation from the exported responses, and, for the first look (one design), the pool-level
estimate of ``estimate_difference``. With two identical models the study runs to the maximum. Both backends."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from humanlike.app.cli import main
from humanlike.measures.compare.design_estimate import estimate_difference
from humanlike.measures.compare.discriminating import ItemDesign
from humanlike.web.adaptive_report import replay_adaptive_study
from humanlike.web.config import load_config
from web_bots import answer_all, item_classifier
from web_helpers import SECRET

LABELS = ["cat", "dog", "car", "cup"]
N_ITEMS, CONDITIONS = 24, ("clear", "blurred")
BATCH, MAXIMUM = 4, 24

pytestmark = [pytest.mark.filterwarnings(r"ignore:experiment .e.. \d+ items filed under 2 conditions"),
              pytest.mark.filterwarnings("ignore:error consistency.*undefined in more than")]


def a_right(item: str) -> bool:
    return int(item[-2:]) % 3 != 0


def b_right(item: str) -> bool:
    return int(item[-2:]) % 2 == 0


def make_study(folder, same_models: bool, batch: int = BATCH, maximum: int = MAXIMUM) -> object:
    from PIL import Image

    rows, models = [], []
    for condition in CONDITIONS:
        for i in range(N_ITEMS):
            item, label = f"item{i:02d}", LABELS[i % 4]
            path = folder / "stimuli" / condition / f"{item}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.new("L", (4, 4), 10 * i).save(path)
            rows.append({"item": item, "path": path.relative_to(folder / "stimuli").as_posix(), "label": label,
                         "experiment": "e", "condition": condition})
            for model, right in (("A", a_right(item)), ("B", a_right(item) if same_models else b_right(item))):
                models.append({"observer": model, "observer_kind": "model", "experiment": "e",
                               "condition": condition, "item": item, "label": label,
                               "response": label if right else LABELS[(i + 1) % 4], "correct": right})
    pd.DataFrame(rows).to_csv(folder / "stimuli" / "manifest.csv", index=False)
    pd.DataFrame(models).to_csv(folder / "models.csv", index=False)
    assert main(["serve", "init", str(folder / "study"), "--stimuli", str(folder / "stimuli" / "manifest.csv"),
                 "--task", "classify", "--models", str(folder / "models.csv"), "--design", "discriminate",
                 "--per-participant", "8", "--compare", "A", "B", "--adaptive", "--batch", str(batch),
                 "--max-participants", str(maximum)]) == 0
    return folder / "study"


def follows_a(study, seed):
    """Right with 0.9 where model A is right and 0.15 where it errs; passes the attention checks."""
    return item_classifier(study, lambda row: 0.9 if a_right(row["item"]) else 0.15, seed)


def run_until_closed(client, prepared, limit):
    """Participants one after another until a start is refused; returns how many took part."""
    for k in range(limit + 1):
        reply = client.post("/api/start", json={"consent": True, "params": {"PROLIFIC_PID": f"sim-{k}"}})
        if reply.status_code == 410:
            return k, reply.json()["error"]
        assert reply.status_code == 200, reply.text
        answer_all(client, reply.json()["token"], follows_a(prepared, k))
    raise AssertionError(f"the study never closed after {limit} participants")


def test_adaptive_study_stops_early_and_its_export_replays(tmp_path, client_for, backend, capsys):
    study = make_study(tmp_path, same_models=False)
    config = load_config(study)
    assert config.adaptive == {"batch": BATCH, "max_participants": MAXIMUM, "alpha": 0.05,
                               "spending": "obrien-fleming", "floor": 0.2}
    url = backend()
    client, prepared = client_for(study, url)
    n, error = run_until_closed(client, prepared, MAXIMUM)
    assert BATCH < n < MAXIMUM and n % BATCH == 0, n              # refitted, then stopped before the maximum
    assert "this study is closed: resolved at look" in error
    page = client.get("/")
    assert page.status_code == 200 and '"mode": "closed"' in page.text and "This study is closed" in page.text
    researcher = client.get("/researcher", headers={"Authorization": f"Bearer {SECRET}"}).text
    assert 'data-table="looks"' in researcher and 'data-adaptive="closed"' in researcher
    assert researcher.count("<td>continue</td>") == n // BATCH - 1 and "<td>resolved</td>" in researcher

    argv = ["export", str(study)] + ([] if url is None else ["--db", url])
    if url is not None:   # a database URL: the export goes into the study folder all the same
        argv = ["export", url, "--out", str(study)]
    assert main(argv) == 0
    capsys.readouterr()
    table = pd.read_csv(study / "trials.csv", dtype={"condition": str, "item": str, "experiment": str})
    assert {"probability", "look"} <= set(table.columns) and table["observer"].nunique() == n
    assert sorted(table["look"].unique()) == list(range(n // BATCH))      # each batch drawn from its look's refit
    report = json.loads((study / "adaptive.json").read_text())
    assert report["closed"] and [look["participants"] for look in report["looks"]] == list(range(BATCH, n + 1, BATCH))
    assert [look["decision"] for look in report["looks"]] == ["continue"] * (n // BATCH - 1) + ["resolved"]
    last = report["looks"][-1]
    assert abs(last["z"]) >= last["bound"] and all(abs(look["z"] or 0) < look["bound"] for look in report["looks"][:-1])
    assert last["estimate"] > 0                                            # people err where A errs: EC_A > EC_B

    replayed = replay_adaptive_study(study)
    assert replayed["closed"] and replayed["reason"] == report["reason"]
    for served, again in zip(report["looks"], replayed["looks"], strict=True):
        assert served["decision"] == again["decision"] and served["participants"] == again["participants"]
        for key in ("estimate", "se", "z", "bound", "ci_low", "ci_high"):
            assert (again[key] is None) == (served[key] is None), key    # undefined at a look: None in both
            assert again[key] == pytest.approx(served[key], rel=1e-12, abs=1e-15) if served[key] is not None else True
    # the first look's participants were all drawn from the design file: estimate_difference agrees
    first = table[table["observer"].isin(report["looks"][0]["members"])]
    direct = estimate_difference(ItemDesign.read(study / "discriminate.csv"), first)
    served = report["looks"][0]
    if served["estimate"] is None:   # a (condition, type) cell without a trial yet: undefined, never a number
        assert np.isnan(direct.difference)
    else:
        assert (direct.difference, direct.se) == pytest.approx((served["estimate"], served["se"]), rel=1e-12)
    # the export still analyses as a classification study
    assert main(["ec", str(study if url is None else study / "trials.csv"), "--resamples", "50", "--json"]) == 0


def test_identical_models_run_to_the_maximum(tmp_path, client_for, capsys):
    study = make_study(tmp_path, same_models=True)
    client, prepared = client_for(study)
    n, error = run_until_closed(client, prepared, MAXIMUM)
    assert n == MAXIMUM and "planned maximum of 24 participants was reached" in error
    assert main(["export", str(study)]) == 0
    report = json.loads((study / "adaptive.json").read_text())
    assert [look["decision"] for look in report["looks"]] == ["continue"] * (MAXIMUM // BATCH - 1) + ["maximum"]
    assert replay_adaptive_study(study)["looks"][-1]["decision"] == "maximum"


@pytest.mark.parametrize("extra,message", [
    (["--batch", "5"], "--batch applies with --design adaptive only (or with --design discriminate --adaptive)"),
    (["--max-participants", "40"], "--max-participants apply with --adaptive only"),
    (["--adaptive", "--batch", "20", "--max-participants", "10"], "key 'adaptive.batch'"),
    (["--adaptive", "--design", "subset"], "--adaptive applies with --design discriminate only"),
])
def test_adaptive_init_refuses_what_it_cannot_build(tmp_path, capsys, extra, message):
    from PIL import Image

    (tmp_path / "stimuli" / "c").mkdir(parents=True)
    rows, models = [], []
    for i in range(8):
        Image.new("L", (4, 4), i).save(tmp_path / "stimuli" / "c" / f"item{i:02d}.png")
        rows.append({"item": f"item{i:02d}", "path": f"c/item{i:02d}.png", "label": LABELS[i % 4],
                     "experiment": "e", "condition": "c"})
        models += [{"observer": m, "observer_kind": "model", "experiment": "e", "condition": "c", "item": f"item{i:02d}",
                    "label": LABELS[i % 4], "response": LABELS[i % 4], "correct": (i + k) % 2 == 0}
                   for k, m in enumerate("AB")]
    pd.DataFrame(rows).to_csv(tmp_path / "stimuli" / "manifest.csv", index=False)
    pd.DataFrame(models).to_csv(tmp_path / "models.csv", index=False)
    assert main(["serve", "init", str(tmp_path / "study"), "--stimuli", str(tmp_path / "stimuli" / "manifest.csv"),
                 "--task", "classify", "--models", str(tmp_path / "models.csv"), "--per-participant", "2",
                 "--compare", "A", "B", *extra, *([] if "--design" in extra else ["--design", "discriminate"])]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "study" / "study.toml").exists()


def test_concurrent_workers_take_each_look_once(tmp_path, client_for, backend):
    """Looks taken from many threads at once (as several workers would after their participants finished) are
    written once each, and equal the looks taken one at a time."""
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy import delete

    from humanlike.web import db
    from humanlike.web.adaptive import stored_looks, take_looks

    study = make_study(tmp_path, same_models=False)
    client, prepared = client_for(study, backend())
    for k in range(2 * BATCH):
        token = client.post("/api/start", json={"consent": True, "params": {"PROLIFIC_PID": f"sim-{k}"}}).json()
        answer_all(client, token["token"], follows_a(prepared, k))
    with prepared.engine.connect() as conn:
        before = stored_looks(conn)
    assert [look["participants"] for look in before] == [BATCH, 2 * BATCH]
    with prepared.engine.begin() as conn:
        conn.execute(delete(db.adaptive_looks))
    with ThreadPoolExecutor(8) as pool:
        taken = list(pool.map(lambda _: take_looks(prepared), range(8)))
    assert sorted(len(t) for t in taken) == [0] * 7 + [2]            # one worker took both looks, the others none
    with prepared.engine.connect() as conn:
        again = stored_looks(conn)
    strip = [{k: v for k, v in look.items() if k != "created_at"} for look in before]
    assert [{k: v for k, v in look.items() if k != "created_at"} for look in again] == strip


def test_the_page_says_the_study_is_closed_before_consent(tmp_path):
    """In a real browser: a consent given after recruiting stopped, and a later visit, show the closed screen."""
    import time

    import httpx
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from browser import require_browser
    from humanlike.web.app import open_study
    from web_helpers import ServerProcess

    binary, driver_path = require_browser()
    study = make_study(tmp_path, same_models=True, batch=2, maximum=2)
    prepared = open_study(study)
    server = ServerProcess(study)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(driver_path), options=options)

    def visible(screen):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if chrome.execute_script(f"return !document.getElementById('{screen}').hidden;"):
                return True
            time.sleep(0.05)
        return False

    try:
        chrome.get(server.url + "/?PROLIFIC_PID=late")
        assert visible("screen-consent")
        with httpx.Client(base_url=server.url) as client:   # meanwhile two others take part: the maximum
            for k in range(2):
                token = client.post("/api/start", json={"consent": True, "params": {"PROLIFIC_PID": f"p{k}"}})
                answer_all(client, token.json()["token"], follows_a(prepared, k))
            assert client.post("/api/start", json={"consent": True}).status_code == 410
        chrome.find_element("id", "consent-agree").click()
        assert visible("screen-closed") and not chrome.execute_script(
            "return !document.getElementById('screen-error').hidden;")
        chrome.get(server.url + "/")
        assert visible("screen-closed")
        assert chrome.execute_script("return document.getElementById('screen-consent').hidden;")
    finally:
        chrome.quit()
        server.kill()
        prepared.engine.dispose()
