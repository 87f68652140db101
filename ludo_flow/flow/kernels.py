"""Flow kernels: the whole rule set as numba functions over one fixed-size uint64 array.

State layout (`STATE_SIZE` words, see the slot constants below): colour boards, a dame board
(rooks and knights) and a knight board (display only: rooks and knights move alike), the
board mask, then one word per field. In the choose phase the state also carries the keys of
every arrangement produced since its step began (the loop rule needs them).

Actions: a step `from-to` is `from * 64 + to`; a wash choice `~sq` is `WASH_BASE + sq`.
All kernels trust their inputs: the State layer validates.
"""
import numpy as np
from numba import njit, uint64

from ..bits import bit, lsb, msb, odd_tanh, popcount, squashed_logit
from ..inlining import into_search_loops
from ..planes import fraction, mark_plane
from ..rng import rand_below

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


@njit(cache=True, inline="always")
def _fmix(z):
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(cache=True)
def arrangement_key(white, black, dames):
    """Return the 64-bit key of an arrangement (colour and pawn/dame of every square)."""
    return _fmix(_fmix(_fmix(white ^ _K1) ^ black ^ _K2) ^ dames ^ _K3)


@njit(cache=True)
def wash_candidates(occ, width, mask):
    """Return the board of all wash candidates of all walls of the occupancy `occ`."""
    has_left = occ & ((occ << uint64(1)) & ~FILE_A)
    has_right = occ & ((occ >> uint64(1)) & ~FILE_H)
    left_edge = FILE_A & mask
    right_edge = (FILE_A << uint64(width - 1)) & mask
    return (has_left & has_right) | (left_edge & has_right) | (right_edge & has_left)


@njit(cache=True)
def wash(white, black, dames, knights, first, sq, mask):
    """Return (white, black, dames, knights, first) after the piece on `sq` is washed home.

    `first` (the first-moved piece's square or NO_SQUARE) follows the piece it names. Callers
    that ignore it pass np.int64(NO_SQUARE): the constant itself would be typed as the literal
    64 and compile a second copy of this function."""
    occ = white | black
    is_white = (white >> uint64(sq)) & uint64(1)
    step = -8 if is_white else 8
    nxt = sq + step
    if nxt < 0 or nxt >= 64 or not ((mask >> uint64(nxt)) & uint64(1)):
        moved = bit(sq)  # falls off the board
    elif (occ >> uint64(nxt)) & uint64(1):
        moved = bit(sq)  # the unbroken column behind moves one square
        t = nxt
        while t >= 0 and t < 64 and (occ >> uint64(t)) & uint64(1):
            moved |= bit(t)
            t += step
    else:
        t = nxt  # float over empty squares; stop before a piece or fall off
        while True:
            n = t + step
            if n < 0 or n >= 64 or not ((mask >> uint64(n)) & uint64(1)):
                t = -1
                break
            if (occ >> uint64(n)) & uint64(1):
                break
            t = n
        b = bit(sq)
        if t < 0:
            if first == sq:
                first = NO_SQUARE
            return white & ~b, black & ~b, dames & ~b, knights & ~b, first
        if first == sq:
            first = t
        white, black, dames, knights = _stepped(white, black, dames, knights, sq, t)
        return white, black, dames, knights, first
    # shift the squares in `moved` one rank towards the washed piece's home edge
    if first != NO_SQUARE and (moved >> uint64(first)) & uint64(1):
        f = first + step
        first = f if (f >= 0 and f < 64 and (mask >> uint64(f)) & uint64(1)) else NO_SQUARE
    if is_white:
        white = (white & ~moved) | ((white & moved) >> uint64(8))
        black = (black & ~moved) | ((black & moved) >> uint64(8))
        dames = (dames & ~moved) | ((dames & moved) >> uint64(8))
        knights = (knights & ~moved) | ((knights & moved) >> uint64(8))
    else:
        white = (white & ~moved) | (((white & moved) << uint64(8)) & mask)
        black = (black & ~moved) | (((black & moved) << uint64(8)) & mask)
        dames = (dames & ~moved) | (((dames & moved) << uint64(8)) & mask)
        knights = (knights & ~moved) | (((knights & moved) << uint64(8)) & mask)
    return white, black, dames, knights, first


