"""The jitted MCTS search: simulations of select / expand / evaluate / back up over a `Tree`.

A simulation walks down from the root (`select` picks each child by UCT), expands the first
node it meets that has no children (`expand`: every child at once, shuffled), scores the leaf
it ends at (`evaluate`, or the expansion's one-ply search with `expand=1`) and adds the result
to every node on its path (`back_up`). See the package's docstring for the settings.
"""
from typing import NamedTuple

import numpy as np
from numba import njit, uint64

from ludo_flow import dispatch, network
from ludo_flow.memory import unowned
from ludo_flow.rng import next_u64
from ludo_flow.specialize import game_jit

from ..clock import now
from .tree import (INTERRUPTED, MAX_DEPTH, NODES, ROOT_PROVEN, RUNNING, SIMS, SLOTS,
                   best_child_value, propagate, unowned_tree)

# Why a search stopped (what `run` returns). STOP_MEMORY: the tree has no room for another
# expansion (the agent grows it, up to `memory`); STOP_PATH: a selection path reached MAX_PATH
# plies (growing the tree would not help).
STOP_NONE, STOP_BUDGET, STOP_TIME, STOP_MEMORY, STOP_PROVEN, STOP_INTERRUPTED, STOP_PATH = range(7)
STOP_NAMES = {STOP_NONE: "none", STOP_BUDGET: "simulations", STOP_TIME: "time",
              STOP_MEMORY: "memory full", STOP_PROVEN: "root proven",
              STOP_INTERRUPTED: "interrupted", STOP_PATH: "path too deep"}
MAX_PATH = 4096
_CHECK_EVERY = 64  # simulations between two reads of the clock (and checks for Ctrl-C)
_TABLE = 8192  # visit counts below this use the precomputed 1/n and 1/sqrt(n)
# `Settings.priors`: no priors; priors, a leaf scored at its first visit and expanded at its
# second; priors, a leaf expanded at its first visit (setting expand=1).
NO_PRIORS, PRIORS, PRIORS_EXPAND_FIRST = 0, 1, 2


class Settings(NamedTuple):
    """What a search does, from the agent's settings (`MCTSAgent.search_settings`). The
    evaluation and whether leaves are played out are not here: `run` takes them as
    compile-time constants (`MCTSAgent.search_functions`)."""

    c_uct: float
    """The UCT exploration constant (values are in [-1, 1])."""
    cutoff: int
    """Plies of random playout before a new leaf is scored by the evaluation (0: the leaf
    itself; -1: play to the end)."""
    weight: float
    """The weight of the implicit minimax value against the mean result in selection (0: off)."""
    priors: int
    """NO_PRIORS, PRIORS or PRIORS_EXPAND_FIRST (the settings `priors` and `expand`)."""
    drop_transposed: int
    """1: an inner node drops the decisions whose position the tree also reaches by another
    order of the same player's decisions (`dispatch.drop_transposed`; setting turn_order)."""
    solver: int
    """1: prove wins and losses in the tree."""
    draw_eval: float
    """A playout's draw counts draw_eval x evaluate(final position)."""


class Work(NamedTuple):
    """The work arrays of a search (the agent's, kept between moves)."""

    scratch: np.ndarray
    """uint64 [W]: a state (W words): a new leaf's, played out in place."""
    buf: np.ndarray
    """int32 [MAX_ACTIONS]: the legal actions of the node being expanded."""
    path: np.ndarray
    """int64 [L]: the nodes of the current selection path, root first; a path of L plies
    stops the search (STOP_PATH; the agent's is MAX_PATH)."""
    net: network.Net
    """The value network of eval=net:FILE (weights and its scratch); None for the other
    evaluations, so their search holds none of the network's arrays: an unread empty `Net`
    here cost their reference counts in every simulation and child (paired against the search
    before the network, bench_versions.py --rows mcts --clock cpu: 0.90 Flow, 0.85 Tolkuchka
    with it, 0.97 and 0.89 without, where the benchmark's own bias is 0.955 and 0.907)."""


