"""Tournaments: a schedule of games played in parallel, each appended to a JSON Lines file as it ends.

    >>> from agents.tournament import Tournament
    >>> t = Tournament("flow", agents=["random", "mcts:simulations=300", "alphabeta:depth=2"],
    ...                games=10, openings="random:plies=2", seed=1, out="flow.jsonl")
    >>> result = t.run()                # result.records, result.ratings, result.sprt
    >>> print(result.report())          # crosstable and ratings

The schedule: a round robin over the agents (or a gauntlet: one agent against each of the
others), `games` games per pairing, as `games / 2` openings each played twice with the colours
swapped (the two games of an opening are a *pair*). Openings are seeded random decisions from the
start (`random:plies=K` decisions, or `random:turns=K` whole turns of each player), or position
strings read from a file (one a line, used in order and reused from the top if there are fewer
than needed); with none, every game starts from the start position and the agents' seeds differ
per game. Same settings and seed: same schedule, same openings, same agent seeds.

Each game is played by `play_slot` in a worker: a process of this machine (`workers` of them,
replaced if one dies) or a Ray task (`backend="ray"`). Only this process writes the file, one
whole line per finished game, and only once per slot id: a game that a dead worker or a Ray
retry plays twice is written once. `resume=True` skips the ids already in the file, so a run
killed at any moment loses no finished game and counts none twice.
"""
import dataclasses
import gc
import hashlib
import json
import math
import os
import signal
import sys
import time
from collections import deque

import ludo_flow
from ludo_flow.errors import LudoFlowError
from ludo_flow.rng import new_rng, rand_below

from . import ratings
from .play import forfeit_fields, play_game
from .records import describe_sources, drop_partial_last_line, read_records, record_line, sources_counts
from .registry import make_agent, parse_spec
from .warmup import warm, warm_up

DEFAULT_MOVE_LIMIT = 120.0
MAX_WORKER_DEATHS = 3   # a game whose worker dies this often is forfeited by the side thinking
PREFETCH = 2            # slots given to a worker at once
SPRT_MODELS = ("normalized", "logistic")

# The embedded default: `ludo-flow tournament GAME` with no agents.
DEFAULT_AGENTS = ("random", "mcts:simulations=300", "mcts:simulations=3000",
                  "alphabeta:depth=3", "alphabeta:depth=5")
DEFAULT_GAMES = 60
# One random turn each: in Flow (two steps a turn) `random:plies=2` randomises White's turn
# only, and Black then scores 69 % in alpha-beta self-play, against 42 % after one random turn
# each (experiments/openings).
DEFAULT_OPENINGS = "random:turns=1"
OPENING_UNITS = ("plies", "turns")


class TournamentError(LudoFlowError):
    """A tournament's settings are wrong, or do not match the records file it resumes."""


def derive_seed(*parts):
    """Return a seed in [0, 2**31) derived from the parts (stable across runs and machines)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def parse_sprt(text):
    """Return {elo0, elo1, alpha, beta, model} from `elo0=E0,elo1=E1,alpha=A,beta=B[,model=M]`."""
    if isinstance(text, dict):
        items = dict(text)
    else:
        items = {}
        for part in str(text).split(","):
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            if not sep:
                raise TournamentError(f"--sprt takes key=value pairs, got {part.strip()!r}")
            items[key.strip()] = value.strip()
    out = {"alpha": 0.05, "beta": 0.05, "model": "normalized"}
    for key, value in items.items():
        if key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise TournamentError(f"unknown SPRT setting {key!r}; allowed: elo0, elo1, alpha, beta, model")
        if key == "model":
            if value not in SPRT_MODELS:
                raise TournamentError(f"SPRT model must be one of {', '.join(SPRT_MODELS)}, got {value!r}")
            out[key] = value
            continue
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            raise TournamentError(f"SPRT setting {key} must be a number, got {value!r}") from None
        if not math.isfinite(out[key]):
            raise TournamentError(f"SPRT setting {key} must be finite, got {value!r}")
    for key in ("elo0", "elo1"):
        if key not in out:
            raise TournamentError(f"--sprt needs {key}, e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05")
    if not out["elo0"] < out["elo1"]:
        raise TournamentError(f"SPRT needs elo0 < elo1, got {out['elo0']:g} and {out['elo1']:g}")
    for key in ("alpha", "beta"):
        if not 0.0 < out[key] < 0.5:
            raise TournamentError(f"SPRT {key} must be in (0, 0.5), got {out[key]:g}")
    return out


def _file_openings(game, path):
    """Return the position strings of an openings file (checked), and the file's sha256."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise TournamentError(f"cannot read openings file {path!r}: {err}") from None
    positions = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            state = game.from_string(line)
        except ValueError as err:
            raise TournamentError(f"{path}:{number}: {err}") from None
        if state.is_terminal():
            raise TournamentError(f"{path}:{number}: the game is already over in this position")
        positions.append(line)
    if not positions:
        raise TournamentError(f"openings file {path!r} holds no position")
    return positions, hashlib.sha256(data).hexdigest()


