"""Play one game between two agents (used by `ludo-flow play`, experiments and tests)."""
import time

from .base import AgentError


def play_game(state, white, black, seed=None, on_move=None):
    """Play from `state` (changed in place) to the end; return a record dict.

    The record holds the moves in notation, the result string ('1-0', '0-1', '1/2-1/2'),
    the number of plies and each side's thinking time. `seed` resets both agents (Black gets
    seed + 1) so a game is reproducible; `on_move(state, action, agent)` is called before each
    move is played. An agent that returns an illegal action raises AgentError."""
    players = (white, black)
    if seed is not None:
        white.reset(seed)
        black.reset(seed + 1)
    moves = []
    thinking = [0.0, 0.0]
    while not state.is_terminal():
        side = state.current_player()
        agent = players[side]
        start = time.perf_counter()
        action = agent.select_action(state)
        thinking[side] += time.perf_counter() - start
        if not state.is_legal(action):
            raise AgentError(f"agent {agent.name} returned the illegal action {action!r}")
        if on_move is not None:
            on_move(state, action, agent)
        moves.append(state.action_to_string(action))
        state.apply(action)
    return {"moves": moves, "result": state.result_string(), "plies": len(moves),
            "time_white": thinking[0], "time_black": thinking[1]}
