"""The whole benchmark suite in one run, side by side with peers: what `ludo-flow bench` runs.

    ludo-flow bench [--quick] [--json FILE] [--repeats N] [--compile-json FILE]
    python benchmarks/bench_suite.py [the same options]   (the same thing)

For each game, from its standard start: perft leaves/s; uniform random playouts, plies/s, on
one core, on all cores (one independent stream of playouts per core, in worker processes) and
by the reference engine; MCTS simulations/s; alpha-beta nodes/s; batched random self-play
steps/s (`ludo_flow.batch`, the observation and mask written) at batch 64, 1,024 and 8,192 on 1
and 2 of numba's threads, measured by benchmarks/bench_batch.py's samplers; the seconds of the first call
in this process (compiling, or loading numba's cache) and of a cached start (a new
`ludo-flow warmup GAME` process on the warm cache). Then, with open_spiel installed: our MCTS
against OpenSpiel's C++ `pyspiel.MCTSBot` and its Python `mcts.MCTSBot` on our own game through
`ludo_flow.adapters.openspiel`, at equal simulations; and, as a yardstick that does not depend
on our code, OpenSpiel's C++ random playouts and C++ MCTS on its own `breakthrough`. With pgx
installed (the `pgx` extra), pgx's othello and connect_four run the same batched random
self-play on the CPU at the same batch sizes (`jax.jit(jax.vmap(env.step))`), side by side;
without it, one line says those rows were skipped.

Every row is measured once per round and the rounds alternate the order (forwards, then
backwards), so the machine's drift hits every row alike; a row's figure is the median of its
rounds, with the min and max. A ratio is the median of the per-round ratios of two rows
measured in the same round. Ratios are the headline: absolute figures drift between machines
(and on a shared VM between runs) by a third.

Equal simulations: every contender searches the same positions (the start and seeded random
openings, each with at least two legal actions) with the same number of simulations per
position, UCT with the same exploration constant, one uniform random rollout to the end of the
game per simulation, a rollout's value its terminal returns (a draw worth 0), and no solver:
our MCTS as `policy=uct` (plain UCT; the informed default scores leaves by the evaluation and
plays no rollouts), OpenSpiel's bots with `solve=False`.
Each bot is built once and searches every position; only the search is timed. OpenSpiel's bots
reach our game through the adapter's Python State: each of their simulations clones states and
calls legal_actions / apply_action in Python (for the C++ bot, through pybind11). That is the
honest cost a user pays to run OpenSpiel's algorithms on these games. Our MCTS keeps its tree
and rollouts in compiled code. The simulations counted are what each search reports (the root's
visit count for OpenSpiel's bots).

The full run (no --quick) also measures the first-run compile time of the `perft` and
`tournament` entry points per game in new processes with fresh caches, by running
benchmarks/bench_compile.py (or reads a result of it given by --compile-json). --quick uses tiny
sizes and skips that (its first-call rows show what this process compiled or loaded).
"""
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import batch_key, cli_command, figure, machine, report, run_seconds, spread, timed  # noqa: E402
from bench_agents import replay_line, suite_lines  # noqa: E402
from bench_batch import PGX_GAMES, ours as batch_sampler, pgx_sampler  # noqa: E402
from bench_engines import SETTINGS as ENGINE_SETTINGS, playout_batch, reference_plies  # noqa: E402

import numba

import ludo_flow  # noqa: E402
from agents import make_agent  # noqa: E402
from agents import warmup  # noqa: E402
from ludo_flow import compiling, dispatch  # noqa: E402
from ludo_flow.rng import new_rng  # noqa: E402

