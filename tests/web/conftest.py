"""Fixtures of the web server's tests: demo studies, a database for each backend (SQLite in the study
folder, and a real PostgreSQL server started by the tests), and a test client."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
MISSING = [m for m in ("starlette", "sqlalchemy", "alembic", "uvicorn", "httpx") if importlib.util.find_spec(m) is None]
if MISSING:
    if IN_CI:
        raise RuntimeError(f"the web extra is missing ({MISSING}): pip install -e '.[web]'")
    pytest.skip(f"the web extra is not installed ({MISSING})", allow_module_level=True)

from web_helpers import SECRET  # noqa: E402
from web_postgres import PostgresServer  # noqa: E402


@pytest.fixture(scope="session")
def postgres_server():
    server = PostgresServer()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request):
    """A database URL maker for one backend: None (SQLite in the study folder) or a fresh PostgreSQL db."""
    if request.param == "sqlite":
        return lambda: None
    server = request.getfixturevalue("postgres_server")
    return server.database


@pytest.fixture
def client_for():
    """client_for(study, url) -> (TestClient, Study); engines are disposed at the end."""
    from starlette.testclient import TestClient

    from humanlike.web.app import create_app, open_study

    opened = []

    def make(study: Path, url: str | None = None):
        prepared = open_study(study, url)
        opened.append(prepared)
        return TestClient(create_app(prepared, SECRET)), prepared

    yield make
    for prepared in opened:
        prepared.engine.dispose()
