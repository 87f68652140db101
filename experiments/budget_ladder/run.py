"""Budget ladder: MCTS at 100-10,000 simulations and alpha-beta at depths 1-5, rated jointly.

    python experiments/budget_ladder/run.py [--games 32] [--time-games 80] [--workers 2] [--resume]

For each game (Flow `standard`, Tolkuchka) the script plays a sparse schedule of gauntlets
(each agent against its ladder neighbours at distance 1 and 2, MCTS against alpha-beta depths
of similar strength, Random at the bottom, and one time-equal pairing, alpha-beta against MCTS
at the same seconds per move), one records file per gauntlet in `records/GAME/`, then rates
all the records of a game together with `agents.ratings.rate_records` (anchor
`mcts:simulations=100` = 0). Writes results.json, results.md and PNG plots beside this script.
Records files resume (`--resume`): a killed run loses no finished game. `--analyse` rates
the existing records without playing.
"""
import argparse
import glob
import json
import os
import platform
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))

sys.path.insert(0, os.path.dirname(HERE))  # experiments/common.py
from common import code_version, mean_ci, play_file  # noqa: E402
GAMES = ("flow", "tolkuchka")
SIMULATIONS = (100, 300, 1000, 3000, 10000)
DEPTHS = (1, 2, 3, 4, 5)
ANCHOR = "mcts:simulations=100"


def specs(seconds):
    """Return the agent specs by short name (m100 ... m10000, ab1 ... ab5, abT, mT, random)."""
    out = {"random": "random"}
    out.update({f"m{n}": f"mcts:simulations={n}" for n in SIMULATIONS})
    out.update({f"ab{d}": f"alphabeta:depth={d}" for d in DEPTHS})
    out["abT"] = f"alphabeta:depth=99,time={seconds:g}"
    out["mT"] = f"mcts:simulations=0,time={seconds:g}"
    return out


# Gauntlets (hub, opponents): ladder neighbours at distance 1 and 2, MCTS against the alpha-beta
# depths of similar strength (found in a 100-game pilot: m1000 ~ ab1, m3000 ~ ab2, m10000 ~ ab3),
# Random against the three weakest, and the time-equal agents against each other and their
# ladder neighbours. 30 pairings out of the 78 of a round robin of 13 agents.
SCHEDULE = [
    ("random", ["m100", "m300", "ab1"]),
    ("m100", ["m300", "m1000", "ab1"]),
    ("m300", ["m1000", "m3000", "ab1", "ab2"]),
    ("m1000", ["m3000", "m10000", "ab1", "ab2"]),
    ("m3000", ["m10000", "ab2", "ab3", "mT"]),
    ("m10000", ["ab3", "ab4", "mT"]),
    ("ab1", ["ab2", "ab3"]),
    ("ab2", ["ab3", "ab4"]),
    ("ab3", ["ab4", "ab5"]),
    ("ab4", ["ab5"]),
    ("ab5", ["abT"]),
    ("abT", ["mT"]),          # the time-equal pairing: played --time-games games
]


def play(args, game, previous):
    """Play (or resume) every gauntlet of one game; return the wall seconds of each file (a file
    already complete is not opened again and keeps its time from `previous`)."""
    from agents.tournament import Tournament
    names = specs(args.time)
    folder = os.path.join(HERE, "records", game)
    os.makedirs(folder, exist_ok=True)
    walls = {}
    for k, (hub, opponents) in enumerate(SCHEDULE):
        out = os.path.join(folder, f"{k:02d}-{hub}.jsonl.gz")
        games = args.time_games if hub == "abT" else args.games
        t = Tournament(game, [names[o] for o in opponents], gauntlet=names[hub], games=games,
                       openings=args.openings, seed=args.seed, out=out, workers=args.workers,
                       resume=args.resume, progress=not args.quiet)
        walls[os.path.basename(out)] = play_file(t, previous, args.resume, f"{game} ")
    return walls


def load(game):
    """Return the records of one game (every file of records/GAME/)."""
    from agents.records import ReadReport, load_records
    records = []
    for path in sorted(glob.glob(os.path.join(HERE, "records", game, "*.jsonl.gz"))):
        report = ReadReport()
        records.extend(load_records(path, report=report))
        if report.cut:
            raise SystemExit(f"{path}: its last line is cut (resume to repair)")
    return records


def decisions(record):
    """Return (White's, Black's) number of decisions in a record's moves (Flow: several a turn)."""
    from agents.records import start_state
    state = start_state(record)
    out = [0, 0]
    for word in record["moves"]:
        out[state.current_player()] += 1
        state.apply(state.parse_action(word))
    return out


