"""The Ray backend against the process backend: games/s of the same random-vs-random tournament
(same games, same seed, same number of workers), side by side in one run, as a ratio.

    python benchmarks/bench_ray.py [--game flow|tolkuchka] [--games 20000] [--repeats 3] [--workers 2]

Ray plays on a local instance of `--workers` CPUs (listening on 127.0.0.1 only, as the runner
starts it), started once before the timed runs (its start-up is reported apart) and shut down at
the end; each process-backend run starts its own worker processes, as a user's run does (about a
second of start-up, small beside the default 20,000 games). The runs alternate between the two
backends within each repeat, so the machine's drift hits them alike; the ratio is Ray's games/s
over the process backend's, per repeat and as the median. The first repeat's records of the two
backends are compared (ids, moves, results; not the thinking times). Writes
benchmarks/results/ray.json.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, report, timed  # noqa: E402

from agents.records import without_times  # noqa: E402
from agents.tournament import Tournament  # noqa: E402
from agents.warmup import warm_up  # noqa: E402
import ludo_flow  # noqa: E402

BACKENDS = ("processes", "ray")


def games_per_second(game, games, workers, backend, out):
    """Return (games/s, the records) of a random-vs-random tournament on `backend`."""
    settings = {"backend": "ray"} if backend == "ray" else {}
    t = Tournament(game, ["random", "random:seed=1"], games=games, openings="random:plies=2",
                   seed=1, out=out, workers=workers, progress=False, **settings)
    start = time.perf_counter()
    result = t.run()
    elapsed = time.perf_counter() - start
    assert result.finished == games, (backend, result.finished)
    return games / elapsed, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="flow", choices=sorted(ludo_flow.GAMES))
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "ray.json"))
    args = parser.parse_args()
    import ray
    from agents.tournament.ray_runner import start_ray

    game = ludo_flow.load_game(args.game)
    warm_up(game, game.new_initial_state().to_string(), ["random"])
    _, ray_start_s = timed(lambda: start_ray(num_cpus=args.workers))
    rates = {b: [] for b in BACKENDS}
    same = None
    try:
        with tempfile.TemporaryDirectory() as folder:
            for r in range(args.repeats):
                results = {}
                for backend in BACKENDS:
                    out = Path(folder) / f"r{r}-{backend}.jsonl"
                    rate, results[backend] = games_per_second(args.game, args.games, args.workers, backend, out)
                    rates[backend].append(rate)
                if same is None:
                    same = ([without_times(x) for x in results["ray"].records] ==
                            [without_times(x) for x in results["processes"].records])
                for result in results.values():
                    Path(result.out).unlink()
    finally:
        ray.shutdown()
    ratios = [ray_rate / process_rate for ray_rate, process_rate in zip(rates["ray"], rates["processes"])]
    rows = [("Ray local instance start-up, s", f"{ray_start_s:.1f}")]
    for backend in BACKENDS:
        label = f"{args.workers} worker processes" if backend == "processes" else f"Ray, {args.workers} CPUs"
        rows.append((f"random vs random, games/s, {label}",
                     f"{statistics.median(rates[backend]):.1f} (min {min(rates[backend]):.1f}, "
                     f"max {max(rates[backend]):.1f})"))
    rows.append(("Ray / processes, games/s ratio", f"{statistics.median(ratios):.2f} "
                 f"(per repeat: {', '.join(f'{x:.2f}' for x in ratios)})"))
    rows.append(("same records (ids, moves, results)", "yes" if same else "NO"))
    payload = {"machine": machine(), "game": args.game, "games": args.games, "workers": args.workers,
               "ray_version": ray.__version__, "ray_start_seconds": ray_start_s,
               "games_per_second": rates, "ratio_ray_over_processes": ratios, "same_records": same}
    report(f"Ray against worker processes ({args.game}, {args.games} games a run, {args.workers} workers, "
           f"median of {args.repeats})", rows, payload, args.out)
    if not same:
        sys.exit("the two backends recorded different games")


if __name__ == "__main__":
    main()
