"""MCTS strength: the informed default against alpha-beta at equal time, and each idea on/off.

    python experiments/mcts_strength/run.py [--part time|ideas|all] [--time-games 200]
                                            [--slow-games 200] [--idea-games 40]
                                            [--simulations 1000] [--workers 2] [--resume]
                                            [--match NAME] [--game GAME] [--analyse]

Two kinds of fixed-length matches per game (Flow `standard`, Tolkuchka), each a Tournament of
two agents over paired openings (`random:plies=2`: every opening played twice, colours
swapped), one records file per match in `records/GAME/`:

- `time`: the default `mcts` against the default `alphabeta`, both at `time=0.1` seconds per
  move (`--time-games`) and at `time=1` (`--slow-games`); alpha-beta iterates to depth 99, so
  only the clock stops it;
- `ideas`: at a fixed `--simulations` budget, the default MCTS against itself with one idea
  changed (plain UCT, playouts to the end instead of scoring the leaf, a 4-ply playout before
  scoring, no minimax values, no solver).

`--analyse` (and every run) also summarizes the SPRTs of rounds 4 and 5, whose records are in
`sprt/GAME/` (see `SPRTS` for how and by which code they were played).

Each match is reported as the first agent's wins-draws-losses, its score, and the Elo
difference with its 95 % interval from the pentanomial pair counts (`agents.ratings.match_elo`).
Writes results.json and results.md beside this script; `--analyse` reads the records only.
Records resume (`--resume`): a killed run loses no finished game.
"""
import argparse
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # experiments/common.py
from common import code_version, play_file  # noqa: E402

GAMES = ("flow", "tolkuchka")
SECONDS = (0.1, 1.0)  # the equal-time budgets, seconds a move
OPENINGS = "random:plies=2"
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


# The SPRTs of rounds 4 and 5 (elo0=0, elo1=20, alpha=beta=0.05, the normalized model), played
# with `ludo-flow tournament GAME --agents FIRST SECOND --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05
# --games 400 --openings random:plies=2 --workers 2 --out sprt/GAME/NAME.jsonl` by the commit
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


def sprt_rows():
    """Return the summary of every SPRT records file in sprt/, with its LLR and decision."""
    from agents import ratings
    from agents.records import read_records
    rows = []
    for game in GAMES:
        for name, what, first, second, commits in SPRTS:
            path = os.path.join(HERE, "sprt", game, f"{name}.jsonl")
            if not os.path.exists(path):
                continue
            records = read_records(path)[0]
            row = {"game": game, "match": name, "what": what, "first": first, "second": second,
                   "commit": commits[game], **summarize(game, first, second, records)}
            llr = ratings.sprt_llr(row["pairs"], SPRT_TEST["elo0"], SPRT_TEST["elo1"],
                                   SPRT_TEST["model"])
            row.update(llr=llr, decision=ratings.sprt_decision(llr, SPRT_TEST["alpha"],
                                                              SPRT_TEST["beta"]))
            rows.append(row)
    return rows


def matches(simulations):
    """Return [(part, name, description, first spec, second spec)] of every match."""
    out = [("time", f"vs_alphabeta_{s:g}s", f"default MCTS against default alpha-beta, {s:g} s a move",
            f"mcts:simulations=0,time={s:g}", f"alphabeta:depth=99,time={s:g}") for s in SECONDS]
    base = f"mcts:simulations={simulations}"
    for name, what, change in IDEAS:
        out.append(("ideas", name, what, base, f"{base},{change}"))
    return out


def records_path(game, name):
    """Return the records file of one match."""
    return os.path.join(HERE, "records", game, f"{name}.jsonl")


def play(parts, games_of_match, simulations, resume, only=None, games_of=GAMES, workers=2):
    """Play every match of `parts` (or only the match named `only`) in `games_of`, each of
    `games_of_match(name)` games (resuming finished files)."""
    from agents.tournament import Tournament
    for game in games_of:
        os.makedirs(os.path.join(HERE, "records", game), exist_ok=True)
        for part, name, _, first, second in matches(simulations):
            if part not in parts or (only is not None and name != only):
                continue
            t = Tournament(game, [first, second], games=games_of_match(name), openings=OPENINGS,
                           seed=12, out=records_path(game, name), workers=workers,
                           resume=resume, progress=False)
            play_file(t, {}, resume, label=f"{game} ")


def summarize(game, first, second, records):
    """Return the match's counts and Elo of `first` against `second` from its records."""
    from agents.ratings import RESULT_SCORES, match_elo, pair_counts
    scores = []
    for r in records:
        s = RESULT_SCORES[r["result"]]
        scores.append((r["pair"], s if r["white"] == first else 1.0 - s))
    wins = sum(1 for _, s in scores if s == 1.0)
    draws = sum(1 for _, s in scores if s == 0.5)
    losses = len(scores) - wins - draws
    pairs = pair_counts(scores, skip_incomplete=True)
    elo, half, los = match_elo(pairs) if sum(pairs) else (None, None, None)
    return {"games": len(scores), "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + draws / 2) / len(scores) if scores else None,
            "pairs": pairs, "elo": elo, "elo_95": half, "los": los,
            "mean_plies": sum(r["plies"] for r in records) / len(records) if records else None}


