"""Tolkuchka kernels: the whole rule set (rules/TOLKUCHKA.md) as numba functions over one uint64 array.

State layout (`STATE_SIZE` words): the White and Black boards, the side to move, the ko word,
the count of consecutive plies without a knock, the ply count, and the two draw limits.

The ko word is 0 when the previous ply knocked nothing; after a knocking move it is
`1 + tail * 64 + landing` of that move (the position string's `tail-landing`), which names
both the line L and the direction D the next player may not knock back along.

Actions: `tail_square * 8 + direction`, directions 0..7 = N, NE, E, SE, S, SW, W, NW; the tail
is the back end of the moving row. All kernels trust their inputs: the State layer validates.
"""
import numpy as np
from numba import njit, uint64
from numba.cpython.unsafe.numbers import leading_zeros

from ..bits import bit, lsb, popcount
from ..rng import rand_below

WHITE, BLACK, SIDE, KO, QUIET, PLIES, QUIET_PLIES, MAX_PLIES = 0, 1, 2, 3, 4, 5, 6, 7
STATE_SIZE = 8

ONGOING, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3
MAX_ACTIONS = 512  # an action is a row head and a direction: at most 64 x 8, far fewer in play
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


LINE_THROUGH = _line_masks()
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


@njit(cache=True)
def new_state(quiet_plies, max_plies):
    """Return an empty state (no checkers, White to move, no ko, counters at 0)."""
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    s[QUIET_PLIES] = quiet_plies
    s[MAX_PLIES] = max_plies
    return s


@njit(cache=True)
def standard_state(quiet_plies, max_plies):
    """Return the page's standard setup with White to move."""
    s = new_state(quiet_plies, max_plies)
    s[WHITE] = STANDARD_WHITE
    s[BLACK] = STANDARD_BLACK
    return s


@njit(cache=True, inline="always")
def _line_id(sq, direction):
    """Return an index of the line through `sq` along `direction`'s orientation (same for both ways)."""
    f = sq & 7
    r = sq >> 3
    orientation = direction & 3
    if orientation == 0:
        return f
    if orientation == 2:
        return r
    if orientation == 1:
        return f - r + 7
    return f + r


@njit(cache=True)
def ko_direction(ko):
    """Return the direction of the knocking move recorded in the ko word `ko` (-1 if none)."""
    if ko == NO_KO:
        return np.int64(-1)
    code = np.int64(ko) - 1
    tail = code >> 6
    landing = code & 63
    df = (landing & 7) - (tail & 7)
    dr = (landing >> 3) - (tail >> 3)
    sf = 1 if df > 0 else (-1 if df < 0 else 0)
    sr = 1 if dr > 0 else (-1 if dr < 0 else 0)
    return _DIRECTION_OF_SIGNS[(sf + 1) * 3 + sr + 1]


@njit(cache=True)
def ko_word(tail, landing):
    """Return the ko word recording a knocking move from `tail` that landed on `landing`."""
    return uint64(1 + tail * 64 + landing)


@njit(cache=True, inline="always")
def _msb(x):
    """Return the index of the highest set bit of a non-zero uint64 board."""
    return np.int64(63 - leading_zeros(x))


@njit(cache=True, inline="always")
def _nearest_behind(board, line, sq, d):
    """Return the square of `board` on `line` nearest to `sq` strictly behind it (against `d`)."""
    if DELTA[d] > 0:
        return _msb(board & line & (bit(sq) - uint64(1)))
    return lsb(board & line & ~((bit(sq) << uint64(1)) - uint64(1)))


@njit(cache=True, inline="always")
def _nearest_ahead(board, line, sq, d):
    """Return the square of `board` on `line` nearest to `sq`, `sq` included, ahead of it along `d`."""
    if DELTA[d] > 0:
        return lsb(board & line & ~(bit(sq) - uint64(1)))
    return _msb(board & line & ((bit(sq) << uint64(1)) - uint64(1)))