GAME_NAMES = ("flow", "tolkuchka")
UCT_C = 1.0  # every MCTS of the side-by-side rows
SIZES = {  # work per sample (one round of one row)
    "full": {"repeats": 5, "perft_depth": {"flow": 5, "tolkuchka": 7}, "playouts": 10000,
             "reference_playouts": 3, "mcts": 20000, "alphabeta": 1000000,
             "equal_simulations": 200, "equal_positions": 2, "adapter_playouts": 20,
             "cached_starts": 3, "breakthrough_playouts": 2000, "breakthrough_mcts": 3000,
             "batch_sizes": (64, 1024, 8192), "batch_seconds": 1.0},
    "quick": {"repeats": 3, "perft_depth": {"flow": 3, "tolkuchka": 5}, "playouts": 2000,
              "reference_playouts": 1, "mcts": 2000, "alphabeta": 100000,
              "equal_simulations": 20, "equal_positions": 2, "adapter_playouts": 2,
              "cached_starts": 1, "breakthrough_playouts": 200, "breakthrough_mcts": 300,
              "batch_sizes": (8, 64), "batch_seconds": 0.05},
}
COMPILE_ENTRIES = ("perft", "tournament")
PGX_NOTE = 'pgx is not installed (pip install pgx "jax[cpu]", the `pgx` extra): no pgx rows'


class Case:
    """One row of the table: `sample()` runs it once and returns (work, seconds); its figure is
    work / seconds, or the seconds themselves when `unit` is "s"."""

    def __init__(self, key, label, unit, sample, max_runs=None, **info):
        self.key, self.label, self.unit, self.sample, self.info = key, label, unit, sample, info
        self.max_runs = max_runs  # None: one run a round
        self.work = []  # the work of each run: plies, leaves, simulations, nodes

    def measure(self):
        """Run one sample; return its figure."""
        work, seconds = self.sample()
        self.work.append(work)
        return seconds if self.unit == "s" else work / seconds


# ---- our engines and agents --------------------------------------------------------------------
_WORKER_GAMES = {}


def worker_playouts(name, games, seed):
    """Return the plies of `games` uniform random playouts of game `name` from its start."""
    if name not in _WORKER_GAMES:
        game = ludo_flow.load_game(name)
        _WORKER_GAMES[name] = (game.game_id, game.new_initial_state().array)
    game_id, start = _WORKER_GAMES[name]
    return int(playout_batch(game_id, start, new_rng(seed), games))


def worker_loop(conn):
    """Run the jobs (name, games, seed) received on `conn`, sending back their plies, until None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # on Ctrl-C the suite's process stops us
    for job in iter(conn.recv, None):
        conn.send(worker_playouts(*job))


class PlayoutWorkers:
    """One process per core, each running its own stream of random playouts when told to (a
    pipe each, so every process gets exactly one job a run)."""

    def __init__(self, count):
        ctx = multiprocessing.get_context("spawn")
        self.pipes, self.processes = [], []
        for _ in range(count):
            ours, theirs = ctx.Pipe()
            process = ctx.Process(target=worker_loop, args=(theirs,), daemon=True)
            process.start()
            self.pipes.append(ours)
            self.processes.append(process)

    def run(self, name, games, seeds):
        """Return the total plies of `games` playouts of game `name` in every process at once."""
        for conn, seed in zip(self.pipes, seeds):
            conn.send((name, games, seed))
        return sum(conn.recv() for conn in self.pipes)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for conn in self.pipes:
            try:
                conn.send(None)
            except OSError:  # that process is gone already
                pass
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()


def loaded_functions():
    """Return how many signatures of the package's functions this process loaded from the cache."""
    return sum(hits for hits, _ in compiling.compile_counts().values())


