"""Tolkuchka's move generation and legality.

Board shifts in the eight directions, rows and the squares in front of them, the ko bar, the
knock and singles rules: `legal_actions` lists the legal moves, `is_legal_action` checks one
without generating, `_has_legal_move` stops at the first (the end-of-game test).
"""
import numpy as np
from numba import njit, uint64

from ...bits import bit, lsb, msb
from ...inlining import into_search_loops
from .layout import (BLACK, DELTA, KO, LANDING_MASK, LINE_THROUGH, MAX_PLIES, NEXT_TO, NOT_A,
                     NOT_H, NO_KO, PLIES, QUIET, QUIET_PLIES, ROTATION, SIDE, WHITE,
                     _DIRECTION_OF_SIGNS)


@njit(cache=True, inline="always")
def shift(board, direction):
    """Return `board` with every checker moved one square in `direction` (off-board ones dropped)."""
    r = ROTATION[direction]
    return ((board << r) | (board >> (uint64(64) - r))) & LANDING_MASK[direction]


@njit(cache=True, inline="always")
def neighbours(board):
    """Return the board of squares next to (one king step from) some checker of `board`."""
    east = (board << uint64(1)) & NOT_A
    west = (board >> uint64(1)) & NOT_H
    band = board | east | west
    return east | west | (band << uint64(8)) | (band >> uint64(8))


@njit(cache=True, inline="always")
def singles(board):
    """Return the checkers of `board` with no checker of `board` on any of their 8 neighbours."""
    return board & ~neighbours(board)


@njit(cache=True, inline="always")
def _knock_direction(ko):
    """Return the direction of the knocking move recorded in the ko word `ko` (not NO_KO)."""
    code = np.int64(ko) - 1
    tail = code >> 6
    landing = code & 63
    df = (landing & 7) - (tail & 7)
    dr = (landing >> 3) - (tail >> 3)
    sf = np.int64(df > 0) - np.int64(df < 0)
    sr = np.int64(dr > 0) - np.int64(dr < 0)
    return _DIRECTION_OF_SIGNS[(sf + 1) * 3 + sr + 1]


@njit(cache=True, inline="always")
def _ko_bar(ko):
    """Return (barred direction, board of the barred line) of the ko word `ko`; (-1, 0) if NO_KO.

    The knock recorded in `ko` went along line L in direction D: the player to move may not
    knock along L in the opposite direction."""
    if ko == NO_KO:
        return np.int64(-1), uint64(0)
    barred_direction = _knock_direction(ko) ^ 4
    return barred_direction, LINE_THROUGH[(barred_direction & 3) * 64 + ((np.int64(ko) - 1) >> 6)]


@njit(cache=True)
def ko_word(tail, landing):
    """Return the ko word recording a knocking move from `tail` that landed on `landing`."""
    return uint64(1 + tail * 64 + landing)


@njit(cache=True, inline="always")
def _nearest_behind(board, line, sq, d):
    """Return the square of `board` on `line` nearest to `sq` strictly behind it (against `d`)."""
    if DELTA[d] > 0:
        return msb(board & line & (bit(sq) - uint64(1)))
    return lsb(board & line & ~((bit(sq) << uint64(1)) - uint64(1)))


@njit(cache=True, inline="always")
def _nearest_ahead(board, line, sq, d):
    """Return the square of `board` on `line` nearest to `sq`, `sq` included, ahead of it along `d`."""
    if DELTA[d] > 0:
        return lsb(board & line & ~(bit(sq) - uint64(1)))
    return msb(board & line & ((bit(sq) << uint64(1)) - uint64(1)))


@njit(cache=True, inline="always")
def _sides(state):
    """Return (side, own, enemy): the side to move (0 White, 1 Black) and the two boards."""
    side = uint64(state[SIDE] != 0)  # any non-zero word is Black; 0 and 1 stay in bounds
    return side, state[side], state[side ^ uint64(1)]  # WHITE = 0 and BLACK = 1 index the boards


