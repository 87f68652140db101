"""Variants: the first player's score, game length and terminations of every variant.

    python experiments/variants/run.py [--random-games 2000] [--mcts-games 2000] [--workers 2] [--resume]

For Flow `standard`, `stones`, `fountain` and Tolkuchka (standard) the script plays, from the
start position (no opening moves, so the first player really moves first), Random against
Random and MCTS self-play at a small budget (`mcts:simulations=300` twice, the two specs
differing only in `seed`, which the runner needs to tell them apart; every game reseeds both
agents anyway, so they are the same player). One records file per variant and matchup in
`records/`; then the first player's score and mean length (plies = single decisions) with
95 % intervals and the share of each termination. Writes results.json, results.md and PNG plots
beside this script. Records files resume (`--resume`); `--analyse` only rates them.
"""
import argparse
import json
import os
import platform
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))

sys.path.insert(0, os.path.dirname(HERE))  # experiments/common.py
from common import code_version, mean_ci, play_file  # noqa: E402
VARIANTS = [("flow", "standard"), ("flow", "stones"), ("flow", "fountain"), ("tolkuchka", "standard")]
MATCHUPS = {"random": ["random", "random:seed=1"],
            "mcts": ["mcts:simulations=300,seed=1", "mcts:simulations=300,seed=2"]}


def records_path(game, variant, matchup):
    return os.path.join(HERE, "records", f"{game}-{variant}-{matchup}.jsonl.gz")


def play(args, previous):
    """Play (or resume) every variant and matchup; return the wall seconds of each file (a file
    already complete is not opened again and keeps its time from `previous`)."""
    from agents.tournament import Tournament
    os.makedirs(os.path.join(HERE, "records"), exist_ok=True)
    walls = {}
    for game, variant in VARIANTS:
        for matchup, agents in MATCHUPS.items():
            games = args.random_games if matchup == "random" else args.mcts_games
            out = records_path(game, variant, matchup)
            t = Tournament(game, agents, games=games, openings=None, variant=variant, seed=args.seed,
                           out=out, workers=args.workers, resume=args.resume, progress=not args.quiet)
            walls[os.path.basename(out)] = play_file(t, previous, args.resume)
    return walls