def random_opening(start_state, length, seed, unit="plies"):
    """Return the notation of a uniformly random opening from `start_state` that leaves the game
    going (tries further seeds derived from `seed` if a try ends the game): `length` decisions
    (unit "plies"), or `length` whole turns of each player (unit "turns": decisions until the
    player to move has changed 2 x `length` times, so both sides have had as many random turns
    and the opening ends where the starting player's turn begins)."""
    if unit not in OPENING_UNITS:
        raise TournamentError(f"an opening's length is counted in {' or '.join(OPENING_UNITS)}, "
                              f"got {unit!r}")
    target = length if unit == "plies" else 2 * length
    for attempt in range(1000):
        rng = new_rng(derive_seed(seed, attempt))
        state = start_state.clone()
        words = []
        count = 0  # decisions, or changes of the player to move
        while count < target and not state.is_terminal():
            legal = state.legal_actions()
            if not legal:
                break
            action = legal[int(rand_below(rng, len(legal)))]
            words.append(state.action_to_string(action))
            mover = state.current_player()
            state.apply(action)
            count += 1 if unit == "plies" else int(state.current_player() != mover)
        if count == target and not state.is_terminal():
            return words
    raise TournamentError(f"no random opening of {length} {unit} keeps the game going "
                          f"from this start (1000 tries)")


@dataclasses.dataclass
class TournamentResult:
    """What a tournament run returns: its records, ratings, SPRT state and how it ended."""

    records: list
    ratings: dict
    sprt: dict | None
    out: str
    total: int
    interrupted: bool = False

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
        lines.append(f"{len(self.records)} of {self.total} games recorded in {self.out}")
        return "\n".join(lines)


