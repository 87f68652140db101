"""The notebook tour (experiments/notebooks/tour.ipynb) runs headless without a cell error, so it
never rots; and the committed file is what its generator writes.

The kernel is this test's own Python (a kernel spec written for the test, so a `python3` kernel
installed elsewhere on the machine cannot stand in), and it inherits NUMBA_CACHE_DIR, so it loads
what earlier tests compiled instead of compiling the agents again."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

import nbformat
from nbclient import NotebookClient

import ludo_flow  # noqa: F401  (sets NUMBA_CACHE_DIR to the keyed folder the kernel inherits)

pytestmark = pytest.mark.slow  # compiles or starts processes: outside the fast lane

NOTEBOOKS = Path(__file__).resolve().parents[2] / "experiments" / "notebooks"
KERNEL = "ludo-flow-test"


def _generator():
    spec = importlib.util.spec_from_file_location("make_tour", NOTEBOOKS / "make_tour.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_tour_is_what_make_tour_writes():
    committed = nbformat.read(NOTEBOOKS / "tour.ipynb", as_version=4)
    written = _generator().build()
    cells = [(c.cell_type, c.source) for c in committed.cells]
    assert cells == [(c.cell_type, c.source) for c in written.cells], "run python experiments/notebooks/make_tour.py"
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in committed.cells if c.cell_type == "code")   # committed with outputs cleared


def test_the_tour_runs_without_a_cell_error(tmp_path, monkeypatch):
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "ludo_flow test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    nb = nbformat.read(NOTEBOOKS / "tour.ipynb", as_version=4)
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=600,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()   # raises CellExecutionError, naming the cell, on any error
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    svgs = [out for out in outputs if "image/svg+xml" in out.get("data", {})]
    assert len(svgs) >= 9                                   # the boards drawn along the way
    assert any("image/png" in out.get("data", {}) for out in outputs)   # the ratings plot
    assert any("last-move" in out["data"]["image/svg+xml"] for out in svgs)
