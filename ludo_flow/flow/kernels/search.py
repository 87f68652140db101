"""Flow's search support: what a search asks of the game beyond its rules.

`child_outcome` scores a child (result and evaluation) without writing its state where the step
makes no wall; `drop_transposed_steps` drops the second steps whose turn a search also reaches by
the other order of its two steps. `ludo_flow.dispatch` reaches both by game id.
"""
import numpy as np
from numba import njit, uint64

from ...bits import bit
from ...inlining import into_search_loops
from .layout import (BLACK, BLACK_WINS, BoardShape, DAMES, FILE_A, FIRST, HEIGHT, KNIGHTS, MASK,
                     MAX_TURNS, ONGOING, PHASE, PHASE_STEP, RANK_1, SIDE, STEP, TURNS, WASH_BASE,
                     WHITE, WHITE_WINS, WIDTH)
from .current import _stepped, wash_candidates
from .moves import _any_legal_step
from .rules import _at_rest, _far_edge, apply, result
from .evaluation import _hand_value, _tuned_value, evaluate, evaluate_tuned


@njit(cache=True, inline=into_search_loops)
def child_outcome(state, action, tuned, out):
    """Return (result, value) of the child the legal `action` leads to from `state`: its result
    code (`result`) and, White's view, 1.0 / -1.0 if it is won, else its evaluation
    (`evaluate_tuned` if `tuned`, else `evaluate`; a drawn child's too). `out` is scratch: it
    may or may not receive the child.

    Equal to `apply(state, action, out)` then `result(out)` and the evaluation of `out`. A
    search that scores every child of a node (MCTS's priors) calls this: a step that makes no
    wall, the common case, is scored from the child's fields without writing its state (48
    words), which cost about a fifth of that scoring."""
    if action < WASH_BASE:
        # apply's short path, repeated on purpose: a prologue shared with apply changed the
        # register allocation of the searches that inline apply, and perft and alpha-beta
        # measured slower (docs/benchmarks.md, "A prologue shared by apply and child_outcome")
        to = action & 63
        white, black, dames, knights = _stepped(state[WHITE], state[BLACK], state[DAMES],
                                                state[KNIGHTS], action >> 6, to)
        mask = state[MASK]
        width = np.int64(state[WIDTH])
        if wash_candidates(white | black, width, mask) == 0:  # at rest
            step = state[STEP]
            first = np.int64(to) if step == 1 else np.int64(state[FIRST])
            height = state[HEIGHT]
            code, side, step, first_piece, turns = _at_rest(
                white, black, dames, BoardShape(mask, width, np.int64(height)), state[SIDE], step,
                uint64(first), state[TURNS], state[MAX_TURNS])
            code = np.int64(code)
            if code == ONGOING and step == 1:  # a new turn: what `result` asks of it
                own = black if side else white
                if not _any_legal_step(side, own, white, black, dames, mask, width):
                    code = WHITE_WINS if side else BLACK_WINS
            if code == WHITE_WINS:
                return code, 1.0
            if code == BLACK_WINS:
                return code, -1.0
            if tuned:
                # the fields' types as evaluate_tuned passes them: one compiled signature
                return code, _tuned_value(white, black, dames, mask, state[WIDTH], height, side,
                                          step, uint64(PHASE_STEP), first_piece)
            return code, _hand_value(white, black, height)
    apply(state, action, out)
    code = np.int64(result(out))
    if code == WHITE_WINS:
        return code, 1.0
    if code == BLACK_WINS:
        return code, -1.0
    return code, evaluate_tuned(out) if tuned else evaluate(out)


@njit(cache=True, inline="always")
def _step_path(frm, to):
    """Return the board of the squares a step from `frm` to `to` passes over or lands on (the
    squares strictly between the two, along their rank or file, and `to`): all must be empty."""
    lo = min(frm, to)
    hi = max(frm, to)
    strictly_between = (bit(hi) - uint64(1)) ^ ((bit(lo) << uint64(1)) - uint64(1))
    if (frm & 7) == (to & 7):
        line = FILE_A << uint64(frm & 7)
    else:
        line = RANK_1 << uint64(frm & 56)
    return (strictly_between & line) | bit(to)


@njit(cache=True)
def drop_transposed_steps(before, state, first_action, actions, n):
    """Drop from `actions[:n]` the second steps whose turn is also made by the other order of
    its two steps with a lower first step; return how many actions are kept (compacted in place,
    in their order).

    `state` is `before` after the first step `first_action`, by the same player. A quiet turn
    (neither step makes a wall) whose steps do not cross each other's path reaches one position
    in either order, and a search would hold two copies of it: only the order whose first step
    has the lower action id is kept. A second step `c` (below `first_action` = `a`) is dropped
    when both orders are legal and equal: `a` made no current; `c` makes no wall after `a`,
    nor from `before` (where `a`'s piece still stands on its origin); `c` does not pass over or
    land on `a`'s origin; `c` does not land on `a`'s path; and `c` does not land on the far
    edge (that wins after `c` alone, so the other order is no turn of two steps). Then `before`,
    `c`, `a` is a legal turn to the same state (side, turn count and all) as `before`, `a`, `c`.

    Only a search's inner nodes may drop: at the root, the first step is already played.
    Nothing is dropped unless `before` is at step 1 and `state` at step 2 of the same player's
    turn, both choosing a step, and nothing if every action would be (a safeguard: a node
    keeps at least one child)."""
    if (first_action >= WASH_BASE or before[PHASE] != PHASE_STEP or state[PHASE] != PHASE_STEP
            or before[STEP] != 1 or state[STEP] != 2 or before[SIDE] != state[SIDE]):
        return n
    fa = first_action >> 6
    ta = first_action & 63
    moved = bit(fa) | bit(ta)
    side = state[SIDE]
    own, other = (BLACK, WHITE) if side else (WHITE, BLACK)
    if state[own] != (before[own] ^ moved) or state[other] != before[other]:
        return n  # the first step started a current: its turn has no simple other order
    mask = state[MASK]
    width = np.int64(state[WIDTH])
    occ_after = state[WHITE] | state[BLACK]
    occ_before = occ_after ^ moved
    first_path = _step_path(fa, ta)
    far = _far_edge(side, mask, state[HEIGHT])
    origin = bit(fa)
    keep = 0
    for i in range(n):
        c = np.int64(actions[i])
        drop = False
        if c < first_action:  # a step: wash choices have the higher ids
            fc = c >> 6
            tc = c & 63
            landing = bit(tc)
            if (landing & (far | first_path)) == 0 and (_step_path(fc, tc) & origin) == 0:
                stepped = bit(fc) | landing
                drop = (wash_candidates(occ_after ^ stepped, width, mask) == 0
                        and wash_candidates(occ_before ^ stepped, width, mask) == 0)
        if not drop:
            actions[keep] = c
            keep += 1
    if keep == 0:
        return n  # nothing was written: actions[:n] is intact
    return keep
