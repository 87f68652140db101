"""First-run compile time of two source trees, alternated: CPU seconds per entry point, before / after.

    python benchmarks/bench_compile_versions.py --before PATH [--game flow] [--entry perft ...]
                                                [--rounds 3] [--cli "perft flow --depth 1" ...]
                                                [--jobs N]

PATH is another checkout holding the packages ludo_flow and agents (e.g. `git worktree add
/tmp/before main`). Both trees are copied at the start; then, round by round in alternating
order, each entry point of each tree is warmed in a new process with a new, empty cache folder
(`bench_compile.run_child`: what `warmup.warm` compiles for that entry point, helper processes
included in the CPU seconds), and each `--cli` command line is run twice as a user runs it
(first run, then cached start; `bench_compile.time_cli`). A busy machine stretches wall time and
CPU time too, so only figures of the same run, alternated, compare. Prints medians and writes
benchmarks/results/compile_versions.json (every run, and the per-function breakdown of the
main processes' last runs).
"""
import argparse
import os
import shlex
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_compile  # noqa: E402
from _common import machine, report  # noqa: E402


def snapshot(tree, folder):
    """Copy the packages of the source tree `tree` into a new folder under `folder`; return it."""
    root = Path(tempfile.mkdtemp(dir=folder))
    for name in ("ludo_flow", "agents"):
        shutil.copytree(Path(tree) / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the other source tree (a checkout)")
    parser.add_argument("--game", nargs="+", default=["flow"])
    parser.add_argument("--entry", nargs="*", default=["perft"], choices=bench_compile.ENTRY_POINTS)
    parser.add_argument("--cli", nargs="*", default=[],
                        help="ludo-flow command lines to time ({new}: a new file path each run, "
                             "e.g. --out {new})")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None,
                        help="LUDO_FLOW_COMPILE_JOBS for every process (default: the library's)")
    parser.add_argument("--out", default=str(HERE / "results" / "compile_versions.json"))
    args = parser.parse_args()
    if args.jobs is not None:
        bench_compile.JOBS["LUDO_FLOW_COMPILE_JOBS"] = str(args.jobs)
    trees = {"before": Path(args.before).resolve(), "after": bench_compile.REPO}
    runs = {label: {} for label in trees}
    breakdown = {label: {} for label in trees}
    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="ludo_flow_bench_compile_versions_") as folder:
        roots = {label: snapshot(tree, folder) for label, tree in trees.items()}
        jobs = [(f"{g}/{e}", ("entry", g, e)) for g in args.game for e in args.entry]
        jobs += [(f"ludo-flow {c}", ("cli", c)) for c in args.cli]
        for r in range(args.rounds):
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for key, job in jobs:
                for label in order:
                    base = tempfile.mkdtemp(dir=folder)
                    if job[0] == "entry":
                        out = bench_compile.run_child(roots[label], job[1], job[2], base)
                        run = {"cpu_s": out["warm_cpu_s"] + out["helpers_cpu_s"],
                               "wall_s": out["warm_s"], "process_cpu_s": out["cpu_s"],
                               "compiled": out["compiled"],
                               "compiled_in_helpers": out["compiled_in_helpers"]}
                        breakdown[label][key] = dict(sorted(out["compile_s"].items(),
                                                            key=lambda kv: -kv[1]))
                    else:
                        command = shlex.split(job[1])
                        wall, cpu, _ = bench_compile.time_cli(roots[label], command, base)
                        cached_wall, cached_cpu, _ = bench_compile.time_cli(roots[label], command, base)
                        run = {"cpu_s": cpu, "wall_s": wall, "cached_wall_s": cached_wall,
                               "cached_cpu_s": cached_cpu}
                    run["load"] = os.getloadavg()[0]
                    runs[label].setdefault(key, []).append(run)
                    print(f"# round {r + 1} {label} {key}: {run['cpu_s']:.1f} CPU s, "
                          f"{run['wall_s']:.1f} s wall, load {run['load']:.2f}",
                          file=sys.stderr, flush=True)
    rows, summary = [], {}
    for key, _ in jobs:
        summary[key] = {}
        for label in trees:
            done = runs[label][key]
            summary[key][label] = {m: statistics.median(x[m] for x in done)
                                   for m in done[0] if m != "load"}
        b, a = summary[key]["before"], summary[key]["after"]
        line = (f"{b['cpu_s']:.1f} -> {a['cpu_s']:.1f} CPU s ({a['cpu_s'] / b['cpu_s']:.2f}); "
                f"wall {b['wall_s']:.1f} -> {a['wall_s']:.1f} s")
        if "cached_wall_s" in b:
            line += f"; cached start {b['cached_wall_s']:.2f} -> {a['cached_wall_s']:.2f} s"
        rows.append((f"{key}: first run, medians of {args.rounds}, before -> after", line))
    payload = {"command": "python benchmarks/bench_compile_versions.py " + " ".join(sys.argv[1:]),
               "before": str(trees["before"]), "after_sources": bench_compile.sources(),
               "machine": machine(), "load_average": [load_at_start, os.getloadavg()],
               "compile_jobs": args.jobs if args.jobs is not None else "default",
               "summary": summary, "runs": runs, "compile_s_by_function": breakdown}
    report(f"First-run compile time, two source trees alternated ({args.rounds} rounds)", rows,
           payload, args.out)


if __name__ == "__main__":
    main()
