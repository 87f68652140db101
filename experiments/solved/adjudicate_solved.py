"""What `--adjudicate solved` does to games on the solved boards: games played out in full,
judged afterwards by the solved rule (`agents.adjudication.adjudicate_record`).

For each board (at its shortest-win `max_turns`) a match of two agents is played without
adjudication into records/BOARD.jsonl.gz; for each node budget the script counts the games the
rule would have ended, the plies it would have saved, the df-pn time it costs, and the games
whose played-out result differs from the adjudicated one (the side holding the proven value
later gave it away: the rule is never wrong about the position, but it changes the result the
agents would have reached). Writes adjudicate_solved.json.

    nice python experiments/solved/adjudicate_solved.py [--games 60] [--workers 2]
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from common import code_version  # noqa: E402
from run import BOARDS  # noqa: E402

MATCHES = {"6x4": 9, "4x5": 11}   # board -> max_turns (the start's shortest win)
AGENTS = ["alphabeta:depth=2", "mcts:simulations=300"]
BUDGETS = (100, 2000, 20000)


def judge(records, nodes):
    """Return the solved rule's effect on played-out records at one node budget."""
    from agents.adjudication import adjudicate_record
    out = {"nodes": nodes, "games": len(records), "adjudicated": 0, "different": 0, "plies": 0,
           "plies_saved": 0, "seconds": 0.0, "white_wins": 0, "draws": 0}
    for record in records:
        out["plies"] += record["plies"]
        started = time.process_time()
        verdict = adjudicate_record(record, [f"solved,nodes={nodes}"])
        out["seconds"] += time.process_time() - started
        if verdict is None:
            continue
        out["adjudicated"] += 1
        out["different"] += verdict["result"] != record["result"]
        out["plies_saved"] += record["plies"] - verdict["ply"]
        out["white_wins"] += verdict["result"] == "1-0"
        out["draws"] += verdict["result"] == "1/2-1/2"
    out["seconds"] = round(out["seconds"], 2)
    return out


def main():
    from agents.records import load_records
    from agents.tournament import Tournament
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(os.path.join(HERE, "records"), exist_ok=True)
    results = []
    for board, max_turns in MATCHES.items():
        out = os.path.join(HERE, "records", f"{board}.jsonl.gz")
        Tournament("flow", AGENTS, games=args.games, openings="random:plies=2", seed=1, out=out,
                   position=BOARDS[board], params={"max_turns": max_turns}, workers=args.workers,
                   resume=os.path.exists(out), progress=False).run()
        records = load_records(out)
        for nodes in BUDGETS:
            row = {"board": board, "max_turns": max_turns, **judge(records, nodes)}
            print(row, flush=True)
            results.append(row)
    with open(os.path.join(HERE, "adjudicate_solved.json"), "w") as f:
        json.dump({"agents": AGENTS, "results": results, "code": code_version(),
                   "command": " ".join(["python", "experiments/solved/adjudicate_solved.py"] + sys.argv[1:])},
                  f, indent=1)


if __name__ == "__main__":
    main()