@njit(cache=True, inline="always")
def _generate_direction(own, enemy, empty, d, barred_direction, barred_line, out, n, stop_at_first):
    """Append the legal moves of `own`'s rows in direction `d` to `out[n:]`; return the new n."""
    line_base = (d & 3) * 64
    ahead = shift(own, d)  # squares whose predecessor in direction d is own
    behind = shift(own, d ^ 4)  # squares whose successor in direction d is own
    heads = own & ahead & ~behind
    tails = own & behind & ~ahead
    fronts = shift(heads, d)  # F of every row whose F is on the board
    movable = fronts & empty
    knocked = fronts & enemy
    if knocked:
        if d == barred_direction:
            knocked &= ~barred_line
        enemy_ends = enemy & ~shift(enemy, d ^ 4)
        candidates = knocked
        while candidates:
            f = lsb(candidates)
            candidates &= candidates - uint64(1)
            g = _nearest_ahead(enemy_ends, LINE_THROUGH[line_base + f], f, d)
            if shift(bit(g), d) & own:
                knocked &= ~bit(f)  # the knocked checker would land on the mover's own
        movable |= knocked
    while movable:
        f = lsb(movable)
        movable &= movable - uint64(1)
        t = _nearest_behind(tails, LINE_THROUGH[line_base + f], f, d)
        if not stop_at_first:
            out[n] = t * 8 + d
        # Counting instead of branching: a refused move is overwritten by the next one, and
        # the rarely taken branch cost more in mispredictions than the write.
        n += singles(own ^ bit(t) ^ bit(f)) == 0
    return n


@njit(cache=True)
def _generate(state, out):
    """Write the legal actions of the side to move into `out`; return their number.

    Ignores the end-of-game rules. Given an empty `out`, only tell whether a legal move
    exists: return a positive count at the first direction that has one."""
    stop_at_first = out.shape[0] == 0  # a runtime flag: a literal bool would compile twice
    side = state[SIDE]
    own = state[BLACK] if side else state[WHITE]
    enemy = state[WHITE] if side else state[BLACK]
    empty = ~(own | enemy)
    barred_direction = np.int64(-1)
    barred_line = uint64(0)
    ko = state[KO]
    if ko != NO_KO:
        barred_direction = ko_direction(ko) ^ 4
        barred_line = LINE_THROUGH[(barred_direction & 3) * 64 + ((np.int64(ko) - 1) >> 6)]
    n = 0
    for d in range(8):
        n = _generate_direction(own, enemy, empty, d, barred_direction, barred_line, out, n, stop_at_first)
        if stop_at_first and n:
            return n
    return n


@njit(cache=True, inline="always")
def _draw_limit_reached(state):
    """Return True if one of the two draw limits has been reached."""
    return state[QUIET] >= state[QUIET_PLIES] or state[PLIES] >= state[MAX_PLIES]


@njit(cache=True)
def legal_actions(state, out):
    """Write the legal actions into `out` (length >= MAX_ACTIONS); return their number (0 if over)."""
    if _draw_limit_reached(state):
        return 0
    return _generate(state, out)


@njit(cache=True)
def has_legal_action(state):
    """Return True if the side to move has a legal move (ignoring the draw limits)."""
    dummy = np.empty(0, dtype=np.int32)
    return _generate(state, dummy) > 0


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


