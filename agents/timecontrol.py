"""Game clocks: time controls in fastchess's syntax, both sides' clocks of a game, the time manager.

A time control is written as fastchess and cutechess-cli write it, `[MOVES/][MIN:]SEC[+INC]`:
`10+0.1` is 10 seconds for the game and 0.1 s more after each move, `40/60` is 60 seconds for
every 40 moves, `40/1:30+0.5` is 90 seconds for every 40 moves plus 0.5 s a move. A *move* is
one decision (one entry of a record's `moves`: a Flow step or wash choice is one).

The clock is kept as fastchess keeps it: each side starts with BASE + INC; after a move its
thinking time is taken off; a side more than the margin below zero has lost on time (its move
is not played); a clock a little below zero (within the margin) is set to zero; then INC is
added, and with periods BASE again after the last move of each period.

The time manager (`allot`, `TimeManager`) turns a side's clock into a time for one move: an
even share of the time left over the moves still to come (the period's, or `HORIZON`), plus
part of the increment, less a reserve for what each move costs beyond its time (measured
during the game: it grows on a loaded machine), and never more than `MAX_SHARE` of the time
left. `clocked_options` gives an agent's settings for one clocked move: its `time`
setting becomes that allotment (a `time` written in its spec still caps it), and its depth
and simulation budgets left at their defaults are lifted, so that the clock decides how long
it searches; budgets written in its spec still apply.
"""
import dataclasses
import math
import re

from ludo_flow.errors import LudoFlowError

TIME_FORFEIT = "time_forfeit"  # a record's termination when a side's flag fell
MAX_SECONDS = 10 ** 6          # the most seconds a time control's base or increment may hold
MAX_MOVES = 10 ** 6            # the most moves a period may hold
MAX_MARGIN_MS = 10 ** 7        # the largest --time-margin, in milliseconds

HORIZON = 30            # moves of the mover assumed still to come when the game has no periods
MOVE_OVERHEAD = 0.005   # seconds reserved for each move to come: the player's own work, the search's overrun
INCREMENT_SHARE = 0.5   # the share of the increment (less the overhead) spent on the move that earns it
MAX_SHARE = 0.5         # never more than this share of the time left on one move
LAST_MOVE_SHARE = 0.8   # ...except the period's last move, which may use this share
MIN_MOVE_TIME = 0.001   # the least time a move is given (a time setting of 0 would mean none)

_NUMBER = r"(?:\d{1,7}(?:\.\d{0,9})?|\.\d{1,9})"
_SYNTAX = re.compile(rf"(?:(?P<moves>\d{{1,7}})/)?(?:(?P<minutes>\d{{1,6}}):)?(?P<seconds>{_NUMBER})"
                     rf"(?:\+(?P<increment>{_NUMBER}))?")


