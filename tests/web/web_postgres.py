"""A real PostgreSQL server for the tests: Debian's postgresql binaries, a fresh cluster in a temporary folder,
listening on a free loopback port, started and stopped by the tests themselves.

As root, PostgreSQL refuses to run: the cluster then belongs to the ``postgres`` user and every server command
runs through ``runuser``. Locally a missing PostgreSQL skips the tests that need it; in CI (CI=true) it fails.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(message: str):
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A throw-away cluster; :meth:`database` makes an empty database and returns its URL."""

    def __init__(self):
        self.bin = postgres_bin()
        if self.bin is None:
            unavailable("no PostgreSQL server binaries (apt-get install postgresql)")
        try:
            import psycopg  # noqa: F401
        except ImportError:
            unavailable("psycopg is not installed (pip install 'humanlike[web]')")
        self.as_root = os.geteuid() == 0
        self.folder = Path(tempfile.mkdtemp(prefix="humanlike-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        if self.as_root:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync",
                   "-E", "UTF8"])
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-t", "60",
                   "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=300",
                   "start"])
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}"

    def _run(self, command: list[str]) -> None:
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stdout}{done.stderr}")

    def database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"{self.url}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"{self.url}/{name}"

    def stop(self) -> None:
        try:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
