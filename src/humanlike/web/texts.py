"""The study's own texts (consent, instructions) as HTML: plain text or a small, safe subset of Markdown.

Everything from the config is escaped exactly once, before any markup is added; the only markup is what this
module writes (paragraphs, line breaks, emphasis, lists, links to http(s) or mailto addresses). Raw HTML in
the config is shown as text, never run. Key ``text_format`` of ``study.toml`` chooses the format.
"""

from __future__ import annotations

import html
import re

TEXT_FORMATS = ("plain", "markdown")

_LIST_ITEM = re.compile(r"^\s*(?:([-*+])|(\d{1,9})[.)])\s+(.*)$")
_LINK = re.compile(r"\[([^\[\]]+)\]\(((?:https?://|mailto:)[^\s()]+)\)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_EMPHASIS = re.compile(r"\*(?=\S)(.+?)(?<=\S)\*|(?<![\w&])_(?=\S)(.+?)(?<=\S)_(?!\w)")


def render_text(text: str, text_format: str = "plain") -> str:
    """The HTML of one of the study's texts.

    Parameters
    ----------
    text : str
        The text as written in ``study.toml``.
    text_format : {"plain", "markdown"}
        ``plain``: paragraphs at blank lines, line breaks kept, nothing else. ``markdown``: also ``*emphasis*``,
        ``**strong**``, lists (``- item``, ``1. item``) and links ``[text](https://...)`` (http, https and
        mailto only; a link opens in a new tab so that the study stays open).

    Returns
    -------
    str
        HTML; every character of ``text`` escaped once (``&`` shows as ``&``, ``<script>`` as text).

    Raises
    ------
    ValueError
        For an unknown format.

    Examples
    --------
    >>> render_text("Tom & Jerry <3\\nsecond line")
    '<p>Tom &amp; Jerry &lt;3<br>second line</p>'
    >>> print(render_text("Read **this** first.\\n\\n- one\\n- [two](https://example.org/?a=1&b=2)", "markdown"))
    <p>Read <strong>this</strong> first.</p>
    <ul><li>one</li><li><a href="https://example.org/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">two</a></li></ul>
    >>> render_text("[x](javascript:alert(1)) <script>alert(1)</script>", "markdown")
    '<p>[x](javascript:alert(1)) &lt;script&gt;alert(1)&lt;/script&gt;</p>'
    """
    if text_format not in TEXT_FORMATS:
        raise ValueError(f"text format: expected one of {list(TEXT_FORMATS)}, got {text_format!r}")
    blocks = [b for b in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()) if b.strip()]
    if text_format == "plain":
        return "\n".join(f"<p>{_lines(block)}</p>" for block in blocks)
    return "\n".join(_markdown_block(block) for block in blocks)


def _lines(block: str, inline=html.escape) -> str:
    return "<br>".join(inline(line.strip()) for line in block.strip().split("\n"))


def _markdown_block(block: str) -> str:
    lines = block.strip().split("\n")
    items = [_LIST_ITEM.match(line) for line in lines]
    if all(items):
        tag = "ul" if items[0].group(1) else "ol"
        return f"<{tag}>" + "".join(f"<li>{_inline(m.group(3))}</li>" for m in items) + f"</{tag}>"
    return f"<p>{_lines(block, _inline)}</p>"


def _inline(raw: str) -> str:
    """Emphasis and links in one line, on the escaped text (so that nothing from the config is markup)."""
    text = html.escape(raw.strip())
    links: list[str] = []

    def link(match: re.Match) -> str:
        label = _emphasis(match.group(1))
        links.append(f'<a href="{match.group(2)}" target="_blank" rel="noopener noreferrer">{label}</a>')
        return f"\x00{len(links) - 1}\x00"

    text = _emphasis(_LINK.sub(link, text))     # links first: emphasis marks inside a URL stay as they are
    return re.sub(r"\x00(\d+)\x00", lambda m: links[int(m.group(1))], text)


def _emphasis(text: str) -> str:
    text = _STRONG.sub(lambda m: f"<strong>{m.group(1) or m.group(2)}</strong>", text)
    return _EMPHASIS.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", text)
