"""The security items that are page behaviour, in a real browser (headless Chromium through Selenium): the
completion code appears only on the last screen, a page on another origin cannot create participants, and the
researcher logs in through the form into an HttpOnly cookie that the page's scripts cannot read."""

from __future__ import annotations

import json

import httpx
from sqlalchemy import func, select

from humanlike.web import db
from humanlike.web.app import open_study
from test_web_browser import driver, log_in, visible, wait_for  # noqa: F401  (driver is a fixture)
from web_bots import answer_all, classifier, start
from web_helpers import ServerProcess, make_study


def participants(study) -> int:
    with study.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(db.participants)).scalar_one()


def test_browser_shows_the_completion_code_only_after_the_last_trial(tmp_path, driver):  # noqa: F811
    folder = make_study(tmp_path, "classify", practice_trials=0, catch_trials=0, trials_per_participant=2,
                        completion_code="per-participant", fixation_ms=50, stimulus_ms=50, mask_ms=50,
                        completion_url="https://app.prolific.com/submissions/complete?cc={code}")
    study = open_study(folder)
    server = ServerProcess(folder)
    try:
        driver.get(server.url + "/?PROLIFIC_PID=browser-1")
        wait_for(driver, visible("consent-agree"))
        assert "completion_url" not in driver.page_source and "prolific.com" not in driver.page_source
        driver.find_element("id", "consent-agree").click()
        wait_for(driver, "return window.location.pathname.indexOf('/p/') === 0")
        token = driver.current_url.rsplit("/", 1)[1]
        with httpx.Client(base_url=server.url, timeout=30) as client:
            answer_all(client, token, classifier(study), limit=1)       # all but the last trial, by the API
        wait_for(driver, visible("start"))
        assert not driver.execute_script("return document.getElementById('completion-code').textContent;")
        driver.find_element("id", "start").click()
        wait_for(driver, "var c = document.getElementById('choices'); return c && !c.hidden;")
        driver.find_element("css selector", "#choices button").click()
        code = wait_for(driver, "var d = document.getElementById('screen-done');"
                                "return !d.hidden && document.getElementById('completion-code').textContent;")
        with study.engine.connect() as conn:
            stored = conn.execute(select(db.participants.c.completion_code)
                                  .where(db.participants.c.token == token)).scalar_one()
        assert code == stored and len(code) == 10
    finally:
        server.kill()
        study.engine.dispose()


def test_browser_a_page_on_another_origin_cannot_create_participants(tmp_path, driver):  # noqa: F811
    folder = make_study(tmp_path, "classify")
    study = open_study(folder)
    server = ServerProcess(folder)
    try:
        # "localhost" and "127.0.0.1" are two origins: a page of the one posts to the other, as an attacker would
        driver.get(f"http://localhost:{server.port}/health")
        result = driver.execute_async_script("""
            var done = arguments[arguments.length - 1], target = arguments[0];
            var body = JSON.stringify({consent: true});
            Promise.all([
              fetch(target, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: body})
                .then(function () { return "sent"; }, function (e) { return "blocked: " + e; }),
              fetch(target, {method: "POST", headers: {"Content-Type": "application/json"}, body: body})
                .then(function (r) { return "answered " + r.status; }, function (e) { return "blocked: " + e; })
            ]).then(done);
        """, f"http://127.0.0.1:{server.port}/api/start")
        assert participants(study) == 0, result
        assert result[1].startswith("blocked")       # JSON needs a CORS preflight, which the server never grants
        # the study's own page still works
        driver.get(f"http://127.0.0.1:{server.port}/")
        wait_for(driver, visible("consent-agree"))
        driver.find_element("id", "consent-agree").click()
        wait_for(driver, "return window.location.pathname.indexOf('/p/') === 0")
        assert participants(study) == 1
    finally:
        server.kill()
        study.engine.dispose()


def test_browser_researcher_login_sets_a_cookie_scripts_cannot_read(tmp_path, driver):  # noqa: F811
    folder = make_study(tmp_path, "triads")
    study = open_study(folder)
    server = ServerProcess(folder)
    secret = (folder / "researcher-secret").read_text().strip()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            start(client)
        driver.get(f"{server.url}/researcher?key={secret}")        # an old link: the key leaves the address bar
        wait_for(driver, visible("secret"))
        assert "key=" not in driver.current_url and "Progress" not in driver.page_source
        log_in(driver, server.url, secret)
        assert "<h2>Progress</h2>" in driver.page_source and secret not in driver.page_source
        assert driver.execute_script("return document.cookie;") == ""            # HttpOnly
        cookie = driver.get_cookie("humanlike_researcher")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["value"] != secret
        assert json.dumps(driver.get_cookies()).count(secret) == 0
    finally:
        server.kill()
        study.engine.dispose()
