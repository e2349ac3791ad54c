"""Helpers of the web server's tests: the researcher secret they use and demo studies of each task."""

from __future__ import annotations

from pathlib import Path

SECRET = "test-secret-0123456789abcdef"
#: The header a script logs in with (the researcher pages take no secret in the URL).
RESEARCHER = {"Authorization": f"Bearer {SECRET}"}


def make_study(folder: Path, task: str, **overrides) -> Path:
    """A demo study of ``task`` (classify, triads, quads) in ``folder``, config keys overridden."""
    import tomllib

    import tomli_w

    from humanlike.web.demo import make_demo

    studies = make_demo(folder / "demo")
    study = studies["classify" if task == "classify" else "triads"]
    path = study / "study.toml"
    config = tomllib.loads(path.read_text())
    config.update(task=task, **overrides)
    if task == "quads":
        config["trials_per_participant"] = overrides.get("trials_per_participant", 0)
    path.write_text(tomli_w.dumps(config))
    return study


class ServerProcess:
    """``humanlike serve STUDY`` (or ``serve STUDY_A STUDY_B ...`` for a list) as a subprocess on a free loopback
    port (what a researcher runs)."""

    def __init__(self, study: Path | list[Path], *extra: str, port: int | None = None, timeout: float = 60.0):
        import os
        import socket
        import subprocess
        import sys
        import time

        import httpx

        if port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        src = Path(__file__).resolve().parents[2] / "src"
        env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "humanlike.app.cli", "serve",
             *(map(str, study) if isinstance(study, list) else [str(study)]), "--port", str(port), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            start_new_session=True)     # its own process group: kill() takes the uvicorn workers with it
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.process.stdout.read()}")
            try:
                if httpx.get(self.url + "/health", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("the server did not answer within the timeout")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL the server and every process it started (a crash of the whole server)."""
        import os
        import signal

        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)
        if self.process.stdout and not self.process.stdout.closed:
            self.printed = self.process.stdout.read()
            self.process.stdout.close()

    printed = ""

    def output(self) -> str:
        """What the server printed (after :meth:`kill`)."""
        return self.printed
