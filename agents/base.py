"""The Agent interface and the typed settings every agent declares (parsed from spec strings)."""
import difflib
import inspect
import math
import os
from typing import NamedTuple, Protocol, runtime_checkable

from .timecontrol import TimeManager, clocked_options


class AgentError(ValueError):
    """An agent name, setting or value is wrong (the message lists what is allowed)."""


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a search: `select_action` raises this KeyboardInterrupt.

    `action` is the best action found before the stop (None if there was none) and `stats`
    the agent's `last_stats` of that search (`stopped` is "interrupted"). The state given to
    `select_action` is unchanged and the agent can be used again."""

    def __init__(self, message, action=None, stats=None):
        super().__init__(message)
        self.action = action
        self.stats = stats if stats is not None else {}


INT64 = 1 << 63


def _digits(n):
    """Return an int for a message, shortened when it is long."""
    text = str(n)
    return text if len(text) <= 24 else f"{text[:10]}...{text[-4:]} ({len(text)} digits)"


# Used when the machine's memory cannot be read (os.sysconf is missing, e.g. on Windows).
FALLBACK_MEMORY_BYTES = 64 << 30

PV_LENGTH = 8  # the most actions of a principal variation in a search's `last_stats["pv"]`

# Seconds between two reports of a search given `on_progress` that reports by the clock (MCTS;
# alpha-beta reports each finished depth instead).
PROGRESS_INTERVAL = 0.15


class SearchProgress(NamedTuple):
    """What a search tells its `on_progress` callback while it runs (see `report_progress`).

    Alpha-beta reports after each finished depth of its iterative deepening; MCTS about every
    `PROGRESS_INTERVAL` seconds of search. Figures are those of the search so far."""

    agent: str               # the agent's name: "alphabeta" or "mcts"
    elapsed: float           # seconds since `select_action` began
    best: int                # the action the search would play now
    score: float | None      # its score from the mover's view (alpha-beta: the search's score,
    #                          a win p plies down is 1000 - p; MCTS: its mean value in [-1, 1])
    pv: tuple                # the principal variation, starting with `best` (at most PV_LENGTH)
    depth: int               # alpha-beta: the depth just finished; MCTS: the deepest path so far
    nodes: int               # alpha-beta: nodes searched; MCTS: nodes in the tree
    simulations: int = 0     # MCTS: simulations run for this move (alpha-beta: 0)
    share: float | None = None  # MCTS: the fraction of the root's visits that went to `best`


def report_progress(agent):
    """Return True if `agent.select_action` takes an `on_progress` keyword (the agents that
    report their search while it runs; any other agent is called without it)."""
    try:
        parameters = inspect.signature(agent.select_action).parameters
    except (TypeError, ValueError):
        return False
    return "on_progress" in parameters


def machine_memory():
    """Return the machine's physical memory in bytes (FALLBACK_MEMORY_BYTES if unknown)."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return FALLBACK_MEMORY_BYTES
    if pages <= 0 or page <= 0:
        return FALLBACK_MEMORY_BYTES
    return pages * page


def _size(n):
    """Return a byte count for people: '35.2 TB (35184372088832 bytes)'."""
    value, unit = float(n), "bytes"
    for name in ("KB", "MB", "GB", "TB", "PB"):
        if value < 1000:
            break
        value, unit = value / 1000, name
    return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit} ({n} bytes)"


def check_memory(agent_name, what, needed):
    """Raise AgentError if `needed` bytes (for `what`) exceed the machine's memory."""
    have = machine_memory()
    if needed > have:
        raise AgentError(f"{agent_name}: {what} would take {_size(needed)} of memory; this "
                         f"machine has {_size(have)}")


def unknown_setting(name, key, settings):
    """Return the one-line message for an unknown setting: the key, the closest valid one, where
    the list is."""
    close = difflib.get_close_matches(key, list(settings), n=1, cutoff=0.5)
    if not close:
        close = [k for k in settings if k.startswith(key[:2])][:1]
    hint = f"; did you mean {close[0]!r}?" if close else ""
    shown = key if len(key) <= 40 else key[:37] + "..."
    return (f"{name}: unknown setting {shown!r}{hint} (`ludo-flow agents` lists every agent's "
            f"settings)")


