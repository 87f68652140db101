"""Speed of this source tree against another git revision, paired in one process: ratios new / old.

    python benchmarks/bench_versions.py --before REV [--game flow tolkuchka] [--rounds 7]
                                        [--rows perft playouts mcts mcts_uct alphabeta]
                                        [--scale 1.0] [--clock wall|cpu]

The packages ludo_flow and agents as they are at revision REV are exported into a temporary
folder and imported under other names (ludo_flow_before, agents_before), next to this tree's;
both compile into one fresh numba cache folder. Per game, from its standard start: perft leaves/s
(the kernels' `perft`), uniform random playouts plies/s (the kernels' `playout_with_length`, in
a jitted loop), MCTS simulations/s (the informed default; and `policy=uct`, random rollouts),
alpha-beta nodes/s (a node budget, the default evaluation). Every round runs each row for both
versions, in alternating order; the VM's speed drifts by a third within minutes, so each row's
figure is the median over the rounds of the ratio new / old measured in the same round (with the
min and max). The work (leaves, nodes, simulations) of the two versions is printed side by side:
equal figures say the two compute the same thing. The seconds of each version's first call
(compiling) are reported apart. On a busy machine shorter samples and more rounds pair the two
versions more closely in time: `--scale 0.25 --rounds 25` (scales all but perft's work), and
`--clock cpu` times each sample by this process's CPU time (`time.process_time`) instead of the
wall clock, so the time other processes take the cores from it does not count (the samples are
single-threaded). Writes benchmarks/results/versions.json.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from _common import figure, machine, report  # noqa: E402

ROWS = ("perft", "playouts", "mcts", "mcts_uct", "alphabeta")
CLOCK = [time.perf_counter]  # what a sample is timed by (--clock)
SIZES = {"perft": {"flow": 5, "tolkuchka": 7}, "playouts": 5000, "mcts": 20000, "mcts_uct": 5000,
         "alphabeta": 1000000}
_IMPORT = re.compile(r"^(\s*)(from|import)\s+(ludo_flow|agents)\b", re.M)
_BARE_IMPORT = re.compile(r"^(\s*)import\s+(ludo_flow|agents)[ \t]*$", re.M)  # the name is used after


def export(rev, folder):
    """Write the packages ludo_flow and agents of git revision `rev` into `folder` as
    ludo_flow_before and agents_before (their imports of each other renamed; a bare `import
    ludo_flow` becomes `import ludo_flow_before as ludo_flow`); return `folder`."""
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev, "--",
                              "ludo_flow", "agents"], capture_output=True, text=True, check=True)
    for path in listing.stdout.split():
        if not path.endswith(".py"):
            continue
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
                              capture_output=True, text=True, check=True).stdout
        text = _BARE_IMPORT.sub(lambda m: f"{m.group(1)}import {m.group(2)}_before as {m.group(2)}", text)
        text = _IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)} {m.group(3)}_before", text)
        top, _, rest = path.partition("/")
        target = Path(folder) / f"{top}_before" / rest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return folder


def playout_loop(kernels):
    """Return a jitted loop: the decisions of `games` random playouts of `kernels` from a state."""
    from numba import njit
    playout_with_length = kernels.playout_with_length

    @njit
    def loop(state, rng, games):
        plies = 0
        for _ in range(games):
            plies += playout_with_length(state, rng)[1]
        return plies
    return loop


def samplers(ludo_flow, agents, name, rows):
    """Return {row: sample()} for one version; a sample returns (work, seconds)."""
    from ludo_flow.rng import new_rng  # the same generator in both versions
    game = ludo_flow.load_game(name)
    state = game.new_initial_state()
    kernels = game.kernels
    loop = playout_loop(kernels)
    seeds = iter(range(1, 10**9))
    found = {}

    def perft():
        depth = SIZES["perft"][name]
        start = CLOCK[0]()
        leaves = int(kernels.perft(state.array, depth))
        return leaves, CLOCK[0]() - start

    def playouts():
        start = CLOCK[0]()
        plies = int(loop(state.array, new_rng(next(seeds)), SIZES["playouts"]))
        return plies, CLOCK[0]() - start

    def search(spec, work):
        def sample():
            agent = agents.make_agent(spec, game)
            start = CLOCK[0]()
            agent.select_action(state)
            return agent.last_stats[work], CLOCK[0]() - start
        return sample

    found["perft"] = perft
    found["playouts"] = playouts
    found["mcts"] = search(f"mcts:simulations={SIZES['mcts']},seed=1", "simulations")
    found["mcts_uct"] = search(f"mcts:simulations={SIZES['mcts_uct']},policy=uct,seed=1",
                               "simulations")
    found["alphabeta"] = search(f"alphabeta:depth=60,nodes={SIZES['alphabeta']}", "nodes")
    return {row: found[row] for row in rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision to compare with")
    parser.add_argument("--game", nargs="+", default=["flow", "tolkuchka"])
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=ROWS)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the work of a sample (playouts, simulations, nodes)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time each sample by the wall clock or by this process's CPU time")
    parser.add_argument("--out", default=str(HERE / "results" / "versions.json"))
    args = parser.parse_args()
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    for row in ("playouts", "mcts", "mcts_uct", "alphabeta"):
        SIZES[row] = max(1, int(SIZES[row] * args.scale))
    folder = tempfile.mkdtemp(prefix="ludo_flow_bench_versions_")
    os.environ["LUDO_FLOW_CACHE_DIR"] = os.path.join(folder, "cache")  # fresh: both compile
    os.environ.pop("NUMBA_CACHE_DIR", None)
    export(args.before, folder)
    # "new" is the tree this script is in, even where another checkout is installed
    sys.path[:0] = [folder, str(HERE.parent)]
    import agents
    import agents_before
    import ludo_flow
    import ludo_flow_before
    versions = {"old": (ludo_flow_before, agents_before), "new": (ludo_flow, agents)}
    load_at_start = os.getloadavg()
    table, payload_games = [], {}
    for name in args.game:
        cases = {label: samplers(lf, ag, name, args.rows) for label, (lf, ag) in versions.items()}
        first = {}
        for label in versions:  # compile (timed apart)
            first[label] = {}
            for row, sample in cases[label].items():
                began = time.perf_counter()
                sample()
                first[label][row] = time.perf_counter() - began
        rates = {label: {row: [] for row in args.rows} for label in versions}
        work = {label: {} for label in versions}
        for r in range(args.rounds):
            order = list(versions) if r % 2 == 0 else list(versions)[::-1]
            for row in args.rows:
                for label in order:
                    done, seconds = cases[label][row]()
                    rates[label][row].append(done / seconds)
                    work[label][row] = done
            print(f"# {name}: round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
        payload_games[name] = {}
        for row in args.rows:
            ratios = [a / b for a, b in zip(rates["new"][row], rates["old"][row])]
            entry = {"ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
                     "ratio_max": max(ratios), "ratios": ratios,
                     "old_median_rate": statistics.median(rates["old"][row]),
                     "new_median_rate": statistics.median(rates["new"][row]),
                     "old_work": work["old"][row], "new_work": work["new"][row],
                     "old_first_call_s": first["old"][row], "new_first_call_s": first["new"][row]}
            payload_games[name][row] = entry
            table.append((f"{name} {row}: new / old (min-max); old, new per s; work old, new",
                          f"{entry['ratio_median']:.3f} ({entry['ratio_min']:.3f}-"
                          f"{entry['ratio_max']:.3f}); {figure(entry['old_median_rate'])}, "
                          f"{figure(entry['new_median_rate'])}; {entry['old_work']}, "
                          f"{entry['new_work']}"))
    payload = {"command": "python benchmarks/bench_versions.py " + " ".join(sys.argv[1:]),
               "before": subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.before],
                                        capture_output=True, text=True).stdout.strip(),
               "after": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                       capture_output=True, text=True).stdout.strip(),
               "after_modified": subprocess.run(
                   ["git", "-C", str(ROOT), "status", "--porcelain", "--", "ludo_flow", "agents"],
                   capture_output=True, text=True).stdout.splitlines(),
               "rounds": args.rounds, "clock": args.clock, "sizes": SIZES, "machine": machine(),
               "load_average": [load_at_start, os.getloadavg()], "games": payload_games}
    report(f"Speed new / old, paired in one process ({args.rounds} rounds, alternating)",
           table, payload, args.out)


if __name__ == "__main__":
    main()
