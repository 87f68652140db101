"""Flow's move generation: step targets and origins, legal and candidate actions, wash choices.

`legal_actions` lists the steps whose current comes to rest (or, in the choose phase, the wash
choices the loop rule allows); `candidate_actions` lists every step target without resolving
its current, which a search confirms one by one with `is_legal_candidate`.
"""
import numpy as np
from numba import njit, uint64

from ...bits import bit, lsb, msb
from ...inlining import into_search_loops
from .layout import (BLACK, DAMES, FILE_A, FILE_H, FIRST, HIST, MASK, MAX_TURNS, MAX_WASHES, NHIST,
                     NO_SQUARE, ONGOING, PHASE, PHASE_CHOOSE, RANK_1, RESULT, SIDE, STEP, TURNS,
                     WASH_BASE, WHITE, WIDTH)
from .current import _step_is_legal, _wall_makers, arrangement_key, can_rest, wash, wash_candidates


NUM_STEP_SETS = 10  # pawn: forward 1/2, left 1/2, right 1/2; dame: up, down, left, right


@njit(cache=True, inline="always")
def _movable(own, step, first):
    """Return the pieces of `own` allowed to step: all but the first-moved one at step 2."""
    if step == 2 and first != NO_SQUARE:
        return own & ~bit(first)  # the first-moved piece may not make the second step
    return own


@njit(cache=True, inline="always")
def movable_pieces(state):
    """Return the board of the mover's pieces allowed to step (all but the first-moved one)."""
    return _movable(state[BLACK] if state[SIDE] else state[WHITE], state[STEP], state[FIRST])


@njit(cache=True, inline="always")
def _fill_up(gen, pro, k):
    """Occluded fill towards higher squares by steps of `k`: `gen` spread through `pro`."""
    gen |= pro & (gen << uint64(k))
    pro &= pro << uint64(k)
    gen |= pro & (gen << uint64(2 * k))
    pro &= pro << uint64(2 * k)
    return gen | (pro & (gen << uint64(4 * k)))


@njit(cache=True, inline="always")
def _fill_down(gen, pro, k):
    """Occluded fill towards lower squares by steps of `k`: `gen` spread through `pro`."""
    gen |= pro & (gen >> uint64(k))
    pro &= pro >> uint64(k)
    gen |= pro & (gen >> uint64(2 * k))
    pro &= pro >> uint64(2 * k)
    return gen | (pro & (gen >> uint64(4 * k)))


@njit(cache=True, inline="always")
def step_targets(side, movable, occ, dames, mask):
    """Return the 10 boards of squares the `movable` pieces can step to (legal or not).

    Sets 0-5 are pawn steps (forward 1, forward 2, left 1, left 2, right 1, right 2), sets
    6-9 dame rays (up, down, left, right). Each target square of a set has exactly one
    origin (`step_origin`), so the boards' popcounts count the candidate steps. Scalars in,
    scalars out: no array reference counting on this hot path. A ray is an occluded
    (Kogge-Stone) fill through the empty squares: three doubling shifts cover the seven
    squares a dame can travel, where a square-by-square loop takes seven dependent steps."""
    empty = mask & ~occ
    pawns = movable & ~dames
    rays = movable & dames
    not_a = ~FILE_A
    not_h = ~FILE_H
    if side:
        fwd1 = (pawns >> uint64(8)) & empty
        fwd2 = (fwd1 >> uint64(8)) & empty
    else:
        fwd1 = (pawns << uint64(8)) & empty
        fwd2 = (fwd1 << uint64(8)) & empty
    left1 = (pawns >> uint64(1)) & not_h & empty
    left2 = (left1 >> uint64(1)) & not_h & empty
    right1 = (pawns << uint64(1)) & not_a & empty
    right2 = (right1 << uint64(1)) & not_a & empty
    if rays:
        up = (_fill_up(rays, empty, 8) << uint64(8)) & empty
        down = (_fill_down(rays, empty, 8) >> uint64(8)) & empty
        left = (_fill_down(rays, empty & not_h, 1) >> uint64(1)) & not_h & empty
        right = (_fill_up(rays, empty & not_a, 1) << uint64(1)) & not_a & empty
    else:
        up = down = left = right = uint64(0)
    return (fwd1, fwd2, left1, left2, right1, right2, up, down, left, right)