class Tournament:
    """A round robin or gauntlet between agents; `run()` plays it and returns a TournamentResult.

    Arguments: `game` (a name), `agents` (spec strings), `games` per pairing (even),
    `openings` (None, "random:plies=K", "random:turns=K" or a file of position strings), `seed`,
    `out` (the JSON Lines file), `gauntlet` (a spec playing each of `agents`), `variant`, `params`,
    `position` (a start position string), `move_limit` (seconds per move; over it the game
    is forfeited), `sprt` ("elo0=..,elo1=..,alpha=..,beta=..[,model=..]" or a dict; two agents
    only), `workers` (processes; 0 plays in this process), `backend` ("local" or "ray"),
    `address` (a Ray cluster to join), `resume` (continue `out`), `progress` (a tqdm bar)."""

    def __init__(self, game, agents, games=2, openings=None, seed=0, out="tournament.jsonl",
                 gauntlet=None, variant=None, params=None, position=None,
                 move_limit=DEFAULT_MOVE_LIMIT, sprt=None, workers=None, backend="local",
                 address=None, resume=False, progress=True):
        if game not in ludo_flow.GAMES:
            raise TournamentError(f"unknown game {game!r}; choose one of {', '.join(ludo_flow.GAMES)}")
        self.game = ludo_flow.load_game(game, variant, **(params or {}))
        self.start = self.game.new_initial_state().to_string() if position is None else position
        self.game.from_string(self.start)  # a bad position fails here, with its own message
        self.agents = self._check_specs(agents, gauntlet)
        self.gauntlet = gauntlet.strip() if gauntlet is not None else None
        if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
            raise TournamentError(f"games per pairing must be an even number >= 2 (each opening is "
                                  f"played twice, colours swapped), got {games!r}")
        self.games = games
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise TournamentError(f"seed must be an int >= 0, got {seed!r}")
        self.seed = seed
        try:
            self.move_limit = float(move_limit)
        except (TypeError, ValueError):
            raise TournamentError(f"move limit must be a number of seconds, got {move_limit!r}") from None
        if not (math.isfinite(self.move_limit) and self.move_limit > 0):
            raise TournamentError(f"move limit must be a positive number of seconds, got {move_limit!r}")
        self.sprt = parse_sprt(sprt) if sprt is not None else None
        if self.sprt is not None and len(self.pairings()) != 1:
            raise TournamentError("--sprt tests one match: give exactly two agents "
                                  "(or a gauntlet against one agent)")
        if workers is None:
            workers = os.cpu_count() or 1
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise TournamentError(f"workers must be an int >= 0 (0: play in this process), got {workers!r}")
        self.workers = workers
        if backend not in ("local", "ray"):
            raise TournamentError(f"backend must be 'local' or 'ray', got {backend!r}")
        if address is not None and backend != "ray":
            raise TournamentError("--address joins a Ray cluster: it needs --backend ray")
        self.backend = backend
        self.address = address
        self.out = str(out)
        self.resume = resume
        self.progress = progress
        self.openings_spec = openings
        self.openings = self._make_openings(openings)

    # ---- settings -----------------------------------------------------------------------
    def _check_specs(self, agents, gauntlet):
        if isinstance(agents, str) or not agents:
            raise TournamentError("agents is a list of spec strings, e.g. ['random', 'mcts:simulations=300']")
        specs = [s.strip() if isinstance(s, str) else s for s in agents]
        all_specs = specs + ([gauntlet.strip()] if isinstance(gauntlet, str) else [])
        if gauntlet is not None and not isinstance(gauntlet, str):
            raise TournamentError(f"the gauntlet agent is a spec string, got {gauntlet!r}")
        canonical = {}
        for spec in all_specs:
            try:
                name, _ = parse_spec(spec)
                agent = make_agent(spec)
            except ValueError as err:
                raise TournamentError(str(err)) from None
            if name == "human":
                raise TournamentError("a tournament cannot wait for a person: 'human' is not allowed")
            key = agent.spec()
            if key in canonical:
                raise TournamentError(f"agents {canonical[key]!r} and {spec!r} are the same agent; "
                                      f"list each agent once")
            canonical[key] = spec
        if gauntlet is None and len(specs) < 2:
            raise TournamentError("a round robin needs at least two agents")
        return specs

    def _make_openings(self, openings):
        """Return [(start position string, [opening moves])] for the games/2 openings."""
        n = self.games // 2
        if openings is None:
            return [(self.start, [])] * n
        text = str(openings)
        if text.startswith("random:"):
            key, sep, value = text[len("random:"):].partition("=")
            unit = key.strip()
            if unit not in OPENING_UNITS or not sep:
                raise TournamentError("random openings are written random:plies=K or "
                                      f"random:turns=K, got {text!r}")
            try:
                length = int(value)
            except ValueError:
                raise TournamentError(f"random:{unit}=K needs an integer K, got {value!r}") from None
            top = 200 if unit == "plies" else 100
            if not 0 <= length <= top:
                raise TournamentError(f"random:{unit}=K needs 0 <= K <= {top}, got {length}")
            start = self.game.from_string(self.start)
            self._openings_id = text
            return [(self.start, random_opening(start, length, derive_seed(self.seed, "opening", k),
                                                unit))
                    for k in range(n)]
        positions, digest = _file_openings(self.game, text)
        self._openings_id = f"file sha256:{digest}"
        return [(positions[k % len(positions)], []) for k in range(n)]

    def settings(self):
        """Return the settings that decide the schedule and the games (a resume must match them)."""
        if self.openings_spec is None:
            openings = None
        else:
            openings = self._openings_id
        return {"game": self.game.name, "variant": self.game.variant, "params": dict(self.game.params),
                "start": self.start, "agents": list(self.agents), "gauntlet": self.gauntlet,
                "games": self.games, "openings": openings, "seed": self.seed,
                "move_limit": self.move_limit}

    def pairings(self):
        """Return the pairings as (first spec, second spec): all pairs of a round robin, or the
        gauntlet agent first against each of the others."""
        if self.gauntlet is not None:
            return [(self.gauntlet, other) for other in self.agents]
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1:]]

    def schedule(self):
        """Return every game of the tournament as a slot dict, opening by opening (so a
        stopped run has played every pairing about equally)."""
        slots = []
        pairings = self.pairings()
        # Pair ids name the tournament too, so files merged for rating never share one.
        tag = hashlib.sha256(json.dumps(self.settings(), sort_keys=True).encode()).hexdigest()[:8]
        for k, (start, opening) in enumerate(self.openings):
            for p, (first, second) in enumerate(pairings):
                for swap in (0, 1):
                    white, black = (first, second) if swap == 0 else (second, first)
                    slot_id = f"p{p}-o{k}-{swap}"
                    slots.append({"id": slot_id, "pair": f"{tag}-p{p}-o{k}", "start": start,
                                  "opening": list(opening), "white": white, "black": black,
                                  "seed_white": derive_seed(self.seed, slot_id, "white"),
                                  "seed_black": derive_seed(self.seed, slot_id, "black")})
        return slots

    # ---- records --------------------------------------------------------------------------
    def _existing_records(self, slots):
        """Return the finished records of `out` (after checking they belong to this tournament)."""
        if not os.path.exists(self.out):
            return {}
        if not self.resume:
            raise TournamentError(f"{self.out} exists: pass --resume to continue it, or choose "
                                  f"another --out")
        if drop_partial_last_line(self.out):
            print(f"ludo-flow: dropped a last line of {self.out} cut short by a kill; "
                  f"that game is played again", file=sys.stderr)
        records, bad = read_records(self.out)
        if bad:
            raise TournamentError(f"{self.out}: lines {', '.join(map(str, bad[:5]))} are not "
                                  f"whole records; fix or remove them before resuming")
        mine = self.settings()
        ids = {s["id"] for s in slots}
        done = {}
        for record in records:
            theirs = record.get("settings")
            if theirs != mine:
                diff = sorted(k for k in set(mine) | set(theirs or {})
                              if (theirs or {}).get(k) != mine.get(k))
                raise TournamentError(
                    f"{self.out} was written by a tournament with other settings ({', '.join(diff)} "
                    f"differ: file {[(theirs or {}).get(k) for k in diff]}, now "
                    f"{[mine.get(k) for k in diff]}); resume with the same settings or use another --out")
            if record.get("id") not in ids:
                raise TournamentError(f"{self.out}: record id {record.get('id')!r} is not in this schedule")
            done[record["id"]] = record
        current = ludo_flow.cache.sources_id()
        other = sources_counts(r for r in done.values() if r.get("sources") != current)
        if other:
            # A resume after an edit is allowed (a fixed typo changes no game), but the file then
            # mixes code: say so, so a result is not published as one version's by mistake.
            print(f"ludo-flow: {sum(other.values())} of the {len(done)} records in {self.out} were "
                  f"played by other sources: {describe_sources(other)}; the games played now run "
                  f"{current} (each record names its sources)", file=sys.stderr)
        return done

    def _record(self, slot, fields):
        """Return the full record of a slot from the fields `play_slot` returned."""
        record = {"id": slot["id"], "pair": slot["pair"], "version": ludo_flow.__version__,
                  "game": self.game.name, "variant": self.game.variant,
                  "params": dict(self.game.params), "start": slot["start"],
                  "opening": slot["opening"], "white": slot["white"], "black": slot["black"],
                  "seed_white": slot["seed_white"], "seed_black": slot["seed_black"]}
        record.update(fields)
        record["settings"] = self.settings()
        return record

    # ---- running --------------------------------------------------------------------------
    def run(self):
        """Play every game not yet in `out`; return a TournamentResult (also on Ctrl-C)."""
        slots = self.schedule()
        done = self._existing_records(slots)
        records = [done[s["id"]] for s in slots if s["id"] in done]
        sprt = _Sprt(self.sprt, self.pairings()[0][0]) if self.sprt is not None else None
        for record in records if sprt is not None else ():
            sprt.add(record)
        pending = deque(s for s in slots if s["id"] not in done)
        if sprt is not None and sprt.decision() is not None:
            pending.clear()
        interrupted = False
        try:
            if pending:
                _announced_warm_up(self.game, self.start,
                                   sorted(set(s for p in self.pairings() for s in p)))
        except KeyboardInterrupt:
            pending.clear()
            interrupted = True
        bar = _progress(len(slots), len(records), self.progress)
        leader = _Leader(bar)
        for record in records:
            leader.add(record)
        with open(self.out, "a", encoding="utf-8") as fh:
            def write(slot, fields):
                if slot["id"] in done:  # a retried or replayed game: the first one counts
                    return False
                record = self._record(slot, fields)
                fh.write(record_line(record))
                fh.flush()
                done[slot["id"]] = record
                records.append(record)
                leader.add(record)
                bar.update(1)
                if sprt is not None:
                    sprt.add(record)
                    return sprt.decision() is not None
                return False

            run = _run_ray if self.backend == "ray" else _run_here if self.workers == 0 else _run_processes
            try:
                if pending:  # else finished, or the SPRT already decided
                    run(self, pending, write)
            except KeyboardInterrupt:
                interrupted = True
            finally:
                bar.close()
        order = {s["id"]: i for i, s in enumerate(slots)}
        records.sort(key=lambda r: order[r["id"]])
        result = TournamentResult(records=records, ratings=_rate(records),
                                  sprt=sprt.state() if sprt is not None else None, out=self.out,
                                  total=len(slots), interrupted=interrupted)
        return result


