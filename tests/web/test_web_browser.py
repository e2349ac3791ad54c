"""A real browser (Debian's headless Chromium through Selenium) does a short session of each task by clicking
and pressing keys, with a reload in the middle; the exported tables then go unchanged through ``humanlike ec``
and ``humanlike mlds`` and give the numbers computed from the same responses written down by hand.

Screenshots of each screen are saved; with ``HUMANLIKE_WRITE_SCREENSHOTS=1`` they are also copied into
docs/figures/serve_*.png (the docs page shows them).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import httpx
import pandas as pd
import pytest

from browser import require_browser
from humanlike.app.cli import main
from humanlike.web.app import open_study
from web_bots import answer_all, classifier, scale_judge, start, stimulus_rows
from web_helpers import ServerProcess, make_study

DOCS_FIGURES = Path(__file__).resolve().parents[2] / "docs" / "figures"
KEYS = "1234567890qwertyuiopasdfghjklzxcvbnm"


@pytest.fixture
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = require_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 "--window-size=900,640"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(driver_path), options=options)
    chrome.set_page_load_timeout(60)
    yield chrome
    chrome.quit()


class Screens:
    """Saves small PNG screenshots (palette, 600 px wide) into a folder, and into docs/figures when asked."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.saved = {}

    def take(self, chrome, name: str) -> None:
        from PIL import Image

        raw = self.folder / f"{name}.raw.png"
        chrome.save_screenshot(str(raw))
        with Image.open(raw) as image:
            image = image.convert("RGB")
            image = image.resize((600, round(600 * image.height / image.width)))
            image = image.quantize(colors=64)
            out = self.folder / f"serve_{name}.png"
            image.save(out, optimize=True)
        raw.unlink()
        self.saved[name] = out
        if os.environ.get("HUMANLIKE_WRITE_SCREENSHOTS") == "1":
            DOCS_FIGURES.mkdir(parents=True, exist_ok=True)
            shutil.copy(out, DOCS_FIGURES / out.name)


