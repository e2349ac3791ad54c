"""docs/notebooks/first-hour.ipynb runs from top to bottom, so it cannot go stale (issue 33).

The notebook's code cells are executed in order in one namespace, without Jupyter (no kernel is needed for
the test suite): each cell's last expression is shown the way Jupyter shows it (``_repr_html_`` where the
object has one, else ``repr``), so a result's notebook view is exercised too. The notebook is kept without
outputs: what a reader sees is what their own run makes.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebooks" / "first-hour.ipynb"


def code_cells() -> list[str]:
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and notebook["metadata"]["kernelspec"]["language"] == "python"
    cells = notebook["cells"]
    assert all(c["cell_type"] in ("markdown", "code") and "id" in c for c in cells)
    code = [c for c in cells if c["cell_type"] == "code"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code), "store the notebook unrun"
    return ["".join(c["source"]) for c in code]


def run_cell(source: str, namespace: dict) -> str:
    """Execute one cell as Jupyter would; return what Jupyter would show for its last expression."""
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = ast.Module(body=tree.body[:-1] if last else tree.body, type_ignores=[])
    exec(compile(body, str(NOTEBOOK), "exec"), namespace)  # noqa: S102 - the notebook's own code
    if last is None:
        return ""
    value = eval(compile(ast.Expression(last.value), str(NOTEBOOK), "eval"), namespace)  # noqa: S307
    if value is None:
        return ""
    html = getattr(value, "_repr_html_", None)
    return html() if callable(html) else repr(value)


def test_the_first_hour_notebook_runs_top_to_bottom(capsys):
    namespace: dict = {}
    shown = []
    try:
        for source in code_cells():
            shown.append(run_cell(source, namespace))
        printed = capsys.readouterr().out
        # what the notebook promises a newcomer: a summary, its HTML view, a comparison, a figure in their axes
        assert "error consistency" in printed.lower() and "[" in printed
        assert any(s.startswith("<") and "<table" in s for s in shown)        # the result's HTML table
        pairs = namespace["comparison"].pairs
        assert len(pairs) == 10 and pairs["resolved"].any()                  # five models: ten pairs
        fig = namespace["fig"]
        assert fig is namespace["axes"][0].figure and len(fig.axes) >= 3
        assert all(ax.has_data() for ax in namespace["axes"])                 # every panel was drawn into
        # a psychometric function per observer, drawn into the reader's axes, and the models it resolves
        assert "threshold" in printed and namespace["fit_ax"].has_data()
        assert len(namespace["fits"].resolved().query("resolved")) > 0
    finally:
        plt.close("all")


def test_the_docs_link_the_notebook():
    assert "notebooks/first-hour.ipynb" in (ROOT / "docs" / "first-hour.md").read_text()
    assert "first-hour.md" in (ROOT / "mkdocs.yml").read_text()
    for page in ("index.md", "getting-started.md"):
        assert "first-hour.md" in (ROOT / "docs" / page).read_text(), page
