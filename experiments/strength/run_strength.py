"""Strength of the search agents against Random: 100-game matches, colours alternated.

    python experiments/strength/run_strength.py [--games 100] [--workers 2]

Writes results.json (every match: agent, game, wins/draws/losses, score, seeds, settings,
machine) and results.md (a table) beside this script. The targets set for them: MCTS with
1,000 simulations and alpha-beta depth 3 win >= 95% of Flow games and score >= 90% in
Tolkuchka (a draw counts half).
"""
import argparse
import json
import multiprocessing
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MATCHES = [
    ("flow", "mcts:simulations=1000"),
    ("flow", "alphabeta:depth=3"),
    ("tolkuchka", "mcts:simulations=1000"),
    ("tolkuchka", "alphabeta:depth=3"),
]


def play_one(job):
    """Return (game name, spec, game index, result for the agent: 1, 0.5 or 0, plies)."""
    game_name, spec, index, seed = job
    import ludo_flow
    from agents import make_agent
    from agents.play import play_game
    from agents.ratings import RESULT_SCORES
    game = ludo_flow.load_game(game_name)
    agent = make_agent(spec, game)
    opponent = make_agent("random", game)
    agent_is_white = index % 2 == 0
    white, black = (agent, opponent) if agent_is_white else (opponent, agent)
    record = play_game(game.new_initial_state(), white, black, seed=seed)
    won_by_white = RESULT_SCORES[record["result"]]
    score = won_by_white if agent_is_white else 1.0 - won_by_white
    return game_name, spec, index, score, record["plies"]


def main(argv=None):
    """Run the matches; print and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--only", help="run only matches whose game or spec contains this text")
    args = parser.parse_args(argv)
    matches = [m for m in MATCHES if not args.only or any(args.only in x for x in m)]
    jobs = [(g, spec, i, args.seed + 1000 * i) for g, spec in matches for i in range(args.games)]
    start = time.time()
    with multiprocessing.Pool(args.workers) as pool:
        outcomes = pool.map(play_one, jobs, chunksize=1)
    results = []
    for g, spec in matches:
        rows = [o for o in outcomes if o[0] == g and o[1] == spec]
        wins = sum(1 for o in rows if o[3] == 1.0)
        draws = sum(1 for o in rows if o[3] == 0.5)
        losses = sum(1 for o in rows if o[3] == 0.0)
        results.append({"game": g, "agent": spec, "opponent": "random", "games": len(rows),
                        "wins": wins, "draws": draws, "losses": losses,
                        "score": (wins + 0.5 * draws) / len(rows),
                        "mean_plies": sum(o[4] for o in rows) / len(rows)})
    report = {"command": "python experiments/strength/run_strength.py " + " ".join(argv or sys.argv[1:]),
              "seed": args.seed, "seconds": time.time() - start,
              "machine": {"platform": platform.platform(), "python": platform.python_version(),
                          "cpus": os.cpu_count()},
              "results": results}
    with open(os.path.join(HERE, "results.json"), "w") as fh:
        json.dump(report, fh, indent=2)
    lines = ["# Strength against Random", "",
             f"`{report['command']}` — {report['seconds']:.0f} s on {report['machine']['platform']}, "
             f"{report['machine']['cpus']} CPUs. Colours alternate; a draw counts half.", "",
             "| game | agent | games | W | D | L | score | mean plies |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['game']} | `{r['agent']}` | {r['games']} | {r['wins']} | {r['draws']} | "
                     f"{r['losses']} | {100 * r['score']:.1f}% | {r['mean_plies']:.0f} |")
    with open(os.path.join(HERE, "results.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
