"""The Ray backend: a local instance plays the same games as the local backend and listens on
loopback only; an address that does not answer is refused in one line, before any file; a Ray
node lost mid-run loses no finished game and records none twice.

Every Ray process started here listens on 127.0.0.1 only, lives in temporary folders of its
own and is killed by process id at the end (never `ray stop`, which stops every user's Ray).
"""
import ipaddress
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from agents.cli import main
from agents.records import load_records, without_times
from agents.tournament import Tournament
from agents.tournament import ray_runner
from agents.tournament.ray_runner import CONNECT_TIMEOUT, SINGLE_MACHINE_ENV, start_ray

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray")

REPO = Path(__file__).resolve().parents[2]
FAST = ["random", "random:seed=1"]
# `ray start --address 127.0.0.1:PORT` turns the loopback address into the machine's outward
# one and so cannot reach a head that listens on loopback only: join without that step.
JOIN_ON_LOOPBACK = ("import sys, ray._private.services as services; "
                    "services.resolve_ip_for_localhost = lambda host: host; "
                    "from ray.scripts.scripts import main; sys.exit(main())")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def on_loopback(ip):
    """True if a listening address is on loopback (an IPv4-mapped IPv6 address counts as its IPv4)."""
    address = ipaddress.ip_address(ip.split("%")[0])
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def processes_of(roots=(), mentioning=()):
    """Return {pid: Process} of the roots, their descendants, and every process whose command
    line mentions one of `mentioning` (a Ray session or temp folder), with its descendants."""
    found = {}

    def add(proc):
        try:
            for p in [proc] + proc.children(recursive=True):
                found[p.pid] = p
        except psutil.Error:
            pass

    for root in roots:
        add(root)
    for proc in psutil.process_iter(["cmdline"]):
        if any(word in " ".join(proc.info["cmdline"] or ()) for word in mentioning):
            add(proc)
    return found


def listeners(processes):
    """Return [(process name, pid, ip, port)] of the listening TCP sockets of the processes."""
    out = []
    for pid, proc in processes.items():
        try:
            name = proc.name()
            sockets = proc.net_connections(kind="inet")
        except psutil.Error:
            continue
        out += [(name, pid, s.laddr.ip, s.laddr.port) for s in sockets if s.status == psutil.CONN_LISTEN]
    return sorted(out)


def kill_all(processes):
    """SIGKILL the given processes (ours only: found from our own roots and temp folders)."""
    for proc in processes.values():
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(list(processes.values()), timeout=10)


def strip_times(records):
    return [without_times(r) for r in records]


# ---- a local instance ------------------------------------------------------------------------
def test_local_instance_plays_the_local_games_in_chunks_and_listens_on_loopback_only(tmp_path, monkeypatch):
    """The runner's local instance: every process of it (GCS, raylet, agents, the driver's core
    worker, the workers that played) listens on 127.0.0.1 only; the games are played a chunk
    of slots a Ray task, and the records (ids, moves, results) equal those of the process
    backend (two worker processes) and of the runner alone for the same seed."""
    games = 240
    chunks = []
    submit = ray_runner._submit
    monkeypatch.setattr(ray_runner, "_submit", lambda task, spec, slots, limit: (
        chunks.append(len(slots)), submit(task, spec, slots, limit))[1])
    env_before = os.environ.get(SINGLE_MACHINE_ENV)
    assert start_ray(num_cpus=2) is True  # what the runner calls; kept up to look at it after the run
    assert os.environ.get(SINGLE_MACHINE_ENV) == env_before  # the mode is set for the start only
    try:
        session = ray._private.worker._global_node.get_session_dir_path()
        out = tmp_path / "r.jsonl"
        result = Tournament("flow", FAST, games=games, variant="fountain", seed=2, out=out,
                            openings="random:plies=2", backend="ray", progress=False).run()
        procs = processes_of([psutil.Process()], [session])
        listening = listeners(procs)
    finally:
        ray.shutdown()
    names = {name for name, *_ in listening}
    assert {"gcs_server", "raylet"} <= names and any(n.startswith("ray::") for n in names), listening
    assert [row for row in listening if not on_loopback(row[2])] == [], listening
    assert sum(chunks) == games and max(chunks) > 1 and len(chunks) < games // 4, chunks
    records = load_records(out)
    assert len(records) == games and len({r["id"] for r in records}) == games
    for workers in (2, 0):
        other = Tournament("flow", FAST, games=games, variant="fountain", seed=2,
                           openings="random:plies=2", out=tmp_path / f"w{workers}.jsonl",
                           workers=workers, progress=False).run()
        assert strip_times(result.records) == strip_times(other.records), workers