def summarise(game, variant, matchup):
    """Return the first player's score, game length and terminations of one records file."""
    import ludo_flow
    from agents import ratings
    from agents.records import ReadReport, load_records
    report = ReadReport()
    records = load_records(records_path(game, variant, matchup), report=report)
    if report.cut:
        raise SystemExit(f"{records_path(game, variant, matchup)}: its last line is cut (resume to repair)")
    first = ludo_flow.load_game(game, variant).new_initial_state().current_player()
    scores = [ratings.RESULT_SCORES[r["result"]] if first == 0 else 1.0 - ratings.RESULT_SCORES[r["result"]]
              for r in records]
    score, score_ci = mean_ci(scores)
    counts = ratings.game_counts(scores)                      # losses, draws, wins of the first player
    elo, elo_err, los = ratings.match_elo(counts)
    plies, plies_ci = mean_ci([r["plies"] for r in records])
    n = len(records)
    terms = Counter(r["termination"] for r in records)
    return {"game": game, "variant": variant, "matchup": matchup, "agents": MATCHUPS[matchup],
            "games": n, "first_player": ("white", "black")[first],
            "first_score": score, "first_score_ci": score_ci,
            "first_wins": counts[2], "draws": counts[1], "first_losses": counts[0],
            "first_elo": elo, "first_elo_error": elo_err, "first_los": los,
            "mean_plies": plies, "plies_ci": plies_ci,
            "median_plies": sorted(r["plies"] for r in records)[n // 2],
            "terminations": {k: {"games": v, "share": v / n} for k, v in sorted(terms.items())}}


def markdown(rows, walls):
    lines = ["# Variants: first-player advantage, length and terminations", "",
             "First player = the side to move at the start position (no opening moves). Score counts a "
             "draw half; intervals are 95 % normal intervals over games; Elo = the first player's "
             "logistic Elo advantage (`agents.ratings.match_elo`, trinomial). Plies are single "
             "decisions (a Flow turn is two steps plus any wash choices).", "",
             "| variant | players | games | first-player score | W-D-L (first) | Elo | "
             "mean plies | median | terminations |",
             "|---|---|---:|---:|---|---:|---:|---:|---|"]
    for r in rows:
        terms = ", ".join(f"{k} {100 * v['share']:.1f}%" for k, v in
                          sorted(r["terminations"].items(), key=lambda kv: -kv[1]["games"]))
        players = " vs ".join(f"`{a}`" for a in r["agents"])
        lines.append(f"| {r['game']} {r['variant']} | {players} | {r['games']} | "
                     f"{100 * r['first_score']:.1f}% ± {100 * r['first_score_ci']:.1f} | "
                     f"{r['first_wins']}-{r['draws']}-{r['first_losses']} | "
                     f"{r['first_elo']:+.0f} ± {r['first_elo_error']:.0f} | "
                     f"{r['mean_plies']:.1f} ± {r['plies_ci']:.1f} | {r['median_plies']} | {terms} |")
    if walls:
        lines += ["", "Wall time: " + ", ".join(f"{k} {v:.0f} s" for k, v in walls.items()) +
                  f"; total {sum(v for k, v in walls.items()) / 60:.1f} min."]
    return lines


def plot(rows, path_score, path_terms):
    """Write the first player's score per variant and the termination shares."""
    from agents.plots import _figure
    labels = [f"{g} {v}" for g, v in VARIANTS]
    fig = _figure(7, 3.6)
    ax = fig.add_subplot(1, 1, 1)
    for k, (matchup, colour) in enumerate((("random", "tab:grey"), ("mcts", "tab:blue"))):
        rs = [next(r for r in rows if (r["game"], r["variant"], r["matchup"]) == (g, v, matchup))
              for g, v in VARIANTS]
        xs = [i + (k - 0.5) * 0.2 for i in range(len(rs))]
        ax.errorbar(xs, [100 * r["first_score"] for r in rs], yerr=[100 * r["first_score_ci"] for r in rs],
                    fmt="o", capsize=4, color=colour, label=" vs ".join(MATCHUPS[matchup]))
    ax.axhline(50, color="black", linewidth=0.8, linestyle=":")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("first player's score, % (95 % interval)")
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path_score, dpi=100, bbox_inches="tight")

    kinds = sorted({k for r in rows for k in r["terminations"]})
    fig = _figure(10, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    names = [(f"Flow {r['variant']}" if r["game"] == "flow" else "Tolkuchka") + f"\n{r['matchup']}"
             for r in rows]
    bottom = [0.0] * len(rows)
    cmap = ["tab:green", "tab:olive", "tab:red", "tab:purple", "tab:brown", "tab:cyan", "tab:orange",
            "tab:pink", "tab:grey"]
    for j, kind in enumerate(kinds):
        share = [100 * r["terminations"].get(kind, {"share": 0.0})["share"] for r in rows]
        ax.bar(range(len(rows)), share, bottom=bottom, label=kind, color=cmap[j % len(cmap)])
        bottom = [b + s for b, s in zip(bottom, share)]
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, fontsize=8)
    ax.set_ylabel("% of games")
    ax.set_title("how games end")
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    fig.tight_layout()
    fig.savefig(path_terms, dpi=100, bbox_inches="tight")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-games", type=int, default=2000, help="Random vs Random games per variant")
    parser.add_argument("--mcts-games", type=int, default=2000, help="MCTS self-play games per variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--resume", action="store_true", help="continue existing records files")
    parser.add_argument("--analyse", action="store_true", help="summarise the existing records; play nothing")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    path_json = os.path.join(HERE, "results.json")
    walls = {}
    if os.path.exists(path_json):
        with open(path_json) as fh:
            walls = json.load(fh).get("wall_seconds", {})
    if not args.analyse:
        walls = play(args, walls)
    rows = [summarise(g, v, m) for g, v in VARIANTS for m in MATCHUPS
            if os.path.exists(records_path(g, v, m))]
    command = (f"python experiments/variants/run.py --random-games {args.random_games} "
               f"--mcts-games {args.mcts_games} --seed {args.seed} --workers {args.workers}")
    lines = markdown(rows, walls)
    lines.insert(2, f"`{command}`; {platform.platform()}, {os.cpu_count()} CPUs (shared); "
                    f"code at commit {code_version()['commit']}.")
    lines.insert(3, "")
    with open(os.path.join(HERE, "results.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(path_json, "w") as fh:
        json.dump({"command": command, "settings": {k: v for k, v in vars(args).items()
                                                    if k not in ("resume", "analyse", "quiet")},
                   "matchups": MATCHUPS, "wall_seconds": walls, "code": code_version(),
                   "machine": {"platform": platform.platform(), "python": platform.python_version(),
                               "cpus": os.cpu_count()},
                   "results": rows}, fh, indent=1)
    if len(rows) == len(VARIANTS) * len(MATCHUPS):
        plot(rows, os.path.join(HERE, "first_player.png"), os.path.join(HERE, "terminations.png"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
