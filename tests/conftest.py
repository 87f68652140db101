"""Test setup: where the tests' compiled code goes.

The full run (`python -m pytest`, what CI runs) compiles into a fresh numba cache, so a stale
cache never hides a bug. The contributors' fast lane (`python -m pytest -m "not slow"`) uses the
library's own cache folder instead (ludo_flow.cache: a folder keyed on a hash of every source,
owned by the user alone), so after its first run it loads what it compiled before, and an edit
gets a new folder: nothing stale is ever loaded.

Set LUDO_FLOW_TEST_CACHE to a folder to reuse a cache between any runs while developing."""
import os
import tempfile


def pytest_configure(config):
    if "LUDO_FLOW_TEST_CACHE" in os.environ:
        os.environ["NUMBA_CACHE_DIR"] = os.environ["LUDO_FLOW_TEST_CACHE"]
    elif (config.getoption("markexpr") or "").split() != ["not", "slow"]:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="ludo_flow_numba_")
