"""The MCTS agent: settings, the tree's allocation and growth, the kept tree, and the move
and statistics of each search (the search itself is in `search.py`, the tree in `tree.py`)."""
import time

import numpy as np

from ludo_flow import dispatch, network
from ludo_flow.rng import new_rng
from ludo_flow.specialize import for_game

from ..base import (PROGRESS_INTERVAL, PV_LENGTH, AgentError, BaseAgent, SearchProgress, Setting,
                    check_memory, check_state, load_evaluation, net_for)
from ..clock import Interrupts
from . import tree as tree_module
from .search import (MAX_PATH, NO_PRIORS, PRIORS, PRIORS_EXPAND_FIRST, STOP_INTERRUPTED,
                     STOP_MEMORY, STOP_NAMES, STOP_TIME, Settings, Work,
                     add_root_children, run)
from .tree import (INITIAL_NODES, INTERRUPTED, MAX_DEFAULT_NODES, MAX_DEPTH, NODES, ROOT_PROVEN,
                   RUNNING, SIMS, best_child, default_memory, find_node, grown, init_root,
                   keep_subtree,
                   principal_variation, prove_root, tree_arrays, tree_bytes)

POLICIES = ("informed", "uct")
# The exploration constant's defaults. The informed search's values are evaluations, which
# differ among siblings by about 0.05, so it explores less: c=0.3 with minimax=0.8 beat c=1.0
# with minimax=0.3 in an SPRT at 0.1 s a move in both games (experiments/mcts_strength).
# Plain UCT keeps the textbook-scale constant.
INFORMED_C, UCT_C = 0.3, 1.0
UCT_FIXED = ("cutoff", "minimax", "priors", "expand", "solver", "draw_eval", "eval",
             "turn_order")  # what policy=uct sets itself