class _Sprt:
    """The SPRT of a two-agent match, kept up to date one record at a time (a long match would
    otherwise recount every record after every game)."""

    def __init__(self, test, first):
        self.test = test      # parse_sprt's dict
        self.first = first    # the agent whose strength is tested
        self.open = {}        # pair id -> first agent's score in the pair's one finished game
        self.counts = [0] * 5  # pentanomial counts of the finished pairs, as ratings.pair_counts

    def add(self, record):
        """Count one finished game (a pair is counted once both its games are in)."""
        score = ratings.RESULT_SCORES[record["result"]]
        if record["white"] != self.first:
            score = 1.0 - score
        other = self.open.pop(record["pair"], None)
        if other is None:
            self.open[record["pair"]] = score
        else:
            self.counts[int(2 * (score + other))] += 1  # LL, LD, WL+DD, WD, WW

    def llr(self):
        """Return the log-likelihood ratio of the finished pairs (0 before the first)."""
        t = self.test
        return ratings.sprt_llr(self.counts, t["elo0"], t["elo1"], t["model"]) if sum(self.counts) else 0.0

    def decision(self):
        """Return "H1", "H0", or None while the test goes on."""
        return ratings.sprt_decision(self.llr(), self.test["alpha"], self.test["beta"])

    def state(self):
        """Return the test's settings with its LLR, bounds, pair counts and decision."""
        t = self.test
        lower, upper = ratings.sprt_bounds(t["alpha"], t["beta"])
        llr = self.llr()
        return dict(t, llr=llr, lower=lower, upper=upper, pairs=list(self.counts),
                    decision=ratings.sprt_decision(llr, t["alpha"], t["beta"]))


