"""Flow's uniform random playouts.

`random_step` draws a uniformly random legal step by exact rejection sampling (no full
generation); `random_ply` makes one random decision in place, skipping `apply`'s scan for a
second step where it can; `playout_with_length` and `playout` play a game to its end.
"""
import numpy as np
from numba import njit, uint64

from ...bits import bit, lsb, popcount
from ...rng import rand_below
from .layout import (BLACK, BLACK_WINS, DAMES, DRAW, FIRST, HEIGHT, KNIGHTS, MASK, MAX_ACTIONS,
                     MAX_TURNS, ONGOING, PHASE, PHASE_CHOOSE, RESULT, SIDE, STEP, TURNS, WHITE,
                     WHITE_WINS, WIDTH)
from .current import _step_is_legal, wash_candidates
from .moves import (NUM_STEP_SETS, _steps, legal_actions, movable_pieces, step_origin,
                    step_targets, turn_limit_reached)
from .rules import _end_turn, _far_edge, apply, returns


@njit(cache=True, inline="always")  # see random_ply
def random_step(state, rng, buf):
    """Return a uniformly random legal step (-1 if none), by exact rejection sampling.

    A uniform pick among the candidate steps that turns out legal is uniform among the
    legal ones; after 8 misses the legal steps are generated in full into `buf`."""
    side = state[SIDE]
    white = state[WHITE]
    black = state[BLACK]
    dames = state[DAMES]
    mask = state[MASK]
    width = np.int64(state[WIDTH])
    sets = step_targets(side, movable_pieces(state), white | black, dames, mask)
    total = 0
    for i in range(NUM_STEP_SETS):
        total += popcount(sets[i])
    if total == 0:
        return -1
    for _ in range(8):
        k = rand_below(rng, total)
        i = 0
        while popcount(sets[i]) <= k:
            k -= popcount(sets[i])
            i += 1
        targets = sets[i]
        for _ in range(k):
            targets &= targets - uint64(1)
        to = lsb(targets)
        frm = step_origin(side, white | black, i, to)
        if _step_is_legal(white, black, dames, frm, to, width, mask):
            return frm * 64 + to
    n = _steps(state, buf, True)
    if n == 0:
        return -1
    return np.int64(buf[rand_below(rng, n)])


@njit(cache=True, inline="always")  # once per playout ply: no call, no refcount round trips
def random_ply(s, rng, buf):
    """Make one uniformly random decision on the ongoing state `s` in place; return it.

    Return -1 when no decision was made because the rules ended the turn or the game. For
    speed a first step that makes no wall goes straight to step 2, skipping `apply`'s scan
    for a legal second step; a step-2 state with none then ends the turn here. Decisions and
    their odds are those of legal_actions + apply; only that transient step-2 state differs.
    `buf` is an int32 buffer of MAX_ACTIONS entries."""
    if s[PHASE] == PHASE_CHOOSE:
        n = legal_actions(s, buf)
        action = np.int64(buf[rand_below(rng, n)])
        apply(s, action, s)
        return action
    if turn_limit_reached(s[STEP], s[TURNS], s[MAX_TURNS]):
        s[RESULT] = DRAW
        return np.int64(-1)
    action = random_step(s, rng, buf)
    if action < 0:
        if s[STEP] == 1:
            s[RESULT] = WHITE_WINS if s[SIDE] else BLACK_WINS  # no first step: a loss
        else:
            _end_turn(s)
        return np.int64(-1)
    frm = action >> 6
    to = action & 63
    f = bit(frm)
    t = bit(to)
    side = s[SIDE]
    mine = ((s[BLACK] if side else s[WHITE]) & ~f) | t
    theirs = s[WHITE] if side else s[BLACK]
    if wash_candidates(mine | theirs, np.int64(s[WIDTH]), s[MASK]) != 0:
        apply(s, action, s)  # a wall: the full current
        return action
    if side:
        s[BLACK] = mine
    else:
        s[WHITE] = mine
    if (s[DAMES] >> uint64(frm)) & uint64(1):
        s[DAMES] = (s[DAMES] & ~f) | t
    if (s[KNIGHTS] >> uint64(frm)) & uint64(1):
        s[KNIGHTS] = (s[KNIGHTS] & ~f) | t
    # At rest without a wash only the mover's piece moved, so only the mover can have won.
    if mine & _far_edge(side, s[MASK], np.int64(s[HEIGHT])):
        s[RESULT] = BLACK_WINS if side else WHITE_WINS
    elif s[STEP] == 1:
        s[STEP] = 2
        s[FIRST] = to
    else:
        _end_turn(s)
    return action


@njit(cache=True)
def playout_with_length(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end.

    Return (White's result, number of decisions played)."""
    s = state.copy()
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while s[RESULT] == ONGOING:
        if random_ply(s, rng, buf) >= 0:
            plies += 1
    return returns(s), plies


@njit(cache=True)
def playout(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end; return White's result."""
    return playout_with_length(state, rng)[0]