@njit(cache=True, inline="always")
def step_origin(side, occ, set_index, to):
    """Return the square a step of target set `set_index` to square `to` starts from.

    Takes the side to move and the occupancy rather than the state: it runs once per
    candidate step, and an array argument would cost a reference-count round trip each time.
    A dame's origin is the nearest piece behind `to` on its file or rank (the squares
    between are empty): one bit scan, no walk."""
    fwd = -8 if side else 8
    if set_index == 0:
        return to - fwd
    if set_index == 1:
        return to - 2 * fwd
    if set_index == 2:
        return to + 1
    if set_index == 3:
        return to + 2
    if set_index == 4:
        return to - 1
    if set_index == 5:
        return to - 2
    below = bit(to) - uint64(1)
    above = ~(below | bit(to))
    if set_index == 6:
        return msb(occ & (FILE_A << uint64(to & 7)) & below)
    if set_index == 7:
        return lsb(occ & (FILE_A << uint64(to & 7)) & above)
    if set_index == 8:
        return lsb(occ & (RANK_1 << uint64(to & 56)) & above)
    return msb(occ & (RANK_1 << uint64(to & 56)) & below)


@njit(cache=True)
def _steps(state, out, confirm):
    """Write the steps of the side to move into `out`; return their number.

    With `confirm` only the legal steps (the current comes to rest); without, every
    candidate step, legal or not (see `candidate_actions`)."""
    side = state[SIDE]
    white = state[WHITE]
    black = state[BLACK]
    dames = state[DAMES]
    mask = state[MASK]
    width = np.int64(state[WIDTH])
    sets = step_targets(side, movable_pieces(state), white | black, dames, mask)
    n = 0
    for i in range(NUM_STEP_SETS):
        targets = sets[i]
        while targets:
            to = lsb(targets)
            targets &= targets - uint64(1)
            frm = step_origin(side, white | black, i, to)
            if not confirm or _step_is_legal(white, black, dames, frm, to, width, mask):
                out[n] = frm * 64 + to
                n += 1
    return n


@njit(cache=True)
def _any_legal_step(side, movable, white, black, dames, mask, width):
    """Return True if one of the `movable` pieces has a legal step (the scan of _steps, stopped early).

    Asked only of positions at rest (no wall). A vertical step (pawn forward, dame up or
    down) to a square that makes no wall is legal at once; only without one are the
    steps tried one by one."""
    occ = white | black
    sets = step_targets(side, movable, occ, dames, mask)
    if (sets[0] | sets[1] | sets[6] | sets[7]) & ~_wall_makers(occ, width, mask):
        return True
    for i in range(NUM_STEP_SETS):
        targets = sets[i]
        while targets:
            to = lsb(targets)
            targets &= targets - uint64(1)
            frm = step_origin(side, white | black, i, to)
            if _step_is_legal(white, black, dames, frm, to, width, mask):
                return True
    return False


@njit(cache=True)
def has_legal_step(state):
    """Return True if the side to move has at least one legal step (the current one)."""
    return _any_legal_step(state[SIDE], movable_pieces(state), state[WHITE], state[BLACK],
                           state[DAMES], state[MASK], np.int64(state[WIDTH]))


