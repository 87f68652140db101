"""Solve Flow's small boards: for each board, the shortest forced win (in turns) from the start.

For N = 1, 2, ... turns (`max_turns` = N) the start is solved by df-pn until one side's win is
proven (a win within N turns is a win of every longer game, and of the game without a turn
limit) or the board's time budget runs out (it then stays open: no forced win within the last
N solved). Each published value gets a certificate, checked here by the reference engine
after it is written; `--certify` adds the proof that the win takes N turns (a `not win`
certificate at N - 1) to the boards already solved. Then alpha-beta searches the same start positions, to set its nodes/s
beside df-pn's.

    nice python experiments/solved/run.py [--budget SECONDS] [--boards NAME ...]
    nice python experiments/solved/run.py --certify --memory 268435456 --boards 4x4 6x4 4x5
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import ludo_flow  # noqa: E402
from common import code_version  # noqa: E402
from ludo_flow.render import board_field  # noqa: E402
from ludo_flow.solve import Prover, certificate, make_certificate, solve  # noqa: E402


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
                                                  (6, 5), (5, 6), (6, 6), (4, 7), (8, 4))}
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
        prover = None  # the last rung's table goes before this rung's is made: one table at a time
        solution, prover = solve(state, memory=memory, time_limit=left)
        row = {"max_turns": n, "value": solution.value, "nodes": solution.nodes,
               "seconds": round(solution.seconds, 2),
               "nodes_per_s": round(solution.nodes / max(solution.seconds, 1e-9))}
        print(name, row, flush=True)
        rows.append(row)
        if solution.value == "unknown":
            break
        if solution.value != "draw":
            row.update(write_certificate(prover, state, solution.value, f"{name}-turns{n}"))
            break
    return {"board": name, "position": text, "ladder": rows}


def write_certificate(prover, state, value, name):
    """Write the certificate of `value` (for the side to move of `state`) as
    certificates/NAME.json.gz, check it with the reference engine; return the fields its rung
    keeps (proof size, file, bytes, seconds to extract, write and check)."""
    t = time.monotonic()
    cert = make_certificate(prover, state, value)
    path = os.path.join(HERE, "certificates", f"{name}.json.gz")
    certificate.write(path, cert)
    checked, _ = certificate.verify(certificate.read(path))
    assert checked == value
    print(name, "certificate", cert["size"], "positions, verified", flush=True)
    return {"proof_size": cert["size"], "certificate": os.path.relpath(path, HERE),
            "certificate_bytes": os.path.getsize(path), "verify_seconds": round(time.monotonic() - t, 1)}


def certify(name, board, memory):
    """(Re)write the certificates of a board whose ladder ends in a win at N turns: the win's
    (solved again as the ladder did, same table size) and the proof that it takes N turns, a
    `not win` certificate at N - 1 (df-pn disproves the winner's win; the loser's strategy not
    to lose, checked by the reference engine). Update the two rungs in `board`; return False
    if its ladder has no win."""
    last = board["ladder"][-1]
    if last["value"] not in ("win", "loss") or last["max_turns"] < 2:
        return False
    n = last["max_turns"]
    state = ludo_flow.load_game("flow", max_turns=n).from_string(board["position"])
    solution, prover = solve(state, memory=memory)
    assert solution.value == last["value"], (name, solution)
    last.update(write_certificate(prover, state, solution.value, f"{name}-turns{n}"))
    state = ludo_flow.load_game("flow", max_turns=n - 1).from_string(board["position"])
    mover = state.current_player()
    winner = mover if last["value"] == "win" else 1 - mover
    claim = "not win" if winner == mover else "not loss"
    prover = None  # the win's table goes first: one table of `memory` bytes at a time
    prover = Prover(memory)
    array = np.ascontiguousarray(state.array, dtype=np.uint64)
    prover.run(array, winner, 1)  # compiles (or loads) the search before the clock starts
    prover.nodes = 0
    started = time.monotonic()
    pn, dn = prover.prove(array, winner)
    if dn != 0:
        raise SystemExit(f"{name}: the win within {n - 1} turns is not disproven (pn {pn}, dn {dn})")
    minimality = {"value": claim, "nodes": prover.nodes, "seconds": round(time.monotonic() - started, 2)}
    minimality.update(write_certificate(prover, state, claim, f"{name}-turns{n - 1}-{claim.replace(' ', '')}"))
    next(r for r in board["ladder"] if r["max_turns"] == n - 1)["minimality"] = minimality
    print(name, n - 1, "turns:", minimality, flush=True)
    return True


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
    parser.add_argument("--certify", action="store_true",
                        help="only (re)write the certificates of each board's shortest forced win "
                             "in --out: the win's, and the 'not win' one a turn fewer")
    parser.add_argument("--out", default=os.path.join(HERE, "results.json"))
    args = parser.parse_args()
    os.makedirs(os.path.join(HERE, "certificates"), exist_ok=True)
    results = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            results = json.load(f)
    results.setdefault("boards", {})
    for name in args.boards:
        if args.certify:
            if certify(name, results["boards"][name], args.memory):
                results["boards"][name]["certify"] = {
                    "command": " ".join(["python", "experiments/solved/run.py"] + sys.argv[1:]),
                    "code": code_version()}
                with open(args.out, "w") as f:
                    json.dump(results, f, indent=1)
            continue
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
