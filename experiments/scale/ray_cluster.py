"""A two-node Ray cluster on this machine, listening on 127.0.0.1 only, for the scale runs.

    python experiments/scale/ray_cluster.py start DIR      # head + a second raylet; prints the address
    python experiments/scale/ray_cluster.py env DIR        # the shell exports a driver needs to join
    python experiments/scale/ray_cluster.py kill-node DIR  # SIGKILL the second node (raylet, workers)
    python experiments/scale/ray_cluster.py start-node DIR # join a second node again
    python experiments/scale/ray_cluster.py stop DIR       # SIGKILL every process of the cluster

The head is `ray start --head --node-ip-address 127.0.0.1 --num-cpus 1` in Ray's single-machine
mode (`RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`: every process of it listens on loopback), the
second node `ray start --address 127.0.0.1:PORT --num-cpus 1` run through Ray's command-line
entry point with its loopback-to-outward address step skipped (as tests/arena/test_ray.py
does: that step would make a loopback-only head unreachable). Each runs `--block` in a process
group of its own, with temp folders under DIR and an auth token of its own (kept in DIR/state.json,
with the address), so the user's ~/.ray is not touched. `stop` kills the cluster's processes by
process id (found from the starters and from the temp folders in their command lines), never
with `ray stop`, which stops every Ray process of the machine's user.
"""
import json
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
JOIN_ON_LOOPBACK = ("import sys, ray._private.services as services; "
                    "services.resolve_ip_for_localhost = lambda host: host; "
                    "from ray.scripts.scripts import main; sys.exit(main())")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def state_of(folder):
    return json.loads((Path(folder) / "state.json").read_text())


def save(folder, state):
    (Path(folder) / "state.json").write_text(json.dumps(state))


def driver_env(state):
    """Return the environment a driver (or node) needs to join this cluster."""
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=state["token"],
               RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=str(ROOT))
    env.pop("RAY_ADDRESS", None)
    return env


def _start(folder, state, name, command, env):
    where = Path(folder) / name
    where.mkdir(exist_ok=True)
    log = open(Path(folder) / f"{name}.log", "a")
    starter = subprocess.Popen(command + ["--temp-dir", str(where), "--block", "--disable-usage-stats"],
                               env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    state["starters"][name] = starter.pid
    save(folder, state)


def start_node(folder):
    state = state_of(folder)
    _start(folder, state, "node", [sys.executable, "-c", JOIN_ON_LOOPBACK, "start", "--address",
                                   state["address"], "--num-cpus", "1"], driver_env(state))
    wait_for_cpus(state, 2)


def start(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    state = {"address": f"127.0.0.1:{port}", "token": secrets.token_hex(32), "starters": {}}
    save(folder, state)
    ray = str(Path(sys.executable).parent / "ray")
    _start(folder, state, "head", [ray, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
                                   "--num-cpus", "1", "--include-dashboard", "false"],
           dict(driver_env(state), **{SINGLE_MACHINE_ENV: "0"}))
    wait_for_cpus(state, 1)
    start_node(folder)
    print(state["address"])


def wait_for_cpus(state, count, timeout=90):
    """Wait until the cluster has `count` CPUs (one a node)."""
    probe = subprocess.run([sys.executable, "-c", (
        "import time, ray\n"
        f"deadline = time.time() + {timeout}\n"
        "while True:\n"
        "    try:\n"
        f"        ray.init(address='{state['address']}', log_to_driver=False)\n"
        "        break\n"
        "    except Exception:\n"
        "        if time.time() > deadline: raise\n"
        "        time.sleep(0.5)\n"
        f"while ray.cluster_resources().get('CPU', 0) < {count} and time.time() < deadline:\n"
        "    time.sleep(0.2)\n"
        "print(ray.cluster_resources().get('CPU', 0))\n")],
        env=dict(driver_env(state), **{SINGLE_MACHINE_ENV: "0"}), capture_output=True, text=True,
        timeout=timeout + 60)
    if probe.stdout.strip() != f"{float(count)}":
        sys.exit(f"the cluster did not reach {count} CPUs: {probe.stdout} {probe.stderr[-2000:]}")


def processes(folder, names=None):
    """Return {pid: Process} of the named starters, their descendants and every process whose
    command line mentions their temp folders."""
    state = state_of(folder)
    names = names or list(state["starters"])
    marks = [str(Path(folder).resolve() / n) for n in names]
    found = {}

    def add(proc):
        try:
            for p in [proc] + proc.children(recursive=True):
                found[p.pid] = p
        except psutil.Error:
            pass

    for n in names:
        try:
            add(psutil.Process(state["starters"][n]))
        except (psutil.Error, KeyError):
            pass
    for proc in psutil.process_iter(["cmdline"]):
        if any(m in " ".join(proc.info["cmdline"] or ()) for m in marks):
            add(proc)
    return found


def kill(folder, names=None):
    procs = processes(folder, names)
    for p in procs.values():
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(list(procs.values()), timeout=10)
    return len(procs)


def main():
    what, folder = sys.argv[1], sys.argv[2]
    if what == "start":
        start(folder)
    elif what == "start-node":
        start_node(folder)
    elif what == "env":
        state = state_of(folder)
        print(f"export RAY_AUTH_MODE=token RAY_AUTH_TOKEN={state['token']} RAY_USAGE_STATS_ENABLED=0 "
              f"ADDRESS={state['address']}")
    elif what == "kill-node":
        print(f"killed {kill(folder, ['node'])} processes of the second node", file=sys.stderr)
    elif what == "stop":
        print(f"killed {kill(folder)} processes of the cluster", file=sys.stderr)
    else:
        sys.exit(f"unknown command {what!r}")


if __name__ == "__main__":
    main()