@game_jit()
def _outcome_value(game, evaluation, code, s, draw_eval, net):
    """Return White's value of a playout that ended with `code` in position `s` (a draw or a
    cut-off scored by the evaluation `evaluation`, a dispatch.EVALUATIONS id or NET)."""
    if code == dispatch.WHITE_WINS:
        return 1.0
    if code == dispatch.BLACK_WINS:
        return -1.0
    if code == dispatch.DRAW:
        return draw_eval * network.evaluate(game, s, evaluation, net) if draw_eval != 0.0 else 0.0
    return network.evaluate(game, s, evaluation, net)  # cut off before the end


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
def _back_up_minimax(path, depth, first_child, n_tried, mover, player, proven, term, minimax):
    """Recompute the minimax value (White's view) of each expanded node on `path[:depth]`,
    deepest first, from its tried children (a proven child counts as its result); return None.
    (The Tree's arrays taken apart: a call passes each array it takes, and this is called
    every simulation.)"""
    for i in range(depth - 1, -1, -1):
        x = path[i]
        if term[x] != 0:
            continue
        # int64 counts, as the expansion passes: one compiled signature, not one per integer type
        minimax[x] = best_child_value(np.int64(first_child[x]), np.int64(n_tried[x]), player[x],
                                      mover, proven, minimax)


@game_jit(inline="always")
def _new_child(game, evaluation, tree, settings, ch, node, a, me, s, work):
    """Make node `ch` a new child of `node` (state `s`, player `me` to move) by action `a`:
    unvisited, unexpanded; with priors, scored by its evaluation, or by its result if it ends
    the game (proven, with the solver, unless drawn); return None. (`work`: its scratch
    state and network.)"""
    tree.parent[ch] = node
    tree.action[ch] = a
    tree.first_child[ch] = -1
    tree.n_children[ch] = 0
    tree.n_tried[ch] = 0
    tree.visits[ch] = 0
    tree.value[ch] = 0.0
    tree.mover[ch] = me
    tree.player[ch] = 0
    tree.proven[ch] = 0
    tree.term[ch] = 0
    tree.minimax[ch] = 0.0
    tree.slot[ch] = -1
    if settings.priors:  # (as apply, result and evaluate; Flow's usual step writes no state)
        code, v = network.child_outcome(game, s, a, evaluation, work.net, work.scratch)
        if code == dispatch.ONGOING:
            tree.minimax[ch] = v
        else:
            tree.term[ch] = code
            if code == dispatch.DRAW:  # as _outcome_value scores a draw
                draw_eval = settings.draw_eval
                v = draw_eval * v if draw_eval != 0.0 else 0.0
            tree.minimax[ch] = v
            if settings.solver and code != dispatch.DRAW:
                tree.proven[ch] = 1 if (code == dispatch.WHITE_WINS) == (me == 0) else -1


@game_jit()
def add_root_children(game, evaluation, tree, settings, actions, m, rng, work):
    """Give the expanded root the `m` new children `actions[:m]` (shuffled), in the entries
    `keep_subtree(..., extra=m)` left after its children; return None.

    A kept root was an inner node of the last search, whose expansion may have dropped
    transposed decisions (`turn_order=1`): at the root they are the player's own choices."""
    _shuffle(actions, m, rng)
    f = tree.first_child[0] + tree.n_children[0]
    s = tree.pool[tree.slot[0]]
    for i in range(m):
        _new_child(game, evaluation, tree, settings, f + i, 0, actions[i], tree.player[0], s,
                   work)
    tree.n_children[0] += m
    if settings.priors:
        tree.n_tried[0] = tree.n_children[0]


@game_jit()
def run(game, tree, settings, evaluation, plays_out, sim_limit, deadline, rng, work):
    """Run simulations until `sim_limit` more are done or a stop (time, memory, proven root,
    Ctrl-C). `plays_out` is 1 if `settings.cutoff` is not 0 (a new leaf is played out), else 0:
    bound as a constant with the evaluation (`MCTSAgent.search_functions`), it leaves the
    playout code out of a search that scores its leaves at once.

    Returns the stop reason (STOP_*). The tree must have been made by `init_root` (or kept).
    It leaves ctl[RUNNING] set: the caller clears it when it stops searching (it may grow the
    tree and search on), so a Ctrl-C that CPython hands to Python just as this returns still
    only sets the flag."""
    tree.ctl[RUNNING] = 1  # a Ctrl-C now only sets ctl[INTERRUPTED] (see clock.Interrupts)
    return _simulate(game, tree, settings, evaluation, plays_out, sim_limit, deadline, rng, work)