@njit(cache=True)
def can_rest(white, black, dames, hist, nhist, width, mask):
    """Return True if the current can come to rest from this arrangement without a loop.

    `hist[:nhist]` holds the keys of every arrangement since the step began, this one
    included; `hist` must have room for MAX_WASHES + 1 keys (it is used as scratch)."""
    cands = wash_candidates(white | black, width, mask)
    if cands == 0:
        return True
    # Most choices rest after one wash: try those first, before allocating a search stack.
    if nhist - 1 < MAX_WASHES:
        rest = cands
        while rest:
            c = lsb(rest)
            rest &= rest - uint64(1)
            w, b, d, _, _ = wash(white, black, dames, uint64(0), np.int64(NO_SQUARE), c, mask)
            if wash_candidates(w | b, width, mask) == 0:
                return True  # at rest: no wall, so not one of the history's arrangements
    stack = np.empty((4, MAX_WASHES + 2), dtype=np.uint64)
    sw = stack[0]
    sb = stack[1]
    sd = stack[2]
    rem = stack[3]
    top = 0
    sw[0], sb[0], sd[0], rem[0] = white, black, dames, cands
    nh = nhist
    while top >= 0:
        if rem[top] == 0 or nh - 1 >= MAX_WASHES:
            top -= 1
            nh -= 1
            continue
        c = lsb(rem[top])
        rem[top] &= rem[top] - uint64(1)
        w, b, d, _, _ = wash(sw[top], sb[top], sd[top], uint64(0), np.int64(NO_SQUARE), c, mask)
        key = arrangement_key(w, b, d)
        seen = False
        for i in range(nh):
            if hist[i] == key:
                seen = True
                break
        if seen:
            continue
        nc = wash_candidates(w | b, width, mask)
        if nc == 0:
            return True
        top += 1
        sw[top], sb[top], sd[top], rem[top] = w, b, d, nc
        hist[nh] = key
        nh += 1
    return False


@njit(cache=True, inline="always")
def _wall_makers(occ, width, mask):
    """Return the empty squares where a piece arriving from another rank would make a wall,
    in a position with none (the piece's departure cannot make one).

    The arriving piece itself becomes a wash candidate (neighbours, or a neighbour and the
    edge, on both sides: wash_candidates' rule), or its left or right neighbour does (its
    other side already occupied or the board's edge)."""
    has_left = (occ << uint64(1)) & ~FILE_A  # squares whose left neighbour is occupied
    has_right = (occ >> uint64(1)) & ~FILE_H
    left_edge = FILE_A & mask
    right_edge = (FILE_A << uint64(width - 1)) & mask
    itself = (has_left & has_right) | (left_edge & has_right) | (right_edge & has_left)
    left_neighbour = ((occ & (has_left | left_edge)) << uint64(1)) & ~FILE_A
    right_neighbour = ((occ & (has_right | right_edge)) >> uint64(1)) & ~FILE_H
    return (itself | left_neighbour | right_neighbour) & mask & ~occ


@njit(cache=True, inline="always")
def _step_is_legal(white, black, dames, frm, to, width, mask):
    """Return True if moving the piece on `frm` to `to` lets the current come to rest."""
    f = bit(frm)
    t = bit(to)
    if (white >> uint64(frm)) & uint64(1):
        white = (white & ~f) | t
    else:
        black = (black & ~f) | t
    if wash_candidates(white | black, width, mask) == 0:
        return True  # the common case: no wall, nothing to resolve
    if (dames >> uint64(frm)) & uint64(1):
        dames = (dames & ~f) | t
    return _rests_after_step(white, black, dames, width, mask)


