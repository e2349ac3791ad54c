"""The layering rules of docs/architecture.md, checked on the source itself (read as text, nothing imported).

files -> trials -> resampling -> stats -> measures -> app: a module imports only from its own layer or lower
ones; a measure's folder imports the shared core, its own folder, the shared measure modules and only the other
measures' modules its registered entry declares (``depends_on`` in ``measures/<name>/measure.py``, read here as
text); ``app/`` reaches measures only through the registry (it imports no module of a measure's folder); torch and
Dask only inside ``humanlike.models`` (and, lazily, inside command handlers); no private name crosses a module; no
import circle among module-level imports; a name is imported from the module that defines it; random generators
are made only in the stream module (humanlike.trials.streams).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "humanlike"
LAYERS = ("files", "trials", "resampling", "stats", "measures", "app")  # files: the one atomic writer, a leaf
#: The consumers: the app, the web experiment server (the web extra) and the torch models (the models extra) sit
#: beside each other above the core; the core never imports them, not even inside a function (it asks for their
#: parts through humanlike.trials.consumers).
CONSUMERS = ("app", "web", "models")
HEAVY = ("torch", "torchvision", "timm", "dask", "distributed")
#: The measures: every folder of humanlike/measures with a measure.py (what the registry finds).
MEASURES = tuple(sorted(p.parent.name for p in (SOURCE / "measures").glob("*/measure.py")))
#: The cross-measure tools (paired comparisons): every folder with a tool.py (the registry's ``tools()``). They
#: follow a measure's rules: their own folder, the core, and the measures' modules their entry declares.
TOOLS = tuple(sorted(p.parent.name for p in (SOURCE / "measures").glob("*/tool.py")))
#: Modules of ``humanlike.measures`` that every measure may use (not a measure themselves): the contract, the
#: registry, the report's building blocks, the shared options and pair machinery.
SHARED_MEASURE_MODULES = ("humanlike.measures.pairs", "humanlike.measures.options", "humanlike.measures.contract",
                          "humanlike.measures.registry", "humanlike.measures.sections",
                          "humanlike.measures.measure_result", "humanlike.measures.saved_results")
#: The shared measure modules that are packages (a folder, not a measure): their modules are shared too. pairs:
#: the pair core (design, correctness statistics, kernels, aggregation) of every pairwise measure.
SHARED_MEASURE_PACKAGES = ("options", "pairs")
#: Packages whose ``__init__`` is their one import path (it re-exports every public name of their modules).
FACADE_PACKAGES = ("measures/options", "files")


def declared_dependencies(measure: str) -> set[str]:
    """The ``depends_on`` modules of a measure's (or tool's) registered entry, read from its measure.py (tool.py)
    as text."""
    entry = "tool.py" if measure in TOOLS else "measure.py"
    tree = ast.parse((SOURCE / "measures" / measure / entry).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "depends_on":
            return set(ast.literal_eval(node.value))
    return set()


#: What a measure may import from another measure: each measure's own declaration (its entry's ``depends_on``,
#: with the reason beside it there). The shared measure modules ("shared") may import no measure at all.
CROSS_MEASURE: dict[str, set[str]] = {m: declared_dependencies(m) for m in MEASURES + TOOLS}
#: Upward imports still allowed (none: the demo moved to app/demo.py).
UPWARD_EXCEPTIONS: dict[str, set[str]] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolved(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom names (relative imports resolved against ``module``)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once for all the checks."""
    return ast.parse(path.read_text(), filename=str(path))


def imports_of(path: Path) -> list[tuple[str, list[str], bool]]:
    """(imported module, imported names, at module level) for every import statement of a file."""
    tree = parsed(path)
    module, is_package = module_name(path), path.name == "__init__.py"
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((resolved(module, is_package, node), [a.name for a in node.names], id(node) in top_level))
    return found


def source_files() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "humanlike" else None


