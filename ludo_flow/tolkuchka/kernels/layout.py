"""Tolkuchka's state layout, codes and board tables, the standard setup, and the plain numpy
constructors of a state.

The state is `STATE_SIZE` uint64 words: the White and Black boards, the side to move, the ko
word, the plies without a knock, the ply count and the two draw limits. Actions are
`tail_square * 8 + direction`, directions 0..7 = N, NE, E, SE, S, SW, W, NW.
"""
import numpy as np
from numba import uint64

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
