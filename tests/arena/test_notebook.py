"""The notebooks (experiments/notebooks: tour.ipynb, the library's tour, and learning.ipynb, the
learning loop at a small scale) run headless without a cell error, so they never rot; and each
committed file is what its generator writes.

The kernel is this test's own Python (a kernel spec written for the test, so a `python3` kernel
installed elsewhere on the machine cannot stand in), and it inherits NUMBA_CACHE_DIR, so it loads
what earlier tests compiled instead of compiling the agents again."""
import importlib.util
import json
import re
import sys
import time
from pathlib import Path

import pytest

import nbformat
from nbclient import NotebookClient

import ludo_flow  # noqa: F401  (sets NUMBA_CACHE_DIR to the keyed folder the kernel inherits)

pytestmark = pytest.mark.slow  # compiles or starts processes: outside the fast lane

NOTEBOOKS = Path(__file__).resolve().parents[2] / "experiments" / "notebooks"
KERNEL = "ludo-flow-test"


# notebook -> its generator, in experiments/notebooks
GENERATORS = {"tour.ipynb": "make_tour.py", "learning.ipynb": "make_learning.py"}


def _generator(notebook):
    script = GENERATORS[notebook]
    spec = importlib.util.spec_from_file_location(script.removesuffix(".py"), NOTEBOOKS / script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("notebook", GENERATORS)
def test_the_committed_notebook_is_what_its_generator_writes(notebook):
    committed = nbformat.read(NOTEBOOKS / notebook, as_version=4)
    written = _generator(notebook).build()
    cells = [(c.cell_type, c.source) for c in committed.cells]
    assert cells == [(c.cell_type, c.source) for c in written.cells], \
        f"run python experiments/notebooks/{GENERATORS[notebook]}"
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in committed.cells if c.cell_type == "code")   # committed with outputs cleared


def run_notebook(notebook, tmp_path, monkeypatch):
    """Run `notebook` headless in this test's Python; return it with its outputs (a cell error
    raises CellExecutionError, naming the cell)."""
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "ludo_flow test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    nb = nbformat.read(NOTEBOOKS / notebook, as_version=4)
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=600,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return nb


def _text(nb):
    """Return the stream and plain-text outputs of a run notebook, joined."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", "") + out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_the_tour_runs_without_a_cell_error(tmp_path, monkeypatch):
    nb = run_notebook("tour.ipynb", tmp_path, monkeypatch)
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    svgs = [out for out in outputs if "image/svg+xml" in out.get("data", {})]
    assert len(svgs) >= 9                                   # the boards drawn along the way
    assert any("image/png" in out.get("data", {}) for out in outputs)   # the ratings plot
    assert any("last-move" in out["data"]["image/svg+xml"] for out in svgs)
    (viewer,) = [cell for cell in nb.cells if cell.cell_type == "code" and "view(records)" in cell.source]
    (shown,) = [out["data"]["text/html"] for out in viewer.outputs if "text/html" in out.get("data", {})]
    assert "LudoViewer.mount" in shown and '"errors":[]' in shown  # the replay, every record in it
    assert shown.count('{"info":') >= 2                              # a game list


def test_the_learning_loop_runs_in_under_a_minute(tmp_path, monkeypatch):
    began = time.perf_counter()
    nb = run_notebook("learning.ipynb", tmp_path / "first", monkeypatch)
    seconds = time.perf_counter() - began
    text = _text(nb)
    assert "96 games" in text
    held_out, mean_only = map(float, re.search(r"held-out mse (\S+), the mean alone (\S+)", text).groups())
    assert held_out < mean_only  # what the notebook says: the network learned something
    assert re.search(r"the network scored [\d.]+ of 8 against texel", text), text
    numba_value, sklearn_value = map(float, re.search(r"numba (\S+), scikit-learn (\S+)", text).groups())
    assert abs(numba_value - sklearn_value) < 1e-5
    if seconds >= 60:  # numba compiled the searches on this run: the minute is for warm code
        began = time.perf_counter()
        run_notebook("learning.ipynb", tmp_path / "again", monkeypatch)
        seconds = time.perf_counter() - began
    assert seconds < 60, f"the learning notebook took {seconds:.0f} s with its code compiled"