def rank_of(layer: str | None) -> int | None:
    """The layer's place from the bottom (the consumers share the top one); None outside the layers."""
    if layer in CONSUMERS:
        return len(LAYERS) - 1
    return LAYERS.index(layer) if layer in LAYERS else None


def measure_of(module: str) -> str | None:
    """The measure whose folder holds ``module`` ("shared" for the shared measure modules), else None."""
    parts = module.split(".")
    if parts[:2] != ["humanlike", "measures"] or len(parts) < 3:
        return None
    if parts[2] in SHARED_MEASURE_PACKAGES:
        return "shared"
    return parts[2] if len(parts) > 3 or parts[2] in MEASURES + TOOLS else "shared"


def test_the_source_is_found():
    modules = {module_name(p) for p in source_files()}
    assert {"humanlike.resampling.engine", "humanlike.resampling.kernels", "humanlike.app.cli"} <= modules
    assert {f"humanlike.measures.{m}.cli" for m in MEASURES} <= modules
    # the measure set is the folders' (as the registry finds them), not a list spelled here
    assert {"ec", "dmc"} <= set(MEASURES) and "compare" in TOOLS
    assert set(SHARED_MEASURE_MODULES) <= modules
    assert len(modules) > 80


def layer_violations() -> list[str]:
    """Imports (at module level or inside a function) of a higher layer, a consumer's from the core among them."""
    wrong = []
    for path in source_files():
        own = rank_of(layer_of(module_name(path)))
        if own is None:   # the package's facade (humanlike/__init__, humanlike/__main__)
            continue
        for target, _, _ in imports_of(path):
            other = rank_of(layer_of(target))
            if target in UPWARD_EXCEPTIONS.get(module_name(path), ()):
                continue
            if other is not None and other > own:
                wrong.append(f"{module_name(path)} imports {target}")
    return wrong


def test_lower_layers_never_import_higher_ones():
    wrong = layer_violations()
    assert not wrong, "\n".join(wrong)


def test_every_subpackage_has_a_layer():
    # a new subpackage outside the rule would be unchecked (web and models once were)
    packages = {p.parent.name for p in SOURCE.glob("*/__init__.py")}
    assert packages == set(LAYERS) | set(CONSUMERS), packages ^ (set(LAYERS) | set(CONSUMERS))


def test_a_core_import_of_a_consumer_is_found(monkeypatch):
    import sys

    real = imports_of
    monkeypatch.setattr(sys.modules[__name__], "imports_of",
                        lambda path: real(path) + ([("humanlike.web.export", ["read_study"], False)]
                                                   if path.name == "studies.py" else []))
    assert "humanlike.trials.studies imports humanlike.web.export" in layer_violations()


def cross_measure_imports() -> list[str]:
    """Imports from one measure's folder into another's that ``CROSS_MEASURE`` does not declare."""
    modules = {module_name(p) for p in source_files()}
    wrong = []
    for path in source_files():
        module = module_name(path)
        own = measure_of(module)
        if own is None:
            continue
        for target, names, _ in imports_of(path):
            # "from ..measures.pairs import metric" names the module metric
            for imported in {f"{target}.{n}" for n in names if f"{target}.{n}" in modules} or {target}:
                other = measure_of(imported)
                if other in (None, own, "shared") or imported in CROSS_MEASURE.get(own, set()):
                    continue
                wrong.append(f"{module} imports {imported}")
    return wrong


def test_a_measure_imports_only_the_core_its_folder_and_declared_measures():
    wrong = cross_measure_imports()
    assert not wrong, "\n".join(wrong)


def test_every_declared_cross_measure_import_is_used():
    # a declaration that nothing needs any more is a stale permission: drop it
    used = set()
    for path in source_files():
        own = measure_of(module_name(path))
        for target, names, _ in imports_of(path):
            used |= {(own, t) for t in {target} | {f"{target}.{n}" for n in names}}
    stale = [f"{own}: {target}" for own, targets in CROSS_MEASURE.items() for target in targets
             if (own, target) not in used]
    assert not stale, stale


