"""Agents against perfect play: how often each agent throws a won position away.

Positions are sampled (both colours, every decision: steps and wash choices) from random games
(`--sample random`) or from the agents' own games (`--sample agents`: alpha-beta and MCTS of
the budget ladder against each other, after two random decisions) on a solved board, and
solved by df-pn; on each position won for the side to move, each agent chooses its action
once and df-pn solves the result: the agent erred if the side that moved no longer wins.
Shares with Wilson 95 % intervals. The default agents are the budget ladder's
(experiments/budget_ladder), whose Elo docs/strength.md sets beside these shares, and the
0.1 s budgets.

    nice python experiments/solved/agents_vs_perfect.py [--board 4x4] [--max-turns 7] [--positions 200]
    nice python experiments/solved/agents_vs_perfect.py --board 6x4 --max-turns 9 --sample agents \
        --positions 100 --out experiments/solved/agents_vs_perfect_6x4_agents.json
"""
import argparse
import json
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import ludo_flow  # noqa: E402
from common import code_version  # noqa: E402
from ludo_flow.solve import Prover, solve  # noqa: E402
from run import BOARDS  # noqa: E402

AGENTS = ["random", "alphabeta:depth=1", "alphabeta:depth=2", "alphabeta:depth=3", "alphabeta:depth=4",
          "alphabeta:depth=5", "alphabeta:depth=99,time=0.05", "alphabeta:depth=99,time=0.1",
          "mcts:simulations=100", "mcts:simulations=300", "mcts:simulations=1000", "mcts:simulations=3000",
          "mcts:simulations=10000", "mcts:simulations=0,time=0.05", "mcts:simulations=0,time=0.1"]
PLAYERS = ["alphabeta:depth=2", "alphabeta:depth=4", "mcts:simulations=300", "mcts:simulations=3000"]


def wilson(k, n):
    """Return the Wilson 95 % interval (low, high) of k successes in n."""
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def sample_positions(game, start, count, seed):
    """Return up to `count` distinct ongoing states met in random games from `start`."""
    rng = random.Random(seed)
    seen, out = set(), []
    for _ in range(50 * count):
        state = start.clone()
        while not state.is_terminal():
            key = (state.array[:15].tobytes(), state.choosing)
            if key not in seen:
                seen.add(key)
                out.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
        if len(out) >= 4 * count:
            break
    rng.shuffle(out)
    return out


def agent_positions(game, start, count, seed, players):
    """Return up to `count` distinct ongoing states met in games between `players` (every
    ordered pair in turn) from `start`, each game after two random decisions."""
    from agents.registry import make_agent
    rng = random.Random(seed)
    agents = [make_agent(spec, game) for spec in players]
    pairs = [(a, b) for a in agents for b in agents if a is not b]
    seen, out = set(), []
    for number in range(50 * count):
        white, black = pairs[number % len(pairs)]
        white.reset(seed=seed + 2 * number)
        black.reset(seed=seed + 2 * number + 1)
        state = start.clone()
        for _ in range(2):
            state.apply(rng.choice(state.legal_actions()))
        while not state.is_terminal():
            key = (state.array[:15].tobytes(), state.choosing)
            if key not in seen:
                seen.add(key)
                out.append(state.clone())
            state.apply((white, black)[state.current_player()].select_action(state.clone()))
        if len(out) >= 4 * count:
            break
    rng.shuffle(out)
    return out


def shortest_at_least(state, turns, prover):
    """Return whether the side to move of the won `state` has no forced win within `turns` - 1
    turns (counting the current one)."""
    from ludo_flow.flow import kernels as K
    if turns <= 1:
        return True
    limit = state.turns + turns - 1
    if limit >= state.game.params["max_turns"]:  # the win fits in the game: it is shorter
        return False
    array = state.array.copy()
    array[K.MAX_TURNS] = limit
    shorter = ludo_flow.load_game("flow", max_turns=limit).from_array(array)
    return solve(shorter, prover=prover)[0].value != "win"


def main():
    from agents.registry import make_agent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="4x4")
    parser.add_argument("--max-turns", type=int, default=7)
    parser.add_argument("--positions", type=int, default=200, help="won positions to test")
    parser.add_argument("--agents", nargs="+", default=AGENTS)
    parser.add_argument("--sample", choices=("random", "agents"), default="random",
                        help="positions from random games, or from games between --players")
    parser.add_argument("--players", nargs="+", default=PLAYERS, help="the agents whose games --sample agents reads")
    parser.add_argument("--far", type=int, default=1,
                        help="keep only positions whose shortest forced win takes at least this many turns")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=os.path.join(HERE, "agents_vs_perfect.json"))
    args = parser.parse_args()
    game = ludo_flow.load_game("flow", max_turns=args.max_turns)
    start = game.from_string(BOARDS[args.board])
    prover = Prover(256 << 20)
    sample = (sample_positions(game, start, args.positions, args.seed) if args.sample == "random"
              else agent_positions(game, start, args.positions, args.seed, args.players))
    print(len(sample), "positions sampled", flush=True)
    won = []
    for state in sample:
        if solve(state, prover=prover)[0].value == "win" and shortest_at_least(state, args.far, prover):
            won.append(state)
        if len(won) >= args.positions:
            break
    print(len(won), "won positions", flush=True)
    rows, values = [], {}

    def value_of(child):  # many agents choose the same move: solve each child once
        key = (child.array.tobytes(), child.choosing)
        if key not in values:
            values[key] = solve(child, prover=prover)[0].value
        return values[key]

    for spec in args.agents:
        agent = make_agent(spec, game)
        agent.reset(seed=args.seed)
        errors, t = 0, time.monotonic()
        for state in won:
            mover = state.current_player()
            child = state.clone()
            child.apply(agent.select_action(state.clone()))
            value = value_of(child)
            still_won = value == ("win" if child.current_player() == mover else "loss")
            errors += not still_won
        low, high = wilson(errors, len(won))
        row = {"agent": spec, "positions": len(won), "errors": errors, "share": round(errors / len(won), 4),
               "low": round(low, 4), "high": round(high, 4), "seconds": round(time.monotonic() - t, 1)}
        print(row, flush=True)
        rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"board": args.board, "position": BOARDS[args.board], "max_turns": args.max_turns,
                   "sample": args.sample, "far": args.far, "players": args.players if args.sample == "agents" else None,
                   "rows": rows, "code": code_version(),
                   "command": " ".join(["python", "experiments/solved/agents_vs_perfect.py"] + sys.argv[1:])},
                  f, indent=1)


if __name__ == "__main__":
    main()