GROWN, FULL, LATE = range(3)  # what `_grow_tree` did
# A doubling's time per node of the new tree until this agent has timed one (1 to 4 million nodes
# took 15-25 ns a node on a quiet machine, up to 85 under load).
GROW_SECONDS_PER_NODE = 50e-9


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
    - `score` (float or None): the mean value of the played root child, from the mover's view
      in [-1, 1] (a proven child that was never visited: its result, 1 or -1, else 0.0); None
      when no search ran or the root was never expanded
    - `pv` (list of int): the principal variation: the played action, then the most visited
      line below it, at most `PV_LENGTH` actions (only visited nodes; empty when the root
      was never expanded, the action alone for a single legal action)
    - `reused_nodes` (int): nodes kept from the previous move's tree (`reuse=1`)
    - `stopped` (str): why the search ended: "simulations" (the budget was run), "time",
      "memory full" (the tree is full), "root proven", "interrupted" (Ctrl-C:
      `select_action` raised SearchInterrupted), "path too deep" (a selection path reached
      MAX_PATH plies), "single legal action" (no search)

    Ctrl-C stops the search within `_CHECK_EVERY` simulations (see `clock.Interrupts`; main
    thread only) and raises `SearchInterrupted` carrying the most visited root action.

    `root_visit_counts()` gives the visits of every root child of the last search (all its
    legal actions), read from the tree after the search: a learner's policy target."""

    agent_name = "mcts"
    _tree = None  # allocated by the first search (`_tree_for`), kept by `reset`
    _tree_game = None
    _root_searched = False  # whether the tree's root is the last search's (root_visit_counts)
    STATS_KEYS = ("simulations", "nodes", "depth", "time", "simulations_per_second",
                  "root_visits", "visits", "proven", "score", "pv", "reused_nodes", "stopped")
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
                        "and the minimax values: texel (evaluate_tuned, fitted to self-play), "
                        "hand (the hand-set evaluate) or net:FILE (a value network's weights, "
                        "docs/learning.md)"),
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
        self._net_file = load_evaluation("mcts", self.options["eval"])
        self._grow_seconds_per_node = None  # the slowest doubling timed so far, per node

    def exploration(self):
        """Return the UCT exploration constant: the `c` setting, else the policy's default."""
        if self.options["c"] is not None:
            return self.options["c"]
        return UCT_C if self.options["policy"] == "uct" else INFORMED_C

    def search_settings(self):
        """Return (`Settings`, evaluation id) of the policy and settings."""
        o = self.options
        if o["policy"] == "uct":
            return Settings(c_uct=float(self.exploration()), cutoff=-1, weight=0.0,
                            priors=NO_PRIORS, drop_transposed=0, solver=0,
                            draw_eval=0.0), dispatch.HAND
        priors = NO_PRIORS if not o["priors"] else PRIORS_EXPAND_FIRST if o["expand"] else PRIORS
        settings = Settings(c_uct=float(self.exploration()), cutoff=int(o["cutoff"]),
                            weight=float(o["minimax"]), priors=priors,
                            drop_transposed=int(o["turn_order"]), solver=int(o["solver"]),
                            draw_eval=float(o["draw_eval"]))
        if self._net_file is not None:
            return settings, network.NET
        return settings, dispatch.EVALUATIONS[o["eval"]]

    def search_functions(self, game):
        """Return the jitted entries this agent's searches of `game` run: (`init_root`, `run`
        without its `evaluation` and `plays_out` arguments). Those and the game are compile-time
        constants (`for_game`): a search compiles only the evaluation it scores leaves by, and
        no playout when it plays none."""
        settings, evaluation = self.search_settings()
        return for_game(init_root, game), for_game(run, game, evaluation=evaluation,
                                                   plays_out=int(settings.cutoff != 0))

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
            # `Tree` and `INITIAL_NODES` are read from their module, where a test may replace them.
            first = min(memory, tree_module.INITIAL_NODES)
            try:
                self._tree = tree_module.Tree(*tree_arrays(first, state_size))
            except MemoryError:
                raise AgentError(f"mcts: {what}: the tree's first {tree_bytes(first, state_size)} "
                                 "bytes could not be allocated (too little free memory)") from None
            self._tree_game = (game_id, state_size)
            self._has_tree = False
            self._scratch = np.zeros(state_size, dtype=np.uint64)
            self._buf = np.zeros(dispatch.MAX_ACTIONS, dtype=np.int32)
            self._path = np.zeros(MAX_PATH, dtype=np.int64)
        return self._tree

    def _work(self, game_id):
        """Return the search's `Work` bundle: the work arrays and the network (eval=net; None
        for the games' own evaluations, whose search then has no network at all)."""
        net = None if self._net_file is None else net_for("mcts", self._net_file, game_id)
        return Work(self._scratch, self._buf, self._path, net)

    def _grow_tree(self, deadline):
        """Double the full tree, up to `memory_cap()` nodes. Return GROWN, FULL (at the cap, or
        too little free memory) or LATE: growing would end after `deadline`, judged by the
        slowest growth this agent has seen per node (copying and first touching a few million
        nodes takes 0.03-0.35 s, which overran a 0.6 s move by half its time)."""
        tree = self._tree
        cap = self.memory_cap(tree.pool.shape[1])
        if tree.max_nodes >= cap:
            return FULL
        size = min(cap, 2 * tree.max_nodes)
        start = time.perf_counter()
        per_node = self._grow_seconds_per_node
        if start + (GROW_SECONDS_PER_NODE if per_node is None else per_node) * size >= deadline:
            return LATE
        try:
            self._tree = grown(tree, size)
        except MemoryError:
            return FULL
        timed = (time.perf_counter() - start) / size
        self._grow_seconds_per_node = timed if per_node is None else max(per_node, timed)
        return GROWN

    def _stats(self, simulations, elapsed, **found):
        """Return a `last_stats` dict (every key of STATS_KEYS, in order): `found` gives the
        keys other than the simulations, the time and the rate."""
        stats = {"simulations": simulations, "nodes": 0, "depth": 0, "time": elapsed,
                 "simulations_per_second": simulations / elapsed if elapsed > 0 else 0.0,
                 "root_visits": 0, "visits": [], "proven": None, "score": None, "pv": [],
                 "reused_nodes": 0, "stopped": "none"}
        stats.update(found)
        return stats

    def _dropped_at(self, node, legal):
        """Return the legal actions (of the position of tree node `node`) that are not among
        its children: those its expansion dropped as transposed (`turn_order=1`)."""
        tree = self._tree
        f, n = int(tree.first_child[node]), int(tree.n_children[node])
        if f < 0 or n == len(legal):
            return []
        present = set(tree.action[f:f + n].tolist())
        return [int(a) for a in legal if int(a) not in present]

    def _child_score(self, child):
        """Return the mean value of root child `child` from the mover's view (a proven child
        the search never had to visit: its result, 1 or -1, else 0.0)."""
        tree = self._tree
        if tree.visits[child]:
            return float(tree.value[child] / tree.visits[child])
        return float(tree.proven[child])

    def _progress(self, start, sims_before):
        """Return the `SearchProgress` of the search so far (None before the root is expanded)."""
        tree = self._tree
        ctl = tree.ctl
        if tree.n_children[0] <= 0 or tree.first_child[0] < 0:
            return None
        child = best_child(tree)
        root_visits = int(tree.visits[0])
        return SearchProgress(
            "mcts", time.perf_counter() - start, int(tree.action[child]), self._child_score(child),
            tuple(principal_variation(tree, child, PV_LENGTH)), int(ctl[MAX_DEPTH]),
            int(ctl[NODES]), int(ctl[SIMS]) - sims_before,
            int(tree.visits[child]) / root_visits if root_visits else None)

    def root_visit_counts(self):
        """Return (actions, visits): int32 and int64 arrays, one entry per child of the last
        search's root (every legal action there), the visits the search gave it (kept ones
        included); both empty when the last move ran no search (a single legal action, or a
        search stopped before the root was expanded). Read from the tree, valid until the
        next `select_action`."""
        tree = self._tree
        if not self._root_searched or tree is None:
            return np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int64)
        f, n = int(tree.first_child[0]), int(tree.n_children[0])
        return tree.action[f:f + n].copy(), tree.visits[f:f + n].copy()

    def select_action(self, state, on_progress=None):
        """Return the most visited root action after the search (the state is not changed).

        `on_progress`, if given, is called with a `SearchProgress` about every
        `PROGRESS_INTERVAL` seconds of search (not for a single legal action): the search runs
        in slices of that length, and finds the same move with the same figures as without it.
        Raises SearchInterrupted (a KeyboardInterrupt) on Ctrl-C, after setting `last_stats`."""
        game_id, array = check_state(state)
        start = time.perf_counter()
        legal = state.legal_actions()
        self._root_searched = False
        if len(legal) == 1:
            self.last_stats = self._stats(0, time.perf_counter() - start, pv=[int(legal[0])],
                                          stopped="single legal action")
            return legal[0]
        tree = self._tree_for(game_id, array.size)
        make_root, search = self.search_functions(game_id)
        settings, evaluation = self.search_settings()
        reused = 0
        if self.options["reuse"] and self._has_tree:
            queue = np.empty(tree.max_nodes, dtype=np.int64)
            node = find_node(tree, array, queue)
            if node > 0:
                missing = self._dropped_at(node, legal)
                if int(tree.ctl[NODES]) + len(missing) <= tree.max_nodes:
                    new_index = np.empty(tree.max_nodes, dtype=np.int64)
                    reused = int(keep_subtree(tree, node, queue, new_index, len(missing)))
                    if missing:
                        for_game(add_root_children, game_id, evaluation=evaluation)(
                            tree, settings, np.array(missing, dtype=np.int32), len(missing),
                            self._rng, self._work(game_id))
                    prove_root(tree)
            elif node == 0:  # the same position: the whole tree is kept
                reused = int(tree.ctl[NODES])
                tree.ctl[MAX_DEPTH] = 0  # `depth` is this search's, as after keep_subtree
        if reused == 0:
            make_root(tree, array)
        self._has_tree = True
        ctl = tree.ctl
        budget = self.options["time"]
        deadline = start + budget if budget > 0 else np.inf
        sims = self.options["simulations"] or np.iinfo(np.int64).max
        sims_before = int(ctl[SIMS])
        work = self._work(game_id)
        with Interrupts(ctl, INTERRUPTED, RUNNING) as interrupts:
            while True:  # `run` leaves ctl[RUNNING] set: a Ctrl-C while the tree grows, too,
                # only sets the flag
                until = deadline
                if on_progress is not None:
                    until = min(deadline, time.perf_counter() + PROGRESS_INTERVAL)
                stop = search(tree, settings, sims - (int(ctl[SIMS]) - sims_before), until,
                              self._rng, work)
                if stop == STOP_TIME and until < deadline:  # a slice ended, not the move's time
                    progress = self._progress(start, sims_before)
                    if progress is not None:
                        on_progress(progress)
                    if time.perf_counter() < deadline:
                        continue
                    break
                if stop != STOP_MEMORY or ctl[INTERRUPTED]:
                    break
                growth = self._grow_tree(deadline)
                if growth == LATE:  # full as time runs out: growing it would overrun the move
                    stop = STOP_TIME
                if growth != GROWN:
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
                                          reused_nodes=reused, stopped=stopped)
        else:
            self._root_searched = True
            child = best_child(tree)
            action = int(tree.action[child])
            score = self._child_score(child)
            f, n = int(tree.first_child[0]), int(tree.n_children[0])
            ranked = sorted(range(f, f + n), key=lambda c: -int(tree.visits[c]))[:10]
            self.last_stats = self._stats(
                simulations, time.perf_counter() - start, nodes=int(ctl[NODES]),
                depth=int(ctl[MAX_DEPTH]), root_visits=int(tree.visits[0]),
                visits=[(int(tree.action[c]), int(tree.visits[c]),
                         float(tree.value[c] / tree.visits[c]) if tree.visits[c] else 0.0)
                        for c in ranked],
                proven={1: "win", -1: "loss"}.get(int(ctl[ROOT_PROVEN]), None), score=score,
                pv=principal_variation(tree, child, PV_LENGTH), reused_nodes=reused,
                stopped=stopped)
        interrupts.deliver(f"{self.spec()}: search interrupted after {simulations} "
                           "simulations", action, self.last_stats)
        return action
