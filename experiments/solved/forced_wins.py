"""A suite of solved positions: forced wins in N turns that alpha-beta at a matching depth must
keep (tests/agents/test_forced_wins.py).

Positions are met in random games on the solved small boards (both colours, every decision:
first and second steps, wash choices). For each, df-pn finds the shortest forced win N of the
side to move (turns counted from the current one: `max_turns` = turns completed + N, and no
win with one turn fewer); only positions where some legal action throws the win away are
kept. Each is stored with N, its proof (the certificate, checked by the reference engine), the
proof's depth in decisions (the longest line of the proof: alpha-beta searching that many
plies sees every line of that winning strategy end in a win) and the shortest win in decisions
(`shortest_win_plies`, a depth-limited AND/OR search: the least depth at which alpha-beta can
see a forced win at all).

    nice python experiments/solved/forced_wins.py [--per-turns 4] [--max-n 5] [--out forced_wins.json.gz]
"""
import argparse
import gzip
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import ludo_flow  # noqa: E402
from common import code_version  # noqa: E402
from ludo_flow.solve import Prover, certificate, make_certificate, solve  # noqa: E402
from ludo_flow.solve.solver import shortest_win_plies  # noqa: E402
from run import BOARDS  # noqa: E402

SAMPLE_TURNS = 40  # the games sampled are played under this turn limit


def replay(text, after, max_turns):
    """Return the Flow State of a position string and the actions after it, for `max_turns`."""
    state = ludo_flow.load_game("flow", max_turns=max_turns).from_string(text)
    for word in after:
        state.apply(state.parse_action(word))
    return state


def random_positions(text, games, rng):
    """Yield (position string, actions after it) of every ongoing decision in random games from
    `text` (a choose phase is named by the position before its step and the step)."""
    for _ in range(games):
        state = replay(text, [], SAMPLE_TURNS)
        origin, after = text, []
        while not state.is_terminal():
            yield origin, list(after)
            action = rng.choice(state.legal_actions())
            word = state.action_to_string(action)
            state.apply(action)
            if state.choosing:
                after.append(word)
            else:
                origin, after = state.to_string(), []


def shortest_win(prover, text, after, max_n):
    """Return (N, state) of the shortest forced win of the side to move within `max_n` turns
    (N counts the current turn), or (None, None)."""
    turns = replay(text, after, SAMPLE_TURNS).turns
    for n in range(1, max_n + 1):
        state = replay(text, after, turns + n)
        value = solve(state, prover=prover)[0].value
        if value == "win":
            return n, state
        if value == "loss":
            return None, None
    return None, None


def losing_actions(prover, state):
    """Return the legal actions (in notation) after which the side to move no longer wins."""
    mover, out = state.current_player(), []
    for action in state.legal_actions():
        child = state.child(action)
        value = solve(child, prover=prover)[0].value
        if value != ("win" if child.current_player() == mover else "loss"):
            out.append(state.action_to_string(action))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["4x4", "6x4", "4x5"])
    parser.add_argument("--per-turns", type=int, default=4, help="positions per board and N")
    parser.add_argument("--max-n", type=int, default=5)
    parser.add_argument("--games", type=int, default=400, help="random games sampled per board")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=os.path.join(HERE, "forced_wins.json.gz"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    prover = Prover(64 << 20)
    rows, started = [], time.monotonic()
    for board in args.boards:
        wanted = {n: args.per_turns for n in range(1, args.max_n + 1)}
        seen = set()
        for text, after in random_positions(BOARDS[board], args.games, rng):
            if not any(wanted.values()):
                break
            if (text, tuple(after)) in seen or rng.random() > 0.3:
                continue
            seen.add((text, tuple(after)))
            n, state = shortest_win(prover, text, after, args.max_n)
            if n is None or not wanted[n]:
                continue
            losing = losing_actions(prover, state)
            if not losing:
                continue
            cert = make_certificate(prover, state, "win", origin=(text, after) if after else None)
            certificate.verify(cert)
            depth = certificate.claim_depth(certificate.root_position(cert), cert["claims"][0])
            shortest = shortest_win_plies(state, depth)
            wanted[n] -= 1
            rows.append({"board": board, "position": text, "after": after, "turns": n,
                         "max_turns": cert["max_turns"], "plies": depth, "shortest_plies": shortest, "legal": len(state.legal_actions()),
                         "losing": losing, "proof_size": cert["size"], "certificate": cert})
            print(board, n, depth, shortest, text, after, len(losing), "of", len(state.legal_actions()), flush=True)
    rows.sort(key=lambda r: (r["turns"], r["board"], r["plies"]))
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        json.dump({"positions": rows, "code": code_version(),
                   "seconds": round(time.monotonic() - started, 1),
                   "command": " ".join(["python", "experiments/solved/forced_wins.py"] + sys.argv[1:])},
                  out, separators=(",", ":"), sort_keys=True)
    print(len(rows), "positions", flush=True)


if __name__ == "__main__":
    main()
