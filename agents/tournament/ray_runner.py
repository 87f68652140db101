"""The Ray backend: the same games as Ray tasks, on a local instance or a cluster.

`start_ray` joins the cluster at an address or starts a local instance; `run_ray` plays the
pending slots as Ray tasks (retried by Ray if a node is lost) and hands each result to the
runner, which writes each slot id once however often Ray played it.
"""
from .config import TournamentError
from .games import play_slot
from .workers import MAX_WORKER_DEATHS


def _ray_play(game_spec, slot, move_limit):
    """A Ray task: play one slot and return (slot id, fields)."""
    return slot["id"], play_slot(game_spec, slot, move_limit)


def start_ray(address=None, num_cpus=None):
    """Connect to Ray: join the cluster at `address`, or start a local one bound to 127.0.0.1.

    Returns True if this call started Ray (the caller then shuts it down)."""
    try:
        import ray
    except ImportError:
        raise TournamentError("the Ray backend needs the 'ray' extra: pip install 'ludo_flow[ray]'") from None
    if ray.is_initialized():
        return False
    if address is not None:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=num_cpus, _node_ip_address="127.0.0.1", include_dashboard=False,
                 log_to_driver=False)
    return True


def run_ray(run, pending, write):
    """Play the pending slots as Ray tasks (retried by Ray if a node is lost; each id is
    written once however often it is played)."""
    import ray
    started = start_ray(run.config.address, num_cpus=run.workers or None)
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
