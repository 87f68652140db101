"""Test setup: every run compiles into a fresh numba cache, so a stale cache never hides a bug.

Set LUDO_FLOW_TEST_CACHE to a folder to reuse a cache between runs while developing."""
import os
import tempfile

if "LUDO_FLOW_TEST_CACHE" in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = os.environ["LUDO_FLOW_TEST_CACHE"]
else:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="ludo_flow_numba_")
