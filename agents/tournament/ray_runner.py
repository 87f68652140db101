"""The Ray backend: the same games as Ray tasks, on a local instance or a cluster.

`start_ray` joins the cluster at an address (checked first: a head that does not answer
within CONNECT_TIMEOUT seconds is refused in one line) or starts a local instance whose
every process listens on 127.0.0.1 only; `run_ray` plays the pending slots as Ray tasks, a
chunk of slots a task (retried by Ray if a node is lost, played again if Ray gives up), and
hands each chunk's results to the runner in one batch; the runner writes each slot id once
however often Ray played it.

Loopback: on Linux Ray gives a node the machine's outward address even when asked for
127.0.0.1 (`_node_ip_address` and `ray start --node-ip-address` turn a loopback address into
the outward one), and then its GCS server, raylet, core workers and agents listen on every
interface. In its single-machine mode (`RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`, its default on
macOS and Windows) the node's address stays 127.0.0.1 and every one of those processes
listens on loopback only. A local instance is started in that mode, and so is a driver that
joins a head at a loopback address (which Ray would otherwise try to reach at the outward
address).
"""
import ipaddress
import os
import socket
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager

import ludo_flow

from ..own import import_roots
from .config import TournamentError, parse_ray_address
from .games import play_slot
from .workers import MAX_WORKER_DEATHS, PREFETCH, ChunkSizer, take_chunk

CONNECT_TIMEOUT = 5.0   # seconds a Ray head has to answer before the run is refused
SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
# An HTTP/2 client's first bytes and an empty SETTINGS frame: a gRPC server (Ray's GCS)
# answers with a SETTINGS frame (frame type 4, the fourth byte of its 9-byte header).
_H2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _ray_play_chunk(game_spec, slots, move_limit):
    """A Ray task: play a chunk of slots; return ([(slot id, fields), ...], seconds of play,
    the address of the node that played them)."""
    began = time.perf_counter()
    results = [(slot["id"], play_slot(game_spec, slot, move_limit)) for slot in slots]
    return results, time.perf_counter() - began, _node_of_this_task()


def _node_of_this_task():
    """Return the address of the Ray node this process runs on, or None if Ray cannot say."""
    try:
        import ray
        return ray.util.get_node_ip_address()
    except (ImportError, AttributeError, OSError, RuntimeError):
        return None


def _import_ray():
    try:
        import ray
    except ImportError:
        raise TournamentError("the Ray backend needs the 'ray' extra: pip install 'ludo_flow[ray]'") from None
    return ray


def is_loopback(host):
    """True if `host` names this machine's loopback interface."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _resolve(host, port, timeout):
    """Return getaddrinfo's TCP addresses of host (a name lookup has no timeout of its own:
    it runs in a thread that is left behind if it takes longer than `timeout` seconds)."""
    found = {}

    def lookup():
        try:
            found["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as err:
            found["error"] = err

    thread = threading.Thread(target=lookup, daemon=True)
    thread.start()
    thread.join(timeout)
    if "infos" in found:
        return found["infos"]
    if "error" in found:
        raise TournamentError(f"cannot reach the Ray cluster at {host}:{port}: unknown host {host!r}")
    raise TournamentError(f"cannot reach the Ray cluster at {host}:{port}: the name {host!r} "
                          f"did not resolve within {timeout:g} s")


def check_address(address, timeout=CONNECT_TIMEOUT):
    """Raise TournamentError (one line) unless a gRPC server answers at the Ray address
    `HOST:PORT` within `timeout` seconds. Ray's own connect waits minutes for a head that is
    not there; this check answers in at most `timeout` seconds."""
    host, port = parse_ray_address(address)
    deadline = time.monotonic() + timeout
    infos = _resolve(host, port, timeout)
    where = f"the Ray cluster at {address}"
    error = None
    for family, kind, proto, _, sockaddr in infos:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.settimeout(left)
                sock.connect(sockaddr)
                if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                    return  # a TLS head: the handshake is Ray's to make
                sock.sendall(_H2_HELLO)
                head = b""
                while len(head) < 9:
                    sock.settimeout(max(0.01, deadline - time.monotonic()))
                    chunk = sock.recv(9 - len(head))
                    if not chunk:
                        break
                    head += chunk
        except socket.timeout:
            error = f"{where} did not answer within {timeout:g} s"
            continue
        except OSError as err:
            error = f"cannot reach {where}: {err.strerror or err}"
            continue
        if len(head) == 9 and head[3] == 4:
            return
        raise TournamentError(f"{address} answers, but not as a Ray head (no gRPC server there); "
                              f"give the head node's GCS port, 6379 unless `ray start --port` chose another")
    raise TournamentError(error or f"{where} did not answer within {timeout:g} s")


@contextmanager
def _single_machine():
    """Run the block in Ray's single-machine mode (see the module's docstring): the node's
    address is 127.0.0.1, and the processes started in the block inherit the mode."""
    from ray._private import ray_constants  # read when `ray` was imported: set here as well
    saved_env = os.environ.get(SINGLE_MACHINE_ENV)
    saved_flag = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[SINGLE_MACHINE_ENV] = "0"
    if saved_flag is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if saved_env is None:
            os.environ.pop(SINGLE_MACHINE_ENV, None)
        else:
            os.environ[SINGLE_MACHINE_ENV] = saved_env
        if saved_flag is not None:
            ray_constants.ENABLE_RAY_CLUSTER = saved_flag


def node_address():
    """Return the address Ray gave this process's node (None before `ray.init`)."""
    from ray._private import worker
    node = worker._global_node
    return None if node is None else node.node_ip_address


