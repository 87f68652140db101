"""The runner: plays a tournament's schedule on a backend and appends each finished game to its file.

    >>> from agents.tournament import Tournament
    >>> t = Tournament("flow", agents=["random", "mcts:simulations=300", "alphabeta:depth=2"],
    ...                games=10, openings="random:plies=2", seed=1, out="flow.jsonl")
    >>> result = t.run()                # result.records, result.ratings, result.sprt
    >>> print(result.report())          # crosstable and ratings

Only this process writes the file, one whole line per finished game, and only once per slot:
a game that a dead worker or a Ray retry plays twice is written once. The games a worker sends
back together are written as one batch (one write, one flush, no fsync): a game is safe from a
kill of the runner once its batch is written, and a kill loses only games not yet written.
`resume=True` reads the file once, streaming, checks it is this tournament's, and skips the
games already in it, so a run killed at any moment loses no finished game and counts none twice. The file is locked for the whole
run. Ctrl-C and SIGTERM stop the run alike: the workers stop, every finished game stays in the
file, and the result says it was interrupted (the command line prints how to resume).
"""
import dataclasses
import os
import signal
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager

import ludo_flow

from .. import ratings
from ..records import describe_sources, load_records, record_line
from ..warmup import warm
from .config import TournamentConfig, TournamentError
from .games import mark_warm, play_slot
from .output import RecordsOutput
from .schedule import (Schedule, derive_seed, is_suite, parse_random_openings, random_opening, read_openings_file,
                       read_suite)
from .sprt import SprtTest
from .workers import ChunkSizer, run_processes, start_workers, stop_workers, take_chunk


def clock_settings(config):
    """Return the clock's part of a tournament's settings: {} without a time control (so the
    settings of a file written before clocks existed still match), else `time_control` and
    `time_margin` (milliseconds)."""
    if config.tc is None:
        return {}
    return {"time_control": config.tc, "time_margin": config.time_margin}


class Terminated(KeyboardInterrupt):
    """SIGTERM stopped the run (handled as Ctrl-C is)."""


# ---- the games still to play ------------------------------------------------------------------
class Pending:
    """The slots still to play, in schedule order: slots handed back (a dead worker's) first,
    then the schedule's slots not yet done. A deque's popleft / appendleft / extendleft / clear."""

    def __init__(self, schedule, done):
        self.schedule = schedule
        self.done = done
        self.back = deque()
        self.next = 0

    def _skip(self):
        while self.next < len(self.schedule) and self.done[self.next]:
            self.next += 1

    def __bool__(self):
        self._skip()
        return bool(self.back) or self.next < len(self.schedule)

    def __len__(self):  # an upper bound is enough for its users (how many workers to start)
        self._skip()
        return len(self.back) + len(self.schedule) - self.next

    def popleft(self):
        """Return the next slot to play."""
        if self.back:
            return self.back.popleft()
        self._skip()
        slot = self.schedule.slot(self.next)
        self.next += 1
        return slot

    def appendleft(self, slot):
        """Hand a slot back: it is played next."""
        self.back.appendleft(slot)

    def extendleft(self, slots):
        """Hand slots back (as deque.extendleft: the last one given comes first)."""
        self.back.extendleft(slots)

    def clear(self):
        """Play nothing more."""
        self.back.clear()
        self.next = len(self.schedule)


