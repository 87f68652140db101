"""Batched random self-play: steps/s of `ludo_flow.batch.BatchedGames`, side by side with pgx.

    python benchmarks/bench_batch.py [--quick] [--sizes 64 1024 8192] [--threads 1 2]
                                     [--repeats N] [--pgx GAME ...] [--json FILE]

A step is one decision in every game of the batch: the batch draws a uniformly random legal
action per game (`random_actions`), then `step` plays them and writes everything a learner
reads: the observation planes, the legal-action mask, rewards, end flags, the player to move,
with finished games reset. steps/s counts game-decisions (batch size x steps) per second. Each
row runs serially (1 thread) and in parallel on 2 of numba's threads (`parallel=True`,
`numba.set_num_threads`), from each game's standard start (Flow at its default 200 turns).

With pgx installed (an optional benchmark dependency: `pip install pgx "jax[cpu]"`), its games
(`--pgx`, default othello and connect_four) run the same loop on the CPU: `jax.jit(jax.vmap(
env.step))` with a random legal action per game (`jax.random.categorical` over the mask, as
pgx's own benchmark draws them) at the same batch sizes, with the auto-reset its `step` does;
the observation and mask are in pgx's state, as ours are. Without pgx those rows are left out.

Rounds alternate the order of the rows (forwards, then backwards); a figure is the median of
the rounds. Each row also gives steps per CPU-second (the process's CPU time, all its threads):
on a shared machine, where the process gets a fraction of a core, that tells the cost of a
step apart from the machine's load, and the extra CPU a parallel run spends. Absolute figures
drift by a third on a shared VM; compare rows of one run.
"""
import argparse
import sys
import time
from pathlib import Path

import numba

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import figure, machine, report, spread  # noqa: E402

from ludo_flow import load_game  # noqa: E402
from ludo_flow.batch import BatchedGames  # noqa: E402

GAMES = ("flow", "tolkuchka")
PGX_GAMES = ("othello", "connect_four")


def ours(name, size, threads, seconds):
    """Return a sampler of our batched random self-play: () -> (game-decisions, seconds, CPU seconds)."""
    batch = BatchedGames(load_game(name), size, seed=1, parallel=threads > 1)

    def sample():
        numba.set_num_threads(threads)
        steps = 0
        start, cpu = time.perf_counter(), time.process_time()
        while True:
            batch.step(batch.random_actions())
            steps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return steps * size, elapsed, time.process_time() - cpu
    sample()  # compile or load, and leave the start position
    return sample


def pgx_sampler(name, size, seconds):
    """Return a sampler of pgx's batched random self-play on the CPU (None without pgx)."""
    try:
        import jax
        import pgx
    except ImportError:
        return None
    env = pgx.make(name)
    step = jax.jit(jax.vmap(env.step))
    init = jax.jit(jax.vmap(env.init))

    @jax.jit
    def act(key, state):
        logits = jax.numpy.where(state.legal_action_mask, 0.0, -jax.numpy.inf)
        return jax.random.categorical(key, logits, axis=-1)

    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    holder = {"state": init(jax.random.split(sub, size)), "key": key}

    def sample():
        state, key = holder["state"], holder["key"]
        steps = 0
        start, cpu = time.perf_counter(), time.process_time()
        while True:
            key, k1, k2 = jax.random.split(key, 3)
            state = step(state, act(k1, state), jax.random.split(k2, size))
            steps += 1
            if steps % 8 == 0:
                state.observation.block_until_ready()
                elapsed = time.perf_counter() - start
                if elapsed >= seconds:
                    holder["state"], holder["key"] = state, key
                    return steps * size, elapsed, time.process_time() - cpu
    sample()
    return sample


def main(argv=None):
    """Run the benchmark; print the table and write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short samples, 2 rounds")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 1024, 8192])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, help="rounds (default 5; --quick 2)")
    parser.add_argument("--pgx", nargs="*", default=list(PGX_GAMES), help="pgx games (none: skip pgx)")
    parser.add_argument("--json", default=None, help="write the results here "
                        "(default benchmarks/results/bench_batch.json; --quick: not written)")
    args = parser.parse_args(argv)
    seconds = 0.3 if args.quick else 1.5
    repeats = args.repeats or (2 if args.quick else 5)
    rows = []  # (key, label, sampler)
    for name in GAMES:
        for size in args.sizes:
            for threads in args.threads:
                rows.append((f"{name}/{size}/{threads}", f"{name}, batch {size:,}, {threads} thread(s)",
                             ours(name, size, threads, seconds)))
    skipped = []
    for name in args.pgx:
        for size in args.sizes:
            sampler = pgx_sampler(name, size, seconds)
            if sampler is None:
                skipped.append(f"pgx {name}: pgx is not installed")
                break
            rows.append((f"pgx/{name}/{size}", f"pgx {name}, batch {size:,} (jax CPU)", sampler))
    runs = {key: [] for key, _, _ in rows}
    cpu_runs = {key: [] for key, _, _ in rows}
    for r in range(repeats):
        for key, _, sampler in (rows if r % 2 == 0 else rows[::-1]):
            work, elapsed, cpu = sampler()
            runs[key].append(work / elapsed)
            cpu_runs[key].append(work / cpu)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    results = {key: dict(spread(values), per_cpu_second=spread(cpu_runs[key])) for key, values in runs.items()}
    payload = {"machine": machine(), "command": "python benchmarks/bench_batch.py " + " ".join(argv or sys.argv[1:]),
               "unit": "game-decisions/s (observation and mask included)", "results": results,
               "skipped": skipped}
    try:
        import jax
        import pgx
        payload["machine"].update(jax=jax.__version__, pgx=pgx.__version__)
    except ImportError:
        pass
    table = [(label, f"{figure(results[key]['median'])} steps/s "
              f"({figure(results[key]['min'])}-{figure(results[key]['max'])}); "
              f"{figure(results[key]['per_cpu_second']['median'])} per CPU-second") for key, label, _ in rows]
    table += [(s, "") for s in skipped]
    out = None if args.quick and args.json is None else (args.json or HERE / "results" / "bench_batch.json")
    report("Batched random self-play (steps/s = game-decisions/s, observation and mask included)",
           table, payload, out)
    return payload


if __name__ == "__main__":
    main()
