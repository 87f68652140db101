"""Tolkuchka kernels: the whole rule set (RULES.md, "Tolkuchka") as numba functions over one uint64 array.

State layout (`STATE_SIZE` words): the White and Black boards, the side to move, the ko word,
the count of consecutive plies without a knock, the ply count, and the two draw limits.

The ko word is 0 when the previous ply knocked nothing; after a knocking move it is
`1 + tail * 64 + landing` of that move (the position string's `tail-landing`), which names
both the line L and the direction D the next player may not knock back along.

Actions: `tail_square * 8 + direction`, directions 0..7 = N, NE, E, SE, S, SW, W, NW; the tail
is the back end of the moving row. All kernels trust their inputs: the State layer validates.
"""

import math

import numpy as np
from numba import njit, uint64

from ..bits import bit, lsb, msb, popcount, squashed_logit
from ..inlining import into_search_loops
from ..planes import fraction, mark_plane
from ..rng import rand_below

WHITE, BLACK, SIDE, KO, QUIET, PLIES, QUIET_PLIES, MAX_PLIES = 0, 1, 2, 3, 4, 5, 6, 7
STATE_SIZE = 8

ONGOING, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3
# Why a game ended (`termination`): the player to move has no checkers, or no legal move (both
# losses); `quiet_plies` plies in a row knocked nothing, or `max_plies` plies were played (both
# draws). Not QUIET_PLIES / MAX_PLIES: those name the state's limit slots.
NOT_OVER, NO_CHECKERS, NO_MOVE, QUIET_LIMIT, PLY_LIMIT = 0, 1, 2, 3, 4
ACTION_SPACE = 64 * 8  # every action id is below it: tail square * 8 + direction
MAX_ACTIONS = 512  # an action buffer's length: every action id fits (far fewer are legal at once)
DEFAULT_QUIET_PLIES = 50
DEFAULT_MAX_PLIES = 400
NO_KO = 0
EVALUATION_BOUND = 1.0 - 1e-9  # evaluate() stays strictly inside (-1, 1)

N, NE, E, SE, S, SW, W, NW = 0, 1, 2, 3, 4, 5, 6, 7
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")

FILE_A = uint64(0x0101010101010101)
FILE_H = uint64(0x8080808080808080)
RANK_1 = uint64(0x00000000000000FF)
RANK_8 = uint64(0xFF00000000000000)
NOT_A = ~FILE_A
NOT_H = ~FILE_H

# Square delta of one step in each direction (file delta + 8 * rank delta).
DELTA = np.array([8, 9, 1, -7, -8, -9, -1, 7], dtype=np.int64)
FILE_STEP = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
RANK_STEP = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)
# A one-step shift is a 64-bit rotation by the delta followed by a mask that drops the squares
# a bit could only reach by wrapping around an edge; this keeps every shift branch-free.
ROTATION = np.array([8, 9, 1, 57, 56, 55, 63, 7], dtype=np.uint64)
LANDING_MASK = np.array([
    ~RANK_1,
    ~RANK_1 & NOT_A,
    NOT_A,
    ~RANK_8 & NOT_A,
    ~RANK_8,
    ~RANK_8 & NOT_H,
    NOT_H,
    ~RANK_1 & NOT_H,
], dtype=np.uint64)
# Direction index of a (file sign, rank sign) pair, indexed by (file sign + 1) * 3 + rank sign + 1.
_DIRECTION_OF_SIGNS = np.array([SW, W, NW, S, -1, N, SE, E, NE], dtype=np.int64)

_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
_K1 = uint64(0x9E3779B97F4A7C15)
_K2 = uint64(0xD1B54A32D192ED03)
_K3 = uint64(0x8CB92BA72F3D8DD7)

# The page's standard setup (squares as rank * 8 + file).
STANDARD_WHITE_SQUARES = (11, 12, 13, 20, 27, 34, 41, 25, 32)  # d2 e2 f2 e3 d4 c5 b6 b4 a5
STANDARD_BLACK_SQUARES = (50, 51, 52, 43, 36, 29, 22, 38, 31)  # c7 d7 e7 d6 e5 f4 g3 g5 h4


def _board_of(squares):
    """Return the uint64 board with the given squares set."""
    b = 0
    for sq in squares:
        b |= 1 << sq
    return np.uint64(b)


