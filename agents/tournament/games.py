"""One slot's game, played in any worker (a process of this machine, a Ray task, the runner).

`play_slot(game_spec, slot, move_limit)` rebuilds the game and the two agents from their
specs (each agent built once per process, so its tables are allocated once), compiles or
loads their code before their clocks run, plays the game and returns the record's fields.
"""
import ludo_flow

from ..movelog import MoveLog
from ..play import forfeit_fields, play_game
from ..registry import make_agent
from ..timecontrol import parse_time_control
from ..warmup import warm_for_clocks, warm_up

_agents = {}
_warmed = set()  # (game spec, agent spec) whose code this process has compiled or loaded
_starts = {}  # (game spec, position string) -> its State, never played on (clones are)
_clock_warmed = set()  # (game spec, agent spec) this process has run past its first-search costs


def _agent(spec):
    """Return this process's agent for a spec (built once: tables are allocated once)."""
    agent = _agents.get(spec)
    if agent is None:
        agent = _agents[spec] = make_agent(spec)
    return agent


def _start_state(game, key, start, opening):
    """Return a new state of `game` (spec `key`) at the position string `start` after the moves
    `opening`; the position string is parsed and checked once a process (a tournament plays
    thousands of games from one start)."""
    parsed = _starts.get((key, start))
    if parsed is None:
        parsed = game.from_string(start)
        if len(_starts) < 64:
            _starts[(key, start)] = parsed
    state = parsed.clone()
    for word in opening:
        state.apply(state.parse_action(word))
    return state


def mark_warm(game, specs):
    """Note that this process has compiled (or loaded) the code of `specs` for `game`."""
    key = repr(sorted(game.spec().items()))
    _warmed.update((key, s) for s in specs)


def play_slot(game_spec, slot, move_limit, on_think=None):
    """Play the game of one schedule slot; return its record fields (moves, result, ...).

    `game_spec` is `Game.spec()`. Used by every backend: worker processes, Ray tasks and the
    in-process runner."""
    game = ludo_flow.load_game(game_spec["game"], game_spec["variant"], **game_spec["params"])
    # Compile or load each agent's code before its clock runs: a worker on a machine without
    # the cache (a Ray node, or sources edited since the runner's warm-up) must not lose a
    # game to the move limit while numba compiles.
    key = repr(sorted(game_spec.items()))
    cold = [s for s in (slot["white"], slot["black"]) if (key, s) not in _warmed]
    if cold:
        warm_up(game, slot["start"], cold)
        _warmed.update((key, s) for s in cold)
    time_control = slot_time_control(slot)
    if time_control is not None:
        cold = [s for s in (slot["white"], slot["black"]) if (key, s) not in _clock_warmed]
        if cold:
            warm_for_clocks(game, slot["start"], cold)
            _clock_warmed.update((key, s) for s in cold)
    state = _start_state(game, key, slot["start"], slot["opening"])
    white, black = _agent(slot["white"]), _agent(slot["black"])
    white.reset(slot["seed_white"])
    black.reset(slot["seed_black"])
    fields = play_game(state, white, black, forfeit=True, move_limit=move_limit, on_think=on_think,
                       log=MoveLog(slot.get("adjudicate")), time_control=time_control)
    fields["sources"] = ludo_flow.cache.sources_id()  # the code of the process that played
    return fields


def unfinished_fields(side, reason):
    """Return the record fields of a game stopped from outside and lost by `side`."""
    fields = {"moves": [], "plies": 0, "time_white": 0.0, "time_black": 0.0,
              "sources": ludo_flow.cache.sources_id()}  # no worker reported: the runner's own
    fields.update(forfeit_fields(side, reason))
    return fields


def slot_time_control(slot):
    """Return the TimeControl a slot is played at, or None (no clocks)."""
    if slot.get("time_control") is None:
        return None
    return parse_time_control(slot["time_control"], slot.get("time_margin", 0.0))
