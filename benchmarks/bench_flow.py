"""Flow speed: random playouts (kernels vs reference), perft nodes/s, compile and cache-load time.

    python benchmarks/bench_flow.py [--repeats 5] [--out benchmarks/results/flow.json]
"""
import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cli_command, machine, median_rate, report, run_seconds, timed  # noqa: E402

import ludo_flow  # noqa: E402
from ludo_flow.flow import kernels as K  # noqa: E402
from ludo_flow.flow.reference import FlowRef  # noqa: E402
from ludo_flow.rng import new_rng  # noqa: E402


@njit(cache=True)
def playout_batch(state, rng, games):
    """Return the total plies of `games` uniform random playouts from `state`."""
    plies = 0
    for _ in range(games):
        plies += K.playout_with_length(state, rng)[1]
    return plies


def reference_plies(games, seed):
    """Return the plies of `games` uniform random reference-engine playouts from the start."""
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        s = FlowRef.preset("standard")
        while True:
            legal = s.legal_actions()
            if not legal:
                break
            s = s.apply(rng.choice(legal))
            plies += 1
    return plies


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=20000, help="playouts per repeat")
    parser.add_argument("--perft-depth", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/flow.json")
    args = parser.parse_args()
    start = ludo_flow.load_game("flow").new_initial_state().array

    # Compile (or load from cache) apart from the measurements.
    _, first_call = timed(lambda: (playout_batch(start, new_rng(0), 1), K.perft(start, 2)))

    rng = new_rng(12345)
    playout_rate, playout_all = median_rate(lambda: playout_batch(start, rng, args.games), args.repeats)
    ref_rate, ref_all = median_rate(lambda: reference_plies(3, 7), max(3, args.repeats // 2))

    perft_nodes = int(K.perft(start, args.perft_depth))
    perft_rate, perft_all = median_rate(lambda: K.perft(start, args.perft_depth), args.repeats)

    fresh = tempfile.mkdtemp(prefix="ludo_flow_bench_cache_")
    env = dict(os.environ, NUMBA_CACHE_DIR=fresh)
    cold, _ = run_seconds(cli_command("perft", "flow", "--depth", "1"), env)
    warm = sorted(run_seconds(cli_command("perft", "flow", "--depth", "1"), env)[0] for _ in range(3))[1]

    payload = {
        "machine": machine(),
        "first_call_seconds_in_this_process": first_call,
        "playout_plies_per_second": playout_rate, "playout_runs": playout_all,
        "reference_playout_plies_per_second": ref_rate, "reference_runs": ref_all,
        "kernel_to_reference_ratio": playout_rate / ref_rate,
        "perft_depth": args.perft_depth, "perft_nodes": perft_nodes,
        "perft_nodes_per_second": perft_rate, "perft_runs": perft_all,
        "cli_perft_depth1_fresh_cache_seconds": cold, "cli_perft_depth1_cached_seconds": warm,
    }
    rows = [
        ("compile or cache load, this process", f"{first_call:.2f} s"),
        ("random playout plies/s (1 core)", f"{playout_rate:,.0f}"),
        ("reference engine plies/s", f"{ref_rate:,.0f}"),
        ("kernels / reference", f"{playout_rate / ref_rate:,.0f}x"),
        (f"perft({args.perft_depth}) standard = {perft_nodes:,}", f"{perft_rate:,.0f} nodes/s"),
        ("ludo-flow perft --depth 1, fresh cache", f"{cold:.2f} s (compiles)"),
        ("ludo-flow perft --depth 1, second process", f"{warm:.2f} s (cache)"),
    ]
    report(f"Flow benchmark (median of {args.repeats})", rows, payload, args.out)


if __name__ == "__main__":
    main()