def _line_masks():
    """Return LINE_THROUGH: entry orientation * 64 + sq is the board of the line through sq."""
    masks = np.zeros(4 * 64, dtype=np.uint64)
    for orientation in range(4):
        df, dr = int(FILE_STEP[orientation]), int(RANK_STEP[orientation])
        for sq in range(64):
            board = 0
            for sign in (1, -1):
                f, r = sq & 7, sq >> 3
                while 0 <= f < 8 and 0 <= r < 8:
                    board |= 1 << (r * 8 + f)
                    f += sign * df
                    r += sign * dr
            masks[orientation * 64 + sq] = np.uint64(board)
    return masks


def _neighbour_masks():
    """Return NEXT_TO: entry sq is the board of the (up to 8) squares next to sq."""
    masks = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        board = 0
        for f in range(max(0, (sq & 7) - 1), min(8, (sq & 7) + 2)):
            for r in range(max(0, (sq >> 3) - 1), min(8, (sq >> 3) + 2)):
                if r * 8 + f != sq:
                    board |= 1 << (r * 8 + f)
        masks[sq] = np.uint64(board)
    return masks


LINE_THROUGH = _line_masks()
NEXT_TO = _neighbour_masks()
STANDARD_WHITE = _board_of(STANDARD_WHITE_SQUARES)
STANDARD_BLACK = _board_of(STANDARD_BLACK_SQUARES)


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


# The state's constructors are plain numpy, not jitted: the Python layer calls them once per
# position it builds, and compiling them cost a first run about half a second.
def new_state(quiet_plies, max_plies):
    """Return an empty state (no checkers, White to move, no ko, counters at 0)."""
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    s[QUIET_PLIES] = quiet_plies
    s[MAX_PLIES] = max_plies
    return s


def standard_state(quiet_plies, max_plies):
    """Return the page's standard setup with White to move."""
    s = new_state(quiet_plies, max_plies)
    s[WHITE] = STANDARD_WHITE
    s[BLACK] = STANDARD_BLACK
    return s


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
def _generate_direction(own, enemy, empty, ahead, behind, d, barred_direction, barred_line, lone, weak,
                        out, n):
    """Append the legal moves of `own`'s rows in direction `d` to `out[n:]`; return the new n."""
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
def _has_move_direction(own, enemy, empty, ahead, behind, d, barred_direction, barred_line, lone, weak):
    """Return True if `own` has a legal move in direction `d` (see _generate_direction)."""
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
        n = _generate_direction(own, enemy, empty, shift(own, d), shift(own, d ^ 4), d, barred_direction,
                                barred_line, lone, weak, out, n)
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
        if _has_move_direction(own, enemy, empty, shift(own, d), shift(own, d ^ 4), d, barred_direction,
                               barred_line, lone, weak):
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


@njit(cache=True, inline="always")
def _open_fronts(own):
    """Return the number of (row, direction) pairs whose F is on the board and not own."""
    # A row's F is never own (its head's successor is not own), so this counts the heads whose
    # successor is on the board: for direction d, the heads inside LANDING_MASK[d ^ 4]. The
    # boards own shifted by d and by d + 4 are "ahead" and "behind" for d, and the reverse for
    # d + 4, so four shift pairs serve all eight directions.
    count = 0
    for d in range(4):
        ahead = shift(own, d)
        behind = shift(own, d + 4)
        count += popcount(own & ahead & ~behind & LANDING_MASK[d + 4])
        count += popcount(own & behind & ~ahead & LANDING_MASK[d])
    return count


# evaluate's squashing, tanh(tenths / 40), tabled: its argument is a whole number of tenths
# (material, mobility and exposure are counts), and libm's tanh was a tenth of alpha-beta's
# time. Past +-EVALUATION_TENTHS tanh is 1.0 in float64 (the clip below takes over).
EVALUATION_TENTHS = 800
TANH_OF_TENTHS = np.array([math.tanh(k / 40.0)
                           for k in range(-EVALUATION_TENTHS, EVALUATION_TENTHS + 1)])


