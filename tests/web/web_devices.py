"""Participants' devices in a real browser: Chromium emulating a phone, a tablet or a laptop (the Chrome
DevTools Protocol's device metrics, touch and user agent), a measure of what does not fit the viewport, and a
participant who clicks through a whole session. Used by the device tests and by benchmarks/serve_devices.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


#: 16 response options (the model-vs-human classes' count): the demo's four shapes and twelve more.
SIXTEEN_LABELS = ["circle", "cross", "square", "triangle", "airplane", "bear", "bicycle", "bird", "boat", "bottle",
                  "car", "cat", "chair", "clock", "elephant", "keyboard"]


#: A consent text in Markdown with the characters that were shown double-escaped (``&``, ``<``).
CONSENT = ("We study how people & machines see shapes. Taking part takes **about 2 minutes** (< 5) and is "
           "voluntary.\n\n- You may stop at any time: close the page.\n- We store your answers under a pseudonym.\n"
           "- Questions? [Write to the lab](mailto:lab@example.org).")


def device_studies(folder, **overrides) -> dict:
    """Short demo studies of each task (16 labels for classification; brief timings; the consent text above,
    in Markdown), keys overridden."""
    from web_helpers import make_study

    quick = dict(practice_trials=1, catch_trials=1, trials_per_participant=3, break_every=2, fixation_ms=50,
                 stimulus_ms=50, mask_ms=50, consent_text=CONSENT, text_format="markdown")
    quick.update(overrides)
    return {"classify": make_study(folder / "classify", "classify", labels=SIXTEEN_LABELS, **quick),
            "triads": make_study(folder / "triads", "triads", **quick),
            "quads": make_study(folder / "quads", "quads", **quick)}


@dataclass(frozen=True)
class Device:
    name: str
    width: int
    height: int
    mobile: bool = False          # a phone or tablet: touch, a mobile user agent, the viewport meta tag applies
    screen: tuple[int, int] | None = None    # the device's screen when it differs from the window


PHONE = Device("phone", 375, 667, mobile=True)
TABLET = Device("tablet", 768, 1024, mobile=True)
SMALL_LAPTOP = Device("small-laptop", 900, 497)
DESKTOP = Device("desktop", 1400, 900)
MOBILE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                "Chrome/126.0 Mobile Safari/537.36")


def open_chrome(hide_features: tuple[str, ...] = ()):
    """A headless Chromium (skips or fails as tests/browser.py says when there is none).

    ``hide_features`` are JavaScript property paths deleted before any page script runs (a browser that lacks
    them, for the browser check).
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from browser import require_browser

    binary, driver_path = require_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 "--hide-scrollbars", "--window-size=1400,1100"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(driver_path), options=options)
    chrome.set_page_load_timeout(60)
    for path in hide_features:
        owner, _, name = path.rpartition(".")
        chrome.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": f"try {{ delete {owner}.{name}; }} catch (e) {{}}"})
    return chrome


def emulate(chrome, device: Device) -> None:
    """Make the tab a ``device``: its viewport (CSS pixels), screen, touch and user agent."""
    screen_w, screen_h = device.screen or (device.width, device.height)
    chrome.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": device.width, "height": device.height, "deviceScaleFactor": 1, "mobile": device.mobile,
        "screenWidth": screen_w, "screenHeight": screen_h})
    chrome.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": device.mobile, "maxTouchPoints": 5})
    agent = MOBILE_AGENT if device.mobile else chrome.execute_cdp_cmd("Browser.getVersion", {})["userAgent"]
    chrome.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": agent.replace("HeadlessChrome", "Chrome")})


LAYOUT = """
window.scrollTo(0, 0);
var vw = arguments[0], vh = arguments[1];
var screens = Array.from(document.querySelectorAll('.screen')).filter(function (s) { return !s.hidden; });
var screen = screens.length ? screens[0].id : null;
var shown = function (e) { return !e.hidden && !e.closest('[hidden]') && e.getClientRects().length > 0; };
var outside = [];
Array.from(document.querySelectorAll('button, .pair img, #stage')).filter(shown).forEach(function (e) {
  var r = e.getBoundingClientRect();
  if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
    outside.push((e.id || e.getAttribute('data-label') || e.tagName.toLowerCase()) + ' ' +
                 [r.left, r.top, r.right, r.bottom].map(Math.round).join(','));
  }
});
return {screen: screen, width: vw, height: vh, inner_width: window.innerWidth, scroll_width: document.documentElement.scrollWidth,
        scroll_height: document.documentElement.scrollHeight, outside: outside};
"""


def layout(chrome, device: Device) -> dict:
    """What does not fit the device's viewport: the page's scroll width, and every visible button (and the
    stimuli of a judgement) that lies partly outside it without scrolling.

    Measured against the device's size, not ``innerWidth``: a mobile browser zooms out a page wider than the
    screen, so that ``innerWidth`` grows with the overflow (601 px on a 375 px phone)."""
    return chrome.execute_script(LAYOUT, device.width, device.height)


def wait_for(chrome, script: str, timeout: float = 30.0):
    from selenium.common.exceptions import JavascriptException

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = chrome.execute_script(script)
        except JavascriptException:     # between two pages of a navigation
            value = None
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for: {script}")


SCREEN = """
var on = function (id) { var e = document.getElementById(id); return e && !e.hidden && !e.closest('[hidden]'); };
var order = ['screen-device', 'screen-browser', 'screen-consent', 'screen-instructions', 'screen-break',
             'screen-done', 'screen-error'];
for (var i = 0; i < order.length; i++) { if (on(order[i])) return order[i]; }
if (on('choices')) return document.getElementById('choices').children.length ? 'choices' : null;
if (on('pairs')) return 'pairs';
return null;
"""


def click(chrome, element) -> None:
    """A click (a tap on a touch device) at the element's centre, where it is: no scrolling first."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(chrome).move_to_element(element).click().perform()


def complete_session(chrome, url: str, on_screen=None, limit: int = 200) -> list[str]:
    """Open ``url`` and click through consent, instructions, breaks and every trial (a catch trial answered
    as asked, any other trial with the first option); ``on_screen(name)`` is called on each new screen before
    it is answered. Returns the screens seen, in order."""
    chrome.get(url)
    seen = []
    for _ in range(limit):
        name = wait_for(chrome, SCREEN)
        trial = chrome.execute_script("return document.body.getAttribute('data-trial');")
        seen.append(name)
        if on_screen:
            on_screen(name)
        if name in ("screen-done", "screen-error", "screen-device", "screen-browser"):
            return seen
        if name == "screen-consent":
            click(chrome, chrome.find_element("id", "consent-agree"))
            wait_for(chrome, "return document.getElementById('screen-consent').hidden;")
            continue
        if name in ("screen-instructions", "screen-break"):
            button = "start" if name == "screen-instructions" else "continue"
            click(chrome, chrome.find_element("id", button))
            wait_for(chrome, f"return document.getElementById('{name}').hidden;")
            continue
        if name == "choices":
            prompt = chrome.execute_script("var p = document.getElementById('prompt'); return p.hidden ? '' : p.textContent;")
            target = prompt.split("\u201c")[1].split("\u201d")[0] if "\u201c" in prompt else None
            buttons = chrome.find_elements("css selector", "#choices button")
            chosen = next((b for b in buttons if b.get_attribute("data-label") == target), buttons[0])
            click(chrome, chosen)
        else:
            click(chrome, chrome.find_element("id", "pair-left"))
        wait_for(chrome, f"return document.body.getAttribute('data-trial') !== '{trial}' || "
                         "!document.getElementById('screen-break').hidden;")
    raise AssertionError(f"no end after {limit} screens: {seen[-10:]}")