def test_a_measure_folder_imports_its_own_modules_relatively():
    # "from humanlike.measures.ec.copy_model import ..." inside ec/ would make a copy of the folder (a new measure
    # started from it) import the original: tests/test_measure_folder.py
    wrong = [f"{module_name(path)} imports {node.module}"
             for m in MEASURES + TOOLS for path in sorted((SOURCE / "measures" / m).rglob("*.py"))
             for node in ast.walk(parsed(path))
             if isinstance(node, ast.ImportFrom) and node.level == 0
             and (node.module or "").startswith(f"humanlike.measures.{m}")]
    assert not wrong, "\n".join(wrong)


def declared_measure_methods(consumer: str) -> dict[tuple[str, str], str]:
    """The measures' modules a consumer's modules declare they import for a method (``MEASURE_METHODS`` in its
    ``__init__.py``, (importing module, measure module) -> why; read as text); app/ declares none."""
    path = SOURCE / consumer / "__init__.py"
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MEASURE_METHODS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def consumer_reaches_into_measures(consumer: str) -> list[str]:
    """Imports, dotted module names in strings and measure names in strings by which a consumer (app/, web/,
    models/) reaches a measure's folder other than through the registry or a method it declares."""
    modules = {module_name(p) for p in source_files()}
    names = set(MEASURES + TOOLS)
    wrong = []
    for path in sorted((SOURCE / consumer).rglob("*.py")):
        module = module_name(path)
        declared = {target for user, target in declared_measure_methods(consumer) if user == module}
        for target, imported_names, _ in imports_of(path):
            for imported in ({f"{target}.{n}" for n in imported_names if f"{target}.{n}" in modules} or {target}):
                if measure_of(imported) not in (None, "shared") and imported not in declared:
                    wrong.append(f"{module} imports {imported}")
        # docstrings may show a measure in an example; code may not name one (no importlib side door, no list of
        # measures such as ("ec", "mlds") or results["ec"]: a measure is found through the registry)
        docstrings = {id(node.body[0].value) for node in ast.walk(parsed(path))
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                      and isinstance(node.body[0], ast.Expr)}
        declaration = {id(c) for node in ast.walk(parsed(path)) if isinstance(node, ast.Assign)
                       and any(getattr(t, "id", None) == "MEASURE_METHODS" for t in node.targets)
                       for c in ast.walk(node)}
        for node in ast.walk(parsed(path)):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docstrings | declaration):
                if node.value in names:
                    wrong.append(f"{module} spells the measure {node.value!r} (line {node.lineno})")
                for m in MEASURES + TOOLS:
                    found = re.search(rf"(^|humanlike\.)measures\.{m}(\.[A-Za-z_.]+)?", node.value)
                    if found and found.group(0).removeprefix("humanlike.") not in {
                            d.removeprefix("humanlike.") for d in declared}:
                        wrong.append(f"{module} names humanlike.measures.{m} in a string")
    return wrong


def app_reaches_into_measures() -> list[str]:
    """How app/ reaches a measure's folder other than through the registry (:func:`consumer_reaches_into_measures`)."""
    return consumer_reaches_into_measures("app")