def start_ray(address=None, num_cpus=None, paths=()):
    """Connect to Ray: join the cluster at `address` (checked first, see check_address), or
    start a local instance listening on 127.0.0.1 only; `paths` (folders of your own agents'
    modules) go on the Ray workers' PYTHONPATH.

    Returns True if this call connected (the caller then calls `ray.shutdown()`), False if
    this process was connected already."""
    ray = _import_ray()
    if ray.is_initialized():
        return False
    env = {}
    if paths:  # a worker does not inherit this process's sys.path: your agents' folders
        env = {"runtime_env": {"env_vars": {"PYTHONPATH": os.pathsep.join(
            list(paths) + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}}}
    if address is not None:
        check_address(address)
        host, _ = parse_ray_address(address)
        try:
            if is_loopback(host):
                with _single_machine():
                    ray.init(address=address, log_to_driver=False, **env)
            else:
                ray.init(address=address, log_to_driver=False, **env)
        except (ConnectionError, RuntimeError, ValueError) as err:
            first = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
            raise TournamentError(f"cannot join the Ray cluster at {address}: {first}") from None
        return True
    with _single_machine():
        ray.init(num_cpus=num_cpus, _node_ip_address="127.0.0.1", include_dashboard=False,
                 log_to_driver=False, **env)
    if not is_loopback(node_address() or ""):
        print(f"ludo-flow: this Ray version gave the local instance the address {node_address()}: "
              f"its processes may listen on every interface, not 127.0.0.1 only", file=sys.stderr)
    return True


def connect(config, num_cpus=None):
    """start_ray for a tournament's config: its address, and the folders of its own agents."""
    specs = list(config.agents) + ([config.gauntlet] if config.gauntlet else [])
    return start_ray(config.address, num_cpus=num_cpus, paths=import_roots(specs))


def _submit(task, game_spec, slots, move_limit):
    """Start one Ray task on a chunk of slots; return its object reference."""
    return task.remote(game_spec, slots, move_limit)


def _returned(slots, results, node, sources):
    """Return [(slot, fields)] of a chunk's results, checked against the slots it was given and
    refused in one line (TournamentError) if a game was played by other code than `sources`
    (the driver's `sources_id()`): a node with other ludo_flow sources may play other games
    from the same seeds, so a run never mixes codes."""
    if len(results) != len(slots):
        raise RuntimeError(f"a Ray task answered {len(results)} games for a chunk of {len(slots)}")
    for slot, (slot_id, fields) in zip(slots, results):
        if slot["id"] != slot_id:
            raise RuntimeError(f"a Ray task answered game {slot_id} for game {slot['id']}")
        if fields.get("sources") != sources:
            raise TournamentError(
                f"the Ray node at {node or 'an unknown address'} runs other ludo_flow sources "
                f"({fields.get('sources')}) than this driver ({sources}); install the same ludo_flow on "
                f"every node (docs/tournaments.md, Ray), then --resume: the games written so far are kept")
    return [(slot, fields) for slot, (_, fields) in zip(slots, results)]


def run_ray(run, pending, write):
    """Play the pending slots as Ray tasks, a chunk of slots a task (sized as the worker
    processes' chunks are), and write each chunk's games in one batch. At most PREFETCH chunks
    a CPU of the cluster are in flight, so the driver holds a bounded number of slots whatever
    the schedule's length. The games of a chunk whose task fails (its node lost, after Ray's
    own retries) are played again first, one a task, so a game that fails three times is the
    one named; each id is written once however often it is played."""
    ray = _import_ray()
    started = connect(run.config, num_cpus=run.workers or None)
    in_flight = {}  # object reference -> the chunk's slots
    try:
        task = ray.remote(max_retries=3, retry_exceptions=False)(_ray_play_chunk)
        window = max(1, int(ray.cluster_resources().get("CPU", 1))) * PREFETCH
        game_spec = run.game.spec()
        move_limit = run.config.move_limit
        sources = ludo_flow.cache.sources_id()
        sizer = ChunkSizer()
        failures = {}  # slot id -> tasks of it that failed
        again = deque()  # the slots of failed tasks: played again one a task, to find the culprit
        stopping = False
        while pending or again or in_flight:
            while (pending or again) and len(in_flight) < window and not stopping:
                slots = [again.popleft()] if again else take_chunk(pending, sizer.size())
                in_flight[_submit(task, game_spec, slots, move_limit)] = slots
            if not in_flight:
                break
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
            for ref in ready:
                slots = in_flight.pop(ref)
                try:
                    results, seconds, node = ray.get(ref)
                except ray.exceptions.RayError as err:
                    for slot in slots:
                        failures[slot["id"]] = failures.get(slot["id"], 0) + 1
                    worst = max(slots, key=lambda slot: failures[slot["id"]])
                    if failures[worst["id"]] >= MAX_WORKER_DEATHS:
                        raise TournamentError(f"game {worst['id']} failed {failures[worst['id']]} "
                                              f"times on Ray: {err}") from None
                    again.extend(slots)
                    continue
                sizer.note(len(results), seconds)
                done = _returned(slots, results, node, sources)
                for slot, _ in done:
                    failures.pop(slot["id"], None)
                if write(done):
                    stopping = True
    finally:
        for ref in in_flight:  # stopped early (SPRT decided, Ctrl-C, an error)
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
