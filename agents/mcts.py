"""MCTS: UCT informed by the game's evaluation, the tree in preallocated arrays inside jitted code.

The tree: node i has a parent, the action that led to it, a contiguous block of children
(allocated all at once when the node is expanded, in a seeded random order), a visit count, a
value sum and a minimax value. The value sum of a node is kept from the view of its *mover*,
the player who chose the action into it (the player to move at the parent), so the backup adds
White's result with the mover's sign: this stays right when the same player decides twice in a
row (Flow's second step and wash choices). Expanded nodes keep their state in a pool, so a
simulation replays at most one action.

`policy=informed` (the default) combines five ideas, each a setting:

- `cutoff`: the new leaf of a simulation is scored by `dispatch.evaluate` (0), after N random
  plies (N), or by a random playout to the end (-1);
- `priors`: every child is evaluated when its parent is expanded; an unvisited child's value
  in UCT is its evaluation (so no child must be tried once first), it seeds the minimax
  values, and a child that ends the game is proven at once;
- `expand` (with priors): a leaf is expanded at its first visit and scored by its best
  child's evaluation (a one-ply search), instead of being scored at its first visit (by the
  evaluation its parent's expansion already gave it: a visit that learns nothing) and
  expanded at its second;
- `minimax` (a weight w): implicit minimax backups (Lanctot et al. 2014): `minimax[x]` holds,
  White's view, a leaf's evaluation or an expanded node's max / min over its children, and
  selection scores `(1 - w) Q + w minimax + exploration`;
- `solver`: a node whose game is over is *proven* for its mover (won or lost, not draws); a
  parent with a proven-won child is proven won for its player, one whose children are all
  proven lost is proven lost. Selection takes a proven win at once and skips proven losses,
  so a proven node is never sampled again; the search stops when the root is proven.
  Otherwise the move with most visits (not a proven loss) is played.

`turn_order` (informed policy only; plain UCT keeps both orders): the tree holds a quiet
Flow turn in one order of its two steps only. An inner node at a turn's second step drops
the steps whose turn it would repeat (`dispatch.drop_transposed`: the other order, with the
lower first step, reaches the same position), about a third of the second steps in random
games, so the search does not split its simulations between two copies of one position. The
root keeps every legal action (its first step is played); a kept root (`reuse=1`) gets back
the children its expansion dropped.

`policy=uct` is plain UCT: uniform random playouts to the end (`dispatch.playout_in_place`),
scored +1 / 0 / -1, none of the five ideas. Under the informed policy a playout's draw counts
`draw_eval * evaluate(final position)`, so a side that is ahead when the game runs into a draw
limit still sees that it was ahead (Tolkuchka's random games mostly end in the quiet-ply draw).

Budgets: `simulations` and `time` (seconds); `memory` bounds the nodes: the tree starts at
INITIAL_NODES and doubles when full (`Tree.grown`), and when it may not grow further the
search stops cleanly and answers from what it has. `reuse=1` keeps the subtree of
the position reached at the next move (found by comparing states, up to 16 plies down).
Every `_CHECK_EVERY` simulations the search reads the clock (`clock.now`, with or without a
time budget), which is also where a Ctrl-C is seen (`clock.Interrupts`): the search stops
between two simulations, and `select_action` raises `SearchInterrupted` with the most visited
root action so far.
"""
import time

import numpy as np
from numba import njit, uint64

from ludo_flow import dispatch
from ludo_flow.specialize import for_game, game_jit
from ludo_flow.registry import ENTRIES
from ludo_flow.rng import new_rng, next_u64

from .base import AgentError, BaseAgent, Setting, check_memory, check_state
from .clock import Interrupts, now

# Slots of the int64 control array. INTERRUPTED is set by the SIGINT handler while RUNNING is
# set (see clock.Interrupts).
NODES, SLOTS, SIMS, STOP, MAX_DEPTH, ROOT_PROVEN, INTERRUPTED, RUNNING = range(8)
CTL_SIZE = 8
# STOP_MEMORY: the tree has no room for another expansion (the agent grows it, up to `memory`);
# STOP_PATH: a selection path reached MAX_PATH plies (growing the tree would not help).
STOP_NONE, STOP_BUDGET, STOP_TIME, STOP_MEMORY, STOP_PROVEN, STOP_INTERRUPTED, STOP_PATH = range(7)
STOP_NAMES = {STOP_NONE: "none", STOP_BUDGET: "simulations", STOP_TIME: "time",
              STOP_MEMORY: "memory full", STOP_PROVEN: "root proven",
              STOP_INTERRUPTED: "interrupted", STOP_PATH: "path too deep"}
MAX_PATH = 4096
_CHECK_EVERY = 64  # simulations between two reads of the clock (and checks for Ctrl-C)
FIND_DEPTH = 16
_TABLE = 8192  # visit counts below this use the precomputed 1/n and 1/sqrt(n)
POLICIES = ("informed", "uct")
# The exploration constant's defaults. The informed search's values are evaluations, which
# differ among siblings by about 0.05, so it explores less: c=0.3 with minimax=0.8 beat c=1.0
# with minimax=0.3 in an SPRT at 0.1 s a move in both games (experiments/mcts_strength).
# Plain UCT keeps the textbook-scale constant it has always had.
INFORMED_C, UCT_C = 0.3, 1.0
# The `priors` argument of `run`: no priors; priors, a leaf scored at its first visit and
# expanded at its second; priors, a leaf expanded at its first visit (setting expand=1).
NO_PRIORS, PRIORS, PRIORS_EXPAND_FIRST = 0, 1, 2
# A flag added to that argument (setting turn_order=1): an inner node drops the decisions whose
# position the tree also reaches by another order of the same player's decisions
# (`dispatch.drop_transposed`: Flow's two steps of a quiet turn).
DROP_TRANSPOSED = 4
PRIORS_MODES = 3  # the bits of the argument that give the priors mode
UCT_FIXED = ("cutoff", "minimax", "priors", "expand", "solver", "draw_eval", "eval",
             "turn_order")  # what policy=uct sets itself