@njit(cache=True, inline="always")
def _movable_fronts(own, enemy, empty, ahead, behind, d, barred_direction, barred_line):
    """Return the squares F that `own`'s rows may move onto in direction `d` by every rule but singles.

    `ahead` is shift(own, d) and `behind` shift(own, d ^ 4), which the caller also needs for the
    rows' tails. A row's F must be on the board and empty, or hold an enemy checker whose push
    is neither barred by the ko nor onto the mover's own checker."""
    heads = own & ahead & ~behind
    fronts = shift(heads, d)  # F of every row whose F is on the board
    movable = fronts & empty
    knocked = fronts & enemy
    if knocked:
        if d == barred_direction:
            knocked &= ~barred_line
        # A knock is refused when the knocked row would be pushed onto the mover's own checker:
        # its last checker is an enemy one whose successor is own. Fill back from those ends
        # through enemy checkers to the rows' first checkers, the knocked F squares. The row
        # behind F holds two own checkers and the own one lies beyond, so a knocked row is at
        # most five long: four steps reach F from any end.
        back = d ^ 4
        refused = enemy & behind
        refused |= shift(refused, back) & enemy
        refused |= shift(refused, back) & enemy
        refused |= shift(refused, back) & enemy
        refused |= shift(refused, back) & enemy
        movable |= knocked & ~refused
    return movable


@njit(cache=True, inline="always")
def _tail_of(tails, f, d):
    """Return the tail of the row (tails in `tails`) whose F in direction `d` is `f`."""
    return _nearest_behind(tails, LINE_THROUGH[(d & 3) * 64 + f], f, d)


@njit(cache=True, inline="always")
def _weak_checkers(own):
    """Return (lone, weak): the checkers of `own` with no own neighbour, and with at most one.

    With them a move's singles test costs two table lookups (_leaves_no_single)."""
    east = (own << uint64(1)) & NOT_A  # own is on the square's west neighbour
    west = (own >> uint64(1)) & NOT_H
    side_one = east ^ west  # the two neighbours on the square's rank, as a 2-bit count
    side_two = east & west
    band_one = side_one ^ own  # the three squares of a rank around a file, as a 2-bit count
    band_two = side_two | (own & (east | west))
    up_one = band_one << uint64(8)
    up_two = band_two << uint64(8)
    down_one = band_one >> uint64(8)
    down_two = band_two >> uint64(8)
    one = side_one | side_two | up_one | up_two | down_one | down_two
    two = side_two | up_two | down_two | (side_one & (up_one | down_one)) | (up_one & down_one)
    return own & ~one, own & ~two


@njit(cache=True, inline="always")
def _leaves_no_single(lone, weak, t, f):
    """Return True if moving a row's tail `t` to its F `f` leaves the mover no single.

    `lone` and `weak` come from _weak_checkers(own). F is next to the row's head, which stays,
    so only an own checker can be left single: one that already was (lone), or one whose only
    own neighbour was the tail (weak and next to t), unless it is next to F."""
    return ((lone | (weak & NEXT_TO[t])) & ~NEXT_TO[f]) == 0


@njit(cache=True, inline="always")
def _generate_direction(own, enemy, empty, d, barred_direction, barred_line, lone, weak, out, n):
    """Append the legal moves of `own`'s rows in direction `d` to `out[n:]`; return the new n."""
    ahead = shift(own, d)
    behind = shift(own, d ^ 4)
    movable = _movable_fronts(own, enemy, empty, ahead, behind, d, barred_direction, barred_line)
    tails = own & behind & ~ahead
    while movable:
        f = lsb(movable)
        movable &= movable - uint64(1)
        t = _tail_of(tails, f, d)
        out[uint64(n)] = t * 8 + d  # an unsigned index skips the negative-index wraparound
        # Counting instead of branching: a refused move is overwritten by the next one, and
        # the rarely taken branch cost more in mispredictions than the write.
        n += _leaves_no_single(lone, weak, t, f)
    return n


@njit(cache=True, inline="always")
def _has_move_direction(own, enemy, empty, d, barred_direction, barred_line, lone, weak):
    """Return True if `own` has a legal move in direction `d` (see _generate_direction)."""
    ahead = shift(own, d)
    behind = shift(own, d ^ 4)
    movable = _movable_fronts(own, enemy, empty, ahead, behind, d, barred_direction, barred_line)
    tails = own & behind & ~ahead
    while movable:
        f = lsb(movable)
        movable &= movable - uint64(1)
        if _leaves_no_single(lone, weak, _tail_of(tails, f, d), f):
            return True
    return False


@njit(cache=True, inline="always")  # legal_actions, its one caller, saves a call
def _generate(state, out):
    """Write the legal actions of the side to move into `out`; return their number.

    Ignores the end-of-game rules."""
    _, own, enemy = _sides(state)
    empty = ~(own | enemy)
    barred_direction, barred_line = _ko_bar(state[KO])
    lone, weak = _weak_checkers(own)
    # Written out with a constant d, the eight directions made this call faster (every table
    # lookup and sign test on d folded away) but compiled several times slower, and
    # alpha-beta's node rate hardly moved: the loop stays.
    n = 0
    for d in range(8):
        n = _generate_direction(own, enemy, empty, d, barred_direction, barred_line, lone, weak, out, n)
    return n


