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


def cost_of(stderr):
    """Return the cost line a child printed last on stderr."""
    try:
        return json.loads(stderr.strip().splitlines()[-1])
    except (IndexError, ValueError):
        sys.exit(f"the measured command failed: {stderr[-2000:]}")


def measure(kind, n, argv, extra, out=None, env=None):
    """Run `argv` in a child process; append and return its measurement (with the size of `out`)."""
    done = subprocess.run([sys.executable, __file__, "_child", *argv], cwd=ROOT, capture_output=True, text=True,
                          env=env)
    cost = cost_of(done.stderr)
    row = {"kind": kind, "n": n, **cost, **extra, "load_avg": os.getloadavg()[0], "when": time.strftime("%Y-%m-%d %H:%M")}
    record(row, out)
    return row


def record(row, out=None):
    """Append a measurement to results.jsonl (with the size of `out`) and print it."""
    if out is not None:
        row["file_mb"] = os.path.getsize(out) / 2 ** 20
    with open(RESULTS, "a") as fh:
        fh.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def cluster_of(folder):
    """Return (address, driver environment) of the Ray cluster `ray_cluster.py start` made in `folder`."""
    sys.path.insert(0, HERE)
    import ray_cluster
    state = ray_cluster.state_of(folder)
    return state["address"], ray_cluster.driver_env(state)


def tournament_argv(n, out, workers, address=None):
    """Return the CLI's arguments of an n-game random-vs-random tournament (on Ray at `address`)."""
    argv = ["tournament", "flow", "--agents", "random", "random:seed=1", "--games", str(n), "--quiet", "--out", out]
    if address is None:
        return argv + ["--workers", str(workers)]
    return argv + ["--backend", "ray", "--address", address]


def tournament(n, folder, workers, resume=False, cluster=None):
    tag = "" if cluster is None else "ray-"
    out = os.path.join(folder, f"tournament-{tag}{n}.jsonl")
    if os.path.exists(out) and not resume:
        os.unlink(out)
    address, env = cluster_of(cluster) if cluster else (None, None)
    extra = {"workers": workers} if cluster is None else {"backend": "ray", "nodes": 2, "cpus": 2}
    kind = ("resume" if resume else "tournament") + ("" if cluster is None else " (Ray)")
    return measure(kind, n, tournament_argv(n, out, workers, address) + (["--resume"] if resume else []),
                   extra, out, env)


def lines_in(path):
    """Return the number of whole lines of a file."""
    with open(path, "rb") as fh:
        return fh.read().count(b"\n")


def ids_in(path):
    """Return the ids of a records file's whole lines, in file order."""
    ids = []
    with open(path, "rb") as fh:
        for line in fh:
            if line.endswith(b"\n"):
                ids.append(json.loads(line)["id"])
    return ids


def node_loss(n, folder, cluster, kill_at):
    """Play n games on the cluster, SIGKILL its second node once kill_at games are recorded, let
    the run finish (or resume it), and count: games recorded before the kill, duplicates, games
    recorded before the kill and missing after, ids after the resume."""
    sys.path.insert(0, HERE)
    import ray_cluster
    address, env = cluster_of(cluster)
    out = os.path.join(folder, f"node-loss-{n}.jsonl")
    if os.path.exists(out):
        os.unlink(out)
    argv = tournament_argv(n, out, 0, address)
    began = time.perf_counter()
    run = subprocess.Popen([sys.executable, __file__, "_child", *argv], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while run.poll() is None:
        if os.path.exists(out) and lines_in(out) >= kill_at:
            break
        time.sleep(0.2)
    before = ids_in(out)
    killed_at = time.perf_counter() - began
    ray_cluster.kill(cluster, ["node"])
    _, stderr = run.communicate()
    cost = cost_of(stderr)
    after_run = ids_in(out)
    resumed = None
    if cost["status"] != 0 or len(set(after_run)) < n:
        done = subprocess.run([sys.executable, __file__, "_child", *argv, "--resume"], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        resumed = cost_of(done.stderr)
    final = ids_in(out)
    row = {"kind": "node loss (Ray)", "n": n, **cost, "backend": "ray", "nodes": 2, "cpus": 2,
           "recorded_before_kill": len(before), "killed_after_s": killed_at,
           "recorded_by_the_run": len(after_run), "duplicates_in_run": len(after_run) - len(set(after_run)),
           "lost_finished": len(set(before) - set(final)), "resumed": resumed,
           "final_lines": len(final), "final_ids": len(set(final)), "duplicates": len(final) - len(set(final)),
           "load_avg": os.getloadavg()[0], "when": time.strftime("%Y-%m-%d %H:%M")}
    record(row, out)
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
    parser.add_argument("what", choices=["tournament", "resume", "ratings", "node-loss", "table"])
    parser.add_argument("n", type=int, nargs="*")
    parser.add_argument("--dir", default="/tmp/ludo-flow-scale")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--template", help="a two-agent tournament's records (for ratings)")
    parser.add_argument("--cluster", help="play on the Ray cluster `ray_cluster.py start` made in this folder")
    parser.add_argument("--kill-at", type=int, default=1000, help="node-loss: kill once this many games are recorded")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    if args.what == "table":
        return table()
    for n in args.n:
        if args.what in ("tournament", "resume"):
            tournament(n, args.dir, args.workers, resume=args.what == "resume", cluster=args.cluster)
        elif args.what == "node-loss":
            if not args.cluster:
                parser.error("node-loss needs --cluster")
            node_loss(n, args.dir, args.cluster, args.kill_at)
        else:
            ratings(n, args.dir, args.template)


if __name__ == "__main__":
    main()
