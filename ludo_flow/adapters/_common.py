"""What the OpenSpiel and PettingZoo adapters share: a Game and its start from the adapters'
parameters, the bound on a game's length, and a fast legality test for one action."""
import operator

import ludo_flow
from ludo_flow.errors import ParameterError
from ludo_flow.flow.game import FlowState
from ludo_flow.game import _action_buffer as action_buffer
from ludo_flow.tolkuchka.game import TolkuchkaState

__all__ = ["action_buffer", "game_and_start", "max_game_length", "is_legal"]


def game_and_start(name, params):
    """Return (our Game, its start State) from adapter parameters: `variant`, `position` (a
    position string, or empty for the variant's start) and the game's own parameters."""
    params = dict(params)
    variant = params.pop("variant", None)
    position = params.pop("position", "")
    if variant is not None and not isinstance(variant, str):
        raise ParameterError(f"variant is a name, got {variant!r}")
    if not isinstance(position, str):
        raise ParameterError(f"position is a position string, got {position!r}")
    game = ludo_flow.load_game(name, variant or None, **params)
    start = game.from_string(position) if position.strip() else game.new_initial_state()
    if start.is_terminal():
        raise ParameterError(f"the game is already over in the start position {position!r}")
    return game, start


def max_game_length(state):
    """Return the most decisions a game from `state` can take (at least 1).

    Flow: each turn left is two steps, each with at most MAX_WASHES wash choices (a 33rd wash
    within one step is a loop). Tolkuchka: one decision a ply until max_plies."""
    if isinstance(state, FlowState):
        turns_left = state.game.params["max_turns"] - state.turns
        return max(1, turns_left * 2 * (1 + state.kernels.MAX_WASHES))
    if isinstance(state, TolkuchkaState):
        return max(1, state.game.params["max_plies"] - state.plies)
    raise ParameterError(f"no length bound for {type(state).__name__}")


def is_legal(entry, array, action):
    """Return True if `action` is legal in the kernel array of a game (registry entry `entry`).

    A single-action test where the kernels have one (Flow's steps, every Tolkuchka move), the
    generated list otherwise (Flow's wash choices); anything that is not an int is illegal."""
    try:
        action = operator.index(action)
    except TypeError:
        return False
    if not 0 <= action < entry.action_space:
        return False
    k = entry.kernels
    if entry.name == "tolkuchka":
        return bool(k.is_legal_action(array, action))
    if entry.name == "flow" and action < k.WASH_BASE:
        return bool(k.is_candidate(array, action) and k.is_legal_candidate(array, action))
    buf = action_buffer(k.MAX_ACTIONS)
    n = k.legal_actions(array, buf)
    return action in buf[:n].tolist()
