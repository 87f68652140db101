"""A tournament's settings as one checked bundle: `TournamentConfig`.

Every setting is checked here, before any game, file or process: a bad one raises
`TournamentError` (a ValueError) whose message names it. The defaults are the embedded
default tournament's (`ludo-flow tournament GAME` with no agents).
"""
import dataclasses
import functools
import ipaddress
import math
import os
import re

from ludo_flow.errors import LudoFlowError

from .. import own
from ..adjudication import check_solved_game, needs_scores, parse_adjudication
from ..registry import AGENTS, make_agent, parse_spec
from ..timecontrol import parse_time_control
from .suites import suite_name, suite_names

DEFAULT_MOVE_LIMIT = 120.0
# The embedded default: `ludo-flow tournament GAME` with no agents.
DEFAULT_AGENTS = ("random", "mcts:simulations=300", "mcts:simulations=3000",
                  "alphabeta:depth=3", "alphabeta:depth=5")
DEFAULT_GAMES = 60
# The embedded default's openings where no suite is shipped for the start (`default_openings`).
# One random turn each: in Flow (two steps a turn) `random:plies=2` randomises White's turn
# only, and Black then scores 69 % in alpha-beta self-play, against 42 % after one random turn
# each (experiments/openings).
DEFAULT_OPENINGS = "random:turns=1"
# Games whose embedded default tournament plays the shipped balanced suite of its variant
# (`openings="suite"`) instead. Flow: from `random:turns=1` White scores 62 % in alpha-beta
# self-play and 12-14 % of a match's opening pairs are decided within 6 plies for both colours;
# from the suite White scores 47 %, early pairs are under 1 %, and SPRTs of two known gains
# decide in 8-11 % fewer games. Tolkuchka's suite evens White's score (52 % against 62 %) but
# draws more, and one of the two SPRTs took 38 % more games: not its default (experiments/openings).
SUITE_DEFAULT_GAMES = ("flow",)
BACKENDS = ("local", "ray")
MAX_GAMES = 10 ** 9          # games in one tournament: the finished-games bitset stays under 125 MB
WORKERS_PER_CORE = 2         # more worker processes than this only share the cores
MAX_MOVE_LIMIT = 10 ** 6     # seconds
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


class TournamentError(LudoFlowError):
    """A tournament's settings are wrong, or do not match the records file it resumes."""


def parse_ray_address(text):
    """Return (host, port) of a Ray cluster address `HOST:PORT` (an IPv6 host in brackets:
    `[::1]:6379`); raise TournamentError for anything else."""
    shown = repr(text if not isinstance(text, str) or len(text) <= 60 else text[:60] + "...")
    wrong = TournamentError(f"a Ray address is HOST:PORT (the head node's GCS port, e.g. "
                            f"127.0.0.1:6379), got {shown}")
    if not isinstance(text, str):
        raise wrong
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise wrong
    if host.startswith("[") and host.endswith("]"):
        try:
            host = str(ipaddress.IPv6Address(host[1:-1]))
        except ValueError:
            raise wrong from None
    elif not _HOST.fullmatch(host) or ".." in host:
        raise wrong
    return host, int(port)


SPRT_MODELS = ("normalized", "logistic")


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


def _as_spec(agent):
    """Return an agent's spec string: a string as given, an agent class or factory (or a
    functools.partial of one) as its `py:` spec, an agent object by its `spec()`."""
    if isinstance(agent, str):
        return agent
    if not isinstance(agent, (type, functools.partial)) and callable(getattr(agent, "select_action", None)):
        if AGENTS.get(getattr(agent, "agent_name", None)) is type(agent):
            return agent.spec()  # one of ours: its spec rebuilds it
        raise TournamentError(f"an agent object ({type(agent).__name__}) cannot be sent to the worker "
                              f"processes: pass its class, or functools.partial(Class, key=value), "
                              f"and each process builds its own")
    try:
        return own.spec_of(agent)
    except ValueError as err:
        raise TournamentError(str(err)) from None


def _reports_scores(spec):
    """Return whether the agent of `spec` may report a score (its class lists `score` in its
    STATS_KEYS; an agent of your own that lists none is given the benefit of the doubt)."""
    keys = getattr(make_agent(spec), "STATS_KEYS", None)
    return keys is None or "score" in keys