def plot_equal_time(rows, path, earlier=None):
    """Write MCTS's Elo against alpha-beta (95 % interval) per game and seconds a move: this
    round's matches (`rows`, analyse's: round 5) and, in grey, round 4's (`earlier`)."""
    from agents.plots import _figure
    fig = _figure(7, 3.6)
    ax = fig.add_subplot(1, 1, 1)
    cases = [(g, t) for g in GAMES for t in SECONDS]
    rounds = [("round 5", rows, "tab:blue", 0.1)]
    if earlier is not None:
        rounds.insert(0, ("round 4", earlier, "tab:grey", -0.1))
    for name, found, colour, shift in rounds:
        xs, ys, errs = [], [], []
        for i, (game, seconds) in enumerate(cases):
            match = f"vs_alphabeta_{seconds:g}s"  # as `matches` names it
            r = next((r for r in found if r["game"] == game and r["match"] == match
                      and r.get("elo") is not None), None)
            if r is not None:
                xs.append(i + shift)
                ys.append(r["elo"])
                errs.append(r["elo_95"])
        ax.errorbar(xs, ys, yerr=errs, fmt="o", capsize=4, color=colour, label=name)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.axhline(-70.4, color="tab:green", linestyle="--", linewidth=1, label="40 % (the target)")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([f"{g}, {t:g} s" for g, t in cases])
    ax.set_ylabel("MCTS's Elo against alpha-beta, 95 %")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.suptitle("Default MCTS against default alpha-beta at equal time a move")
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")


def analyse(simulations):
    """Summarize every records file; write results.json and results.md; return the results."""
    from agents.records import read_records
    rows = []
    for game in GAMES:
        for part, name, what, first, second in matches(simulations):
            path = records_path(game, name)
            if not os.path.exists(path):
                continue
            records, bad = read_records(path)
            if bad:
                raise SystemExit(f"{path}: lines {bad[:5]} are not whole records (resume to repair)")
            if not records:
                continue
            rows.append({"game": game, "part": part, "match": name, "what": what, "first": first,
                         "second": second, **summarize(game, first, second, records)})
    out = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                       "python": platform.python_version()},
           "code": code_version(), "openings": OPENINGS, "seconds_per_move": list(SECONDS),
           "simulations": simulations, "matches": rows, "sprt_test": SPRT_TEST,
           "sprts": sprt_rows()}
    with open(os.path.join(HERE, "results.json"), "w") as fh:
        json.dump(out, fh, indent=1)
    lines = ["# MCTS strength: results", "",
             f"Summarized by `run.py` at commit {out['code'].get('commit')} (the commits that "
             "played each match are named in README.md). Paired openings "
             f"`{OPENINGS}`; Elo of the first agent, ± the 95 % interval, from the pentanomial "
             "pair counts (`agents.ratings.match_elo`); W-D-L from the first agent's side.", ""]
    for part, title in (("time", "Default MCTS against alpha-beta at equal time a move"),
                        ("ideas", f"Each idea on/off at {simulations} simulations a move "
                                  "(first: the default)")):
        if not any(r["part"] == part for r in rows):  # a round that did not play this part
            continue
        lines += [f"## {title}", "", "| game | match | first | second | games | W-D-L | score | Elo ± 95 % | plies |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["part"] != part:
                continue
            elo = f"{r['elo']:+.0f} ± {r['elo_95']:.0f}" if r["elo"] is not None else "-"
            lines.append(f"| {r['game']} | {r['match']} | `{r['first']}` | `{r['second']}` | {r['games']} | "
                         f"{r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f} % | {elo} | "
                         f"{r['mean_plies']:.0f} |")
        lines.append("")
    lines += ["## SPRTs at 0.1 s a move (sprt/)", "",
              "| game | test | code | first | second | games | W-D-L | score | Elo ± 95 % | LLR | decision |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in out["sprts"]:
        lines.append(f"| {r['game']} | {r['match']} | {r['commit']} | `{r['first']}` | `{r['second']}` | {r['games']} | "
                     f"{r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f} % | "
                     f"{r['elo']:+.0f} ± {r['elo_95']:.0f} | {r['llr']:.2f} | {r['decision'] or 'not decided'} |")
    lines.append("")
    with open(os.path.join(HERE, "results.md"), "w") as fh:
        fh.write("\n".join(lines))
    earlier_path = os.path.join(HERE, "round4", "results.json")
    with open(earlier_path) as fh:
        earlier = json.load(fh)["matches"]
    try:
        plot_equal_time(rows, os.path.join(HERE, "equal_time.png"), earlier)
    except ImportError as err:  # agents.plots.PlotsUnavailable: matplotlib is not installed
        print(f"no plot: {err}", file=sys.stderr)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("time", "ideas", "all"), default="all")
    parser.add_argument("--time-games", type=int, default=200, help="games at 0.1 s a move")
    parser.add_argument("--slow-games", type=int, default=200,
                        help="games at 1 s a move (2 workers: about 4.4 h in Flow, 2.8 h in Tolkuchka)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes per match")
    parser.add_argument("--idea-games", type=int, default=40)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--match", help="play only the match of this name")
    parser.add_argument("--game", choices=GAMES, action="append", help="play only this game")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--analyse", action="store_true", help="only summarize the records")
    args = parser.parse_args()
    if not args.analyse:
        parts = ("time", "ideas") if args.part == "all" else (args.part,)
        def games_of_match(name):
            if name == "vs_alphabeta_1s":
                return args.slow_games
            return args.time_games if name.startswith("vs_alphabeta") else args.idea_games
        play(parts, games_of_match, args.simulations, args.resume, args.match,
             tuple(args.game or GAMES), args.workers)
    for r in analyse(args.simulations)["matches"]:
        elo = f"{r['elo']:+.0f} ± {r['elo_95']:.0f}" if r["elo"] is not None else "-"
        print(f"{r['game']:10s} {r['match']:14s} {r['wins']}-{r['draws']}-{r['losses']}  {elo}")


if __name__ == "__main__":
    main()
