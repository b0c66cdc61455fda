"""docs/notebooks/quickstart.ipynb executed headless (nbclient) in a kernel of this Python: every
cell runs, no output is an error, the pattern, automaton, result and explanation render as HTML.

The kernel is this interpreter (``sys.executable -m ipykernel_launcher``), named by a kernelspec
written to a temporary folder first on ``JUPYTER_PATH``: no kernelspec of the machine is used."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebooks" / "quickstart.ipynb"
KERNEL = "cep-studio-test"


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    spec = tmp_path / "kernels" / KERNEL
    spec.mkdir(parents=True)
    path = os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "CEP Studio (tests)", "language": "python", "env": {"PYTHONPATH": path}}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    return KERNEL


def test_notebook_is_stored_without_outputs():
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_quickstart_notebook_runs_headless(kernel):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, kernel_name=kernel, timeout=120, resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    joined = "\n".join(html)
    for part in ("cep-pattern", "cep-automaton", "cep-result", "cep-explanation"):
        assert part in joined, part
    assert "Plotly.newPlot" in joined and "match #1" in joined
    assert sum("plotly.js v" in h.lower() or "plotly.js" in h for h in html) >= 1  # inlined: no network
