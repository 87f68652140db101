"""Jitted dispatch on a game id: one set of kernel calls that works for every game.

A jitted search reaches the game kernels through these module-level functions, never through a
function passed as an argument or a closure built by a factory: numba caches a module-level
`@njit(cache=True)` function that calls other module-level jitted functions, but recompiles a
closure or a function taking a function argument in every new process (checked with numba
0.68: no cache hits in the second process). The game id is `Game.game_id`; the ids, the
buffer size `MAX_ACTIONS` and the action-id bound `ACTION_SPACE` come from `ludo_flow.registry`.
numba compiles the ids into the code as constants, so an edit to the registry must (and, with
the cache keyed on the package's sources by `ludo_flow.cache`, does) recompile this module.

Every game's state is a 1-d uint64 array, so all branches type alike. Each function has one
branch per registered game and raises ValueError for any other id: an unknown id is an error,
never a fall-through into the last game's kernels on a foreign array. numba allows the raise
(with a constant message). It stays in the per-node functions that alpha-beta inlines too,
rather than checking the id once at a search's entry: the id is the same at every node, so the
extra compare is a branch always predicted, and paired runs of the searches with and without
the raise found alpha-beta's nodes/s, MCTS's simulations/s and the compile time unchanged
within noise; a check in every function also
guards the callers from Python, tests and benchmarks, not only the searches.

The functions taking a game id are `game_jit` (`ludo_flow.specialize`): a search entered
through `for_game(search, game_id)` passes the id as a literal, and each of these functions,
compiled or inlined there, keeps only that game's branch (numba prunes the others before it
types or compiles anything of them; the raise goes too, as no other id can reach it). Called
from Python with a plain int id, they keep every branch and the raise.

The per-node functions a search calls (apply, current_player, result, evaluate, child_outcome,
hash_key, candidate_actions, is_candidate, is_legal_candidate) are inlined into their caller, and
the game kernels behind them are inlined into search loops only (`ludo_flow.inlining`): a
call taking an array costs a reference-count round trip per array, and the call layers cost
the alpha-beta search about a third of its speed. Long or rare parts stay calls on scalars
(Flow's `_apply_current`, `_any_legal_step`, Tolkuchka's `_has_legal_move`): numba inlines
by copying IR, and each inlined copy adds compile time.
"""
import numpy as np
from numba import njit

from . import registry
from .flow import kernels as flow
from .rng import rand_below
from .specialize import game_jit
from .tolkuchka import kernels as tolkuchka

FLOW = registry.BY_NAME["flow"].game_id
TOLKUCHKA = registry.BY_NAME["tolkuchka"].game_id
GAME_IDS = tuple(e.game_id for e in registry.ENTRIES)
MAX_ACTIONS = max(e.max_actions for e in registry.ENTRIES)  # an action buffer for every game
ACTION_SPACE = max(e.action_space for e in registry.ENTRIES)  # every action id is below it
UNKNOWN_GAME = "ludo_flow.dispatch: unknown game id (not in ludo_flow.registry)"
# The evaluations every game provides (the searches' `eval` setting names them): the hand-set
# `evaluate` and the Texel fit `evaluate_tuned` (experiments/texel). NET is a learned value
# network over the observation planes (`ludo_flow.network`, `eval=net:FILE`): its weights come
# from a file, so it is not among the names here, and these functions never take its id.
HAND, TUNED, NET = 0, 1, 2
EVALUATIONS = {"hand": HAND, "texel": TUNED}
EVALUATION_KERNELS = {HAND: "evaluate", TUNED: "evaluate_tuned"}  # the kernel of each, per game
UNKNOWN_EVALUATION = "ludo_flow.dispatch: unknown evaluation id (not in dispatch.EVALUATIONS)"

ONGOING, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3


