"""Write docs/strength.md: one table of each agent's measured strength, from the kept records and results.

    python experiments/strength_table.py            # writes docs/strength.md
    python experiments/strength_table.py --check    # exit 1 if docs/strength.md is not what it would write

Reads, and plays nothing:
- experiments/mcts_strength/records/GAME/vs_alphabeta_{0.1s,1s}.jsonl.gz: the default MCTS against
  the default alpha-beta at equal time (score and pentanomial Elo, `agents.ratings.rate_records`);
- experiments/budget_ladder/records/GAME/*.jsonl.gz: the budget ladder, every agent of a game rated
  in one Bradley-Terry fit (`rate_records`, anchored as the ladder's own results are);
- experiments/strength/results.json: the 100-game matches against Random (no records kept);
- experiments/solved/agents_vs_perfect*.json: how often each agent of the ladder throws a won
  position of a solved Flow board away (`experiments/solved/agents_vs_perfect.py`).
"""
import argparse
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "docs", "strength.md")
GAMES = ("flow", "tolkuchka")
TITLES = {"flow": "Flow", "tolkuchka": "Tolkuchka"}
EQUAL_TIME = ("0.1s", "1s")
LADDER_ANCHOR = "mcts:simulations=100"  # experiments/budget_ladder/run.py's ANCHOR


def _num(x, signed=True):
    """Return a rounded number with a typographic minus (and a plus when `signed`)."""
    text = f"{x:+.0f}" if signed else f"{x:.0f}"
    return text.replace("-", "\u2212")


def equal_time(game, budget):
    """Return the MCTS side's match against alpha-beta at one budget: specs, counts, score, Elo."""
    from agents.ratings import rate_records
    from agents.records import load_records
    import ludo_flow
    from agents import make_agent
    records = load_records(os.path.join(HERE, "mcts_strength", "records", game, f"vs_alphabeta_{budget}.jsonl.gz"))
    mcts, alphabeta = records[0]["settings"]["agents"]
    seconds = budget[:-1]
    names = (f"mcts:simulations=0,time={seconds}", f"alphabeta:depth=99,time={seconds}")
    loaded = ludo_flow.load_game(game)
    for played, name in zip((mcts, alphabeta), names):  # the records may spell a default out
        if make_agent(played, loaded).spec() != make_agent(name, loaded).spec():
            raise SystemExit(f"{game} {budget}: the records play {played!r}, not the default {name!r}")
    # rate_records reports the first agent to appear as White: put an MCTS-as-White game first.
    match = rate_records(sorted(records, key=lambda r: r["white"] != mcts)).match
    losses, draws, wins = match.per_game.counts
    return {"mcts": names[0], "alphabeta": names[1], "games": len(records), "wins": wins,
            "draws": draws, "losses": losses, "score": (wins + draws / 2) / len(records),
            "elo": match.per_pair.elo, "error": match.per_pair.error,
            "openings": records[0]["settings"]["openings"]}


def ladder(game):
    """Return ({agent: (elo, low, high of its 95 % interval)}, games) of one game's budget ladder."""
    from agents.ratings import rate_records
    from agents.records import load_records
    paths = sorted(glob.glob(os.path.join(HERE, "budget_ladder", "records", game, "*.jsonl.gz")))
    result = rate_records(load_records(*paths), anchor=LADDER_ANCHOR)
    return {r.agent: (r.elo, r.low, r.high) for r in result.ratings.ratings}, result.games


def _ladder_order(spec):
    """Sort key: alpha-beta, then MCTS, then Random; in each, the time budget first, then the
    largest budget."""
    kind, _, options = spec.partition(":")
    settings = dict(o.split("=", 1) for o in options.split(",") if o)
    budget = float(settings.get("depth", settings.get("simulations", 0)))
    return (("alphabeta", "mcts").index(kind) if kind in ("alphabeta", "mcts") else 2,
            "time" not in settings, -budget)


def against_random():
    """Return {(game, agent): result row} of experiments/strength/results.json."""
    with open(os.path.join(HERE, "strength", "results.json")) as fh:
        return {(r["game"], r["agent"]): r for r in json.load(fh)["results"]}


PERFECT_PLAY = ("agents_vs_perfect_6x4_agents.json", "agents_vs_perfect_4x5_agents.json")


def perfect_play():
    """Return ([sample description], {agent: [(board, errors, positions, low, high)]}) of the
    agents-against-perfect-play results."""
    samples, rows = [], {}
    for name in PERFECT_PLAY:
        with open(os.path.join(HERE, "solved", name)) as fh:
            data = json.load(fh)
        board = data["board"].replace("x", "\u00d7")
        where = "the agents' own games" if data.get("sample") == "agents" else "random games"
        positions = data["rows"][0]["positions"]
        samples.append(f"{board} (`max_turns` {data['max_turns']}): {positions} won positions from {where}")
        for r in data["rows"]:
            rows.setdefault(r["agent"], []).append((board, r["errors"], r["positions"], r["low"], r["high"]))
    return samples, rows


