"""Flow's state layout, codes and constants, and the plain numpy constructors of a state.

The state is `STATE_SIZE` uint64 words: the colour, dame and knight boards and the board mask,
then one word per field (the slot constants below), then the keys of the arrangements of the
current step (`HIST`, the choose phase's loop rule). Actions: a step `from-to` is
`from * 64 + to`; a wash choice `~sq` is `WASH_BASE + sq`.
"""
from typing import NamedTuple

import numpy as np
from numba import uint64

WHITE, BLACK, DAMES, KNIGHTS, MASK = 0, 1, 2, 3, 4
SIDE, STEP, PHASE, FIRST, TURNS, MAX_TURNS, RESULT, WIDTH, HEIGHT, NHIST = 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
HIST = 15
MAX_WASHES = 32  # a 33rd wash within one step counts as a loop
STATE_SIZE = HIST + MAX_WASHES + 1

NO_SQUARE = 64
PHASE_STEP, PHASE_CHOOSE = 0, 1
ONGOING, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3
# Why a game ended (`termination`): the stepping player reached their far edge; a push carried
# the opponent's piece to the opponent's far edge; the player to move had no legal first step;
# max_turns turns were complete (a draw).
NOT_OVER, FAR_EDGE, OPPONENT_FAR_EDGE, NO_FIRST_STEP, TURN_LIMIT = 0, 1, 2, 3, 4
WASH_BASE = 4096
ACTION_SPACE = WASH_BASE + 64  # every action id is below it: steps from * 64 + to, then washes
# An action buffer's length. A step phase lists steps only: a target square is reached from at
# most four sides, each by the one movable piece nearest it there (a pawn one or two squares
# away, or a dame along the empty squares between), so at most 4 x 64 steps. A choose phase
# lists washes only: at most 64.
MAX_ACTIONS = 512

FILE_A = uint64(0x0101010101010101)
FILE_H = uint64(0x8080808080808080)
RANK_1 = uint64(0xFF)
_M1 = uint64(0xBF58476D1CE4E5B9)
_M2 = uint64(0x94D049BB133111EB)
_K1 = uint64(0x9E3779B97F4A7C15)
_K2 = uint64(0xD1B54A32D192ED03)
_K3 = uint64(0x8CB92BA72F3D8DD7)


class BoardShape(NamedTuple):
    """A board's squares and size, bundled where a kernel takes them together (`rules._at_rest`)."""

    mask: np.uint64   # the board's squares
    width: np.int64   # files, 4..8
    height: np.int64  # ranks, 4..8


# The state's constructors are plain numpy, not jitted: the Python layer calls them once per
# position it builds, and compiling them cost a first run 0.5-0.7 s before any kernel compiled.
def board_mask(width, height):
    """Return the board (np.uint64) of all squares inside a width x height board."""
    row = (1 << int(width)) - 1
    return np.uint64(sum(row << (8 * r) for r in range(int(height))))


def new_state(width, height, max_turns):
    """Return an empty state (no pieces, White to move, step 1) on a width x height board."""
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    s[MASK] = board_mask(width, height)
    s[WIDTH] = width
    s[HEIGHT] = height
    s[MAX_TURNS] = max_turns
    s[FIRST] = NO_SQUARE
    s[STEP] = 1
    return s