@game_jit()
def legal_actions(game, state, out):
    """Return the number of legal actions written into `out` (0 when the game is over)."""
    if game == FLOW:
        return np.int64(flow.legal_actions(state, out))
    elif game == TOLKUCHKA:
        return np.int64(tolkuchka.legal_actions(state, out))
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def candidate_actions(game, state, out):
    """Return the number of candidate actions written into `out`: every legal action, and
    maybe some illegal ones, each to be confirmed by `is_legal_candidate` before use.

    Flow lists its candidate steps without resolving their currents (the costly part of
    generation); Tolkuchka's legal actions are cheap, so they are its candidates."""
    if game == FLOW:
        return np.int64(flow.candidate_actions(state, out))
    elif game == TOLKUCHKA:
        return np.int64(tolkuchka.legal_actions(state, out))
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def is_candidate(game, state, action):
    """Return True if `action` is one of `candidate_actions(game, state)`, without generating
    them (Flow never reports wash choices: a search then finds them in the generated list)."""
    if game == FLOW:
        return flow.is_candidate(state, action)
    elif game == TOLKUCHKA:
        return tolkuchka.is_legal_action(state, action)
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def is_legal_candidate(game, state, action):
    """Return True if `action`, one of `candidate_actions(game, state)`, is legal."""
    if game == FLOW:
        return flow.is_legal_candidate(state, action)
    elif game == TOLKUCHKA:
        return True
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def apply(game, state, action, out):
    """Write the state after the legal `action` into `out` (`out` may be `state`); return None."""
    if game == FLOW:
        flow.apply(state, np.int64(action), out)
    elif game == TOLKUCHKA:
        tolkuchka.apply(state, np.int64(action), out)
    else:
        raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def result(game, state):
    """Return ONGOING (0), WHITE_WINS (1), BLACK_WINS (2) or DRAW (3)."""
    if game == FLOW:
        return np.int64(flow.result(state))
    elif game == TOLKUCHKA:
        return np.int64(tolkuchka.result(state))
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def current_player(game, state):
    """Return the player to decide: 0 White, 1 Black."""
    if game == FLOW:
        return np.int64(flow.current_player(state))
    elif game == TOLKUCHKA:
        return np.int64(tolkuchka.current_player(state))
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def hash_key(game, state):
    """Return the game's 64-bit key of everything that decides legal actions and result."""
    if game == FLOW:
        return flow.hash_key(state)
    elif game == TOLKUCHKA:
        return tolkuchka.hash_key(state)
    raise ValueError(UNKNOWN_GAME)


@game_jit()
def context_key(game, state):
    """Return a key of what `hash_key` leaves out because it is fixed within one game.

    Flow: the board mask and the turn limit (Tolkuchka's key already holds its limits, so 0).
    A search table must be cleared when this changes (another board size or limit)."""
    if game == FLOW:
        return state[flow.MASK] ^ (state[flow.MAX_TURNS] * np.uint64(0x9E3779B97F4A7C15))
    elif game == TOLKUCHKA:
        return np.uint64(0)
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def evaluate(game, state, evaluation):
    """Return the game's heuristic value of a non-final state, White's view, in (-1, 1), by
    the evaluation `evaluation` (HAND: `evaluate`, TUNED: `evaluate_tuned`)."""
    if evaluation != HAND and evaluation != TUNED:
        raise ValueError(UNKNOWN_EVALUATION)
    if game == FLOW:
        if evaluation == TUNED:
            return np.float64(flow.evaluate_tuned(state))
        return np.float64(flow.evaluate(state))
    elif game == TOLKUCHKA:
        if evaluation == TUNED:
            return np.float64(tolkuchka.evaluate_tuned(state))
        return np.float64(tolkuchka.evaluate(state))
    raise ValueError(UNKNOWN_GAME)


@game_jit(inline="always")
def child_outcome(game, state, action, evaluation, out):
    """Return (result, value) of the child the legal `action` leads to: its result code and,
    White's view, 1.0 / -1.0 if it is won, else its evaluation by `evaluation` (a drawn
    child's too). `out` is scratch (a state array): it may or may not receive the child.

    Equal to `apply` into `out`, then `result` and `evaluate`; a game may skip writing the
    child where it can score it from a few fields (Flow's steps that make no wall)."""
    if evaluation != HAND and evaluation != TUNED:
        raise ValueError(UNKNOWN_EVALUATION)
    if game == FLOW:
        return flow.child_outcome(state, np.int64(action), evaluation == TUNED, out)
    elif game == TOLKUCHKA:
        tolkuchka.apply(state, np.int64(action), out)
        code = np.int64(tolkuchka.result(out))
        if code == WHITE_WINS:
            return code, 1.0
        if code == BLACK_WINS:
            return code, -1.0
        if evaluation == TUNED:
            return code, np.float64(tolkuchka.evaluate_tuned(out))
        return code, np.float64(tolkuchka.evaluate(out))
    raise ValueError(UNKNOWN_GAME)


