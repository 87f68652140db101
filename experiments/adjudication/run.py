"""How often adjudication would be wrong: games played out in full, judged afterwards by each set
of rules from the scores their records hold (`agents.adjudication.adjudicate_record`).

    python experiments/adjudication/run.py [--game flow] [--games 40] [--workers 2]
        [--agents SPEC SPEC --name NAME]

Plays (or resumes) a match, by default alphabeta:depth=2 against alphabeta:depth=4 (both report
scores), without adjudication into records_GAME[_NAME].jsonl.gz, then for each rule set prints how many games it
would have ended, the plies and agents' search time it would have saved, and how many of its
results differ from the result played out (false adjudications). Writes results_GAME[_NAME].json.
"""
import argparse
import json
import os
import sys

from agents.adjudication import adjudicate_record
from agents.records import load_records
from agents.tournament import Tournament

HERE = os.path.dirname(os.path.abspath(__file__))
AGENTS = ["alphabeta:depth=2", "alphabeta:depth=4"]
RULE_SETS = [
    ["resign=0.2,moves=2"], ["resign=0.3,moves=2"], ["resign=0.4,moves=4"], ["resign=0.6,moves=4"], ["resign=0.8,moves=4"], ["resign=0.95,moves=4"],
    ["resign=0.6,moves=4,twosided"], ["resign=0.8,moves=4,twosided"],
    ["resign=0.8,moves=8"], ["draw=0.05,moves=8,after=40"], ["draw=0.1,moves=8,after=40"], ["draw=0.2,moves=6,after=20"],
]


def judge(records, rules):
    """Return {games, adjudicated, wrong, plies_saved, seconds_saved, plies} of rules on records."""
    out = {"rules": rules, "games": len(records), "adjudicated": 0, "wrong": 0, "plies_saved": 0,
           "seconds_saved": 0.0, "plies": sum(r["plies"] for r in records)}
    for record in records:
        verdict = adjudicate_record(record, rules)
        if verdict is None:
            continue
        out["adjudicated"] += 1
        out["wrong"] += verdict["result"] != record["result"]
        out["plies_saved"] += record["plies"] - verdict["ply"]
        times = record["search"].get("time", [])[verdict["ply"]:]
        out["seconds_saved"] += sum(t for t in times if t is not None)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="flow")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agents", nargs=2, default=AGENTS, metavar="SPEC")
    parser.add_argument("--name", default="", help="a suffix naming this match's files")
    args = parser.parse_args()
    tag = f"{args.game}_{args.name}" if args.name else args.game
    out = os.path.join(HERE, f"records_{tag}.jsonl.gz")
    Tournament(args.game, args.agents, games=args.games, openings="random:turns=1", seed=11, out=out,
               workers=args.workers, resume=os.path.exists(out), progress=False).run()
    records = load_records(out)
    total_seconds = sum(r["time_white"] + r["time_black"] for r in records)
    results = [judge(records, rules) for rules in RULE_SETS]
    print(f"{args.game}: {len(records)} games of {' vs '.join(args.agents)}, {results[0]['plies']} plies, "
          f"{total_seconds:.0f} s of search; results {dict((k, sum(r['result'] == k for r in records)) for k in ('1-0', '0-1', '1/2-1/2'))}")
    print(f"{'rules':<34} {'ended':>6} {'wrong':>6} {'plies saved':>12} {'search s saved':>15}")
    for r in results:
        print(f"{' '.join(r['rules']):<34} {r['adjudicated']:>6} {r['wrong']:>6} "
              f"{r['plies_saved']:>6} ({100 * r['plies_saved'] / r['plies']:4.1f}%) "
              f"{r['seconds_saved']:>7.1f} ({100 * r['seconds_saved'] / total_seconds:4.1f}%)")
    with open(os.path.join(HERE, f"results_{tag}.json"), "w") as fh:
        json.dump({"agents": args.agents, "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
                   "search_seconds": total_seconds, "results": results}, fh, indent=1)


if __name__ == "__main__":
    main()
