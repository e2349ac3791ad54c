"""Participants on any device, in a real browser (headless Chromium emulating each device): a whole session
of each task on a phone (375x667, touch), a tablet (768x1024, touch) and a desktop (1400x900) with nothing
wider than the screen and every answer button on screen without scrolling; devices the study excludes
refused before consent; the browser check; the study's texts escaped once; the back button's warning.
"""

from __future__ import annotations

import httpx
import pytest

from web_devices import (DESKTOP, PHONE, SMALL_LAPTOP, TABLET, Device, complete_session, device_studies, emulate, layout, open_chrome,
                         wait_for)
from web_helpers import ServerProcess

TASKS = ("classify", "triads", "quads")


@pytest.fixture(scope="module")
def chrome():
    driver = open_chrome()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """The three tasks' short studies, and a strict one: computers only, a window of at least 1024x700,
    fullscreen, Markdown texts with ``&``, ``<`` and a script tag."""
    folder = tmp_path_factory.mktemp("devices")
    found = device_studies(folder)
    found["strict"] = device_studies(folder / "strict", allow_mobile=False, min_screen_width=1024,
                                     min_screen_height=700, fullscreen=True, trials_per_participant=2,
                                     consent_text="Tom & Jerry <3 **bold** <script>alert(1)</script>")["triads"]
    return found


class Servers(dict):
    """``humanlike serve`` of each study, started when a test first asks for it."""

    def __init__(self, studies):
        super().__init__()
        self.studies = studies

    def __missing__(self, name):
        self[name] = ServerProcess(self.studies[name])
        return self[name]


@pytest.fixture(scope="module")
def servers(studies):
    running = Servers(studies)
    yield running
    for server in running.values():
        server.kill()


#: Each task on each of the three sizes, and the 16 labels in the 900x497 window that needed scrolling before.
SESSIONS = [(task, device) for task in TASKS for device in (PHONE, TABLET, DESKTOP)] + [("classify", SMALL_LAPTOP)]


@pytest.mark.parametrize(("task", "device"), SESSIONS, ids=[f"{t}-{d.name}" for t, d in SESSIONS])
def test_a_whole_session_fits_the_device(chrome, servers, task, device):
    emulate(chrome, device)
    measured = []
    seen = complete_session(chrome, servers[task].url + "/", lambda screen: measured.append((screen, layout(chrome, device))))
    assert seen[:2] == ["screen-consent", "screen-instructions"] and seen[-1] == "screen-done"
    assert {"screen-break", "choices" if task == "classify" else "pairs"} <= set(seen)
    for screen, seen_layout in measured:
        assert seen_layout["scroll_width"] <= device.width, (screen, seen_layout)
        assert seen_layout["inner_width"] == device.width, (screen, seen_layout)      # not zoomed out
        assert seen_layout["outside"] == [], (screen, seen_layout)
    assert chrome.execute_script("return document.fullscreenElement;") is None      # not asked for
    token = chrome.current_url.rsplit("/", 1)[1]
    state = httpx.get(f"{servers[task].url}/api/p/{token}/state").json()
    assert state["done"] and state["answered"] == state["total"] == 5       # 1 practice + 3 main + 1 catch


def screen_shown(chrome) -> str:
    return wait_for(chrome, "var s = Array.from(document.querySelectorAll('.screen')).filter(e => !e.hidden);"
                            "return s.length === 1 && s[0].id !== 'screen-loading' ? s[0].id : null;")


def participants(study) -> int:
    from sqlalchemy import create_engine, func, select

    from humanlike.web import db

    engine = create_engine(f"sqlite:///{study / 'study.sqlite'}")
    with engine.connect() as conn:
        count = conn.execute(select(func.count()).select_from(db.participants)).scalar_one()
    engine.dispose()
    return count


@pytest.mark.parametrize(("device", "expected"), [
    (PHONE, "Please use a computer"),
    (Device("small-laptop", 1000, 650, screen=(1000, 650)), "Your screen is too small for this study"),
    (Device("small-window", 900, 600, screen=(1920, 1080)), "Please enlarge the window"),
], ids=["phone", "small-screen", "small-window"])
def test_devices_the_study_excludes_are_refused_before_consent(chrome, servers, studies, device, expected):
    emulate(chrome, device)
    chrome.get(servers["strict"].url + "/")
    assert screen_shown(chrome) == "screen-device"
    assert chrome.find_element("id", "device-title").text == expected
    assert not chrome.find_element("id", "consent-agree").is_displayed()
    assert participants(studies["strict"]) == 0
    assert layout(chrome, device)["outside"] == []
    if device.name == "phone":          # the measure notices what does not fit (a page 100 px too wide)
        chrome.execute_script("document.getElementById('device-text').style.width = '475px';")
        assert layout(chrome, device)["scroll_width"] > device.width
    if device.name == "small-window":     # enlarged: the study goes on by itself
        emulate(chrome, Device("enlarged", 1280, 800, screen=(1920, 1080)))
        # the page hears of the new size on its next resize event: wait for the consent screen, not any screen
        wait_for(chrome, "return !document.getElementById('screen-consent').hidden;")
        assert screen_shown(chrome) == "screen-consent"


def test_texts_fullscreen_and_the_back_button_on_an_accepted_device(chrome, servers, studies):
    from selenium.common.exceptions import NoAlertPresentException

    emulate(chrome, DESKTOP)
    chrome.get(servers["strict"].url + "/")
    assert screen_shown(chrome) == "screen-consent"
    consent = chrome.find_element("id", "consent-text")
    assert consent.text == "Tom & Jerry <3 bold <script>alert(1)</script>"
    assert chrome.execute_script("return [document.querySelectorAll('#consent-text script').length,"
                                 "document.querySelector('#consent-text strong').textContent]") == [0, "bold"]
    with pytest.raises(NoAlertPresentException):
        chrome.switch_to.alert.text
    chrome.find_element("id", "consent-agree").click()
    wait_for(chrome, "return !document.getElementById('screen-instructions').hidden;")
    assert chrome.execute_script("return document.fullscreenElement === document.documentElement;")
    assert "/p/" in chrome.current_url and participants(studies["strict"]) == 1
    chrome.find_element("id", "start").click()
    wait_for(chrome, "return !document.getElementById('pairs').hidden;")
    page = chrome.current_url
    chrome.back()                          # a warning on the same page, not a blank one
    wait_for(chrome, "return !document.getElementById('leave-warning').hidden;")
    assert chrome.current_url == page
    chrome.find_element("id", "leave-stay").click()
    assert chrome.execute_script("return document.getElementById('leave-warning').hidden;")
    seen = complete_session(chrome, page, None)     # a reload resumes the same participant
    assert seen[-1] == "screen-done" and participants(studies["strict"]) == 1


def test_a_browser_without_what_the_page_needs_gets_a_clear_message(servers):
    driver = open_chrome(hide_features=("HTMLImageElement.prototype.decode", "window.URLSearchParams"))
    try:
        driver.get(servers["classify"].url + "/")
        assert screen_shown(driver) == "screen-browser"
        assert driver.find_element("id", "browser-missing").text == "URLSearchParams, image decoding (img.decode)"
    finally:
        driver.quit()