@njit(cache=True, inline="always")
def _quiet_limit_reached(quiet, quiet_plies):
    """Return True if `quiet` consecutive plies without a knock reach the limit `quiet_plies`."""
    return quiet >= quiet_plies


@njit(cache=True, inline="always")
def _ply_limit_reached(plies, max_plies):
    """Return True if `plies` plies played reach the limit `max_plies`."""
    return plies >= max_plies


@njit(cache=True, inline="always")
def _draw_limit_reached(state):
    """Return True if one of the two draw limits has been reached."""
    # `|`, not `or`: a branch here kept the caller's array refcounts from being optimized away
    return (_quiet_limit_reached(state[QUIET], state[QUIET_PLIES])
            | _ply_limit_reached(state[PLIES], state[MAX_PLIES]))


@njit(cache=True, inline=into_search_loops)
def legal_actions(state, out):
    """Write the legal actions into `out` (length >= MAX_ACTIONS); return their number (0 if over)."""
    if _draw_limit_reached(state):
        return 0
    return _generate(state, out)


@njit(cache=True)
def _has_legal_move(own, enemy, ko):
    """Return True if `own` (facing `enemy`, under the ko word `ko`) has a legal move.

    Stops at the first legal move found and writes no actions, so it needs no buffer. A call
    on scalars (no array to count references of), so `result` can be inlined into a search
    without inlining this loop too (numba's inlining copies IR: compile time)."""
    empty = ~(own | enemy)
    barred_direction, barred_line = _ko_bar(ko)
    lone, weak = _weak_checkers(own)
    for d in range(8):
        if _has_move_direction(own, enemy, empty, d, barred_direction, barred_line, lone, weak):
            return True
    return False


@njit(cache=True)
def has_legal_action(state):
    """Return True if the side to move has a legal move (ignoring the draw limits)."""
    _, own, enemy = _sides(state)
    return _has_legal_move(own, enemy, state[KO])


@njit(cache=True, inline=into_search_loops)
def is_legal_action(state, action):
    """Return True if `action` (any int in 0..MAX_ACTIONS-1) is legal here, without generating.

    The same tests as legal_actions for one row: the tail starts a row of two or more in the
    action's direction, its F is on the board and may be moved onto (empty, or a knock the
    ko and the landing rule allow), no single of the mover is left, and no draw limit is
    reached. A search checks a remembered move (a killer) with it before generating."""
    if _draw_limit_reached(state):
        return False
    _, own, enemy = _sides(state)
    t = action >> 3
    d = action & 7
    ahead = shift(own, d)
    behind = shift(own, d ^ 4)
    tails = own & behind & ~ahead
    if not (tails >> uint64(t)) & uint64(1):
        return False
    heads = own & ahead & ~behind
    front = shift(bit(_nearest_ahead(heads, LINE_THROUGH[(d & 3) * 64 + t], t, d)), d)
    barred_direction, barred_line = _ko_bar(state[KO])
    movable = _movable_fronts(own, enemy, ~(own | enemy), ahead, behind, d, barred_direction,
                              barred_line)
    if not front & movable:
        return False  # F off the board, own, or a refused knock
    lone, weak = _weak_checkers(own)
    return _leaves_no_single(lone, weak, t, lsb(front))


@njit(cache=True, inline="always")
def _head_of(own, tail, direction):
    """Return the head square of the row of `own` whose tail is `tail`, moving in `direction`.

    Loop-free, so an action that names no row gives a wrong square rather than a hang."""
    ends = own & ~shift(own, direction ^ 4)
    return _nearest_ahead(ends, LINE_THROUGH[(direction & 3) * 64 + tail], tail, direction)


@njit(cache=True)
def landing_square(state, action):
    """Return the square F the tail lands on when the side to move plays `action`."""
    own = state[BLACK] if state[SIDE] else state[WHITE]
    d = action & 7
    return _head_of(own, action >> 3, d) + DELTA[d]


@njit(cache=True)
def is_knock(state, action):
    """Return True if `action` knocks an enemy checker (its landing square holds one)."""
    enemy = state[WHITE] if state[SIDE] else state[BLACK]
    f = landing_square(state, action)
    return ((enemy >> uint64(f)) & uint64(1)) != 0