class TimeControlError(LudoFlowError):
    """A time control or a time margin is malformed or out of range (the message says which)."""


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """One side's time control (both sides get the same one).

    base       seconds for the game, or for each period of `moves` moves
    increment  seconds added after each move
    moves      moves per period (0: the whole game is one period)
    margin     seconds a clock may fall below zero before the flag falls (fastchess's
               timemargin, given in milliseconds on the command line)
    """

    base: float
    increment: float = 0.0
    moves: int = 0
    margin: float = 0.0

    def __post_init__(self):
        for name in ("base", "increment", "margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise TimeControlError(f"a time control's {name} must be a number of seconds, got {value!r}")
            top = MAX_MARGIN_MS / 1000 if name == "margin" else MAX_SECONDS
            if not 0 <= value <= top:
                raise TimeControlError(f"a time control's {name} must be in [0, {top:g}] seconds, got {value!r}")
        if isinstance(self.moves, bool) or not isinstance(self.moves, int) or not 0 <= self.moves <= MAX_MOVES:
            raise TimeControlError(f"a time control's moves per period must be an int in [0, {MAX_MOVES}], "
                                   f"got {self.moves!r}")
        if self.base + self.increment <= 0:
            raise TimeControlError("a time control needs some time: a base or an increment above 0")

    def text(self):
        """Return the time control in fastchess's syntax, seconds only: '40/60+0.5', '10+0.1'."""
        out = f"{self.moves}/" if self.moves else ""
        out += f"{self.base:.6g}"
        if self.increment:
            out += f"+{self.increment:.6g}"
        return out

    def __str__(self):
        return self.text()


def parse_time_control(text, margin_ms=0.0):
    """Return the TimeControl of `[MOVES/][MIN:]SEC[+INC]` (seconds, as fastchess's `tc=`)
    with a margin of `margin_ms` milliseconds (fastchess's `timemargin=`); a TimeControl is
    returned with its margin replaced. TimeControlError (one line) names what is wrong."""
    margin = parse_time_margin(margin_ms)
    if isinstance(text, TimeControl):
        return dataclasses.replace(text, margin=margin)
    if not isinstance(text, str):
        raise TimeControlError(f"a time control is text such as '10+0.1' or '40/60', got {text!r}")
    found = _SYNTAX.fullmatch(text.strip())
    if found is None:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise TimeControlError(f"a time control is [MOVES/][MIN:]SEC[+INC] in seconds, e.g. 10+0.1, "
                               f"40/60 or 40/1:30+0.5; got {shown!r}")
    moves = int(found["moves"]) if found["moves"] is not None else 0
    if found["moves"] is not None and moves == 0:
        raise TimeControlError(f"a period holds at least one move, got {text.strip()!r}")
    base = float(found["seconds"]) + 60 * int(found["minutes"] or 0)
    increment = float(found["increment"]) if found["increment"] is not None else 0.0
    return TimeControl(base=base, increment=increment, moves=moves, margin=margin)


def parse_time_margin(margin_ms):
    """Return a time margin in seconds from milliseconds (a number or its text), checked."""
    value = margin_ms
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise TimeControlError(f"a time margin is a number of milliseconds, got {margin_ms!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TimeControlError(f"a time margin is a number of milliseconds, got {margin_ms!r}")
    if not 0 <= value <= MAX_MARGIN_MS:
        raise TimeControlError(f"a time margin must be in [0, {MAX_MARGIN_MS}] milliseconds, got {margin_ms!r}")
    return value / 1000.0


class GameClock:
    """Both sides' clocks in one game (side 0 White, 1 Black) under one TimeControl.

    `reading(side)` is what the side is told before it moves: (seconds left, increment, moves
    to go in the period or None); `spend(side, seconds)` charges a move and returns False when
    that move made the flag fall. `remaining` holds each side's clock (the fallen side's below
    zero, by how much it overran)."""

    def __init__(self, time_control):
        self.tc = time_control
        start = time_control.base + time_control.increment
        self.remaining = [start, start]
        self.moves_left = [time_control.moves, time_control.moves]

    def reading(self, side):
        """Return (seconds left, increment, moves to go in this period or None) of `side`."""
        return self.remaining[side], self.tc.increment, (self.moves_left[side] or None)

    def spend(self, side, seconds):
        """Charge `side` a move that took `seconds`; return False if its flag fell."""
        left = self.remaining[side] - seconds
        if left < -self.tc.margin:
            self.remaining[side] = left
            return False
        left = max(left, 0.0) + self.tc.increment
        if self.tc.moves:
            self.moves_left[side] -= 1
            if self.moves_left[side] == 0:
                self.moves_left[side] = self.tc.moves
                left += self.tc.base
        self.remaining[side] = left
        return True

    def flag_reason(self, side, seconds):
        """Return the forfeit reason after `spend(side, seconds)` returned False."""
        had = self.remaining[side] + seconds
        return (f"time: the move took {seconds:.3f} s with {had:.3f} s on the clock "
                f"(time control {self.tc.text()}, margin {self.tc.margin * 1000:g} ms)")


def allot(remaining, increment=0.0, moves_to_go=None, overhead=MOVE_OVERHEAD, spike=None):
    """Return the seconds to spend on this move with `remaining` seconds on the clock, `increment`
    after each move and `moves_to_go` moves left in the period (None: no periods; HORIZON
    moves are assumed to come). `overhead` is what a move is expected to cost beyond the time
    it is given, `spike` the largest such overrun to guard against (default 2 x overhead).

    Kept back: two spikes, and the overhead the increment does not pay for over the moves to
    come; the rest is shared evenly over them, plus INCREMENT_SHARE of the increment left
    after the overhead. Never more than MAX_SHARE of the time left (LAST_MOVE_SHARE on a
    period's last move), never below MIN_MOVE_TIME."""
    mtg = max(int(moves_to_go) if moves_to_go else HORIZON, 1)
    spike = 2 * overhead if spike is None else max(spike, overhead)
    reserve = 2 * spike + mtg * max(0.0, overhead - increment)
    share = max(0.0, remaining - reserve) / mtg + INCREMENT_SHARE * max(0.0, increment - overhead)
    cap = (LAST_MOVE_SHARE if moves_to_go == 1 else MAX_SHARE) * remaining - overhead
    return max(MIN_MOVE_TIME, min(share, cap))


class TimeManager:
    """One agent's time manager for one game: `allot` as above, with the overhead measured.

    Before each move it is told the agent's clock; the clock's fall since the previous move,
    less the time that move was given (and plus the increment), is what the move cost beyond
    its time: the search's overrun and the player's own work, which grow when the machine is
    loaded. Their running mean (weight OVERHEAD_WEIGHT, at least MOVE_OVERHEAD) is the
    overhead, and the largest (decaying by SPIKE_DECAY a move) the spike `allot` guards
    against. Moves that ended early (a single legal action, a proven result) tell nothing and
    are skipped."""

    def __init__(self):
        self.overhead = MOVE_OVERHEAD
        self.spike = 2 * MOVE_OVERHEAD
        self._last = None  # (clock before the last move, time it was given, increment, moves to go)

    def allot(self, remaining, increment=0.0, moves_to_go=None):
        """Return the seconds for this move (and remember them to measure the next reading)."""
        if self._last is not None:
            before, given, inc, mtg = self._last
            if mtg != 1:  # a new period's base was added after that move: nothing to measure
                over = (before - remaining + inc) - given
                if 0.0 <= over <= max(before, 0.0):
                    self.overhead = max(MOVE_OVERHEAD, (1 - OVERHEAD_WEIGHT) * self.overhead
                                        + OVERHEAD_WEIGHT * over)
                    self.spike = max(self.spike * SPIKE_DECAY, over, 2 * self.overhead)
        seconds = allot(remaining, increment, moves_to_go, self.overhead, self.spike)
        self._last = (remaining, seconds, increment, moves_to_go)
        return seconds


OVERHEAD_WEIGHT = 0.3  # weight of the latest move's overrun in the measured overhead
SPIKE_DECAY = 0.9      # the largest overrun guarded against shrinks by this factor a move


# Budgets a clock lifts when a spec leaves them at their defaults: key -> its unlimited value.
LIFTED_BUDGETS = {"depth": lambda setting: setting.high, "simulations": lambda setting: 0}


def clocked_options(options, settings, seconds):
    """Return an agent's settings for one clocked move of `seconds`: `time` is `seconds` (or
    the spec's own `time`, if set and smaller), and the budgets of LIFTED_BUDGETS left at their
    defaults are lifted. An agent without a `time` setting keeps its settings."""
    if "time" not in settings:
        return options
    out = dict(options)
    own = options.get("time") or 0.0
    out["time"] = min(seconds, own) if own > 0 else seconds
    for key, unlimited in LIFTED_BUDGETS.items():
        setting = settings.get(key)
        if setting is not None and options.get(key) == setting.default:
            value = unlimited(setting)
            if value is not None:
                out[key] = value
    return out
