"""Play one game between two agents (used by `ludo-flow play`, tournaments, experiments and tests)."""
import time

from ludo_flow.game import State

from .base import AgentError
from .random_agent import RandomAgent
from .records import FORFEIT
from .timecontrol import TIME_FORFEIT, GameClock

SIDES = ("white", "black")
_WINNER_RESULT = ("1-0", "0-1")


def play_game(state, white, black, seed=None, on_move=None, forfeit=False, move_limit=None,
              on_think=None, log=None, time_control=None):
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
    `adjudicated_win` / `adjudicated_draw`, or `solved` for the solved rule, and `adjudication`).

    With a `time_control` (an `agents.timecontrol.TimeControl`) both sides play on a clock:
    each agent is told its clock before each move (`set_clock`, where it has one), and a side
    whose clock falls more than the margin below zero loses on time (termination
    'time_forfeit', whatever `forfeit` says); the record gains the fields of `clock_fields`.

    Two random agents (`RandomAgent` itself) play the whole game in one jitted loop, with the
    same moves, unless `on_move`, a clock or an adjudicating `log` needs the moves one by one
    (`_random_game`: its thinking times are the game's time shared by each side's decisions)."""
    players = (white, black)
    clock = GameClock(time_control) if time_control is not None else None
    clocks, flag_fell = [], False
    for agent in players:
        if getattr(agent, "clock", None) is not None:  # left over from a game cut by an exception
            _tell_clock(agent, None)
    if seed is not None:
        white.reset(seed)
        black.reset(seed + 1)
    if on_move is None and clock is None:
        record = _random_game(state, players, forfeit, move_limit, on_think, log)
        if record is not None:
            return record
    moves = []
    thinking = [0.0, 0.0]
    lost_by = None
    while state.legal_actions():  # generated once a position: the agent's copy shares them
        side = state.current_player()
        agent = players[side]
        if clock is not None:
            _tell_clock(agent, clock.reading(side))
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
        if clock is not None:
            if not clock.spend(side, elapsed):
                lost_by, flag_fell = (side, clock.flag_reason(side, elapsed)), True
                break
            clocks.append(round(clock.remaining[side], 6))
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
    if clock is not None:
        for agent in players:
            _tell_clock(agent, None)
        del clocks[len(moves):]  # a move that took its time but was refused is not in `moves`
    record = {"moves": moves, "plies": len(moves),
              "time_white": round(thinking[0], 6), "time_black": round(thinking[1], 6)}
    if clock is not None:
        record.update(clock_fields(clock, clocks))
    if lost_by is not None:
        record.update(forfeit_fields(*lost_by))
        if flag_fell:
            record["termination"] = TIME_FORFEIT
    elif log is not None and log.verdict is not None:
        record.update(result=log.verdict["result"], termination=log.verdict["termination"], forfeit=None)
    else:
        outcome = state.outcome()
        record.update(result=outcome.result, termination=outcome.termination.value, forfeit=None)
    if log is not None:
        record.update(log.fields())
    return record


def _random_game(state, players, forfeit, move_limit, on_think, log):
    """Return the record fields of a game of two random agents played in one jitted loop
    (`State.play_random`: the same moves as the loop of `play_game`, from the agents' own
    generators), or None (`state` and the agents untouched) where that loop must play it:
    other agents, a log with adjudication, or a game that took longer than the move limit
    (its moves cannot be timed one by one, so the loop plays it again and times them).

    The thinking time of the whole game is shared between the sides by their decisions;
    `on_think` is told of one decision (the first side's) for the whole game."""
    if not all(type(agent) is RandomAgent and hasattr(agent, "_rng") for agent in players):
        return None
    if log is not None and (log.judge is not None or log.solved is not None or log.plies or log.columns):
        return None
    if not isinstance(state, State):
        return None
    trial = state.clone()
    saved = [agent._rng.copy() for agent in players]
    if on_think is not None and not trial.is_terminal():
        on_think(trial.current_player())
    start = time.perf_counter()
    try:
        actions, counts, sides = trial.play_random(players[0]._rng, players[1]._rng)
    finally:
        elapsed = time.perf_counter() - start
        if on_think is not None:
            on_think(None)
    if forfeit and move_limit is not None and elapsed > move_limit:
        for agent, rng in zip(players, saved):
            agent._rng[:] = rng
        return None
    moves = state.actions_to_strings(actions)
    state.copy_from(trial)
    decisions = [len(sides) - sum(sides), sum(sides)]
    for side, agent in enumerate(players):
        if decisions[side]:  # what the agent's last move reported, as after the loop
            agent.last_stats = {"legal_actions": counts[len(sides) - 1 - sides[::-1].index(side)]}
    thinking = [elapsed * d / len(sides) if sides else 0.0 for d in decisions]
    record = {"moves": moves, "plies": len(moves),
              "time_white": round(thinking[0], 6), "time_black": round(thinking[1], 6)}
    outcome = state.outcome()
    record.update(result=outcome.result, termination=outcome.termination.value, forfeit=None)
    if log is not None:
        log.plies = len(moves)
        record.update(log.fields())
    return record


def forfeit_fields(side, reason):
    """Return the record fields of a game lost by `side` (0 White, 1 Black) without a finished move."""
    return {"result": _WINNER_RESULT[1 - side], "termination": FORFEIT,
            "forfeit": {"side": SIDES[side], "reason": reason}}


def _tell_clock(agent, reading):
    """Tell an agent its clock (None: take it away), if it has `set_clock` (others ignore it)."""
    set_clock = getattr(agent, "set_clock", None)
    if set_clock is not None:
        set_clock(*reading) if reading is not None else set_clock(None)


def clock_fields(clock, clocks):
    """Return a clocked game's record fields: `time_control` (fastchess's syntax), `time_margin`
    (seconds), `clocks` (the mover's clock after each move, aligned with `moves`) and
    `clock_white` / `clock_black` (each side's clock at the end; below zero for a fallen flag)."""
    return {"time_control": clock.tc.text(), "time_margin": clock.tc.margin, "clocks": list(clocks),
            "clock_white": round(clock.remaining[0], 6), "clock_black": round(clock.remaining[1], 6)}