def final_margin(record, spec):
    """Return `spec`'s lead in material in a record's final position (Tolkuchka: checkers; Flow:
    None), read by replaying the record."""
    from agents.records import state_at
    state = state_at(record)
    if not hasattr(state, "checkers"):
        return None
    colours = Counter(state.checkers().values())
    mine, theirs = ("W", "B") if record["white"] == spec else ("B", "W")
    return colours[mine] - colours[theirs]


def max_plies_loops(records, window=200, boards=40):
    """Return how many `max_plies` draws end in a loop: at most `boards` distinct arrangements
    (checkers and side to move) over their last `window` plies, and the fewest seen."""
    from agents.records import replay_states
    games = [r for r in records if r["termination"] == "max_plies"]
    distinct = []
    for r in games:
        seen = [(st.to_string().split()[0], st.current_player()) for _, _, st in replay_states(r)]
        distinct.append(len(set(seen[-window:])))
    return {"games": len(games), "loops": sum(d <= boards for d in distinct),
            "distinct_boards": sorted(distinct), "window": window}


def pairing_summary(records, first, second):
    """Return the head-to-head statistics of `first` against `second` from their games."""
    from agents import ratings
    games = [r for r in records if {r["white"], r["black"]} == {first, second}]
    match = ratings.rate_records(games).match
    if match.agent != first:  # rate_records reports the first agent to appear as White
        match = ratings.rate_records(sorted(games, key=lambda r: r["white"] != first)).match
    pts = sum(ratings.RESULT_SCORES[r["result"]] if r["white"] == first
              else 1.0 - ratings.RESULT_SCORES[r["result"]] for r in games)
    plies, plies_ci = mean_ci([r["plies"] for r in games])
    thinking = {spec: sum(r["time_white"] if r["white"] == spec else r["time_black"] for r in games)
                for spec in (first, second)}
    moves = Counter()
    for r in games:
        for side, n in enumerate(decisions(r)):
            moves[r["white"] if side == 0 else r["black"]] += n
    per_move = {spec: thinking[spec] / max(1, moves[spec]) for spec in (first, second)}
    margins = [final_margin(r, first) for r in games if r["result"] == "1/2-1/2"]
    margins = [m for m in margins if m is not None]
    counts = match.per_game.counts  # L, D, W of `first`
    return {"first": first, "second": second, "games": len(games), "score": pts / len(games),
            "wins": counts[2], "draws": counts[1], "losses": counts[0],
            "elo": (match.per_pair or match.per_game).elo,
            "elo_error": (match.per_pair or match.per_game).error,
            "terminations": dict(Counter(r["termination"] for r in games)),
            "draw_terminations": dict(Counter(r["termination"] for r in games if r["result"] == "1/2-1/2")),
            "mean_plies": plies, "plies_ci": plies_ci, "seconds_per_move": per_move,
            "draw_margins": margins}


def analyse(game, seconds):
    """Return the ratings and summaries of one game's records."""
    from agents import ratings
    records = load(game)
    table = ratings.rate_records(records, anchor=ANCHOR)
    bt = table.ratings
    # the robust (sandwich) interval, games of one opening pair as a cluster: draws make the
    # default Hessian interval conservative
    sandwich = {e.agent: (e.high - e.low) / 2 for e in
                ratings.rate_records(records, anchor=ANCHOR, errors="sandwich").ratings.ratings}
    names = specs(seconds)
    by_agent = {e.agent: e for e in bt.ratings}
    los = {(a, b): bt.los[i][j] for i, a in enumerate(bt.agents) for j, b in enumerate(bt.agents)}
    steps = []
    for family in (["m%d" % n for n in SIMULATIONS], ["ab%d" % d for d in DEPTHS]):
        for lo, hi in zip(family, family[1:]):
            a, b = names[lo], names[hi]
            steps.append({"lower": a, "higher": b, "delta": by_agent[b].elo - by_agent[a].elo,
                          "los": los[(b, a)], "head_to_head": pairing_summary(records, b, a)})
    pairings = []
    for hub, opponents in SCHEDULE:
        for o in opponents:
            p = pairing_summary(records, names[hub], names[o])
            # the fit's expected score (colours balanced: the mean over both colours)
            d, h = by_agent[p["first"]].elo - by_agent[p["second"]].elo, bt.first_move_advantage.elo
            p["expected"] = (ratings.elo_to_score(d + h) + ratings.elo_to_score(d - h)) / 2
            pairings.append(p)
    per_agent = {}
    for spec in by_agent:
        mine = [r for r in records if spec in (r["white"], r["black"])]
        per_agent[spec] = {"terminations": dict(Counter(r["termination"] for r in mine)),
                           "draws": sum(r["result"] == "1/2-1/2" for r in mine),
                           "mean_plies": mean_ci([r["plies"] for r in mine])[0]}
    for spec in per_agent:
        per_agent[spec]["sandwich_half_width"] = sandwich[spec]
    loops = max_plies_loops(records) if game == "tolkuchka" else None
    return {"table": table, "steps": steps, "pairings": pairings, "per_agent": per_agent, "loops": loops,
            "records": len(records)}