@njit(cache=True, inline=into_search_loops)
def evaluate(state):
    """Return a heuristic value in (-1, 1) from White's side (+ good for White).

    Terms, White minus Black: material (checkers on the board, weight 1), pseudo-mobility
    (a row and direction whose F is on the board and not own, weight 0.1: it ignores the
    knock-onto-own, singles and ko rules, so it costs only shifts), and exposure (checkers on
    the board's edge, which one knock can push off, weight -0.1). The sum x goes through
    tanh(x / 4), clipped to +-EVALUATION_BOUND; x is counted in whole tenths and tanh read
    from a table (TANH_OF_TENTHS), exactly math.tanh(tenths / 40)."""
    white = state[WHITE]
    black = state[BLACK]
    edge = FILE_A | FILE_H | RANK_1 | RANK_8
    material = np.int64(popcount(white)) - np.int64(popcount(black))
    mobility = np.int64(_open_fronts(white)) - np.int64(_open_fronts(black))
    exposure = np.int64(popcount(white & edge)) - np.int64(popcount(black & edge))
    tenths = min(max(10 * material + mobility - exposure, -EVALUATION_TENTHS), EVALUATION_TENTHS)
    value = TANH_OF_TENTHS[np.uint64(tenths + EVALUATION_TENTHS)]
    # tanh rounds to exactly +-1.0 past x ~ 19; the clip keeps even such a board below a win
    return min(max(value, -EVALUATION_BOUND), EVALUATION_BOUND)


# evaluate_tuned: the Texel fit of experiments/texel (logistic regression of self-play results
# on these terms; weights in logit units, rounded to 4 places; results.md there).
TUNED_TERMS = ("mobility", "exposure", "attacks_mover", "attacks_waiting", "material_fresh",
               "material_near")
TUNED_WEIGHTS = (0.0094, -0.1885, 0.2075, 0.1707, 0.1113, 0.1692)


@njit(cache=True, inline="always")
def _attacks(own, enemy):
    """Return the number of (row, direction) pairs of `own` whose front square holds an enemy
    checker (a knock, unless the knock rules refuse it: they are ignored here)."""
    count = 0
    for d in range(4):  # as in _open_fronts: the heads of direction d and of d + 4
        ahead = shift(own, d)
        behind = shift(own, d + 4)
        count += popcount(own & ahead & ~behind & shift(enemy, d + 4))
        count += popcount(own & behind & ~ahead & shift(enemy, d))
    return np.int64(count)


@njit(cache=True, inline="always")
def _gap(a, b):
    """Return the king distance between the nearest checkers of boards a and b, capped at 3."""
    near = neighbours(a) | a
    if near & b:
        return 1
    return 2 if neighbours(near) & b else 3


@njit(cache=True, inline="always")
def _terms(white, black, side, quiet, quiet_plies):
    """Return the TUNED_TERMS of the position given by its fields (see `tuned_terms`)."""
    edge = FILE_A | FILE_H | RANK_1 | RANK_8
    material = np.float64(np.int64(popcount(white)) - np.int64(popcount(black)))
    sign = 1.0 if side == 0 else -1.0
    mover, waiting = (black, white) if side else (white, black)
    quiet_limit = max(np.float64(1.0), np.float64(quiet_plies))
    gap = _gap(white, black) if white and black else 1
    return (np.float64(np.int64(_open_fronts(white)) - np.int64(_open_fronts(black))),
            np.float64(np.int64(popcount(white & edge)) - np.int64(popcount(black & edge))),
            sign * _attacks(mover, waiting),
            -sign * _attacks(waiting, mover),
            material * (1.0 - np.float64(quiet) / quiet_limit),
            material * (1.0 - (gap - 1) / 2.0))


@njit(cache=True, inline="always")
def tuned_terms(state):
    """Return evaluate_tuned's terms (TUNED_TERMS), each White's minus Black's.

    `evaluate`'s mobility and exposure; attacks = (row, direction) pairs whose front square
    is an enemy checker, for the mover and the waiting side apart (counted + for White, - for
    Black); and material (checkers) in two parts that fade: x (1 - quiet plies / quiet-ply
    limit), as the quiet-ply draw nears, and x (1 - (king distance between the armies, capped
    at 3, - 1) / 2), as the armies part. With both weights positive a lead never counts
    against its side; a lead far from the enemy at the quiet-ply limit counts nothing (the
    terms that make a side ahead go and knock)."""
    return _terms(state[WHITE], state[BLACK], state[SIDE], state[QUIET], state[QUIET_PLIES])


