"""Flow's evaluations of a non-final position, White's view, in (-1, 1).

The hand-set `evaluate` (the race to the far edge) and `evaluate_tuned`, the Texel fit of
experiments/texel over `tuned_terms`. Each has a scalar form (`_hand_value`, `_tuned_value`) that
`search.child_outcome` scores a child by without writing its state.
"""
import numpy as np
from numba import njit, uint64

from ...bits import lsb, msb, odd_tanh, popcount, squashed_logit
from ...inlining import into_search_loops
from .layout import (BLACK, DAMES, FILE_A, FILE_H, FIRST, HEIGHT, MASK, PHASE, PHASE_STEP, RANK_1,
                     SIDE, STEP, WHITE, WIDTH)
from .moves import _movable, step_targets


# Boards of the ranks whose index has bit 0, 1 or 2 set: the sum of the rank indices of a
# board's pieces is popcount(b & RANK_BIT0) + 2 * popcount(b & RANK_BIT1) + 4 * ...
RANK_BIT0 = uint64(0xFF00FF00FF00FF00)
RANK_BIT1 = uint64(0xFFFF0000FFFF0000)
RANK_BIT2 = uint64(0xFFFFFFFF00000000)


@njit(cache=True, inline="always")
def _rank_sum(pieces):
    """Return the sum over the pieces of `pieces` of their rank index (0 for rank 1)."""
    return (popcount(pieces & RANK_BIT0) + 2 * popcount(pieces & RANK_BIT1)
            + 4 * popcount(pieces & RANK_BIT2))


@njit(cache=True, inline="always")
def _race_score(best, total, count, span):
    """Return one side's race term: most advanced piece squared, total advancement, material."""
    return 3.0 * (best * best) / (span * span) + 0.5 * total / (span * 8.0) + 0.25 * count


@njit(cache=True, inline=into_search_loops)
def evaluate(state):
    """Return a heuristic value in (-1, 1) from White's side (+ good for White).

    The race to the far edge decides Flow, so the score weighs each side's most advanced
    piece (squared, so the last ranks count most), the sum of advancement, and material:
    per side 3 * best^2 / span^2 + 0.5 * total / (8 span) + 0.25 * count (span = height - 1,
    advancement counted in ranks from the side's own edge), White minus Black, through
    tanh(x / 4) (`bits.odd_tanh`). Loop-free: the most advanced piece is a bit scan, the advancement sum three
    popcounts."""
    return _hand_value(state[WHITE], state[BLACK], state[HEIGHT])


@njit(cache=True, inline="always")
def _hand_value(white, black, height):
    """Return evaluate's value of the position given by its fields."""
    span = np.int64(height) - 1
    w_count = popcount(white)
    b_count = popcount(black)
    w_best = msb(white) >> 3 if white else 0
    b_best = span - (lsb(black) >> 3) if black else 0
    w_total = _rank_sum(white)
    b_total = span * b_count - _rank_sum(black)
    score = _race_score(w_best, w_total, w_count, span) - _race_score(b_best, b_total, b_count, span)
    return odd_tanh(score / 4.0)


# evaluate_tuned: the Texel fit of experiments/texel (logistic regression of self-play results
# on these terms; weights in logit units, rounded to 4 places; results.md there).
TUNED_TERMS = ("best2", "advance", "pieces", "runner_mover", "runner_waiting", "washable_mover",
               "washable_waiting", "tempo_step1")
TUNED_WEIGHTS = (0.4665, -1.5097, 0.5301, 0.6349, 0.2751, -0.158, -0.3125, 0.0864)
EVALUATION_BOUND = 1.0 - 1e-9  # evaluate_tuned() stays strictly inside (-1, 1)


@njit(cache=True, inline="always")
def _reach(side, movable, occ, dames, mask):
    """Return the board of squares the `movable` pieces of `side` can step to (currents ignored)."""
    t = step_targets(side, movable, occ, dames, mask)
    return t[0] | t[1] | t[2] | t[3] | t[4] | t[5] | t[6] | t[7] | t[8] | t[9]


