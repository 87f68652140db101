"""What the `eval` choice costs alpha-beta: nodes/s before it existed, with eval=hand, with eval=texel.

    python experiments/texel/speed.py --before REV [--rounds 15]

The search as it was at git revision REV (`agents/alphabeta.py` and `ludo_flow/dispatch.py`
exported into a temporary folder and imported under other names) and today's search are
compiled into one fresh numba cache and alternated in one process, round by round, over the
16 positions of benchmarks/bench_agents.py's suite (fixed depth: Flow 5, Tolkuchka 9, a fresh
agent per position). The VM's speed drifts, so each round's rates are turned into ratios to
the round's "before" rate and the medians of the ratios are reported. The node counts of
"before" and eval=hand must be equal (the same search); eval=texel searches another tree.
Prints a table and writes speed.json beside this script.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEPTHS = {"flow": 5, "tolkuchka": 9}


def export_before(rev, folder):
    """Write the search and dispatch of `rev` as modules ab_before / dispatch_before in `folder`."""
    def show(path):
        return subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], capture_output=True, text=True,
                              check=True).stdout
    dispatch = show("ludo_flow/dispatch.py").replace("from . import registry", "from ludo_flow import registry")
    dispatch = dispatch.replace("from .flow import", "from ludo_flow.flow import").replace(
        "from .rng import", "from ludo_flow.rng import").replace("from .tolkuchka import",
                                                                 "from ludo_flow.tolkuchka import")
    search = show("agents/alphabeta.py").replace("from ludo_flow import dispatch", "import dispatch_before as dispatch")
    search = search.replace("from .base import", "from agents.base import").replace(
        "from .clock import", "from agents.clock import")
    with open(os.path.join(folder, "dispatch_before.py"), "w") as fh:
        fh.write(dispatch)
    with open(os.path.join(folder, "ab_before.py"), "w") as fh:
        fh.write(search)


def suite_run(make, positions):
    """Return (nodes, seconds) of a fresh agent from `make()` searching each position."""
    nodes, seconds = 0, 0.0
    for state in positions:
        agent = make()
        start = time.perf_counter()
        agent.select_action(state)
        seconds += time.perf_counter() - start
        nodes += agent.last_stats["nodes"]
    return nodes, seconds


def main(argv=None):
    """Measure and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision of the search before the eval setting")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="texel_speed_")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(folder, "numba")
    export_before(args.before, folder)
    sys.path.insert(0, folder)
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import numpy as np

    import ab_before
    import ludo_flow
    from agents import make_agent
    from bench_agents import suite_positions
    sys.path.insert(0, os.path.dirname(HERE))
    from common import code_version
    rows = {}
    for name, depth in DEPTHS.items():
        game = ludo_flow.load_game(name)
        positions = suite_positions(game)
        variants = {"before": lambda: ab_before.AlphaBetaAgent(depth=depth),
                    "eval=hand": lambda: make_agent(f"alphabeta:depth={depth},eval=hand", game),
                    "eval=texel": lambda: make_agent(f"alphabeta:depth={depth},eval=texel", game)}
        compile_seconds = {}
        for label, make in variants.items():  # compile (timed apart)
            start = time.perf_counter()
            suite_run(make, positions[:1])
            compile_seconds[label] = time.perf_counter() - start
        rates = {label: [] for label in variants}
        nodes = {}
        for _ in range(args.rounds):
            for label, make in variants.items():
                n, s = suite_run(make, positions)
                rates[label].append(n / s)
                nodes[label] = n
        ratios = {label: float(np.median(np.array(rates[label]) / np.array(rates["before"])))
                  for label in variants}
        rows[name] = {"depth": depth, "nodes": nodes, "median_rate": {k: float(np.median(v)) for k, v in rates.items()},
                      "median_ratio_to_before": ratios, "rates": rates, "first_call_seconds": compile_seconds}
    report = {"command": "python experiments/texel/speed.py " + " ".join(argv or sys.argv[1:]),
              "before": args.before, "rounds": args.rounds, "code": code_version(), "games": rows}
    with open(os.path.join(HERE, "speed.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print("| game | depth | variant | nodes | median nodes/s | median ratio to before |")
    print("|---|---:|---|---:|---:|---:|")
    for name, r in rows.items():
        for label in r["nodes"]:
            print(f"| {name} | {r['depth']} | {label} | {r['nodes'][label]} | {r['median_rate'][label] / 1e6:.2f} M | "
                  f"{r['median_ratio_to_before'][label]:.3f} |")


if __name__ == "__main__":
    main()
