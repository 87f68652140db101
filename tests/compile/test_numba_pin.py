"""The numba pin of pyproject.toml and the versions the compile plan's private use is tested with
(agents.warmup.TESTED_NUMBA, docs/numba.md) stay in step."""
import re
from pathlib import Path

from agents import warmup

ROOT = Path(__file__).resolve().parents[2]


def _numba_requirement():
    """Return the numba requirement string of pyproject.toml's dependencies."""
    text = (ROOT / "pyproject.toml").read_text()
    found = re.search(r'^dependencies = \[[^\]]*"(numba[^"]*)"', text, re.M)
    assert found, "no numba dependency in pyproject.toml"
    return found.group(1)


def _minor(version):
    """Return (major, minor) of a version string."""
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def test_the_upper_bound_is_the_minor_version_after_the_newest_tested_one():
    bound = re.search(r"<\s*([0-9.]+)", _numba_requirement())
    assert bound, "pyproject.toml's numba requirement has no upper bound"
    newest = max(_minor(v) for v in warmup.TESTED_NUMBA)
    assert _minor(bound.group(1)) == (newest[0], newest[1] + 1)


def test_an_untested_numba_compiles_in_one_process_without_the_private_merge(monkeypatch):
    monkeypatch.setenv(warmup.JOBS_VARIABLE, "4")
    monkeypatch.setattr(warmup.numba, "__version__", "0.67.1")
    assert warmup.compile_jobs() == 1
    tested = warmup.TESTED_NUMBA[-1] + ".0"
    monkeypatch.setattr(warmup.numba, "__version__", tested)
    assert warmup.compile_jobs() == 4