@njit(cache=True)
def _rests_after_step(white, black, dames, width, mask):
    """Return True if the current started by a step that made this arrangement can rest."""
    # Most currents are a short forced chain: follow it with the arrangements in registers,
    # compared board by board (no keys), and allocate the search's memory and compute keys
    # only at a choice that does not settle at once or a long chain.
    w0, b0, d0 = white, black, dames
    w1, b1, d1 = white, black, dames
    n = 1
    while n < 3:
        cands = wash_candidates(white | black, width, mask)
        if cands == 0:
            return True
        if cands & (cands - uint64(1)):
            break
        white, black, dames, _, _ = wash(white, black, dames, uint64(0), np.int64(NO_SQUARE),
                                         lsb(cands), mask)
        if ((white == w0 and black == b0 and dames == d0)
                or (n > 1 and white == w1 and black == b1 and dames == d1)):
            return False  # a forced wash repeats an arrangement: no choice can avoid the loop
        if n == 1:
            w1, b1, d1 = white, black, dames
        n += 1
    # At a choice, a wash that rests at once settles it: an arrangement at rest has no wall,
    # so it cannot repeat one of the current's (each of which had a wall).
    cands = wash_candidates(white | black, width, mask)
    while cands:
        c = lsb(cands)
        cands &= cands - uint64(1)
        w, b, d, _, _ = wash(white, black, dames, uint64(0), np.int64(NO_SQUARE), c, mask)
        if wash_candidates(w | b, width, mask) == 0:
            return True
    hist = np.empty(MAX_WASHES + 1, dtype=np.uint64)
    hist[0] = arrangement_key(w0, b0, d0)
    hist[1] = arrangement_key(w1, b1, d1)
    hist[n - 1] = arrangement_key(white, black, dames)
    return can_rest(white, black, dames, hist, n, width, mask)


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


@njit(cache=True, inline="always")  # see random_ply
def random_step(state, rng, buf):
    """Return a uniformly random legal step (-1 if none), by exact rejection sampling.

    A uniform pick among the candidate steps that turns out legal is uniform among the
    legal ones; after 8 misses the legal steps are generated in full into `buf`."""
    side = state[SIDE]
    white = state[WHITE]
    black = state[BLACK]
    dames = state[DAMES]
    mask = state[MASK]
    width = np.int64(state[WIDTH])
    sets = step_targets(side, movable_pieces(state), white | black, dames, mask)
    total = 0
    for i in range(NUM_STEP_SETS):
        total += popcount(sets[i])
    if total == 0:
        return -1
    for _ in range(8):
        k = rand_below(rng, total)
        i = 0
        while popcount(sets[i]) <= k:
            k -= popcount(sets[i])
            i += 1
        targets = sets[i]
        for _ in range(k):
            targets &= targets - uint64(1)
        to = lsb(targets)
        frm = step_origin(side, white | black, i, to)
        if _step_is_legal(white, black, dames, frm, to, width, mask):
            return frm * 64 + to
    n = _steps(state, buf, True)
    if n == 0:
        return -1
    return np.int64(buf[rand_below(rng, n)])


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
def _at_rest(white, black, dames, mask, width, height, side, step, first, turns, max_turns):
    """Return (result, side, step, first, turns) once a step's current is at rest: a piece on
    its far edge wins (the mover's first), else the second step if one is legal, else the
    next turn. Scalars only: apply calls it without counting references of its arrays."""
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
def _stepped(white, black, dames, knights, frm, to):
    """Return (white, black, dames, knights) after the piece on `frm` steps to the empty `to`."""
    f = bit(frm)
    t = bit(to)
    if (white >> uint64(frm)) & uint64(1):
        white = (white & ~f) | t
    else:
        black = (black & ~f) | t
    if (dames >> uint64(frm)) & uint64(1):
        dames = (dames & ~f) | t
    if (knights >> uint64(frm)) & uint64(1):
        knights = (knights & ~f) | t
    return white, black, dames, knights


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
        white, black, dames, mask, width, np.int64(out[HEIGHT]), out[SIDE], step, uint64(first),
        out[TURNS], out[MAX_TURNS])


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
                white, black, dames, mask, width, np.int64(height), state[SIDE], step,
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