def _rate(records):
    """Return the ratings of the records (empty while no game is decided between two agents)."""
    if not records:
        return {}
    try:
        return ratings.rate_records(records)
    except ValueError as err:
        return {"error": str(err)}


def _progress(total, initial, enabled):
    """Return a tqdm bar of games done (a silent stand-in when disabled)."""
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit="game", disable=not enabled, dynamic_ncols=True,
                file=sys.stderr)


class _Leader:
    """Running scores of the agents, shown on the progress bar as the leader's score."""

    def __init__(self, bar):
        self.bar = bar
        self.points, self.games = {}, {}

    def add(self, record):
        """Count one record and show the leader."""
        w = ratings.RESULT_SCORES[record["result"]]
        for spec, score in ((record["white"], w), (record["black"], 1.0 - w)):
            self.points[spec] = self.points.get(spec, 0.0) + score
            self.games[spec] = self.games.get(spec, 0) + 1
        if not self.bar.disable:
            leader = max(self.points, key=lambda s: (self.points[s] / self.games[s], self.games[s]))
            self.bar.set_postfix_str(
                f"leader {leader} {100 * self.points[leader] / self.games[leader]:.0f}%", refresh=False)


# ---- playing one game (in any worker) ---------------------------------------------------
_agent_cache = {}
_warmed = set()  # (game spec, agent spec) whose code this process has compiled or loaded


