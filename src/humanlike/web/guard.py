"""What stands between the internet and a study: request bodies capped before they are read, cross-site
requests refused, and the researcher's login (a form setting an HttpOnly cookie, or an ``Authorization``
header for scripts), so that the researcher secret never travels in a URL.

Everything here is plain ASGI / Starlette; docs/run-your-own-experiment.md#security says what each part answers.
"""

from __future__ import annotations

import hashlib
import hmac
import html
from urllib.parse import parse_qs, urlsplit

#: The largest request body the server reads (a response is about 300 bytes, a start about 200).
MAX_BODY_BYTES = 64 * 1024
#: The cookie that carries the researcher's login (a digest of the secret, never the secret itself).
COOKIE_NAME = "humanlike_researcher"
#: ``Sec-Fetch-Site`` values of a request the server's own pages made (or the user typed).
OWN_SITE = ("same-origin", "none")
METHODS_WITH_BODY = ("POST", "PUT", "PATCH", "DELETE")


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def cross_site_reason(scope) -> str | None:
    """Why a request comes from another site, or None when it comes from the server's own pages (or from a
    program that is not a browser, which sends neither header).

    A browser's ``Sec-Fetch-Site`` cannot be set by a page: only ``same-origin`` (and ``none``, typed by the
    user) pass. A browser without it sends ``Origin`` on a POST: it must name the host the request went to.

    Parameters
    ----------
    scope : dict
        The ASGI scope of the request.

    Returns
    -------
    str or None

    Examples
    --------
    >>> scope = {"headers": [(b"host", b"study.example.org"), (b"origin", b"https://evil.example")]}
    >>> cross_site_reason(scope)
    "origin 'https://evil.example' is not this server (study.example.org)"
    >>> cross_site_reason({"headers": [(b"host", b"h"), (b"sec-fetch-site", b"same-origin")]}) is None
    True
    """
    site = _header(scope, b"sec-fetch-site")
    if site is not None:
        return None if site in OWN_SITE else f"a {site} request (Sec-Fetch-Site)"
    origin = _header(scope, b"origin")
    if origin is None:
        return None
    host = _header(scope, b"host") or ""
    if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        return f"origin {origin!r} is not this server ({host})"
    return None


class RequestGuard:
    """ASGI middleware: a request with a body larger than ``max_bytes`` gets 413 before the body is read
    (by its ``Content-Length``, or as soon as a chunked body passes the limit), and a request with a body from
    another site gets 403 (:func:`cross_site_reason`). The application then reads the body as usual.

    Parameters
    ----------
    app : ASGI application
        The application guarded.
    max_bytes : int
        The largest body accepted.

    Examples
    --------
    >>> from starlette.applications import Starlette
    >>> from starlette.responses import PlainTextResponse
    >>> from starlette.routing import Route
    >>> from starlette.testclient import TestClient
    >>> async def echo(request):
    ...     return PlainTextResponse(str(len(await request.body())))
    >>> client = TestClient(RequestGuard(Starlette(routes=[Route("/", echo, methods=["POST"])]), max_bytes=10))
    >>> client.post("/", content=b"12345").text, client.post("/", content=b"x" * 11).status_code
    ('5', 413)
    >>> client.post("/", content=b"1", headers={"Origin": "https://elsewhere.example"}).status_code
    403
    """

    def __init__(self, app, max_bytes: int = MAX_BODY_BYTES):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in METHODS_WITH_BODY:
            await self.app(scope, receive, send)
            return
        reason = cross_site_reason(scope)
        if reason is not None:
            await _refuse(send, 403, f"cross-site request refused: {reason}")
            return
        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await _refuse(send, 413, f"request body too large (at most {self.max_bytes} bytes)")
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _refuse(send, 413, f"request body too large (at most {self.max_bytes} bytes)")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _refuse(send, status: int, message: str) -> None:
    import json

    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def is_json(content_type: str | None) -> bool:
    """Whether a ``Content-Type`` is JSON (what the participant page sends; a cross-site form cannot).

    Parameters
    ----------
    content_type : str or None
        The header.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_json("application/json; charset=utf-8"), is_json("text/plain"), is_json(None)
    (True, False, False)
    """
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


def cookie_value(secret: str) -> str:
    """The researcher cookie's value: a digest of the secret (the secret itself is never stored in a browser).

    Parameters
    ----------
    secret : str
        The study's researcher secret.

    Returns
    -------
    str

    Examples
    --------
    >>> len(cookie_value("a-long-researcher-secret")), cookie_value("a") == cookie_value("b")
    (64, False)
    """
    return hmac.new(secret.encode(), b"humanlike researcher login", hashlib.sha256).hexdigest()


def matches_secret(given: str, secret: str) -> bool:
    """Whether ``given`` is the secret, compared in constant time.

    Parameters
    ----------
    given : str
        What the request carried.
    secret : str
        The study's researcher secret.

    Returns
    -------
    bool

    Examples
    --------
    >>> matches_secret("s3cret", "s3cret"), matches_secret("s3cre", "s3cret")
    (True, False)
    """
    return hmac.compare_digest(given.encode(), secret.encode())


def researcher_authorised(headers, cookies, secret: str) -> bool:
    """Whether a request carries the researcher's login: the cookie set by the login form, or the header
    ``Authorization: Bearer SECRET`` (scripts). A ``?key=`` in the URL is not a login.

    Parameters
    ----------
    headers : mapping
        The request's headers.
    cookies : mapping
        The request's cookies.
    secret : str
        The study's researcher secret.

    Returns
    -------
    bool

    Examples
    --------
    >>> researcher_authorised({"authorization": "Bearer s3cret"}, {}, "s3cret")
    True
    >>> researcher_authorised({}, {COOKIE_NAME: cookie_value("s3cret")}, "s3cret"), researcher_authorised({}, {}, "s3cret")
    (True, False)
    """
    bearer = headers.get("authorization", "")
    if bearer.lower().startswith("bearer ") and matches_secret(bearer[7:].strip(), secret):
        return True
    return hmac.compare_digest(cookies.get(COOKIE_NAME, "").encode(), cookie_value(secret).encode())


def login_secret(body: bytes) -> str:
    """The secret typed into the login form (an ``application/x-www-form-urlencoded`` body).

    Parameters
    ----------
    body : bytes
        The request body.

    Returns
    -------
    str
        The ``secret`` field, ``""`` when absent.

    Examples
    --------
    >>> login_secret(b"secret=abc%2Bdef")
    'abc+def'
    """
    fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=4)
    return (fields.get("secret") or [""])[0].strip()


def login_page(title: str, base: str, message: str = "") -> str:
    """The researcher's login form (POST to ``BASE/researcher/login``).

    Parameters
    ----------
    title : str
        The study's title.
    base : str
        The URL prefix the study is served under.
    message : str
        Shown above the form (a wrong secret).

    Returns
    -------
    str

    Examples
    --------
    >>> page = login_page("shapes & co", "/study-a", "wrong secret")
    >>> 'action="/study-a/researcher/login"' in page, "shapes &amp; co" in page
    (True, True)
    """
    note = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} \u2013 researcher login</title>
<link rel="stylesheet" href="{html.escape(base)}/static/style.css"></head><body class="researcher">
<h1>{html.escape(title)}</h1>{note}
<form method="post" action="{html.escape(base)}/researcher/login">
<p><label for="secret">Researcher secret (in STUDY/researcher-secret)</label></p>
<p><input id="secret" name="secret" type="password" autocomplete="current-password" required size="40">
<button type="submit" id="login">Log in</button></p></form></body></html>"""