# ---- an address that does not answer ---------------------------------------------------------
@pytest.fixture(scope="module")
def silent_port():
    """A port that accepts connections (the kernel's backlog) and never says a word."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


@pytest.mark.parametrize("address, words", [
    ("127.0.0.1:1", "cannot reach the Ray cluster at 127.0.0.1:1"),
    ("nonsense::", "a Ray address is HOST:PORT"),
    ("no-such-host.invalid:6379", "cannot reach the Ray cluster"),
    ("SILENT", f"did not answer within {CONNECT_TIMEOUT:g} s"),
])
def test_an_address_without_a_ray_head_is_refused_in_one_line_before_any_file(
        tmp_path, capsys, silent_port, address, words):
    # compile (or load) what the command needs outside the timed part
    assert main(["tournament", "flow", "--variant", "fountain", "--agents", *FAST, "--games", "2",
                 "--out", str(tmp_path / "warm.jsonl"), "--workers", "0", "--quiet"]) == 0
    address = address.replace("SILENT", f"127.0.0.1:{silent_port}")
    out = tmp_path / "never.jsonl"
    capsys.readouterr()
    began = time.monotonic()
    status = main(["tournament", "flow", "--variant", "fountain", "--agents", *FAST, "--games", "2",
                   "--out", str(out), "--backend", "ray", "--address", address, "--quiet"])
    took = time.monotonic() - began
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2 and took < 15, (status, took, err)
    assert len(lines) == 1 and lines[0].startswith("ludo-flow: error: ") and words in lines[0], err
    assert not out.exists() and not ray.is_initialized()


# ---- a lost node ---------------------------------------------------------------------------
class LoopbackCluster:
    """A Ray head and one more node on this machine, listening on 127.0.0.1 only, each started
    by `ray start --block` in a process group of its own, with temp folders and an auth token
    of their own (the user's ~/.ray is not touched)."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="lf-ray-"))  # short: Ray's socket paths must fit
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32),
                        RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=str(REPO))
        self.env.pop("RAY_ADDRESS", None)
        self.starters = {}

    def _start(self, name, command, env):
        (self.root / name).mkdir()
        log = open(self.root / f"{name}.log", "w")
        self.starters[name] = subprocess.Popen(command + ["--temp-dir", str(self.root / name), "--block",
                                                          "--disable-usage-stats"],
                                               env=env, stdout=log, stderr=subprocess.STDOUT,
                                               start_new_session=True)

    def start_head(self):
        self._start("head", [shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray",
                             "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(self.port),
                             "--num-cpus", "1", "--include-dashboard", "false"],
                    dict(self.env, **{SINGLE_MACHINE_ENV: "0"}))

    def start_node(self):
        self._start("node", [sys.executable, "-c", JOIN_ON_LOOPBACK, "start", "--address", self.address,
                             "--num-cpus", "1"], self.env)

    def nodes_alive(self):
        return sum(1 for n in ray.nodes() if n["Alive"]) if ray.is_initialized() else None

    def processes(self, name=None):
        names = [name] if name else list(self.starters)
        return processes_of([psutil.Process(self.starters[n].pid) for n in names if
                             self.starters[n].poll() is None],
                            [str(self.root / n) for n in names])

    def wait_for_nodes(self, count, timeout=60):
        """Wait until the cluster has `count` live nodes with one CPU each."""
        probe = subprocess.run([sys.executable, "-c", (
            "import sys, time, ray\n"
            f"ray.init(address='{self.address}', log_to_driver=False)\n"
            f"deadline = time.time() + {timeout}\n"
            f"while ray.cluster_resources().get('CPU', 0) < {count} and time.time() < deadline:\n"
            "    time.sleep(0.2)\n"
            "print(ray.cluster_resources().get('CPU', 0))\n")],
            env=dict(self.env, **{SINGLE_MACHINE_ENV: "0"}), capture_output=True, text=True,
            timeout=timeout + 30)
        assert probe.stdout.strip() == f"{float(count)}", (probe.stdout, probe.stderr, self.logs())

    def logs(self):
        return {p.name: p.read_text()[-2000:] for p in self.root.glob("*.log")}

    def close(self):
        kill_all(self.processes())
        for starter in self.starters.values():
            starter.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


def test_a_lost_ray_node_loses_no_finished_game_and_records_none_twice(tmp_path):
    """A head and a second node on loopback; a tournament joins them with --address; the second
    node's raylet and workers are killed with SIGKILL while it plays; the run finishes (or is
    resumed) with every game recorded exactly once."""
    games = 2000
    out = tmp_path / "lost.jsonl"
    command = [sys.executable, "-m", "agents.cli", "tournament", "flow", "--variant", "fountain",
               "--agents", *FAST, "--games", str(games), "--out", str(out), "--backend", "ray",
               "--address", None, "--quiet"]
    cluster, run = LoopbackCluster(), None
    try:
        cluster.start_head()
        cluster.start_node()
        cluster.wait_for_nodes(2)
        command[command.index(None)] = cluster.address
        run = subprocess.Popen(command, cwd=REPO, env=cluster.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        playing = []  # a Ray worker of the second node, leased for this run's games
        deadline = time.monotonic() + 60
        while not playing and run.poll() is None and time.monotonic() < deadline:
            playing = [p for p in cluster.processes("node").values()
                       if p.name().startswith("ray::") and not p.name().endswith("Agent")]
            time.sleep(0.02)
        assert playing, ("the second node never played a game", run.poll(), cluster.logs())
        # every process of the cluster, its workers and the driver, mid-run: loopback only
        mid_run = listeners({**cluster.processes(), **processes_of([psutil.Process(run.pid)])})
        assert [row for row in mid_run if not on_loopback(row[2])] == [], mid_run
        names = [row[0] for row in mid_run]
        assert {"gcs_server", "raylet"} <= set(names) and sum(n.startswith("ray::") for n in names) >= 3
        node = cluster.processes("node")
        finished_before = 0
        while finished_before < 10 and run.poll() is None:  # kill once games are being recorded
            finished_before = len(out.read_text().splitlines()) if out.exists() else 0
        kill_all(node)  # the raylet, its workers, its agents: SIGKILL
        stdout, stderr = run.communicate(timeout=120)
        if run.returncode != 0:  # the run may stop; a resume then finishes it
            resumed = subprocess.run(command + ["--resume"], cwd=REPO, env=cluster.env,
                                     capture_output=True, text=True, timeout=120)
            assert resumed.returncode == 0, (run.returncode, stderr, resumed.stderr)
        else:
            assert "Traceback" not in stderr, stderr
    finally:
        if run is not None and run.poll() is None:
            run.kill()
        cluster.close()
    assert finished_before < games
    lines = out.read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert len(ids) == games and len(set(ids)) == games
    assert len(load_records(out)) == games