def test_app_reaches_measures_only_through_the_registry():
    # the command line, the demo and the report iterate humanlike.measures.registry; a new measure joins them
    # by registering, without an edit in app/
    wrong = app_reaches_into_measures()
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("consumer", ["web", "models"])
def test_web_and_models_reach_measures_through_the_registry_or_a_declared_method(consumer):
    declared = declared_measure_methods(consumer)
    assert declared, "the declarations are read"
    # a declaration nothing needs any more is a stale permission: drop it
    used = {(module_name(path), target) for path in (SOURCE / consumer).rglob("*.py")
            for target, names, _ in imports_of(path)} | {
           (module_name(path), f"{target}.{n}") for path in (SOURCE / consumer).rglob("*.py")
           for target, names, _ in imports_of(path) for n in names}
    assert not set(declared) - used, set(declared) - used
    # the researcher page shows the report sections of the registered measures (no list of measures in web/);
    # a study's designs and the network observers use a measure's method, declared with its reason
    wrong = consumer_reaches_into_measures(consumer)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("planted, expected", [
    ("from ..measures.ec.analysis import error_consistency\n", "imports humanlike.measures.ec.analysis"),
    ("ANALYSES = ('ec', 'mlds')\n", "spells the measure 'ec'"),
    ("x = results['mlds']\n", "spells the measure 'mlds'"),
    ("import importlib\nm = importlib.import_module('humanlike.measures.dmc.report')\n",
     "names humanlike.measures.dmc in a string"),
])
def test_a_measure_spelled_in_the_researcher_page_is_found(monkeypatch, planted, expected):
    import sys

    path = SOURCE / "web" / "researcher.py"
    tree, original = ast.parse(path.read_text() + "\n" + planted), parsed
    monkeypatch.setattr(sys.modules[__name__], "parsed", lambda p: tree if p == path else original(p))
    assert any(expected in line for line in consumer_reaches_into_measures("web"))


def test_every_measure_folder_is_registered():
    # a folder without measure.py (or, for a cross-measure tool, tool.py) is invisible to the command line, the
    # demo and the report
    folders = {p.name for p in (SOURCE / "measures").iterdir() if p.is_dir() and (p / "__init__.py").exists()
               and p.name not in SHARED_MEASURE_PACKAGES}
    assert folders == set(MEASURES) | set(TOOLS)
    assert not set(MEASURES) & set(TOOLS)


def test_measure_of_finds_the_folder():
    assert measure_of("humanlike.measures.ec.analysis") == "ec"
    assert measure_of("humanlike.measures.pairs.metric") == "shared"
    assert measure_of("humanlike.measures.pairs.aggregation") == "shared"
    assert measure_of("humanlike.measures.pairs.kernels") == "shared"
    assert measure_of("humanlike.measures.options.resampling") == "shared"
    assert measure_of("humanlike.measures.ood") == "ood"
    assert measure_of("humanlike.resampling.engine") is None


def test_the_core_never_imports_the_heavy_extras_at_module_level():
    wrong = []
    for path in source_files():
        module = module_name(path)
        if module.startswith("humanlike.models"):
            continue
        for target, _, top in imports_of(path):
            heavy = target.split(".")[0] in HEAVY or target.startswith("humanlike.models")
            if heavy and top:
                wrong.append(f"{module} imports {target} when it is imported")
    assert not wrong, "\n".join(wrong)


def test_no_private_name_is_imported_across_modules():
    wrong = [f"{module_name(path)} imports {name} from {target}"
             for path in source_files() for target, names, _ in imports_of(path)
             for name in names if name.startswith("_") and not name.startswith("__")]
    assert not wrong, "\n".join(wrong)


