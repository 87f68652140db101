"""MCTS strength: the default MCTS against the default alpha-beta at equal time, and what its settings are worth.

    python experiments/mcts_strength/run.py --analyse     # only summarize the records
    python experiments/mcts_strength/run.py --part time [--game GAME] [--match NAME]
                                            [--time-games 200] [--slow-games 200] [--workers 2] [--resume]
    python experiments/mcts_strength/run.py --part settings [...]
    python experiments/mcts_strength/run.py --part ideas [--idea-games 40] [--simulations 1000]

Every match is a fixed-length `agents.tournament.Tournament` of two agents over paired openings
(each opening played twice, colours swapped; `OPENINGS`: one random turn each in Flow, two
random plies in Tolkuchka; seed 12), one records file per match, `records/GAME/NAME.jsonl.gz`:

- `time`: the default `mcts` against the default `alphabeta`, both stopped by the clock, at
  0.1 s a move (`--time-games`) and at 1 s (`--slow-games`); alpha-beta iterates to depth 99.
- `settings`: one setting of MCTS changed, against alpha-beta or against MCTS without it
  (`SETTINGS`). A match against alpha-beta is also set beside a `baseline` match on the same
  openings, opening pair by opening pair: the difference in MCTS's score, in points a game.
- `ideas`: at `--simulations` a move, the default against itself with one idea off (`IDEAS`).

The SPRTs in `sprt/GAME/` are summarized, not played (`SPRTS` says how they were played).
A records file that already holds its games is not opened again; any other existing file
needs `--resume`, and the tournament checks that its settings match the file's.
Writes results.json, results.md and equal_time.png beside this script.
"""
import argparse
import json
import math
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # experiments/common.py
from common import code_version, play_file  # noqa: E402

GAMES = ("flow", "tolkuchka")
SECONDS = (0.1, 1.0)  # the equal-time budgets, seconds a move
# A Flow turn is two decisions, so `random:plies=2` would randomise White's turn only
# (experiments/openings); one random turn each keeps the first-move edge small.
OPENINGS = {"flow": "random:turns=1", "tolkuchka": "random:plies=2"}
SEED = 12
_AB = "alphabeta:depth=99,time={s}"
_MCTS = "mcts:simulations=0,time={s}"
# (name, games, what, first, second, baseline): `first`/`second` hold `{s}` for the seconds a
# move; `baseline` is the match whose openings a match against alpha-beta is compared with.
# The reuse matches keep `turn_order=0` because that is the search they measured.
SETTINGS = [
    ("turn_order0_vs_alphabeta_0.1s", ("flow",), "both orders of a quiet Flow turn in the tree "
     "(turn_order=0) against alpha-beta", _MCTS.format(s=0.1) + ",turn_order=0", _AB.format(s=0.1),
     "vs_alphabeta_0.1s"),
    ("turn_order0_vs_alphabeta_1s", ("flow",), "turn_order=0 against alpha-beta, 1 s a move",
     _MCTS.format(s=1) + ",turn_order=0", _AB.format(s=1), "vs_alphabeta_1s"),
    ("reuse_vs_alphabeta_0.1s", ("flow",), "the tree kept from move to move (reuse=1, "
     "turn_order=0) against alpha-beta", _MCTS.format(s=0.1) + ",reuse=1,turn_order=0",
     _AB.format(s=0.1), "turn_order0_vs_alphabeta_0.1s"),
    ("reuse_vs_noreuse_0.1s", ("flow",), "reuse=1 against reuse=0 (both turn_order=0)",
     _MCTS.format(s=0.1) + ",reuse=1,turn_order=0", _MCTS.format(s=0.1) + ",turn_order=0", None),
    ("reuse_vs_noreuse_0.1s", ("tolkuchka",), "reuse=1 against reuse=0",
     _MCTS.format(s=0.1) + ",reuse=1", _MCTS.format(s=0.1) + ",reuse=0", None),
]
# (name, what changes, the other agent's settings added to the default's budget)
IDEAS = [
    ("vs_uct", "all ideas at once: the default against plain UCT (policy=uct)", "policy=uct"),
    ("leaf_eval", "scoring the new leaf by the evaluation, against random playouts to the end",
     "cutoff=-1"),
    ("cutoff4", "scoring the new leaf, against 4 random plies before scoring", "cutoff=4"),
    ("priors", "every child evaluated at expansion (priors=1), against trying each child once "
     "in random order first", "priors=0"),
    ("minimax", "implicit minimax values in selection (the default weight), against none",
     "minimax=0"),
    ("solver", "the MCTS-solver, against none", "solver=0"),
]