def _agent(spec):
    """Return this process's agent for a spec (built once: tables are allocated once)."""
    agent = _agent_cache.get(spec)
    if agent is None:
        agent = _agent_cache[spec] = make_agent(spec)
    return agent


def play_slot(game_spec, slot, move_limit, on_think=None):
    """Play the game of one schedule slot; return its record fields (moves, result, ...).

    `game_spec` is `Game.spec()`. Used by every backend: worker processes, Ray tasks and the
    in-process runner."""
    game = ludo_flow.load_game(game_spec["game"], game_spec["variant"], **game_spec["params"])
    # Compile or load each agent's code before its clock runs: a worker on a machine without
    # the cache (a Ray node, or sources edited since the runner's warm-up) must not lose a
    # game to the move limit while numba compiles.
    key = repr(sorted(game_spec.items()))
    cold = [s for s in (slot["white"], slot["black"]) if (key, s) not in _warmed]
    if cold:
        warm_up(game, slot["start"], cold)
        _warmed.update((key, s) for s in cold)
    state = game.from_string(slot["start"])
    for word in slot["opening"]:
        state.apply(state.parse_action(word))
    white, black = _agent(slot["white"]), _agent(slot["black"])
    white.reset(slot["seed_white"])
    black.reset(slot["seed_black"])
    fields = play_game(state, white, black, forfeit=True, move_limit=move_limit, on_think=on_think)
    fields["sources"] = ludo_flow.cache.sources_id()  # the code of the process that played
    return fields


def _announced_warm_up(game, start, specs):
    """Run `warm_up`, saying on stderr what is compiled while numba compiles on a first run
    (`agents.warmup.warm`, the one notice every command gives); a cached start stays silent."""
    warm(game, specs=specs, start=start)
    key = repr(sorted(game.spec().items()))
    _warmed.update((key, s) for s in specs)


def _run_here(t, pending, write):
    """Play the pending slots one by one in this process."""
    game_spec = t.game.spec()
    while pending:
        slot = pending.popleft()
        if write(slot, play_slot(game_spec, slot, t.move_limit)):
            return