def module_level_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in source_files()}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges = set()
        for target, names, top in imports_of(path):
            if not top or not target.startswith("humanlike"):
                continue
            # "from package import module" names a module, not a package attribute
            edges |= {f"{target}.{n}" for n in names if f"{target}.{n}" in modules} or {target}
        graph[module] = {t for t in edges if t in modules and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan's algorithm)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_planted_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_module_level_imports():
    graph = module_level_graph()
    # packages import their own modules (the facade); a circle through a package's __init__ is not one
    packages = {module_name(p) for p in source_files() if p.name == "__init__.py"}
    graph = {m: {t for t in ts if t not in packages} for m, ts in graph.items() if m not in packages}
    assert not cycles(graph), cycles(graph)


def defined_names(path: Path) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments), not the ones it imports."""
    names: set[str] = set()

    def visit(statements) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(node, field, []))
            elif isinstance(node, ast.ExceptHandler):
                visit(node.body)

    visit(parsed(path).body)
    return names


DOCTEST_IMPORT = re.compile(r"^\s*>>> from (humanlike(?:\.\w+)+) import \(?([\w, ]+)\)?\s*$", re.M)


def test_names_are_imported_from_the_module_that_defines_them():
    # one concept, one place: a name reached through a module that only imports it is a hidden second home
    modules = {module_name(p): p for p in source_files()}
    defined = {m: defined_names(p) for m, p in modules.items() if p.name != "__init__.py"}
    wrong = []
    for path in source_files():
        found = [(target, names) for target, names, _ in imports_of(path)]
        found += [(m[1], [n.strip() for n in m[2].split(",") if n.strip()])
                  for m in DOCTEST_IMPORT.finditer(path.read_text())]
        for target, names in found:
            if target not in defined:   # a package (its facade), or not ours
                continue
            wrong += [f"{module_name(path)} imports {name} from {target}, which does not define it"
                      for name in names if name not in defined[target] and f"{target}.{name}" not in modules]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("source, expected", [
    ("from .engine import bootstrap", "humanlike.resampling.engine"),
    ("from ..trials.design import Design", "humanlike.trials.design"),
    ("from . import engine", "humanlike.resampling"),
])
def test_relative_imports_are_resolved(source, expected):
    node = ast.parse(source).body[0]
    assert resolved("humanlike.resampling.draws", False, node) == expected


def test_an_undeclared_cross_measure_import_is_found(monkeypatch):
    monkeypatch.setitem(CROSS_MEASURE, "psychscore", set())
    assert "humanlike.measures.psychscore.analysis imports humanlike.measures.mlds.glm" in cross_measure_imports()


def test_the_shared_measure_modules_import_no_measure():
    # the pair core, the options, the contract: no measure's folder is below them
    wrong = [line for line in cross_measure_imports() if measure_of(line.split()[0]) == "shared"]
    assert not wrong and "shared" not in CROSS_MEASURE, wrong


def test_an_app_import_of_a_measure_is_found(monkeypatch):
    import sys

    real = imports_of
    monkeypatch.setattr(sys.modules[__name__], "imports_of",
                        lambda path: real(path) + [("humanlike.measures.ec", ["cli"], False)])
    assert "humanlike.app.cli imports humanlike.measures.ec.cli" in app_reaches_into_measures()


@pytest.mark.parametrize("package", FACADE_PACKAGES)
def test_a_facade_package_exports_every_public_name_of_its_modules(package):
    # its __init__ is the one import path (of the commands; of every layer for files): a name added to one of
    # its modules but not to __all__ (and imported there) would be out of their reach
    folder = SOURCE / package
    public = {name for path in folder.glob("*.py") if path.name != "__init__.py"
              for name in defined_names(path) if not name.startswith("_")}
    init = parsed(folder / "__init__.py")
    exported = next(ast.literal_eval(node.value) for node in init.body if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets))
    imported = {alias.name for node in init.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert len(exported) == len(set(exported))
    assert set(exported) == public, set(exported) ^ public
    assert set(exported) <= imported, set(exported) - imported


#: docs/architecture.md: "no module past about 600 lines". Above this a module fails, unless it is listed below.
MODULE_LINE_LIMIT = 650
#: Modules still past the limit, each with the length it may not exceed: split them, then delete their line.
LONG_MODULES = {
    "measures/dmc/margins.py": 654,
}


def test_no_module_grows_past_about_600_lines():
    lengths = {str(path.relative_to(SOURCE)): len(path.read_text().splitlines()) for path in source_files()}
    too_long = {name: n for name, n in lengths.items() if n > LONG_MODULES.get(name, MODULE_LINE_LIMIT)}
    assert not too_long, f"modules past their line limit (split them along their concepts): {too_long}"
    split_already = {name for name, limit in LONG_MODULES.items() if lengths.get(name, 0) <= MODULE_LINE_LIMIT}
    assert not split_already, f"no longer long, delete from LONG_MODULES: {sorted(split_already)}"


#: The one module that makes randomness (docs/architecture.md, "Randomness only via an explicit seed"): every
#: layer may import it; ``humanlike.resampling.rng`` (the engine's streams) delegates to it.
STREAM_MODULE = "humanlike.trials.streams"
#: What makes or seeds a random generator: any call into numpy.random (default_rng, SeedSequence, Generator,
#: PCG64, RandomState, the legacy global functions), Python's random module, torch's generators and seeding.
RANDOM_CALL = re.compile(r"^(numpy\.random\..+|random\..+|torch\.(manual_seed|seed|initial_seed|Generator|random\..+"
                         r"|cuda\.(manual_seed|manual_seed_all|seed|seed_all)))$")


def import_aliases(tree: ast.Module) -> dict[str, str]:
    """The local name of each imported module or name, with the dotted name it stands for (``np``: ``numpy``)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """``np.random.default_rng`` as ``numpy.random.default_rng`` (None for anything but a dotted name)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id]] + parts[::-1])


def randomness_made(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, what) for every random generator or seeding a module makes: a call into numpy.random, random or
    torch's seeding, an import of Python's random module, a ``random_state=`` given as a literal number."""
    aliases = import_aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = dotted(node.func, aliases)
            if name and RANDOM_CALL.match(name):
                found.append((node.lineno, name))
            found += [(node.lineno, f"random_state={k.value.value}") for k in node.keywords
                      if k.arg == "random_state" and isinstance(k.value, ast.Constant)
                      and isinstance(k.value.value, int) and not isinstance(k.value.value, bool)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [(node.lineno, f"import {n}") for n in names if n == "random" or n.startswith("random.")]
    return found


def randomness_outside_the_stream_module(source: Path = SOURCE) -> list[str]:
    """Every random generator or seeding made outside :data:`STREAM_MODULE`, as ``module:line what``."""
    wrong = []
    for path in sorted(source.rglob("*.py")):
        module = ".".join(path.relative_to(source.parent).with_suffix("").parts)
        if module == STREAM_MODULE:
            continue
        tree = parsed(path) if source == SOURCE else ast.parse(path.read_text())
        wrong += [f"{module}:{line} {what}" for line, what in randomness_made(tree)]
    return wrong


def test_randomness_is_made_only_in_the_stream_module():
    # one place derives every seed: a simulator's own default_rng, SeedSequence or hashing of keys would be a
    # second seeding style (issue 32); use humanlike.trials.streams (or resampling.rng.stream, which is it)
    wrong = randomness_outside_the_stream_module()
    assert not wrong, f"{len(wrong)} random generators or seedings outside {STREAM_MODULE}:\n" + "\n".join(wrong)
    assert (SOURCE / (STREAM_MODULE.removeprefix("humanlike.").replace(".", "/") + ".py")).exists()


@pytest.mark.parametrize("planted, expected", [
    ("import numpy as np\nrng = np.random.default_rng(0)\n", "numpy.random.default_rng"),
    ("import numpy\nss = numpy.random.SeedSequence(3, spawn_key=(1,))\n", "numpy.random.SeedSequence"),
    ("from numpy.random import Generator, PCG64\ng = Generator(PCG64(1))\n", "numpy.random.PCG64"),
    ("import numpy as np\nnp.random.seed(1)\n", "numpy.random.seed"),
    ("import random\nx = random.Random(4)\n", "import random"),
    ("import torch\ntorch.manual_seed(0)\n", "torch.manual_seed"),
    ("from sklearn.model_selection import KFold\nKFold(3, shuffle=True, random_state=0)\n", "random_state=0"),
])
def test_randomness_made_outside_the_stream_module_is_found(planted, expected):
    assert any(expected in what for _, what in randomness_made(ast.parse(planted)))
    # a type, an isinstance check or a Generator passed on is no randomness made
    assert not randomness_made(ast.parse("import numpy as np\ndef f(rng: np.random.Generator, s):\n"
                                         "    return isinstance(s, np.random.SeedSequence) and rng.random()\n"))
