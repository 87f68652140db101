"""How many of the default MCTS's expanded nodes hold a state that another node also holds.

    python experiments/mcts_strength/transpositions.py [--time 0.1] [--games 6] [--every 12]

The tree has no transposition table: two move orders that reach the same position (in Flow,
the two steps of a turn taken in either order; in Tolkuchka, two independent moves of a side)
make two nodes that are searched apart. For the positions of the first `--games` games of
the equal-time 0.1 s records, `records/GAME/vs_alphabeta_0.1s.jsonl.gz` (every `--every`-th ply
from the fifth), the default `mcts` searches
`--time` seconds; then the stored states of its expanded nodes (the pool, one row per expanded
node) are compared whole, and the share of rows equal to an earlier row is a node's work that
a table would have shared. Prints the median, minimum and maximum share per game.

    python experiments/mcts_strength/transpositions.py --turns [--positions 40]

counts, from Flow positions at the start of a turn (seeded random games), every sequence of
the player's decisions to the end of the turn and the distinct positions they reach, and how
many second steps `dispatch.drop_transposed` drops (MCTS's `turn_order=1`).
"""
import argparse
import json
import os
import random

import numpy as np

import ludo_flow
from agents import make_agent
from agents.mcts import SLOTS
from ludo_flow import dispatch

HERE = os.path.dirname(os.path.abspath(__file__))


def duplicate_shares(game_name, seconds, games, every):
    """Return the share of duplicate expanded states in each searched position."""
    path = os.path.join(HERE, "records", game_name, "vs_alphabeta_0.1s.jsonl.gz")
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


def turn_orders(positions, seed=1):
    """Return (sequences, distinct positions, second steps, second steps dropped) summed over
    `positions` Flow positions at the start of a turn, met after 6-40 random decisions."""
    game = ludo_flow.load_game("flow")
    rng = random.Random(seed)
    buf = np.zeros(dispatch.MAX_ACTIONS, dtype=np.int32)
    totals = [0, 0, 0, 0]
    found = 0
    while found < positions:
        state = game.new_initial_state()
        for _ in range(rng.randint(6, 40)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal() or state.step != 1:
            continue
        found += 1
        me = state.current_player()
        ends = []
        stack = [state]
        while stack:
            s = stack.pop()
            if s.is_terminal() or s.current_player() != me:
                ends.append(s.to_string() if not s.is_terminal() else len(ends))  # an end is its own
                continue
            stack.extend(s.child(a) for a in s.legal_actions())
        totals[0] += len(ends)
        totals[1] += len(set(ends))
        for a in state.legal_actions():
            after = state.child(a)
            if after.is_terminal() or after.current_player() != me:
                continue
            legal = after.legal_actions()
            buf[:len(legal)] = legal
            kept = dispatch.drop_transposed(game.game_id, state.array, after.array, a, buf, len(legal))
            totals[2] += len(legal)
            totals[3] += len(legal) - int(kept)
    return tuple(totals)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=0.1, help="seconds a search")
    parser.add_argument("--games", type=int, default=6, help="records read per game")
    parser.add_argument("--every", type=int, default=12, help="plies between two positions")
    parser.add_argument("--turns", action="store_true", help="count a Flow turn's orders instead")
    parser.add_argument("--positions", type=int, default=40, help="positions, with --turns")
    args = parser.parse_args()
    if args.turns:
        if args.positions < 1:
            parser.error("--positions must be at least 1")
        sequences, distinct, seconds, dropped = turn_orders(args.positions)
        print(f"flow: {args.positions} positions at a turn's start: {sequences} sequences of the "
              f"player's decisions to the turn's end reach {distinct} distinct positions "
              f"({100 * distinct / sequences:.1f} %); drop_transposed drops {dropped} of "
              f"{seconds} second steps ({100 * dropped / seconds:.1f} %)")
        return
    if args.time <= 0 or args.games < 1 or args.every < 6:
        parser.error("--time must be above 0, --games at least 1, --every at least 6")
    for game_name in ("flow", "tolkuchka"):
        shares = sorted(duplicate_shares(game_name, args.time, args.games, args.every))
        print(f"{game_name}: {len(shares)} positions, duplicate expanded states: median "
              f"{100 * shares[len(shares) // 2]:.1f} %, min {100 * shares[0]:.1f} %, "
              f"max {100 * shares[-1]:.1f} %")


if __name__ == "__main__":
    main()
