"""Random games, one loop for every game: both sides play uniformly random legal actions.

Each game's kernel package gets its own jitted `random_game` from `random_game_for`, made of
the one template `_random_game` with that game's `legal_actions`, `apply`, `current_player`
and bounds as its globals, as `ludo_flow.perft` makes each game's perft: the game's kernels
are called directly, and each copy is cached under its own name (`random_game__<game>`).
"""
import builtins
import types

import numpy as np
from numba import njit

from .rng import rand_below

# The template's globals: each game's copy has its own (random_game_for); these only name them.
legal_actions = apply = current_player = None
MAX_ACTIONS = 0


def _random_game(state, before, rng_white, rng_black, actions, counts, sides):
    """Play uniformly random legal actions on `state` itself, each chosen by the generator of
    the side to move (`rng_white` or `rng_black`, advanced in place) from the generated list
    as a random player chooses one, `buf[rand_below(rng, n)]`, until the game ends or `actions`
    is full; return the plies played. `actions`, `counts` and `sides` (int64, as long as
    `actions`) receive each action, the number of legal actions it was chosen from and the
    side that chose it (0 White, 1 Black); `before` the state before the last action."""
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while plies < actions.shape[0]:
        n = legal_actions(state, buf)
        if n == 0:
            break
        side = current_player(state)
        rng = rng_white if side == 0 else rng_black
        action = np.int64(buf[rand_below(rng, n)])
        before[:] = state
        apply(before, action, state)
        actions[plies] = action
        counts[plies] = n
        sides[plies] = side
        plies += 1
    return np.int64(plies)


def random_game_for(game, module, legal_actions, apply, current_player, max_actions):
    """Return the jitted `random_game(state, before, rng_white, rng_black, actions, counts,
    sides)` of one game (see `_random_game`), made with the game's jitted kernels; `game`
    names it (`random_game__<game>`) and `module` is the module that holds it."""
    namespace = {"__builtins__": builtins, "__name__": __name__, "np": np, "rand_below": rand_below,
                 "legal_actions": legal_actions, "apply": apply, "current_player": current_player,
                 "MAX_ACTIONS": int(max_actions)}
    function = types.FunctionType(_random_game.__code__, namespace, "random_game")
    function.__qualname__ = f"random_game__{game}"
    function.__module__ = module
    function.__doc__ = _random_game.__doc__
    return njit(cache=True)(function)
