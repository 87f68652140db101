"""The MCTS tree: one bundle of preallocated arrays (`Tree`), and the jitted functions that make,
read and cut it without searching (root, kept subtree, proofs, the move to play).

Node i has a parent, the action that led to it, a contiguous block of children (allocated all
at once when the node is expanded, in a seeded random order), a visit count, a value sum and a
minimax value. The value sum of a node is kept from the view of its *mover*, the player who
chose the action into it (the player to move at the parent), so the backup adds White's result
with the mover's sign: this stays right when the same player decides twice in a row (Flow's
second step and wash choices). Expanded nodes keep their state in a pool, so a simulation
replays at most one action.

A tree starts at INITIAL_NODES nodes (or `memory`, if smaller) and doubles whenever it is full
(`grown`), up to `memory` nodes: a long think is not cut short by a tree sized for a short one
(at 1 s a move the informed search fills 2^20 nodes of Flow in well under the second), and a
short one does not allocate a tree sized for a long one.
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from ludo_flow import dispatch
from ludo_flow.memory import unowned
from ludo_flow.registry import ENTRIES
from ludo_flow.specialize import game_jit

# Slots of the int64 control array `Tree.ctl`. INTERRUPTED is set by the SIGINT handler while
# RUNNING is set (see clock.Interrupts).
NODES, SLOTS, SIMS, STOP, MAX_DEPTH, ROOT_PROVEN, INTERRUPTED, RUNNING = range(8)
CTL_SIZE = 8
FIND_DEPTH = 16  # plies below the root `find_node` looks for a position
INITIAL_NODES = 1 << 20  # the nodes a tree starts with
MAX_DEFAULT_NODES = 1 << 23  # the most nodes a tree grows to by default (`default_memory`)

# Bytes a tree node takes in the Tree's arrays (parent, action, first_child, n_children,
# n_tried, slot: int32; visits: int64; value, minimax: float64; mover, player, proven,
# term: int8), plus the two int64 work arrays of a reuse; the state pool adds an eighth of a
# state per node (`tree_bytes`).
NODE_BYTES = 6 * 4 + 8 + 2 * 8 + 4 * 1
REUSE_BYTES = 2 * 8


class Tree(NamedTuple):
    """The arrays of one search tree (numpy, shared with the jitted code, which takes the tree as
    this one bundle). N is the tree's capacity in nodes (`max_nodes`), S the pool's rows (an
    eighth of N, at least 64), W the words of the game's state. Node 0 is the root; a node's
    index is always above its parent's. "Mover" is the player who chose the action into a node
    (the player to move at its parent); players are 0 (White) and 1 (Black)."""

    parent: np.ndarray
    """int32 [N]: the node's parent (-1 for the root)."""
    action: np.ndarray
    """int32 [N]: the action that led from the parent to the node (-1 for the root)."""
    first_child: np.ndarray
    """int32 [N]: the first of the node's children, which are contiguous (-1: not expanded)."""
    n_children: np.ndarray
    """int32 [N]: how many children the node has (0 until it is expanded)."""
    n_tried: np.ndarray
    """int32 [N]: how many of its children selection may compare by UCT: all of them with
    priors, else those tried so far (untried ones are taken first, in their shuffled order)."""
    visits: np.ndarray
    """int64 [N]: simulations that passed through the node."""
    value: np.ndarray
    """float64 [N]: the sum of those simulations' results from the mover's view (each in
    [-1, 1]; the mean is value / visits)."""
    mover: np.ndarray
    """int8 [N]: the player who chose the action into the node (the root's is 0, unused)."""
    player: np.ndarray
    """int8 [N]: the player to move at the node (known once its state has been made)."""
    proven: np.ndarray
    """int8 [N]: 1 if the node is a proven win for its mover, -1 a proven loss, 0 unproven
    (the root's proof is in ctl[ROOT_PROVEN] instead)."""
    term: np.ndarray
    """int8 [N]: the node's game result code (dispatch.WHITE_WINS, BLACK_WINS, DRAW) if the
    game is over there, else 0."""
    minimax: np.ndarray
    """float64 [N]: White's view: a leaf's evaluation (or result), an expanded node's max
    (White to move) or min over its tried children (implicit minimax backups)."""
    slot: np.ndarray
    """int32 [N]: the pool row holding the node's state (-1: not stored; expanded nodes are)."""
    pool: np.ndarray
    """uint64 [S, W]: the states of expanded nodes, one row each, handed out in the order the
    nodes were expanded (ctl[SLOTS] rows are used)."""
    ctl: np.ndarray
    """int64 [CTL_SIZE]: counters and flags shared with the search and the Ctrl-C handler:
    ctl[NODES] nodes used, ctl[SLOTS] pool rows used, ctl[SIMS] simulations run, ctl[STOP]
    unused, ctl[MAX_DEPTH] the deepest selection path, ctl[ROOT_PROVEN] 1 / -1 when the root is
    proven won / lost for its player, ctl[INTERRUPTED] and ctl[RUNNING] (clock.Interrupts)."""

    @property
    def max_nodes(self):
        """The tree's capacity in nodes."""
        return self.parent.size


