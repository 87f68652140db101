"""Tournament throughput of this source tree against another git revision's runner, in one run:
games/s of random against random (or `--agents`) on worker processes, the two runners alternating,
ratio new / old.

    python benchmarks/bench_tournament_versions.py --before REV [--game flow] [--games 4000]
                                                   [--workers 2] [--rounds 3] [--agents A B]

The packages ludo_flow and agents as they are at revision REV are exported into a temporary
folder and imported as ludo_flow_before and agents_before (as `bench_versions.py` does), next to
this tree's; both compile into one fresh cache folder before the first timed run (timed apart).
Every round runs one tournament with each runner (`--games` games, random:plies=2 openings, seed
1, `--workers` worker processes (at least 1: the games are never played in this process, which
holds both versions), no progress bar), in alternating order; a run's time is its
whole `Tournament.run()`: starting the workers, playing, writing the records, the closing report.
The VM's speed drifts by a third within minutes, so the figure is the median over the rounds of
the ratio new / old measured in the same round (with the min and max). The records of the two
runners are compared game by game: the same ids, moves and results (and each move's search but
its times, where both record it), or the benchmark fails. Two random agents play a whole game in
one jitted loop; other agents (`--agents random alphabeta:depth=1`) time `play_game`'s move loop.
Writes benchmarks/results/tournament_versions.json.
"""
import argparse
import os
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
from bench_versions import export  # noqa: E402


def run_once(tournament_class, game, games, workers, out, agents=("random", "random:seed=1")):
    """Play one tournament of `agents`; return (seconds, {id: (moves, result, search but its times)})."""
    t = tournament_class(game, list(agents), games=games, openings="random:plies=2",
                         seed=1, out=out, workers=workers, progress=False)
    start = time.perf_counter()
    result = t.run()
    seconds = time.perf_counter() - start
    records = result.records
    finished = getattr(result, "finished", len(records))  # older runners have no `finished`
    if finished != games:
        raise SystemExit(f"{out}: {finished} of {games} games recorded")
    return seconds, {r["id"]: (r["moves"], r["result"], {k: v for k, v in r.get("search", {}).items() if k != "time"})
                     for r in records}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision of the runner to compare with")
    parser.add_argument("--game", default="flow", choices=["flow", "tolkuchka"])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--agents", nargs=2, default=["random", "random:seed=1"], metavar="SPEC",
                        help="the two agents (default: random random:seed=1)")
    parser.add_argument("--out", default=str(HERE / "results" / "tournament_versions.json"))
    args = parser.parse_args()
    if args.workers < 1:
        # Both versions live in this process: numba types the arguments of the version run
        # second in Python, not C (measured: whichever runs second, about 3.5x slower).
        parser.error("--workers must be at least 1: this process holds both versions, which slows "
                     "the one run second; the worker processes hold one each")
    folder = tempfile.mkdtemp(prefix="ludo_flow_bench_tournament_")
    os.environ["LUDO_FLOW_CACHE_DIR"] = os.path.join(folder, "cache")  # fresh: both compile
    os.environ.pop("NUMBA_CACHE_DIR", None)
    export(args.before, folder)
    # "new" is the tree this script is in, even where another checkout is installed; the
    # worker processes are spawned with this sys.path, so they find both versions.
    sys.path[:0] = [folder, str(ROOT)]
    from agents.tournament import Tournament
    from agents_before.tournament import Tournament as TournamentBefore
    versions = {"old": TournamentBefore, "new": Tournament}
    load_at_start = os.getloadavg()
    first = {}
    for label, cls in versions.items():  # compile (or load) each version's code, timed apart
        began = time.perf_counter()
        run_once(cls, args.game, 20, 0, os.path.join(folder, f"warm-{label}.jsonl"), args.agents)
        first[label] = time.perf_counter() - began
    rates = {label: [] for label in versions}
    games_of = {}
    for r in range(args.rounds):
        order = list(versions) if r % 2 == 0 else list(versions)[::-1]
        for label in order:
            out = os.path.join(folder, f"{label}-{r}.jsonl")
            seconds, found = run_once(versions[label], args.game, args.games, args.workers, out, args.agents)
            rates[label].append(args.games / seconds)
            games_of[label] = found
            os.unlink(out)
        if games_of["old"] != games_of["new"]:
            differ = sorted(k for k in set(games_of["old"]) | set(games_of["new"])
                            if games_of["old"].get(k) != games_of["new"].get(k))
            raise SystemExit(f"the runners recorded other games for the same seed: {differ[:5]} ...")
        print(f"# round {r + 1}/{args.rounds}: old {rates['old'][-1]:.0f}, new {rates['new'][-1]:.0f} "
              f"games/s; the same {len(games_of['new'])} records", file=sys.stderr, flush=True)
    ratios = [a / b for a, b in zip(rates["new"], rates["old"])]
    git = lambda *words: subprocess.run(["git", "-C", str(ROOT), *words], capture_output=True,  # noqa: E731
                                        text=True).stdout
    payload = {"command": "python benchmarks/bench_tournament_versions.py " + " ".join(sys.argv[1:]),
               "before": git("rev-parse", args.before).strip(), "after": git("rev-parse", "HEAD").strip(),
               "after_modified": git("status", "--porcelain", "--", "ludo_flow", "agents").splitlines(),
               "game": args.game, "agents": args.agents, "games": args.games, "workers": args.workers, "rounds": args.rounds,
               "games_per_second": rates, "ratios": ratios, "ratio_median": statistics.median(ratios),
               "first_run_seconds": first, "same_records": True, "machine": machine(),
               "load_average": [load_at_start, os.getloadavg()]}
    match = " vs ".join(args.agents)
    rows = [(f"{match}, {args.workers} workers, games/s: old (median, min-max)",
             f"{figure(statistics.median(rates['old']))} ({figure(min(rates['old']))}-{figure(max(rates['old']))})"),
            (f"{match}, {args.workers} workers, games/s: new (median, min-max)",
             f"{figure(statistics.median(rates['new']))} ({figure(min(rates['new']))}-{figure(max(rates['new']))})"),
            ("new / old, same round (median, min-max)",
             f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"),
            ("records (ids, moves, results, search but its times) of the same seed", "equal"),
            ("first run (compile into a fresh cache), s: old, new",
             f"{first['old']:.1f}, {first['new']:.1f}")]
    report(f"Tournament runner new / old ({args.game}, {args.games} games a run, {args.rounds} rounds, "
           f"alternating)", rows, payload, args.out)


if __name__ == "__main__":
    main()