# Bytes a tree node takes in the Tree's arrays (parent, action, first_child, n_children,
# n_tried, slot: int32; visits: int64; value, minimax: float64; mover, player, proven,
# term: int8), plus the two int64 work arrays of a reuse; the state pool adds an eighth of a
# state per node (`tree_bytes`).
NODE_BYTES = 6 * 4 + 8 + 2 * 8 + 4 * 1
REUSE_BYTES = 2 * 8


def tree_bytes(max_nodes, state_size=None):
    """Return the bytes of a tree of `max_nodes` nodes for states of `state_size` words (None:
    the largest state of any registered game), with the work arrays of a reuse."""
    if state_size is None:
        state_size = max(e.state_size for e in ENTRIES)
    pool = max(64, max_nodes // 8)
    return max_nodes * (NODE_BYTES + REUSE_BYTES) + pool * state_size * 8


# A tree starts at INITIAL_NODES nodes (or `memory`, if smaller) and doubles whenever it is
# full, up to `memory` nodes: a long think is not cut short by a tree sized for a short one
# (at 1 s a move the informed search fills 2^20 nodes of Flow in well under the second), and
# a short one does not allocate a tree sized for a long one.
INITIAL_NODES = 1 << 20  # the fixed size trees had before they grew
MAX_DEFAULT_NODES = 1 << 23


def default_memory(state_size=None):
    """Return the default of the `memory` setting for states of `state_size` words (None: the
    largest of any registered game): MAX_DEFAULT_NODES, or the largest power of two whose
    tree takes at most a quarter of the machine's memory, if that is smaller."""
    from .base import machine_memory
    nodes = MAX_DEFAULT_NODES
    quarter = machine_memory() // 4
    while nodes > INITIAL_NODES and tree_bytes(nodes, state_size) > quarter:
        nodes //= 2
    return nodes


class Tree:
    """The preallocated arrays of one search tree (numpy, shared with the jitted code)."""

    def __init__(self, max_nodes, state_size):
        self.max_nodes = max_nodes
        pool = max(64, max_nodes // 8)
        self.parent = np.empty(max_nodes, dtype=np.int32)
        self.action = np.empty(max_nodes, dtype=np.int32)
        self.first_child = np.empty(max_nodes, dtype=np.int32)
        self.n_children = np.empty(max_nodes, dtype=np.int32)
        self.n_tried = np.empty(max_nodes, dtype=np.int32)
        self.visits = np.empty(max_nodes, dtype=np.int64)
        self.value = np.empty(max_nodes, dtype=np.float64)
        self.mover = np.empty(max_nodes, dtype=np.int8)
        self.player = np.empty(max_nodes, dtype=np.int8)
        self.proven = np.empty(max_nodes, dtype=np.int8)
        self.term = np.empty(max_nodes, dtype=np.int8)
        self.minimax = np.empty(max_nodes, dtype=np.float64)
        self.slot = np.empty(max_nodes, dtype=np.int32)
        self.pool = np.empty((pool, state_size), dtype=np.uint64)
        self.ctl = np.zeros(CTL_SIZE, dtype=np.int64)

    def grown(self, max_nodes):
        """Return a Tree of `max_nodes` nodes (more than this one's) holding this tree."""
        bigger = Tree(max_nodes, self.pool.shape[1])
        n = int(self.ctl[NODES])
        for old, new in zip(self.arrays()[:-2], bigger.arrays()[:-2]):
            new[:n] = old[:n]
        slots = int(self.ctl[SLOTS])
        bigger.pool[:slots] = self.pool[:slots]
        bigger.ctl = self.ctl  # the same array: a Ctrl-C handler holding it still reaches it
        return bigger

    def arrays(self):
        """Return the arrays in the order the jitted functions take them."""
        return (self.parent, self.action, self.first_child, self.n_children, self.n_tried,
                self.visits, self.value, self.mover, self.player, self.proven, self.term,
                self.minimax, self.slot, self.pool, self.ctl)


@game_jit()
def init_root(game, root, parent, action, first_child, n_children, n_tried, visits, value,
              mover, player, proven, term, minimax, slot, pool, ctl):
    """Make a one-node tree whose root is the state `root`; return None."""
    ctl[:] = 0
    parent[0] = -1
    action[0] = -1
    first_child[0] = -1
    n_children[0] = 0
    n_tried[0] = 0
    visits[0] = 0
    value[0] = 0.0
    mover[0] = 0
    player[0] = dispatch.current_player(game, root)
    proven[0] = 0
    term[0] = 0
    minimax[0] = 0.0
    slot[0] = 0
    for k in range(root.size):  # not a slice assignment: see alphabeta.search
        pool[0, k] = root[k]
    ctl[NODES] = 1
    ctl[SLOTS] = 1


@game_jit()
def _outcome_value(game, evaluation, code, s, draw_eval):
    """Return White's value of a playout that ended with `code` in position `s` (a draw or a
    cut-off scored by the evaluation `evaluation`, a dispatch.EVALUATIONS id)."""
    if code == dispatch.WHITE_WINS:
        return 1.0
    if code == dispatch.BLACK_WINS:
        return -1.0
    if code == dispatch.DRAW:
        return draw_eval * dispatch.evaluate(game, s, evaluation) if draw_eval != 0.0 else 0.0
    return dispatch.evaluate(game, s, evaluation)  # cut off before the end


@njit(cache=True, inline="always")
def _shuffle(buf, n, rng):
    """Shuffle buf[:n] in place (Fisher-Yates), so that ties among children break at random.

    Each index is a multiply-shift of 32 random bits, not `rand_below`'s exact rejection
    sampling: biased by at most n / 2**32, which no tie-breaking can notice, and without its
    two 64-bit divisions a draw. Those cost Flow's search about a tenth of its simulations."""
    for i in range(n - 1, 0, -1):
        j = np.int64(((next_u64(rng) >> uint64(32)) * uint64(i + 1)) >> uint64(32))
        buf[i], buf[j] = buf[j], buf[i]


@njit(cache=True)
def _propagate(node, parent, first_child, n_children, n_tried, mover, player, proven, ctl):
    """Carry a newly proven result up the tree as far as it decides parents; return None."""
    x = node
    while x != 0 and proven[x] != 0:
        p = parent[x]
        if proven[x] == 1:
            win_for_player = 1
        else:
            if n_tried[p] < n_children[p]:
                return
            f = first_child[p]
            for c in range(f, f + n_children[p]):
                if proven[c] != -1:
                    return
            win_for_player = -1
        if p == 0:
            ctl[ROOT_PROVEN] = win_for_player
            return
        proven[p] = win_for_player if mover[p] == player[p] else -win_for_player
        x = p


@njit(cache=True)
def _best_child_value(f, n, mover, player, proven, minimax):
    """Return the best minimax value (White's view) for `player` (0 White) among the n nodes
    from f, a proven node counting as its result."""
    white = player == 0
    best = -2.0 if white else 2.0
    for ch in range(f, f + n):
        v = minimax[ch]
        if proven[ch] != 0:
            v = 1.0 if (proven[ch] == 1) == (mover[ch] == 0) else -1.0
        if (white and v > best) or (not white and v < best):
            best = v
    return best


@njit(cache=True)
def _back_up_minimax(path, depth, first_child, n_tried, mover, player, proven, term, minimax):
    """Recompute the minimax value (White's view) of each expanded node on `path[:depth]`,
    deepest first, from its tried children (a proven child counts as its result); return None."""
    for i in range(depth - 1, -1, -1):
        x = path[i]
        if term[x] != 0:
            continue
        # int64 counts, as `run` passes: one compiled signature, not one per integer type
        minimax[x] = _best_child_value(np.int64(first_child[x]), np.int64(n_tried[x]), mover,
                                       player[x], proven, minimax)


@game_jit(inline="always")
def _new_child(game, ch, node, a, me, s, parent, action, first_child, n_children, n_tried, visits,
               value, mover, player, proven, term, minimax, slot, evaluation, draw_eval, solver,
               priors, scratch):
    """Make node `ch` a new child of `node` (state `s`, player `me` to move) by action `a`:
    unvisited, unexpanded; with priors, scored by its evaluation, or by its result if it ends
    the game (proven, with the solver, unless drawn); return None."""
    parent[ch] = node
    action[ch] = a
    first_child[ch] = -1
    n_children[ch] = 0
    n_tried[ch] = 0
    visits[ch] = 0
    value[ch] = 0.0
    mover[ch] = me
    player[ch] = 0
    proven[ch] = 0
    term[ch] = 0
    minimax[ch] = 0.0
    slot[ch] = -1
    if priors:  # (as apply, result and evaluate; Flow's usual step writes no state)
        code, v = dispatch.child_outcome(game, s, a, evaluation, scratch)
        if code == dispatch.ONGOING:
            minimax[ch] = v
        else:
            term[ch] = code
            if code == dispatch.DRAW:  # as _outcome_value scores a draw
                v = draw_eval * v if draw_eval != 0.0 else 0.0
            minimax[ch] = v
            if solver and code != dispatch.DRAW:
                proven[ch] = 1 if (code == dispatch.WHITE_WINS) == (me == 0) else -1


@game_jit()
def run(game, parent, action, first_child, n_children, n_tried, visits, value, mover, player,
        proven, term, minimax, slot, pool, ctl, sim_limit, deadline, c_uct, draw_eval, evaluation,
        cutoff, plays_out, weight, solver, priors, rng, scratch, buf, path):
    """Run simulations until `sim_limit` more are done or a stop (time, memory, proven root,
    Ctrl-C). `plays_out` is 1 if `cutoff` is not 0 (a new leaf is played out), else 0: bound
    as a constant with the evaluation (`MCTSAgent.search_functions`), it leaves the playout
    code out of a search that scores its leaves at once. `priors` is NO_PRIORS, PRIORS or
    PRIORS_EXPAND_FIRST, plus DROP_TRANSPOSED with turn_order=1 (the settings `priors`, `expand`
    and `turn_order`: one argument, since a call of
    more than 30 arguments is compiled by Python in a form numba cannot inline).

    Returns the stop reason (STOP_*). The tree must have been made by `init_root` (or kept).
    It leaves ctl[RUNNING] set: the caller clears it when it stops searching (it may grow the
    tree and search on), so a Ctrl-C that CPython hands to Python just as this returns still
    only sets the flag."""
    ctl[RUNNING] = 1  # a Ctrl-C now only sets ctl[INTERRUPTED] (see clock.Interrupts)
    stop = _simulate(game, parent, action, first_child, n_children, n_tried, visits, value,
                     mover, player, proven, term, minimax, slot, pool, ctl, sim_limit,
                     deadline, c_uct, draw_eval, evaluation, cutoff, plays_out, weight, solver,
                     priors, rng, scratch, buf, path)
    return stop


@game_jit()
def _simulate(game, parent, action, first_child, n_children, n_tried, visits, value, mover,
              player, proven, term, minimax, slot, pool, ctl, sim_limit, deadline, c_uct,
              draw_eval, evaluation, cutoff, plays_out, weight, solver, priors, rng, scratch, buf,
              path):
    """The body of `run`: simulations until a budget or a stop; return the stop reason."""
    max_nodes = parent.size
    max_slots = pool.shape[0]
    # UCT scans every child at every level: tables of 1/n and 1/sqrt(n) spare a division and
    # a square root per child, and one of sqrt(log n) a logarithm and a root per level.
    inverse = np.empty(_TABLE, dtype=np.float64)
    inverse_sqrt = np.empty(_TABLE, dtype=np.float64)
    sqrt_log = np.empty(_TABLE, dtype=np.float64)
    inverse[0] = 0.0
    inverse_sqrt[0] = 0.0
    sqrt_log[0] = 0.0  # log(max(n, 1)), as below
    for k in range(1, _TABLE):
        inverse[k] = 1.0 / k
        inverse_sqrt[k] = 1.0 / np.sqrt(k)
        sqrt_log[k] = np.sqrt(np.log(k))
    # With priors an unvisited node's evaluation is known (its parent's expansion scored it),
    # so a first visit that only scored it again would learn nothing: it is expanded at once.
    drop_transposed = (priors & DROP_TRANSPOSED) != 0
    priors = priors & PRIORS_MODES
    expand_first = priors == PRIORS_EXPAND_FIRST
    done = 0
    countdown = _CHECK_EVERY
    while True:
        if ctl[ROOT_PROVEN] != 0:
            return STOP_PROVEN
        if done >= sim_limit:
            return STOP_BUDGET
        countdown -= 1
        if countdown <= 0:
            # The clock is read with or without a time budget (the deadline is then
            # infinite): the object-mode call is where a pending Ctrl-C is seen.
            countdown = _CHECK_EVERY
            t = now()
            if ctl[INTERRUPTED] != 0:
                return STOP_INTERRUPTED
            if t >= deadline:
                return STOP_TIME
        node = 0
        depth = 0
        path[0] = 0
        r = 0.0
        newly_proven = -1
        leaf_expanded = False
        while True:
            if node != 0 and proven[node] != 0:
                r = 1.0 if (proven[node] == 1) == (mover[node] == 0) else -1.0
                break
            if term[node] != 0:
                r = minimax[node]
                break
            if first_child[node] < 0:
                if node != 0 and visits[node] == 0 and not expand_first:
                    # First visit: play the action from the parent's stored state, then play out.
                    dispatch.apply(game, pool[slot[parent[node]]], action[node], scratch)
                    player[node] = dispatch.current_player(game, scratch)
                    code = dispatch.result(game, scratch)
                    if code != dispatch.ONGOING:
                        term[node] = code
                        minimax[node] = _outcome_value(game, evaluation, code, scratch, draw_eval)
                        r = minimax[node]
                        if solver and code != dispatch.DRAW:
                            winner = 0 if code == dispatch.WHITE_WINS else 1
                            proven[node] = 1 if winner == mover[node] else -1
                            newly_proven = node
                    else:
                        if weight > 0.0 or plays_out == 0:
                            minimax[node] = dispatch.evaluate(game, scratch, evaluation)
                        if plays_out == 0:  # the leaf itself is scored (cutoff 0)
                            r = minimax[node]
                        else:
                            code = dispatch.playout_in_place(game, scratch, rng, cutoff)
                            r = _outcome_value(game, evaluation, code, scratch, draw_eval)
                    break
                # Expand: store the state, then make every child at once (shuffled).
                if ctl[SLOTS] >= max_slots or ctl[NODES] + dispatch.MAX_ACTIONS > max_nodes:
                    return STOP_MEMORY
                if node != 0:
                    k = ctl[SLOTS]
                    dispatch.apply(game, pool[slot[parent[node]]], action[node], pool[k])
                    slot[node] = k
                    ctl[SLOTS] = k + 1
                    if visits[node] == 0:  # expanded at its first visit (expand_first)
                        player[node] = dispatch.current_player(game, pool[k])
                        leaf_expanded = True
                s = pool[slot[node]]
                n = dispatch.legal_actions(game, s, buf)
                if drop_transposed and node != 0 and mover[node] == player[node]:
                    # Not at the root: there the earlier decision of the turn is made.
                    n = dispatch.drop_transposed(game, pool[slot[parent[node]]], s, action[node],
                                                 buf, n)
                _shuffle(buf, n, rng)
                f = ctl[NODES]
                me = player[node]
                for i in range(n):
                    _new_child(game, f + i, node, buf[i], me, s, parent, action, first_child,
                               n_children, n_tried, visits, value, mover, player, proven, term,
                               minimax, slot, evaluation, draw_eval, solver, priors, scratch)
                first_child[node] = f
                n_children[node] = n
                # With priors every child has a value: UCT chooses among them from the start.
                n_tried[node] = n if priors else 0
                ctl[NODES] = f + n
                if priors and solver:
                    for ch in range(f, f + n):
                        if proven[ch] != 0:
                            _propagate(ch, parent, first_child, n_children, n_tried, mover,
                                       player, proven, ctl)
                            if proven[node] != 0 or ctl[ROOT_PROVEN] != 0:
                                break
                if leaf_expanded:  # the simulation ends here, scored by a one-ply search
                    r = _best_child_value(f, n, mover, player[node], proven, minimax)
                    break
            # Select: untried children first (in their shuffled order), then UCT.
            f = first_child[node]
            if n_tried[node] < n_children[node]:
                child = f + n_tried[node]
                n_tried[node] += 1
            else:
                child = -1
                best = -1.0e300
                here = visits[node]
                explore = c_uct * (sqrt_log[here] if here < _TABLE else np.sqrt(np.log(here)))
                # The children's minimax values, White's view, turned to their mover's.
                sign = 1.0 if player[node] == 0 else -1.0
                mix = sign * weight
                for ch in range(f, f + n_children[node]):
                    if proven[ch] == 1:
                        child = ch
                        break
                    if proven[ch] == -1:
                        continue
                    nv = visits[ch]
                    if nv == 0:  # only with priors: the evaluation stands in for the mean
                        u = sign * minimax[ch] + explore
                    elif nv < _TABLE:
                        u = (1.0 - weight) * value[ch] * inverse[nv] + explore * inverse_sqrt[nv]
                    else:
                        u = (1.0 - weight) * value[ch] / nv + explore / np.sqrt(nv)
                    if nv > 0:
                        u += mix * minimax[ch]
                    if u > best:
                        best = u
                        child = ch
                if child < 0:
                    child = f  # every child is a proven loss: any will do
            node = child
            depth += 1
            if depth >= path.size:
                return STOP_PATH
            path[depth] = node
        for i in range(depth + 1):
            x = path[i]
            visits[x] += 1
            if i > 0:
                value[x] += r if mover[x] == 0 else -r
        if weight > 0.0:  # the leaf too, if it was expanded
            _back_up_minimax(path, depth + 1 if leaf_expanded else depth, first_child, n_tried,
                             mover, player, proven, term, minimax)
        if depth > ctl[MAX_DEPTH]:
            ctl[MAX_DEPTH] = depth
        if newly_proven >= 0:
            _propagate(newly_proven, parent, first_child, n_children, n_tried, mover, player,
                       proven, ctl)
        done += 1
        ctl[SIMS] += 1


@njit(cache=True)
def best_child(first_child, n_children, visits, proven, ctl):
    """Return the root child to play: a proven win, else the most visited not proven lost."""
    f = first_child[0]
    n = n_children[0]
    if ctl[ROOT_PROVEN] == 1:
        for ch in range(f, f + n):
            if proven[ch] == 1:
                return ch
    best = -1
    for ch in range(f, f + n):
        if proven[ch] == -1:
            continue
        if best < 0 or visits[ch] > visits[best]:
            best = ch
    if best < 0:
        for ch in range(f, f + n):
            if best < 0 or visits[ch] > visits[best]:
                best = ch
    return best


@njit(cache=True)
def find_node(state, first_child, n_children, slot, pool, queue):
    """Return the expanded node whose stored state equals `state` (breadth first), or -1."""
    head = 0
    tail = 1
    queue[0] = 0
    depth_end = 1
    depth = 0
    while head < tail:
        if head == depth_end:
            depth += 1
            depth_end = tail
            if depth > FIND_DEPTH:
                return -1
        x = queue[head]
        head += 1
        if slot[x] < 0:
            continue
        same = True
        row = pool[slot[x]]
        for i in range(state.size):
            if row[i] != state[i]:
                same = False
                break
        if same:
            return x
        f = first_child[x]
        for ch in range(f, f + n_children[x]):
            if first_child[ch] >= 0 and tail < queue.size:
                queue[tail] = ch
                tail += 1
    return -1


@njit(cache=True)
def keep_subtree(new_root, parent, action, first_child, n_children, n_tried, visits, value,
                 mover, player, proven, term, minimax, slot, pool, ctl, new_slot, new_index,
                 extra):
    """Make `new_root`'s subtree the whole tree (compacted to the front), with `extra` unused
    entries right after the root's children for children it lacks (`add_root_children` fills
    them); return its size, the extra entries included. Call `prove_root` after.

    Two sequential scans, no sort and no queue: a node always has a higher index than its
    parent, so one pass over the indices from `new_root` up finds the kept nodes (those whose
    parent is kept) in increasing order, and moving node entries down in that order is safe in
    place. Pool slots are handed out in the order nodes were expanded, which is not the order
    of their indices, so the kept states move down in the order of their slots (a state moved
    in index order could overwrite one not yet moved). `new_slot` and `new_index` are work
    arrays of at least the pool's rows and the tree's nodes. (The sort this replaced took
    tens of milliseconds of each move's time at 1 s a move.)"""
    n = ctl[NODES]
    # The gap goes after the root's last child: every node keeps an index above its parent's.
    last_root_child = first_child[new_root] + n_children[new_root] - 1
    if first_child[new_root] < 0:
        last_root_child = new_root
    n_slots_before = ctl[SLOTS]
    for r in range(n_slots_before):
        new_slot[r] = -1
    k = 0
    for x in range(new_root, n):
        p = parent[x]
        if x == new_root or (p >= new_root and new_index[p] >= 0):
            new_index[x] = k
            k += 1
            if x == last_root_child:
                k += extra
            if slot[x] >= 0:
                new_slot[slot[x]] = 0  # kept: numbered below
        else:
            new_index[x] = -1
    n_slots = 0
    for r in range(n_slots_before):
        if new_slot[r] < 0:
            continue
        new_slot[r] = n_slots
        if r != n_slots:  # r > n_slots: never a row still to be moved
            for w in range(pool.shape[1]):  # not a slice assignment: see alphabeta.search
                pool[n_slots, w] = pool[r, w]
        n_slots += 1
    for x in range(new_root, n):
        i = new_index[x]
        if i < 0:
            continue
        parent[i] = new_index[parent[x]] if i > 0 else -1
        action[i] = action[x]
        first_child[i] = new_index[first_child[x]] if first_child[x] >= 0 else -1
        n_children[i] = n_children[x]
        n_tried[i] = n_tried[x]
        visits[i] = visits[x]
        value[i] = value[x]
        mover[i] = mover[x]
        player[i] = player[x]
        proven[i] = proven[x]
        term[i] = term[x]
        minimax[i] = minimax[x]
        slot[i] = new_slot[slot[x]] if slot[x] >= 0 else -1
    ctl[NODES] = k
    ctl[SLOTS] = n_slots
    ctl[MAX_DEPTH] = 0
    return k


@game_jit()
def add_root_children(game, parent, action, first_child, n_children, n_tried, visits, value,
                      mover, player, proven, term, minimax, slot, pool, ctl, actions, m,
                      evaluation, draw_eval, solver, priors, rng, scratch):
    """Give the expanded root the `m` new children `actions[:m]` (shuffled), in the entries
    `keep_subtree(..., extra=m)` left after its children; return None.

    A kept root was an inner node of the last search, whose expansion may have dropped
    transposed decisions (`turn_order=1`): at the root they are the player's own choices."""
    _shuffle(actions, m, rng)
    f = first_child[0] + n_children[0]
    s = pool[slot[0]]
    for i in range(m):
        _new_child(game, f + i, 0, actions[i], player[0], s, parent, action, first_child,
                   n_children, n_tried, visits, value, mover, player, proven, term, minimax,
                   slot, evaluation, draw_eval, solver, priors, scratch)
    n_children[0] += m
    if priors:
        n_tried[0] = n_children[0]


@njit(cache=True)
def prove_root(parent, first_child, n_children, n_tried, mover, player, proven, ctl):
    """Decide a kept root from its children, as an expansion does: carried up from its proven
    children, a won or lost root stops the next search at once instead of its sampling proven
    nodes; return None."""
    proven[0] = 0
    ctl[ROOT_PROVEN] = 0
    f = first_child[0]
    if f >= 0:
        for ch in range(f, f + n_children[0]):
            if proven[ch] != 0:
                _propagate(ch, parent, first_child, n_children, n_tried, mover, player, proven,
                           ctl)
                if ctl[ROOT_PROVEN] != 0:
                    break


class MCTSAgent(BaseAgent):
    """UCT Monte Carlo tree search, informed by the evaluation or plain (`policy=uct`), jitted,
    with an optional kept tree.

    `last_stats` has exactly the keys of `STATS_KEYS` after every move, however it ended:

    - `simulations` (int): simulations run for this move
    - `nodes` (int): nodes in the tree after the search (kept ones included)
    - `depth` (int): the deepest selection path (plies from the root)
    - `time` (float): seconds spent in `select_action`
    - `simulations_per_second` (float): simulations / time
    - `root_visits` (int): visits of the root (kept ones included)
    - `visits` (list of (action, visits, mean value)): the ten most visited root actions, the
      value from the mover's view in [-1, 1]
    - `proven` (str or None): "win" or "loss" when the solver proved the root, else None
    - `reused_nodes` (int): nodes kept from the previous move's tree (`reuse=1`)
    - `stopped` (str): why the search ended: "simulations" (the budget was run), "time",
      "memory full" (the tree is full), "root proven", "interrupted" (Ctrl-C:
      `select_action` raised SearchInterrupted), "path too deep" (a selection path reached
      MAX_PATH plies), "single legal action" (no search)

    Ctrl-C stops the search within `_CHECK_EVERY` simulations (see `clock.Interrupts`; main
    thread only) and raises `SearchInterrupted` carrying the most visited root action."""

    agent_name = "mcts"
    _tree = None  # allocated by the first search (`_tree_for`), kept by `reset`
    _tree_game = None
    STATS_KEYS = ("simulations", "nodes", "depth", "time", "simulations_per_second",
                  "root_visits", "visits", "proven", "reused_nodes", "stopped")
    settings = {
        "simulations": Setting(int, 1000, "simulations per move (0: none, then time must be set)",
                               low=0),
        "time": Setting(float, 0.0, "seconds per move (0: none)", low=0.0),
        "c": Setting(float, None, "UCT exploration constant (values are in [-1, 1]); default "
                     f"{INFORMED_C} (policy=informed) or {UCT_C} (policy=uct)", low=0.0),
        "draw_eval": Setting(float, 0.5, "a playout's draw counts this x evaluate(final position)",
                             low=0.0, high=1.0),
        "policy": Setting(str, "informed", "informed: the settings below; uct: plain UCT, the "
                          "textbook baseline (random playouts to the end scored win 1 / draw 0 / "
                          "loss -1, no minimax, no solver; cutoff, minimax, solver, draw_eval "
                          "and eval may not be given)", choices=POLICIES),
        "cutoff": Setting(int, 0, "plies of random playout before the position is scored by the "
                          "evaluation (0: the new leaf itself is scored; -1: play to the end)",
                          low=-1),
        "minimax": Setting(float, 0.8, "weight of the implicit minimax value (the evaluations "
                           "backed up by max/min) against the mean result in selection "
                           "(0: off)", low=0.0, high=1.0),
        "priors": Setting(int, 1, "1: evaluate every child when its parent is expanded: "
                          "that value stands in for an unvisited child's mean in selection (no "
                          "trying every child once first), seeds the minimax values, and a "
                          "child that ends the game is proven at once", low=0, high=1),
        "expand": Setting(int, 1, "1 (with priors=1): expand a leaf at its first visit and score "
                          "it by its best child, since its parent's expansion has scored it "
                          "already; 0: score a leaf at its first visit, expand it at its "
                          "second (always so with priors=0)", low=0, high=1),
        "solver": Setting(int, 1, "1: prove wins and losses in the tree (a proven node is "
                          "played or avoided outright and never searched again)", low=0, high=1),
        "eval": Setting(str, "texel", "the evaluation that scores leaves, cut-off playouts, draws "
                        "and the minimax values: texel (evaluate_tuned, fitted to self-play) or "
                        "hand (the hand-set evaluate)",
                        choices=tuple(dispatch.EVALUATIONS)),
        "turn_order": Setting(int, 1, "1: an inner node of the tree drops the decisions whose "
                              "position the tree also reaches by another order of the same "
                              "player's decisions (Flow: of a quiet turn's two steps, only the "
                              "order with the lower first step is kept; Tolkuchka: none)",
                              low=0, high=1),
        "reuse": Setting(int, 0, "1: keep the subtree of the position reached at the next "
                         "move (found among the tree's stored states) and search on from it; "
                         "0: a new tree every move", low=0, high=1),
        "memory": Setting(int, None, "the most nodes the tree may grow to (it starts at "
                          f"{INITIAL_NODES} and doubles when full; the search stops when it "
                          f"cannot grow); default {MAX_DEFAULT_NODES}, or less on a machine "
                          "whose memory a quarter of would not hold that; about 70 bytes a "
                          "node plus an eighth of a state, at most the machine's memory",
                          low=dispatch.MAX_ACTIONS + 2, memory=tree_bytes),
        "seed": Setting(int, 0, "random seed", low=0),
    }

    def __init__(self, **options):
        super().__init__(**options)
        if self.options["simulations"] == 0 and self.options["time"] == 0:
            raise AgentError("mcts: give a budget: simulations > 0 or time > 0")
        if self.options["policy"] == "uct":
            given = [k for k in UCT_FIXED if k in options]
            if given:
                raise AgentError(f"mcts: policy=uct fixes {', '.join(UCT_FIXED)} (plain UCT); "
                                 f"drop {given[0]}= or use policy=informed")

    def exploration(self):
        """Return the UCT exploration constant: the `c` setting, else the policy's default."""
        if self.options["c"] is not None:
            return self.options["c"]
        return UCT_C if self.options["policy"] == "uct" else INFORMED_C

    def _search_settings(self):
        """Return (cutoff, minimax weight, priors (NO_PRIORS, PRIORS or PRIORS_EXPAND_FIRST, plus
        DROP_TRANSPOSED with turn_order=1),
        solver, draw_eval, evaluation id) of the policy."""
        o = self.options
        if o["policy"] == "uct":
            return -1, 0.0, NO_PRIORS, 0, 0.0, dispatch.HAND
        priors = NO_PRIORS if not o["priors"] else PRIORS_EXPAND_FIRST if o["expand"] else PRIORS
        if o["turn_order"]:
            priors |= DROP_TRANSPOSED
        return (o["cutoff"], o["minimax"], priors, o["solver"], o["draw_eval"],
                dispatch.EVALUATIONS[o["eval"]])

    def search_functions(self, game):
        """Return the jitted entries this agent's searches of `game` run: (`init_root`, `run`
        without its `evaluation` and `plays_out` arguments). Those and the game are compile-time
        constants (`for_game`): a search compiles only the evaluation it scores leaves by, and
        no playout when it plays none."""
        cutoff, *_, evaluation = self._search_settings()
        return for_game(init_root, game), for_game(run, game, evaluation=evaluation,
                                                   plays_out=int(cutoff != 0))

    def reset(self, seed=None):
        """Start a new game: forget the tree (its arrays stay allocated, at the size they had
        grown to, so a new game's moves do not pay for growing them again) and reseed."""
        self._rng = new_rng(self.options["seed"] if seed is None else seed)
        self._has_tree = False

    def memory_cap(self, state_size=None):
        """Return the most nodes the tree may grow to: the `memory` setting, else its default
        (`default_memory`) for states of `state_size` words."""
        if self.options["memory"] is not None:
            return self.options["memory"]
        return default_memory(state_size)

    def _tree_for(self, game_id, state_size):
        if self._tree is None or self._tree_game != (game_id, state_size):
            memory = self.memory_cap(state_size)
            what = f"setting memory={memory} ({state_size}-word states)"
            check_memory("mcts", what, tree_bytes(memory, state_size))
            self._tree = None
            first = min(memory, INITIAL_NODES)
            try:
                self._tree = Tree(first, state_size)
            except MemoryError:
                raise AgentError(f"mcts: {what}: the tree's first {tree_bytes(first, state_size)} "
                                 "bytes could not be allocated (too little free memory)") from None
            self._tree_game = (game_id, state_size)
            self._has_tree = False
            self._scratch = np.zeros(state_size, dtype=np.uint64)
            self._buf = np.zeros(dispatch.MAX_ACTIONS, dtype=np.int32)
            self._path = np.zeros(MAX_PATH, dtype=np.int64)
        return self._tree

    def _grow_tree(self):
        """Double the full tree, up to `memory_cap()` nodes; return False if it cannot grow (at
        the cap, or too little free memory)."""
        tree = self._tree
        cap = self.memory_cap(tree.pool.shape[1])
        if tree.max_nodes >= cap:
            return False
        try:
            self._tree = tree.grown(min(cap, 2 * tree.max_nodes))
        except MemoryError:
            return False
        return True

    def _stats(self, simulations, elapsed, nodes=0, depth=0, root_visits=0, visits=(),
               proven=None, reused=0, stopped="none"):
        """Return a `last_stats` dict (every key of STATS_KEYS)."""
        return {
            "simulations": simulations, "nodes": nodes, "depth": depth, "time": elapsed,
            "simulations_per_second": simulations / elapsed if elapsed > 0 else 0.0,
            "root_visits": root_visits, "visits": list(visits), "proven": proven,
            "reused_nodes": reused, "stopped": stopped,
        }

    def _dropped_at(self, node, legal):
        """Return the legal actions (of the position of tree node `node`) that are not among
        its children: those its expansion dropped as transposed (`turn_order=1`)."""
        tree = self._tree
        f, n = int(tree.first_child[node]), int(tree.n_children[node])
        if f < 0 or n == len(legal):
            return []
        present = set(tree.action[f:f + n].tolist())
        return [int(a) for a in legal if int(a) not in present]

    def select_action(self, state):
        """Return the most visited root action after the search (the state is not changed).

        Raises SearchInterrupted (a KeyboardInterrupt) on Ctrl-C, after setting `last_stats`."""
        game_id, array = check_state(state)
        start = time.perf_counter()
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_stats = self._stats(0, time.perf_counter() - start,
                                          stopped="single legal action")
            return legal[0]
        tree = self._tree_for(game_id, array.size)
        arrays = tree.arrays()
        make_root, search = self.search_functions(game_id)
        reused = 0
        if self.options["reuse"] and self._has_tree:
            queue = np.empty(tree.max_nodes, dtype=np.int64)
            node = find_node(array, tree.first_child, tree.n_children, tree.slot, tree.pool, queue)
            if node > 0:
                missing = self._dropped_at(node, legal)
                if int(tree.ctl[NODES]) + len(missing) <= tree.max_nodes:
                    new_index = np.empty(tree.max_nodes, dtype=np.int64)
                    reused = int(keep_subtree(node, *arrays, queue, new_index, len(missing)))
                    if missing:
                        _, _, priors, solver, draw_eval, evaluation = self._search_settings()
                        for_game(add_root_children, game_id, evaluation=evaluation)(
                            *arrays, np.array(missing, dtype=np.int32), len(missing), draw_eval,
                            solver, priors & PRIORS_MODES, self._rng, self._scratch)
                    prove_root(tree.parent, tree.first_child, tree.n_children, tree.n_tried,
                               tree.mover, tree.player, tree.proven, tree.ctl)
            elif node == 0:  # the same position: the whole tree is kept
                reused = int(tree.ctl[NODES])
                tree.ctl[MAX_DEPTH] = 0  # `depth` is this search's, as after keep_subtree
        if reused == 0:
            make_root(array, *arrays)
        self._has_tree = True
        ctl = tree.ctl
        budget = self.options["time"]
        deadline = start + budget if budget > 0 else np.inf
        sims = self.options["simulations"] or np.iinfo(np.int64).max
        sims_before = int(ctl[SIMS])
        cutoff, weight, priors, solver, draw_eval, _ = self._search_settings()
        with Interrupts(ctl, INTERRUPTED, RUNNING) as interrupts:
            while True:  # `run` leaves ctl[RUNNING] set: a Ctrl-C while the tree grows, too,
                # only sets the flag
                stop = search(
                    *tree.arrays(), sims - (int(ctl[SIMS]) - sims_before), deadline,
                    self.exploration(), draw_eval, cutoff, weight, solver, priors, self._rng,
                    self._scratch, self._buf, self._path)
                if stop != STOP_MEMORY or ctl[INTERRUPTED]:
                    break
                if time.perf_counter() >= deadline:  # full as time ran out: growing it
                    stop = STOP_TIME  # would only overrun the move's time
                    break
                if not self._grow_tree():
                    break
                tree = self._tree  # the same tree (and ctl) in bigger arrays: search on
            ctl[RUNNING] = 0
        stopped = STOP_NAMES[int(stop)]
        if interrupts.interrupted:  # set on leaving `Interrupts` whenever ctl[INTERRUPTED] is
            stopped = STOP_NAMES[STOP_INTERRUPTED]
        simulations = int(ctl[SIMS]) - sims_before
        if tree.n_children[0] <= 0 or tree.first_child[0] < 0:
            # Not even the root was expanded (stopped at once): answer with any legal action.
            action = int(legal[0])
            self.last_stats = self._stats(simulations, time.perf_counter() - start,
                                          nodes=int(ctl[NODES]), root_visits=int(tree.visits[0]),
                                          reused=reused, stopped=stopped)
        else:
            child = best_child(tree.first_child, tree.n_children, tree.visits, tree.proven, ctl)
            action = int(tree.action[child])
            f, n = int(tree.first_child[0]), int(tree.n_children[0])
            ranked = sorted(range(f, f + n), key=lambda c: -int(tree.visits[c]))[:10]
            self.last_stats = self._stats(
                simulations, time.perf_counter() - start, nodes=int(ctl[NODES]),
                depth=int(ctl[MAX_DEPTH]), root_visits=int(tree.visits[0]),
                visits=[(int(tree.action[c]), int(tree.visits[c]),
                         float(tree.value[c] / tree.visits[c]) if tree.visits[c] else 0.0)
                        for c in ranked],
                proven={1: "win", -1: "loss"}.get(int(ctl[ROOT_PROVEN]), None),
                reused=reused, stopped=stopped)
        interrupts.deliver(f"{self.spec()}: search interrupted after {simulations} "
                           "simulations", action, self.last_stats)
        return action
