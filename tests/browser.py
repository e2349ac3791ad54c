"""Open a page in a real headless browser (Debian's Chromium + ChromeDriver through Selenium), as a reader would.

Locally the browser tests skip when no browser is installed; in CI (CI=true) a missing browser is an error, so
the report can never pass untested. ``.ci/run`` installs ``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")


@dataclass
class PageVisit:
    console: list[dict]
    requests: list[str]
    figures: list[dict]
    tables: dict[str, list[list[str]]]
    headers: dict[str, list[str]]
    screenshot: Path
    title: str
    overflow: dict[str, int]      # per table: pixels its box scrolls sideways (0: it fits the page)
    bounds: dict[str, list[list[list[str]]]]   # per table, row and cell: [data-low, data-high] of an interval


def require_browser() -> tuple[str, str]:
    binary = next((shutil.which(b) for b in CHROMIUM if shutil.which(b)), None)
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        message = "no headless browser (install Debian's chromium and chromium-driver)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    try:
        import selenium  # noqa: F401
    except ImportError:
        if IN_CI:
            pytest.fail("selenium is not installed (pip install -e '.[test]')")
        pytest.skip("selenium is not installed")
    return binary, driver


def visit(page: Path, screenshot: Path, width: int = 1280, height: int = 900) -> PageVisit:
    """Load ``page`` from disk, wait for it, and read back what a reader sees."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = require_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(Path(page).resolve().as_uri())
        driver.execute_script("return document.readyState")
        figures = driver.execute_script("""
            return Array.from(document.querySelectorAll('img')).map(function (img) {
              var box = img.getBoundingClientRect();
              return {key: img.getAttribute('data-figure'), alt: img.getAttribute('alt') || '',
                      complete: img.complete, natural_width: img.naturalWidth, width: box.width, height: box.height};
            });""")
        tables = driver.execute_script("""
            var out = {};
            document.querySelectorAll('table[data-table]').forEach(function (t) {
              out[t.getAttribute('data-table')] = Array.from(t.tBodies[0].rows).map(function (r) {
                return Array.from(r.cells).map(function (c) { return c.getAttribute('data-value'); });
              });
            });
            return out;""")
        headers = driver.execute_script("""
            var out = {};
            document.querySelectorAll('table[data-table]').forEach(function (t) {
              out[t.getAttribute('data-table')] = Array.from(t.tHead.rows[0].cells).map(function (c) {
                return c.textContent.trim(); });
            });
            return out;""")
        bounds = driver.execute_script("""
            var out = {};
            document.querySelectorAll('table[data-table]').forEach(function (t) {
              out[t.getAttribute('data-table')] = Array.from(t.tBodies[0].rows).map(function (r) {
                return Array.from(r.cells).map(function (c) {
                  return [c.getAttribute('data-low') || '', c.getAttribute('data-high') || '']; });
              });
            });
            return out;""")
        overflow = driver.execute_script("""
            var out = {};
            document.querySelectorAll('table[data-table]').forEach(function (t) {
              var box = t.parentElement;
              out[t.getAttribute('data-table')] = Math.max(0, box.scrollWidth - box.clientWidth);
            });
            return out;""")
        driver.save_screenshot(str(screenshot))
        console = driver.get_log("browser")
        requests = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
        title = driver.title
    finally:
        driver.quit()
    return PageVisit(console, requests, figures, tables, headers, Path(screenshot), title, overflow, bounds)


def external_requests(urls: list[str]) -> list[str]:
    """Requests that left the page's own file (anything but file: and data: URLs)."""
    return [u for u in urls if not (u.startswith("file:") or u.startswith("data:"))]
