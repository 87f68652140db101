"""First-run compile time of each entry point per game, where it goes, and the cached start.

    python benchmarks/bench_compile.py [--game flow|tolkuchka ...] [--entry perft play ...]
                                       [--no-cli] [--top 8] [--jobs N]

Each entry point (`perft`: the engine and perft, what a perft deeper than 1 compiles; `play`: the engine and the random agent, what
`ludo-flow play` runs; `mcts`; `alphabeta`; `tournament`: what a tournament worker runs for the
default tournament's agents) is warmed by `agents.warmup.warm` in a new process with a new,
empty cache folder (first run: numba compiles), then again in a second process on that folder
(cached start: numba loads). Times are wall clock and CPU seconds (user + system): on a busy
machine a compile's wall time stretches, its CPU time much less. Each process reports the seconds to import ludo_flow, the seconds
the warm-up took, and numba's compile events: the CPU seconds spent compiling each function,
excluding the functions it compiled on the way (its callees), so the breakdown adds up. A
first run compiles independent parts in helper processes (`agents.warmup.compile_in_helpers`;
`--jobs N` sets LUDO_FLOW_COMPILE_JOBS for every process, 1 for none): the CPU seconds then
count the helpers too, and the per-function breakdown is of the main process only (run with
`--jobs 1` for the whole breakdown). Then
the command lines `ludo-flow perft GAME --depth 1` (which compiles the move generator alone:
it counts the legal actions) and
`ludo-flow play flow --white mcts:simulations=500 --black alphabeta:depth=3` are timed as a
user runs them, wall clock of the whole process, first run and second run (`--no-cli` skips them).

Writes benchmarks/results/compile.json. Everything runs one process at a time, on a copy of the
ludo_flow and agents packages taken at the start (so an edit to the tree while it runs cannot
change the cache's key between a first and a second process).
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cli_command, machine, report  # noqa: E402

ENTRY_POINTS = ("perft", "play", "mcts", "alphabeta", "tournament")
KEYS = ("import_s", "warm_s", "warm_cpu_s", "helpers_cpu_s", "wall_s", "cpu_s", "compiled",
        "compiled_in_helpers", "loaded")

CHILD = r"""
import io, json, resource, sys, time
began = time.perf_counter()
import ludo_flow
from ludo_flow import cache, compiling
from agents import cli, warmup
import_s = time.perf_counter() - began
from numba.core import event

game_name, entry = sys.argv[1], sys.argv[2]
stack, spent = [], {}

class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data["dispatcher"], time.process_time(), 0.0])

    def on_end(self, ev):
        d, start, children = stack.pop()
        inclusive = time.process_time() - start
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        spent[name] = spent.get(name, 0.0) + inclusive - children
        if stack:
            stack[-1][2] += inclusive

def helpers_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

game = ludo_flow.load_game(game_name)
began, cpu, helpers = time.perf_counter(), time.process_time(), helpers_cpu()
with event.install_listener("numba:compile", Listener()):
    info = warmup.warm(game, perft=entry == "perft", specs=cli.entry_specs(entry),
                       stream=io.StringIO())
warm_s = time.perf_counter() - began
warm_cpu_s = time.process_time() - cpu
helpers_cpu_s = helpers_cpu() - helpers
counts = compiling.compile_counts()
print(json.dumps({"import_s": import_s, "warm_s": warm_s, "warm_cpu_s": warm_cpu_s,
                  "helpers_cpu_s": helpers_cpu_s,
                  "compiled_in_helpers": max(0, sum(info.compiled.values())
                                             - sum(m for _, m in counts.values())),
                  "compile_s": spent,
                  "compiled": sum(m for _, m in counts.values()),
                  "loaded": sum(h for h, _ in counts.values()),
                  "cache_dir": str(cache.cache_dir())}))
