"""Batched games: N games of one game and variant stepped together in jitted code, for learners.

    from ludo_flow import load_game
    from ludo_flow.batch import BatchedGames
    games = BatchedGames(load_game("flow", "fountain", max_turns=60), 1024, seed=1)
    out = games.reset()
    for _ in range(100):
        out = games.step(games.random_actions())  # or a policy's actions, one per game

`reset()` and `step(actions)` return a `BatchStep` of numpy arrays (no copy is needed to hand
them to PyTorch or JAX):

- `observation`: float32 (N, *observation_shape), the planes of `State.observation()`
- `legal_mask`: bool (N, action space), True where an action is legal for the player to move
- `rewards`: float32 (N, 2), White's and Black's reward of this step (+1 / -1 for the game's
  win / loss, 0 otherwise)
- `terminated`, `truncated`: bool (N,), the game ended this step: by a rule (terminated) or
  by a draw at a limit on its length (truncated: `ludo_flow.outcome.LIMIT_DRAWS`, as in the
  PettingZoo adapter)
- `current_player`: int32 (N,), 0 White or 1 Black to decide (Flow's two steps and its wash
  choices are consecutive decisions of one player)

A game that ends in `step` is reset at once to the start position (automatic reset in the same
step, as pgx and Stable-Baselines3 do): its rewards and flags tell the end, while its
observation, mask and player are already those of the new game. The arrays are the batch's
own buffers, overwritten by the next `reset` or `step`: copy what you keep, and do not write
into them.

`step` checks every action before it plays any: an action that is not an integer array of
shape (N,), or that is out of range or illegal in its game, raises a ValueError naming the
game's index in the batch, and the batch is left unchanged. Large batches run across cores
with numba's `prange` (`numba.set_num_threads` sets how many; `parallel=` forces a choice).
"""
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from . import dispatch, registry
from .errors import ActionError, ParameterError
from .game import Game
from .outcome import LIMIT_DRAWS
from .rng import rand_below

PARALLEL_FROM = 1024  # games in a batch from which `parallel=None` uses numba's threads
_MIX = np.uint64(0x9E3779B97F4A7C15)


class BatchStep(NamedTuple):
    """What `reset` and `step` return: the batch's buffers (see the module's docstring)."""

    observation: np.ndarray     # float32 (N, planes, 8, 8)
    legal_mask: np.ndarray      # bool (N, action space)
    rewards: np.ndarray         # float32 (N, 2): White's, Black's
    terminated: np.ndarray      # bool (N,)
    truncated: np.ndarray       # bool (N,)
    current_player: np.ndarray  # int32 (N,)


class _Buffers(NamedTuple):
    """Every array the batch kernels read or write, one row per game."""

    states: np.ndarray          # uint64 (N, state size): the kernel states
    legal: np.ndarray           # int32 (N, max actions): the legal actions of each game
    counts: np.ndarray          # int64 (N,): how many of `legal` are set
    observation: np.ndarray
    legal_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    current_player: np.ndarray


@njit(cache=True)
def _refresh(game, b, i):
    """Write game i's legal actions, mask row, observation and player from its state; return None."""
    s = b.states[i]
    n = dispatch.legal_actions(game, s, b.legal[i])
    b.counts[i] = n
    for j in range(n):
        b.legal_mask[i, b.legal[i, j]] = True
    dispatch.observation(game, s, b.observation[i])
    b.current_player[i] = dispatch.current_player(game, s)


@njit(cache=True)
def _reset_one(game, b, start, i):
    """Put game i at `start` and fill its outputs; return None."""
    b.states[i, :] = start
    b.legal_mask[i, :] = False
    b.rewards[i, 0] = 0.0
    b.rewards[i, 1] = 0.0
    b.terminated[i] = False
    b.truncated[i] = False
    _refresh(game, b, i)


# numba loses the writes made through a NamedTuple's fields inside a `prange` loop (a known
# numba bug, still open in 0.68: "Miscompiled parallel access to namedtuple"): each parallel loop takes the fields apart before it and hands the
# games' functions a bundle built inside the loop. Each loop has a serial twin: a parallel
# region waits for every thread at its end, which costs more than it saves on small batches
# and on a loaded machine.
@njit(cache=True, parallel=True)
def _reset_parallel(game, b, start):
    """Put every game at `start` and fill the outputs, across numba's threads; return None."""
    states, legal, counts, obs, mask, rewards, terminated, truncated, player = b
    for i in prange(states.shape[0]):
        _reset_one(game, _Buffers(states, legal, counts, obs, mask, rewards, terminated, truncated,
                                  player), start, i)