def wait_for(chrome, script: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = chrome.execute_script(script)
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for: {script}")


def visible(element_id: str) -> str:
    return f"var e = document.getElementById('{element_id}'); return e && !e.hidden && !e.closest('[hidden]');"


def press(chrome, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(chrome).send_keys(key).perform()


def log_in(chrome, url: str, secret: str) -> None:
    """Log in to a researcher page through its form (the secret never goes in a URL)."""
    chrome.get(url + "/researcher")
    wait_for(chrome, visible("secret"))
    chrome.find_element("id", "secret").send_keys(secret)
    chrome.find_element("id", "login").click()
    wait_for(chrome, "return document.querySelector('h2') !== null;")


def consent(chrome, url: str, screens: Screens | None = None) -> None:
    chrome.get(url + "/?PROLIFIC_PID=browser-participant-1&STUDY_ID=s1&SESSION_ID=x1")
    wait_for(chrome, visible("consent-agree"))
    if screens:
        screens.take(chrome, "consent")
    chrome.find_element("id", "consent-agree").click()
    wait_for(chrome, "return window.location.pathname.indexOf('/p/') === 0")
    wait_for(chrome, visible("start"))
    press(chrome, " ")


def test_browser_classification_session_with_reload(tmp_path, driver):
    folder = make_study(tmp_path, "classify", practice_trials=1, catch_trials=1, fixation_ms=400, stimulus_ms=700,
                        mask_ms=200, break_every=0)
    # one condition only, so that every participant sees every item in it (the error consistency of all pairs)
    manifest = folder / "stimuli" / "manifest.csv"
    table = pd.read_csv(manifest, dtype=str)
    table[table["condition"] == "clean"].to_csv(manifest, index=False)
    study = open_study(folder)
    screens = Screens(tmp_path)
    server = ServerProcess(folder)
    written = []       # the responses written down by hand: (observer, item, label, response)
    try:
        consent(driver, server.url, screens)
        token = driver.current_url.rsplit("/", 1)[1]
        by_opaque = study.stimuli.set_index("opaque")
        shots = {"fixation", "stimulus", "response"}
        answered = 0
        while True:
            state = wait_for(driver, "var d = document.getElementById('screen-done'); if (!d.hidden) return 'done';"
                                     "var c = document.getElementById('choices'); if (!c.hidden) return 'choices';"
                                     "var f = document.getElementById('fixation'); if (!f.hidden) return 'fixation';"
                                     "var s = document.getElementById('stimulus'); if (!s.hidden) return 'stimulus';"
                                     "return null;")
            if state == "done":
                break
            if state in ("fixation", "stimulus"):
                if state in shots and answered >= 1:
                    screens.take(driver, state)
                    shots.discard(state)
                time.sleep(0.02)
                continue
            shown = driver.execute_script("return document.body.getAttribute('data-trial');")
            if "response" in shots and answered >= 1:
                screens.take(driver, "response")
                shots.discard("response")
            prompt = driver.execute_script("var p = document.getElementById('prompt'); return p.hidden ? '' : p.textContent;")
            if prompt:
                label = prompt.split("\u201c")[1].split("\u201d")[0]
                item = None
            else:
                src = driver.find_element("id", "stimulus").get_attribute("src")
                row = by_opaque.loc[src.rsplit("/", 1)[1]]
                label, item = row["label"], row["item"]
            options = study.config.labels
            response = label if answered % 4 else options[(options.index(label) + 1) % len(options)]
            if answered % 2:
                press(driver, KEYS[options.index(response)])
            else:
                driver.find_element("css selector", f"#choices button[data-label='{response}']").click()
            written.append((item, label, response))
            answered += 1
            wait_for(driver, f"return document.body.getAttribute('data-trial') !== '{shown}';")
            if answered == 5:       # a reload mid-study resumes at the next unanswered trial
                driver.refresh()
                wait_for(driver, visible("start"))
                assert driver.execute_script("return !document.getElementById('resume-note').hidden;")
                press(driver, " ")
        state = httpx.get(f"{server.url}/api/p/{token}/state").json()
        assert state["done"] and state["answered"] == len(written) == state["total"]
        # two more participants through the API, also written down by hand
        with httpx.Client(base_url=server.url, timeout=30) as client:
            extra = []
            for k in range(2):
                bot = start(client)
                for a in answer_all(client, bot, classifier(study, accuracy_seed=k)):
                    row = stimulus_rows(study, a["trial"])[0] if a["trial"]["stimuli"] else None
                    extra.append((k, a["trial"]["kind"], row, a["response"]))
        driver.set_window_size(900, 1500)
        log_in(driver, server.url, (folder / "researcher-secret").read_text().strip())
        wait_for(driver, "return document.querySelector('img') && document.querySelector('img').complete;")
        screens.take(driver, "researcher")
        assert "browser-participant-1" not in driver.page_source
    finally:
        server.kill()
    exported = pd.read_csv(_export(folder, tmp_path / "trials.csv"), dtype={"condition": str})
    browser_rows = exported[exported["observer"] == exported["observer"].iloc[0]]
    by_hand = [(item, label, response) for item, label, response in written[1:] if item is not None]   # no practice/catch
    assert list(zip(browser_rows["item"], browser_rows["label"], browser_rows["response"])) == by_hand
    print("measured stimulus durations (ms):", browser_rows["stimulus_ms"].round(1).tolist(),
          "refresh (Hz):", browser_rows["refresh_hz"].round(1).unique().tolist())
    assert browser_rows["stimulus_ms"].between(700 - 20, 700 + 200).all(), browser_rows["stimulus_ms"].tolist()
    assert (browser_rows["refresh_hz"] > 0).all() and (browser_rows["rt"] > 0).all()
    # the same responses written by hand as a trial table give the same error consistency
    hand = pd.DataFrame(
        [{"observer": "a-browser", "item": i, "label": lab, "response": r} for i, lab, r in by_hand]
        + [{"observer": f"b-bot{k}", "item": row["item"], "label": row["label"], "response": r}
           for k, kind, row, r in extra if kind == "main"])
    hand = hand.assign(observer_kind="human", experiment="demo-shapes", condition="clean",
                       correct=hand["response"] == hand["label"])
    hand.to_csv(tmp_path / "hand.csv", index=False)
    assert _ec_json(str(folder)) == _ec_json(str(tmp_path / "hand.csv"))
    assert {"consent", "fixation", "stimulus", "response", "researcher"} <= set(screens.saved)


def _export(folder: Path, out: Path) -> Path:
    assert main(["export", str(folder), "--out", str(out)]) == 0
    return out


def _ec_json(source: str) -> dict:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["ec", source, "--resamples", "300", "--seed", "1", "--json"]) == 0
    doc = json.loads(buffer.getvalue())
    doc.pop("sources")   # where the observers came from: the study against a hand-written file, by design
    return _without_observer_names(doc)


def _without_observer_names(obj):
    """EC's JSON with pair tables dropped (observer names differ: pseudonyms against the hand-written ids)."""
    if isinstance(obj, dict):
        return {k: _without_observer_names(v) for k, v in obj.items() if k not in ("pairs", "observers")}
    if isinstance(obj, list):
        return [_without_observer_names(v) for v in obj]
    return obj


def test_browser_triad_session_with_reload(tmp_path, driver):
    folder = make_study(tmp_path, "triads", practice_trials=1, catch_trials=1, trials_per_participant=6,
                        break_every=4)
    study = open_study(folder)
    screens = Screens(tmp_path)
    server = ServerProcess(folder)
    written = []      # (levels shown left, levels shown right, side chosen, kind)
    by_opaque = study.stimuli.set_index("opaque")
    try:
        consent(driver, server.url)
        token = driver.current_url.rsplit("/", 1)[1]
        while True:
            state = wait_for(driver, "if (!document.getElementById('screen-done').hidden) return 'done';"
                                     "if (!document.getElementById('screen-break').hidden) return 'break';"
                                     "if (!document.getElementById('pairs').hidden) return 'pairs'; return null;")
            if state == "done":
                break
            if state == "break":
                press(driver, " ")
                wait_for(driver, "return document.getElementById('screen-break').hidden;")
                continue
            shown = driver.execute_script("return document.body.getAttribute('data-trial');")
            if len(written) == 2:
                screens.take(driver, "triad")
            srcs = driver.execute_script("return [document.body.getAttribute('data-trial')].concat("
                                         "Array.from(document.querySelectorAll('#pairs img')).map(i => i.src));")
            assert srcs[0] == shown
            rows = [by_opaque.loc[src.rsplit("/", 1)[1]] for src in srcs[1:]]
            left, right = rows[:2], rows[2:]
            d_left = abs(float(left[1]["alpha"]) ** 2 - float(left[0]["alpha"]) ** 2)
            d_right = abs(float(right[1]["alpha"]) ** 2 - float(right[0]["alpha"]) ** 2)
            side = "right" if d_right > d_left else "left"
            if len(written) % 2:
                press(driver, "\ue014" if side == "right" else "\ue012")      # arrow keys
            else:
                driver.find_element("id", f"pair-{side}").click()
            written.append(([int(x["level"]) for x in left], [int(x["level"]) for x in right], side))
            wait_for(driver, f"return document.body.getAttribute('data-trial') !== '{shown}' || "
                             "!document.getElementById('screen-break').hidden;")
            if len(written) == 4:
                driver.refresh()
                wait_for(driver, visible("start"))
                press(driver, " ")
        state = httpx.get(f"{server.url}/api/p/{token}/state").json()
        assert state["done"] and state["answered"] == len(written) == state["total"] == 8
        with httpx.Client(base_url=server.url, timeout=30) as client:
            bots = []
            for k in range(6):
                bot = start(client)
                for a in answer_all(client, bot, scale_judge(study, seed=k, sigma=0.15)):
                    shown = [r["level"] for r in stimulus_rows(study, a["trial"])]
                    bots.append((k, a["trial"]["kind"], shown[:2], shown[2:], a["response"]))
    finally:
        server.kill()

    alphas = {int(lv): float(a) for lv, a in study.stimuli.groupby("level")["alpha"].first().items()}

    def physical(observer, left, right, side):
        pairs = sorted([tuple(left), tuple(right)])
        chosen = tuple(left if side == "left" else right)
        levels = sorted(set(pairs[0]) | set(pairs[1]))
        return {"observer": observer, "scale": "s", "s1": levels[0], "s2": levels[1], "s3": levels[2],
                "response": int(chosen == pairs[1]),
                **{f"v{k + 1}": alphas[levels[k]] for k in range(3)}}

    hand = pd.DataFrame([physical("browser", *w) for w in written[1:] if w[0] != [1, 1] and w[1] != [1, 1]]
                        + [physical(f"bot{k}", left, right, side) for k, kind, left, right, side in bots
                           if kind == "main"])
    exported = pd.read_csv(_export(folder, tmp_path / "judgements.csv"))
    assert len(exported) == len(hand)
    hand["scale"] = exported["scale"].to_numpy()                  # same order: participants, then positions
    hand.to_csv(tmp_path / "hand.csv", index=False)
    browser_rows = exported.iloc[:6]
    assert browser_rows[["s1", "s2", "s3", "response"]].to_numpy().tolist() == \
        hand.iloc[:6][["s1", "s2", "s3", "response"]].to_numpy().tolist()
    for source in (tmp_path / "judgements.csv", tmp_path / "hand.csv"):
        pooled = pd.read_csv(source).assign(observer="pooled")
        pooled.to_csv(source.with_suffix(".pooled.csv"), index=False)
    assert _mlds_json(tmp_path / "judgements.pooled.csv") == _mlds_json(tmp_path / "hand.pooled.csv")
    assert "triad" in screens.saved


def _mlds_json(path: Path) -> dict:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["mlds", str(path), "--json", "--resamples", "50", "--seed", "3"]) == 0
    out = json.loads(buffer.getvalue())
    return json.loads(json.dumps(out).replace(str(path), "FILE"))
