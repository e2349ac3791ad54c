"""The participant page's texts and device keys, without a browser: every character of the study's texts is
escaped exactly once (``&`` reaches the page as ``&amp;``, never ``&amp;amp;``), no HTML from the config is
markup, Markdown only when the config asks for it, and the device keys reach the page's script."""

from __future__ import annotations

import html
import json
import re

import pytest

from humanlike.web.config import StudyConfig, StudyConfigError
from humanlike.web.texts import render_text
from web_helpers import make_study

NASTY = "Tom & Jerry <3 **bold** </script><script>alert(1)</script> [site](https://example.org/?a=1&b=2)"


def page_of(client_for, tmp_path, **keys) -> tuple[str, dict]:
    client, _ = client_for(make_study(tmp_path, "classify", **keys))
    page = client.get("/").text
    data = re.search(r'<script type="application/json" id="study-config">(.*?)</script>', page, re.S).group(1)
    return page, json.loads(data)


def consent_html(page: str) -> str:
    return re.search(r'<div id="consent-text" class="text">(.*?)</div>', page, re.S).group(1)


def test_plain_text_is_escaped_once_and_never_markup(client_for, tmp_path):
    page, config = page_of(client_for, tmp_path, consent_text=NASTY, title="Cats & dogs <1>",
                           instructions="Press < or >\n\nthen & wait")
    consent = consent_html(page)
    assert consent == "<p>" + html.escape(NASTY) + "</p>"
    assert html.unescape(re.sub(r"<[^>]+>", "", consent)) == NASTY       # what the participant reads
    assert "&amp;amp;" not in page and "<script>alert" not in page and "<strong>" not in page
    assert page.count("<script") == 2        # the config's JSON and experiment.js, nothing from the texts
    assert "<p>Press &lt; or &gt;</p>\n<p>then &amp; wait</p>" in page
    assert "<title>Cats &amp; dogs &lt;1&gt;</title>" in page
    assert config["title"] == "Cats & dogs <1>"                      # the JSON: exact, not HTML-escaped
    assert "consent_text" not in config and "instructions" not in config     # in the HTML, rendered once


def test_markdown_only_when_asked(client_for, tmp_path):
    markdown = consent_html(page_of(client_for, tmp_path / "md", consent_text=NASTY, text_format="markdown")[0])
    assert markdown == ('<p>Tom &amp; Jerry &lt;3 <strong>bold</strong> &lt;/script&gt;&lt;script&gt;alert(1)'
                        '&lt;/script&gt; <a href="https://example.org/?a=1&amp;b=2" target="_blank" '
                        'rel="noopener noreferrer">site</a></p>')
    plain = consent_html(page_of(client_for, tmp_path / "plain", consent_text=NASTY, text_format="plain")[0])
    assert "**bold**" in plain and "<a " not in plain


def test_markdown_lists_paragraphs_and_refused_links():
    text = "First *line*\nsecond line\n\n1. one\n2. two\n\n- a\n- b\n\n[x](javascript:alert(1)) <b>hi</b>"
    assert render_text(text, "markdown").split("\n") == [
        "<p>First <em>line</em><br>second line</p>", "<ol><li>one</li><li>two</li></ol>",
        "<ul><li>a</li><li>b</li></ul>", "<p>[x](javascript:alert(1)) &lt;b&gt;hi&lt;/b&gt;</p>"]


def test_device_keys_reach_the_page(client_for, tmp_path):
    _, config = page_of(client_for, tmp_path, min_screen_width=1024, min_screen_height=700, allow_mobile=False,
                        fullscreen=True)
    assert {k: config[k] for k in ("min_screen_width", "min_screen_height", "allow_mobile", "fullscreen")} == \
        {"min_screen_width": 1024, "min_screen_height": 700, "allow_mobile": False, "fullscreen": True}


@pytest.mark.parametrize(("key", "value", "message"), [
    ("text_format", "html", "key 'text_format': expected one of ['plain', 'markdown'], got 'html'"),
    ("min_screen_width", -5, "key 'min_screen_width': expected a whole number of pixels from 0 to 10000, got -5"),
    ("min_screen_height", 1.5, "key 'min_screen_height': expected a whole number of pixels from 0 to 10000, got 1.5"),
    ("allow_mobile", "no", "key 'allow_mobile': expected true or false, got 'no'"),
    ("fullscreen", 1, "key 'fullscreen': expected true or false, got 1"),
])
def test_bad_device_and_text_keys_name_the_key(key, value, message):
    with pytest.raises(StudyConfigError) as err:
        StudyConfig(title="t", task="classify", stimuli="x", **{key: value})
    assert str(err.value) == message
