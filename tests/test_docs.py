"""The documentation: every public name documented, the site builds with warnings as errors and opens offline.

The docstring examples themselves run as doctests through ``pytest`` (``--doctest-modules`` over
``src/humanlike``, see pyproject.toml). Locally the build test skips when mkdocs is not installed and the
``humanlike.models`` modules are skipped without torch; in CI (``CI=true``) both are failures.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import humanlike

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
DOCS_PACKAGES = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _missing_or_skip(message: str) -> None:
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def public_modules() -> list[str]:
    names = [humanlike.__name__]
    for info in pkgutil.walk_packages(humanlike.__path__, humanlike.__name__ + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.startswith("humanlike.models") and not HAS_TORCH and not IN_CI:
            continue  # the optional torch extra is not installed here; CI installs it
        names.append(info.name)
    return names


def undocumented(module) -> list[str]:
    """Public functions and classes defined in ``module`` whose docstring is missing or auto-generated."""
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if obj.__module__ != module.__name__:  # imported from elsewhere: checked where it is defined
            continue
        doc = (obj.__doc__ or "").strip()
        # a dataclass without a docstring gets its signature as __doc__: "Name(field: type, ...)"
        if not doc or (inspect.isclass(obj) and doc.startswith(obj.__name__ + "(")):
            found.append(f"{module.__name__}.{name}")
        if inspect.isclass(obj):
            # Public methods and properties defined on the class itself (inherited ones are checked where defined).
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                if inspect.isfunction(function) and not (function.__doc__ or "").strip():
                    found.append(f"{module.__name__}.{name}.{member}")
    return found


def test_walk_finds_every_layer():
    modules = public_modules()
    for layer in ("trials", "resampling", "stats", "measures", "app"):
        assert any(m.startswith(f"humanlike.{layer}.") for m in modules), layer
    for measure in ("ec", "dmc", "ood", "dvc", "mlds", "psychscore"):
        assert any(m.startswith(f"humanlike.measures.{measure}.") for m in modules), measure
    assert "humanlike.resampling.engine" in modules and "humanlike.app.cli" in modules
    if HAS_TORCH or IN_CI:
        assert "humanlike.models.runner" in modules


def test_every_public_function_and_class_has_a_docstring():
    if IN_CI and not HAS_TORCH:
        pytest.fail("torch is missing in CI: install the models extra so humanlike.models is checked too")
    missing = [name for module in public_modules() for name in undocumented(importlib.import_module(module))]
    assert missing == [], f"{len(missing)} public names without a docstring: {missing}"


def test_undocumented_detects_missing_and_generated_docstrings():
    import types
    from dataclasses import dataclass

    module = types.ModuleType("fake")

    def documented():
        """Does a thing."""

    def bare():
        pass

    @dataclass
    class Record:
        value: int

    class WithMethods:
        """Documented class."""

        def told(self):
            """Documented method."""

        def untold(self):
            pass

        @property
        def size(self):
            return 1

    for obj in (documented, bare, Record, WithMethods):
        obj.__module__ = "fake"
        setattr(module, obj.__name__, obj)
    assert undocumented(module) == ["fake.bare", "fake.Record", "fake.WithMethods.untold", "fake.WithMethods.size"]


# Tags that make a browser fetch something: these must point into the site itself. A plain <a href> to
# another host (a citation, the theme's credit line) is a link the reader may follow, not a fetch.
FETCHING_TAG = re.compile(r"<(script|link|img|iframe|source|video|audio|embed|object)\b[^>]*>", re.IGNORECASE)
FETCHING_URL = re.compile(r"""\b(?:src|href|data|srcset)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


def external_fetches(html: str) -> list[str]:
    return [tag.group(0) for tag in FETCHING_TAG.finditer(html) if FETCHING_URL.search(tag.group(0))]


def test_external_fetches_spots_remote_assets_only():
    html = ('<script src="https://unpkg.com/x"></script><link rel="preconnect" href="//fonts.gstatic.com">'
            '<img src="figures/a.png"><script src="assets/b.js"></script><a href="https://doi.org/10.1/x">paper</a>')
    assert external_fetches(html) == ['<script src="https://unpkg.com/x">',
                                      '<link rel="preconnect" href="//fonts.gstatic.com">']


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    missing = [name for name in DOCS_PACKAGES if importlib.util.find_spec(name.split(".")[0]) is None
               or importlib.util.find_spec(name) is None]
    if missing:
        _missing_or_skip(f"the docs extra is not installed ({', '.join(missing)}): pip install -e '.[docs]'")
    site = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout[-5000:]}\n{run.stderr[-10000:]}"
    return site


def test_docs_build_strict_and_every_page_is_there(built_site):
    for page in ("index.html", "getting-started.html", "formats.html", "uncertainty.html", "performance.html",
                 "adding-a-measure.html", "architecture.html", "report.html", "cli.html",
                 "measures/error-consistency.html", "measures/decision-margin-consistency.html",
                 "measures/ood-spectrum.html", "measures/decision-variable-correlation.html",
                 "measures/mlds.html", "measures/psychophysical-score.html", "measures/model-evaluation.html",
                 "api/trials.html", "api/resampling.html", "api/stats.html", "api/files.html",
                 "api/measures-ec.html", "api/measures-dmc.html", "api/measures-ood.html", "api/measures-dvc.html",
                 "api/measures-mlds.html", "api/measures-psychscore.html", "api/measures-shapebias.html",
                 "api/measures-psychometrics.html", "api/measures-psychfit.html", "measures/psychometric-fits.html",
                 "api/measures-compare.html", "api/measures.html",
                 "api/models.html", "api/app.html"):
        assert (built_site / page).is_file(), page
    cli = (built_site / "cli.html").read_text(encoding="utf-8")
    assert "humanlike ec" in cli and "--resamples" in cli
    api = (built_site / "api" / "resampling.html").read_text(encoding="utf-8")
    assert "ResamplingSettings" in api and "bootstrap" in api