@njit(cache=True, inline="always")  # once per playout ply: no call, no refcount round trips
def random_ply(s, rng, buf):
    """Make one uniformly random decision on the ongoing state `s` in place; return it.

    Return -1 when no decision was made because the rules ended the turn or the game. For
    speed a first step that makes no wall goes straight to step 2, skipping `apply`'s scan
    for a legal second step; a step-2 state with none then ends the turn here. Decisions and
    their odds are those of legal_actions + apply; only that transient step-2 state differs.
    `buf` is an int32 buffer of MAX_ACTIONS entries."""
    if s[PHASE] == PHASE_CHOOSE:
        n = legal_actions(s, buf)
        action = np.int64(buf[rand_below(rng, n)])
        apply(s, action, s)
        return action
    if turn_limit_reached(s[STEP], s[TURNS], s[MAX_TURNS]):
        s[RESULT] = DRAW
        return np.int64(-1)
    action = random_step(s, rng, buf)
    if action < 0:
        if s[STEP] == 1:
            s[RESULT] = WHITE_WINS if s[SIDE] else BLACK_WINS  # no first step: a loss
        else:
            _end_turn(s)
        return np.int64(-1)
    frm = action >> 6
    to = action & 63
    f = bit(frm)
    t = bit(to)
    side = s[SIDE]
    mine = ((s[BLACK] if side else s[WHITE]) & ~f) | t
    theirs = s[WHITE] if side else s[BLACK]
    if wash_candidates(mine | theirs, np.int64(s[WIDTH]), s[MASK]) != 0:
        apply(s, action, s)  # a wall: the full current
        return action
    if side:
        s[BLACK] = mine
    else:
        s[WHITE] = mine
    if (s[DAMES] >> uint64(frm)) & uint64(1):
        s[DAMES] = (s[DAMES] & ~f) | t
    if (s[KNIGHTS] >> uint64(frm)) & uint64(1):
        s[KNIGHTS] = (s[KNIGHTS] & ~f) | t
    # At rest without a wash only the mover's piece moved, so only the mover can have won.
    if mine & _far_edge(side, s[MASK], np.int64(s[HEIGHT])):
        s[RESULT] = BLACK_WINS if side else WHITE_WINS
    elif s[STEP] == 1:
        s[STEP] = 2
        s[FIRST] = to
    else:
        _end_turn(s)
    return action


@njit(cache=True)
def playout_with_length(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end.

    Return (White's result, number of decisions played)."""
    s = state.copy()
    buf = np.empty(MAX_ACTIONS, dtype=np.int32)
    plies = 0
    while s[RESULT] == ONGOING:
        if random_ply(s, rng, buf) >= 0:
            plies += 1
    return returns(s), plies


@njit(cache=True)
def playout(state, rng):
    """Play uniformly random legal actions from `state` (unchanged) to the end; return White's result."""
    return playout_with_length(state, rng)[0]


@njit(cache=True)
def perft(state, depth):
    """Return the number of leaves of the decision tree `depth` plies below `state`."""
    if depth == 0:
        return np.int64(1)
    states = np.empty((depth, STATE_SIZE), dtype=np.uint64)
    acts = np.empty((depth, MAX_ACTIONS), dtype=np.int32)
    counts = np.zeros(depth, dtype=np.int64)
    idx = np.zeros(depth, dtype=np.int64)
    for i in range(STATE_SIZE):  # not states[0, :] = state: see apply
        states[0, i] = state[i]
    counts[0] = legal_actions(states[0], acts[0])
    if depth == 1:
        return counts[0]
    total = np.int64(0)
    level = 0
    while level >= 0:
        if idx[level] >= counts[level]:
            level -= 1
            continue
        a = acts[level, idx[level]]
        idx[level] += 1
        child = states[level + 1]
        apply(states[level], np.int64(a), child)  # int64 as every caller: one signature
        n = legal_actions(child, acts[level + 1])
        if level + 2 == depth:
            total += n  # bulk count: the leaves are the children of this node
        else:
            level += 1
            counts[level] = n
            idx[level] = 0
    return total


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
