"""Play one game between two agents (used by `ludo-flow play`, tournaments, experiments and tests)."""
import time

from .base import AgentError
from .records import FORFEIT

SIDES = ("white", "black")
_WINNER_RESULT = ("1-0", "0-1")


def play_game(state, white, black, seed=None, on_move=None, forfeit=False, move_limit=None,
              on_think=None, log=None):
    """Play from `state` (changed in place) to the end; return the game's record fields.

    The dict holds `moves` in notation, `result` ('1-0', '0-1', '1/2-1/2'), `termination`
    (a `ludo_flow.Termination` value, or 'forfeit'), `forfeit` (None or {side, reason}),
    `plies` and each side's thinking time. `seed` resets both agents (Black gets seed + 1)
    so a game is reproducible; `on_move(state, action, agent)` is called before each move is
    played; `on_think(side)` before each decision and `on_think(None)` after it (a watchdog
    hook). Each agent is given a copy of the state, so an agent cannot change the game.

    With `forfeit=False` an agent that returns an illegal action raises AgentError and an
    agent's exception propagates. With `forfeit=True` the game is lost by an agent that
    raises, returns an illegal action or thinks longer than `move_limit` seconds, and the
    reason is recorded instead.

    With `log` (an `agents.movelog.MoveLog`) the record also holds each move's search
    (`search`), and the log's adjudication may end the game early (result, termination
    `adjudicated_win` / `adjudicated_draw`, `adjudication`)."""
    players = (white, black)
    if seed is not None:
        white.reset(seed)
        black.reset(seed + 1)
    moves = []
    thinking = [0.0, 0.0]
    lost_by = None
    while not state.is_terminal():
        side = state.current_player()
        agent = players[side]
        if on_think is not None:
            on_think(side)
        start = time.perf_counter()
        try:
            action = agent.select_action(state.clone())
        except Exception as err:  # noqa: BLE001 - any agent failure forfeits in a tournament
            if not forfeit:
                raise
            thinking[side] += time.perf_counter() - start
            lost_by = (side, f"the agent raised {type(err).__name__}: {err}")
            break
        finally:
            if on_think is not None:
                on_think(None)
        elapsed = time.perf_counter() - start
        thinking[side] += elapsed
        if forfeit and move_limit is not None and elapsed > move_limit:
            lost_by = (side, f"move limit: thought {elapsed:.3f} s, limit {move_limit:g} s")
            break
        if not state.is_legal(action):
            if not forfeit:
                raise AgentError(f"agent {agent.name} returned the illegal action {action!r}")
            lost_by = (side, f"illegal action {action!r}")
            break
        if on_move is not None:
            on_move(state, action, agent)
        if log is not None:
            log.add(state, agent)
        moves.append(state.action_to_string(action))
        state.apply(action)
        if log is not None and log.decided(state) is not None:
            break
    record = {"moves": moves, "plies": len(moves),
              "time_white": round(thinking[0], 6), "time_black": round(thinking[1], 6)}
    if lost_by is not None:
        record.update(forfeit_fields(*lost_by))
    elif log is not None and log.verdict is not None:
        record.update(result=log.verdict["result"], termination=log.verdict["termination"], forfeit=None)
    else:
        outcome = state.outcome()
        record.update(result=outcome.result, termination=outcome.termination.value, forfeit=None)
    if log is not None:
        record.update(log.fields())
    return record


def forfeit_fields(side, reason):
    """Return the record fields of a game lost by `side` (0 White, 1 Black) without a finished move."""
    return {"result": _WINNER_RESULT[1 - side], "termination": FORFEIT,
            "forfeit": {"side": SIDES[side], "reason": reason}}
