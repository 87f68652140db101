"""Tolkuchka's evaluations of a non-final position, White's view, in (-1, 1).

The hand-set `evaluate` (material, pseudo-mobility, exposure) and `evaluate_tuned`, the Texel fit
of experiments/texel over `tuned_terms`.
"""
import math

import numpy as np
from numba import njit

from ...bits import popcount, squashed_logit
from ...inlining import into_search_loops
from .layout import (BLACK, FILE_A, FILE_H, LANDING_MASK, QUIET, QUIET_PLIES, RANK_1, RANK_8, SIDE,
                     WHITE)
from .moves import neighbours, shift
EVALUATION_BOUND = 1.0 - 1e-9  # evaluate() stays strictly inside (-1, 1)


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