@game_jit()
def drop_transposed(game, before, state, action, actions, n):
    """Drop from `actions[:n]`, the legal actions of `state` = `before` after `action` by the
    same player, those whose position a search also reaches by another order of the same
    player's decisions from `before`; return how many are kept (compacted in place, in order).

    For a search's inner nodes only (never the root: there the earlier decision is made).
    Flow: the second steps of a quiet turn whose other order has the lower first step
    (`flow.drop_transposed_steps`). Tolkuchka: none (a turn is one decision)."""
    if game == FLOW:
        return flow.drop_transposed_steps(before, state, np.int64(action), actions, n)
    elif game == TOLKUCHKA:
        return n
    raise ValueError(UNKNOWN_GAME)


@game_jit()
def random_action(game, state, rng, buf):
    """Return a uniformly random legal action, or -1 when the game is over.

    Flow steps come from the kernel's exact rejection sampler (no full generation);
    `buf` is an int32 buffer of MAX_ACTIONS entries."""
    if game == FLOW:
        if state[flow.RESULT] != ONGOING:
            return np.int64(-1)
        if state[flow.PHASE] == flow.PHASE_CHOOSE:
            n = flow.legal_actions(state, buf)
        else:
            if flow.turn_limit_reached(state[flow.STEP], state[flow.TURNS], state[flow.MAX_TURNS]):
                return np.int64(-1)
            return np.int64(flow.random_step(state, rng, buf))
    elif game == TOLKUCHKA:
        n = tolkuchka.legal_actions(state, buf)
    else:
        raise ValueError(UNKNOWN_GAME)
    if n == 0:
        return np.int64(-1)
    return np.int64(buf[rand_below(rng, n)])


@njit(cache=True)
def _flow_playout_in_place(state, rng, max_plies):
    """Flow's branch of `playout_in_place`, through the kernel's fast `random_ply`."""
    buf = np.empty(flow.MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while state[flow.RESULT] == ONGOING:
        if max_plies >= 0 and plies >= max_plies:
            return np.int64(ONGOING)
        if flow.random_ply(state, rng, buf) >= 0:
            plies += 1
    return np.int64(state[flow.RESULT])


@njit(cache=True)
def _tolkuchka_playout_in_place(state, rng, max_plies):
    """Tolkuchka's branch of `playout_in_place`, calling the kernels directly in its loop."""
    buf = np.empty(tolkuchka.MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while max_plies < 0 or plies < max_plies:
        n = tolkuchka.legal_actions(state, buf)
        if n == 0:
            break
        tolkuchka.apply(state, np.int64(buf[rand_below(rng, n)]), state)
        plies += 1
    return np.int64(tolkuchka.result(state))


@game_jit()
def playout_in_place(game, state, rng, max_plies):
    """Play uniform random actions on `state` itself; return the result code at the end.

    With `max_plies` >= 0 it stops after that many actions and may return ONGOING."""
    if game == FLOW:
        return _flow_playout_in_place(state, rng, max_plies)
    elif game == TOLKUCHKA:
        return _tolkuchka_playout_in_place(state, rng, max_plies)
    raise ValueError(UNKNOWN_GAME)


@game_jit()
def playout_with_length(game, state, rng):
    """Return (White's result, decisions played) of the game's uniform random playout (state unchanged)."""
    if game == FLOW:
        return flow.playout_with_length(state, rng)
    elif game == TOLKUCHKA:
        return tolkuchka.playout_with_length(state, rng)
    raise ValueError(UNKNOWN_GAME)


@game_jit()
def perft(game, state, depth):
    """Return the game's perft count `depth` plies below `state`."""
    if game == FLOW:
        return np.int64(flow.perft(state, depth))
    elif game == TOLKUCHKA:
        return np.int64(tolkuchka.perft(state, depth))
    raise ValueError(UNKNOWN_GAME)


def kernels_of(game_id):
    """Return the kernel module of a game id (Python side, for tests and tools; ValueError if unknown)."""
    return registry.entry_of(game_id).kernels


@njit(cache=True)
def termination(game, state):
    """Return the game's termination code of `state` (its kernel's `termination`: 0 while not over)."""
    if game == FLOW:
        return np.int64(flow.termination(state))
    elif game == TOLKUCHKA:
        return np.int64(tolkuchka.termination(state))
    raise ValueError(UNKNOWN_GAME)


@njit(cache=True)
def observation(game, state, out):
    """Write the game's observation planes of `state` into the float32 array `out` (the
    registry's `observation_shape`); return None."""
    if game == FLOW:
        flow.observation(state, out)
    elif game == TOLKUCHKA:
        tolkuchka.observation(state, out)
    else:
        raise ValueError(UNKNOWN_GAME)
