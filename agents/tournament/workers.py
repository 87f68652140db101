"""Worker processes on this machine: each plays the chunks of slots it is sent and sends back
their fields, a chunk at a time.

The runner (`run_processes`) hands each worker chunks of slots, sized by `ChunkSizer` to about
CHUNK_SECONDS of play (one slot a chunk for games slower than that, or before a game was timed),
and keeps up to PREFETCH chunks with each worker, so a worker starts its next chunk without
waiting. A worker sends the fields of a whole chunk in one message, and the runner writes them
in one batch. The runner watches every worker: one that dies is replaced, the games of its
chunks not yet sent are played again, and the game it was playing counts a death (a game that
kills its worker MAX_WORKER_DEATHS times is forfeited by the side that was thinking); one whose
search overruns the move limit is killed and its game forfeited (the other unsent games of its
chunks are played again). A worker that dies before it is ready (a script that starts a
tournament without an `if __name__ == "__main__":` guard is imported again by every worker it
starts, and fails there) stops the run at once with the cause. Workers die with their runner:
Ctrl-C is the runner's to handle, and on Linux a worker gets SIGKILL when its runner dies
(PR_SET_PDEATHSIG), else it leaves quietly when its pipe breaks.
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
PREFETCH = 2            # chunks given to a worker at once
CHUNK_SECONDS = 0.1     # a chunk of slots holds about this much play
MAX_CHUNK = 200         # slots in a chunk at most
READY_SECONDS = 120.0   # a worker not ready this long after its start is taken for dead

# The worker's heartbeat, in shared memory: when the current decision started (0 between
# decisions), the side deciding, and the number of the game being played (-1 between games).
_STARTED, _SIDE, _GAME = range(3)


class ChunkSizer:
    """The number of slots to hand out at once: about `seconds` of play at the games' measured
    speed (a running mean of each chunk's time per game), 1 until a game was timed, growing at
    most twofold a chunk, and at most `largest`."""

    def __init__(self, seconds=CHUNK_SECONDS, largest=MAX_CHUNK):
        self.seconds = seconds
        self.largest = largest
        self.per_game = None
        self.last = 1

    def note(self, games, seconds):
        """Count a chunk of `games` games played in `seconds`."""
        if games <= 0:
            return
        rate = seconds / games
        self.per_game = rate if self.per_game is None else 0.5 * (self.per_game + rate)

    def size(self):
        """Return the size of the next chunk."""
        if self.per_game is None:
            return 1
        wanted = int(self.seconds / max(self.per_game, 1e-6))
        self.last = max(1, min(self.largest, wanted, 2 * self.last))
        return self.last


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
    """A worker process: say it is ready, play the chunks it is sent ((number of the first
    game, [slot, ...])), send back each chunk's ("done", [(slot id, fields), ...], seconds);
    stop on None or when the runner is gone.

    `heartbeat` holds (time the current decision started, side deciding, number of the game
    being played) so the runner can stop a search that overruns the move limit even if it
    never returns, and knows which game a dead worker was playing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    _die_with_parent()

    def on_think(side):
        if side is None:
            heartbeat[_STARTED] = 0.0
        else:
            heartbeat[_SIDE] = float(side)
            heartbeat[_STARTED] = time.time()

    def send(message):
        try:
            conn.send(message)
        except (BrokenPipeError, EOFError, OSError):  # the runner is gone: leave quietly
            os._exit(0)

    send(("ready", os.getpid()))
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            chunk = None
        if chunk is None:
            gc.freeze()  # the shutdown's collections skip numba's objects (agents.cli.command)
            return
        first, slots = chunk
        results = []
        began = time.perf_counter()
        for number, slot in enumerate(slots, first):
            heartbeat[_GAME] = float(number)
            try:
                fields = play_slot(game_spec, slot, move_limit, on_think)
            except Exception as err:  # noqa: BLE001 - reported to the runner, which stops the run
                fields = {"error": f"{type(err).__name__}: {err}"}
            heartbeat[_GAME] = -1.0
            results.append((slot["id"], fields))
            if "error" in fields:
                break
        send(("done", results, time.perf_counter() - began))


class _Worker:
    """One worker process, its pipe, its heartbeat, the slots it was given and not yet sent back
    (as (game number, slot), in play order) and the sizes of its chunks under way."""

    def __init__(self, ctx, game_spec, move_limit):
        self.conn, child = ctx.Pipe()
        self.heartbeat = ctx.Array("d", 3, lock=False)
        self.heartbeat[_GAME] = -1.0
        self.process = ctx.Process(target=_worker_main, daemon=True,
                                   args=(child, self.heartbeat, game_spec, move_limit))
        self.started = time.time()
        self.process.start()
        child.close()
        self.ready = False
        self.slots = deque()
        self.chunks = deque()
        self.number = 0  # of the next game given
        self.stopped = False

    def give(self, slots):
        """Send a chunk of slots to play (after the ones it holds)."""
        if not self.slots:
            self.heartbeat[_STARTED] = 0.0
        first = self.number
        self.number += len(slots)
        self.slots.extend(enumerate(slots, first))
        self.chunks.append(len(slots))
        self.conn.send((first, slots))

    def take(self, results):
        """Return [(slot, fields)] of a chunk's results, in the order the slots were given."""
        self.chunks.popleft()
        done = []
        for slot_id, fields in results:
            _, slot = self.slots.popleft()
            if slot["id"] != slot_id:
                raise RuntimeError(f"worker answered game {slot_id} for game {slot['id']}")
            if "error" in fields:  # the runner itself failed on this game: a bug, say it
                raise RuntimeError(f"game {slot_id} failed in a worker: {fields['error']}")
            done.append((slot, fields))
        return done

    def unsent(self):
        """Return (the slot it was playing or None, the other slots it holds), and forget them."""
        playing = int(self.heartbeat[_GAME])
        current, others = None, []
        for number, slot in self.slots:
            if number == playing:
                current = slot
            else:
                others.append(slot)
        self.slots.clear()
        self.chunks.clear()
        return current, others

    def stop(self, kill=False):
        """End the process: ask it to stop, or kill it; wait for it (once)."""
        if self.stopped:
            return
        self.stopped = True
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


def take_chunk(pending, size):
    """Return up to `size` slots from `pending`."""
    slots = []
    while len(slots) < size and pending:
        slots.append(pending.popleft())
    return slots


def _context():
    import multiprocessing
    return multiprocessing.get_context("spawn")


def start_workers(run):
    """Start `run.workers` worker processes and return them (for `run_processes`): started
    before the runner's warm-up, they import their modules meanwhile (they compile nothing:
    they wait for their first chunk, sent after the warm-up). `stop_workers` ends them."""
    ctx = _context()
    return [_Worker(ctx, run.game.spec(), run.config.move_limit) for _ in range(run.workers)]


def stop_workers(workers):
    """End worker processes (those already ended are left alone)."""
    for w in workers:
        w.stop(kill=bool(w.slots) or not w.ready)


def run_processes(run, pending, write, workers=None):
    """Play the pending slots in `run.workers` worker processes (`workers` from `start_workers`,
    or started here); replace a worker that dies or overruns. `write([(slot, fields), ...])`
    records finished games and returns True to stop."""
    from multiprocessing.connection import wait

    ctx = _context()
    game_spec = run.game.spec()
    move_limit = run.config.move_limit
    grace = 1.0 + 0.25 * move_limit  # a search that never returns is killed after this
    deaths = {}
    sizer = ChunkSizer()
    workers = list(workers) if workers is not None else start_workers(run)
    stopping = False
    try:
        while True:
            for w in workers:
                while w.ready and len(w.chunks) < PREFETCH and pending and not stopping:
                    w.give(take_chunk(pending, sizer.size()))
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
                    _, results, seconds = message
                    sizer.note(len(results), seconds)
                    if write(w.take(results)):
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
                started = w.heartbeat[_STARTED]
                overran = started > 0 and time.time() - started > move_limit + grace
                if w.process.is_alive() and not overran:
                    continue
                side = int(w.heartbeat[_SIDE]) if started > 0 else None
                slot, others = w.unsent()  # the game it was playing; the others are played again
                w.stop(kill=True)
                workers[i] = _Worker(ctx, game_spec, move_limit)
                if slot is None:
                    pending.extendleft(reversed(others))
                    continue
                if overran:
                    pending.extendleft(reversed(others))
                    reason = (f"move limit: no move after {move_limit + grace:g} s "
                              f"(limit {move_limit:g} s), the search was stopped")
                    if write([(slot, unfinished_fields(side, reason))]):
                        stopping = True
                    continue
                deaths[slot["id"]] = deaths.get(slot["id"], 0) + 1
                if deaths[slot["id"]] >= MAX_WORKER_DEATHS and side is not None:
                    pending.extendleft(reversed(others))
                    reason = f"the worker process died {deaths[slot['id']]} times while this agent thought"
                    if write([(slot, unfinished_fields(side, reason))]):
                        stopping = True
                else:
                    pending.extendleft(reversed([slot] + others))  # played again, from the start
    finally:
        stop_workers(workers)
