"""Engine speed per game: random playouts (kernels vs reference), perft leaves/s, compile and cache-load time.

    python benchmarks/bench_engines.py [--game flow|tolkuchka|all] [--repeats 5]

Writes benchmarks/results/<game>.json. Playouts start from the game's standard start and are
uniform over the legal actions; perft counts leaves with the last ply counted in bulk; the
first call (compiling, or loading numba's cache) is timed apart, and the start-up of a fresh
`ludo-flow perft GAME --depth 1` process is measured in a new cache folder (compiles) and again
(loads the cache).
"""
import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cli_command, machine, median_rate, report, run_seconds, timed  # noqa: E402

import ludo_flow  # noqa: E402
from ludo_flow import dispatch  # noqa: E402
from ludo_flow.flow.reference import FlowRef  # noqa: E402
from ludo_flow.rng import new_rng  # noqa: E402
from ludo_flow.tolkuchka.reference import TolkRef  # noqa: E402

SETTINGS = {  # game -> (reference start, perft depth, reference playouts per repeat)
    "flow": (lambda: FlowRef.preset("standard"), 5, 3),
    "tolkuchka": (TolkRef.standard, 8, 3),
}


@njit(cache=True)
def playout_batch(game_id, state, rng, games):
    """Return the total decisions of `games` uniform random playouts from `state`."""
    plies = 0
    for _ in range(games):
        plies += dispatch.playout_with_length(game_id, state, rng)[1]
    return plies


def reference_plies(start, games, seed):
    """Return the decisions of `games` uniform random playouts of a reference engine."""
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        s = start()
        while True:
            legal = s.legal_actions()
            if not legal:
                break
            s = s.apply(rng.choice(legal))
            plies += 1
    return plies


def bench(name, args):
    """Measure one game; print its table and write its JSON."""
    reference_start, perft_depth, reference_games = SETTINGS[name]
    perft_depth = args.perft_depth or perft_depth
    game = ludo_flow.load_game(name)
    gid = game.game_id
    start = game.new_initial_state().array

    _, first_call = timed(lambda: (playout_batch(gid, start, new_rng(0), 1), dispatch.perft(gid, start, 2)))
    rng = new_rng(12345)
    playout_rate, playout_all = median_rate(lambda: playout_batch(gid, start, rng, args.games), args.repeats)
    seeds = iter(range(10**6))
    ref_rate, ref_all = median_rate(lambda: reference_plies(reference_start, reference_games, next(seeds)),
                                    max(3, args.repeats // 2))
    leaves = int(dispatch.perft(gid, start, perft_depth))
    perft_rate, perft_all = median_rate(lambda: dispatch.perft(gid, start, perft_depth), args.repeats)

    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="ludo_flow_bench_cache_"))
    cold, _ = run_seconds(cli_command("perft", name, "--depth", "1"), env)
    warm = sorted(run_seconds(cli_command("perft", name, "--depth", "1"), env)[0] for _ in range(3))[1]

    payload = {
        "command": "python benchmarks/bench_engines.py " + " ".join(sys.argv[1:]),
        "game": name, "machine": machine(),
        "first_call_seconds_in_this_process": first_call,
        "playout_games_per_repeat": args.games,
        "playout_plies_per_second": playout_rate, "playout_runs": playout_all,
        "reference_playout_plies_per_second": ref_rate, "reference_runs": ref_all,
        "kernel_to_reference_ratio": playout_rate / ref_rate,
        "perft_depth": perft_depth, "perft_leaves": leaves,
        "perft_leaves_per_second": perft_rate, "perft_runs": perft_all,
        "cli_perft_depth1_fresh_cache_seconds": cold, "cli_perft_depth1_cached_seconds": warm,
    }
    rows = [
        ("compile or cache load, this process", f"{first_call:.2f} s"),
        ("random playout plies/s (1 core)", f"{playout_rate:,.0f}"),
        ("reference engine plies/s", f"{ref_rate:,.0f}"),
        ("kernels / reference", f"{playout_rate / ref_rate:,.0f}x"),
        (f"perft({perft_depth}) from the start = {leaves:,}", f"{perft_rate:,.0f} leaves/s"),
        (f"ludo-flow perft {name} --depth 1, fresh cache", f"{cold:.2f} s (compiles)"),
        (f"ludo-flow perft {name} --depth 1, second process", f"{warm:.2f} s (cache)"),
    ]
    report(f"{name} engine benchmark (median of {args.repeats})", rows, payload,
           Path(args.out_dir) / f"{name}.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["flow", "tolkuchka", "all"], default="all")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=20000, help="kernel playouts per repeat")
    parser.add_argument("--perft-depth", type=int, default=0, help="0: the game's default (5 / 8)")
    parser.add_argument("--out-dir", default="benchmarks/results")
    args = parser.parse_args()
    for name in (["flow", "tolkuchka"] if args.game == "all" else [args.game]):
        bench(name, args)


if __name__ == "__main__":
    main()