"""


REPO = Path(__file__).resolve().parent.parent


def copy_package(folder):
    """Copy the ludo_flow and agents packages' sources into `folder`; return it."""
    for name in ("ludo_flow", "agents"):
        shutil.copytree(REPO / name, Path(folder) / name, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


JOBS = {}  # LUDO_FLOW_COMPILE_JOBS for every process, if --jobs is given


def child_env(root, cache_base):
    """Return the environment of a process that imports the copy in `root` and caches under
    `cache_base` only."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "LUDO_FLOW_CACHE_DIR", "PYTHONPATH")}
    env.update(LUDO_FLOW_CACHE_DIR=cache_base, PYTHONPATH=str(root), **JOBS)
    return env


def children_cpu():
    """Return the CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(root, game, entry, cache_base):
    """Warm one entry point in a new process; return its report and the process's wall and CPU
    seconds."""
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run([sys.executable, "-c", CHILD, game, entry], cwd=root,
                          env=child_env(root, cache_base), capture_output=True, text=True,
                          check=False)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{game} {entry}: {done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(wall_s=wall, cpu_s=cpu)
    return result


def time_cli(root, args, cache_base):
    """Return (wall seconds, CPU seconds, stderr) of one `ludo-flow ARGS` process caching under
    `cache_base`. Each `{new}` in ARGS becomes the path of a file not yet there (a tournament's
    records: `--out {new}`), so one command line can run again."""
    if any("{new}" in a for a in args):
        folder = tempfile.mkdtemp(dir=cache_base, prefix="new-")
        args = [a.replace("{new}", os.path.join(folder, "new")) for a in args]
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(cli_command(*args), cwd=root, env=child_env(root, cache_base),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ludo-flow {' '.join(args)}: {done.stderr}")
    return time.perf_counter() - start, children_cpu() - cpu, done.stderr


def sources():
    """Return what was measured: the git commit, the files that differ from it, the cache key."""
    def git(*args):
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)
        return done.stdout.rstrip("\n")
    key = subprocess.run([sys.executable, "-c", "from ludo_flow import cache; print(cache.entry_name())"],
                         cwd=REPO, capture_output=True, text=True, check=False).stdout.strip()
    return {"commit": git("rev-parse", "HEAD").strip(),
            "modified": git("status", "--porcelain", "--", "ludo_flow", "agents").splitlines(),
            "cache_key": key}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=["flow", "tolkuchka"])
    parser.add_argument("--entry", nargs="+", default=list(ENTRY_POINTS), choices=ENTRY_POINTS)
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line timings")
    parser.add_argument("--top", type=int, default=8, help="functions listed per entry point")
    parser.add_argument("--jobs", type=int, default=None,
                        help="LUDO_FLOW_COMPILE_JOBS for every process (default: the library's)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "compile.json"))
    args = parser.parse_args()
    if args.jobs is not None:
        JOBS["LUDO_FLOW_COMPILE_JOBS"] = str(args.jobs)
    rows, entries, cli = [], {}, {}
    load_at_start = os.getloadavg()
    measured = sources()
    with tempfile.TemporaryDirectory(prefix="ludo_flow_bench_compile_") as folder:
        root = copy_package(tempfile.mkdtemp(dir=folder))
        for game in args.game:
            for entry in args.entry:
                base = tempfile.mkdtemp(dir=folder)
                first = run_child(root, game, entry, base)
                second = run_child(root, game, entry, base)
                top = sorted(first["compile_s"].items(), key=lambda kv: -kv[1])
                entries[f"{game}/{entry}"] = {
                    "first": {k: first[k] for k in KEYS},
                    "cached": {k: second[k] for k in KEYS},
                    "compile_s_by_function": dict(top),
                    "compile_s_total": sum(first["compile_s"].values())}
                rows.append((f"{game} {entry}: first run, wall s / CPU s + helpers' CPU s (functions "
                             "compiled here + in helpers)",
                             f"{first['warm_s']:.1f} / {first['warm_cpu_s']:.1f} + "
                             f"{first['helpers_cpu_s']:.1f} ({first['compiled']} + "
                             f"{first['compiled_in_helpers']}); whole process {first['wall_s']:.1f} / "
                             f"{first['cpu_s']:.1f}"))
                rows.append((f"{game} {entry}: cached start, wall s / CPU s (loaded)",
                             f"{second['warm_s']:.2f} / {second['warm_cpu_s']:.2f} ({second['loaded']}, "
                             f"compiled {second['compiled']}); whole process {second['wall_s']:.2f} / "
                             f"{second['cpu_s']:.2f}"))
                for name, seconds in top[:args.top]:
                    rows.append((f"    {name} (CPU s)", f"{seconds:.1f}"))
                print(f"# {game} {entry}: {first['warm_s']:.1f} s, cached {second['warm_s']:.2f} s",
                      file=sys.stderr, flush=True)
        if not args.no_cli:
            commands = [["perft", g, "--depth", "1"] for g in args.game]
            if "flow" in args.game:
                commands.append(["play", "flow", "--white", "mcts:simulations=500",
                                 "--black", "alphabeta:depth=3", "--seed", "1"])
            for command in commands:
                base = tempfile.mkdtemp(dir=folder)
                first, first_cpu, notice = time_cli(root, command, base)
                second, second_cpu, quiet = time_cli(root, command, base)
                label = "ludo-flow " + " ".join(command)
                cli[label] = {"first_s": first, "first_cpu_s": first_cpu, "cached_s": second,
                              "cached_cpu_s": second_cpu, "first_stderr": notice,
                              "cached_stderr": quiet}
                rows.append((f"{label}: first / second process, wall s (CPU s)",
                             f"{first:.1f} ({first_cpu:.1f}) / {second:.2f} ({second_cpu:.2f})"))
                print(f"# {label}: {first:.1f} s, cached {second:.2f} s", file=sys.stderr, flush=True)
    payload = {"machine": machine(), "load_average": [load_at_start, os.getloadavg()],
               "compile_jobs": args.jobs if args.jobs is not None else "default (the machine's cores, at most 4)",
               "sources": measured, "entries": entries,
               "cli": cli}
    report("First-run compile time and cached start (each in new processes, new cache folders)",
           rows, payload, args.out)


if __name__ == "__main__":
    main()
