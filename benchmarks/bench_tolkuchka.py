"""Tolkuchka speed: random playouts (kernels vs reference), perft leaves/s, compile and cache-load time.

    python benchmarks/bench_tolkuchka.py [--repeats 5] [--perft-depth 8] [--out benchmarks/results/tolkuchka.json]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, median_rate, report, timed  # noqa: E402

from ludo_flow.rng import new_rng  # noqa: E402
from ludo_flow.tolkuchka import kernels as K  # noqa: E402
from ludo_flow.tolkuchka.reference import TolkRef  # noqa: E402

# Calls every public kernel once; run in a child process to time compiling (fresh cache) or
# loading from the cache (second run on the same cache).
_TOUCH_EVERY_KERNEL = """
import time
start = time.perf_counter()
import numpy as np
from ludo_flow.rng import new_rng
from ludo_flow.tolkuchka import kernels as K
s = K.standard_state(50, 400)
buf = np.empty(K.MAX_ACTIONS, dtype=np.int32)
n = K.legal_actions(s, buf)
K.apply(s, buf[0], s.copy())
K.result(s); K.is_terminal(s); K.returns(s); K.current_player(s); K.hash_key(s); K.evaluate(s)
K.landing_square(s, buf[0]); K.is_knock(s, buf[0]); K.playout(s, new_rng(1)); K.perft(s, 2)
print(time.perf_counter() - start)
"""


@njit(cache=True)
def playout_batch(state, rng, games):
    """Return the total plies of `games` uniform random playouts from `state`."""
    plies = 0
    for _ in range(games):
        plies += K.playout_with_length(state, rng)[1]
    return plies


def reference_plies(games, seed):
    """Return the plies of `games` uniform random reference-engine playouts from the standard setup."""
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        s = TolkRef.standard()
        while True:
            legal = s.legal_actions()
            if not legal:
                break
            s = s.apply(rng.choice(legal))
            plies += 1
    return plies


def child_seconds(cache_dir):
    """Return the seconds a fresh interpreter takes to import the kernels and call each once."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", _TOUCH_EVERY_KERNEL], capture_output=True, text=True,
                         env=env, check=True, cwd=Path(__file__).resolve().parent.parent)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=20000, help="kernel playouts per repeat")
    parser.add_argument("--reference-games", type=int, default=3, help="reference playouts per repeat")
    parser.add_argument("--perft-depth", type=int, default=8)
    parser.add_argument("--out", default="benchmarks/results/tolkuchka.json")
    args = parser.parse_args()
    command = " ".join([Path(sys.executable).name, *sys.argv])
    start = K.standard_state(K.DEFAULT_QUIET_PLIES, K.DEFAULT_MAX_PLIES)

    fresh = tempfile.mkdtemp(prefix="ludo_flow_bench_tolk_")
    compile_seconds = child_seconds(fresh)
    cache_load_seconds = sorted(child_seconds(fresh) for _ in range(3))[1]

    # This process: compile or load the benchmark's own functions before timing anything.
    _, first_call = timed(lambda: (playout_batch(start, new_rng(0), 1), K.perft(start, 2)))

    rng = new_rng(12345)
    playout_rate, playout_all = median_rate(lambda: playout_batch(start, rng, args.games), args.repeats)
    seeds = iter(range(1000))
    ref_rate, ref_all = median_rate(lambda: reference_plies(args.reference_games, next(seeds)),
                                    args.repeats)

    perft_leaves = int(K.perft(start, args.perft_depth))
    perft_rate, perft_all = median_rate(lambda: K.perft(start, args.perft_depth), args.repeats)
    perft_seconds = perft_leaves / perft_rate

    payload = {
        "command": command,
        "machine": machine(),
        "compile_seconds_fresh_cache_child_process": compile_seconds,
        "cache_load_seconds_child_process": cache_load_seconds,
        "first_call_seconds_in_this_process": first_call,
        "playout_games_per_repeat": args.games,
        "playout_plies_per_second": playout_rate, "playout_runs": playout_all,
        "reference_games_per_repeat": args.reference_games,
        "reference_playout_plies_per_second": ref_rate, "reference_runs": ref_all,
        "kernel_to_reference_ratio": playout_rate / ref_rate,
        "perft_depth": args.perft_depth, "perft_leaves": perft_leaves,
        "perft_leaves_per_second": perft_rate, "perft_runs": perft_all,
        "perft_median_seconds": perft_seconds,
    }
    rows = [
        ("command", command),
        ("compile, fresh cache (child process)", f"{compile_seconds:.2f} s"),
        ("load from cache (child process)", f"{cache_load_seconds:.2f} s"),
        ("first call in this process", f"{first_call:.2f} s"),
        ("random playout plies/s (1 core)", f"{playout_rate:,.0f}"),
        ("reference engine plies/s", f"{ref_rate:,.0f}"),
        ("kernels / reference", f"{playout_rate / ref_rate:,.0f}x"),
        (f"perft({args.perft_depth}) standard = {perft_leaves:,}",
         f"{perft_rate:,.0f} leaves/s ({perft_seconds:.2f} s, bulk-counted last ply)"),
    ]
    report(f"Tolkuchka benchmark (median of {args.repeats})", rows, payload, args.out)


if __name__ == "__main__":
    main()