def tree_arrays(max_nodes, state_size, ctl=None):
    """Return the arrays of an empty `Tree` of `max_nodes` nodes for states of `state_size`
    words, in the order of its fields (`Tree(*tree_arrays(...))`; uninitialised but for `ctl`,
    a new zeroed one unless given; `init_root` makes the root). Raises MemoryError if they
    cannot be allocated."""
    pool = max(64, max_nodes // 8)
    arrays = {}
    for name, dtype in (("parent", np.int32), ("action", np.int32), ("first_child", np.int32),
                        ("n_children", np.int32), ("n_tried", np.int32), ("visits", np.int64),
                        ("value", np.float64), ("mover", np.int8), ("player", np.int8),
                        ("proven", np.int8), ("term", np.int8), ("minimax", np.float64),
                        ("slot", np.int32)):
        arrays[name] = np.empty(max_nodes, dtype=dtype)
    arrays["pool"] = np.empty((pool, state_size), dtype=np.uint64)
    arrays["ctl"] = np.zeros(CTL_SIZE, dtype=np.int64) if ctl is None else ctl
    return [arrays[name] for name in Tree._fields]


def grown(tree, max_nodes):
    """Return a Tree of `max_nodes` nodes (more than `tree`'s) holding `tree`; its `ctl` is the
    same array (a Ctrl-C handler holding it still reaches it)."""
    bigger = Tree(*tree_arrays(max_nodes, tree.pool.shape[1], ctl=tree.ctl))
    n = int(tree.ctl[NODES])
    for name in Tree._fields:
        if name not in ("pool", "ctl"):
            getattr(bigger, name)[:n] = getattr(tree, name)[:n]
    slots = int(tree.ctl[SLOTS])
    bigger.pool[:slots] = tree.pool[:slots]
    return bigger


def tree_bytes(max_nodes, state_size=None):
    """Return the bytes of a tree of `max_nodes` nodes for states of `state_size` words (None:
    the largest state of any registered game), with the work arrays of a reuse."""
    if state_size is None:
        state_size = max(e.state_size for e in ENTRIES)
    pool = max(64, max_nodes // 8)
    return max_nodes * (NODE_BYTES + REUSE_BYTES) + pool * state_size * 8


def default_memory(state_size=None):
    """Return the default of the `memory` setting for states of `state_size` words (None: the
    largest of any registered game): MAX_DEFAULT_NODES, or the largest power of two whose
    tree takes at most a quarter of the machine's memory, if that is smaller."""
    from ..base import machine_memory
    nodes = MAX_DEFAULT_NODES
    quarter = machine_memory() // 4
    while nodes > INITIAL_NODES and tree_bytes(nodes, state_size) > quarter:
        nodes //= 2
    return nodes


@njit(cache=True, inline="always")
def unowned_tree(t):
    """Return `t` as unowned views (see ludo_flow.memory): the Python caller owns the arrays for
    the whole search, so the search needs no reference counting of them."""
    return Tree(unowned(t.parent), unowned(t.action), unowned(t.first_child),
                unowned(t.n_children), unowned(t.n_tried), unowned(t.visits), unowned(t.value),
                unowned(t.mover), unowned(t.player), unowned(t.proven), unowned(t.term),
                unowned(t.minimax), unowned(t.slot), unowned(t.pool), unowned(t.ctl))


@game_jit()
def init_root(game, tree, root):
    """Make `tree` a one-node tree whose root is the state `root`; return None."""
    ctl = tree.ctl
    ctl[:] = 0
    tree.parent[0] = -1
    tree.action[0] = -1
    tree.first_child[0] = -1
    tree.n_children[0] = 0
    tree.n_tried[0] = 0
    tree.visits[0] = 0
    tree.value[0] = 0.0
    tree.mover[0] = 0
    tree.player[0] = dispatch.current_player(game, root)
    tree.proven[0] = 0
    tree.term[0] = 0
    tree.minimax[0] = 0.0
    tree.slot[0] = 0
    pool = tree.pool
    for k in range(root.size):  # not a slice assignment: see alphabeta.search
        pool[0, k] = root[k]
    ctl[NODES] = 1
    ctl[SLOTS] = 1


@njit(cache=True)
def propagate(tree, node):
    """Carry a newly proven result of `node` up the tree as far as it decides parents; return
    None."""
    parent = tree.parent
    proven = tree.proven
    x = node
    while x != 0 and proven[x] != 0:
        p = parent[x]
        if proven[x] == 1:
            win_for_player = 1
        else:
            if tree.n_tried[p] < tree.n_children[p]:
                return
            f = tree.first_child[p]
            for c in range(f, f + tree.n_children[p]):
                if proven[c] != -1:
                    return
            win_for_player = -1
        if p == 0:
            tree.ctl[ROOT_PROVEN] = win_for_player
            return
        proven[p] = win_for_player if tree.mover[p] == tree.player[p] else -win_for_player
        x = p


@njit(cache=True)
def best_child_value(f, n, player, mover, proven, minimax):
    """Return the best minimax value (White's view) for `player` (0 White) among the n nodes
    from f, a proven node counting as its result (`mover`, `proven`, `minimax`: the Tree's
    arrays; taken apart, not as the tree, since the search calls this at every level of every
    simulation and a call passes each array it takes)."""
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
def best_child(tree):
    """Return the root child to play: a proven win, else the most visited not proven lost."""
    proven = tree.proven
    visits = tree.visits
    f = tree.first_child[0]
    n = tree.n_children[0]
    if tree.ctl[ROOT_PROVEN] == 1:
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


def principal_variation(tree, first, length):
    """Return the actions of the most visited line from the root: the root child `first`, then
    at each node its most visited child (the first of equals), while that child was visited;
    at most `length` actions."""
    line = [int(tree.action[first])]
    node = first
    while len(line) < length:
        f, n = int(tree.first_child[node]), int(tree.n_children[node])
        if f < 0 or n <= 0:
            break
        child = f + int(np.argmax(tree.visits[f:f + n]))
        if tree.visits[child] <= 0:
            break
        line.append(int(tree.action[child]))
        node = child
    return line


@njit(cache=True)
def find_node(tree, state, queue):
    """Return the expanded node whose stored state equals `state` (breadth first, at most
    FIND_DEPTH plies down), or -1; `queue` is a work array of the tree's size."""
    first_child = tree.first_child
    slot = tree.slot
    pool = tree.pool
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
        for ch in range(f, f + tree.n_children[x]):
            if first_child[ch] >= 0 and tail < queue.size:
                queue[tail] = ch
                tail += 1
    return -1


@njit(cache=True)
def keep_subtree(tree, new_root, new_slot, new_index, extra):
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
    parent = tree.parent
    first_child = tree.first_child
    slot = tree.slot
    pool = tree.pool
    ctl = tree.ctl
    n = ctl[NODES]
    # The gap goes after the root's last child: every node keeps an index above its parent's.
    last_root_child = first_child[new_root] + tree.n_children[new_root] - 1
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
        tree.action[i] = tree.action[x]
        first_child[i] = new_index[first_child[x]] if first_child[x] >= 0 else -1
        tree.n_children[i] = tree.n_children[x]
        tree.n_tried[i] = tree.n_tried[x]
        tree.visits[i] = tree.visits[x]
        tree.value[i] = tree.value[x]
        tree.mover[i] = tree.mover[x]
        tree.player[i] = tree.player[x]
        tree.proven[i] = tree.proven[x]
        tree.term[i] = tree.term[x]
        tree.minimax[i] = tree.minimax[x]
        slot[i] = new_slot[slot[x]] if slot[x] >= 0 else -1
    ctl[NODES] = k
    ctl[SLOTS] = n_slots
    ctl[MAX_DEPTH] = 0
    return k


@njit(cache=True)
def prove_root(tree):
    """Decide a kept root from its children, as an expansion does: carried up from its proven
    children, a won or lost root stops the next search at once instead of its sampling proven
    nodes; return None."""
    tree.proven[0] = 0
    tree.ctl[ROOT_PROVEN] = 0
    f = tree.first_child[0]
    if f >= 0:
        for ch in range(f, f + tree.n_children[0]):
            if tree.proven[ch] != 0:
                propagate(tree, ch)
                if tree.ctl[ROOT_PROVEN] != 0:
                    break
