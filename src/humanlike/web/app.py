"""The ASGI application (Starlette): the participant page and its JSON API, the stimuli under opaque ids, and
the researcher's pages behind the study's secret.

Routes (docs/run-your-own-experiment.md#the-http-api):

- ``GET /``: the consent page; ``POST /api/start``: consent given, a participant is created and gets a token;
- ``GET /p/{token}``: the experiment page (a reload resumes); ``GET /api/p/{token}/state``: the next trial;
  ``POST /api/p/{token}/response``: one response, committed before the answer goes back;
- ``GET /stimulus/{opaque}``: a stimulus image;
- ``GET /researcher``: the login form, then progress and analysis; ``POST /researcher/login`` (the secret, from
  the form) sets an HttpOnly cookie; ``/researcher/figure.png?n=K`` (the page's K-th figure), ``/researcher/export.csv`` (scripts send
  ``Authorization: Bearer SECRET``).

Every request with a body passes :class:`humanlike.web.guard.RequestGuard` (size cap, cross-site refusal). The
state, the responses and the images already in memory are answered by :class:`ParticipantRequests` before the
router (they are nearly every request of a crowd); the other routes by Starlette.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import db
from .config import StudyConfig, load_config, researcher_secret, study_paths
from .guard import (
    COOKIE_NAME, RequestGuard, cookie_value, is_json, login_page, login_secret, matches_secret, researcher_authorised,
)
from .service import Rejected, Study, record_response, start_participant, state, sync_stimuli
from .stimuli import MEDIA_TYPES, read_stimuli
from .texts import render_text

STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
#: Nothing on a page may come from another host.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; "
                               "base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
#: Bytes of stimulus images a server keeps in memory (each read once, then served from memory: a crowd asks
#: for the same few hundred images thousands of times); images beyond it are read from disk on each request.
STIMULUS_CACHE_BYTES = 512 * 1024 * 1024
#: Fields of the config the page gets (never the stimuli, the seed or anything that reveals an answer).
#: The completion code and URL are not among them: the server sends them after the last trial is stored.
#: Nor are the consent text and instructions: they are in the page's HTML, rendered once.
PAGE_FIELDS = ("title", "task", "labels", "fixation_ms", "stimulus_ms", "mask_ms", "platform_params")
#: The devices the study accepts (checked on the page before consent).
DEVICE_FIELDS = ("min_screen_width", "min_screen_height", "allow_mobile", "fullscreen")


#: :data:`SECURITY_HEADERS` as ASGI headers, encoded once.
RAW_SECURITY_HEADERS = [(name.lower().encode("latin-1"), value.encode("latin-1"))
                        for name, value in SECURITY_HEADERS.items()]
#: Threads running the database work of the participant requests (as many as Starlette's default pool).
DATABASE_THREADS = 40


class ParticipantRequests:
    """ASGI middleware answering the requests a participant's page makes on every trial, and passing every
    other request on to the application: ``GET /api/p/{token}/state``, ``POST /api/p/{token}/response`` and
    ``GET /stimulus/{opaque}`` of an image already in memory.

    They are nearly all the requests a crowd makes, and the framework's fixed cost per request (the router,
    the exception middleware, request and response objects, anyio's thread hop) was about as large as their
    work; here each is a path comparison, one hop to a plain thread pool for the database, and headers encoded
    once (docs/performance.md#the-web-server-under-a-crowd-humanlike-serve). The answers are those the routes
    of :func:`create_app` give; the routes stay for everything else (a HEAD, an image not yet read, an unknown
    image).

    Parameters
    ----------
    app : ASGI application
        The application (the routes).
    study : humanlike.web.service.Study
        The prepared study.
    executor : concurrent.futures.Executor
        Where the database work runs.
    stimulus_bytes : dict
        Opaque id -> (media type, bytes) of the images in memory (filled by the stimulus route).

    Examples
    --------
    >>> import tempfile
    >>> from starlette.testclient import TestClient
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> client = TestClient(create_app(study, "a-long-researcher-secret"))
    >>> token = client.post("/api/start", json={"consent": True}).json()["token"]
    >>> reply = client.get(f"/api/p/{token}/state")
    >>> reply.json()["answered"], reply.headers["content-type"], reply.headers["x-content-type-options"]
    (0, 'application/json', 'nosniff')
    >>> client.get("/api/p/no-such-participant-token/state").status_code
    404
    >>> study.engine.dispose()
    """

    def __init__(self, app, study: Study, executor, stimulus_bytes: dict):
        self.app, self.study, self.executor, self.stimulus_bytes = app, study, executor, stimulus_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            root, path = scope.get("root_path", ""), scope["path"]
            if root and path.startswith(root):
                path = path[len(root):]
            method = scope["method"]
            if method == "GET" and path.startswith("/stimulus/"):
                image = self.stimulus_bytes.get(path[10:])
                if image is not None:
                    await _send(send, 200, image[1], [(b"content-type", image[0]), *_IMAGE_HEADERS])
                    return
            elif path.startswith("/api/p/"):
                token, _, action = path[7:].partition("/")
                if action == "state" and method == "GET":
                    await self._state(send, token, root.rstrip("/"))
                    return
                if action == "response" and method == "POST":
                    await self._response(scope, receive, send, token, root.rstrip("/"))
                    return
        await self.app(scope, receive, send)

    async def _state(self, send, token: str, base: str) -> None:
        try:
            payload, status = await self._run(state, self.study, token, base), 200
        except Rejected as err:
            payload, status = {"error": err.message}, err.status
        await _send_json(send, payload, status)

    async def _response(self, scope, receive, send, token: str, base: str) -> None:
        content_type = next((v for k, v in scope["headers"] if k == b"content-type"), b"").decode("latin-1")
        if not is_json(content_type):
            await _send_json(send, {"error": "expected Content-Type: application/json"}, 415)
            return
        body, more = b"", True
        while more:           # the guard has read and capped the body already: one message
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body, more = body + message.get("body", b""), message.get("more_body", False)
        try:
            answer = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            await _send_json(send, {"error": "malformed body: expected a JSON object"}, 400)
            return
        try:
            # stored and the next trial read in one transaction, on one worker thread
            payload, status = await self._run(record_response, self.study, token, answer, base), 200
        except Rejected as err:
            payload, status = {"error": err.message}, err.status
        await _send_json(send, payload, status)

    def _run(self, function, *args):
        return asyncio.get_running_loop().run_in_executor(self.executor, function, *args)


_IMAGE_HEADERS = [(b"cache-control", b"private, max-age=3600"),
                  *((k, v) for k, v in RAW_SECURITY_HEADERS if k != b"cache-control")]
_JSON_HEADERS = [(b"content-type", b"application/json"), *RAW_SECURITY_HEADERS]


async def _send(send, status: int, body: bytes, headers: list) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


async def _send_json(send, payload, status: int) -> None:
    # as Starlette's JSONResponse writes it
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    await _send(send, status, body, _JSON_HEADERS)


def open_study(folder: Path, url: str | None = None, *, prepare: bool = True) -> Study:
    """Load a study folder and connect to its database (``STUDY/study.sqlite`` unless ``url``).

    With ``prepare`` the schema is migrated to the newest version and the stimuli get their opaque ids; a
    server with several worker processes does that once before starting them (``prepare=False`` in each).

    Parameters
    ----------
    folder : path
        The study folder (with study.toml).
    url : str, optional
        The database URL (default: SQLite in ``STUDY/study.sqlite``).
    prepare : bool
        Migrate the schema and give the stimuli their ids.

    Returns
    -------
    humanlike.web.service.Study

    Examples
    --------
    >>> import tempfile
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> study.config.task, int(study.stimuli["opaque"].str.len().min())
    ('triads', 22)
    >>> study.engine.dispose()
    """
    folder = Path(folder)
    config = load_config(folder)
    stimuli = read_stimuli(config, folder)
    engine = db.make_engine(url or db.sqlite_url(study_paths(folder)["database"]))
    if prepare:
        db.upgrade(engine)
    return Study(folder, config, sync_stimuli(engine, stimuli, config) if prepare else _known(engine, stimuli), engine)


def _known(engine, stimuli):
    from sqlalchemy import select

    with engine.connect() as conn:
        known = dict(conn.execute(select(db.stimuli.c.key, db.stimuli.c.opaque)).all())
    missing = [k for k in stimuli["key"] if k not in known]
    if missing:
        raise ValueError(f"stimulus {missing[0]!r} has no id in the database: prepare the study first")
    out = stimuli.copy()
    out["opaque"] = [known[k] for k in out["key"]]
    return out


def _json(payload, status: int = 200) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers=SECURITY_HEADERS)


def _rejected(err: Rejected) -> JSONResponse:
    return _json({"error": err.message}, err.status)


def _page(config: StudyConfig, base: str, mode: str) -> HTMLResponse:
    """The participant's page: the study's texts rendered once (:func:`humanlike.web.texts.render_text`) into
    the HTML, and what the script needs as JSON in a ``<script type="application/json">`` element.

    A script element's content is not HTML: entities there are not decoded, so the JSON is not HTML-escaped
    (that showed ``&`` as ``&amp;``); ``<``, ``>`` and ``&`` are written as JSON's ``\\u003c`` escapes instead, so
    that no text can close the element."""
    page_config = {k: asdict(config)[k] for k in PAGE_FIELDS}
    page_config.update({k: getattr(config, k) for k in DEVICE_FIELDS}, base=base, mode=mode)
    data = json.dumps(page_config).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    values = {"TITLE": html.escape(config.title), "BASE": html.escape(base),
              "CONSENT": render_text(config.consent_text, config.text_format),
              "INSTRUCTIONS": render_text(config.instruction_text, config.text_format), "CONFIG": data}
    template = (TEMPLATES / "experiment.html").read_text(encoding="utf-8")
    body = re.sub(r"\{\{([A-Z]+)\}\}", lambda m: values[m.group(1)], template)   # one pass: no text is re-read
    return HTMLResponse(body, headers=SECURITY_HEADERS)


def create_app(study: Study, secret: str) -> Starlette:
    """The application serving one prepared study.

    Parameters
    ----------
    study : humanlike.web.service.Study
        The prepared study (:func:`open_study`).
    secret : str
        The researcher secret (:func:`humanlike.web.config.researcher_secret`).

    Returns
    -------
    starlette.applications.Starlette
        An ASGI application (run it with uvicorn; several can be mounted under prefixes, as the demo does).

    Examples
    --------
    >>> import tempfile
    >>> from starlette.testclient import TestClient
    >>> from humanlike.web.demo import make_demo
    >>> study = open_study(make_demo(Path(tempfile.mkdtemp()))["classify"])
    >>> client = TestClient(create_app(study, "a-long-researcher-secret"))
    >>> token = client.post("/api/start", json={"consent": True}).json()["token"]
    >>> client.get(f"/api/p/{token}/state").json()["total"], client.get("/researcher/export.csv").status_code
    (15, 403)
    >>> study.engine.dispose()
    """
    stimulus_paths = study.by_opaque
    stimulus_bytes: dict[str, tuple[bytes, bytes]] = {}        # opaque -> (media type, image), served by
    cached_bytes = [0]                                          # ParticipantRequests once read here
    executor = ThreadPoolExecutor(DATABASE_THREADS, thread_name_prefix="humanlike-db")
    analysis_cache: dict = {}
    analysis_lock = threading.Lock()

    def base_of(request: Request) -> str:
        return request.scope.get("root_path", "").rstrip("/")

    def start_page(request: Request):
        from .adaptive import is_closed

        # an adaptive study that stopped recruiting says so before consent
        return _page(study.config, base_of(request), "closed" if is_closed(study) else "start")

    def participant_page(request: Request):
        return _page(study.config, base_of(request), "run")

    async def api_start(request: Request):
        if not is_json(request.headers.get("content-type")):
            return _json({"error": "expected Content-Type: application/json"}, 415)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _json({"error": "malformed body: expected JSON"}, 400)
        if not isinstance(body, dict) or body.get("consent") is not True:
            return _json({"error": "consent is required to take part (send {\"consent\": true})"}, 400)
        params = body.get("params") or {}
        if not isinstance(params, dict) or not all(isinstance(v, str) and len(v) <= 200 for v in params.values()):
            return _json({"error": "malformed body: 'params' must map parameter names to short strings"}, 400)
        platform = {k: params[k] for k in study.config.platform_params if params.get(k)}
        try:
            token = await run_in_threadpool(start_participant, study, platform)
        except Rejected as err:          # an adaptive study that stopped recruiting: 410
            return _rejected(err)
        return _json({"token": token, "url": f"{base_of(request)}/p/{token}"})

    async def stimulus(request: Request):
        opaque = request.path_params["opaque"]
        path = stimulus_paths.get(opaque)
        if path is None:
            return PlainTextResponse("no such stimulus", status_code=404, headers=SECURITY_HEADERS)
        media_type = MEDIA_TYPES[Path(path).suffix.lower()]
        headers = {**SECURITY_HEADERS, "Cache-Control": "private, max-age=3600"}
        if cached_bytes[0] > STIMULUS_CACHE_BYTES:
            return FileResponse(path, media_type=media_type, headers=headers)
        content = await run_in_threadpool(Path(path).read_bytes)
        if opaque not in stimulus_bytes:
            stimulus_bytes[opaque] = (media_type.encode("latin-1"), content)
            cached_bytes[0] += len(content)
        return Response(content, media_type=media_type, headers=headers)

    def authorised(request: Request) -> bool:
        return researcher_authorised(request.headers, request.cookies, secret)

    def forbidden() -> Response:
        return PlainTextResponse("researcher pages need a login: the form at /researcher, or the header "
                                 "'Authorization: Bearer SECRET' (the secret is in STUDY/researcher-secret)",
                                 status_code=403, headers=SECURITY_HEADERS)

    def login_form(request: Request, message: str = "", status: int = 200) -> Response:
        return HTMLResponse(login_page(study.config.title, base_of(request), message), status_code=status,
                            headers=SECURITY_HEADERS)

    async def login(request: Request):
        if not matches_secret(login_secret(await request.body()), secret):
            return login_form(request, "That is not the researcher secret of this study.", 403)
        response = RedirectResponse(f"{base_of(request)}/researcher", status_code=303, headers=SECURITY_HEADERS)
        response.set_cookie(COOKIE_NAME, cookie_value(secret), path=f"{base_of(request)}/researcher",
                            httponly=True, samesite="strict", secure=request.url.scheme == "https")
        return response

    def logout(request: Request):
        response = RedirectResponse(f"{base_of(request)}/researcher", status_code=303, headers=SECURITY_HEADERS)
        response.delete_cookie(COOKIE_NAME, path=f"{base_of(request)}/researcher", httponly=True,
                               samesite="strict")
        return response

    def analysis():
        from .researcher import analyse

        with analysis_lock:
            from sqlalchemy import func, select

            with study.engine.connect() as conn:
                n = conn.execute(select(func.count()).select_from(db.responses)).scalar_one()
            if analysis_cache.get("n") != n:
                analysis_cache.clear()
                analysis_cache.update(n=n, result=analyse(study))
            return analysis_cache["result"]

    def researcher(request: Request):
        if "key" in request.query_params:     # the secret never goes in a URL: drop it from the address bar
            return RedirectResponse(f"{base_of(request)}/researcher", status_code=303, headers=SECURITY_HEADERS)
        if not authorised(request):
            return login_form(request)
        from .researcher import render_page

        return HTMLResponse(render_page(study, analysis(), base_of(request)), headers=SECURITY_HEADERS)

    def researcher_figure(request: Request):
        if not authorised(request):
            return forbidden()
        figures = analysis().figures
        number = request.query_params.get("n", "0")   # the page's K-th figure (figure.png?n=K), the first by default
        if not number.isdigit() or int(number) >= len(figures):
            return PlainTextResponse(f"no figure {number} yet: the analysis has drawn {len(figures)}",
                                     status_code=404, headers=SECURITY_HEADERS)
        return Response(figures[int(number)], media_type="image/png", headers=SECURITY_HEADERS)

    def researcher_export(request: Request):
        if not authorised(request):
            return forbidden()
        from .export import spreadsheet_safe, study_table

        include = request.query_params.get("platform_ids") == "1"
        table = study_table(study.engine, study.config, study.stimuli, include_platform_ids=include)
        return Response(spreadsheet_safe(table).to_csv(index=False), media_type="text/csv",
                        headers={**SECURITY_HEADERS, "Content-Disposition": "attachment; filename=study.csv"})

    def health(request: Request):
        return PlainTextResponse("ok")

    routes = [
        Route("/", start_page), Route("/p/{token}", participant_page),
        Route("/api/start", api_start, methods=["POST"]),
        Route("/stimulus/{opaque}", stimulus),
        Route("/researcher", researcher), Route("/researcher/figure.png", researcher_figure),
        Route("/researcher/login", login, methods=["POST"]), Route("/researcher/logout", logout, methods=["POST"]),
        Route("/researcher/export.csv", researcher_export),
        Route("/health", health),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[
        Middleware(RequestGuard),
        Middleware(ParticipantRequests, study=study, executor=executor, stimulus_bytes=stimulus_bytes)])


def mount_studies(apps: dict, index: str | None = None) -> Starlette:
    """Several studies in one application (one process), each under ``/NAME/`` with its own database and
    researcher secret, as :func:`create_app` made them; ``/health`` answers for all.

    Parameters
    ----------
    apps : dict of str to ASGI application
        URL name -> the study's application.
    index : str, optional
        An HTML page for ``/`` (the demo's list of studies); without it ``/`` is 404, so that a study's name
        is known only from its link.

    Returns
    -------
    starlette.applications.Starlette

    Examples
    --------
    >>> import tempfile
    >>> from starlette.testclient import TestClient
    >>> from humanlike.web.demo import make_demo
    >>> studies = {name: open_study(path) for name, path in make_demo(Path(tempfile.mkdtemp())).items()}
    >>> client = TestClient(mount_studies({name: create_app(s, name * 9) for name, s in studies.items()}))
    >>> client.post("/triads/api/start", json={"consent": True}).json()["url"][:10], client.get("/").status_code
    ('/triads/p/', 404)
    >>> for study in studies.values():
    ...     study.engine.dispose()
    """
    def health(request: Request):
        return PlainTextResponse("ok")

    routes = [Route("/health", health)]
    if index is not None:
        routes.append(Route("/", lambda request: HTMLResponse(index, headers=SECURITY_HEADERS)))
    return Starlette(routes=routes + [Mount(f"/{name}", app=app) for name, app in apps.items()])


def app_from_environment() -> Starlette:
    """The application of the study named by ``HUMANLIKE_STUDY`` (and ``HUMANLIKE_DB``): what each uvicorn
    worker process runs (the parent prepared the database; ``HUMANLIKE_PREPARED=1`` says so).

    Returns
    -------
    starlette.applications.Starlette

    Examples
    --------
    >>> import os, tempfile
    >>> from humanlike.web.demo import make_demo
    >>> os.environ["HUMANLIKE_STUDY"] = str(make_demo(Path(tempfile.mkdtemp()))["triads"])
    >>> type(app_from_environment()).__name__
    'Starlette'
    >>> del os.environ["HUMANLIKE_STUDY"]
    """
    folder = Path(os.environ["HUMANLIKE_STUDY"])
    study = open_study(folder, os.environ.get("HUMANLIKE_DB") or None,
                       prepare=os.environ.get("HUMANLIKE_PREPARED") != "1")
    return create_app(study, researcher_secret(folder))
