"""Flow's rules beyond move generation: `apply`, the end of a step and a turn, `result`, keys.

`apply` runs a step's current until it rests (or the player must choose a wash), then decides
the win on a far edge, the second step or the next turn (`_at_rest`); `result` and
`termination` read the end of the game; `hash_key` keys everything that decides them.
"""
import numpy as np
from numba import njit, uint64

from ...bits import lsb
from ...inlining import into_search_loops
from .layout import (BLACK, BLACK_WINS, BoardShape, DAMES, DRAW, FAR_EDGE, FIRST, HEIGHT, HIST,
                     KNIGHTS, MASK, MAX_TURNS, MAX_WASHES, NHIST, NOT_OVER, NO_FIRST_STEP,
                     NO_SQUARE, ONGOING, OPPONENT_FAR_EDGE, PHASE, PHASE_CHOOSE, PHASE_STEP,
                     RANK_1, RESULT, SIDE, STATE_SIZE, STEP, TURNS, TURN_LIMIT, WASH_BASE, WHITE,
                     WHITE_WINS, WIDTH, _K2)
from .current import _fmix, _stepped, arrangement_key, wash, wash_candidates
from .moves import _any_legal_step, _movable, turn_limit_reached


@njit(cache=True)
def _far_edge(side, mask, height):
    """Return the board of the far edge of `side` (White: the top rank, Black: rank 1)."""
    if side == 0:
        return mask & (RANK_1 << uint64(8 * (height - 1)))
    return mask & RANK_1


@njit(cache=True, inline="always")
def _next_turn(side, turns, max_turns):
    """Return (side, turns, result) after a turn ends: the other player moves; the game is
    drawn once max_turns turns are complete."""
    turns += uint64(1)
    return side ^ uint64(1), turns, uint64(DRAW) if turns >= max_turns else uint64(ONGOING)


@njit(cache=True, inline="always")
def _end_turn(s):
    """Pass the move to the other player in `s` (see _next_turn)."""
    s[SIDE], s[TURNS], s[RESULT] = _next_turn(s[SIDE], s[TURNS], s[MAX_TURNS])
    s[STEP] = 1
    s[FIRST] = NO_SQUARE


@njit(cache=True, inline="always")
def _at_rest(white, black, dames, board, side, step, first, turns, max_turns):
    """Return (result, side, step, first, turns) once a step's current is at rest on `board`
    (a `BoardShape`): a piece on its far edge wins (the mover's first), else the second step if one
    is legal, else the next turn. Scalars only (the bundle too, once inlined): apply calls it
    without counting references of its arrays."""
    mask, width, height = board.mask, board.width, board.height
    mine = black if side else white
    theirs = white if side else black
    if mine & _far_edge(side, mask, height):
        return uint64(BLACK_WINS if side else WHITE_WINS), side, step, first, turns
    if theirs & _far_edge(side ^ uint64(1), mask, height):
        return uint64(WHITE_WINS if side else BLACK_WINS), side, step, first, turns
    if step == 1:
        if _any_legal_step(side, _movable(mine, uint64(2), first), white, black, dames, mask, width):
            return uint64(ONGOING), side, uint64(2), first, turns
    side, turns, result = _next_turn(side, turns, max_turns)
    return result, side, uint64(1), uint64(NO_SQUARE), turns


@njit(cache=True, inline="always")
def _write_at_rest(out, white, black, dames, knights, first, step, mask, width):
    """Write a resting arrangement into `out` (holding the state before the step): the
    boards, then result, side, step, first piece and turns as `_at_rest` decides."""
    out[WHITE] = white
    out[BLACK] = black
    out[DAMES] = dames
    out[KNIGHTS] = knights
    out[PHASE] = PHASE_STEP
    out[NHIST] = 0
    out[RESULT], out[SIDE], out[STEP], out[FIRST], out[TURNS] = _at_rest(
        white, black, dames, BoardShape(mask, width, np.int64(out[HEIGHT])), out[SIDE], step,
        uint64(first), out[TURNS], out[MAX_TURNS])


@njit(cache=True, inline=into_search_loops)
def apply(state, action, out):
    """Write into `out` the state after `action` (a legal action); `out` may be `state`.

    Most steps make no wall: that case is short and inlined into its callers (a search's
    node loop), where a call taking two arrays costs reference-count round trips. A wash
    choice, or a step that starts a current, goes to `_apply_current`."""
    if action < WASH_BASE:
        to = action & 63
        white, black, dames, knights = _stepped(state[WHITE], state[BLACK], state[DAMES],
                                                state[KNIGHTS], action >> 6, to)
        mask = state[MASK]
        width = np.int64(state[WIDTH])
        if wash_candidates(white | black, width, mask) == 0:
            step = state[STEP]
            first = np.int64(to) if step == 1 else np.int64(state[FIRST])
            for i in range(STATE_SIZE):  # an element loop compiles seconds faster than out[:] = state
                out[i] = state[i]
            _write_at_rest(out, white, black, dames, knights, first, step, mask, width)
            return
    _apply_current(state, np.int64(action), out)  # one compiled signature for every caller


