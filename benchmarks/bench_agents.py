"""Search speed: MCTS simulations/s and alpha-beta nodes/s on one core, both games.

    python benchmarks/bench_agents.py [--repeats 5] [--out benchmarks/results/agents.json]

MCTS runs from each game's start as plain UCT (`policy=uct`: uniform random playouts to the end,
which the informed settings do not touch, so its figures compare across versions); the
rate counts simulations of one `select_action` call. Alpha-beta runs with the evaluation on
and a node budget (depth unlimited), so the rate counts nodes: states whose actions were
generated or which were evaluated. A second alpha-beta figure searches a fixed suite of 16
positions (seeded random play of 2 to 23 plies from the start, the same every run) to a
fixed depth with a fresh agent each, and divides all their nodes by all their time: the
start alone is one position, and the rate differs from position to position. The first call of each (compilation, or loading from
numba's cache) is timed apart; rates are medians of the repeats (wall clock, one process).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, report, timed  # noqa: E402

import ludo_flow  # noqa: E402
from agents import make_agent  # noqa: E402
from ludo_flow import dispatch  # noqa: E402
from ludo_flow.rng import new_rng  # noqa: E402


def search_rate(game, spec, work, extra, repeats):
    """Return (median `work` stat per second, all rates, the `extra` stat of the last run).

    Each repeat builds the agent `spec` with seed i and times one select_action from the start."""
    state = game.new_initial_state()
    rates = []
    last = 0
    for i in range(repeats):
        agent = make_agent(f"{spec},seed={i}", game)
        start = time.perf_counter()
        agent.select_action(state)
        rates.append(agent.last_stats[work] / (time.perf_counter() - start))
        last = agent.last_stats[extra]
    return float(np.median(rates)), rates, last


@njit(cache=True)
def playout_batch(game_id, state, rng, playouts):
    """Return the total plies of `playouts` random playouts from `state` through the dispatch."""
    buf = np.empty(dispatch.MAX_ACTIONS, dtype=np.int32)
    plies = 0
    for _ in range(playouts):
        s = state.copy()
        while True:
            a = dispatch.random_action(game_id, s, rng, buf)
            if a < 0:
                break
            dispatch.apply(game_id, s, a, s)
            plies += 1
    return plies


@njit(cache=True)
def mcts_playout_batch(game_id, state, rng, playouts):
    """Return the sum of result codes of `playouts` playouts as MCTS plays them."""
    total = 0
    for _ in range(playouts):
        total += dispatch.playout_in_place(game_id, state.copy(), rng, -1)
    return total


SUITE_DEPTH = {"flow": 6, "tolkuchka": 11}


def suite_lines(game, count=16, seed=11, plies=(2, 24)):
    """Return `count` action lists, each a seeded random game of plies[0] to plies[1] - 1 plies
    from the start that leads to an ongoing position."""
    rng = np.random.default_rng(seed)
    lines = []
    while len(lines) < count:
        state = game.new_initial_state()
        line = []
        for _ in range(int(rng.integers(*plies))):
            actions = state.legal_actions()
            if not actions:
                break
            line.append(int(rng.choice(actions)))
            state.apply(line[-1])
        if not state.is_terminal():
            lines.append(line)
    return lines


def replay_line(game, line):
    """Return the State reached from the start by the actions of `line`."""
    state = game.new_initial_state()
    for action in line:
        state.apply(action)
    return state


def suite_positions(game, count=16, seed=11):
    """Return `count` ongoing positions reached by seeded random play of 2 to 23 plies."""
    return [replay_line(game, line) for line in suite_lines(game, count, seed)]


def suite_rate(game, depth, repeats):
    """Return (median nodes/s over the suite searched to `depth`, all rates, nodes per run)."""
    positions = suite_positions(game)
    rates = []
    nodes = 0
    for _ in range(repeats):
        nodes = 0
        seconds = 0.0
        for state in positions:
            agent = make_agent(f"alphabeta:depth={depth}", game)
            start = time.perf_counter()
            agent.select_action(state)
            seconds += time.perf_counter() - start
            nodes += agent.last_stats["nodes"]
        rates.append(nodes / seconds)
    return float(np.median(rates)), rates, nodes


def playout_rate(game, playouts, repeats):
    """Return (median playouts/s of the MCTS playouts, median playouts/s of the kernels'
    random_action + apply loop, mean plies per playout): bare playouts, no tree."""
    start_state = game.new_initial_state().array
    rng = new_rng(3)
    playout_batch(game.game_id, start_state, rng, 1)
    mcts_playout_batch(game.game_id, start_state, rng, 1)
    fast = []
    plain = []
    plies = 0
    for _ in range(repeats):
        start = time.perf_counter()
        mcts_playout_batch(game.game_id, start_state, rng, playouts)
        fast.append(playouts / (time.perf_counter() - start))
        start = time.perf_counter()
        plies = playout_batch(game.game_id, start_state, rng, playouts)
        plain.append(playouts / (time.perf_counter() - start))
    return float(np.median(fast)), float(np.median(plain)), plies / playouts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--simulations", type=int, default=50000, help="MCTS simulations per run")
    parser.add_argument("--nodes", type=int, default=3000000, help="alpha-beta nodes per run")
    parser.add_argument("--out", default="benchmarks/results/agents.json")
    args = parser.parse_args()
    payload = {"machine": machine(), "repeats": args.repeats,
               "command": "python benchmarks/bench_agents.py " + " ".join(sys.argv[1:])}
    rows = []
    for name in ("flow", "tolkuchka"):
        game = ludo_flow.load_game(name)
        s = game.new_initial_state()
        _, first = timed(lambda: (make_agent("mcts:simulations=10", game).select_action(s),
                                  make_agent("alphabeta:depth=2", game).select_action(s),
                                  dispatch.playout_in_place(game.game_id, s.array.copy(), new_rng(0), 5)))
        sims, sims_all, tree_nodes = search_rate(game, f"mcts:simulations={args.simulations},policy=uct",
                                                  "simulations", "nodes", args.repeats)
        nps, nps_all, depth = search_rate(game, f"alphabeta:depth=60,nodes={args.nodes}",
                                          "nodes", "depth", args.repeats)
        suite_depth = SUITE_DEPTH[name]
        suite_nps, suite_all, suite_nodes = suite_rate(game, suite_depth, args.repeats)
        bare, plain, plies = playout_rate(game, 20000, args.repeats)
        payload[name] = {
            "first_call_seconds": first,
            "mcts_simulations": args.simulations, "mcts_simulations_per_second": sims,
            "mcts_runs": sims_all, "mcts_tree_nodes": tree_nodes,
            "alphabeta_nodes": args.nodes, "alphabeta_nodes_per_second": nps,
            "alphabeta_runs": nps_all, "alphabeta_depth_reached": depth,
            "alphabeta_suite_depth": suite_depth, "alphabeta_suite_nodes": suite_nodes,
            "alphabeta_suite_nodes_per_second": suite_nps, "alphabeta_suite_runs": suite_all,
            "bare_playouts_per_second": bare, "kernel_loop_playouts_per_second": plain,
            "mean_playout_plies": plies,
        }
        rows += [
            (f"{name}: compile or cache load (first calls)", f"{first:.2f} s"),
            (f"{name}: MCTS simulations/s (start, {args.simulations:,} sims)", f"{sims:,.0f}"),
            (f"{name}: MCTS's playouts alone, per second ({plies:.0f} plies each)", f"{bare:,.0f}"),
            (f"{name}: random_action + apply playouts/s", f"{plain:,.0f}"),
            (f"{name}: alpha-beta nodes/s (start, {args.nodes:,} nodes, depth {depth})", f"{nps:,.0f}"),
            (f"{name}: alpha-beta nodes/s (16 positions, depth {suite_depth}, {suite_nodes:,} nodes)",
             f"{suite_nps:,.0f}"),
        ]
    report(f"Agents benchmark (median of {args.repeats}, one core)", rows, payload, args.out)


if __name__ == "__main__":
    main()