def game_cases(name, size, workers, cores, rows):
    """Warm game `name` up (its first-call row goes into `rows`); return its timed Cases."""
    game = ludo_flow.load_game(name)
    gid = game.game_id
    start_state = game.new_initial_state()
    start = start_state.array
    loaded = loaded_functions()
    specs = ("random", "mcts", "alphabeta")
    (info, _), first = timed(lambda: (warmup.warm(game, perft=True, specs=specs),
                                      playout_batch(gid, start, new_rng(0), 1)))
    compiled, loaded = sum(info.compiled.values()), loaded_functions() - loaded
    workers.run(name, 1, range(cores))  # each process loads the kernels
    did = f"compiled {compiled} functions" if compiled else f"loaded {loaded} from the cache"
    rows[f"{name}.first_call"] = {
        "label": f"{name}: first calls in this process ({did})", "unit": "s",
        **spread([first]), "compiled": compiled, "loaded": loaded}

    depth = size["perft_depth"][name]
    leaves = int(dispatch.perft(gid, start, depth))
    seeds = iter(range(1, 10**9))
    games = size["playouts"]
    reference_start = ENGINE_SETTINGS[name][0]
    mcts = make_agent(f"mcts:simulations={size['mcts']},seed=1", game)
    mcts.select_action(start_state)  # allocates its tree outside the timed runs

    def mcts_sample():
        mcts.select_action(start_state)
        return mcts.last_stats["simulations"], mcts.last_stats["time"]

    def alphabeta_sample():
        agent = make_agent(f"alphabeta:depth=60,nodes={size['alphabeta']}", game)
        start_time = time.perf_counter()
        agent.select_action(start_state)
        return agent.last_stats["nodes"], time.perf_counter() - start_time

    cases = [
        Case(f"{name}.perft", f"{name}: perft({depth}) = {leaves:,} from the start", "leaves/s",
             lambda: timed(lambda: int(dispatch.perft(gid, start, depth))),
             depth=depth, leaves=leaves),
        Case(f"{name}.playouts", f"{name}: random playouts, 1 core ({games:,} a run)", "plies/s",
             lambda: timed(lambda: playout_batch(gid, start, new_rng(next(seeds)), games)),
             games=games),
        Case(f"{name}.playouts_all_cores",
             f"{name}: random playouts, {cores} cores ({games:,} a core, one process each)",
             "plies/s",
             lambda: timed(lambda: workers.run(name, games, [next(seeds) for _ in range(cores)])),
             games_per_core=games, processes=cores),
        Case(f"{name}.reference_playouts",
             f"{name}: random playouts, reference engine ({size['reference_playouts']} a run)",
             "plies/s",
             lambda: timed(lambda: reference_plies(reference_start, size["reference_playouts"],
                                                        next(seeds))),
             games=size["reference_playouts"]),
        Case(f"{name}.mcts", f"{name}: our MCTS (informed default) from the start ({size['mcts']:,} simulations)",
             "simulations/s", mcts_sample, simulations=size["mcts"]),
        Case(f"{name}.alphabeta",
             f"{name}: our alpha-beta from the start ({size['alphabeta']:,} nodes)",
             "nodes/s", alphabeta_sample, nodes=size["alphabeta"]),
    ]
    cases += batch_cases(name, size)
    command = cli_command("warmup", name)
    cases.append(Case(f"{name}.cached_start",
                      f"{name}: cached start, a new `ludo-flow warmup {name}` process", "s",
                      lambda: (1, run_seconds(command)[0]), max_runs=size["cached_starts"],
                      command="ludo-flow warmup " + name))
    return cases


# ---- batched random self-play: ours and pgx's ---------------------------------------------------
def batch_threads():
    """Return the thread counts of the batched rows: (1, 2), or (1,) where numba has one thread."""
    return (1, 2) if numba.config.NUMBA_NUM_THREADS >= 2 else (1,)


def _case_sample(sampler):
    """Return a Case's sample function around a bench_batch sampler (which adds CPU seconds)."""
    return lambda: sampler()[:2]


def batch_cases(name, size):
    """Return the batched random self-play Cases of game `name` at every batch size and thread
    count (each sampler compiles or loads the batch kernels when made)."""
    cases = []
    for batch in size["batch_sizes"]:
        for threads in batch_threads():
            cases.append(Case(
                batch_key(name, batch, threads),
                f"{name}: batched random self-play, batch {batch:,}, {threads} thread{'s' * (threads > 1)} "
                "(observation and mask written)", "steps/s",
                _case_sample(batch_sampler(name, batch, threads, size["batch_seconds"])),
                batch=batch, threads=threads, seconds_a_run=size["batch_seconds"]))
    return cases