@njit(cache=True)
def _tuned_value(white, black, side, quiet, quiet_plies):
    """Return evaluate_tuned's value of the position given by its fields."""
    terms = _terms(white, black, side, quiet, quiet_plies)
    return squashed_logit(TUNED_WEIGHTS, terms, EVALUATION_BOUND)


@njit(cache=True, inline=into_search_loops)
def evaluate_tuned(state):
    """Return the tuned heuristic value in (-1, 1) from White's side: tanh(logit / 2) of the
    Texel fit's logit over `tuned_terms` (so the value is the fit's expected score 2 p - 1),
    clipped to +-EVALUATION_BOUND. Odd under swapping the colours with a half turn.

    The terms are computed in a call on the state's fields (scalars: no reference counting),
    so a search that inlines this keeps its node loop, and its compile time, as before."""
    return _tuned_value(state[WHITE], state[BLACK], state[SIDE], state[QUIET], state[QUIET_PLIES])


@njit(cache=True)
def playout_with_length(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end.

    Return (White's result, number of plies played)."""
    s = state.copy()
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while True:
        n = legal_actions(s, buf)
        if n == 0:
            return returns(s), plies
        apply(s, np.int64(buf[rand_below(rng, n)]), s)
        plies += 1


@njit(cache=True)
def playout(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end; return White's result."""
    return playout_with_length(state, rng)[0]


@njit(cache=True)
def perft(state, depth):
    """Return the number of leaves of the game tree `depth` plies below `state`."""
    if depth == 0:
        return np.int64(1)
    states = np.empty((depth, STATE_SIZE), dtype=np.uint64)
    acts = np.empty((depth, MAX_ACTIONS), dtype=np.int32)
    counts = np.zeros(depth, dtype=np.int64)
    idx = np.zeros(depth, dtype=np.int64)
    for i in range(STATE_SIZE):
        states[0, i] = state[i]
    counts[0] = legal_actions(states[0], acts[0])
    if depth == 1:
        return counts[0]
    total = np.int64(0)
    level = 0
    while level >= 0:
        if idx[level] >= counts[level]:
            level -= 1
            continue
        a = acts[level, idx[level]]
        idx[level] += 1
        child = states[level + 1]
        apply(states[level], np.int64(a), child)  # int64 as every caller: one signature
        n = legal_actions(child, acts[level + 1])
        if level + 2 == depth:
            total += n  # bulk count: the leaves are the children of this node
        else:
            level += 1
            counts[level] = n
            idx[level] = 0
    return total


# The observation tensor (docs/adapters.md): OBSERVATION_SHAPE float32 planes of 8 x 8, indexed
# [plane, rank index, file index] (a1 is [., 0, 0]).
OBS_WHITE, OBS_BLACK, OBS_BLACK_TO_MOVE, OBS_KO_LINE, OBS_KO_TAIL, OBS_KO_LANDING = 0, 1, 2, 3, 4, 5
OBS_QUIET, OBS_PLIES = 6, 7
OBSERVATION_SHAPE = (8, 8, 8)


@njit(cache=True)
def observation(state, out):
    """Write the observation planes of `state` into the float32 array `out` (OBSERVATION_SHAPE); return None.

    Absolute, not from the mover's side: White's and Black's checkers, Black to move (a constant
    plane), the ko (the squares of the line the previous ply knocked along, that move's tail
    square and its landing square; all 0 without a ko), and two constant planes: the quiet plies
    over quiet_plies and the plies over max_plies (each at most 1)."""
    out[:] = 0.0
    mark_plane(out, OBS_WHITE, state[WHITE])
    mark_plane(out, OBS_BLACK, state[BLACK])
    if state[SIDE] == 1:
        out[OBS_BLACK_TO_MOVE] = 1.0
    ko = state[KO]
    if ko != NO_KO:
        mark_plane(out, OBS_KO_LINE, _ko_bar(ko)[1])
        code = np.int64(ko) - 1
        mark_plane(out, OBS_KO_TAIL, bit(code >> 6))
        mark_plane(out, OBS_KO_LANDING, bit(code & 63))
    out[OBS_QUIET] = fraction(state[QUIET], state[QUIET_PLIES])
    out[OBS_PLIES] = fraction(state[PLIES], state[MAX_PLIES])