class Done:
    """The slots finished, one bit each."""

    def __init__(self, total):
        self.bits = bytearray((total + 7) // 8)
        self.count = 0

    def __getitem__(self, index):
        return self.bits[index >> 3] >> (index & 7) & 1

    def add(self, index):
        """Mark a slot finished; return False if it already was."""
        if self[index]:
            return False
        self.bits[index >> 3] |= 1 << (index & 7)
        self.count += 1
        return True


# ---- what a run returns -------------------------------------------------------------------------
@dataclasses.dataclass
class TournamentResult:
    """What a tournament run returns: its ratings, SPRT state and how it ended; `records` reads
    the records back from the file (in schedule order) when first asked for."""

    ratings: object            # agents.ratings.RatedRecords, {} before a rated game, or {"error": why}
    sprt: dict | None
    out: str
    total: int
    finished: int
    interrupted: bool = False
    terminated: bool = False   # SIGTERM (not Ctrl-C) stopped it
    _order: object = dataclasses.field(default=None, repr=False)
    _records: list | None = dataclasses.field(default=None, repr=False)

    @property
    def records(self):
        """Return every finished record of the file, in schedule order."""
        if self._records is None:
            found = load_records(self.out) if os.path.exists(self.out) else []
            order = self._order or (lambda record: 0)
            self._records = sorted(found, key=order)
        return self._records

    def report(self):
        """Return the ratings report (crosstable, ratings, two-agent match) and SPRT verdict as text."""
        lines = []
        if isinstance(self.ratings, ratings.RatedRecords):
            lines.append(ratings.format_report(self.ratings))
        elif self.ratings:
            lines.append(f"no ratings: {self.ratings['error']}")
        if self.sprt is not None:
            s = self.sprt
            verdict = {"H1": "H1 accepted (elo >= elo1)", "H0": "H0 accepted (elo <= elo0)",
                       None: "not decided"}[s["decision"]]
            fixed = ratings.fixed
            lines.append("")
            lines.append(f"SPRT [{s['elo0'] + 0.0:g}, {s['elo1'] + 0.0:g}] ({s['model']}, pairs {s['pairs']}): "
                         f"LLR {fixed(s['llr'], 3)} in ({fixed(s['lower'], 3)}, {fixed(s['upper'], 3)}): "
                         f"{verdict}")
        lines.append("")
        lines.append(f"{self.finished} of {self.total} games recorded in {self.out}")
        return "\n".join(lines)


# ---- the tournament ---------------------------------------------------------------------------
class Tournament:
    """A round robin or gauntlet between agents; `run()` plays it and returns a TournamentResult.

    `Tournament(config)` with a `TournamentConfig`, or `Tournament(game, agents, **settings)`
    with the config's fields as keyword arguments (`games`, `openings`, `seed`, `out`,
    `gauntlet`, `variant`, `params`, `position`, `move_limit`, `sprt`, `workers`, `backend`,
    `address`, `resume`, `progress`, `adjudicate`, `tc`, `time_margin`; see TournamentConfig).
    An agent is a spec string, or your own agent's class or factory (written as its `py:`
    spec). Every setting is checked here."""

    def __init__(self, config=None, agents=None, **settings):
        if isinstance(config, TournamentConfig):
            if agents is not None or settings:
                raise TournamentError("give a TournamentConfig or the settings, not both")
        else:
            try:
                config = TournamentConfig(game=config, agents=agents, **settings)
            except TypeError as err:
                raise TournamentError(f"Tournament: {err}") from None
        self.config = config
        if config.game not in ludo_flow.GAMES:
            raise TournamentError(f"unknown game {config.game!r}; choose one of {', '.join(ludo_flow.GAMES)}")
        self.game = ludo_flow.load_game(config.game, config.variant, **config.params)
        self.start = self.game.new_initial_state().to_string() if config.position is None else config.position
        start_state = self.game.from_string(self.start)  # a bad position fails here, with its own message
        if start_state.is_terminal():
            raise TournamentError("the game is already over in the start position")
        self.sprt = config.sprt
        self.workers = config.worker_count()
        self._openings_id, source = self._openings(start_state)
        self._schedule = Schedule(self.game, self.start, config.pairings(), config.games, source,
                                  config.seed, self.settings())
        self._record_settings = None

    # read-only views of the config, by their old names
    agents = property(lambda self: list(self.config.agents))
    gauntlet = property(lambda self: self.config.gauntlet)
    games = property(lambda self: self.config.games)
    seed = property(lambda self: self.config.seed)
    out = property(lambda self: self.config.out)
    move_limit = property(lambda self: self.config.move_limit)
    resume = property(lambda self: self.config.resume)

    def _openings(self, start_state):
        """Return (the openings' id in the settings, the schedule's opening source)."""
        text = self.config.openings
        if text is None:
            return None, ("none",)
        text = str(text)
        if text.startswith("random:"):
            unit, length = parse_random_openings(text)
            random_opening(start_state, length, derive_seed(self.config.seed, "opening", 0), unit)
            return text, ("random", unit, length)
        if is_suite(text):
            name, positions = read_suite(self.game, text, self.config.seed)
            return name, ("file", positions)
        positions, digest = read_openings_file(self.game, text)
        return f"file sha256:{digest}", ("file", positions)

    def settings(self):
        """Return the settings that decide the schedule and the games (a resume must match them)."""
        c = self.config
        return {"game": self.game.name, "variant": self.game.variant, "params": dict(self.game.params),
                "start": self.start, "agents": list(c.agents), "gauntlet": c.gauntlet,
                "games": c.games, "openings": self._openings_id, "seed": c.seed,
                "move_limit": c.move_limit, **self._adjudication_settings(),
                **clock_settings(c)}

    def _adjudication_settings(self):
        """Return {"adjudicate": rules} when adjudicating, else {} (files written without
        adjudication keep their settings, so they still resume)."""
        return {"adjudicate": self.config.adjudicate} if self.config.adjudicate else {}

    def pairings(self):
        """Return the pairings as (first spec, second spec)."""
        return self.config.pairings()

    def schedule(self):
        """Return the Schedule: `len()`, iteration, `slot(i)` / `[i]`, `index_of(id)`."""
        return self._schedule

    # ---- the file -------------------------------------------------------------------------
    def _check_record(self, mine, record):
        """Refuse a record of another tournament or outside this schedule."""
        theirs = record.get("settings")
        if theirs != mine:
            diff = sorted(k for k in set(mine) | set(theirs or {}) if (theirs or {}).get(k) != mine.get(k))
            raise TournamentError(
                f"{self.out} was written by a tournament with other settings ({', '.join(diff)} "
                f"differ: file {[(theirs or {}).get(k) for k in diff]}, now "
                f"{[mine.get(k) for k in diff]}); resume with the same settings or use another --out")
        if self._schedule.index_of(record.get("id")) is None:
            raise TournamentError(f"{self.out}: record id {record.get('id')!r} is not in this schedule")

    def _read_file(self, out, state):
        """Read the resumed file once, streaming, counting its records into `state`: a game
        recorded twice is counted once, or refused if its results differ (the slots' first
        results are kept in two bits each while reading)."""
        mine = self.settings()
        first = bytearray((len(self._schedule) + 3) // 4)
        for record in out.existing(lambda r: self._check_record(mine, r)):
            index = self._schedule.index_of(record["id"])
            code = _RESULT_CODES.get(record["result"], 3)
            if state.done[index]:
                was = first[index >> 2] >> 2 * (index & 3) & 3
                if was != code:
                    raise TournamentError(f"{self.out}: game {record['id']!r} is recorded twice with different "
                                          f"results ({_RESULT_NAMES[was]}, then {record['result']}); this file "
                                          f"was left as it is (fix it, or choose another --out)")
                out.report.duplicates += 1
                continue
            first[index >> 2] |= code << 2 * (index & 3)
            state.add(index, record)

    def _record(self, slot, fields):
        """Return the full record of a slot from the fields `play_slot` returned."""
        record = {"id": slot["id"], "pair": slot["pair"], "version": ludo_flow.__version__,
                  "game": self.game.name, "variant": self.game.variant,
                  "params": dict(self.game.params), "start": slot["start"],
                  "opening": slot["opening"], "white": slot["white"], "black": slot["black"],
                  "seed_white": slot["seed_white"], "seed_black": slot["seed_black"]}
        record.update(fields)
        if self._record_settings is None:  # the same every record: made once
            self._record_settings = self.settings()
        record["settings"] = self._record_settings
        return record

    # ---- running ----------------------------------------------------------------------------
    def run(self):
        """Play every game not yet in `out`; return a TournamentResult (also on Ctrl-C or SIGTERM)."""
        _refuse_in_a_worker_import()
        joined = self._join_ray_cluster()
        try:
            return self._run()
        finally:
            if joined:
                import ray
                ray.shutdown()

    def _join_ray_cluster(self):
        """Join the Ray cluster at `address`, if one is given, before the records file is
        touched: an address that does not answer leaves no file behind. True if joined here."""
        if self.config.backend != "ray" or self.config.address is None:
            return False
        from .ray_runner import connect
        return connect(self.config)

    def _run(self):
        out = RecordsOutput(self.out)
        out.open(self.config.resume)
        state = _RunState(self)
        interrupted = terminated = False
        bar = None
        try:
            with _stop_signals() as signals:
                if not out.created:
                    self._read_file(out, state)
                    if out.cut_tail():
                        print(f"ludo-flow: dropped a last line of {self.out} cut short by a kill; "
                              f"that game is played again", file=sys.stderr)
                        if out.gz:  # a cut gzip stream may lose a line read above: count again
                            state = _RunState(self)
                            out.report = type(out.report)()
                            self._read_file(out, state)
                    self._say_what_the_file_held(out, state)
                pending = Pending(self._schedule, state.done)
                if state.sprt is not None and state.sprt.decision() is not None:
                    pending.clear()
                early = []  # worker processes started before the warm-up
                try:
                    play = self._backend(pending) if pending else None
                    if play is run_processes:
                        early = start_workers(self)  # they import while this process warms up
                    if pending:
                        specs = sorted(set(s for p in self.pairings() for s in p))
                        warm(self.game, specs=specs, start=self.start)
                        mark_warm(self.game, specs)
                    bar = _progress(len(self._schedule), state.done.count, self.config.progress)
                    state.show(bar)
                    write = self._writer(out, state, bar, signals)
                    if early:
                        play(self, pending, write, early)
                    elif play is not None:
                        play(self, pending, write)
                except KeyboardInterrupt as stop:
                    interrupted = True
                    terminated = isinstance(stop, Terminated)
                finally:
                    if early:
                        stop_workers(early)
        finally:
            if bar is not None:
                bar.close()
            out.close()
        return self._result(state, interrupted, terminated)

    def _say_what_the_file_held(self, out, state):
        skipped = out.report.describe()
        if skipped:
            print(f"ludo-flow: {self.out}: {skipped} (each game counted once)", file=sys.stderr)
        current = ludo_flow.cache.sources_id()
        other = {k: n for k, n in state.sources.items() if k != current}
        if other:
            # A resume after an edit is allowed (a fixed typo changes no game), but the file then
            # mixes code: say so, so a result is not published as one version's by mistake.
            print(f"ludo-flow: {sum(other.values())} of the {state.done.count} records in {self.out} were "
                  f"played by other sources: {describe_sources(other)}; the games played now run "
                  f"{current} (each record names its sources)", file=sys.stderr)

    def _writer(self, out, state, bar, signals):
        """Return write(results): record the finished games of `results` ([(slot, fields), ...])
        not yet in the file, as one batch of whole lines written and flushed at once; return
        True once the SPRT has decided."""
        index_of = self._schedule.index_of

        def write(results):
            lines, fresh = [], {}
            for slot, fields in results:
                index = index_of(slot["id"])
                if state.done[index] or index in fresh:  # a retried or replayed game: the first counts
                    continue
                record = self._record(slot, fields)
                lines.append(record_line(record))
                fresh[index] = record
            if lines:
                with signals.held():  # the lines are written whole or not at all, and counted
                    out.append(lines)
                    for index, record in fresh.items():
                        state.add(index, record)
                state.show(bar)
                bar.update(len(lines))
            return state.sprt is not None and state.sprt.decision() is not None
        return write

    def _backend(self, pending):
        """Return the function that plays the pending slots: Ray, worker processes or here."""
        if self.config.backend == "ray":
            from .ray_runner import run_ray
            self.workers = self.config.workers
            return run_ray
        wanted = self.config.workers
        self.workers = min(self.config.worker_count(), len(pending))
        if wanted is not None and wanted > self.config.worker_count():
            print(f"ludo-flow: --workers {wanted} capped at {self.config.worker_count()} "
                  f"(two a core on this machine's {os.cpu_count() or 1})", file=sys.stderr)
        if self.workers == 0:
            return _run_here
        return run_processes

    def _result(self, state, interrupted, terminated):
        order = self._schedule.index_of
        result = TournamentResult(ratings={}, sprt=state.sprt.state() if state.sprt is not None else None,
                                  out=self.out, total=len(self._schedule), finished=state.done.count,
                                  interrupted=interrupted, terminated=terminated,
                                  _order=lambda record: order(record["id"]))
        result.ratings = state.rate()
        return result


_RESULT_CODES = {"1-0": 0, "0-1": 1, "1/2-1/2": 2}  # any other result: 3
_RESULT_NAMES = ("1-0", "0-1", "1/2-1/2", "another result")


class _RunState:
    """What the runner keeps of the finished games: which slots, the SPRT's pair counts, the
    leader's score, the sources that played them, the ratings' counts (`ratings.RecordCounts`,
    ranked by slot so the report equals that of the records in schedule order); never the
    records themselves."""

    def __init__(self, tournament):
        self.done = Done(len(tournament.schedule()))
        self.counts = ratings.RecordCounts(pairs_of_two=True)
        self.sprt = (SprtTest(tournament.sprt, tournament.pairings()[0][0])
                     if tournament.sprt is not None else None)
        self.points, self.games = {}, {}
        self.sources = {}

    def add(self, index, record):
        """Count one finished record."""
        self.done.add(index)
        if self.sprt is not None:
            self.sprt.add(record)
        w = ratings.RESULT_SCORES.get(record["result"])
        if w is not None:
            for spec, score in ((record["white"], w), (record["black"], 1.0 - w)):
                self.points[spec] = self.points.get(spec, 0.0) + score
                self.games[spec] = self.games.get(spec, 0) + 1
        key = record.get("sources")
        self.sources[key] = self.sources.get(key, 0) + 1
        self.counts.add(record, rank=index)

    def rate(self):
        """Return the ratings of the games counted ({} before the first, {"error": why} if they
        cannot be rated yet)."""
        if not self.done.count:
            return {}
        try:
            return self.counts.rate()
        except ValueError as err:
            return {"error": str(err)}

    def show(self, bar):
        """Show the leader's score on the progress bar."""
        if bar.disable or not self.points:
            return
        leader = max(self.points, key=lambda s: (self.points[s] / self.games[s], self.games[s]))
        bar.set_postfix_str(f"leader {leader} {100 * self.points[leader] / self.games[leader]:.0f}%",
                            refresh=False)


def _run_here(run, pending, write):
    """Play the pending slots in this process, in chunks sized as the workers' are, writing
    each chunk's games at once."""
    game_spec = run.game.spec()
    sizer = ChunkSizer()
    while pending:
        slots = take_chunk(pending, sizer.size())
        began = time.perf_counter()
        results = [(slot, play_slot(game_spec, slot, run.config.move_limit)) for slot in slots]
        sizer.note(len(results), time.perf_counter() - began)
        if write(results):
            return


def _progress(total, initial, enabled):
    """Return a tqdm bar of games done (a silent stand-in when disabled)."""
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit="game", disable=not enabled, dynamic_ncols=True,
                file=sys.stderr)


# ---- signals ----------------------------------------------------------------------------------
class _Signals:
    """Ctrl-C and SIGTERM during a run: raised as KeyboardInterrupt / Terminated, except inside
    `held()`, where they wait until the block is done (a record line is never half written)."""

    def __init__(self):
        self.depth = 0
        self.waiting = None

    def handle(self, signum, frame):
        stop = Terminated("terminated") if signum == signal.SIGTERM else KeyboardInterrupt()
        if self.depth:
            self.waiting = stop
        else:
            raise stop

    @contextmanager
    def held(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.waiting is not None:
                stop, self.waiting = self.waiting, None
                raise stop


@contextmanager
def _stop_signals():
    """Handle SIGINT and SIGTERM as `_Signals` says while the block runs (main thread only;
    a SIGINT ignored or left to the OS stays so)."""
    signals = _Signals()
    if threading.current_thread() is not threading.main_thread():
        yield signals
        return
    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(number)
        if number == signal.SIGINT and not callable(handler):
            continue
        previous[number] = handler
        signal.signal(number, signals.handle)
    try:
        yield signals
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _refuse_in_a_worker_import():
    """Raise TournamentError when called from a script's top level while a worker process imports
    that script again (multiprocessing's spawn runs the main script as `__mp_main__`)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__mp_main__":
            raise TournamentError("this script starts a tournament when imported: worker processes "
                                  "import it again, so start it under `if __name__ == \"__main__\":`")
        frame = frame.f_back
