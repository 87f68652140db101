"""White's score in alpha-beta self-play from each kind of random opening: does colour decide?

    python experiments/openings/run.py [--games 600] [--agent alphabeta:depth=3] [--seed 99]

For each game and each opening rule (`random:plies=2`, `random:plies=4`, `random:turns=1`), plays
`--games` games of the agent against itself from openings drawn by the tournament runner's
`random_opening` (seeded by `--seed`, the rule and the game's index), the agents reset with the
game's index as seed. Writes results.json and results.md beside this file and prints each line
as it is measured. About 1.5 minutes a rule and game on one core of the development VM.
"""
import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import ludo_flow
from agents.play import play_game
from agents.ratings import RESULT_SCORES
from agents.registry import make_agent
from agents.tournament import derive_seed, random_opening

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # experiments/common.py
from common import code_version  # noqa: E402

RULES = ((2, "plies"), (4, "plies"), (1, "turns"))
HERE = Path(__file__).resolve().parent


def white_score(game_name, length, unit, games, spec, seed):
    """Return {score, draws, opening lengths} of White over `games` self-play games."""
    game = ludo_flow.load_game(game_name)
    white, black = make_agent(spec), make_agent(spec)
    score = draws = 0.0
    lengths = {}
    for k in range(games):
        state = game.new_initial_state()
        words = random_opening(state, length, derive_seed(seed, unit, length, k), unit)
        lengths[len(words)] = lengths.get(len(words), 0) + 1
        if words:
            state.apply_sequence(" ".join(words))
        result = play_game(state, white, black, seed=k)["result"]
        score += RESULT_SCORES[result]
        draws += result == "1/2-1/2"
    return {"white_score": score / games, "draws": int(draws),
            "opening_lengths": {str(n): c for n, c in sorted(lengths.items())}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--agent", default="alphabeta:depth=3")
    parser.add_argument("--seed", type=int, default=99)
    args = parser.parse_args()
    rows = []
    for game_name in ("flow", "tolkuchka"):
        for length, unit in RULES:
            start = time.perf_counter()
            row = {"game": game_name, "openings": f"random:{unit}={length}",
                   **white_score(game_name, length, unit, args.games, args.agent, args.seed)}
            row["seconds"] = round(time.perf_counter() - start, 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = {"code": code_version(), "agent": args.agent, "games": args.games, "seed": args.seed,
           "machine": f"{platform.processor() or platform.machine()}, python {platform.python_version()}",
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "rows": rows}
    (HERE / "results.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"White's score, `{args.agent}` against itself, {args.games} games per row "
             f"(seed {args.seed}; commit {out['code']['commit']}):", "", "| game | openings | White's score | draws | opening lengths (decisions: openings) |",
             "|---|---|---:|---:|---|"]
    for r in rows:
        lens = ", ".join(f"{n}: {c}" for n, c in r["opening_lengths"].items())
        lines.append(f"| {r['game']} | `{r['openings']}` | {100 * r['white_score']:.1f} % | "
                     f"{r['draws']} | {lens} |")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
