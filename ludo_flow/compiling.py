"""What numba has compiled of ludo_flow and agents, and the notice a command gives while it compiles.

`is_cached(function)` tells whether numba's cache (the folder `ludo_flow.cache` chose) holds a
jitted function's code; `compile_counts()` counts the signatures loaded and compiled so far;
`compiling(what, seconds, functions)` wraps a block that may compile, saying so on stderr at
once when something is missing from the cache (and nothing at all on a cached start).
`is_cached` reads numba's private cache-file attributes (`_cache._cache_file._index_path`)
and answers None where they are missing: the notice then waits for its delay instead.
"""
import os
import sys
import threading
import time
from contextlib import contextmanager

from .cache import cache_dir

_PACKAGES = ("ludo_flow", "agents")  # whose jitted functions are counted (by module name)

def is_cached(function):
    """Return True if numba's cache holds compiled code of the jitted `function`, False if not,
    None if it cannot tell."""
    try:
        return os.path.exists(function._cache._cache_file._index_path)
    except AttributeError:
        return None


def dispatchers():
    """Return {qualified name: numba dispatcher} of the package's jitted functions loaded so far."""
    from numba.core.registry import CPUDispatcher
    found = {}
    for modname, module in list(sys.modules.items()):
        if module is None or modname.split(".")[0] not in _PACKAGES:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, CPUDispatcher) and value.__module__ == modname:
                found[f"{modname}.{attr}"] = value
    from .specialize import entries
    found.update(entries())  # the per-game entries of the searches
    return found


def compile_counts():
    """Return {function: (signatures loaded from the cache, signatures compiled)} over the
    package's jitted functions loaded so far (numba's dispatcher statistics)."""
    counts = {}
    for name, d in dispatchers().items():
        hits = sum(d.stats.cache_hits.values())
        misses = sum(d.stats.cache_misses.values())
        if hits or misses:
            counts[name] = (hits, misses)
    return counts


# ---- the notice -----------------------------------------------------------------------------
class Compiling:
    """What a `compiling` block found out: whether it announced itself, and how long it took."""

    def __init__(self, what):
        self.what = what
        self.announced = False
        self.seconds = 0.0
        self.compiled = {}


@contextmanager
def compiling(what, expected_seconds, functions=(), delay=None, stream=None):
    """Run the block, telling on stderr that `what` is being compiled if it is.

    If one of `functions` (numba dispatchers the block runs) is not in the cache, the notice
    comes at once: what is compiled, that it happens once, about `expected_seconds`, where the
    cache lives; then the elapsed seconds (rewritten in place on a terminal, a line every 15 s
    otherwise) and the time it took. If they all are (or none is named), the notice comes only
    if the block is still running after `delay` seconds (default 3 when all are cached, else 1):
    a cached start stays silent. Yields a `Compiling` with `announced`, `seconds` and
    `compiled` ({function: signatures compiled} during the block)."""
    stream = sys.stderr if stream is None else stream
    info = Compiling(what)
    from numba.core import config
    if config.DISABLE_JIT:  # nothing is compiled
        began = time.perf_counter()
        yield info
        info.seconds = time.perf_counter() - began
        return
    cached = [is_cached(f) for f in functions]
    missing = any(c is False for c in cached)
    if delay is None:
        delay = 3.0 if functions and all(cached) else 1.0
    began = time.perf_counter()
    before = compile_counts()
    done = threading.Event()
    lock = threading.Lock()
    tty = hasattr(stream, "isatty") and stream.isatty()

    def announce():
        with lock:
            if done.is_set() or info.announced:
                return
            info.announced = True
            about = f"about {_duration(expected_seconds)}" if expected_seconds else "a while"
            _write(stream, f"ludo-flow: compiling {what} for this machine; this happens once "
                           f"({about}); later runs load it from the cache in {cache_dir()}\n")

    def tick():
        if not missing and done.wait(delay):
            return
        announce()
        last_line = time.perf_counter()
        while not done.wait(0.5 if tty else 1.0):
            elapsed = time.perf_counter() - began
            with lock:
                if done.is_set():
                    return
                if tty:
                    _write(stream, f"\rludo-flow: compiling ... {elapsed:.0f} s "
                                   f"(of about {_duration(expected_seconds)})")
                elif time.perf_counter() - last_line >= 15.0:
                    _write(stream, f"ludo-flow: still compiling ({elapsed:.0f} s)\n")
                    last_line = time.perf_counter()

    if missing:
        announce()
    ticker = threading.Thread(target=tick, name="ludo-flow-compiling", daemon=True)
    ticker.start()
    try:
        yield info
    finally:
        with lock:
            done.set()
        ticker.join(timeout=2.0)
        info.seconds = time.perf_counter() - began
        after = compile_counts()
        info.compiled = {k: v[1] - before.get(k, (0, 0))[1] for k, v in after.items()
                         if v[1] > before.get(k, (0, 0))[1]}
        if info.announced:
            _write(stream, f"{chr(13) if tty else ''}ludo-flow: compiled {what} in "
                           f"{info.seconds:.0f} s{' ' * 12 if tty else ''}\n")


def _duration(seconds):
    """Return a rough duration in words: '10 s', '1-2 minutes'."""
    if seconds < 90:
        return f"{max(5, int(round(seconds / 5.0)) * 5)} s"
    minutes = seconds / 60.0
    return f"{int(minutes)}-{int(minutes) + 1} minutes"


def _write(stream, text):
    """Write and flush, ignoring a closed stream."""
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass
