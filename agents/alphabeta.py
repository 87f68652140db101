"""Alpha-beta: jitted negamax with iterative deepening, a transposition table and move ordering.

Scores are from the side to move: a win found `p` plies below the root is `WIN - p`, a loss
`-(WIN - p)` (so faster wins and slower losses are preferred), a draw 0, and a position at the
search horizon is the game's `evaluate` (White's view, in (-1, 1)) turned to the mover's view.
A child is negated only when the player to move changes: Flow's second step and wash choices
are decisions of the same player, so no sign flip (and no window swap) happens there.

Budgets: `depth` (plies), `nodes` and `time` (seconds per move); the first one reached stops
the search. A fixed depth or node budget with a fixed seed is deterministic. After a stop, the
move of the last finished iteration is played, unless the interrupted iteration already
searched its first (the previous best) move fully and then found a better one. Every
`_CHECK_EVERY` nodes the search reads the clock (`clock.now`, with or without a time budget),
which is also where a Ctrl-C is seen (`clock.Interrupts`): the search then stops the same way
and `select_action` raises `SearchInterrupted` with the move it would have played.

The table (`tt` entries, a power of two; 0 turns it off) is indexed by the kernels' `hash_key`
and keeps for each entry, in one 32-byte row (a probe costs one cache miss, not five): the
full key, the score (win scores stored relative to the node), the depth, the bound type and
the best move. It is always-replace, probed before a node's
moves are generated, kept between moves of one game and cleared by `reset`. Move ordering:
the table move, then two killer moves per ply, then the history score (depth^2 added on
every cutoff, per player and action); only the first `_SORTED_MOVES` picks are best-first.

A node is a state whose actions are generated or which is evaluated at the horizon; a node
answered by the table is not counted. An interior node's moves come in stages, each opened
only if the ones before did not cut off: the table move (legal here: the key decides the
legal actions), then the killers that are candidates here (`dispatch.is_candidate`, a test
without generating), then all the other candidate actions (`dispatch.candidate_actions`:
Flow lists its steps without resolving the currents they start), ordered by history. A
killer or generated move is confirmed legal (`dispatch.is_legal_candidate`) only when it is
about to be searched; a node none of whose candidates is legal has no legal action and is
scored by the game's result.
"""
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from ludo_flow import dispatch, network
from ludo_flow.network import NET  # a plain global: a literal evaluation id prunes `== NET` branches
from ludo_flow.specialize import for_game, game_jit
from ludo_flow.inlining import search_loop
from ludo_flow.memory import prefetch_row, unowned

from .base import (PV_LENGTH, AgentError, BaseAgent, SearchProgress, Setting, check_memory,
                   check_state, load_evaluation, net_for)
from .clock import Interrupts, now

WIN = 1000.0
WIN_BOUND = 500.0  # scores beyond this are wins or losses, not evaluations
INF = 1.0e9
EXACT, LOWER, UPPER = 0, 1, 2
MAX_PLY = 100
_CHECK_EVERY = 2048  # nodes between two reads of the clock (and checks for Ctrl-C)
_SORTED_MOVES = 6  # moves picked best-first at a node; the rest follow in generation order

# Slots of the int64 control array shared by the whole search. INTERRUPTED is set by the
# SIGINT handler while RUNNING is set (see clock.Interrupts).
# CHECK_AT is the node count at which the search next checks its budgets and Ctrl-C: the
# node budget, or the next read of the clock, whichever comes first. FIRST_DEPTH is the depth
# `search` starts its deepening at (1, or the next depth when the agent drives it a depth at
# a time to report between depths).
NODES, NODE_LIMIT, STOP, SELDEPTH, CHECK_AT, TT_HITS, INTERRUPTED, RUNNING, FIRST_DEPTH = range(9)
CTL_SIZE = 9
# Per-ply frame fields of the iterative search: int64 ones, then float64 ones.
(F_N, F_NEXT, F_DEPTH, F_PLAYER, F_INDEX, F_TTMOVE, F_BEST_MOVE, F_SAME, F_STAGE, F_KILLER0,
 F_KILLER1) = range(11)
FRAME_INTS = 11
# The stages of an interior node's moves: nothing yet, the table move alone, the killers that
# are candidates here (F_KILLER0/1), then every other candidate, generated and ordered.
STAGE_START, STAGE_TABLE_MOVE, STAGE_KILLERS, STAGE_ALL = 0, 1, 2, 3
B_ALPHA, B_BETA, B_ALPHA0, B_BEST = 0, 1, 2, 3
FRAME_FLOATS = 4
# Words of a table entry (a row of the uint64 table; the value word is read as a float).
TT_KEY, TT_VALUE, TT_INFO = 0, 1, 2
TT_WORDS = 4  # 32 bytes: an entry never straddles two cache lines
# Nodes one ply above the horizon are the most numerous and the least valuable to remember:
# they get a small table of their own (256 KB: it stays in the core's cache, where a probe of
# the main table is a cache miss), and their entries never evict deeper ones.
SHALLOW_ENTRIES = 1 << 13


class Tables(NamedTuple):
    """The arrays one alpha-beta search works in, kept between the moves of a game (numpy;
    `negamax` and `search` take them as this one bundle). P is MAX_PLY + 1, the plies a line
    may hold; the table has R = `table_rows(tt)` rows."""

    states: np.ndarray
    """uint64 (P, state words): `states[ply]` is the position searched at `ply` of the
    current line (`states[0]` the root)."""
    moves: np.ndarray
    """int32 (P, MAX_ACTIONS): the moves of the node at each ply, in the order of its stages."""
    order: np.ndarray
    """int64 (P, MAX_ACTIONS): the ordering score of each of `moves[ply]` (`_order_moves`)."""
    tt: np.ndarray
    """uint64 (R, TT_WORDS): the transposition table, one 32-byte entry a row: TT_KEY the full
    key, TT_VALUE the score (read through `tt_values`), TT_INFO move, bound and depth
    (`_tt_info`); the rows from `_split_table(R)[0]` on are the small table of depth-1 nodes."""
    tt_values: np.ndarray
    """float64 (R, TT_WORDS): the same memory as `tt`, an entry's value word as a float."""
    killers: np.ndarray
    """int32 (P, 2): two moves per ply that last caused a cutoff there (-1: none)."""
    history: np.ndarray
    """int64 (2, ACTION_SPACE): per player and action, depth^2 summed over its cutoffs."""
    pv: np.ndarray
    """int32 (P, P): `pv[ply, :pv_len[ply]]` is the best line found from the node at `ply`."""
    pv_len: np.ndarray
    """int64 (P,): the length of each `pv` row."""
    frames: np.ndarray
    """int64 (P, FRAME_INTS): the integer fields F_* of the node open at each ply."""
    bounds: np.ndarray
    """float64 (P, FRAME_FLOATS): the float fields B_* (window and best score) of each ply."""
    keys: np.ndarray
    """uint64 (P,): the table key of the node open at each ply."""


def new_tables(state_size, entries):
    """Return zeroed `Tables` for states of `state_size` words and a table of `entries`
    entries (the `tt` setting; MemoryError if the table cannot be allocated)."""
    # One row per entry (key, value, info, unused): a probe touches one cache line.
    tt = np.zeros((table_rows(entries), TT_WORDS), dtype=np.uint64)
    return Tables(
        states=np.zeros((MAX_PLY + 1, state_size), dtype=np.uint64),
        moves=np.zeros((MAX_PLY + 1, dispatch.MAX_ACTIONS), dtype=np.int32),
        order=np.zeros((MAX_PLY + 1, dispatch.MAX_ACTIONS), dtype=np.int64),
        tt=tt,
        tt_values=tt.view(np.float64),  # the same memory: an entry's value word as a float
        killers=np.full((MAX_PLY + 1, 2), -1, dtype=np.int32),
        history=np.zeros((2, dispatch.ACTION_SPACE), dtype=np.int64),
        pv=np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int32),
        pv_len=np.zeros(MAX_PLY + 1, dtype=np.int64),
        frames=np.zeros((MAX_PLY + 1, FRAME_INTS), dtype=np.int64),
        bounds=np.zeros((MAX_PLY + 1, FRAME_FLOATS), dtype=np.float64),
        keys=np.zeros(MAX_PLY + 1, dtype=np.uint64),
    )


@njit(cache=True, inline="always")
def _unowned_tables(t):
    """Return `t` as unowned views (see ludo_flow.memory): the Python caller owns the arrays
    for the whole search, so the search needs no reference counting of them."""
    return Tables(unowned(t.states), unowned(t.moves), unowned(t.order), unowned(t.tt),
                  unowned(t.tt_values), unowned(t.killers), unowned(t.history), unowned(t.pv),
                  unowned(t.pv_len), unowned(t.frames), unowned(t.bounds), unowned(t.keys))


@njit(cache=True)
def _terminal_score(code, player, ply):
    """Return the score of a finished game (result code) for `player`, found `ply` plies down."""
    if code == dispatch.DRAW:
        return 0.0
    winner = 0 if code == dispatch.WHITE_WINS else 1
    return WIN - ply if winner == player else -(WIN - ply)


@njit(cache=True, inline="always")
def _count_node(nodes, check_at, deadline, ctl):
    """Count one more node; return (nodes, check_at, stop). One comparison per node: at
    `check_at` nodes, `_check` stops the search or sets the next `check_at`."""
    nodes += 1
    if nodes < check_at:
        return nodes, check_at, False
    return _check(nodes, deadline, ctl)


@njit(cache=True)
def _check(nodes, deadline, ctl):
    """Return (nodes, next check_at, stop): stop once the node budget is used up, the clock
    has passed the deadline (infinite without a time budget) or a Ctrl-C has set
    ctl[INTERRUPTED] (it can only happen during the clock read, see clock.Interrupts); else
    look again after _CHECK_EVERY more nodes (or at the budget)."""
    node_limit = ctl[NODE_LIMIT]
    if nodes >= node_limit:
        return nodes, nodes, True
    if now() >= deadline or ctl[INTERRUPTED] != 0:
        return nodes, nodes, True
    return nodes, min(node_limit, nodes + _CHECK_EVERY), False


@game_jit(inline="always")
def _leaf_score(game, evaluation, state, player, ply):
    """Return the score of a horizon leaf for `player`, `ply` plies down: the result if the
    game is over, else the evaluation (a `dispatch.EVALUATIONS` id) turned to the player's view.

    It takes no network: an inlined copy holding the network's arrays costs their reference
    counts at every leaf, about a third of alpha-beta's speed with the games' own evaluations.
    The network's leaves go through `_leaf_score_call`."""
    code = dispatch.result(game, state)
    if code != dispatch.ONGOING:
        return _terminal_score(code, player, ply)
    value = dispatch.evaluate(game, state, evaluation)
    return -value if player == 1 else value


@game_jit()
def _leaf_score_call(game, evaluation, state, player, ply, net):
    """`_leaf_score` as a call, for negamax's rarely taken paths (every inlined copy of the
    games' result and evaluate adds seconds to its compilation), and for every leaf of the
    evaluation NET (`net`, the `network.Net` of eval=net)."""
    if evaluation == NET:
        code = dispatch.result(game, state)
        if code != dispatch.ONGOING:
            return _terminal_score(code, player, ply)
        value = network.value(game, state, net)
        return -value if player == 1 else value
    return _leaf_score(game, evaluation, state, player, ply)


@njit(cache=True)
def _to_table(score, ply):
    """Return a score as stored in the table (win scores counted from the node, not the root)."""
    if score > WIN_BOUND:
        return score + ply
    if score < -WIN_BOUND:
        return score - ply
    return score


@njit(cache=True)
def _from_table(score, ply):
    """Return a stored score as seen from the root at `ply`."""
    if score > WIN_BOUND:
        return score - ply
    if score < -WIN_BOUND:
        return score + ply
    return score


@game_jit()
@search_loop  # the game kernels are inlined here (see ludo_flow.inlining)
def negamax(game, evaluation, top, depth, alpha, beta, tables, ctl, deadline, net):
    """Return the score of `tables.states[top]` for its player to move, searched `depth` plies
    deep (`net`: the `network.Net` of eval=net, unread by the other evaluations).

    Fail-soft alpha-beta within (alpha, beta), iterative with one frame per ply (numba cannot
    load a recursive function from its cache): `frames[ply]` holds the int64 fields F_*,
    `bounds[ply]` the float64 fields B_*, `keys[ply]` the node's table key (`Tables`). Returns
    0.0 once a budget stops the search (ctl[STOP] set: the caller must then ignore the value).

    Written as one function on purpose: numba increments and decrements the reference count
    of every array passed to a call, and helpers taking the frame arrays cost more in those
    atomic counts than in their work. Measured on the smallest such split, one call at every
    leaf taking the network's arrays: the search ran at 0.62 times its nodes a second in Flow
    and 0.78 times in Tolkuchka (paired runs of benchmarks/bench_versions.py), so the leaf score
    of the games' own evaluations is inlined and only eval=net's leaves make that call."""
    states = tables.states
    moves = tables.moves
    order = tables.order
    tt = tables.tt
    tt_values = tables.tt_values
    killers = tables.killers
    history = tables.history
    pv = tables.pv
    pv_len = tables.pv_len
    frames = tables.frames
    bounds = tables.bounds
    keys = tables.keys
    use_tt = tt.shape[0] > 0
    deep, shallow = _split_table(tt.shape[0])
    tt_mask = np.uint64(deep - 1) if use_tt else np.uint64(0)
    shallow_mask = np.uint64(shallow - 1) if use_tt else np.uint64(0)
    nodes = ctl[NODES]
    check_at = ctl[CHECK_AT]
    seldepth = ctl[SELDEPTH]
    tt_hits = ctl[TT_HITS]
    stopped = False
    result_value = 0.0
    ply = top
    entering = True
    absorbing = False
    child_value = 0.0
    e_depth = depth
    e_alpha = alpha
    e_beta = beta
    keyed = False  # e_key / e_idx hold the table key and index of the node being entered
    e_key = np.uint64(0)
    e_idx = 0
    while True:
        if entering:
            # Open the node at `ply`: a leaf, a final state or a table hit give a value at once.
            entering = False
            s = states[ply]
            pv_len[ply] = 0
            if ply > seldepth:
                seldepth = ply
            value = 0.0
            has_value = True
            leaf = e_depth <= 0 or ply >= MAX_PLY
            player = dispatch.current_player(game, s)
            tt_move = -1
            idx = 0
            key = np.uint64(0)
            hit = False
            if not leaf and use_tt:
                # Probe the table before generating: a hit costs no generation (and no node).
                if keyed:  # the parent already found the entry (and prefetched it)
                    key = e_key
                    idx = e_idx
                    keyed = False
                else:
                    key = dispatch.hash_key(game, s)
                    idx = _table_index(key, e_depth, deep, tt_mask, shallow_mask)
                if tt[idx, TT_KEY] == key:
                    info = tt[idx, TT_INFO]
                    tt_move = np.int64(info >> np.uint64(16)) - 1
                    if np.int64(info & np.uint64(0xFF)) - 1 >= e_depth:
                        v = _from_table(tt_values[idx, TT_VALUE], ply)
                        f = np.int64((info >> np.uint64(8)) & np.uint64(0xFF))
                        if f == EXACT or (f == LOWER and v >= e_beta) or (f == UPPER and v <= e_alpha):
                            tt_hits += 1
                            value = v
                            hit = True
            if not hit:
                nodes, check_at, stopped = _count_node(nodes, check_at, deadline, ctl)
                if stopped:
                    break
                if leaf:  # only a search called with depth 0 (or at MAX_PLY) gets here
                    value = _leaf_score_call(game, evaluation, s, player, ply, net)
                else:
                    # An interior node: its moves come in stages (see the next-child loop).
                    has_value = False
                    frames[ply, F_N] = 0
                    frames[ply, F_NEXT] = 0
                    frames[ply, F_DEPTH] = e_depth
                    frames[ply, F_PLAYER] = player
                    frames[ply, F_INDEX] = idx
                    frames[ply, F_TTMOVE] = tt_move
                    frames[ply, F_BEST_MOVE] = -1
                    frames[ply, F_STAGE] = STAGE_START
                    bounds[ply, B_ALPHA] = e_alpha
                    bounds[ply, B_BETA] = e_beta
                    bounds[ply, B_ALPHA0] = e_alpha
                    bounds[ply, B_BEST] = -INF
                    keys[ply] = key
            if has_value:
                if ply == top:
                    result_value = value
                    break
                ply -= 1
                child_value = value
                absorbing = True
        if absorbing:
            # Take the value of the child just searched into the node at `ply`.
            absorbing = False
            v = child_value if frames[ply, F_SAME] else -child_value
            if v > bounds[ply, B_BEST]:
                a = moves[ply, frames[ply, F_NEXT] - 1]
                bounds[ply, B_BEST] = v
                frames[ply, F_BEST_MOVE] = a
                pv[ply, 0] = a
                m = pv_len[ply + 1]
                for k in range(m):
                    pv[ply, k + 1] = pv[ply + 1, k]
                pv_len[ply] = m + 1
                if v > bounds[ply, B_ALPHA]:
                    bounds[ply, B_ALPHA] = v
                    if v >= bounds[ply, B_BETA]:
                        if a != frames[ply, F_TTMOVE] and a != killers[ply, 0]:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = a
                        d = frames[ply, F_DEPTH]
                        history[frames[ply, F_PLAYER], a] += d * d
                        frames[ply, F_NEXT] = frames[ply, F_N]  # cutoff: no more children
                        frames[ply, F_STAGE] = STAGE_ALL  # nor any to generate
        # Search the next child of the node at `ply`, or close the node.
        descend = False
        s = states[ply]  # one view for the whole loop: each view costs reference-count calls
        while True:
            i = frames[ply, F_NEXT]
            n = frames[ply, F_N]
            stage = frames[ply, F_STAGE]
            if i >= n:
                # This stage's moves are done (and none cut off): open the next stage.
                if stage == STAGE_ALL:
                    break
                tt_move = frames[ply, F_TTMOVE]
                if stage == STAGE_START and tt_move >= 0:
                    # The table move is legal here (the key decides the legal actions), so it
                    # is searched before anything is generated.
                    moves[ply, 0] = tt_move
                    n = 1
                    stage = STAGE_TABLE_MOVE
                elif stage != STAGE_KILLERS:
                    # The killers, if they are candidates here (a test without generating).
                    n = 0
                    for k in range(2):
                        a = killers[ply, k]
                        if a >= 0 and a != tt_move and dispatch.is_candidate(game, s, a):
                            moves[ply, n] = a
                            n += 1
                    frames[ply, F_KILLER0] = moves[ply, 0] if n > 0 else -1
                    frames[ply, F_KILLER1] = moves[ply, 1] if n > 1 else -1
                    stage = STAGE_KILLERS
                else:
                    # All the other candidates, ordered by history.
                    n = dispatch.candidate_actions(game, s, moves[ply])
                    k0 = frames[ply, F_KILLER0]
                    k1 = frames[ply, F_KILLER1]
                    m = 0
                    while m < n:
                        a = moves[ply, m]
                        if a == tt_move or a == k0 or a == k1:  # searched already
                            n -= 1
                            moves[ply, m] = moves[ply, n]
                        else:
                            m += 1
                    _order_moves(ply, n, frames[ply, F_PLAYER], moves, order, killers, history)
                    stage = STAGE_ALL
                frames[ply, F_STAGE] = stage
                frames[ply, F_N] = n
                frames[ply, F_NEXT] = 0
                continue
            j = i
            if stage == STAGE_ALL and i < _SORTED_MOVES:
                # A selection sort step: the best-ordered remaining move goes to slot i. Only
                # the first few are sorted: cutoffs come early, and a full sort of every
                # node's moves costs more than it saves (moves are many in Flow).
                row = np.uint64(ply)  # unsigned indices: no negative-index wraparound code
                best_order = order[row, np.uint64(i)]
                for m in range(np.uint64(i + 1), np.uint64(n)):
                    if order[row, m] > best_order:
                        best_order = order[row, m]
                        j = np.int64(m)
            if j != i:
                moves[ply, i], moves[ply, j] = moves[ply, j], moves[ply, i]
                order[ply, i], order[ply, j] = order[ply, j], order[ply, i]
            frames[ply, F_NEXT] = i + 1
            # Killers and generated moves are candidates, confirmed only now (the table move
            # is legal: the key decides the legal actions). A cutoff spares confirming the rest.
            if stage == STAGE_TABLE_MOVE or dispatch.is_legal_candidate(game, s, moves[ply, i]):
                descend = True
                break
        if descend:
            child = states[ply + 1]
            dispatch.apply(game, s, moves[ply, i], child)
            e_depth = frames[ply, F_DEPTH] - 1
            child_player = dispatch.current_player(game, child)
            same = child_player == frames[ply, F_PLAYER]
            frames[ply, F_SAME] = 1 if same else 0
            if e_depth <= 0 or ply + 1 >= MAX_PLY:
                # A leaf at the horizon (most nodes are): valued here, without opening a frame.
                nodes, check_at, stopped = _count_node(nodes, check_at, deadline, ctl)
                if stopped:
                    break
                if ply + 1 > seldepth:
                    seldepth = ply + 1
                pv_len[ply + 1] = 0
                if evaluation == NET:  # a call: the network stays out of this loop
                    child_value = _leaf_score_call(game, evaluation, child, child_player, ply + 1,
                                                   net)
                else:
                    child_value = _leaf_score(game, evaluation, child, child_player, ply + 1)
                absorbing = True
                continue
            if use_tt:
                # The child will probe the table: find its entry now and have the CPU fetch it
                # while the rest of the descent runs (a probe of the main table misses cache).
                e_key = dispatch.hash_key(game, child)
                e_idx = _table_index(e_key, e_depth, deep, tt_mask, shallow_mask)
                prefetch_row(tt, e_idx)
                keyed = True
            if same:
                e_alpha = bounds[ply, B_ALPHA]
                e_beta = bounds[ply, B_BETA]
            else:
                e_alpha = -bounds[ply, B_BETA]
                e_beta = -bounds[ply, B_ALPHA]
            ply += 1
            entering = True
            continue
        if bounds[ply, B_BEST] == -INF:
            # Every candidate was illegal: no legal action, so the game is over here.
            bounds[ply, B_BEST] = _leaf_score_call(game, evaluation, s, frames[ply, F_PLAYER],
                                                   ply, net)  # the result
            bounds[ply, B_ALPHA0] = -INF  # an exact score
            bounds[ply, B_BETA] = INF
            frames[ply, F_BEST_MOVE] = -1
        best = bounds[ply, B_BEST]
        if use_tt:
            idx = frames[ply, F_INDEX]
            if best <= bounds[ply, B_ALPHA0]:
                flag = UPPER
            elif best >= bounds[ply, B_BETA]:
                flag = LOWER
            else:
                flag = EXACT
            tt[idx, TT_KEY] = keys[ply]
            tt_values[idx, TT_VALUE] = _to_table(best, ply)
            tt[idx, TT_INFO] = _tt_info(frames[ply, F_DEPTH], flag, frames[ply, F_BEST_MOVE])
        if ply == top:
            result_value = best
            break
        ply -= 1
        child_value = best
        absorbing = True
    ctl[NODES] = nodes
    ctl[CHECK_AT] = check_at
    ctl[SELDEPTH] = seldepth
    ctl[TT_HITS] = tt_hits
    if stopped:
        ctl[STOP] = 1
        return 0.0
    return result_value


def table_rows(entries):
    """Return the rows of a table of `entries` entries (the `tt` setting, a power of two or 0):
    the main table, then the small one for depth-1 nodes (`_split_table` undoes this)."""
    return entries + min(entries, SHALLOW_ENTRIES)


@njit(cache=True, inline="always")
def _table_index(key, depth, deep, deep_mask, shallow_mask):
    """Return the table row of `key` for a node `depth` plies above the horizon: the small
    table (rows from `deep` on) for depth 1, the main one otherwise."""
    if depth == 1:
        return deep + np.int64(key & shallow_mask)
    return np.int64(key & deep_mask)


@njit(cache=True)
def _split_table(rows):
    """Return (main entries, small-table entries) of a table with `rows` rows."""
    if rows <= 2 * SHALLOW_ENTRIES:
        return rows // 2, rows // 2
    return rows - SHALLOW_ENTRIES, SHALLOW_ENTRIES


@njit(cache=True)
def _tt_info(depth, flag, move):
    """Return the table's info word: (move + 1) << 16 | flag << 8 | (depth + 1).

    An all-zero entry reads as depth -1 and no move: it never answers a probe."""
    return (np.uint64(move + 1) << np.uint64(16)) | (np.uint64(flag) << np.uint64(8)) | np.uint64(depth + 1)


@njit(cache=True)
def _order_moves(ply, n, player, moves, order, killers, history):
    """Write the ordering score of each of the `n` moves at `ply` into `order[ply]`.

    The table move was searched in its own stage and is not among them; a killer is only
    when is_candidate could not vouch for it (Flow's wash choices): it still goes first."""
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    row = np.uint64(ply)  # unsigned indices: no negative-index wraparound code
    for i in range(np.uint64(n)):
        a = moves[row, i]
        if a == k0:
            order[row, i] = np.int64(1) << 41
        elif a == k1:
            order[row, i] = np.int64(1) << 40
        else:
            order[row, i] = history[np.uint64(player), np.uint64(a)]


@game_jit()
def search(game, evaluation, root, max_depth, root_moves, tables, ctl, deadline, out_pv, net):
    """Iteratively deepen from `root` through depths ctl[FIRST_DEPTH]..`max_depth` over the
    actions in `root_moves` (their order breaks ties; each finished depth sorts them best
    first), working in `tables` (`Tables`); `net` is the `network.Net` of eval=net (an unread
    `network.no_net` for the other evaluations).

    Returns (best action, its score, last finished depth, length of the pv written to `out_pv`).
    A search driven one depth at a time (ctl[FIRST_DEPTH] > 1, to report between depths) is
    given the `root_moves`, tables, control array and `out_pv` the previous depth left: it then
    returns a pv length of 0 when it found nothing to replace the previous depth's answer,
    which stands (`out_pv` is left as it was). It leaves ctl[RUNNING] set: the caller clears it
    when it stops searching, so a Ctrl-C between two depths still only sets the flag."""
    n = root_moves.size
    player = dispatch.current_player(game, root)
    # Every array the search touches per node is an unowned view (see ludo_flow.memory):
    # the Python caller owns them for the whole call, so no reference counting is needed.
    tables = _unowned_tables(tables)
    states = tables.states
    pv = tables.pv
    pv_len = tables.pv_len
    ctl = unowned(ctl)
    ctl[RUNNING] = 1  # a Ctrl-C now only sets ctl[INTERRUPTED] (see clock.Interrupts)
    # Element loops, not slice assignments: numba compiles a slice assignment with the
    # formatting of its shape-mismatch message, seconds of compile time in every caller.
    for k in range(root.size):
        states[0, k] = root[k]
    scores = np.zeros(n, dtype=np.float64)
    best_move = root_moves[0]
    best_score = 0.0
    first_depth = ctl[FIRST_DEPTH]
    done_depth = first_depth - 1
    pv_n = 0
    child = states[1]
    for depth in range(first_depth, max_depth + 1):
        iter_best = -INF
        iter_move = root_moves[0]
        alpha = -INF
        complete = 0
        for i in range(n):
            a = root_moves[i]
            dispatch.apply(game, root, a, child)
            # The ply as np.int64: a literal 1 is a type of its own to numba, and negamax's
            # callees compiled for it a second time, beside their int64 signatures.
            if dispatch.current_player(game, child) == player:
                v = negamax(game, evaluation, np.int64(1), depth - 1, alpha, INF, tables, ctl,
                            deadline, net)
            else:
                v = -negamax(game, evaluation, np.int64(1), depth - 1, -INF, -alpha, tables, ctl,
                             deadline, net)
            if ctl[STOP]:
                break
            complete += 1
            scores[i] = v
            if v > iter_best:
                iter_best = v
                iter_move = a
                pv[0, 0] = a
                m = pv_len[1]
                for k in range(m):
                    pv[0, k + 1] = pv[1, k]
                pv_len[0] = m + 1
                if v > alpha:
                    alpha = v
        if complete == n or iter_move != root_moves[0] or done_depth == 0:
            if complete > 0:
                best_move = iter_move
                best_score = iter_best
                pv_n = pv_len[0]
                for k in range(pv_n):
                    out_pv[k] = pv[0, k]
            if complete == n:
                done_depth = depth
        if ctl[STOP] or complete < n:
            break
        # Next iteration: best first, then by this iteration's scores (a stable insertion sort).
        for i in range(1, n):
            a = root_moves[i]
            v = scores[i]
            j = i - 1
            while j >= 0 and scores[j] < v:
                root_moves[j + 1] = root_moves[j]
                scores[j + 1] = scores[j]
                j -= 1
            root_moves[j + 1] = a
            scores[j + 1] = v
        if best_score > WIN_BOUND or best_score < -WIN_BOUND:
            break  # a forced result within the horizon: deeper search cannot change it
    return best_move, best_score, done_depth, pv_n


def search_for(game, evaluation):
    """Return `search` compiled for one game and one evaluation (a dispatch.EVALUATIONS name,
    or "net" for a value network, whichever file it comes from): it takes the arguments after
    `evaluation`.

    Both are compile-time constants (`for_game`), so the search holds only that game's kernels
    and that evaluation: an int evaluation id would compile both evaluations into `negamax`.
    A network's weights are an argument (`net`), not constants: one compiled search serves
    every weight file."""
    evaluation_id = network.NET if evaluation == "net" else dispatch.EVALUATIONS[evaluation]
    return for_game(search, game, evaluation=evaluation_id)


def table_bytes(entries):
    """Return the bytes of the transposition table the `tt` setting asks for."""
    return table_rows(entries) * TT_WORDS * 8


class AlphaBetaAgent(BaseAgent):
    """Negamax alpha-beta with iterative deepening, transposition table and move ordering.

    `last_stats` has exactly the keys of `STATS_KEYS` after every move, however it ended:

    - `nodes` (int): nodes searched (states generated or evaluated; table answers not counted)
    - `depth` (int): depth of the last finished iteration (0: none finished)
    - `seldepth` (int): the deepest ply reached
    - `score` (float or None): the played move's score from the mover's view (a win found p
      plies down is 1000 - p); None when nothing was searched
    - `pv` (list of int): the principal variation, starting with the move played, at most
      `PV_LENGTH` actions (empty if the search was stopped before it finished searching any
      move)
    - `time` (float): seconds spent in `select_action`
    - `nodes_per_second` (float): nodes / time
    - `tt_hits` (int): nodes answered by the transposition table
    - `stopped` (str): why the search ended: "depth" (the depth budget was searched),
      "forced result" (a win or loss within the horizon), "nodes", "time", "interrupted"
      (Ctrl-C: `select_action` raised SearchInterrupted), "single legal action" (no search)

    Ctrl-C stops the search within `_CHECK_EVERY` nodes (see `clock.Interrupts`; main thread
    only) and raises `SearchInterrupted` carrying the move the search would have played."""

    agent_name = "alphabeta"
    STATS_KEYS = ("nodes", "depth", "seldepth", "score", "pv", "time", "nodes_per_second",
                  "tt_hits", "stopped")
    settings = {
        "depth": Setting(int, 4, "maximum depth in plies (decisions)", low=1, high=MAX_PLY - 1),
        "nodes": Setting(int, 0, "node budget per move (0: none)", low=0),
        "time": Setting(float, 0.0, "seconds per move (0: none)", low=0.0),
        "tt": Setting(int, 1 << 20, "transposition table entries, a power of two (0: off); "
                      "depth-1 nodes use a further small table of up to 8192 entries; "
                      "32 bytes an entry, at most the machine's memory", low=0,
                      memory=table_bytes),
        "eval": Setting(str, "texel", "the evaluation at the horizon: texel (evaluate_tuned, fitted to "
                        "self-play; it beat hand in an SPRT in each game), hand (the hand-set "
                        "evaluate) or net:FILE (a value network's weights, docs/learning.md)"),
        "seed": Setting(int, 0, "random seed (orders equal root moves)", low=0),
    }

    def __init__(self, **options):
        super().__init__(**options)
        tt = self.options["tt"]
        if tt & (tt - 1):
            raise AgentError(f"alphabeta: setting tt must be 0 or a power of two, got {tt}")
        self._net_file = load_evaluation("alphabeta", self.options["eval"])

    def search_functions(self, game):
        """Return the jitted entries this agent's searches of `game` run: (`search_for`'s,)."""
        return (search_for(game, "net" if self._net_file else self.options["eval"]),)

    def reset(self, seed=None):
        """Start a new game: clear the table, killers and history; reseed root move order."""
        self._seed = self.options["seed"] if seed is None else int(seed)
        self._rng = np.random.default_rng(self._seed)
        self._tables = None
        self._tables_for = None

    def _ensure_tables(self, game_id, array):
        # The table keys leave out what is fixed within a game (Flow's board size, turn
        # limit): a position from another board starts a fresh table.
        context = (game_id, array.size, int(for_game(dispatch.context_key, game_id)(array)))
        if self._tables is not None and self._tables_for == context:
            return self._tables
        size = self.options["tt"]
        self._tables = None
        try:
            self._tables = new_tables(array.size, size)
        except MemoryError:
            check_memory("alphabeta", f"setting tt={size}", table_bytes(size))
            raise AgentError(f"alphabeta: setting tt={size}: the table's {table_bytes(size)} "
                             "bytes could not be allocated (too little free memory)") from None
        self._tables_for = context
        return self._tables

    def _search_by_depth(self, search_depth, legal, ctl, out_pv, on_progress, start):
        """Return what `search` returns, searching one depth per call (`search_depth(d)`: the
        search of depth d alone) and calling `on_progress` after each finished depth (see
        `search` for the resumed calls)."""
        found = (int(legal[0]), 0.0, 0, 0)
        for depth in range(1, self.options["depth"] + 1):
            answer = search_depth(depth)
            if answer[3] > 0 or depth == 1:
                found = answer
            if ctl[STOP] or ctl[INTERRUPTED]:
                break
            action, score, _, pv_n = found
            on_progress(SearchProgress(
                "alphabeta", time.perf_counter() - start, int(action), float(score),
                tuple(int(a) for a in out_pv[:min(pv_n, PV_LENGTH)]), depth, int(ctl[NODES])))
            if abs(score) > WIN_BOUND or ctl[INTERRUPTED]:
                break  # a forced result (as `search` stops), or a Ctrl-C during the report
        return found

    def select_action(self, state, on_progress=None):
        """Return the best action found within the budgets (the state is not changed).

        `on_progress`, if given, is called with a `SearchProgress` after each finished depth
        (not for a single legal action): the search then returns to Python between depths,
        and finds the same move with the same figures as without it.
        Raises SearchInterrupted (a KeyboardInterrupt) on Ctrl-C, after setting `last_stats`."""
        game_id, array = check_state(state)
        start = time.perf_counter()
        legal = np.array(state.legal_actions(), dtype=np.int32)
        self._rng.shuffle(legal)
        if legal.size == 1:
            self.last_stats = {"nodes": 0, "depth": 0, "seldepth": 0, "score": None,
                               "pv": [int(legal[0])], "time": time.perf_counter() - start,
                               "nodes_per_second": 0.0, "tt_hits": 0,
                               "stopped": "single legal action"}
            return int(legal[0])
        t = self._ensure_tables(game_id, array)
        ctl = np.zeros(CTL_SIZE, dtype=np.int64)
        ctl[FIRST_DEPTH] = 1
        ctl[NODE_LIMIT] = self.options["nodes"] or np.iinfo(np.int64).max
        ctl[CHECK_AT] = min(ctl[NODE_LIMIT], _CHECK_EVERY)
        budget = self.options["time"]
        deadline = start + budget if budget > 0 else np.inf
        out_pv = np.zeros(MAX_PLY + 1, dtype=np.int32)
        t.killers.fill(-1)
        np.floor_divide(t.history, 8, out=t.history)  # old cutoffs: a hint, not a rule
        search = self.search_functions(game_id)[0]
        with Interrupts(ctl, INTERRUPTED, RUNNING) as interrupts:
            root = array.copy()
            net = net_for("alphabeta", self._net_file, game_id)
            if on_progress is None:
                action, score, depth, pv_n = search(root, self.options["depth"], legal, t, ctl,
                                                    deadline, out_pv, net)
            else:
                def search_depth(depth):
                    ctl[FIRST_DEPTH] = depth
                    return search(root, depth, legal, t, ctl, deadline, out_pv, net)
                action, score, depth, pv_n = self._search_by_depth(
                    search_depth, legal, ctl, out_pv, on_progress, start)
            ctl[RUNNING] = 0
        elapsed = time.perf_counter() - start
        stopped = "depth"
        if interrupts.interrupted:
            stopped = "interrupted"
        elif ctl[STOP]:
            if ctl[NODES] >= ctl[NODE_LIMIT]:
                stopped = "nodes"
            else:
                stopped = "time"
        elif abs(score) > WIN_BOUND:
            stopped = "forced result"
        self.last_stats = {
            "nodes": int(ctl[NODES]), "depth": int(depth), "seldepth": int(ctl[SELDEPTH]),
            "score": float(score) if pv_n > 0 else None,
            "pv": [int(a) for a in out_pv[:min(pv_n, PV_LENGTH)]], "time": elapsed,
            "nodes_per_second": float(ctl[NODES]) / elapsed if elapsed > 0 else 0.0,
            "tt_hits": int(ctl[TT_HITS]), "stopped": stopped,
        }
        interrupts.deliver(f"{self.spec()}: search interrupted after {int(ctl[NODES])} nodes "
                           f"(depth {int(depth)} finished)", int(action), self.last_stats)
        return int(action)
