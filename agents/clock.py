"""A wall clock readable from jitted code, and Ctrl-C (SIGINT) delivered to jitted searches.

A jitted search never returns to Python until it ends, and Python runs a signal handler only
between bytecodes of the main thread, so a plain Ctrl-C waits for the whole search. The
searches therefore call `now()` (an object-mode block: Python bytecode) at a bounded interval
whether or not they have a time budget; CPython runs any pending signal handler during that
call. While a search runs, `Interrupts` has SIGINT handled by a handler that only sets a flag
in the search's control array (it must not raise there: an exception raised by a handler
inside an object-mode block surfaces as a SystemError, not a KeyboardInterrupt); the search
reads the flag after each `now()`, stops cleanly, and the agent then raises `SearchInterrupted`
(a KeyboardInterrupt) with the best action found so far.
"""
import signal
import sys
import threading
import time
from contextlib import contextmanager

from numba import njit, objmode


@njit(cache=True)
def now():
    """Return time.perf_counter() in seconds (an object-mode call: use it every few thousand
    nodes). Pending Python signal handlers run during the call (see `Interrupts`)."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


class Interrupts:
    """Context manager around one jitted search: SIGINT stops the search instead of waiting.

    `ctl[interrupted]` is set to 1 by the SIGINT handler while `ctl[running]` is nonzero (the
    search sets it while it runs and polls `now()`); before the search starts or after it
    returns, the handler behaves as the previous one (Python's default raises
    KeyboardInterrupt at once, e.g. during a first compilation). On exit the previous handler
    is restored. The handler is installed only in the main thread and only over a Python
    handler: with SIGINT ignored (SIG_IGN, e.g. in tournament workers) or left to the OS
    (SIG_DFL), or in any other thread, nothing changes and the search is not interruptible.

    After the search, `interrupted` tells whether SIGINT arrived while it ran, and
    `deliver(message, action, stats)` passes it on: with Python's default handler it raises
    `SearchInterrupted`; another handler is called as the signal would have called it."""

    def __init__(self, ctl, interrupted, running):
        self.ctl = ctl
        self.interrupted_slot = interrupted
        self.running_slot = running
        self.previous = None
        self.installed = False
        self.interrupted = False

    def __enter__(self):
        self.ctl[self.interrupted_slot] = 0
        self.ctl[self.running_slot] = 0
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if not callable(previous):  # SIG_IGN, SIG_DFL, or a handler not set from Python
            return self
        signal.signal(signal.SIGINT, self._handle)
        self.previous = previous
        self.installed = True
        return self

    def _handle(self, signum, frame):
        if self.ctl[self.running_slot]:
            # Inside the jitted search (an object-mode call): only set the flag.
            self.ctl[self.interrupted_slot] = 1
            self.interrupted = True
        else:
            self.previous(signum, frame)

    def __exit__(self, *exc):
        if self.installed:
            signal.signal(signal.SIGINT, self.previous)
            self.installed = False
        if self.ctl[self.interrupted_slot]:
            self.interrupted = True
        return False

    def deliver(self, message, action, stats):
        """Pass a SIGINT that stopped the search on (call after `__exit__`): raise
        SearchInterrupted under Python's default handler, else call the previous handler
        (which may raise; if it returns, so does this)."""
        if not self.interrupted:
            return
        if self.previous is None or self.previous is signal.default_int_handler:
            from .base import SearchInterrupted
            raise SearchInterrupted(message, action, stats)
        self.previous(signal.SIGINT, sys._getframe(1))


@contextmanager
def ctrl_c_ends_the_process():
    """Around a jitted call that never polls `now()` (perft, whose counting must not pay for a
    clock): Ctrl-C ends the process at once (SIGINT's default action; the shell sees exit status
    130) instead of waiting for the call, which at a large depth never comes back. Only in the
    main thread over Python's default handler (a program with a handler of its own keeps it);
    restored on exit."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
