"""Every script in benchmarks/ imports against the library as it is (a moved name once broke one
unnoticed: the benchmarks run by hand, not in the suite)."""
import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(path.stem for path in BENCHMARKS.glob("bench_*.py"))


@pytest.mark.parametrize("name", SCRIPTS)
def test_benchmark_script_imports(name, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", [name])
    importlib.import_module(name)  # runs nothing: each script's work stands behind its main guard
    assert 'if __name__ == "__main__":' in (BENCHMARKS / f"{name}.py").read_text()