@njit(cache=True)
def _apply_current(state, action, out):
    """`apply` for a wash choice or a step that makes a wall: the current runs until it
    rests or the stepping player must choose (the choose phase).

    The fields are worked on as scalars and written once at the end."""
    for i in range(STATE_SIZE):
        out[i] = state[i]
    white = out[WHITE]
    black = out[BLACK]
    dames = out[DAMES]
    knights = out[KNIGHTS]
    first = np.int64(out[FIRST])
    step = out[STEP]
    mask = out[MASK]
    width = np.int64(out[WIDTH])
    nhist = np.int64(out[NHIST])
    if action >= WASH_BASE:
        white, black, dames, knights, first = wash(white, black, dames, knights, first,
                                                   action - WASH_BASE, mask)
    else:
        to = action & 63
        white, black, dames, knights = _stepped(white, black, dames, knights, action >> 6, to)
        if step == 1:
            first = to
        nhist = 0
    # The current runs: every arrangement from the step on is kept for the loop rule.
    while True:
        if nhist <= MAX_WASHES:  # never write past the history (memory is not trusted)
            out[HIST + nhist] = arrangement_key(white, black, dames)
            nhist += 1
        cands = wash_candidates(white | black, width, mask)
        if cands == 0:
            break
        if cands & (cands - uint64(1)) or nhist > MAX_WASHES:
            # Two or more candidates: the stepping player chooses. (Past MAX_WASHES only
            # for illegal input: it stops a bad action from spinning forever.)
            out[WHITE] = white
            out[BLACK] = black
            out[DAMES] = dames
            out[KNIGHTS] = knights
            out[FIRST] = first
            out[PHASE] = PHASE_CHOOSE
            out[NHIST] = nhist
            return
        white, black, dames, knights, first = wash(white, black, dames, knights, first,
                                                   lsb(cands), mask)
    _write_at_rest(out, white, black, dames, knights, first, step, mask, width)


@njit(cache=True, inline=into_search_loops)
def result(state):
    """Return ONGOING, WHITE_WINS, BLACK_WINS or DRAW for this state."""
    r = state[RESULT]
    if r != ONGOING or state[PHASE] == PHASE_CHOOSE or state[STEP] != 1:
        return np.int64(r)
    if turn_limit_reached(state[STEP], state[TURNS], state[MAX_TURNS]):
        return DRAW
    side = state[SIDE]
    own = state[BLACK] if side else state[WHITE]
    if not _any_legal_step(side, own, state[WHITE], state[BLACK], state[DAMES], state[MASK],
                           np.int64(state[WIDTH])):
        return WHITE_WINS if side else BLACK_WINS
    return ONGOING


@njit(cache=True)
def termination(state):
    """Return why the game ended: NOT_OVER, FAR_EDGE, OPPONENT_FAR_EDGE, NO_FIRST_STEP or TURN_LIMIT.

    Read off `result`, which holds the order of the end rules: a draw comes only from the turn
    limit; a win by a piece on the winner's far edge is FAR_EDGE when the winner made the step
    (a step that ends the game leaves the side to move unchanged), else OPPONENT_FAR_EDGE; any
    other win is the loser's lack of a first step (told by the board, not by the RESULT word,
    which random_ply also sets for that loss)."""
    r = result(state)
    if r == ONGOING:
        return np.int64(NOT_OVER)
    if r == DRAW:
        return np.int64(TURN_LIMIT)
    winner = np.int64(1) if r == BLACK_WINS else np.int64(0)
    won = state[BLACK] if winner else state[WHITE]
    if not won & _far_edge(winner, state[MASK], np.int64(state[HEIGHT])):
        return np.int64(NO_FIRST_STEP)
    if winner == np.int64(state[SIDE]):
        return np.int64(FAR_EDGE)
    return np.int64(OPPONENT_FAR_EDGE)


@njit(cache=True)
def is_terminal(state):
    """Return True if the game is over in this state."""
    return result(state) != ONGOING


@njit(cache=True)
def returns(state):
    """Return White's result: +1 win, -1 loss, 0 draw or game not over."""
    r = result(state)
    if r == WHITE_WINS:
        return 1.0
    if r == BLACK_WINS:
        return -1.0
    return 0.0


@njit(cache=True, inline=into_search_loops)
def current_player(state):
    """Return the player to decide: 0 White, 1 Black (also in the choose phase)."""
    return np.int64(state[SIDE])


@njit(cache=True, inline=into_search_loops)
def hash_key(state):
    """Return a 64-bit key of everything that decides the legal actions and the result."""
    h = arrangement_key(state[WHITE], state[BLACK], state[DAMES])
    h = _fmix(h ^ (state[SIDE] | (state[STEP] << uint64(1)) | (state[PHASE] << uint64(3))
                   | (state[FIRST] << uint64(4)) | (state[TURNS] << uint64(12))
                   | (state[RESULT] << uint64(40))))
    if state[PHASE] == PHASE_CHOOSE:
        acc = uint64(0)
        for i in range(np.int64(state[NHIST])):
            acc ^= _fmix(state[HIST + i] ^ _K2)  # the loop rule uses the set of keys
        h = _fmix(h ^ acc)
    return h