def split_settings(label, parts):
    """Return {setting: value string} of a spec's `key=value` parts; `label` names the agent in
    the one-line AgentError for a part without `=` or a setting given twice."""
    options = {}
    for part in parts:
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise AgentError(f"{label}: settings are key=value, got {part.strip()!r}")
        if key in options:
            raise AgentError(f"{label}: setting {key} given twice")
        options[key] = value.strip()
    return options


@runtime_checkable
class Agent(Protocol):
    """What tournaments, the CLI and notebooks need from a player.

    `select_action` returns a legal action (an int) for the player to move and never changes
    the state; `reset` starts a new game (clears tables and trees, reseeds). After each move
    `last_stats` holds the search statistics of that move (a dict whose keys are always the
    agent class's `STATS_KEYS`, whichever way the search ended). Ctrl-C during a search raises
    `SearchInterrupted` (a KeyboardInterrupt) and leaves state and agent usable.

    An agent may also take `select_action(state, on_progress=callback)`: it then calls
    `callback(SearchProgress(...))` while it searches (alpha-beta and MCTS do; see
    `report_progress`). The callback changes nothing the search computes."""

    name: str
    last_stats: dict

    def select_action(self, state) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


class Setting:
    """One named, typed, bounded option of an agent (`depth`, `simulations`, `time`, ...)."""

    def __init__(self, kind, default, help, low=None, high=None, choices=None, memory=None):
        self.kind = kind          # int, float or str
        self.default = default
        self.help = help
        self.low = low
        self.high = high
        self.choices = choices
        self.memory = memory      # value -> bytes it makes the agent allocate (checked)

    def parse(self, agent_name, key, value):
        """Return `value` (a string from a spec, or a Python value) converted and checked."""
        try:
            if self.kind is int:
                if isinstance(value, bool) or isinstance(value, float):
                    raise ValueError
                out = int(value)
            elif self.kind is float:
                if isinstance(value, bool):
                    raise ValueError
                out = float(value)
            else:
                out = str(value)
        except (TypeError, ValueError):
            raise AgentError(f"{agent_name}: setting {key} must be {self.kind.__name__}, "
                             f"got {value!r}") from None
        if self.kind is float and not math.isfinite(out):
            raise AgentError(f"{agent_name}: setting {key} must be a finite number, got {value!r}")
        if self.kind is int and not -INT64 <= out < INT64:  # the searches hold settings in int64
            raise AgentError(f"{agent_name}: setting {key} must be below 2**63, got {_digits(out)}")
        if self.choices is not None and out not in self.choices:
            raise AgentError(f"{agent_name}: setting {key} must be one of "
                             f"{', '.join(map(str, self.choices))}, got {out!r}")
        if self.low is not None and out < self.low:
            raise AgentError(f"{agent_name}: setting {key} must be >= {self.low}, got {out}")
        if self.high is not None and out > self.high:
            raise AgentError(f"{agent_name}: setting {key} must be <= {self.high}, got {out}")
        if self.memory is not None:
            check_memory(agent_name, f"setting {key}={out}", self.memory(out))
        return out

    def describe(self, key):
        """Return a one-line description: name, default and meaning."""
        return f"{key}={self.default!r}: {self.help}"


class ClockReading(NamedTuple):
    """What an agent is told of its clock before a move (see `BaseAgent.set_clock`)."""

    remaining: float         # seconds left on its clock
    increment: float         # seconds added after each move
    moves_to_go: int | None  # moves left in the period (None: the rest of the game)