def markdown(game, res):
    """Return the markdown section of one game."""
    bt = res["table"].ratings
    fma = bt.first_move_advantage
    lines = [f"## {game}", "", f"{res['records']} games; Elo relative to `{ANCHOR}` = 0; 95 % "
             f"intervals ({bt.interval}, {bt.prior_draws:g} virtual draw per pair that met); "
             f"first-move advantage {fma.elo:.0f} Elo [{fma.low:.0f}, {fma.high:.0f}].", "",
             "| # | agent | Elo | 95 % interval | sandwich ± | games | score | draws | mean plies |",
             "|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    for k, e in enumerate(bt.ratings, 1):
        pa = res["per_agent"][e.agent]
        lo = "—" if e.agent == ANCHOR else f"[{e.low:.0f}, {e.high:.0f}]"
        sw = "—" if e.agent == ANCHOR else f"{pa['sandwich_half_width']:.0f}"
        lines.append(f"| {k} | `{e.agent}` | {e.elo:.0f} | {lo} | {sw} | {e.games} | "
                     f"{100 * e.score:.1f}% | {pa['draws']} | {pa['mean_plies']:.0f} |")
    lines += ["", "Ladder steps (joint fit: Elo gained and P(higher budget is stronger); head to head: "
              "the higher budget's score and pentanomial Elo ± 95 %):", "",
              "| step | ΔElo | LOS | head-to-head score | h2h Elo | W-D-L | draws by | higher budget's lead "
              "at the end of its draws (checkers) | mean plies |",
              "|---|---:|---:|---:|---:|---|---|---|---:|"]
    for s in res["steps"]:
        h = s["head_to_head"]
        draws = ", ".join(f"{k} {v}" for k, v in sorted(h["draw_terminations"].items())) or "—"
        lines.append(f"| `{s['lower']}` → `{s['higher']}` | {s['delta']:+.0f} | {100 * s['los']:.1f}% | "
                     f"{100 * h['score']:.1f}% | {h['elo']:+.0f} ± {h['elo_error']:.0f} | "
                     f"{h['wins']}-{h['draws']}-{h['losses']} | {draws} | {lead(h['draw_margins'])} | "
                     f"{h['mean_plies']:.0f} |")
    if res.get("loops"):
        lp = res["loops"]
        lines += ["", f"`max_plies` draws: {lp['games']}, of which {lp['loops']} end in a loop (at most 40 "
                  f"distinct arrangements in their last {lp['window']} plies; fewest "
                  f"{lp['distinct_boards'][0] if lp['distinct_boards'] else '—'})."]
    lines += ["", "Every pairing (score of the first agent):", "",
              "| first | second | games | score | fit's expected score | W-D-L | terminations | "
              "mean plies ± 95 % | thinking s/move (first, second) |",
              "|---|---|---:|---:|---:|---|---|---:|---|"]
    for p in res["pairings"]:
        term = ", ".join(f"{k} {v}" for k, v in sorted(p["terminations"].items()))
        sec = p["seconds_per_move"]
        lines.append(f"| `{p['first']}` | `{p['second']}` | {p['games']} | {100 * p['score']:.1f}% | "
                     f"{100 * p['expected']:.1f}% | "
                     f"{p['wins']}-{p['draws']}-{p['losses']} | {term} | {p['mean_plies']:.0f} ± "
                     f"{p['plies_ci']:.0f} | {sec[p['first']]:.4f}, {sec[p['second']]:.4f} |")
    return lines


def lead(margins):
    """Describe the material leads of drawn games: ahead / level / behind, and the mean lead."""
    if not margins:
        return "—"
    ahead = sum(m > 0 for m in margins)
    behind = sum(m < 0 for m in margins)
    return (f"ahead {ahead}, level {len(margins) - ahead - behind}, behind {behind}; "
            f"mean {sum(margins) / len(margins):+.1f}")


def plot_ladder(game, res, seconds, path):
    """Write Elo against budget: MCTS by simulations (log scale), alpha-beta by depth."""
    from agents.plots import _figure
    names = specs(seconds)
    by_agent = {e.agent: e for e in res["table"].ratings.ratings}
    fig = _figure(10, 4.2)
    axes = [fig.add_subplot(1, 2, 1), None]
    axes[1] = fig.add_subplot(1, 2, 2, sharey=axes[0])
    for ax, keys, xs, label, colour in (
            (axes[0], ["m%d" % n for n in SIMULATIONS], SIMULATIONS, "MCTS simulations per move", "tab:blue"),
            (axes[1], ["ab%d" % d for d in DEPTHS], DEPTHS, "alpha-beta depth (plies)", "tab:orange")):
        e = [by_agent[names[k]] for k in keys]
        ax.errorbar(xs, [x.elo for x in e], yerr=[[x.elo - x.low for x in e],
                                                  [x.high - x.elo for x in e]],
                    fmt="o-", capsize=4, color=colour)
        for key, style in (("abT", "tab:orange"), ("mT", "tab:blue")):
            t = by_agent[names[key]]
            ax.axhspan(t.low, t.high, color=style, alpha=0.12)
            ax.axhline(t.elo, color=style, linestyle="--", linewidth=1,
                       label=f"{names[key]}")
        r = by_agent["random"]
        ax.axhline(r.elo, color="grey", linestyle=":", linewidth=1, label="random")
        ax.set_xlabel(label)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.grid(alpha=0.3)
    axes[0].set_xscale("log")
    axes[0].set_xticks(list(SIMULATIONS))
    axes[0].set_xticklabels([str(n) for n in SIMULATIONS])
    axes[0].minorticks_off()
    axes[0].set_ylabel(f"Elo ({ANCHOR} = 0), 95 % interval")
    axes[1].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{game}: rating against budget ({res['records']} games)")
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32, help="games per pairing (even)")
    parser.add_argument("--time-games", type=int, default=80, help="games of the time-equal pairing")
    parser.add_argument("--time", type=float, default=0.05, help="seconds per move of the time-equal agents")
    parser.add_argument("--openings", default="random:plies=2")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=GAMES, help="play and rate one game only")
    parser.add_argument("--resume", action="store_true", help="continue existing records files")
    parser.add_argument("--analyse", action="store_true", help="rate the existing records; play nothing")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    from agents import plots, ratings
    games = [args.only] if args.only else list(GAMES)
    previous = {}
    path_json = os.path.join(HERE, "results.json")
    if os.path.exists(path_json):
        with open(path_json) as fh:
            previous = json.load(fh).get("wall_seconds", {})
    walls = dict(previous)
    if not args.analyse:
        for game in games:
            files = play(args, game, previous.get(game, {}).get("files", {}))
            walls[game] = {"total": sum(files.values()), "files": files}
    results, lines = {}, ["# Budget ladder", "",
                          f"`python experiments/budget_ladder/run.py "
                          f"--games {args.games} --time-games {args.time_games} --time {args.time:g} "
                          f"--openings {args.openings} --seed {args.seed} --workers {args.workers}`; "
                          f"{platform.platform()}, {os.cpu_count()} CPUs (shared); code at commit "
                          f"{code_version()['commit']}.", ""]
    for game in GAMES:
        if not glob.glob(os.path.join(HERE, "records", game, "*.jsonl.gz")):
            continue
        res = analyse(game, args.time)
        results[game] = res
        lines += markdown(game, res) + [""]
        plots.plot_ratings(res["table"], os.path.join(HERE, f"ratings_{game}.png"))
        # rate_records orders the crosstable's rows by rating (a sparse schedule makes the raw
        # score misleading: an agent that only meets stronger ones scores low)
        plots.plot_score_matrix(res["table"].crosstable, os.path.join(HERE, f"scores_{game}.png"))
        plot_ladder(game, res, args.time, os.path.join(HERE, f"ladder_{game}.png"))
        print(ratings.format_ratings_table(res["table"]))
    if walls:
        lines.append("Wall time: " + "; ".join(f"{g} {w['total'] / 60:.1f} min" for g, w in walls.items()))
    report = {"settings": {k: v for k, v in vars(args).items() if k not in ("resume", "analyse", "quiet")},
              "anchor": ANCHOR, "schedule": SCHEDULE, "specs": specs(args.time),
              "machine": {"platform": platform.platform(), "python": platform.python_version(),
                          "cpus": os.cpu_count()},
              "wall_seconds": walls, "code": code_version(),
              "games": {g: {"ratings": r["table"].ratings, "crosstable": r["table"].crosstable,
                            "steps": r["steps"], "pairings": r["pairings"], "per_agent": r["per_agent"],
                            "max_plies_loops": r["loops"]}
                        for g, r in results.items()}}
    with open(path_json, "w") as fh:
        json.dump(ratings.ratings_json(report), fh, indent=1)
    with open(os.path.join(HERE, "results.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
