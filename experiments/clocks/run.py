"""Game clocks: do clocked games end without time forfeits, and does time management pay?

    nice python experiments/clocks/run.py [--games 200] [--tc 2+0.02] [--workers 2] [--resume]

Three steps, each a tournament into this folder (records `.jsonl.gz`), Flow, `random:turns=1`
openings, the default time margin (0 ms):

1. forfeits: alpha-beta against MCTS, 100 games at --tc 1+0.01: how many are lost on time.
2. calibration: alpha-beta against itself (seed 1) at --tc, 20 games: the mean seconds the
   managed agent spends on a move.
3. match: `alphabeta` (its time managed by the clock) against `alphabeta:time=X`, X that mean:
   a fixed time per move, the same average; both on the same clock, --games games. The Elo of
   the managed agent, with its 95 % interval, per game and per pair, and what each side spent.

Writes results.json and results.md here.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from common import code_version  # noqa: E402


def spent(records, spec):
    """Return (seconds per move, moves) that `spec` spent over `records`."""
    seconds = moves = 0
    for r in records:
        for side, mover in (("white", 0), ("black", 1)):
            if r[side] != spec:
                continue
            seconds += r[f"time_{side}"]
            # a side's moves: the plies it made (clocks are aligned with moves; count by clock changes)
            moves += _moves_of(r, mover)
    return (seconds / moves if moves else 0.0), moves


def _moves_of(record, mover):
    from agents.records import replay_states
    count, side = 0, None
    for ply, word, state in replay_states(record):
        if word is not None and side == mover:
            count += 1
        side = state.current_player()
    return count


def tournament(name, agents, games, tc, workers, resume):
    """Play one tournament into HERE/name.jsonl.gz; return its records and wall seconds."""
    from agents.tournament import Tournament
    out = os.path.join(HERE, f"{name}.jsonl.gz")
    if not resume and os.path.exists(out):
        os.remove(out)
    start = time.time()
    result = Tournament("flow", agents=agents, games=games, openings="random:turns=1", seed=1, out=out,
                        workers=workers, tc=tc, resume=resume and os.path.exists(out), progress=True).run()
    return result, time.time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--tc", default="2+0.02")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    from agents.ratings import rate_records
    results = {"command": "nice python experiments/clocks/run.py " + " ".join(sys.argv[1:]),
               "code": code_version(), "tc": args.tc}

    forfeits, seconds = tournament("forfeits", ["alphabeta", "mcts"], 100, "1+0.01", args.workers, args.resume)
    lost = [r for r in forfeits.records if r["termination"] == "time_forfeit"]
    results["forfeits"] = {"games": len(forfeits.records), "tc": "1+0.01", "time_forfeits": len(lost),
                           "by": [r["forfeit"] for r in lost], "seconds": round(seconds)}
    print(f"forfeits: {len(lost)} of {len(forfeits.records)} games lost on time", file=sys.stderr)

    calib, seconds = tournament("calibration", ["alphabeta", "alphabeta:seed=1"], 20, args.tc, args.workers,
                                args.resume)
    per_move, moves = spent(calib.records, "alphabeta")
    fixed = round(per_move, 4)
    results["calibration"] = {"games": len(calib.records), "seconds_per_move": per_move, "moves": moves,
                              "seconds": round(seconds)}
    print(f"calibration: managed alpha-beta spends {per_move:.4f} s a move", file=sys.stderr)

    fixed_spec = f"alphabeta:time={fixed}"
    match, seconds = tournament("match", ["alphabeta", fixed_spec], args.games, args.tc, args.workers,
                                args.resume)
    rated = rate_records(match.records)
    m = rated.match
    side = 1 if m.agent == "alphabeta" else -1
    per_game, per_pair = m.per_game, m.per_pair
    results["match"] = {
        "managed": "alphabeta", "fixed": fixed_spec, "games": len(match.records),
        "elo_managed": side * per_game.elo, "elo_error": per_game.error, "los": per_game.los
        if side == 1 else 1 - per_game.los,
        "pair_elo_managed": side * per_pair.elo if per_pair else None,
        "pair_elo_error": per_pair.error if per_pair else None,
        "time_forfeits": sum(r["termination"] == "time_forfeit" for r in match.records),
        "managed_seconds_per_move": spent(match.records, "alphabeta")[0],
        "fixed_seconds_per_move": spent(match.records, fixed_spec)[0],
        "seconds": round(seconds)}
    with open(os.path.join(HERE, "results.json"), "w") as fh:
        json.dump(results, fh, indent=2)
    r = results["match"]
    lines = [
        "# Clocks: managed time against a fixed time per move (Flow)", "",
        f"Command: `{results['command']}`; code {results['code'].get('commit')}.", "",
        f"- Forfeit check: alpha-beta against MCTS, {results['forfeits']['games']} games at --tc 1+0.01 "
        f"on {args.workers} workers: {results['forfeits']['time_forfeits']} lost on time.",
        f"- Calibration: managed `alphabeta` at --tc {args.tc} spends {per_move:.4f} s a move "
        f"({moves} moves, {len(calib.records)} games).",
        f"- Match at --tc {args.tc}, {r['games']} games: `alphabeta` (managed) against `{fixed_spec}`: "
        f"{r['elo_managed']:+.1f} ± {r['elo_error']:.1f} Elo per game (LOS {100 * r['los']:.1f} %)"
        + (f", {r['pair_elo_managed']:+.1f} ± {r['pair_elo_error']:.1f} per pair" if r['pair_elo_managed']
           is not None else "")
        + f"; spent {r['managed_seconds_per_move']:.4f} s a move (managed) and "
          f"{r['fixed_seconds_per_move']:.4f} s (fixed); {r['time_forfeits']} lost on time.", ""]
    with open(os.path.join(HERE, "results.md"), "w") as fh:
        fh.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
