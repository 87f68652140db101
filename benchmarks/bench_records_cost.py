"""What a tournament's records cost, this source tree against another git revision, paired in one
process: bytes a record and games/s of a random-vs-random tournament, ratios new / old.

    python benchmarks/bench_records_cost.py --before REV [--game flow] [--games 200] [--rounds 7]

Both versions are imported side by side (the revision's packages exported as ludo_flow_before
and agents_before, as bench_versions.py does) and play the same tournament (the same seed: the
same games) in this process (workers=0), alternating which goes first each round. Each round's
ratio of games/s is taken within the round (the VM's speed drifts); the table gives the median,
min and max over the rounds, and the records' bytes per game of each version. Writes
benchmarks/results/records_cost.json.
"""
import argparse
import importlib
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine, report  # noqa: E402
from bench_versions import export  # noqa: E402

_BARE_IMPORT = re.compile(r"^(\s*)import (ludo_flow|agents)_before$", re.M)


def export_importable(rev, folder):
    """Export `rev` as bench_versions.export does, a bare `import ludo_flow` kept under its name
    (`import ludo_flow_before as ludo_flow`), so code naming the module works; return `folder`."""
    export(rev, folder)
    for path in Path(folder).rglob("*.py"):
        text = path.read_text()
        path.write_text(_BARE_IMPORT.sub(lambda m: f"{m.group(1)}import {m.group(2)}_before as {m.group(2)}",
                                         text))
    return folder


def run(tournament_module, game, games, out):
    """Play the random-vs-random tournament into `out`; return (seconds, bytes a record)."""
    start = time.perf_counter()
    tournament_module.Tournament(game, ["random", "random:seed=1"], games=games, seed=5, out=out,
                                 workers=0, progress=False).run()
    seconds = time.perf_counter() - start
    return seconds, os.path.getsize(out) / games


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the git revision to compare with")
    parser.add_argument("--game", default="flow")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", default=str(HERE / "results" / "records_cost.json"))
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="records_cost_")
    export_importable(args.before, folder)
    sys.path.insert(0, folder)
    versions = {"new": importlib.import_module("agents.tournament"),
                "old": importlib.import_module("agents_before.tournament")}
    for name, module in versions.items():  # compile (or load) both before timing
        run(module, args.game, 2, os.path.join(folder, f"warm-{name}.jsonl"))
    ratios, sizes = [], {"new": [], "old": []}
    for i in range(args.rounds):
        order = ("new", "old") if i % 2 == 0 else ("old", "new")
        seconds = {}
        for name in order:
            out = os.path.join(folder, f"{name}-{i}.jsonl")
            seconds[name], size = run(versions[name], args.game, args.games, out)
            sizes[name].append(size)
        ratios.append(seconds["old"] / seconds["new"])  # games/s new / old
    size_ratio = statistics.median(sizes["new"]) / statistics.median(sizes["old"])
    rows = [("games/s new / old (median)", f"{statistics.median(ratios):.3f}"),
            ("games/s new / old (min..max)", f"{min(ratios):.3f}..{max(ratios):.3f}"),
            ("bytes a record, old", f"{statistics.median(sizes['old']):.0f}"),
            ("bytes a record, new", f"{statistics.median(sizes['new']):.0f}"),
            ("bytes new / old", f"{size_ratio:.3f}")]
    payload = {"machine": machine(), "before": args.before, "game": args.game, "games": args.games,
               "rounds": args.rounds, "games_per_second_ratios": ratios, "bytes_per_record": sizes}
    report(f"records cost: random vs random, {args.game}, {args.games} games, {args.rounds} rounds",
           rows, payload, args.json)


if __name__ == "__main__":
    main()