def pgx_cases(size, skipped):
    """Return pgx's batched random self-play Cases (its games on the CPU, our batch sizes), or
    none with a note in `skipped` when pgx is not installed."""
    cases = []
    for name in PGX_GAMES:
        for batch in size["batch_sizes"]:
            sampler = pgx_sampler(name, batch, size["batch_seconds"])
            if sampler is None:
                skipped["pgx.batch"] = PGX_NOTE
                return []
            cases.append(Case(batch_key(name, batch), f"pgx {name}: batched random self-play, "
                              f"batch {batch:,} (jax on the CPU)", "steps/s", _case_sample(sampler),
                              batch=batch, seconds_a_run=size["batch_seconds"]))
    return cases


# ---- equal simulations: our MCTS and OpenSpiel's bots on our games ----------------------------
def equal_positions(game, count):
    """Return [action list]: the start and seeded random openings, each with two or more legal
    actions (a single legal action is not searched)."""
    lines = [[]] + suite_lines(game, count=4 * count, seed=5, plies=(1, 12))
    return [line for line in lines if len(replay_line(game, line).legal_actions()) >= 2][:count]


def our_mcts_equal_sample(game, lines, simulations):
    """Return a sample function timing our MCTS over `lines` at `simulations` each."""
    states = [replay_line(game, line) for line in lines]
    agent = make_agent(f"mcts:simulations={simulations},policy=uct,c={UCT_C},seed=1", game)
    agent.select_action(states[0])  # allocates its tree outside the timed runs

    def sample():
        sims = seconds = 0
        for state in states:
            agent.select_action(state)
            sims += agent.last_stats["simulations"]
            seconds += agent.last_stats["time"]
        return sims, seconds
    return sample


def openspiel_states(os_game, game, lines):
    """Return the OpenSpiel states reached by `lines`, checked to have our legal actions."""
    states = []
    for line in lines:
        os_state = os_game.new_initial_state()
        for action in line:
            os_state.apply_action(action)
        ours = sorted(replay_line(game, line).legal_actions())
        if sorted(os_state.legal_actions()) != ours:
            raise RuntimeError(f"the OpenSpiel adapter's position after {line} has other legal "
                               "actions than ours: the side-by-side rows would not compare alike")
        states.append(os_state)
    return states


def search_sample(search, states):
    """Return a sample function timing `search(state)` (returning an OpenSpiel SearchNode) over
    `states`; its work is the simulations (the root's visits)."""
    def sample():
        sims = seconds = 0
        for state in states:
            start = time.perf_counter()
            root = search(state)
            seconds += time.perf_counter() - start
            sims += root.explore_count
        return sims, seconds
    return sample


def cpp_mcts(pyspiel, os_game, simulations, seed):
    """Return OpenSpiel's C++ MCTSBot: UCT_C, one random rollout per simulation, no solver."""
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(os_game, evaluator, UCT_C, simulations, 1000, False, seed, False)


def python_mcts(os_game, simulations, seed):
    """Return OpenSpiel's Python MCTSBot: UCT_C, one random rollout per simulation, no solver."""
    import numpy as np
    from open_spiel.python.algorithms import mcts
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return mcts.MCTSBot(os_game, UCT_C, simulations, evaluator, solve=False,
                        random_state=np.random.RandomState(seed))