class BaseAgent:
    """Shared plumbing: settings from keyword arguments, `name`, `spec()`, `last_stats`, and
    the clock (`set_clock`, `clock`)."""

    agent_name = ""
    settings = {}  # key -> Setting
    STATS_KEYS = ()  # the keys of `last_stats` after every select_action (documented per agent)
    clock = None       # the last ClockReading given by set_clock (None: no clock)
    _unclocked = None  # the agent's own settings while a clock has replaced some of them
    _time_manager = None  # the TimeManager of the game being played on a clock

    def __init__(self, **options):
        unknown = sorted(set(options) - set(self.settings))
        if unknown:
            raise AgentError(unknown_setting(self.agent_name, unknown[0], self.settings))
        self.options = {}
        for key, setting in self.settings.items():
            value = options.get(key, setting.default)
            self.options[key] = value if value is None else setting.parse(self.agent_name, key, value)
        self.last_stats = {}
        self.reset(self.options.get("seed"))

    @property
    def name(self):
        """Return the agent's spec string, which names it in tables and logs."""
        return self.spec()

    def spec(self):
        """Return the spec string that rebuilds this agent (only non-default settings; the
        agent's own, not those a clock set for one move)."""
        options = self.options if self._unclocked is None else self._unclocked
        parts = [f"{k}={v}" for k, v in options.items()
                 if v != self.settings[k].default]
        return self.agent_name + (":" + ",".join(parts) if parts else "")

    def reset(self, seed=None):
        """Start a new game; with a seed, reseed the agent's random generator."""
        raise NotImplementedError

    def set_clock(self, remaining, increment=0.0, moves_to_go=None):
        """Tell the agent its clock before its next move: `remaining` seconds left, `increment`
        seconds added after each move, `moves_to_go` moves left in the period (None: the rest
        of the game); `remaining=None` takes the clock away (after a game).

        The default time manager (`agents.timecontrol.TimeManager`, one a game) sets the
        agent's `time` setting for the move to its allotment (a `time` in its spec caps it)
        and lifts the depth and simulation budgets its spec leaves at their defaults; an agent
        without a `time` setting keeps its settings and may read `self.clock`. An agent class
        can override this to manage its time its own way."""
        if remaining is None:
            if self._unclocked is not None:
                self.options = self._unclocked
            self._unclocked = None
            self._time_manager = None
            self.clock = None
            return
        if self._unclocked is None:
            self._unclocked = self.options
        if self._time_manager is None:
            self._time_manager = TimeManager()
        self.clock = ClockReading(float(remaining), float(increment),
                                  None if moves_to_go is None else int(moves_to_go))
        self.options = clocked_options(self._unclocked, self.settings,
                                       self._time_manager.allot(remaining, increment, moves_to_go))

    def __repr__(self):
        return f"<{type(self).__name__} {self.spec()}>"


def check_state(state):
    """Return (game id, kernel array) of a State, after checking the game is not over."""
    game = getattr(state, "game", None)
    if game is None or not hasattr(state, "array"):
        raise AgentError(f"an agent needs a ludo_flow State, got {type(state).__name__}")
    if state.is_terminal():
        raise AgentError("the game is over: there is no action to select")
    return int(game.game_id), state.array


def load_evaluation(agent_name, value):
    """Return the `network.NetFile` of an `eval` setting net:FILE (loaded and checked), or
    None for a game's own evaluation (hand, texel); AgentError naming the problem otherwise."""
    from ludo_flow import network
    try:
        path = network.parse_evaluation(value)[1]
    except network.NetError as err:
        raise AgentError(f"{agent_name}: setting {err}") from None
    if path is None:
        return None
    try:
        return network.load_net(path)
    except network.NetError as err:
        raise AgentError(f"{agent_name}: setting eval: {err}") from None


_NO_NETS = {}  # game id -> the empty network a search by a game's own evaluation is given


def net_for(agent_name, net_file, game_id):
    """Return the `network.Net` a search of game `game_id` takes: the file's network (AgentError
    if it was trained for another game), or an unread empty one without a file."""
    from ludo_flow import network, registry
    if net_file is None:
        if game_id not in _NO_NETS:
            _NO_NETS[game_id] = network.no_net(game_id)
        return _NO_NETS[game_id]
    name = registry.entry_of(game_id).name
    if net_file.game != name:
        raise AgentError(f"{agent_name}: setting eval: the network is for {net_file.game}, "
                         f"not {name}")
    return net_file.net
