"""A wall clock readable from jitted code (for time budgets), cacheable by numba."""
import time

from numba import njit, objmode


@njit(cache=True)
def now():
    """Return time.perf_counter() in seconds (an object-mode call: use it every few thousand nodes)."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t