def load_pyspiel():
    """Return the pyspiel module, or None if open_spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def load_adapter():
    """Import the OpenSpiel adapter (registering our games); return None, or why it cannot."""
    try:
        import ludo_flow.adapters.openspiel  # noqa: F401
    except ImportError as err:
        return f"the OpenSpiel adapter (ludo_flow.adapters.openspiel) cannot be imported: {err}"
    return None


def equal_cases(name, size, pyspiel, skipped):
    """Return the equal-simulations Cases of game `name`: ours and, if they can run, OpenSpiel's."""
    game = ludo_flow.load_game(name)
    lines = equal_positions(game, size["equal_positions"])
    sims = size["equal_simulations"]
    where = f"{len(lines)} positions x {sims} simulations"
    cases = [Case(f"{name}.mcts_equal", f"{name}: our MCTS ({where})", "simulations/s",
                  our_mcts_equal_sample(game, lines, sims), positions=lines, simulations=sims)]
    keys = (f"{name}.openspiel_cpp_mcts", f"{name}.openspiel_python_mcts",
            f"{name}.openspiel_adapter_playouts")
    problem = ("open_spiel is not installed (pip install open_spiel)" if pyspiel is None
               else load_adapter())
    if problem is not None:
        skipped.update({key: problem for key in keys})
        return cases
    os_game = pyspiel.load_game(f"ludo_flow_{name}")
    states = openspiel_states(os_game, game, lines)
    cpp = cpp_mcts(pyspiel, os_game, sims, 1)
    py = python_mcts(os_game, sims, 1)
    cases += [
        Case(keys[0], f"{name}: OpenSpiel C++ MCTSBot, through the adapter ({where})",
             "simulations/s", search_sample(cpp.mcts_search, states), simulations=sims),
        Case(keys[1], f"{name}: OpenSpiel Python MCTSBot, through the adapter ({where})",
             "simulations/s", search_sample(py.mcts_search, states), simulations=sims),
        Case(keys[2], f"{name}: random playouts through the adapter, from Python "
             f"({size['adapter_playouts']} a run)", "plies/s",
             adapter_playout_sample(os_game, size["adapter_playouts"]),
             games=size["adapter_playouts"]),
    ]
    return cases


def adapter_playout_sample(os_game, games):
    """Return a sample function timing `games` uniform random playouts of an OpenSpiel game
    played from Python (legal_actions, apply_action): the cost of a ply through the adapter."""
    seeds = iter(range(1, 10**9))

    def playouts():
        rng = random.Random(next(seeds))
        plies = 0
        for _ in range(games):
            state = os_game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                plies += 1
        return plies
    return lambda: timed(playouts)


def breakthrough_cases(size, pyspiel, skipped):
    """Return the yardstick Cases: OpenSpiel's C++ random playouts and MCTS on breakthrough."""
    keys = ("breakthrough.cpp_playouts", "breakthrough.cpp_mcts")
    if pyspiel is None:
        skipped.update({key: "open_spiel is not installed (pip install open_spiel)" for key in keys})
        return []
    os_game = pyspiel.load_game("breakthrough")
    bots = [pyspiel.make_uniform_random_bot(0, 1), pyspiel.make_uniform_random_bot(1, 2)]
    seeds = iter(range(1, 10**9))
    games = size["breakthrough_playouts"]
    sims = size["breakthrough_mcts"]
    bot = cpp_mcts(pyspiel, os_game, sims, 1)

    def playouts():
        plies = 0
        for _ in range(games):
            state = os_game.new_initial_state()
            pyspiel.evaluate_bots(state, bots, next(seeds))  # plays the game out in C++
            plies += len(state.history())
        return plies

    return [
        Case(keys[0], f"breakthrough: OpenSpiel C++ random playouts ({games:,} a run)", "plies/s",
             lambda: timed(playouts), games=games),
        Case(keys[1], f"breakthrough: OpenSpiel C++ MCTSBot from the start ({sims:,} simulations)",
             "simulations/s", search_sample(bot.mcts_search, [os_game.new_initial_state()]),
             simulations=sims),
    ]


