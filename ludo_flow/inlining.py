"""Where the per-node game kernels are inlined: into registered search loops, nowhere else.

numba inlines at the level of its own IR, by copying the callee's IR into the caller, so an
inlined kernel costs compile time in every function that inlines it. What inlining saves is
a call and, for each array argument, a reference-count round trip: that matters in a
search's per-node loop (alpha-beta's `negamax`: about a third of its speed), not in a
function that calls a kernel a few times per simulation or per move.

So the kernels a search calls per node are declared `@njit(cache=True, inline=into_search_loops)`,
a numba inlining cost model: numba asks it at each call site, and it answers True only when
the function being compiled was marked with `@search_loop`. A dispatch function inlined into
a search loop counts as part of it (numba asks about the outermost function being compiled).
"""

_SEARCH_LOOPS = set()


def search_loop(func):
    """Mark the Python function `func` (before `njit` wraps it) as a search loop; return it."""
    _SEARCH_LOOPS.add((func.__module__, func.__qualname__))
    return func


def into_search_loops(expr, caller, callee):
    """numba inlining cost model: inline into the functions marked by `search_loop` only."""
    return (caller.func_id.modname, caller.func_id.func_qualname) in _SEARCH_LOOPS
