"""What a balanced suite buys against random openings: early decisions, White's score, SPRT length.

    python experiments/openings/measure.py [--games 200] [--seeds 10] [--only flow]

For each game and each kind of openings (`random:turns=1`, the embedded default before the
suites, and `suite`, the package's balanced suite of the standard variant):

- self-play: `--self` (default `alphabeta:depth=3`) against itself from `--games` openings (the
  first `--games` slots of the tournament runner's schedule, seed 0), one game each: White's
  score, draws, and the share of games over within 6 plies of the opening;
- SPRT: `--strong` against `--weak` (defaults `alphabeta:depth=3` / `alphabeta:depth=2`, a
  known gain) with elo0=0, elo1=30, alpha=beta=0.05, played by the tournament runner in this
  process with seeds 1..`--seeds` (at most `--max-games` games each): games to a decision
  (median, min, max), decisions for H0 (wrong: the stronger agent is stronger), runs
  undecided, and the share of the matches' opening pairs decided early: both games of the pair
  over within 6 plies of the opening, won by the same colour.

Writes measure.json and measure.md (`--name`) beside this file, keeping the rows of the games
and openings not measured this time; prints each row as it is measured.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import ludo_flow
from agents.play import play_game
from agents.ratings import RESULT_SCORES
from agents.registry import make_agent
from agents.tournament import Tournament

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # experiments/common.py
from common import code_version  # noqa: E402

HERE = Path(__file__).resolve().parent
KINDS = ("random:turns=1", "suite")
EARLY = 6  # plies after the opening


def schedule_openings(game_name, openings, count, seed):
    """Return `count` (start, opening moves) of the runner's schedule for these openings."""
    t = Tournament(game_name, ["random", "alphabeta:depth=1"], games=2 * count, openings=openings,
                   seed=seed, out=os.devnull, workers=0, progress=False)
    schedule = t.schedule()
    return [schedule.opening(k) for k in range(count)]


def self_play(game_name, openings, games, spec):
    """Return White's score, draws and early endings of `spec` against itself."""
    game = ludo_flow.load_game(game_name)
    white, black = make_agent(spec), make_agent(spec)
    score = draws = early = 0.0
    for k, (start, moves) in enumerate(schedule_openings(game_name, openings, games, 0)):
        state = game.from_string(start)
        if moves:
            state.apply_sequence(" ".join(moves))
        record = play_game(state, white, black, seed=k)
        score += RESULT_SCORES[record["result"]]
        draws += record["result"] == "1/2-1/2"
        early += record["plies"] <= EARLY
    return {"white_score": round(score / games, 4), "draws": int(draws), "early_games": int(early)}


def early_pairs(records):
    """Return (opening pairs decided early, pairs) of a match's records."""
    pairs = {}
    for r in records:
        pairs.setdefault(r["pair"], []).append(r)
    early = 0
    for games in pairs.values():
        if len(games) == 2 and all(g["plies"] <= EARLY for g in games) and games[0]["result"] == games[1]["result"] \
                and games[0]["result"] != "1/2-1/2":
            early += 1
    return early, len(pairs)


def sprt_runs(game_name, openings, args):
    """Return the SPRT figures of `--seeds` matches of --strong against --weak."""
    lengths, decisions, early, pairs = [], [], 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, args.seeds + 1):
            out = os.path.join(folder, f"{game_name}-{seed}.jsonl")
            result = Tournament(game_name, [args.strong, args.weak], games=args.max_games, openings=openings,
                                seed=seed, out=out, workers=0, progress=False,
                                sprt="elo0=0,elo1=30,alpha=0.05,beta=0.05").run()
            lengths.append(result.finished)
            decisions.append(result.sprt["decision"])
            e, n = early_pairs(result.records)
            early, pairs = early + e, pairs + n
    return {"games_median": statistics.median(lengths), "games_min": min(lengths), "games_max": max(lengths),
            "h1": decisions.count("H1"), "h0": decisions.count("H0"), "undecided": decisions.count(None),
            "early_pairs": early, "pairs": pairs, "lengths": lengths}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--max-games", type=int, default=400)
    parser.add_argument("--self", dest="self_spec", default="alphabeta:depth=3")
    parser.add_argument("--strong", default="alphabeta:depth=3")
    parser.add_argument("--weak", default="alphabeta:depth=2")
    parser.add_argument("--only", nargs="+", choices=("flow", "tolkuchka"))
    parser.add_argument("--name", default="measure", help="write NAME.json and NAME.md (default measure)")
    parser.add_argument("--no-self-play", action="store_true", help="the SPRT runs only")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, help="these openings only (rows of the "
                        "others are kept from measure.json)")
    args = parser.parse_args()
    wanted = [(g, k) for g in args.only or ("flow", "tolkuchka") for k in args.kinds or KINDS]
    old = json.loads((HERE / f"{args.name}.json").read_text())["rows"] if (HERE / f"{args.name}.json").exists() else []
    rows = [r for r in old if (r["game"], r["openings"]) not in wanted]
    for game_name, openings in wanted:
        start = time.perf_counter()
        row = {"game": game_name, "openings": openings,
               **({} if args.no_self_play else self_play(game_name, openings, args.games, args.self_spec)),
               **sprt_runs(game_name, openings, args)}
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    rows.sort(key=lambda r: (r["game"], KINDS.index(r["openings"])))
    out = {"code": code_version(), "self": args.self_spec, "strong": args.strong, "weak": args.weak,
           "games": args.games, "seeds": args.seeds, "max_games": args.max_games,
           "machine": f"{platform.processor() or platform.machine()}, python {platform.python_version()}",
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "rows": rows}
    (HERE / f"{args.name}.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"Self-play `{args.self_spec}`, {args.games} openings; SPRT `{args.strong}` against `{args.weak}` "
             f"(elo0=0, elo1=30, alpha=beta=0.05), seeds 1-{args.seeds}, at most {args.max_games} games "
             f"(commit {out['code']['commit']}):", "",
             "| game | openings | White's score | draws | games over in <= 6 plies | SPRT games: median (min-max) "
             "| H1 / H0 / undecided | SPRT pairs decided in <= 6 plies |",
             "|---|---|---:|---:|---:|---|---|---:|"]
    for r in rows:
        selfplay = (f"{100 * r['white_score']:.1f} % | {r['draws']} | {r['early_games']} / {args.games}"
                    if "white_score" in r else "- | - | -")
        lines.append(f"| {r['game']} | `{r['openings']}` | {selfplay} | {r['games_median']:g} ({r['games_min']}-{r['games_max']}) | "
                     f"{r['h1']} / {r['h0']} / {r['undecided']} | {r['early_pairs']} / {r['pairs']} "
                     f"({100 * r['early_pairs'] / max(1, r['pairs']):.1f} %) |")
    (HERE / f"{args.name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
