"""How many of the default MCTS's expanded nodes hold a state that another node also holds.

    python experiments/mcts_strength/transpositions.py [--time 0.1] [--games 6] [--every 12]

The tree has no transposition table: two move orders that reach the same position (in Flow,
the two steps of a turn taken in either order; in Tolkuchka, two independent moves of a side)
make two nodes that are searched apart. For the positions of the first `--games` games of
round 5's 0.1 s records (every `--every`-th ply from the fifth), the default `mcts` searches
`--time` seconds; then the stored states of its expanded nodes (the pool, one row per expanded
node) are compared whole, and the share of rows equal to an earlier row is a node's work that
a table would have shared. Prints the median, minimum and maximum share per game.
"""
import argparse
import json
import os

import ludo_flow
from agents import make_agent
from agents.mcts import SLOTS

HERE = os.path.dirname(os.path.abspath(__file__))


def duplicate_shares(game_name, seconds, games, every):
    """Return the share of duplicate expanded states in each searched position."""
    path = os.path.join(HERE, "records", game_name, "vs_alphabeta_0.1s.jsonl")
    with open(path) as fh:
        records = [json.loads(line) for line in fh][:games]
    game = ludo_flow.load_game(game_name)
    agent = make_agent(f"mcts:simulations=0,time={seconds}", game)
    agent.select_action(game.new_initial_state())  # load the search before timing anything
    shares = []
    for record in records:
        state = game.from_string(record["start"])
        for ply, move in enumerate(record["opening"] + record["moves"]):
            if ply % every == 5 and not state.is_terminal():
                agent.select_action(state)
                tree = agent._tree
                rows = tree.pool[:int(tree.ctl[SLOTS])]
                distinct = {row.tobytes() for row in rows}
                shares.append(1.0 - len(distinct) / len(rows))
            state.apply(state.parse_action(move))
    return shares


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=0.1, help="seconds a search")
    parser.add_argument("--games", type=int, default=6, help="records read per game")
    parser.add_argument("--every", type=int, default=12, help="plies between two positions")
    args = parser.parse_args()
    if args.time <= 0 or args.games < 1 or args.every < 6:
        parser.error("--time must be above 0, --games at least 1, --every at least 6")
    for game_name in ("flow", "tolkuchka"):
        shares = sorted(duplicate_shares(game_name, args.time, args.games, args.every))
        print(f"{game_name}: {len(shares)} positions, duplicate expanded states: median "
              f"{100 * shares[len(shares) // 2]:.1f} %, min {100 * shares[0]:.1f} %, "
              f"max {100 * shares[-1]:.1f} %")


if __name__ == "__main__":
    main()