@njit(cache=True, inline="always")
def _select(tree, settings, node, uct):
    """Return the child of the expanded `node` a simulation goes to: the next untried child (in
    their shuffled order), else a proven win, else the best UCT score among those not proven
    lost (any child if all are). `uct` holds the tables of 1/n, 1/sqrt(n), sqrt(log n)."""
    f = tree.first_child[node]
    if tree.n_tried[node] < tree.n_children[node]:
        child = f + tree.n_tried[node]
        tree.n_tried[node] += 1
        return child
    inverse, inverse_sqrt, sqrt_log = uct
    visits = tree.visits
    value = tree.value
    proven = tree.proven
    minimax = tree.minimax
    weight = settings.weight
    child = -1
    best = -1.0e300
    here = visits[node]
    explore = settings.c_uct * (sqrt_log[here] if here < _TABLE else np.sqrt(np.log(here)))
    # The children's minimax values, White's view, turned to their mover's.
    sign = 1.0 if tree.player[node] == 0 else -1.0
    mix = sign * weight
    for ch in range(f, f + tree.n_children[node]):
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
    return child


@game_jit(inline="always")
def _expand(game, evaluation, tree, settings, node, rng, work):
    """Store the state of the unexpanded `node` and make all its children at once (shuffled);
    with priors and the solver, carry their proofs up. Return (False, whether `node` was met
    for the first time: it is then scored by its best child), or (True, False) when the tree
    has no room (nothing is changed)."""
    ctl = tree.ctl
    pool = tree.pool
    slot = tree.slot
    parent = tree.parent
    player = tree.player
    buf = work.buf
    if ctl[SLOTS] >= pool.shape[0] or ctl[NODES] + dispatch.MAX_ACTIONS > tree.parent.size:
        return True, False
    first_visit = False
    if node != 0:
        k = ctl[SLOTS]
        dispatch.apply(game, pool[slot[parent[node]]], tree.action[node], pool[k])
        slot[node] = k
        ctl[SLOTS] = k + 1
        if tree.visits[node] == 0:  # expanded at its first visit (expand_first)
            player[node] = dispatch.current_player(game, pool[k])
            first_visit = True
    s = pool[slot[node]]
    n = dispatch.legal_actions(game, s, buf)
    if settings.drop_transposed and node != 0 and tree.mover[node] == player[node]:
        # Not at the root: there the earlier decision of the turn is made.
        n = dispatch.drop_transposed(game, pool[slot[parent[node]]], s, tree.action[node], buf, n)
    _shuffle(buf, n, rng)
    f = ctl[NODES]
    me = player[node]
    for i in range(n):
        _new_child(game, evaluation, tree, settings, f + i, node, buf[i], me, s, work)
    tree.first_child[node] = f
    tree.n_children[node] = n
    # With priors every child has a value: UCT chooses among them from the start.
    tree.n_tried[node] = n if settings.priors else 0
    ctl[NODES] = f + n
    if settings.priors and settings.solver:
        for ch in range(f, f + n):
            if tree.proven[ch] != 0:
                propagate(tree, ch)
                if tree.proven[node] != 0 or ctl[ROOT_PROVEN] != 0:
                    break
    return False, first_visit


@game_jit(inline="always")
def _evaluate(game, evaluation, plays_out, tree, settings, node, rng, work):
    """Score the unexpanded `node` at its first visit: make its state from its parent's, then
    its result if the game is over there (proven, with the solver, unless drawn), else its
    evaluation or a playout's result (`cutoff`). Return (White's value, `node` if it was
    newly proven else -1)."""
    scratch = work.scratch
    net = work.net
    pool = tree.pool
    minimax = tree.minimax
    draw_eval = settings.draw_eval
    newly_proven = -1
    dispatch.apply(game, pool[tree.slot[tree.parent[node]]], tree.action[node], scratch)
    tree.player[node] = dispatch.current_player(game, scratch)
    code = dispatch.result(game, scratch)
    if code != dispatch.ONGOING:
        tree.term[node] = code
        minimax[node] = _outcome_value(game, evaluation, code, scratch, draw_eval, net)
        r = minimax[node]
        if settings.solver and code != dispatch.DRAW:
            winner = 0 if code == dispatch.WHITE_WINS else 1
            tree.proven[node] = 1 if winner == tree.mover[node] else -1
            newly_proven = node
    else:
        if settings.weight > 0.0 or plays_out == 0:
            minimax[node] = network.evaluate(game, scratch, evaluation, net)
        if plays_out == 0:  # the leaf itself is scored (cutoff 0)
            r = minimax[node]
        else:
            code = dispatch.playout_in_place(game, scratch, rng, settings.cutoff)
            r = _outcome_value(game, evaluation, code, scratch, draw_eval, net)
    return r, newly_proven