# The SPRTs (elo0=0, elo1=20, alpha=beta=0.05, the normalized model), played with
# `ludo-flow tournament GAME --agents FIRST SECOND --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05
# --games 400 --openings random:plies=2 --workers 2 --out sprt/GAME/NAME.jsonl.gz` by the commit
# named per game. The names are as played: at 64b646e `mcts` meant eval=hand, minimax=0.3,
# c=1.0; at 385f695 and ab672a8, eval=texel, minimax=0.8, c=0.3, expand=0.
SPRT_TEST = {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
_T = "mcts:simulations=0,time=0.1"
SPRTS = [  # (name, what, first, second, {game: commit})
    ("eval_texel", "the Texel-tuned evaluation against the hand-set one", f"{_T},eval=texel", _T,
     {"flow": "64b646e", "tolkuchka": "64b646e"}),
    ("c_minimax", "c=0.3 and minimax=0.8 against c=1.0 and minimax=0.3 (with eval=texel)",
     f"{_T},eval=texel,minimax=0.8,c=0.3", f"{_T},eval=texel",
     {"flow": "64b646e", "tolkuchka": "64b646e"}),
    ("expand", "a leaf expanded at its first visit (expand=1) against at its second",
     f"{_T},expand=1", f"{_T},expand=0", {"flow": "385f695", "tolkuchka": "ab672a8"}),
]


def matches(game, simulations):
    """Return [{part, name, what, first, second, baseline}] of every match of one game."""
    out = [{"part": "time", "name": f"vs_alphabeta_{s:g}s", "baseline": None,
            "what": f"default MCTS against default alpha-beta, {s:g} s a move",
            "first": _MCTS.format(s=f"{s:g}"), "second": _AB.format(s=f"{s:g}")} for s in SECONDS]
    out += [{"part": "settings", "name": name, "what": what, "first": first, "second": second,
             "baseline": baseline}
            for name, games, what, first, second, baseline in SETTINGS if game in games]
    base = f"mcts:simulations={simulations}"
    out += [{"part": "ideas", "name": name, "what": what, "first": base, "second": f"{base},{change}",
             "baseline": None} for name, what, change in IDEAS]
    return out


def records_path(game, name):
    """Return the records file of one match."""
    return os.path.join(HERE, "records", game, f"{name}.jsonl.gz")


def load(path):
    """Return the whole records of a file, or stop with a one-line message if a line is cut."""
    from agents.records import ReadReport, load_records
    report = ReadReport()
    records = load_records(path, report=report)
    if report.cut:
        raise SystemExit(f"{path}: its last line is cut (resume to repair)")
    return records


def play(parts, games_of_match, simulations, resume, only=None, games_of=GAMES, workers=2):
    """Play every match of `parts` (or only the match named `only`) in `games_of`, each of
    `games_of_match(name)` games; a file that holds them all is left alone."""
    from agents.tournament import Tournament
    for game in games_of:
        os.makedirs(os.path.join(HERE, "records", game), exist_ok=True)
        for m in matches(game, simulations):
            if m["part"] not in parts or (only is not None and m["name"] != only):
                continue
            path, games = records_path(game, m["name"]), games_of_match(m["name"])
            if os.path.exists(path) and len(load(path)) >= games:
                continue
            t = Tournament(game, [m["first"], m["second"]], games=games, openings=OPENINGS[game],
                           seed=SEED, out=path, workers=workers, resume=resume, progress=False)
            play_file(t, {}, resume, label=f"{game} ")


def first_agent(records):
    """Return the spec of the first agent of a match's records (the tournament's first)."""
    return records[0]["settings"]["agents"][0]


def first_scores(records):
    """Return {pair slot: [scores of the first agent]}, the slot naming an opening pair the same
    way in every file of one schedule."""
    from agents.ratings import RESULT_SCORES
    first = first_agent(records)
    out = {}
    for r in records:
        s = RESULT_SCORES[r["result"]]
        out.setdefault(r["id"].rsplit("-", 1)[0], []).append(s if r["white"] == first else 1.0 - s)
    return out


def summarize(records):
    """Return the match's counts and Elo of its first agent from its records."""
    from agents.ratings import match_elo, pair_counts
    scores = [(slot, s) for slot, ss in first_scores(records).items() for s in ss]
    wins = sum(1 for _, s in scores if s == 1.0)
    draws = sum(1 for _, s in scores if s == 0.5)
    losses = len(scores) - wins - draws
    pairs = pair_counts(scores, skip_incomplete=True)
    elo, half, los = match_elo(pairs) if sum(pairs) else (None, None, None)
    return {"games": len(scores), "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + draws / 2) / len(scores) if scores else None,
            "pairs": pairs, "elo": elo, "elo_95": half, "los": los,
            "mean_plies": sum(r["plies"] for r in records) / len(records) if records else None}


def paired_difference(records, baseline):
    """Return (pairs, difference, half width of its 95 % interval) of the first agent's score
    in `records` minus in `baseline`, in points a game (percent), over the opening pairs both
    completed; raises ValueError if a common pair did not start from the same opening."""
    mine, theirs = first_scores(records), first_scores(baseline)
    openings = {}
    for r in baseline:
        openings[r["id"].rsplit("-", 1)[0]] = (r["start"], r["opening"])
    common = sorted(k for k in mine if len(mine[k]) == 2 and len(theirs.get(k, ())) == 2)
    for r in records:
        slot = r["id"].rsplit("-", 1)[0]
        if slot in common and openings[slot] != (r["start"], r["opening"]):
            raise ValueError(f"pair {slot} starts from another opening in the baseline")
    d = [50.0 * (sum(mine[k]) - sum(theirs[k])) for k in common]
    if len(d) < 2:
        return len(d), None, None
    mean = sum(d) / len(d)
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1))
    return len(d), mean, 1.96 * sd / math.sqrt(len(d))