@njit(cache=True)
def _reset_serial(game, b, start):
    """Put every game at `start` and fill the outputs, in this thread; return None."""
    for i in range(b.states.shape[0]):
        _reset_one(game, b, start, i)


@njit(cache=True)
def _first_bad_action(actions, legal_mask, action_space):
    """Return (index of the first game whose action is not legal, 1 if out of range else 2), or (-1, 0)."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= action_space:
            return i, 1
        if not legal_mask[i, a]:  # the mask row holds exactly the game's legal actions
            return i, 2
    return -1, 0


@njit(cache=True)
def _step_one(game, b, start, action, limit_draw, i):
    """Play `action` in game i, reset it if it ends, fill its outputs; return None.

    `limit_draw[code]` is True for the termination codes that are draws by a limit."""
    s = b.states[i]
    row = b.legal[i]
    for j in range(b.counts[i]):
        b.legal_mask[i, row[j]] = False
    dispatch.apply(game, s, action, s)
    code = dispatch.result(game, s)
    b.rewards[i, 0] = 0.0
    b.rewards[i, 1] = 0.0
    b.terminated[i] = False
    b.truncated[i] = False
    if code != dispatch.ONGOING:
        if code == dispatch.WHITE_WINS:
            b.rewards[i, 0] = 1.0
            b.rewards[i, 1] = -1.0
        elif code == dispatch.BLACK_WINS:
            b.rewards[i, 0] = -1.0
            b.rewards[i, 1] = 1.0
        if limit_draw[dispatch.termination(game, s)]:
            b.truncated[i] = True
        else:
            b.terminated[i] = True
        s[:] = start
    _refresh(game, b, i)


@njit(cache=True, parallel=True)
def _step_parallel(game, b, start, actions, limit_draw):
    """Play one legal action in every game, reset the games that end, fill the outputs, across
    numba's threads; return None."""
    states, legal, counts, obs, mask, rewards, terminated, truncated, player = b
    for i in prange(states.shape[0]):
        _step_one(game, _Buffers(states, legal, counts, obs, mask, rewards, terminated, truncated,
                                 player), start, actions[i], limit_draw, i)


@njit(cache=True)
def _step_serial(game, b, start, actions, limit_draw):
    """Play one legal action in every game, reset the games that end, fill the outputs, in this
    thread; return None."""
    for i in range(b.states.shape[0]):
        _step_one(game, b, start, actions[i], limit_draw, i)


@njit(cache=True)
def _random_actions(legal, counts, rngs, out):
    """Write a uniformly random legal action of every game into `out` (each game's own generator); return None."""
    for i in range(out.shape[0]):
        out[i] = legal[i, rand_below(rngs[i:i + 1], counts[i])]