@njit(cache=True, inline="always")
def _washable(own, arrival, occ, mask, width):
    """Return how many `own` pieces become wash candidates when a piece arrives on an `arrival`
    square next to them: at rest no wall stands, so that needs the piece's other side to be
    occupied or the board's edge."""
    left_edge = FILE_A & mask
    right_edge = (FILE_A << uint64(width - 1)) & mask
    covered_left = ((occ << uint64(1)) & ~FILE_A) | left_edge
    covered_right = ((occ >> uint64(1)) & ~FILE_H) | right_edge
    arrive_right = ((arrival & ~occ) >> uint64(1)) & ~FILE_H
    arrive_left = ((arrival & ~occ) << uint64(1)) & ~FILE_A
    return np.int64(popcount(own & ((covered_left & arrive_right) | (covered_right & arrive_left))))


@njit(cache=True, inline="always")
def _terms(white, black, dames, mask, width, height, side, step, phase, first):
    """Return the TUNED_TERMS of the position given by its fields (see `tuned_terms`)."""
    span = np.int64(height) - 1
    occ = white | black
    w_best = (msb(white) >> 3) if white else np.int64(0)
    b_best = span - (lsb(black) >> 3) if black else np.int64(0)
    w_count = np.int64(popcount(white))
    b_count = np.int64(popcount(black))
    w_total = np.int64(_rank_sum(white))
    b_total = span * b_count - np.int64(_rank_sum(black))
    sign = 1.0 if side == 0 else -1.0
    mover = black if side else white
    waiting = white if side else black
    mover_reach = _reach(side, _movable(mover, step, first), occ, dames, mask)
    waiting_reach = _reach(side ^ uint64(1), waiting, occ, dames, mask)
    far = (mask & (RANK_1 << uint64(8 * span)), mask & RANK_1)  # White's far edge, Black's
    width = np.int64(width)
    return ((w_best * w_best - b_best * b_best) / (span * span),
            (w_total - b_total) / (8.0 * span),
            np.float64(w_count - b_count),
            sign * np.int64(popcount(mover_reach & far[side])),
            -sign * np.int64(popcount(waiting_reach & far[side ^ uint64(1)])),
            sign * _washable(mover, waiting_reach, occ, mask, width),
            -sign * _washable(waiting, mover_reach, occ, mask, width),
            sign if step == 1 and phase == PHASE_STEP else 0.0)


@njit(cache=True, inline="always")
def tuned_terms(state):
    """Return evaluate_tuned's terms (TUNED_TERMS), each White's minus Black's.

    The race (as in `evaluate`): best2 = (most advanced piece's ranks travelled / span)^2,
    advance = total ranks travelled / (8 span), pieces. Then, for the mover and the waiting
    side apart (counted + for White, - for Black): runner = far-edge squares the side's
    pieces can step to (the mover's movable ones: a win, unless the step's current washes
    the piece back or the loop rule forbids the step), washable = the side's
    pieces that one step of the other side makes wash candidates; tempo_step1 = the mover
    has its whole turn ahead (not a second step or a wash choice)."""
    return _terms(state[WHITE], state[BLACK], state[DAMES], state[MASK], state[WIDTH], state[HEIGHT],
                  state[SIDE], state[STEP], state[PHASE], state[FIRST])


@njit(cache=True)
def _tuned_value(white, black, dames, mask, width, height, side, step, phase, first):
    """Return evaluate_tuned's value of the position given by its fields."""
    terms = _terms(white, black, dames, mask, width, height, side, step, phase, first)
    return squashed_logit(TUNED_WEIGHTS, terms, EVALUATION_BOUND)


@njit(cache=True, inline=into_search_loops)
def evaluate_tuned(state):
    """Return the tuned heuristic value in (-1, 1) from White's side: tanh(logit / 2) of the
    Texel fit's logit over `tuned_terms` (so the value is the fit's expected score 2 p - 1),
    clipped to +-EVALUATION_BOUND. Odd under swapping the colours with the ranks mirrored.

    The terms are computed in a call on the state's fields (scalars: no reference counting),
    so a search that inlines this keeps its node loop, and its compile time, as before."""
    return _tuned_value(state[WHITE], state[BLACK], state[DAMES], state[MASK], state[WIDTH],
                        state[HEIGHT], state[SIDE], state[STEP], state[PHASE], state[FIRST])
