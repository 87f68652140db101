"""Tournament throughput: games per second of a fast tournament (random vs random) by workers,
and the wall time of the embedded default tournament (`ludo-flow tournament GAME`).

    python benchmarks/bench_tournament.py [--game flow|tolkuchka] [--games 4000] [--repeats 3]
                                          [--default]

Each run includes starting its worker processes (each loads numba's cache, about a second),
so short runs measure start-up more than play: the default of 4,000 games a run measures play.
Writes benchmarks/results/tournament.json. The runs alternate between worker counts within each
repeat, so the machine's drift hits them alike; a worker-count's figure is the median over
repeats. Compilation is done once before the first timed run (the runner's warm-up then loads
numba's cache) and reported apart. `--default` also times the default tournament once, as a
user runs it (a new process, numba's cache already warm).
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cli_command, machine, report, run_seconds, timed  # noqa: E402

from agents.tournament import Tournament  # noqa: E402
from agents.warmup import warm_up  # noqa: E402
import ludo_flow  # noqa: E402


def games_per_second(game, games, workers, folder, tag):
    """Return games/s of a random-vs-random tournament of `games` games with `workers` workers."""
    out = Path(folder) / f"{tag}.jsonl"
    t = Tournament(game, ["random", "random:seed=1"], games=games, openings="random:plies=2",
                   seed=1, out=out, workers=workers, progress=False)
    start = time.perf_counter()
    result = t.run()
    elapsed = time.perf_counter() - start
    assert len(result.records) == games
    return games / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="flow", choices=sorted(ludo_flow.GAMES))
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--default", action="store_true", help="also time the default tournament")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "tournament.json"))
    args = parser.parse_args()
    game = ludo_flow.load_game(args.game)
    _, compile_s = timed(lambda: warm_up(game, game.new_initial_state().to_string(), ["random"]))
    modes = (0, 1, 2)  # 0: in this process, no worker processes
    rates = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as folder:
        for r in range(args.repeats):
            for m in modes:
                rates[m].append(games_per_second(args.game, args.games, m, folder, f"r{r}w{m}"))
        rows = [("first warm-up (compile or cache load), s", f"{compile_s:.1f}")]
        for m in modes:
            label = "in-process (--workers 0)" if m == 0 else f"{m} worker process{'es' if m > 1 else ''}"
            rows.append((f"random vs random, games/s, {label}",
                         f"{statistics.median(rates[m]):.1f} (min {min(rates[m]):.1f}, max {max(rates[m]):.1f})"))
        payload = {"machine": machine(), "game": args.game, "games": args.games,
                   "compile_seconds": compile_s,
                   "games_per_second": {str(m): rates[m] for m in modes}}
        if args.default:
            seconds, _ = run_seconds(cli_command("tournament", args.game, "--quiet",
                                                 "--out", str(Path(folder) / "default.jsonl")))
            rows.append(("default tournament (`ludo-flow tournament GAME`), wall s", f"{seconds:.1f}"))
            payload["default_tournament_seconds"] = seconds
    report(f"Tournament throughput ({args.game}, {args.games} games a run, median of {args.repeats})",
           rows, payload, args.out)


if __name__ == "__main__":
    main()
