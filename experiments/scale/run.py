"""Measure what a large tournament costs: the runner's peak memory and time, and `ratings`'.

    python experiments/scale/run.py tournament 10000 100000 1000000 [--dir DIR] [--workers 2]
    python experiments/scale/run.py resume 1000000 [--dir DIR]
    python experiments/scale/run.py ratings 100000 1000000 --template FILE [--dir DIR]
    python experiments/scale/run.py table

`tournament N` plays N random-vs-random Flow games (`ludo-flow tournament flow --agents random
random:seed=1 --games N --workers 2`) in a child process and records that process's peak RSS
(`getrusage(RUSAGE_SELF).ru_maxrss`: the runner alone, not its workers), wall and CPU seconds.
`resume N` resumes that finished tournament: the runner reads its file once, checks every
record, plays nothing and prints the report. `ratings N` writes a records file of N valid records, made from the records of a real
tournament (`--template`) with new ids and pairs (cheaper than playing the games again), and
rates it with `ludo-flow ratings` in a child process, measured the same way. Each measurement
is appended to results.jsonl beside this script; `table` prints them as markdown.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results.jsonl")


def child(argv):
    """Run the CLI in this process; print one JSON line of its cost on stderr's last line."""
    sys.path.insert(0, ROOT)
    from agents.cli import main
    began, cpu = time.perf_counter(), time.process_time()
    status = main(argv)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"status": status, "wall_s": time.perf_counter() - began, "cpu_s": time.process_time() - cpu,
                      "peak_rss_mb": usage.ru_maxrss / 1024}), file=sys.stderr)


def measure(kind, n, argv, extra, out=None):
    """Run `argv` in a child process; append and return its measurement (with the size of `out`)."""
    done = subprocess.run([sys.executable, __file__, "_child", *argv], cwd=ROOT, capture_output=True, text=True)
    try:
        cost = json.loads(done.stderr.strip().splitlines()[-1])
    except (IndexError, ValueError):
        sys.exit(f"the measured command failed: {done.stderr[-2000:]}")
    row = {"kind": kind, "n": n, **cost, **extra, "load_avg": os.getloadavg()[0], "when": time.strftime("%Y-%m-%d %H:%M")}
    if out is not None:
        row["file_mb"] = os.path.getsize(out) / 2 ** 20
    with open(RESULTS, "a") as fh:
        fh.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)
    return row


def tournament(n, folder, workers, resume=False):
    out = os.path.join(folder, f"tournament-{n}.jsonl")
    if os.path.exists(out) and not resume:
        os.unlink(out)
    row = measure("resume" if resume else "tournament", n,
                  ["tournament", "flow", "--agents", "random", "random:seed=1", "--games", str(n),
                   "--workers", str(workers), "--quiet", "--out", out] + (["--resume"] if resume else []),
                  {"workers": workers}, out)
    return row


ID = re.compile(rb'^\{"id":"p0-o(\d+)-([01])","pair":"([0-9a-f]{8})-p0-o\d+"')


def synthesise(template, n, out):
    """Write `n` records: the template's lines in schedule order, again and again, each pair of
    lines (one opening, colours swapped) given a new opening number."""
    with open(template, "rb") as fh:
        lines = [line for line in fh if ID.match(line)]
    if len(lines) < 2:
        sys.exit(f"{template} holds no records of a two-agent tournament")
    lines.sort(key=lambda line: tuple(int(g) for g in ID.match(line).groups()[:2]))
    lines = lines[:len(lines) // 2 * 2]
    with open(out, "wb") as fh:
        for k in range(n):
            line = lines[k % len(lines)]
            swap = b"%d" % (k % 2)
            fh.write(ID.sub(lambda m: b'{"id":"p0-o%d-%s","pair":"%s-p0-o%d"' % (k // 2, swap, m.group(3), k // 2),
                            line, count=1))


def ratings(n, folder, template):
    path = os.path.join(folder, f"records-{n}.jsonl")
    if not os.path.exists(path):
        synthesise(template, n, path)
    row = measure("ratings", n, ["ratings", path], {}, path)
    return row


def table():
    rows = [json.loads(line) for line in open(RESULTS)]
    print("| what | n | peak RSS (MB) | wall (s) | CPU (s) | file (MB) | load average | note |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['kind']} | {r['n']:,} | {r['peak_rss_mb']:.0f} | {r['wall_s']:.0f} | {r['cpu_s']:.0f} | "
              f"{r.get('file_mb', 0):.0f} | {r['load_avg']:.1f} | {r.get('note', '')} |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        return child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["tournament", "resume", "ratings", "table"])
    parser.add_argument("n", type=int, nargs="*")
    parser.add_argument("--dir", default="/tmp/ludo-flow-scale")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--template", help="a two-agent tournament's records (for ratings)")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    if args.what == "table":
        return table()
    for n in args.n:
        if args.what in ("tournament", "resume"):
            tournament(n, args.dir, args.workers, resume=args.what == "resume")
        else:
            ratings(n, args.dir, args.template)


if __name__ == "__main__":
    main()
