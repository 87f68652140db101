"""Tolkuchka's rules beyond move generation: `apply`, `result`, `termination`, keys."""
import numpy as np
from numba import njit, uint64

from ...bits import bit, lsb
from ...inlining import into_search_loops
from .layout import (BLACK, BLACK_WINS, DRAW, KO, LINE_THROUGH, MAX_PLIES, NOT_OVER, NO_CHECKERS,
                     NO_KO, NO_MOVE, ONGOING, PLIES, PLY_LIMIT, QUIET, QUIET_LIMIT, QUIET_PLIES,
                     SIDE, WHITE, WHITE_WINS, _K1, _K2, _K3, _M1, _M2)
from .moves import (_draw_limit_reached, _has_legal_move, _ko_bar, _nearest_ahead,
                    _quiet_limit_reached, _sides, ko_word, neighbours, shift)


@njit(cache=True, inline=into_search_loops)
def apply(state, action, out):
    """Write into `out` the state after the legal `action`; `out` may be `state` (in place)."""
    # Every word is read before any is written, so `out` may be `state`, and no copy is needed.
    side, own, enemy = _sides(state)
    quiet = state[QUIET]
    plies = state[PLIES]
    quiet_plies = state[QUIET_PLIES]
    max_plies = state[MAX_PLIES]
    t = action >> 3
    d = action & 7
    line = LINE_THROUGH[(d & 3) * 64 + t]  # the move's line: it holds the row, F and a knocked row
    # F is the first square ahead of the tail that is not own: the row runs from the tail to F.
    f = _nearest_ahead(~own, line, t, d)
    fbit = bit(f)
    knocked = (enemy & fbit) != 0
    if knocked:
        enemy_ends = enemy & ~shift(enemy, d ^ 4)
        g = _nearest_ahead(enemy_ends, line, f, d)
        enemy = (enemy ^ fbit) | shift(bit(g), d)  # an empty shift means pushed off the board
    own ^= bit(t) | fbit
    # Every enemy single goes. A move that knocks nothing leaves the enemy board as it was, so
    # it can only clear singles of a position that was not legal to begin with; such a removal
    # is never a knock: only a move whose F held an enemy checker resets the quiet count.
    enemy &= neighbours(enemy)
    out[side] = own
    out[side ^ uint64(1)] = enemy
    out[SIDE] = side ^ uint64(1)
    out[PLIES] = plies + uint64(1)
    out[QUIET] = uint64(0) if knocked else quiet + uint64(1)
    out[KO] = ko_word(t, f) if knocked else uint64(NO_KO)
    out[QUIET_PLIES] = quiet_plies
    out[MAX_PLIES] = max_plies


@njit(cache=True, inline=into_search_loops)
def result(state):
    """Return ONGOING, WHITE_WINS, BLACK_WINS or DRAW, judged for the player to move."""
    side = state[SIDE]
    own = state[BLACK] if side else state[WHITE]
    lost = WHITE_WINS if side else BLACK_WINS
    if own == 0:
        return lost
    if _draw_limit_reached(state):
        return DRAW
    if not _has_legal_move(own, state[WHITE] if side else state[BLACK], state[KO]):
        return lost
    return ONGOING


@njit(cache=True)
def termination(state):
    """Return why the game ended: NOT_OVER, NO_CHECKERS, NO_MOVE, QUIET_LIMIT or PLY_LIMIT.

    Read off `result`, which checks the end in the rule page's order; when both draw limits
    are reached at once, QUIET_LIMIT is reported (the order the page names them)."""
    r = result(state)
    if r == ONGOING:
        return np.int64(NOT_OVER)
    if r == DRAW:
        if _quiet_limit_reached(state[QUIET], state[QUIET_PLIES]):
            return np.int64(QUIET_LIMIT)
        return np.int64(PLY_LIMIT)
    _, own, _ = _sides(state)
    return np.int64(NO_CHECKERS) if own == 0 else np.int64(NO_MOVE)


@njit(cache=True)
def is_terminal(state):
    """Return True if the game is over in this state."""
    return result(state) != ONGOING


@njit(cache=True)
def returns(state):
    """Return White's result: +1 White won, -1 Black won, 0 drawn or not over."""
    r = result(state)
    if r == WHITE_WINS:
        return 1.0
    if r == BLACK_WINS:
        return -1.0
    return 0.0


@njit(cache=True)
def current_player(state):
    """Return the player to move: 0 White, 1 Black."""
    return np.int64(state[SIDE])


@njit(cache=True, inline="always")
def _fmix(z):
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline=into_search_loops)
def hash_key(state):
    """Return a 64-bit key of the boards, side, ko (as line and direction) and counters.

    Two ko words that bar the same line and direction give the same key."""
    ko_code = uint64(0)
    barred_direction, barred_line = _ko_bar(state[KO])
    if barred_line:
        # A line is named by its lowest square: lines of one orientation are disjoint.
        ko_code = uint64(1 + barred_direction * 64 + lsb(barred_line))
    # The small fields packed into one word (ko_code < 2**10), each in its own bits while the
    # counts stay below 2**26; the limits ride on the Black board. Three mixing rounds, and the
    # two board rounds are independent, so they overlap.
    small = (state[SIDE] | (ko_code << uint64(1)) | (state[QUIET] << uint64(11))
             | (state[PLIES] << uint64(37)))
    limits = state[QUIET_PLIES] ^ (state[MAX_PLIES] << uint64(32))
    w = _fmix(state[WHITE] ^ _K1)
    b = _fmix(state[BLACK] ^ limits ^ _K2)
    return _fmix(w ^ ((b << uint64(32)) | (b >> uint64(32))) ^ small ^ _K3)
