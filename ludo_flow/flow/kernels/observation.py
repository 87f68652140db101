"""Flow's observation tensor (docs/adapters.md): float32 planes of 8 x 8 of a state."""
import numpy as np
from numba import njit

from ...bits import bit
from ...planes import fraction, mark_plane
from .layout import (BLACK, DAMES, FIRST, KNIGHTS, MASK, MAX_TURNS, NO_SQUARE, PHASE, PHASE_CHOOSE,
                     SIDE, STEP, TURNS, WHITE, WIDTH)
from .current import wash_candidates


# The observation tensor (docs/adapters.md): OBSERVATION_SHAPE float32 planes of 8 x 8, indexed
# [plane, rank index, file index] (a1 is [., 0, 0]) on every board size; squares off a smaller
# board stay 0 in every board plane (plane OBS_ON_BOARD tells them apart).
OBS_WHITE_PAWNS, OBS_WHITE_DAMES, OBS_BLACK_PAWNS, OBS_BLACK_DAMES, OBS_KNIGHTS = 0, 1, 2, 3, 4
OBS_ON_BOARD, OBS_BLACK_TO_MOVE, OBS_STEP_TWO, OBS_FIRST_MOVED, OBS_CHOOSING = 5, 6, 7, 8, 9
OBS_WASH_CANDIDATES, OBS_TURNS = 10, 11
OBSERVATION_SHAPE = (12, 8, 8)


@njit(cache=True)
def observation(state, out):
    """Write the observation planes of `state` into the float32 array `out` (OBSERVATION_SHAPE); return None.

    Absolute, not from the mover's side: White's and Black's pawns and dames (rooks and knights
    move alike), the knights among the dames (display only), the board's squares, then planes
    that are constant over the board: Black to move, step 2, the choose phase, and the completed
    turns over max_turns (at most 1); the first-moved piece (step 2, or a choose phase, while it is on the
    board) and, in a choose phase, every wash candidate (the action mask tells which are legal)."""
    out[:] = 0.0
    white = state[WHITE]
    black = state[BLACK]
    dames = state[DAMES]
    mark_plane(out, OBS_WHITE_PAWNS, white & ~dames)
    mark_plane(out, OBS_WHITE_DAMES, white & dames)
    mark_plane(out, OBS_BLACK_PAWNS, black & ~dames)
    mark_plane(out, OBS_BLACK_DAMES, black & dames)
    mark_plane(out, OBS_KNIGHTS, state[KNIGHTS])
    mark_plane(out, OBS_ON_BOARD, state[MASK])
    choosing = state[PHASE] == PHASE_CHOOSE
    if state[SIDE] == 1:
        out[OBS_BLACK_TO_MOVE] = 1.0
    if state[STEP] == 2:
        out[OBS_STEP_TWO] = 1.0
    if state[FIRST] != NO_SQUARE and (state[STEP] == 2 or choosing):
        mark_plane(out, OBS_FIRST_MOVED, bit(state[FIRST]))
    if choosing:
        out[OBS_CHOOSING] = 1.0
        mark_plane(out, OBS_WASH_CANDIDATES,
                       wash_candidates(white | black, np.int64(state[WIDTH]), state[MASK]))
    out[OBS_TURNS] = fraction(state[TURNS], state[MAX_TURNS])
