"""Collection rules for ``pytest`` at the repository root (tests/ and the doctests of src/humanlike).

``--doctest-modules`` (pyproject.toml) imports every Python file under the test paths. Scripts that make
reference data run at import and are never collected. The ``humanlike.models`` modules import torch, an
optional extra: locally they are skipped without it; in CI (``CI=true``) they are always collected, so a
missing torch fails instead of passing by skipping.
"""

from __future__ import annotations

import importlib.util
import os

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

collect_ignore_glob = ["tests/data/*"]
if not IN_CI and importlib.util.find_spec("torch") is None:
    collect_ignore_glob.append("src/humanlike/models/*")
# The web server (humanlike.web) needs the "web" extra; its doctests are collected wherever it is installed.
if not IN_CI and any(importlib.util.find_spec(m) is None for m in ("starlette", "sqlalchemy", "alembic", "uvicorn")):
    collect_ignore_glob.append("src/humanlike/web/*")