# ---- ratios ------------------------------------------------------------------------------------
def ratio_specs(batch=8192):
    """Return [(key, label, numerator row, denominator row)] of the headline ratios (`batch`:
    the batch size of the batched ratios, on the most threads the batched rows use)."""
    specs = []
    threads = max(batch_threads())
    for name in GAME_NAMES:
        specs += [(f"{name}.batch_over_pgx_{peer}", (f"{name}: batched random self-play / pgx "
                   f"{peer}'s, batch {batch:,} ({threads} thread{'s' * (threads > 1)} / jax on the CPU)"),
                   batch_key(name, batch, threads), batch_key(peer, batch)) for peer in PGX_GAMES]
        specs += [
            (f"{name}.mcts_over_openspiel_cpp", f"{name}: our MCTS / OpenSpiel C++ MCTSBot, "
             "equal simulations", f"{name}.mcts_equal", f"{name}.openspiel_cpp_mcts"),
            (f"{name}.mcts_over_openspiel_python", f"{name}: our MCTS / OpenSpiel Python "
             "MCTSBot, equal simulations", f"{name}.mcts_equal", f"{name}.openspiel_python_mcts"),
            (f"{name}.kernels_over_reference", f"{name}: kernels / reference engine, random "
             "playouts", f"{name}.playouts", f"{name}.reference_playouts"),
            (f"{name}.kernels_over_adapter", f"{name}: kernels / the OpenSpiel adapter from "
             "Python, random playouts", f"{name}.playouts", f"{name}.openspiel_adapter_playouts"),
            (f"{name}.all_cores_over_one_core", f"{name}: random playouts, all cores / one core",
             f"{name}.playouts_all_cores", f"{name}.playouts"),
            (f"{name}.playouts_over_breakthrough", f"{name}: our random playouts / OpenSpiel C++ "
             "breakthrough playouts (plies/s)", f"{name}.playouts", "breakthrough.cpp_playouts"),
            (f"{name}.mcts_over_breakthrough", f"{name}: our MCTS / OpenSpiel C++ MCTS on "
             "breakthrough (simulations/s)", f"{name}.mcts", "breakthrough.cpp_mcts"),
        ]
    return specs


def ratios(runs, batch=8192):
    """Return {key: ratio row} for every ratio whose two rows were both measured (`batch`: see
    ratio_specs)."""
    table = {}
    for key, label, top, bottom in ratio_specs(batch):
        if top in runs and bottom in runs:
            per_round = [a / b for a, b in zip(runs[top], runs[bottom])]
            table[key] = {"label": label, "numerator": top, "denominator": bottom,
                          **spread(per_round)}
    return table


# ---- compile times (bench_compile.py) ----------------------------------------------------------
def compile_rows(path):
    """Return {key: row} per game and entry point from a bench_compile.py JSON result: the CPU
    seconds of the first run's warm-up, with those of the helper processes it compiles in
    (its wall time stretches on a busy machine, and shrinks with helpers on idle cores), and
    the wall seconds of a whole second process (loading the cache)."""
    entries = json.loads(Path(path).read_text()).get("entries", {})
    rows = {}
    for where, entry in entries.items():
        game, _, point = where.partition("/")
        first, cached = entry.get("first", {}), entry.get("cached", {})
        if "warm_cpu_s" in first:
            cpu = first["warm_cpu_s"] + first.get("helpers_cpu_s", 0.0)  # helper processes too
            rows[f"{game}.compile.{point}"] = {
                "label": f"{game}: first run of `{point}`, fresh cache, compiling "
                         f"(wall {first.get('warm_s', 0):.1f} s)", "unit": "CPU s",
                **spread([cpu]), "wall_s": first.get("warm_s"),
                "process_wall_s": first.get("wall_s"), "compiled": first.get("compiled")}
        if "wall_s" in cached:
            rows[f"{game}.cached.{point}"] = {
                "label": f"{game}: cached start of `{point}`, a second process (whole process)",
                "unit": "s", **spread([cached["wall_s"]]), "warm_s": cached.get("warm_s"),
                "loaded": cached.get("loaded")}
    return rows


