"""Depth-first proof-number search (df-pn) for Flow, in numba, over the Flow kernels.

The question a search answers: can `attacker` (0 White, 1 Black) force a win from a state? A
node is an OR node when the attacker is to decide (`current_player`, so two steps of a turn
and the wash choices of the player who stepped are consecutive OR or AND nodes: players do not
alternate), an AND node otherwise. A draw counts as a failure of the attacker: proving
"White wins" and then "Black wins" tells wins, losses and draws apart.

The game solved is the one of the kernels: `max_turns` bounds it and the turn counter is part
of every position, so the positions form a directed acyclic graph (each decision increases
the turn counter, the step number or the current's history) and df-pn needs no cycle handling.

Proof and disproof numbers are int64, INF = 2^40 stands for infinity. Thresholds of the
child searched follow Nagai's df-pn with the 1 + epsilon trick of Pawlewicz and Lew (a child
may exceed its sibling's number by a factor before the parent switches), which cuts the
re-expansions of a memory-bounded search.

The transposition table (`new_table`) is a uint64 array of TABLE_WORDS-word rows in buckets of
WAYS rows. A row stores the position in full (the colour and dame boards, a word of the fields
side, step, phase, first-moved square, turns, result, the attacker and max_turns, and a fingerprint of the
choose phase's current history), so two positions share a row only if they are the same
position (up to the history's 64-bit fingerprint, the kernels' own identity of arrangements).
A new row replaces the bucket's row with the least search work. The table's size bounds the
memory: nothing else grows with the search but the stack of the current line.
"""
import numpy as np
from numba import njit, uint64

from ..flow.kernels import (BLACK, BLACK_WINS, DAMES, FIRST, HIST, MAX_ACTIONS, MAX_TURNS, NHIST, ONGOING, PHASE,
                            PHASE_CHOOSE, RESULT, SIDE, STATE_SIZE, STEP, TURNS, WHITE, WHITE_WINS,
                            apply, current_player, hash_key, legal_actions, result)

INF = np.int64(1) << np.int64(40)
WAYS = 4
TABLE_WORDS = 8  # white, black, dames, fields, history fingerprint, pn, dn, work
ROW_BYTES = TABLE_WORDS * 8
_W, _B, _D, _F, _H, _PN, _DN, _WORK = 0, 1, 2, 3, 4, 5, 6, 7
# The outcome of a search call (`dfpn`'s stats array).
STAT_PN, STAT_DN, STAT_NODES, STAT_ABORTED, STAT_MAX_DEPTH = 0, 1, 2, 3, 4
EPSILON_NUM, EPSILON_DEN = 5, 4  # the child's threshold may reach 1.25 x its sibling's number
_MIX = uint64(0x9E3779B97F4A7C15)


def new_table(memory_bytes):
    """Return an empty transposition table that fits in `memory_bytes` (a whole number of
    buckets, a power of two, at least one)."""
    rows = max(WAYS, int(memory_bytes) // ROW_BYTES)
    buckets = 1 << max(0, (rows // WAYS).bit_length() - 1)
    return np.zeros((buckets * WAYS, TABLE_WORDS), dtype=np.uint64)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
    return z ^ (z >> uint64(31))


@njit(cache=True)
def fields_word(state, attacker):
    """Return the word of a state's fields kept in the table (never 0: the step is 1 or 2)."""
    return (state[SIDE] | (state[STEP] << uint64(1)) | (state[PHASE] << uint64(3))
            | (state[FIRST] << uint64(4)) | (state[TURNS] << uint64(12))
            | (state[RESULT] << uint64(40)) | (uint64(attacker) << uint64(44))
            | (state[MAX_TURNS] << uint64(45)))


@njit(cache=True)
def history_word(state):
    """Return the fingerprint of the choose phase's current history (a set of arrangement
    keys: the loop rule asks only whether an arrangement is in it, and its size), 0 outside."""
    if state[PHASE] != PHASE_CHOOSE:
        return uint64(0)
    n = np.int64(state[NHIST])
    acc = uint64(n)
    for i in range(n):
        acc ^= _mix(state[HIST + i] ^ _MIX)
    return _mix(acc) | uint64(1)


@njit(cache=True)
def _bucket(table, state, attacker):
    """Return the first row of the state's bucket."""
    buckets = table.shape[0] // WAYS
    h = _mix(hash_key(state) ^ uint64(attacker))
    return np.int64(h & uint64(buckets - 1)) * WAYS


@njit(cache=True)
def _find(table, row0, w, b, d, f, h):
    """Return the row holding this position in the bucket starting at `row0`, or -1."""
    for r in range(row0, row0 + WAYS):
        if (table[r, _F] == f and table[r, _W] == w and table[r, _B] == b
                and table[r, _D] == d and table[r, _H] == h):
            return r
    return np.int64(-1)


@njit(cache=True)
def probe(table, state, attacker):
    """Return (pn, dn) the table holds for `state` and `attacker`, or (-1, -1) if none."""
    r = _find(table, _bucket(table, state, attacker), state[WHITE], state[BLACK], state[DAMES],
              fields_word(state, attacker), history_word(state))
    if r < 0:
        return np.int64(-1), np.int64(-1)
    return np.int64(table[r, _PN]), np.int64(table[r, _DN])


@njit(cache=True)
def _store(table, row0, w, b, d, f, h, pn, dn, work):
    """Write a position's numbers into its bucket: its own row, else an empty one, else the
    row with the least work (a solved row counts as more work than any open one)."""
    r = _find(table, row0, w, b, d, f, h)
    if r < 0:
        best = np.int64(-1)
        least = np.uint64(0xFFFFFFFFFFFFFFFF)
        for q in range(row0, row0 + WAYS):
            if table[q, _F] == 0:
                best = q
                break
            cost = table[q, _WORK]
            if table[q, _PN] == 0 or table[q, _DN] == 0:
                cost += uint64(1) << uint64(40)
            if cost < least:
                least = cost
                best = q
        r = best
    table[r, _W] = w
    table[r, _B] = b
    table[r, _D] = d
    table[r, _F] = f
    table[r, _H] = h
    table[r, _PN] = uint64(pn)
    table[r, _DN] = uint64(dn)
    table[r, _WORK] = uint64(work)


@njit(cache=True, inline="always")
def _add(x, y):
    """Return x + y, saturated at INF."""
    s = x + y
    return INF if s >= INF else s


@njit(cache=True)
def _terminal_numbers(code, attacker):
    """Return (pn, dn) of a finished game: 0 / INF if the attacker won, INF / 0 otherwise."""
    won = WHITE_WINS if attacker == 0 else BLACK_WINS
    if code == won:
        return np.int64(0), INF
    return INF, np.int64(0)


@njit(cache=True)
def _grow(a, size):
    """Return `a` with its first axis grown to `size` (the old rows copied)."""
    shape = (size,) + a.shape[1:]
    out = np.zeros(shape, dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True)
def dfpn(root, attacker, table, max_nodes, stats):
    """Search `root` for a forced win of `attacker` until it is proven, disproven or
    `max_nodes` nodes are expanded; the table keeps what was learnt. Return None; write into
    `stats` (int64[5]) the root's pn and dn, the nodes expanded (legal actions generated),
    1 if the node budget stopped the search, and the deepest ply reached.

    A later call on the same root and table resumes where this one stopped."""
    # The stack of the current line: a state per ply, its thresholds, and its children in
    # [start, start + count) of the pool arrays (action, board words, bucket, and the last
    # numbers seen: the table may have lost a child's row).
    depth_cap = 64
    states = np.zeros((depth_cap, STATE_SIZE), dtype=np.uint64)
    thpn = np.zeros(depth_cap, dtype=np.int64)
    thdn = np.zeros(depth_cap, dtype=np.int64)
    start = np.zeros(depth_cap, dtype=np.int64)
    count = np.zeros(depth_cap, dtype=np.int64)
    chosen = np.zeros(depth_cap, dtype=np.int64)
    work0 = np.zeros(depth_cap, dtype=np.int64)
    pool_cap = 64 * MAX_ACTIONS
    acts = np.zeros(pool_cap, dtype=np.int32)
    words = np.zeros((pool_cap, 5), dtype=np.uint64)
    rows = np.zeros(pool_cap, dtype=np.int64)
    known = np.zeros((pool_cap, 2), dtype=np.int64)
    child = np.zeros(STATE_SIZE, dtype=np.uint64)
    for i in range(STATE_SIZE):
        states[0, i] = root[i]
    thpn[0] = INF
    thdn[0] = INF
    start[0] = 0
    nodes = np.int64(0)
    max_depth = np.int64(0)
    aborted = False
    level = np.int64(0)
    entering = True
    ret_pn = np.int64(0)
    ret_dn = np.int64(0)
    while True:
        s = states[level]
        if entering:
            code = result(s)
            if code != ONGOING:
                ret_pn, ret_dn = _terminal_numbers(code, attacker)
                level -= 1
                entering = False
                if level < 0:
                    break
                continue
            if level > max_depth:
                max_depth = level
            base = start[level]
            if base + MAX_ACTIONS > acts.shape[0]:
                size = 2 * acts.shape[0]
                acts = _grow(acts, size)
                words = _grow(words, size)
                rows = _grow(rows, size)
                known = _grow(known, size)
            n = legal_actions(s, acts[base:base + MAX_ACTIONS])
            nodes += 1
            work0[level] = nodes
            count[level] = n
            for i in range(n):
                k = base + i
                apply(s, np.int64(acts[k]), child)
                code = result(child)
                if code != ONGOING:
                    pn, dn = _terminal_numbers(code, attacker)
                else:
                    pn, dn = np.int64(1), np.int64(1)
                known[k, 0] = pn
                known[k, 1] = dn
                words[k, 0] = child[WHITE]
                words[k, 1] = child[BLACK]
                words[k, 2] = child[DAMES]
                words[k, 3] = fields_word(child, attacker)
                words[k, 4] = history_word(child)
                rows[k] = _bucket(table, child, attacker)
            entering = False
        else:
            k = start[level] + chosen[level]
            known[k, 0] = ret_pn
            known[k, 1] = ret_dn
        # the node's numbers from its children's
        base = start[level]
        n = count[level]
        is_or = current_player(s) == attacker
        best = np.int64(-1)
        b1 = INF + 1  # best child's number (pn at OR, dn at AND) and the runner-up's
        b2 = INF + 1
        best_other = np.int64(0)
        total = np.int64(0)
        for i in range(n):
            k = base + i
            pn = known[k, 0]
            dn = known[k, 1]
            if pn != 0 and dn != 0:
                r = _find(table, rows[k], words[k, 0], words[k, 1], words[k, 2], words[k, 3],
                          words[k, 4])
                if r >= 0:
                    pn = np.int64(table[r, _PN])
                    dn = np.int64(table[r, _DN])
                    known[k, 0] = pn
                    known[k, 1] = dn
            mine, other = (pn, dn) if is_or else (dn, pn)
            total = _add(total, other)
            if mine < b1:
                b2 = b1
                b1 = mine
                best = i
                best_other = other
            elif mine < b2:
                b2 = mine
        if is_or:
            npn, ndn = b1, total
        else:
            npn, ndn = total, b1
        if n == 0:  # cannot happen at an ongoing state; a safeguard
            npn, ndn = INF, np.int64(0)
        if npn > INF:
            npn = INF
        if ndn > INF:
            ndn = INF
        if nodes >= max_nodes:
            aborted = True
        if aborted or npn >= thpn[level] or ndn >= thdn[level] or npn == 0 or ndn == 0:
            row0 = _bucket(table, s, attacker)
            _store(table, row0, s[WHITE], s[BLACK], s[DAMES], fields_word(s, attacker),
                   history_word(s), npn, ndn, nodes - work0[level] + 1)
            ret_pn = npn
            ret_dn = ndn
            level -= 1
            if level < 0:
                break
            continue
        # thresholds of the best child
        if b2 > INF:
            b2 = INF
        grow = b2 + 1
        eps = (b2 * EPSILON_NUM + EPSILON_DEN - 1) // EPSILON_DEN
        if eps > grow:
            grow = eps
        if is_or:
            cpn = min(thpn[level], grow)
            cdn = INF if thdn[level] >= INF else thdn[level] - ndn + best_other
        else:
            cdn = min(thdn[level], grow)
            cpn = INF if thpn[level] >= INF else thpn[level] - npn + best_other
        chosen[level] = best
        if level + 1 >= states.shape[0]:
            size = 2 * states.shape[0]
            states = _grow(states, size)
            thpn = _grow(thpn, size)
            thdn = _grow(thdn, size)
            start = _grow(start, size)
            count = _grow(count, size)
            chosen = _grow(chosen, size)
            work0 = _grow(work0, size)
        apply(states[level], np.int64(acts[base + best]), states[level + 1])
        thpn[level + 1] = cpn
        thdn[level + 1] = cdn
        start[level + 1] = base + n
        level += 1
        entering = True
    stats[STAT_PN] = ret_pn
    stats[STAT_DN] = ret_dn
    stats[STAT_NODES] = nodes
    stats[STAT_ABORTED] = 1 if aborted else 0
    stats[STAT_MAX_DEPTH] = max_depth