@njit(cache=True)
def apply(state, action, out):
    """Write into `out` the state after the legal `action`; `out` may be `state` (in place)."""
    if out is not state:
        for i in range(STATE_SIZE):  # a slice copy costs seconds of compile time
            out[i] = state[i]
    s = out
    side = s[SIDE]
    own = s[BLACK] if side else s[WHITE]
    enemy = s[WHITE] if side else s[BLACK]
    t = action >> 3
    d = action & 7
    f = _head_of(own, t, d) + DELTA[d]
    fbit = bit(f)
    knocked = (enemy & fbit) != 0
    if knocked:
        enemy_ends = enemy & ~shift(enemy, d ^ 4)
        g = _nearest_ahead(enemy_ends, LINE_THROUGH[(d & 3) * 64 + f], f, d)
        enemy = (enemy ^ fbit) | shift(bit(g), d)  # an empty shift means pushed off the board
    own ^= bit(t) | fbit
    # Every enemy single goes. A move that knocks nothing leaves the enemy board as it was, so
    # it can only clear singles of a position that was not legal to begin with; such a removal
    # is never a knock: only a move whose F held an enemy checker resets the quiet count.
    enemy &= neighbours(enemy)
    if side:
        s[BLACK] = own
        s[WHITE] = enemy
    else:
        s[WHITE] = own
        s[BLACK] = enemy
    s[SIDE] = side ^ uint64(1)
    s[PLIES] += uint64(1)
    if knocked:
        s[QUIET] = 0
        s[KO] = ko_word(t, f)
    else:
        s[QUIET] += uint64(1)
        s[KO] = NO_KO


@njit(cache=True)
def result(state):
    """Return ONGOING, WHITE_WINS, BLACK_WINS or DRAW, judged for the player to move."""
    side = state[SIDE]
    own = state[BLACK] if side else state[WHITE]
    lost = WHITE_WINS if side else BLACK_WINS
    if own == 0:
        return lost
    if _draw_limit_reached(state):
        return DRAW
    if not has_legal_action(state):
        return lost
    return ONGOING


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


@njit(cache=True)
def hash_key(state):
    """Return a 64-bit key of the boards, side, ko (as line and direction) and counters.

    Two ko words that bar the same line and direction give the same key."""
    ko = state[KO]
    ko_code = uint64(0)
    if ko != NO_KO:
        d = ko_direction(ko)
        ko_code = uint64(1 + d * 16 + _line_id((np.int64(ko) - 1) >> 6, d))
    h = _fmix(state[WHITE] ^ _K1)
    h = _fmix(h ^ state[BLACK] ^ _K2)
    h = _fmix(h ^ state[SIDE] ^ (ko_code << uint64(1)) ^ _K3)
    h = _fmix(h ^ state[QUIET] ^ (state[QUIET_PLIES] << uint64(32)))
    return _fmix(h ^ state[PLIES] ^ (state[MAX_PLIES] << uint64(32)))


@njit(cache=True)
def _open_fronts(own):
    """Return the number of (row, direction) pairs whose F is on the board and not own."""
    count = 0
    for d in range(8):
        heads = own & shift(own, d) & ~shift(own, (d + 4) & 7)
        count += popcount(shift(heads, d) & ~own)
    return count


@njit(cache=True)
def evaluate(state):
    """Return a heuristic value in (-1, 1) from White's side (+ good for White).

    Terms, White minus Black: material (checkers on the board, weight 1), pseudo-mobility
    (a row and direction whose F is on the board and not own, weight 0.1: it ignores the
    knock-onto-own, singles and ko rules, so it costs only shifts), and exposure (checkers on
    the board's edge, which one knock can push off, weight -0.1). The sum goes through
    tanh(x / 4), clipped to +-EVALUATION_BOUND."""
    white = state[WHITE]
    black = state[BLACK]
    edge = FILE_A | FILE_H | RANK_1 | RANK_8
    material = np.float64(popcount(white)) - np.float64(popcount(black))
    mobility = np.float64(_open_fronts(white)) - np.float64(_open_fronts(black))
    exposure = np.float64(popcount(white & edge)) - np.float64(popcount(black & edge))
    value = np.tanh((material + 0.1 * mobility - 0.1 * exposure) / 4.0)
    # tanh rounds to exactly +-1.0 past |x| ~ 76; the clip keeps even such a board below a win
    return min(max(value, -EVALUATION_BOUND), EVALUATION_BOUND)


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
        apply(s, buf[rand_below(rng, n)], s)
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
        apply(states[level], a, child)
        n = legal_actions(child, acts[level + 1])
        if level + 2 == depth:
            total += n  # bulk count: the leaves are the children of this node
        else:
            level += 1
            counts[level] = n
            idx[level] = 0
    return total