def run_compile_bench(folder):
    """Run bench_compile.py on the `perft` and `tournament` entry points; return its JSON path."""
    out = Path(folder) / "compile.json"
    subprocess.run([sys.executable, str(HERE / "bench_compile.py"), "--game", *GAME_NAMES,
                    "--entry", *COMPILE_ENTRIES, "--no-cli", "--out", str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    return out


# ---- the run -----------------------------------------------------------------------------------
def run_rounds(cases, repeats, log):
    """Return {row key: [figure per round]}, the rounds alternating forwards and backwards."""
    runs = {case.key: [] for case in cases}
    for r in range(repeats):
        log(f"# round {r + 1}/{repeats}")
        for case in (cases if r % 2 == 0 else cases[::-1]):
            if case.max_runs is None or len(runs[case.key]) < case.max_runs:
                runs[case.key].append(case.measure())
    return runs


def versions(pyspiel):
    """Return the versions of the libraries the figures depend on beyond numba and numpy."""
    from importlib import metadata
    found = {"ludo_flow": ludo_flow.__version__}
    wanted = ["pgx", "jax"] + ["open_spiel"] * (pyspiel is not None)
    for name in wanted:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name == "open_spiel":
                found[name] = "unknown"
    return found


def table_rows(payload):
    """Return the (label, value) lines of the printed table."""
    lines = [("Ratios (median of the per-round ratios; min-max)", "")]
    for row in payload["ratios"].values():
        lines.append((f"  {row['label']}", f"{figure(row['median'])}x  ({figure(row['min'])}-"
                                          f"{figure(row['max'])})"))
    lines.append(("Rows (median of the rounds; min-max)", ""))
    for row in payload["rows"].values():
        lines.append((f"  {row['label']}", f"{figure(row['median'])} {row['unit']}  "
                                          f"({figure(row['min'])}-{figure(row['max'])})"))
    for key, why in payload["skipped"].items():
        lines.append((f"  {key}", f"skipped: {why}"))
    info = payload["machine"]
    loads = [" ".join(f"{x:.2f}" for x in load or ()) or "unknown"
             for load in (info["load_average"], payload["load_average_end"])]
    lines.append(("load average (1, 5, 15 min) at start / end", " / ".join(loads)))
    lines.append(("libraries", ", ".join(f"{k} {v}" for k, v in info["libraries"].items())))
    return lines


def run(quick=False, json_path=None, repeats=None, compile_json=None, command="ludo-flow bench",
        log=None):
    """Run the suite; print its table, write its JSON to `json_path` (none: the full run writes
    benchmarks/results/bench.json, --quick nothing); return the payload."""
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    mode = "quick" if quick else "full"
    size = dict(SIZES[mode])
    size["repeats"] = repeats or size["repeats"]
    pyspiel = load_pyspiel()
    info = machine()
    info["libraries"] = versions(pyspiel)
    rows, skipped, notes = {}, {}, []
    with tempfile.TemporaryDirectory(prefix="ludo_flow_bench_") as folder:
        if compile_json:
            rows.update(compile_rows(compile_json))
            notes.append(f"compile times read from {compile_json}")
        elif quick:
            notes.append("--quick: no first-run compile times in fresh caches (bench_compile.py "
                         "takes minutes); the first-call rows show this process's compile or load")
        else:
            log("# compile times: benchmarks/bench_compile.py --entry " + " ".join(COMPILE_ENTRIES))
            rows.update(compile_rows(run_compile_bench(folder)))
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        with PlayoutWorkers(cores) as workers:
            cases = []
            for name in GAME_NAMES:
                log(f"# {name}: warming up")
                cases += game_cases(name, size, workers, cores, rows)
                cases += equal_cases(name, size, pyspiel, skipped)
            cases += breakthrough_cases(size, pyspiel, skipped)
            log("# pgx: warming up")
            cases += pgx_cases(size, skipped)
            runs = run_rounds(cases, size["repeats"], log)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # the batched rows set it per run
    if len(batch_threads()) == 1:
        notes.append("numba has one thread on this machine: no 2-thread batched rows")
    for case in cases:
        rows[case.key] = {"label": case.label, "unit": case.unit, **spread(runs[case.key]),
                          **case.info, "work": case.work}
        if "games" in case.info or "games_per_core" in case.info:
            games = case.info.get("games") or case.info["games_per_core"] * case.info["processes"]
            rows[case.key]["plies_per_game"] = sum(case.work) / (games * len(case.work))
    payload = {"command": command, "mode": mode,
               "repeats": size["repeats"], "sizes": size, "uct_c": UCT_C, "machine": info,
               "load_average_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
               "ratios": ratios(runs, max(size["batch_sizes"])), "rows": rows, "skipped": skipped, "notes": notes}
    report(f"ludo-flow bench ({mode}: {size['repeats']} rounds, alternating)",
           table_rows(payload), payload,
           json_path or (None if quick else HERE / "results" / "bench.json"))
    for note in notes:
        print(f"# {note}")
    return payload


if __name__ == "__main__":
    from agents.cli import main
    sys.exit(main(["bench", *sys.argv[1:]]))