@njit(cache=True, inline="always")
def _back_up(tree, settings, path, depth, r, expanded_leaf, newly_proven):
    """Add White's result `r` to every node on `path[:depth + 1]` (with its mover's sign),
    recompute their minimax values (the leaf's too if `expanded_leaf`), record the depth and
    carry a new proof (`newly_proven`, -1 for none) up; return None."""
    visits = tree.visits
    value = tree.value
    mover = tree.mover
    for i in range(depth + 1):
        x = path[i]
        visits[x] += 1
        if i > 0:
            value[x] += r if mover[x] == 0 else -r
    if settings.weight > 0.0:  # the leaf too, if it was expanded
        _back_up_minimax(path, depth + 1 if expanded_leaf else depth, tree.first_child,
                         tree.n_tried, mover, tree.player, tree.proven, tree.term, tree.minimax)
    ctl = tree.ctl
    if depth > ctl[MAX_DEPTH]:
        ctl[MAX_DEPTH] = depth
    if newly_proven >= 0:
        propagate(tree, newly_proven)


@game_jit()
def _simulate(game, tree, settings, evaluation, plays_out, sim_limit, deadline, rng, work):
    """The body of `run`: simulations until a budget or a stop; return the stop reason.

    select / expand / evaluate / back up are inlined here (numba's `inline="always"`), so the
    compiled search stays one function: called instead, each passing the tree's fifteen arrays
    at every level of every simulation, they ran 0.77 times the simulations a second in Flow
    and 0.56 times in Tolkuchka (the default informed search; paired runs of
    benchmarks/bench_versions.py, --rows mcts --scale 0.25 --rounds 15)."""
    # Unowned views (ludo_flow.memory): the caller owns the arrays for the whole call.
    tree = unowned_tree(tree)
    work = Work(unowned(work.scratch), unowned(work.buf), unowned(work.path), work.net)
    path = work.path
    ctl = tree.ctl
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
    uct = (inverse, inverse_sqrt, sqrt_log)
    # With priors an unvisited node's evaluation is known (its parent's expansion scored it),
    # so a first visit that only scored it again would learn nothing: it is expanded at once.
    expand_first = settings.priors == PRIORS_EXPAND_FIRST
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
        expanded_leaf = False
        while True:
            if node != 0 and tree.proven[node] != 0:
                r = 1.0 if (tree.proven[node] == 1) == (tree.mover[node] == 0) else -1.0
                break
            if tree.term[node] != 0:
                r = tree.minimax[node]
                break
            if tree.first_child[node] < 0:
                if node != 0 and tree.visits[node] == 0 and not expand_first:
                    r, newly_proven = _evaluate(game, evaluation, plays_out, tree, settings, node,
                                                rng, work)
                    break
                full, expanded_leaf = _expand(game, evaluation, tree, settings, node, rng, work)
                if full:
                    return STOP_MEMORY
                if expanded_leaf:  # the simulation ends here, scored by a one-ply search
                    r = best_child_value(np.int64(tree.first_child[node]),
                                         np.int64(tree.n_children[node]), tree.player[node],
                                         tree.mover, tree.proven, tree.minimax)
                    break
            node = _select(tree, settings, node, uct)
            depth += 1
            if depth >= path.size:
                return STOP_PATH
            path[depth] = node
        _back_up(tree, settings, path, depth, r, expanded_leaf, newly_proven)
        done += 1
        ctl[SIMS] += 1
