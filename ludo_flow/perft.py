"""Perft, one walk for every game: the number of leaves of the decision tree below a state.

Each game's kernel package gets its own jitted `perft(state, depth)` from `perft_for`, made of
the one template `_perft` with that game's `legal_actions`, `apply` and bounds as its globals.
The template's globals are constants to numba (as a kernel module's are), so each game's perft
calls its own kernels directly, as a perft written out in the game's module would: no dispatch
on a game id, no function passed as an argument (which numba would compile again in every
process, `ludo_flow.dispatch`). Each is a cached jitted function under its own name
(`perft__<game>`: numba names a function's cache files by its source file and qualified name,
and both games' functions come from this file), in the cache folder that `ludo_flow.cache`
keys on a hash of all sources, so an edit to a game's kernels is never served stale.
`ludo_flow.dispatch.perft` branches on the game id to these.
"""
import builtins
import types

import numpy as np
from numba import njit

# The template's globals: each game's copy has its own (perft_for); these only name them.
legal_actions = apply = None
STATE_SIZE = MAX_ACTIONS = 0


def _perft(state, depth):
    """Return the number of leaves of the decision tree `depth` plies below `state`."""
    if depth == 0:
        return np.int64(1)
    states = np.empty((depth, STATE_SIZE), dtype=np.uint64)
    acts = np.empty((depth, MAX_ACTIONS), dtype=np.int32)
    counts = np.zeros(depth, dtype=np.int64)
    idx = np.zeros(depth, dtype=np.int64)
    for i in range(STATE_SIZE):  # not states[0, :] = state: an element loop compiles faster
        states[0, i] = state[i]
    counts[0] = legal_actions(states[0], acts[0])
    if depth == 1:
        return counts[0]
    total = np.int64(0)
    level = 0
    while level >= 0:
        if idx[level] >= counts[level]:
            level -= 1
            continue
        a = acts[level, idx[level]]
        idx[level] += 1
        child = states[level + 1]
        apply(states[level], np.int64(a), child)  # int64 as every caller: one signature
        n = legal_actions(child, acts[level + 1])
        if level + 2 == depth:
            total += n  # bulk count: the leaves are the children of this node
        else:
            level += 1
            counts[level] = n
            idx[level] = 0
    return total


def perft_for(game, module, legal_actions, apply, state_size, max_actions):
    """Return the jitted `perft(state, depth)` of one game: the leaves of the decision tree
    `depth` plies below `state`, counted with the game's jitted `legal_actions(state, out)`
    and `apply(state, action, out)`, over states of `state_size` words and action buffers of
    `max_actions`. `game` names it (`perft__<game>`, its cache files' name) and `module` is
    the name of the module that holds it (where `ludo_flow.compiling` finds it)."""
    namespace = {"__builtins__": builtins, "__name__": __name__, "np": np,
                 "legal_actions": legal_actions, "apply": apply,
                 "STATE_SIZE": int(state_size), "MAX_ACTIONS": int(max_actions)}
    function = types.FunctionType(_perft.__code__, namespace, "perft")
    function.__qualname__ = f"perft__{game}"
    function.__module__ = module
    function.__doc__ = _perft.__doc__
    return njit(cache=True)(function)