def default_openings(game_name, variant, from_variant_start=True):
    """Return the embedded default tournament's openings for a game's variant: "suite" where
    the game plays its suite by default, one is shipped for the variant and the tournament
    starts from the variant's start position; DEFAULT_OPENINGS otherwise."""
    if (game_name in SUITE_DEFAULT_GAMES and from_variant_start
            and suite_name(game_name, variant) in suite_names()):
        return "suite"
    return DEFAULT_OPENINGS


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides a tournament and how it runs.

    game        a registered game name ("flow", "tolkuchka")
    agents      agent spec strings (a round robin), or the opponents of `gauntlet`; an agent
                class or factory (or a functools.partial of one) becomes its `py:` spec
    games       games per pairing, even: games/2 openings, each played twice, colours swapped
    openings    None (every game from the start), "random:plies=K", "random:turns=K",
                "suite" (the package's balanced suite of the game's variant), "suite:NAME", or
                the path of a file of position strings (one a line)
    seed        decides the openings and the agents' seeds (same seed, same schedule)
    out         the records file (JSON Lines; `.gz` compressed)
    gauntlet    an agent spec that plays each of `agents` (None: a round robin)
    variant, params, position   the game's variant, parameters and start position string
    move_limit  seconds a move may take; a slower move forfeits the game
    tc          a time control in fastchess's syntax, `[MOVES/][MIN:]SEC[+INC]` ("10+0.1",
                "40/60"), or None (no clocks): each side's clock per game; a fallen flag loses
                (termination "time_forfeit"); kept as the canonical text
    time_margin milliseconds a clock may fall below zero before its flag falls (fastchess's
                timemargin; needs `tc`)
    sprt        "elo0=..,elo1=..[,alpha=..,beta=..,model=..]" or a dict: two agents only;
                the match stops once the test decides (kept as parse_sprt's dict)
    workers     worker processes (None: one per core; 0: play in this process); with Ray,
                the CPUs of a local instance
    backend     "local" (processes of this machine) or "ray"
    address     the Ray cluster to join (None: start a local one)
    resume      continue `out`: its finished games are kept and not played again
    progress    show a progress bar on stderr
    adjudicate  None, or adjudication rules: words such as ("resign=0.9,moves=4",
                "draw=0.05,moves=8,after=40", "max-plies=300") or the dict
                `agents.adjudication.parse_adjudication` returns
    """

    game: str
    agents: tuple
    games: int = 2
    openings: str | None = None
    seed: int = 0
    out: str = "tournament.jsonl"
    gauntlet: str | None = None
    variant: str | None = None
    params: dict | None = None
    position: str | None = None
    move_limit: float = DEFAULT_MOVE_LIMIT
    sprt: object = None
    workers: int | None = None
    backend: str = "local"
    address: str | None = None
    resume: bool = False
    progress: bool = True
    adjudicate: object = None
    tc: str | None = None
    time_margin: float = 0.0

    def __post_init__(self):
        set_ = object.__setattr__  # frozen: normalise once, here
        if not isinstance(self.game, str):
            raise TournamentError(f"game is a name such as 'flow', got {self.game!r}")
        if isinstance(self.agents, str) or not isinstance(self.agents, (list, tuple)) or not self.agents:
            raise TournamentError("agents is a list of spec strings, e.g. ['random', 'mcts:simulations=300']")
        set_(self, "agents", tuple(_as_spec(a) for a in self.agents))
        if self.gauntlet is not None:
            set_(self, "gauntlet", _as_spec(self.gauntlet))
        for spec in list(self.agents) + ([self.gauntlet] if self.gauntlet is not None else []):
            if not isinstance(spec, str) or not spec.strip():
                raise TournamentError(f"an agent spec is a non-empty string such as 'mcts:simulations=300', "
                                      f"got {spec!r}")
        set_(self, "agents", tuple(s.strip() for s in self.agents))
        if self.gauntlet is not None:
            set_(self, "gauntlet", self.gauntlet.strip())
        if not _whole(self.games) or self.games < 2 or self.games % 2:
            raise TournamentError(f"games per pairing must be an even number >= 2 (each opening is "
                                  f"played twice, colours swapped), got {self.games!r}")
        if not _whole(self.seed) or not 0 <= self.seed < 1 << 63:
            raise TournamentError(f"seed must be an int in [0, 2**63), got {self.seed!r}")
        try:
            limit = float(self.move_limit)
        except (TypeError, ValueError):
            raise TournamentError(f"move limit must be a number of seconds, got {self.move_limit!r}") from None
        if not (math.isfinite(limit) and 0 < limit <= MAX_MOVE_LIMIT):
            raise TournamentError(f"move limit must be a number of seconds in (0, {MAX_MOVE_LIMIT}], "
                                  f"got {self.move_limit!r}")
        set_(self, "move_limit", limit)
        if self.workers is not None and (not _whole(self.workers) or self.workers < 0):
            raise TournamentError(f"workers must be an int >= 0 (0: play in this process), got {self.workers!r}")
        if self.backend not in BACKENDS:
            raise TournamentError(f"backend must be 'local' or 'ray', got {self.backend!r}")
        if self.address is not None:
            if self.backend != "ray":
                raise TournamentError("--address joins a Ray cluster: it needs --backend ray")
            parse_ray_address(self.address)
            set_(self, "address", self.address.strip())
        if not isinstance(self.out, (str, os.PathLike)) or not str(self.out):
            raise TournamentError(f"out is the path of the records file, got {self.out!r}")
        set_(self, "out", os.fspath(self.out))
        if self.params is not None and not isinstance(self.params, dict):
            raise TournamentError(f"params is a dict of game parameters, got {self.params!r}")
        set_(self, "params", dict(self.params or {}))
        for flag in ("resume", "progress"):
            if not isinstance(getattr(self, flag), bool):
                raise TournamentError(f"{flag} is True or False, got {getattr(self, flag)!r}")
        self._check_clock()
        self._check_agents()
        self._check_reachable()
        self._check_adjudication()
        set_(self, "sprt", parse_sprt(self.sprt) if self.sprt is not None else None)
        if self.sprt is not None and len(self.pairings()) != 1:
            raise TournamentError("--sprt tests one match: give exactly two agents "
                                  "(or a gauntlet against one agent)")
        if self.total_games() > MAX_GAMES:
            raise TournamentError(f"{self.total_games():,} games is more than one tournament holds "
                                  f"(at most {MAX_GAMES:,}); play it as several tournaments")

    def _check_clock(self):
        """Check `tc` and `time_margin` (TournamentError in one line); keep the canonical text."""
        try:
            clock = None if self.tc is None else parse_time_control(self.tc, self.time_margin)
            if self.tc is None:
                parse_time_control("1", self.time_margin)  # checks the margin alone
        except ValueError as err:
            raise TournamentError(str(err)) from None
        if clock is None:
            if self.time_margin:
                raise TournamentError("a time margin needs a time control (--tc)")
            return
        object.__setattr__(self, "tc", clock.text())
        object.__setattr__(self, "time_margin", clock.margin * 1000.0)

    def time_control(self):
        """Return the TimeControl of `tc` and `time_margin`, or None without clocks."""
        return None if self.tc is None else parse_time_control(self.tc, self.time_margin)

    def _check_agents(self):
        """Refuse specs that build no agent, a person, one agent listed twice, or one agent alone."""
        canonical = {}
        for spec in self.agents + ((self.gauntlet,) if self.gauntlet is not None else ()):
            try:
                name, _ = parse_spec(spec)
                agent = make_agent(spec)
            except ValueError as err:
                raise TournamentError(str(err)) from None
            if name == "human":
                raise TournamentError("a tournament cannot wait for a person: 'human' is not allowed")
            key = own.canonical(spec) if name == own.KIND else agent.spec()
            if key in canonical:
                raise TournamentError(f"agents {canonical[key]!r} and {spec!r} are the same agent; "
                                      f"list each agent once")
            canonical[key] = spec
        if self.gauntlet is None and len(self.agents) < 2:
            raise TournamentError("a round robin needs at least two agents")

    def _check_reachable(self):
        """Refuse a `py:` agent other processes cannot import when games are played in them."""
        if self.backend != "ray" and self.workers == 0:
            return
        for spec in self.agents + ((self.gauntlet,) if self.gauntlet is not None else ()):
            if parse_spec(spec)[0] == own.KIND:
                why = own.reachable_error(spec)
                if why is not None:
                    raise TournamentError(why)

    def _check_adjudication(self):
        """Parse `adjudicate` into its rules; refuse rules that need scores an agent never reports."""
        if self.adjudicate is None:
            return
        try:
            rules = parse_adjudication(self.adjudicate)
            check_solved_game(rules, self.game)
        except ValueError as err:
            raise TournamentError(str(err)) from None
        object.__setattr__(self, "adjudicate", rules)
        need = needs_scores(rules)
        for pairing in self.pairings():
            silent = [s for s in pairing if not _reports_scores(s)]
            if need and len(silent) > 2 - need:
                rule = "draw or two-sided resign" if need == 2 else "resign"
                raise TournamentError(f"--adjudicate {rule} reads the agents' scores, and {silent[0]} "
                                      f"reports none (`ludo-flow agents` lists what each reports)")

    def pairings(self):
        """Return the pairings as (first spec, second spec): all pairs of a round robin, or the
        gauntlet agent first against each of the others."""
        if self.gauntlet is not None:
            return [(self.gauntlet, other) for other in self.agents]
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1:]]

    def total_games(self):
        """Return the number of games in the schedule."""
        return len(self.pairings()) * self.games

    def worker_count(self):
        """Return how many worker processes to start: `workers` (default one per core), at
        most WORKERS_PER_CORE per core."""
        cores = os.cpu_count() or 1
        wanted = cores if self.workers is None else self.workers
        return min(wanted, WORKERS_PER_CORE * cores)

    def replace(self, **changes):
        """Return a copy with some settings changed (checked again)."""
        return dataclasses.replace(self, **changes)