def test_built_site_opens_offline(built_site):
    """No page makes the browser fetch from another host, and links are plain files (file:// works)."""
    offenders = {}
    for page in sorted(built_site.rglob("*.html")):
        found = external_fetches(page.read_text(encoding="utf-8"))
        if found:
            offenders[str(page.relative_to(built_site))] = found[:3]
    assert offenders == {}
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'href="getting-started.html"' in index  # use_directory_urls: false, so links open from the folder
    assert (built_site / "search" / "search_index.js").is_file()  # the offline plugin's inlined search index


def example_and_output(markdown: str) -> tuple[str, str]:
    """The ```python block under "## Ten lines" and the ```text block after it."""
    section = markdown.split("## Ten lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    output = re.search(r"```text\n(.*?)```", section, re.DOTALL).group(1)
    return code, output


def test_entry_page_example_prints_what_the_page_says(capsys):
    """The ten-line example of docs/index.md (and README.md) runs and prints exactly the output shown."""
    code, expected = example_and_output((ROOT / "docs" / "index.md").read_text(encoding="utf-8"))
    exec(compile(code, "docs/index.md", "exec"), {})
    assert capsys.readouterr().out == expected
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    if "## Ten lines" in readme:
        assert example_and_output(readme) == (code, expected)


def test_readme_links_point_to_existing_files():
    """README.md is the entry on GitHub too: its relative links must reach the docs pages."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    missing = [t for t in local if not (ROOT / t).exists()]
    assert missing == []


# --------------------------------------------------------------------------------------------------
# numpydoc sections: the API reference shows Parameters, Returns and a runnable Examples section
# --------------------------------------------------------------------------------------------------

SECTION = re.compile(r"^\s*([A-Z][A-Za-z ]+)\n\s*-{3,}\s*$", flags=re.M)


def _sections(doc: str | None) -> set[str]:
    return set(SECTION.findall(doc or ""))


def _takes_parameters(function, method: bool) -> bool:
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(parameters) > (1 if method else 0)


def _returns_something(function) -> bool:
    try:
        annotation = inspect.signature(function).return_annotation
    except (TypeError, ValueError):
        return True
    return annotation not in (None, "None", type(None))


def _function_gaps(name: str, function, method: bool) -> list[str]:
    sections = _sections(function.__doc__)
    gaps = []
    if not method and "Examples" not in sections:
        gaps.append("Examples")
    if _takes_parameters(function, method) and "Parameters" not in sections:
        gaps.append("Parameters")
    if _returns_something(function) and not ({"Returns", "Yields"} & sections):
        gaps.append("Returns")
    return [f"{name}: {', '.join(gaps)}"] if gaps else []


def incomplete_sections(module) -> list[str]:
    """Public names of ``module`` whose numpydoc sections are incomplete.

    Functions need Examples, Parameters (if they take any) and Returns (unless annotated ``-> None``); classes
    need Examples and Parameters or Attributes (if constructed with arguments); public methods (not
    properties) need Parameters and Returns on the same terms.
    """
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        qualified = f"{module.__name__}.{name}"
        if inspect.isfunction(obj):
            found += _function_gaps(qualified, obj, method=False)
        elif inspect.isclass(obj):
            sections = _sections(obj.__doc__)
            gaps = [] if "Examples" in sections else ["Examples"]
            constructed = "__init__" in vars(obj) or hasattr(obj, "__dataclass_fields__")
            if constructed and _takes_parameters(obj.__init__, True) and not ({"Parameters", "Attributes"} & sections):
                gaps.append("Parameters")
            if gaps:
                found.append(f"{qualified}: {', '.join(gaps)}")
            for member, value in vars(obj).items():
                if member.startswith("_") or isinstance(value, property):
                    continue
                function = getattr(value, "__func__", value)
                if inspect.isfunction(function):
                    found += _function_gaps(f"{qualified}.{member}", function, not isinstance(value, staticmethod))
    return found


def test_every_public_name_has_its_numpydoc_sections():
    if IN_CI and not HAS_TORCH:
        pytest.fail("torch is missing in CI: install the models extra so humanlike.models is checked too")
    gaps = [gap for module in public_modules() for gap in incomplete_sections(importlib.import_module(module))]
    assert gaps == [], f"{len(gaps)} public names with incomplete numpydoc sections: {gaps}"


def test_incomplete_sections_finds_each_missing_section():
    import types

    module = types.ModuleType("fake")

    def complete(x):
        """Does a thing.

        Parameters
        ----------
        x : int

        Returns
        -------
        int

        Examples
        --------
        >>> complete(1)
        1
        """
        return x

    def no_example(x) -> None:
        """Does a thing.

        Parameters
        ----------
        x : int
        """

    def bare(x):
        """Does a thing."""

    class Thing:
        """A thing.

        Examples
        --------
        >>> Thing().size(2)
        2
        """

        def size(self, n):
            """The size."""
            return n

    for obj in (complete, no_example, bare, Thing):
        obj.__module__ = "fake"
        setattr(module, obj.__name__, obj)
    assert incomplete_sections(module) == ["fake.no_example: Examples", "fake.bare: Examples, Parameters, Returns",
                                           "fake.Thing.size: Parameters, Returns"]