def sprt_rows():
    """Return the summary of every SPRT records file in sprt/, with its LLR and decision."""
    from agents import ratings
    rows = []
    for game in GAMES:
        for name, what, first, second, commits in SPRTS:
            path = os.path.join(HERE, "sprt", game, f"{name}.jsonl.gz")
            if not os.path.exists(path):
                continue
            row = {"game": game, "match": name, "what": what, "first": first, "second": second,
                   "commit": commits[game], **summarize(load(path))}
            llr = ratings.sprt_llr(row["pairs"], SPRT_TEST["elo0"], SPRT_TEST["elo1"],
                                   SPRT_TEST["model"])
            row.update(llr=llr, decision=ratings.sprt_decision(llr, SPRT_TEST["alpha"],
                                                              SPRT_TEST["beta"]))
            rows.append(row)
    return rows


def plot_equal_time(rows, path):
    """Write MCTS's Elo against alpha-beta (95 % interval) per game and seconds a move."""
    from agents.plots import _figure
    fig = _figure(7, 3.6)
    ax = fig.add_subplot(1, 1, 1)
    cases = [(g, t) for g in GAMES for t in SECONDS]
    xs, ys, errs = [], [], []
    for i, (game, seconds) in enumerate(cases):
        match = f"vs_alphabeta_{seconds:g}s"  # as `matches` names it
        r = next((r for r in rows if r["game"] == game and r["match"] == match
                  and r.get("elo") is not None), None)
        if r is not None:
            xs.append(i)
            ys.append(r["elo"])
            errs.append(r["elo_95"])
    ax.errorbar(xs, ys, yerr=errs, fmt="o", capsize=4, color="tab:blue", label="default MCTS")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.axhline(-70.4, color="tab:green", linestyle="--", linewidth=1, label="40 % (the target)")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([f"{g}, {t:g} s" for g, t in cases])
    ax.set_ylabel("MCTS's Elo against alpha-beta, 95 %")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.suptitle("Default MCTS against default alpha-beta at equal time a move")
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")


def _elo(r):
    return f"{r['elo']:+.0f} ± {r['elo_95']:.0f}" if r["elo"] is not None else "-"


