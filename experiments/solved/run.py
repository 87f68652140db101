"""Solve Flow's small boards: for each board, the shortest forced win (in turns) from the start.

For N = 1, 2, ... turns (`max_turns` = N) the start is solved by df-pn until one side's win is
proven (a win within N turns is a win of every longer game, and of the game without a turn
limit) or the board's time budget runs out (it then stays open: no forced win within the last
N solved). Each published value gets a certificate, checked here by the reference engine
before it is written. Then alpha-beta searches the same start positions, to set its nodes/s
beside df-pn's.

    nice python experiments/solved/run.py [--budget SECONDS] [--boards NAME ...]
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import ludo_flow  # noqa: E402
from common import code_version  # noqa: E402
from ludo_flow.render import board_field  # noqa: E402
from ludo_flow.solve import certificate, make_certificate, solve  # noqa: E402


def pattern(width, height):
    """Return the start of RULES.md's small-board pattern: pawns on files a, c, e, ... of each
    side's first two ranks, Black on the same files as White."""
    chars = {}
    for f in range(0, width, 2):
        for r in (0, 1):
            chars[r * 8 + f] = "P"
            chars[(height - 1 - r) * 8 + f] = "p"
    return board_field(width, height, chars) + " w 1 - 0"


BOARDS = {f"{w}x{h}": pattern(w, h) for w, h in ((4, 4), (5, 4), (4, 5), (6, 4), (4, 6), (5, 5),
                                                  (6, 5), (5, 6), (6, 6))}
BOARDS["fountain"] = ludo_flow.FlowGame.variants["fountain"]
BOARDS["stones"] = ludo_flow.FlowGame.variants["stones"]
del BOARDS["5x5"]  # the fountain variant is the 5x5 pattern


def solve_board(name, text, budget, memory, max_n, first_n=1):
    """Return the board's row: the ladder of N from `first_n`, the shortest win or where it
    stopped. Start above 1 only where the rungs below are known draws: a draw within N turns
    is a draw within every fewer, but a win found first at `first_n` may be shorter."""
    rows, started = [], time.monotonic()
    for n in range(first_n, max_n + 1):
        left = budget - (time.monotonic() - started)
        if left <= 0:
            break
        game = ludo_flow.load_game("flow", max_turns=n)
        state = game.from_string(text)
        solution, prover = solve(state, memory=memory, time_limit=left)
        row = {"max_turns": n, "value": solution.value, "nodes": solution.nodes,
               "seconds": round(solution.seconds, 2),
               "nodes_per_s": round(solution.nodes / max(solution.seconds, 1e-9))}
        print(name, row, flush=True)
        rows.append(row)
        if solution.value == "unknown":
            break
        if solution.value != "draw":
            t = time.monotonic()
            cert = make_certificate(prover, state, solution.value)
            path = os.path.join(HERE, "certificates", f"{name}-turns{n}.json.gz")
            certificate.write(path, cert)
            value, walked = certificate.verify(certificate.read(path))
            assert value == solution.value
            row.update(proof_size=cert["size"], certificate=os.path.relpath(path, HERE),
                       verify_seconds=round(time.monotonic() - t, 1))
            print(name, "certificate", cert["size"], "positions, verified", flush=True)
            break
    return {"board": name, "position": text, "ladder": rows}


def alphabeta_speed(text, seconds):
    """Return alpha-beta's nodes, time and nodes/s on a start position (one timed search)."""
    from agents.alphabeta import MAX_PLY
    from agents.registry import make_agent
    game = ludo_flow.load_game("flow")
    state = game.from_string(text)
    spec = f"alphabeta:depth={MAX_PLY - 1},time={seconds}"
    make_agent("alphabeta:depth=2", game).select_action(state.clone())  # compile first
    agent = make_agent(spec, game)
    agent.select_action(state)
    stats = agent.last_stats
    return {"nodes": int(stats["nodes"]), "seconds": round(float(stats["time"]), 2),
            "depth": int(stats["depth"]), "nodes_per_s": round(stats["nodes"] / max(stats["time"], 1e-9))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=600, help="seconds per board")
    parser.add_argument("--memory", type=int, default=512 << 20, help="table bytes")
    parser.add_argument("--max-turns", type=int, default=40)
    parser.add_argument("--from-turns", type=int, default=1,
                        help="first rung of the ladder (the rungs below known to be draws)")
    parser.add_argument("--boards", nargs="+", default=list(BOARDS))
    parser.add_argument("--speed-only", action="store_true", help="only alpha-beta's nodes/s")
    parser.add_argument("--out", default=os.path.join(HERE, "results.json"))
    args = parser.parse_args()
    os.makedirs(os.path.join(HERE, "certificates"), exist_ok=True)
    results = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            results = json.load(f)
    results.setdefault("boards", {})
    for name in args.boards:
        if args.speed_only:
            row = results["boards"][name]
        else:
            row = solve_board(name, BOARDS[name], args.budget, args.memory, args.max_turns, args.from_turns)
        row["alphabeta"] = alphabeta_speed(BOARDS[name], 5.0)
        print(name, "alphabeta", row["alphabeta"], flush=True)
        results["boards"][name] = row
        results["code"] = code_version()
        results["command"] = " ".join(["python", "experiments/solved/run.py"] + sys.argv[1:])
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
