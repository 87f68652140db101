"""MCTS: UCT informed by the game's evaluation, the tree in preallocated arrays inside jitted code.

Files: `tree.py` the tree (one bundle of arrays, `Tree`) and what makes, cuts and reads it;
`search.py` the jitted search (select / expand / evaluate / back up); `agent.py` `MCTSAgent`.

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
INITIAL_NODES and doubles when full (`tree.grown`), and when it may not grow further the
search stops cleanly and answers from what it has. `reuse=1` keeps the subtree of
the position reached at the next move (found by comparing states, up to 16 plies down).
Every `_CHECK_EVERY` simulations the search reads the clock (`clock.now`, with or without a
time budget), which is also where a Ctrl-C is seen (`clock.Interrupts`): the search stops
between two simulations, and `select_action` raises `SearchInterrupted` with the most visited
root action so far.
"""
from .search import (MAX_PATH, NO_PRIORS, PRIORS, PRIORS_EXPAND_FIRST, STOP_BUDGET,
                     STOP_INTERRUPTED, STOP_MEMORY, STOP_NAMES, STOP_NONE, STOP_PATH, STOP_PROVEN,
                     STOP_TIME, Settings, Work, add_root_children, run)
from .tree import (CTL_SIZE, FIND_DEPTH, INITIAL_NODES, INTERRUPTED, MAX_DEFAULT_NODES, MAX_DEPTH,
                   NODE_BYTES, NODES, REUSE_BYTES, ROOT_PROVEN, RUNNING, SIMS, SLOTS, STOP, Tree,
                   best_child, default_memory, find_node, grown, init_root, keep_subtree,
                   principal_variation, prove_root, tree_arrays, tree_bytes)
from .agent import INFORMED_C, POLICIES, UCT_C, UCT_FIXED, MCTSAgent

__all__ = ["MCTSAgent", "Tree", "Settings", "Work", "init_root", "run", "add_root_children",
           "best_child", "find_node", "keep_subtree", "prove_root", "principal_variation",
           "grown", "tree_arrays", "tree_bytes", "default_memory", "INITIAL_NODES",
           "MAX_DEFAULT_NODES", "INFORMED_C", "UCT_C", "POLICIES", "UCT_FIXED", "NO_PRIORS",
           "PRIORS", "PRIORS_EXPAND_FIRST", "NODES", "SLOTS", "SIMS", "STOP", "MAX_DEPTH",
           "ROOT_PROVEN", "INTERRUPTED", "RUNNING", "CTL_SIZE", "FIND_DEPTH", "MAX_PATH",
           "NODE_BYTES", "REUSE_BYTES", "STOP_NONE", "STOP_BUDGET", "STOP_TIME", "STOP_MEMORY",
           "STOP_PROVEN", "STOP_INTERRUPTED", "STOP_PATH", "STOP_NAMES"]


# The bits that packed the priors mode and the dropping of transposed steps into one argument.
_MOVED = {"DROP_TRANSPOSED": None, "PRIORS_MODES": None}


def __getattr__(name):
    """Answer a name that is gone (ludo_flow.moved)."""
    from ludo_flow.moved import moved
    return moved(__name__, _MOVED, name, "the search settings are fields of agents.mcts.Settings "
                 "(priors, drop_transposed), no longer bits of one argument")
