"""Helpers of the web server's tests: the researcher secret they use and demo studies of each task."""

from __future__ import annotations

from pathlib import Path

SECRET = "test-secret-0123456789abcdef"


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
