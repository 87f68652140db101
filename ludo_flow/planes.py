"""Helpers of the games' observation kernels (`observation(state, out)`, docs/adapters.md):
planes of float32 over the 8 x 8 grid, indexed [plane, rank index, file index]."""
import numpy as np
from numba import njit, uint64

from .bits import lsb


@njit(cache=True)
def mark_plane(out, plane, board):
    """Set to 1 the squares of `board` in plane `plane` of a (planes, 8, 8) array; return None."""
    while board:
        sq = lsb(board)
        board &= board - uint64(1)
        out[plane, sq >> 3, sq & 7] = 1.0


@njit(cache=True)
def fraction(count, limit):
    """Return count / limit as a float32 clipped to [0, 1] (1 for a limit of 0: a hand-made array)."""
    if count >= limit:
        return np.float32(1.0)
    return np.float32(np.float64(count) / np.float64(limit))
