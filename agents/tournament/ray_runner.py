"""The Ray backend: the same games as Ray tasks, on a local instance or a cluster.

`start_ray` joins the cluster at an address or starts a local instance; `run_ray` plays the
pending slots as Ray tasks (retried by Ray if a node is lost) and hands each result to the
runner, which writes each slot id once however often Ray played it.
"""
from ..own import import_roots
from .config import TournamentError
from .games import play_slot
from .workers import MAX_WORKER_DEATHS


def _ray_play(game_spec, slot, move_limit):
    """A Ray task: play one slot and return (slot id, fields)."""
    return slot["id"], play_slot(game_spec, slot, move_limit)


def start_ray(address=None, num_cpus=None, paths=()):
    """Connect to Ray: join the cluster at `address`, or start a local one bound to 127.0.0.1;
    `paths` (folders of your own agents' modules) go on the Ray workers' PYTHONPATH.

    Returns True if this call started Ray (the caller then shuts it down)."""
    try:
        import ray
    except ImportError:
        raise TournamentError("the Ray backend needs the 'ray' extra: pip install 'ludo_flow[ray]'") from None
    if ray.is_initialized():
        return False
    env = {}
    if paths:  # a worker does not inherit this process's sys.path: your agents' folders
        import os
        env = {"runtime_env": {"env_vars": {"PYTHONPATH": os.pathsep.join(
            list(paths) + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}}}
    if address is not None:
        ray.init(address=address, log_to_driver=False, **env)
    else:
        ray.init(num_cpus=num_cpus, _node_ip_address="127.0.0.1", include_dashboard=False,
                 log_to_driver=False, **env)
    return True


def run_ray(run, pending, write):
    """Play the pending slots as Ray tasks (retried by Ray if a node is lost; each id is
    written once however often it is played)."""
    import ray
    specs = list(run.config.agents) + ([run.config.gauntlet] if run.config.gauntlet else [])
    started = start_ray(run.config.address, num_cpus=run.workers or None, paths=import_roots(specs))
    in_flight = {}
    try:
        task = ray.remote(max_retries=3, retry_exceptions=False)(_ray_play)
        window = max(1, int(ray.cluster_resources().get("CPU", 1))) * 2
        game_spec = run.game.spec()
        failures = {}
        stopping = False
        while pending or in_flight:
            while pending and len(in_flight) < window and not stopping:
                slot = pending.popleft()
                in_flight[task.remote(game_spec, slot, run.config.move_limit)] = slot
            if not in_flight:
                break
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
            for ref in ready:
                slot = in_flight.pop(ref)
                try:
                    _, fields = ray.get(ref)
                except ray.exceptions.RayError as err:
                    failures[slot["id"]] = failures.get(slot["id"], 0) + 1
                    if failures[slot["id"]] >= MAX_WORKER_DEATHS:
                        raise TournamentError(f"game {slot['id']} failed {failures[slot['id']]} "
                                              f"times on Ray: {err}") from None
                    pending.appendleft(slot)
                    continue
                if write(slot, fields):
                    stopping = True
    finally:
        for ref in in_flight:  # stopped early (SPRT decided, Ctrl-C, an error)
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
