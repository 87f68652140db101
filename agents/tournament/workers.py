"""Worker processes on this machine: each plays the slots it is sent and sends back their fields.

The runner (`run_processes`) keeps up to PREFETCH slots with each worker, so a worker starts its
next game without waiting, and watches every worker: one that dies is replaced and its game
played again (a game that kills its worker MAX_WORKER_DEATHS times is forfeited by the side that
was thinking); one whose search overruns the move limit is killed and the game forfeited. A
worker that dies before it is ready (a script that starts a tournament without an
`if __name__ == "__main__":` guard is imported again by every worker it starts, and fails
there) stops the run at once with the cause. Workers die with their runner: Ctrl-C is the
runner's to handle, and on Linux a worker gets SIGKILL when its runner dies (PR_SET_PDEATHSIG),
else it leaves quietly when its pipe breaks.
"""
import gc
import os
import signal
import sys
import time
from collections import deque

from .config import TournamentError
from .games import play_slot, unfinished_fields

MAX_WORKER_DEATHS = 3   # a game whose worker dies this often is forfeited by the side thinking
PREFETCH = 2            # slots given to a worker at once
READY_SECONDS = 120.0   # a worker not ready this long after its start is taken for dead


def _die_with_parent():
    """Ask Linux to kill this process when its parent dies (nothing elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_main(conn, heartbeat, game_spec, move_limit):
    """A worker process: say it is ready, play the slots it is sent, send back (slot id,
    fields); stop on None or when the runner is gone.

    `heartbeat` holds (time the current decision started, side deciding) so the runner can
    stop a search that overruns the move limit even if it never returns."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    _die_with_parent()

    def on_think(side):
        if side is None:
            heartbeat[0] = 0.0
        else:
            heartbeat[1] = float(side)
            heartbeat[0] = time.time()

    def send(message):
        try:
            conn.send(message)
        except (BrokenPipeError, EOFError, OSError):  # the runner is gone: leave quietly
            os._exit(0)

    send(("ready", os.getpid()))
    while True:
        try:
            slot = conn.recv()
        except (EOFError, OSError):
            slot = None
        if slot is None:
            gc.freeze()  # the shutdown's collections skip numba's objects (agents.cli.command)
            return
        try:
            fields = play_slot(game_spec, slot, move_limit, on_think)
        except Exception as err:  # noqa: BLE001 - reported to the runner, which stops the run
            send((slot["id"], {"error": f"{type(err).__name__}: {err}"}))
            continue
        send((slot["id"], fields))


class _Worker:
    """One worker process, its pipe, its heartbeat and the slots it was given (the first is
    the one it is playing)."""

    def __init__(self, ctx, game_spec, move_limit):
        self.conn, child = ctx.Pipe()
        self.heartbeat = ctx.Array("d", 2, lock=False)
        self.process = ctx.Process(target=_worker_main, daemon=True,
                                   args=(child, self.heartbeat, game_spec, move_limit))
        self.started = time.time()
        self.process.start()
        child.close()
        self.ready = False
        self.slots = deque()

    def give(self, slot):
        """Send a slot to play (after the ones it holds)."""
        if not self.slots:
            self.heartbeat[0] = 0.0
        self.slots.append(slot)
        self.conn.send(slot)

    def stop(self, kill=False):
        """End the process: ask it to stop, or kill it; wait for it."""
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self.conn.close()


def _start_failure(worker):
    """Return the TournamentError of a worker that died before it was ready."""
    code = worker.process.exitcode
    return TournamentError(
        f"a worker process died while starting (exit code {code}); every worker imports the script "
        f"that started the tournament again, so a script must start it under "
        f"`if __name__ == \"__main__\":` (see its error above), or pass workers=0")


def run_processes(run, pending, write):
    """Play the pending slots in `run.workers` worker processes; replace a worker that dies or
    overruns. `write(slot, fields)` records a finished game and returns True to stop."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("spawn")
    game_spec = run.game.spec()
    move_limit = run.config.move_limit
    grace = 1.0 + 0.25 * move_limit  # a search that never returns is killed after this
    deaths = {}
    workers = [_Worker(ctx, game_spec, move_limit) for _ in range(run.workers)]
    stopping = False
    try:
        while True:
            for w in workers:
                while w.ready and len(w.slots) < PREFETCH and pending and not stopping:
                    w.give(pending.popleft())
            busy = [w for w in workers if w.slots or not w.ready]
            if not any(w.slots for w in busy) and (stopping or not pending):
                break
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=0.25)
            for w in busy:
                while w.conn in ready and w.conn.poll():
                    try:
                        message = w.conn.recv()
                    except (EOFError, OSError):
                        break  # the worker died: handled below
                    if message[0] == "ready":
                        w.ready = True
                        continue
                    slot_id, fields = message
                    slot = w.slots.popleft()
                    if slot["id"] != slot_id:
                        raise RuntimeError(f"worker answered game {slot_id} for game {slot['id']}")
                    if "error" in fields:  # the runner itself failed on this game: a bug, say it
                        raise RuntimeError(f"game {slot_id} failed in a worker: {fields['error']}")
                    if write(slot, fields):
                        stopping = True
            for i, w in enumerate(workers):
                if not w.ready:
                    if not w.process.is_alive():
                        raise _start_failure(w)
                    if time.time() - w.started > READY_SECONDS:
                        raise TournamentError(f"a worker process did not start within {READY_SECONDS:g} s")
                    continue
                if not w.slots:
                    continue
                started = w.heartbeat[0]
                overran = started > 0 and time.time() - started > move_limit + grace
                if w.process.is_alive() and not overran:
                    continue
                slot = w.slots.popleft()  # the game it was playing; the queued ones go back
                pending.extendleft(reversed(w.slots))
                w.slots.clear()
                side = int(w.heartbeat[1]) if started > 0 else None
                w.stop(kill=True)
                workers[i] = _Worker(ctx, game_spec, move_limit)
                if overran:
                    reason = (f"move limit: no move after {move_limit + grace:g} s "
                              f"(limit {move_limit:g} s), the search was stopped")
                    if write(slot, unfinished_fields(side, reason)):
                        stopping = True
                    continue
                deaths[slot["id"]] = deaths.get(slot["id"], 0) + 1
                if deaths[slot["id"]] >= MAX_WORKER_DEATHS and side is not None:
                    reason = f"the worker process died {deaths[slot['id']]} times while this agent thought"
                    if write(slot, unfinished_fields(side, reason)):
                        stopping = True
                else:
                    pending.appendleft(slot)  # played again, from the start
    finally:
        for w in workers:
            w.stop(kill=bool(w.slots) or not w.ready)
