"""Flow's current: wall candidates, washes, arrangement keys, and the loop rule's search.

A step that makes a wall starts a current: wall candidates are washed home one at a time until
the board is at rest, and a current that would repeat an arrangement is a loop (`can_rest`
searches the wash choices for one that rests). The boards go in and out as scalars, so the move
generator and `apply` call these without counting references of the state array.
"""
import numpy as np
from numba import njit, uint64

from ...bits import bit, lsb
from .layout import FILE_A, FILE_H, MAX_WASHES, NO_SQUARE, _K1, _K2, _K3, _M1, _M2


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