# ---- worker processes on this machine ---------------------------------------------------
def _worker_main(conn, heartbeat, game_spec, move_limit):
    """A worker process: play the slots it is sent, send back (slot id, fields); stop on None.

    `heartbeat` holds (time the current decision started, side deciding) so the parent can
    stop a search that overruns the move limit even if it never returns."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle

    def on_think(side):
        if side is None:
            heartbeat[0] = 0.0
        else:
            heartbeat[1] = float(side)
            heartbeat[0] = time.time()

    while True:
        try:
            slot = conn.recv()
        except EOFError:
            slot = None
        if slot is None:
            gc.freeze()  # the shutdown's collections skip numba's objects (agents.cli.command)
            return
        try:
            fields = play_slot(game_spec, slot, move_limit, on_think)
        except Exception as err:  # noqa: BLE001 - reported to the parent, which records it
            conn.send((slot["id"], {"error": f"{type(err).__name__}: {err}"}))
            continue
        conn.send((slot["id"], fields))


class _Worker:
    """One worker process, its pipe, its heartbeat and the slots it was given (the first is
    the one it is playing)."""

    def __init__(self, ctx, game_spec, move_limit):
        self.conn, child = ctx.Pipe()
        self.heartbeat = ctx.Array("d", 2, lock=False)
        self.process = ctx.Process(target=_worker_main, daemon=True,
                                   args=(child, self.heartbeat, game_spec, move_limit))
        self.process.start()
        child.close()
        self.slots = deque()

    def give(self, slot):
        if not self.slots:
            self.heartbeat[0] = 0.0
        self.slots.append(slot)
        self.conn.send(slot)

    def stop(self, kill=False):
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


def _run_processes(t, pending, write):
    """Play the pending slots in worker processes; replace a worker that dies or overruns.

    Each worker holds up to PREFETCH slots, so it starts its next game without waiting for
    this process (a random-vs-random game takes about a millisecond)."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("spawn")
    game_spec = t.game.spec()
    grace = 1.0 + 0.25 * t.move_limit  # a search that never returns is killed after this
    deaths = {}
    workers = [_Worker(ctx, game_spec, t.move_limit) for _ in range(min(t.workers, len(pending)))]
    stopping = False
    try:
        while True:
            for w in workers:
                while len(w.slots) < PREFETCH and pending and not stopping:
                    w.give(pending.popleft())
            busy = [w for w in workers if w.slots]
            if not busy:
                break
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=0.25)
            for w in busy:
                while w.slots and w.conn in ready and w.conn.poll():
                    try:
                        slot_id, fields = w.conn.recv()
                    except (EOFError, OSError):
                        break  # the worker died: handled below
                    slot = w.slots.popleft()
                    assert slot["id"] == slot_id, (slot["id"], slot_id)
                    if "error" in fields:  # the runner itself failed on this game: a bug, say it
                        raise RuntimeError(f"game {slot_id} failed in a worker: {fields['error']}")
                    if write(slot, fields):
                        stopping = True
            for i, w in enumerate(workers):
                if not w.slots:
                    continue
                started = w.heartbeat[0]
                overran = started > 0 and time.time() - started > t.move_limit + grace
                if w.process.is_alive() and not overran:
                    continue
                slot = w.slots.popleft()  # the game it was playing; the queued ones go back
                pending.extendleft(reversed(w.slots))
                w.slots.clear()
                side = int(w.heartbeat[1]) if started > 0 else None
                w.stop(kill=True)
                workers[i] = _Worker(ctx, game_spec, t.move_limit)
                if overran:
                    reason = (f"move limit: no move after {t.move_limit + grace:g} s "
                              f"(limit {t.move_limit:g} s), the search was stopped")
                    if write(slot, _unfinished(slot, side, reason)):
                        stopping = True
                    continue
                deaths[slot["id"]] = deaths.get(slot["id"], 0) + 1
                if deaths[slot["id"]] >= MAX_WORKER_DEATHS and side is not None:
                    reason = f"the worker process died {deaths[slot['id']]} times while this agent thought"
                    if write(slot, _unfinished(slot, side, reason)):
                        stopping = True
                else:
                    pending.appendleft(slot)  # played again, from the start
    finally:
        for w in workers:
            w.stop(kill=bool(w.slots))


def _unfinished(slot, side, reason):
    """Return the record fields of a game stopped from outside and lost by `side`."""
    fields = {"moves": [], "plies": 0, "time_white": 0.0, "time_black": 0.0,
              "sources": ludo_flow.cache.sources_id()}  # no worker reported: the runner's own
    fields.update(forfeit_fields(side, reason))
    return fields


# ---- Ray --------------------------------------------------------------------------------
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


def _run_ray(t, pending, write):
    """Play the pending slots as Ray tasks (retried by Ray if a node is lost; each id is
    written once however often it is played)."""
    import ray
    started = start_ray(t.address, num_cpus=t.workers or None)
    in_flight = {}
    try:
        task = ray.remote(max_retries=3, retry_exceptions=False)(_ray_play)
        window = max(1, int(ray.cluster_resources().get("CPU", 1))) * 2
        game_spec = t.game.spec()
        failures = {}
        stopping = False
        while pending or in_flight:
            while pending and len(in_flight) < window and not stopping:
                slot = pending.popleft()
                in_flight[task.remote(game_spec, slot, t.move_limit)] = slot
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
