"""Tolkuchka's uniform random playouts."""
import numpy as np
from numba import njit

from ...rng import rand_below
from .layout import MAX_ACTIONS
from .moves import legal_actions
from .rules import apply, returns


@njit(cache=True)
def playout_with_length(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end.

    Return (White's result, number of plies played)."""
    s = state.copy()
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while True:
        n = legal_actions(s, buf)
        if n == 0:
            return returns(s), plies
        apply(s, np.int64(buf[rand_below(rng, n)]), s)
        plies += 1


@njit(cache=True)
def playout(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end; return White's result."""
    return playout_with_length(state, rng)[0]
