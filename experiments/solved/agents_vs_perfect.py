"""Agents against perfect play: how often each agent throws a won position away.

Positions are sampled from random games on a solved board (both colours, every decision:
steps and wash choices), solved by df-pn; on each position won for the side to move, each
agent chooses its action once and df-pn solves the result: the agent erred if the side that
moved no longer wins. Shares with Wilson 95 % intervals.

    nice python experiments/solved/agents_vs_perfect.py [--board 4x4] [--max-turns 7] [--positions 200]
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
          "alphabeta:depth=5", "alphabeta:time=0.1", "mcts:simulations=100", "mcts:simulations=1000",
          "mcts:simulations=10000", "mcts:time=0.1"]


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


def main():
    from agents.registry import make_agent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="4x4")
    parser.add_argument("--max-turns", type=int, default=7)
    parser.add_argument("--positions", type=int, default=200, help="won positions to test")
    parser.add_argument("--agents", nargs="+", default=AGENTS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=os.path.join(HERE, "agents_vs_perfect.json"))
    args = parser.parse_args()
    game = ludo_flow.load_game("flow", max_turns=args.max_turns)
    start = game.from_string(BOARDS[args.board])
    prover = Prover(64 << 20)
    won = []
    for state in sample_positions(game, start, args.positions, args.seed):
        if solve(state, prover=prover)[0].value == "win":
            won.append(state)
        if len(won) >= args.positions:
            break
    print(len(won), "won positions", flush=True)
    rows = []
    for spec in args.agents:
        agent = make_agent(spec, game)
        agent.reset(seed=args.seed)
        errors, t = 0, time.monotonic()
        for state in won:
            mover = state.current_player()
            child = state.clone()
            child.apply(agent.select_action(state.clone()))
            value = solve(child, prover=prover)[0].value
            still_won = value == ("win" if child.current_player() == mover else "loss")
            errors += not still_won
        low, high = wilson(errors, len(won))
        row = {"agent": spec, "positions": len(won), "errors": errors, "share": round(errors / len(won), 4),
               "low": round(low, 4), "high": round(high, 4), "seconds": round(time.monotonic() - t, 1)}
        print(row, flush=True)
        rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"board": args.board, "position": BOARDS[args.board], "max_turns": args.max_turns,
                   "rows": rows, "code": code_version(),
                   "command": " ".join(["python", "experiments/solved/agents_vs_perfect.py"] + sys.argv[1:])},
                  f, indent=1)


if __name__ == "__main__":
    main()