class BatchedGames:
    """N games of one Game (variant and parameters) from one start position, stepped together.

    `game` is a `ludo_flow.Game` (`load_game("flow", "fountain", max_turns=60)`); `start` a
    State of it to start every game from (default: the variant's start); `seed` seeds the
    per-game generators of `random_actions` (the games themselves have no chance).
    `parallel`: True spreads the games over numba's threads (`numba.set_num_threads`), False
    steps them in the calling thread, None (default) decides by the batch: parallel from
    PARALLEL_FROM games on, when numba has more than one thread."""

    def __init__(self, game, num_games, start=None, seed=0, parallel=None):
        if not isinstance(game, Game):
            raise ParameterError(f"game must be a ludo_flow Game (load_game(...)), got {game!r}")
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ParameterError(f"num_games must be an integer >= 1, got {num_games!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ParameterError(f"seed must be an integer, got {seed!r}")
        start = game.new_initial_state() if start is None else start
        if getattr(start, "game", None) != game:
            raise ParameterError(f"start must be a State of {game!r}")
        if start.is_terminal():
            raise ParameterError("the game is already over in the start position")
        if parallel not in (None, True, False):
            raise ParameterError(f"parallel must be True, False or None, got {parallel!r}")
        self.game = game
        self.num_games = n = int(num_games)
        self.parallel = parallel
        entry = registry.entry_of(type(game))
        self.game_id = entry.game_id
        self.action_space = entry.action_space
        self.observation_shape = entry.observation_shape
        self._start = start.array.copy()
        codes = game.terminations
        self._limit_draw = np.zeros(max(codes) + 1, dtype=np.bool_)
        for code, termination in codes.items():
            self._limit_draw[code] = termination in LIMIT_DRAWS
        self._b = _Buffers(
            states=np.empty((n, self._start.size), dtype=np.uint64),
            legal=np.zeros((n, entry.max_actions), dtype=np.int32),
            counts=np.zeros(n, dtype=np.int64),
            observation=np.zeros((n, *entry.observation_shape), dtype=np.float32),
            legal_mask=np.zeros((n, entry.action_space), dtype=np.bool_),
            rewards=np.zeros((n, 2), dtype=np.float32),
            terminated=np.zeros(n, dtype=np.bool_),
            truncated=np.zeros(n, dtype=np.bool_),
            current_player=np.zeros(n, dtype=np.int32))
        self._actions = np.empty(n, dtype=np.int64)
        self.seed(seed)
        self.reset()

    def seed(self, seed):
        """Reseed the generators of `random_actions` (game i's from `seed` and i); return None."""
        base = np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)
        with np.errstate(over="ignore"):
            self._rngs = base ^ (np.arange(1, self.num_games + 1, dtype=np.uint64) * _MIX)

    def _outputs(self):
        b = self._b
        return BatchStep(b.observation, b.legal_mask, b.rewards, b.terminated, b.truncated,
                         b.current_player)

    @property
    def states(self):
        """Return the kernel state arrays, one row per game (read them, never write them)."""
        return self._b.states

    def state(self, i):
        """Return a State copy of game i (for printing, notation, or the single-State API)."""
        return self.game.from_array(self._b.states[i])

    def reset(self):
        """Start every game again from the start position; return the BatchStep (rewards 0, no ends)."""
        (_reset_parallel if self._use_threads() else _reset_serial)(self.game_id, self._b, self._start)
        return self._outputs()

    def random_actions(self):
        """Return a uniformly random legal action for every game (int64 (N,), a new array)."""
        out = np.empty(self.num_games, dtype=np.int64)
        _random_actions(self._b.legal, self._b.counts, self._rngs, out)
        return out

    def step(self, actions):
        """Play actions[i] in game i for every i; return the BatchStep (see the module's docstring).

        ActionError (a ValueError) naming the game if an action is out of range or illegal;
        nothing is played then."""
        actions = self._checked(actions)
        (_step_parallel if self._use_threads() else _step_serial)(
            self.game_id, self._b, self._start, actions, self._limit_draw)
        return self._outputs()

    def _use_threads(self):
        """Return True if this call spreads the games over numba's threads."""
        if self.parallel is None:
            return self.num_games >= PARALLEL_FROM and numba.get_num_threads() > 1
        return self.parallel

    def _checked(self, actions):
        """Return `actions` as int64 (N,) after checking every one (ActionError if one is bad)."""
        if not isinstance(actions, np.ndarray):
            raise ActionError(f"actions must be a numpy array of {self.num_games} integers, "
                              f"got {type(actions).__name__}")
        if actions.shape != (self.num_games,):
            raise ActionError(f"actions must have shape ({self.num_games},), one per game, got {actions.shape}")
        if actions.dtype.kind not in "iu":
            raise ActionError(f"actions must be integers, got dtype {actions.dtype}")
        if actions.dtype.kind == "u" and actions.size and actions.max() > np.iinfo(np.int64).max:
            i = int(np.argmax(actions > np.iinfo(np.int64).max))
            raise ActionError(f"game {i} of the batch: action {actions[i]} is out of range "
                              f"[0, {self.action_space})")
        np.copyto(self._actions, actions, casting="unsafe")
        i, why = _first_bad_action(self._actions, self._b.legal_mask, self.action_space)
        if i >= 0:
            a = int(self._actions[i])
            if why == 1:
                raise ActionError(f"game {i} of the batch: action {a} is out of range [0, {self.action_space})")
            raise ActionError(f"game {i} of the batch: action {a} is illegal there "
                              f"({int(self._b.counts[i])} legal actions; see legal_mask[{i}])")
        return self._actions