def _thrown(entries):
    """Return the cell of an agent's thrown-away wins on each solved board."""
    return " · ".join(f"{board}: {100 * errors / n:.1f} % [{100 * low:.1f}, {100 * high:.1f}]"
                      for board, errors, n, low, high in entries)


def table():
    """Return the text of docs/strength.md."""
    rows = []
    matches = {(g, b): equal_time(g, b) for g in GAMES for b in EQUAL_TIME}
    for budget in EQUAL_TIME:
        first = matches[(GAMES[0], budget)]
        cells = []
        for game in GAMES:
            m = matches[(game, budget)]
            cells.append(f"{100 * m['score']:.1f} % ({_num(m['elo'])} ± {_num(m['error'], False)} Elo; "
                         f"{m['wins']}-{m['draws']}-{m['losses']} in {m['games']} games)")
        rows.append((first['mcts'], f"score against `{first['alphabeta']}`", cells))
    ladders = {g: ladder(g) for g in GAMES}
    samples, thrown = perfect_play()
    for agent in sorted(ladders[GAMES[0]][0], key=_ladder_order):
        cells = []
        for game in GAMES:
            elo, low, high = ladders[game][0][agent]
            cells.append("0 (anchor)" if agent == LADDER_ANCHOR else f"{_num(elo)} [{_num(low, False)}, {_num(high, False)}]")
        rows.append((agent, "budget ladder Elo", cells))
    random_rows = against_random()
    for agent in dict.fromkeys(a for _, a in random_rows):
        cells = []
        for game in GAMES:
            r = random_rows.get((game, agent))
            cells.append(f"{100 * r['score']:.0f} % ({r['wins']}-{r['draws']}-{r['losses']} in {r['games']} games)"
                         if r else "")
        rows.append((agent, "score against `random`", cells))
    # an agent measured against perfect play alone (no match of its own above) gets a row too
    rows += [(agent, "won positions thrown away", [""] * len(GAMES))
             for agent in thrown if agent not in {row[0] for row in rows}]
    # every row's last cell: its agent's perfect-play figure, wherever the agent was measured
    rows = [(f"`{agent}`", what, cells + [_thrown(thrown.get(agent, []))]) for agent, what, cells in rows]
    openings = ", ".join(f"{TITLES[g]} `{matches[(g, EQUAL_TIME[0])]['openings']}`" for g in GAMES)
    ladder_games = " and ".join(f"{ladders[g][1]:,} in {TITLES[g]}" for g in GAMES)
    lines = [
        "# Strength",
        "",
        "Generated by `python experiments/strength_table.py` from the records and results kept in",
        "experiments/ (it plays nothing); edit that script, not this file.",
        "",
        "| agent | measured by | " + " | ".join(TITLES[g] for g in GAMES) + " | Flow: won positions thrown away |",
        "|---|---|" + "---|" * (len(GAMES) + 1),
    ]
    lines += [f"| {agent} | {what} | " + " | ".join(cells) + " |" for agent, what, cells in rows]
    lines += [
        "",
        "- **Against alpha-beta at equal time** (experiments/mcts_strength): the default MCTS against",
        "  the default alpha-beta, both stopped only by the clock; the MCTS side's score, W-D-L and",
        "  Elo ± 95 % from the pentanomial counts of paired openings, each played with both colours",
        f"  ({openings}).",
        "- **Budget ladder** (experiments/budget_ladder): the agents of a game rated together by one",
        "  Bradley–Terry fit with a first-move term over a sparse schedule of games",
        f"  ({ladder_games}); Elo relative to `{LADDER_ANCHOR}` = 0, with its 95 %",
        "  interval. The time-budget agents use 0.05 s a move. Compare ratings within one column.",
        "- **Against Random** (experiments/strength): colours alternated, a draw counts half.",
        "- **Won positions thrown away** (experiments/solved, on every row of an agent it measured): on solved",
        "  small Flow boards, the share of positions won for the side to move (df-pn, under the",
        "  board's `max_turns`) where the agent's one move gives the win away, with its 95 % Wilson",
        "  interval; " + "; ".join(samples) + ".",
        "",
        "Measured on a shared 2-core VM; a time budget is wall time. Each experiment's README says how",
        "it was run and by which code, and keeps its history.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    parser.add_argument("--out", default=OUT, help="where to write (default docs/strength.md)")
    args = parser.parse_args(argv)
    text = table()
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as fh:
                current = fh.read()
        except OSError:
            current = None
        if current != text:
            sys.exit(f"{args.out} is out of date: run python experiments/strength_table.py")
        return
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