@njit(cache=True)
def _wash_is_legal(state, sq, scratch):
    """Return True if washing `sq` in the choose phase neither loops nor dooms the current."""
    nh = np.int64(state[NHIST])
    if nh - 1 >= MAX_WASHES:
        return False
    mask = state[MASK]
    w, b, d, _, _ = wash(state[WHITE], state[BLACK], state[DAMES], uint64(0), np.int64(NO_SQUARE), sq, mask)
    key = arrangement_key(w, b, d)
    for i in range(nh):
        scratch[i] = state[HIST + i]
        if scratch[i] == key:
            return False
    scratch[nh] = key
    return can_rest(w, b, d, scratch, nh + 1, np.int64(state[WIDTH]), mask)


@njit(cache=True, inline="always")
def turn_limit_reached(step, turns, max_turns):
    """Return True if a new turn would pass the turn limit: no action is left, the game is a
    draw. Scalars, so that hot paths call it without counting references of the state."""
    return step == 1 and turns >= max_turns


@njit(cache=True, inline="always")
def _actions(state, out, confirm):
    """legal_actions (`confirm` True) or candidate_actions (False).

    Inlined into those two, its only callers: numba re-optimises and emits all the code a
    compiled function links to in every caller, so a wrapper level over the whole move
    generator cost compile time (and its body is short)."""
    if state[RESULT] != ONGOING:
        return 0
    if state[PHASE] == PHASE_CHOOSE:
        cands = wash_candidates(state[WHITE] | state[BLACK], np.int64(state[WIDTH]), state[MASK])
        scratch = np.empty(MAX_WASHES + 1, dtype=np.uint64)
        n = 0
        while cands:
            sq = lsb(cands)
            cands &= cands - uint64(1)
            if _wash_is_legal(state, sq, scratch):
                out[n] = WASH_BASE + sq
                n += 1
        return n
    if turn_limit_reached(state[STEP], state[TURNS], state[MAX_TURNS]):
        return 0
    return _steps(state, out, confirm)


@njit(cache=True)
def legal_actions(state, out):
    """Write the legal actions into `out` (length >= MAX_ACTIONS); return their number."""
    return _actions(state, out, True)


@njit(cache=True, inline=into_search_loops)
def candidate_actions(state, out):
    """Write a superset of the legal actions into `out`; return their number.

    Every candidate step (a target of a movable piece), without asking whether the current
    it starts comes to rest; wash choices are checked in full (they are rare). A search
    confirms each candidate with `is_legal_candidate` only when it is about to try it:
    a cutoff after the first few moves spares resolving the currents of all the others."""
    return _actions(state, out, False)


@njit(cache=True, inline=into_search_loops)
def is_candidate(state, action):
    """Return True if `action` (any int) is one of candidate_actions(state), without generating.

    A step is a candidate when its piece may step (the mover's, not the first-moved one at
    step 2) and its target is among that piece's step targets. Wash choices are never
    reported (they are rare, and checking one costs its whole loop search). A search asks
    this of a remembered move (a killer) before generating the node's moves."""
    if state[RESULT] != ONGOING or state[PHASE] == PHASE_CHOOSE or action < 0 or action >= WASH_BASE:
        return False
    if turn_limit_reached(state[STEP], state[TURNS], state[MAX_TURNS]):
        return False
    frm = action >> 6
    side = state[SIDE]
    white = state[WHITE]
    black = state[BLACK]
    piece = _movable(black if side else white, state[STEP], state[FIRST]) & bit(frm)
    if piece == 0:
        return False
    sets = step_targets(side, piece, white | black, state[DAMES], state[MASK])
    targets = uint64(0)
    for i in range(NUM_STEP_SETS):
        targets |= sets[i]
    return ((targets >> uint64(action & 63)) & uint64(1)) != 0


@njit(cache=True, inline=into_search_loops)
def is_legal_candidate(state, action):
    """Return True if `action`, one of `candidate_actions(state)`, is legal."""
    if action >= WASH_BASE:
        return True
    return _step_is_legal(state[WHITE], state[BLACK], state[DAMES], action >> 6, action & 63,
                          np.int64(state[WIDTH]), state[MASK])