def analyse(simulations):
    """Summarize every records file; write results.json, results.md and the plot; return the results."""
    rows = []
    for game in GAMES:
        loaded = {}
        for m in matches(game, simulations):
            path = records_path(game, m["name"])
            if os.path.exists(path):
                loaded[m["name"]] = load(path)
        for m in matches(game, simulations):
            records = loaded.get(m["name"])
            if not records:
                continue
            row = {"game": game, "part": m["part"], "match": m["name"], "what": m["what"],
                   "first": m["first"], "second": m["second"], "openings": OPENINGS[game],
                   "played_as": records[0]["settings"]["agents"], **summarize(records)}
            if m["baseline"] in loaded:
                n, diff, half = paired_difference(records, loaded[m["baseline"]])
                row["against_baseline"] = {"baseline": m["baseline"], "pairs": n,
                                           "points": diff, "points_95": half}
            rows.append(row)
    out = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                       "python": platform.python_version()},
           "code": code_version(), "openings": OPENINGS, "seed": SEED,
           "seconds_per_move": list(SECONDS), "simulations": simulations, "matches": rows,
           "sprt_test": SPRT_TEST, "sprts": sprt_rows()}
    with open(os.path.join(HERE, "results.json"), "w") as fh:
        json.dump(out, fh, indent=1)
    lines = ["# MCTS strength: results", "",
             "Written by `python experiments/mcts_strength/run.py --analyse` from the records "
             "(README.md says which code played each). Paired openings: "
             + ", ".join(f"{g} `{o}`" for g, o in OPENINGS.items())
             + f", seed {SEED}. W-D-L from the first agent's side; Elo of the first agent, ± the "
             "95 % interval, from the pentanomial pair counts (`agents.ratings.match_elo`).", ""]
    titles = (("time", "Default MCTS against default alpha-beta at equal time a move"),
              ("settings", "One setting changed (against its baseline: the first agent's score "
                           "minus its score in the baseline match, opening pair by pair, points a game ± 95 %)"),
              ("ideas", f"Each idea on/off at {simulations} simulations a move (first: the default)"))
    for part, title in titles:
        if not any(r["part"] == part for r in rows):
            continue
        lines += [f"## {title}", "", "| game | match | first | second | games | W-D-L | score | "
                  "Elo ± 95 % | plies | against baseline |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["part"] != part:
                continue
            b = r.get("against_baseline")
            versus = (f"{b['points']:+.1f} ± {b['points_95']:.1f} over {b['pairs']} pairs "
                      f"(`{b['baseline']}`)" if b and b["points"] is not None else "")
            lines.append(f"| {r['game']} | {r['match']} | `{r['first']}` | `{r['second']}` | {r['games']} | "
                         f"{r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f} % | {_elo(r)} | "
                         f"{r['mean_plies']:.0f} | {versus} |")
        lines.append("")
    lines += ["## SPRTs at 0.1 s a move (sprt/, agents named as played)", "",
              "| game | test | code | first | second | games | W-D-L | score | Elo ± 95 % | LLR | decision |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in out["sprts"]:
        lines.append(f"| {r['game']} | {r['match']} | {r['commit']} | `{r['first']}` | `{r['second']}` | {r['games']} | "
                     f"{r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f} % | "
                     f"{_elo(r)} | {r['llr']:.2f} | {r['decision'] or 'not decided'} |")
    lines.append("")
    with open(os.path.join(HERE, "results.md"), "w") as fh:
        fh.write("\n".join(lines))
    try:
        plot_equal_time(rows, os.path.join(HERE, "equal_time.png"))
    except ImportError as err:  # agents.plots.PlotsUnavailable: matplotlib is not installed
        print(f"no plot: {err}", file=sys.stderr)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("time", "settings", "ideas", "all"), default="all")
    parser.add_argument("--time-games", type=int, default=200, help="games at 0.1 s a move")
    parser.add_argument("--slow-games", type=int, default=200,
                        help="games at 1 s a move (2 workers: about 4 h in Flow, 3 h in Tolkuchka)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes per match")
    parser.add_argument("--idea-games", type=int, default=40, help="games of each ideas match")
    parser.add_argument("--simulations", type=int, default=1000, help="simulations a move, ideas")
    parser.add_argument("--match", help="play only the match of this name")
    parser.add_argument("--game", choices=GAMES, action="append", help="play only this game")
    parser.add_argument("--resume", action="store_true", help="continue unfinished records files")
    parser.add_argument("--analyse", action="store_true", help="only summarize the records")
    args = parser.parse_args()
    if not args.analyse:
        from agents.tournament import TournamentError
        parts = ("time", "settings", "ideas") if args.part == "all" else (args.part,)

        def games_of_match(name):
            if name.endswith("_1s"):
                return args.slow_games
            return args.time_games if name.endswith("_0.1s") else args.idea_games
        try:
            play(parts, games_of_match, args.simulations, args.resume, args.match,
                 tuple(args.game or GAMES), args.workers)
        except TournamentError as err:
            raise SystemExit(f"error: {err}") from None
    for r in analyse(args.simulations)["matches"]:
        print(f"{r['game']:10s} {r['match']:30s} {r['wins']}-{r['draws']}-{r['losses']}  {_elo(r)}")


if __name__ == "__main__":
    main()
