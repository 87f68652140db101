"""Tolkuchka's observation tensor (docs/adapters.md): float32 planes of 8 x 8 of a state."""
import numpy as np
from numba import njit

from ...bits import bit
from ...planes import fraction, mark_plane
from .layout import BLACK, KO, MAX_PLIES, NO_KO, PLIES, QUIET, QUIET_PLIES, SIDE, WHITE
from .moves import _ko_bar


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
