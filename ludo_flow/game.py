"""The friendly layer shared by both games: `Game` makes states, `State` wraps one kernel array.

A game module provides a `Game` subclass that names its kernel module and implements the
game's notation, position strings and board pictures; everything else lives here, so both
games answer the same calls. This layer validates every input and raises a `LudoFlowError`
(a `ValueError`) that says what is wrong; the kernels below it trust their inputs.
"""
import re

import numpy as np

from .errors import ActionError, ParameterError, PositionError
from .outcome import Outcome

_buffers = {}

# The longest well-formed position string (an 8x8 board field, the other fields, generous
# spacing) is far shorter: a longer text is refused before any of it is read.
MAX_POSITION_LENGTH = 256
# Printable ASCII, and the whitespace a file or a terminal may leave between fields. Outside
# ASCII, str.isdigit() and str.split() accept characters no position string writes ('²', a
# no-break space).
_POSITION_TEXT = re.compile(r"[ -~\t\r\n]*")


def position_text(text):
    """Return `text` if it may be a position string: a str, short, printable ASCII (PositionError if not)."""
    if not isinstance(text, str):
        raise PositionError(f"a position string is a str, got {type(text).__name__}")
    if len(text) > MAX_POSITION_LENGTH:
        raise PositionError(f"a position string has at most {MAX_POSITION_LENGTH} characters, "
                            f"got {len(text)}")
    if not _POSITION_TEXT.fullmatch(text):
        at = next(i for i, ch in enumerate(text) if not _POSITION_TEXT.fullmatch(ch))
        raise PositionError(f"a position string is printable ASCII; found {text[at]!r} at character {at + 1}")
    return text


def parse_count(text, name, limit):
    """Return the integer 0..limit a position field writes in ASCII digits (PositionError if not)."""
    if not re.fullmatch(r"[0-9]+", text) or int(text) > limit:
        raise PositionError(f"{name} must be an integer in [0, {limit}], got {text!r}")
    return int(text)


def _action_buffer(size):
    """Return a reusable int32 buffer for legal-action generation (one per size)."""
    buf = _buffers.get(size)
    if buf is None:
        buf = _buffers[size] = np.empty(size, dtype=np.int32)
    return buf


class Game:
    """A game with its variant and parameters: the factory of its states."""

    name = ""          # the game's name ("flow", "tolkuchka"): what load_game, the CLI and records call it
    game_id = -1       # the id the jitted dispatch branches on (ludo_flow.dispatch); unique per game
    kernels = None     # the game's kernel module
    variants = {}      # variant name -> position string
    default_variant = "standard"
    param_ranges = {}  # parameter -> (default, minimum, maximum)
    terminations = {}  # kernel termination code -> ludo_flow.Termination

    def __init__(self, variant=None, **params):
        variant = self.default_variant if variant is None else variant
        if variant not in self.variants:
            raise ParameterError(
                f"unknown {self.name} variant {variant!r}; choose one of {', '.join(self.variants)}")
        self.variant = variant
        self.params = {}
        for key, (default, _, _) in self.param_ranges.items():
            self.params[key] = default
        for key, value in params.items():
            self.params[key] = self._check_param(key, value)

    def _check_param(self, key, value):
        if key not in self.param_ranges:
            allowed = ", ".join(self.param_ranges) or "none"
            raise ParameterError(f"unknown {self.name} parameter {key!r}; allowed: {allowed}")
        _, lo, hi = self.param_ranges[key]
        if isinstance(value, str):
            try:
                value = int(value)
            except ValueError:
                raise ParameterError(f"parameter {key} must be an integer, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ParameterError(f"parameter {key} must be an integer, got {value!r}")
        if not lo <= value <= hi:
            raise ParameterError(f"parameter {key} must be in [{lo}, {hi}], got {value}")
        return int(value)

    def new_initial_state(self):
        """Return the start position of this game's variant."""
        return self.from_string(self.variants[self.variant])

    def from_string(self, text):
        """Return the state a position string describes (raises PositionError if it is bad)."""
        array = self._parse_position(position_text(text))
        self._check_array(array)
        return self.state_class(self, array)

    def from_array(self, array):
        """Return a State wrapping a copy of a kernel state array (PositionError if it is malformed).

        The array passes the checks a parsed position string passes (`_check_array`, which
        `from_string` shares): every field in range and the fields consistent as play leaves
        them, so that the state is over or has a legal action and every kernel runs safely on
        it. They do not prove the position reachable from a start."""
        try:
            array = np.array(array, dtype=np.uint64, copy=True)
        except (TypeError, ValueError, OverflowError) as err:
            raise PositionError(f"a {self.name} state array holds unsigned 64-bit words: {err}") from None
        if array.shape != (self.kernels.STATE_SIZE,):
            raise PositionError(f"a {self.name} state array has shape ({self.kernels.STATE_SIZE},), "
                                f"got {array.shape}")
        self._check_array(array)
        return self.state_class(self, array)

    def spec(self):
        """Return a JSON-friendly description: game name, variant and parameters."""
        return {"game": self.name, "variant": self.variant, "params": dict(self.params)}

    def __repr__(self):
        params = "".join(f", {k}={v}" for k, v in self.params.items())
        return f"{type(self).__name__}({self.variant!r}{params})"

    def __eq__(self, other):
        return type(self) is type(other) and self.variant == other.variant and self.params == other.params

    def __hash__(self):
        return hash((type(self), self.variant, tuple(sorted(self.params.items()))))

    # Hooks a game implements.
    state_class = None

    def _parse_position(self, text):
        """Return the kernel array a position string (a short ASCII str) describes (PositionError if malformed)."""
        raise NotImplementedError

    def _check_array(self, array):
        """Raise PositionError unless `array` (uint64, the kernels' shape) is a state of this game
        whose every field is in range and which is over or has a legal action."""
        raise NotImplementedError


class State:
    """One position of a game, with its decision history hidden in the kernel array.

    A state reached by `apply` or `child` also remembers its last decision (`last_action`) and
    the array before it, for pictures that mark the last move; neither is part of the position
    (equality, hashing and `to_string()` ignore them)."""

    def __init__(self, game, array):
        self.game = game
        self._array = array
        self._last_action = None
        self._before = None  # the array `_last_action` was played on; no State writes to it
        # The legal actions of `_array`, a tuple once asked for: a state's array is never
        # written in place (`apply` makes a new one), so they hold until `_array` changes.
        self._legal = None

    @property
    def array(self):
        """Return the kernel state array (read it, never write it: copy first)."""
        return self._array

    @property
    def kernels(self):
        """Return the game's kernel module."""
        return self.game.kernels

    def legal_actions(self):
        """Return the legal actions as a list of ints (empty when the game is over)."""
        return list(self._legal_tuple())

    def _legal_tuple(self):
        """Return the legal actions as a tuple, generated once per position."""
        if self._legal is None:
            buf = _action_buffer(self.kernels.MAX_ACTIONS)
            n = self.kernels.legal_actions(self._array, buf)
            self._legal = tuple(buf[:n].tolist())
        return self._legal

    def is_legal(self, action):
        """Return True if `action` (an int) is legal here."""
        return isinstance(action, (int, np.integer)) and int(action) in self._legal_tuple()

    def _check_legal(self, action):
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ActionError(f"an action is an int (use parse_action for notation), got {action!r}")
        legal = self._legal_tuple()
        if int(action) not in legal:
            if not legal:
                raise ActionError(f"action {action} is illegal: the game is over")
            names = " ".join(sorted(self.action_to_string(a) for a in legal))
            raise ActionError(f"action {action} is illegal here; legal: {names}")
        return int(action)

    def apply(self, action):
        """Play a legal action (an int) on this state in place; return None."""
        action = self._check_legal(action)
        # Into a new array, so the one before stays intact for `_before` (and for any child
        # or clone sharing it as theirs) without a copy.
        out = np.empty_like(self._array)
        self.kernels.apply(self._array, action, out)
        self._before, self._last_action, self._array = self._array, action, out
        self._legal = None

    def play_random(self, rng_white, rng_black):
        """Play uniformly random legal actions in place to the end of the game, the side to move
        drawing from its own generator (`ludo_flow.rng.new_rng` arrays, advanced in place)
        exactly as a random player choosing `legal_actions()[rand_below(rng, n)]` move by move
        would, in one jitted loop; return three lists of ints: the actions played, the number
        of legal actions each was chosen from, and the side (0 White, 1 Black) that chose it."""
        play = self.kernels.random_game
        array = self._array.copy()  # never written in place: a child or clone may share it
        before = np.empty_like(array)
        chunk = np.empty((3, 512), dtype=np.int64)
        actions, counts, sides = [], [], []
        while True:
            n = int(play(array, before, rng_white, rng_black, chunk[0], chunk[1], chunk[2]))
            actions += chunk[0, :n].tolist()
            counts += chunk[1, :n].tolist()
            sides += chunk[2, :n].tolist()
            if n < chunk.shape[1]:
                break
        if actions:
            self._before, self._last_action, self._array = before, actions[-1], array
            self._legal = ()  # the loop stopped where no action is legal
        return actions, counts, sides

    def copy_from(self, other):
        """Make this state `other`'s position, with its last move, in place (`other` is a State
        of the same game and stays as it is)."""
        if other.game != self.game:
            raise ValueError(f"copy_from: a state of {other.game!r} is not one of {self.game!r}")
        self._array, self._before, self._last_action = other._array.copy(), other._before, other._last_action
        self._legal = other._legal

    def actions_to_strings(self, actions):
        """Return the notation of `actions` played one after another from this state (which is
        unchanged): as `action_to_string` on each position in turn."""
        state, words = self.clone(), []
        for action in actions:
            words.append(state.action_to_string(action))
            state.apply(action)
        return words

    def child(self, action):
        """Return a new state: this one after a legal action (this one is unchanged)."""
        action = self._check_legal(action)
        out = np.empty_like(self._array)
        self.kernels.apply(self._array, action, out)
        child = type(self)(self.game, out)
        child._before, child._last_action = self._array, action
        return child

    def clone(self):
        """Return an independent copy of this state (with the same last move)."""
        copy = type(self)(self.game, self._array.copy())
        copy._before, copy._last_action, copy._legal = self._before, self._last_action, self._legal
        return copy

    @property
    def last_action(self):
        """Return the action that made this state by `apply` or `child`, or None (a state made
        from a position string or an array has no last move)."""
        return self._last_action

    def previous_state(self):
        """Return the state `last_action` was played on (without a last move of its own), or None."""
        return None if self._before is None else type(self)(self.game, self._before.copy())

    def is_terminal(self):
        """Return True if the game is over."""
        if self._legal is not None:  # a game goes on exactly while there is a legal action
            return not self._legal
        return bool(self.kernels.is_terminal(self._array))

    def returns(self):
        """Return [White's, Black's] result: +1 win, -1 loss, 0 draw (0, 0 while not over)."""
        r = float(self.kernels.returns(self._array))
        return [r + 0.0, -r + 0.0]  # + 0.0: a draw is [0.0, 0.0], never -0.0

    def current_player(self):
        """Return the player to decide: 0 White, 1 Black."""
        return int(self.kernels.current_player(self._array))

    def outcome(self):
        """Return the Outcome of a finished game (termination and winner), None while it goes on.

        The kernel's `termination` gives the reason, mapped to a `Termination` by the game's
        `terminations`; its `result` gives the winner (0 White, 1 Black, None for a draw)."""
        code = int(self.kernels.termination(self._array))
        if code == self.kernels.NOT_OVER:
            return None
        r = int(self.kernels.result(self._array))
        winner = 0 if r == self.kernels.WHITE_WINS else 1 if r == self.kernels.BLACK_WINS else None
        return Outcome(self.game.terminations[code], winner)

    def observation(self):
        """Return the observation tensor: a new float32 array of `game.observation_shape` (docs/adapters.md)."""
        out = np.empty(self.game.observation_shape, dtype=np.float32)
        self.kernels.observation(self._array, out)
        return out

    def _end_text(self):
        """Return who won and why as phrases of a caption: ['White wins:', 'Black has no legal move']."""
        outcome = self.outcome()
        names = ("White", "Black")
        head = "Draw" if outcome.winner is None else f"{names[outcome.winner]} wins"
        words = self._END_PHRASES[outcome.termination].format(
            winner=names[outcome.winner or 0], loser=names[1 - (outcome.winner or 0)], **self.game.params)
        return [f"{head}:", words]

    def result_string(self):
        """Return '1-0', '0-1', '1/2-1/2' for a finished game, '*' for one still going."""
        outcome = self.outcome()
        return "*" if outcome is None else outcome.result

    def parse_action(self, text):
        """Return the legal action written `text` in the game's notation (ActionError if none)."""
        if not isinstance(text, str):
            raise ActionError(f"an action in notation is a string, got {text!r}")
        wanted = text.strip()
        legal = self.legal_actions()
        for a in legal:
            if self.action_to_string(a) == wanted:
                return a
        self._check_notation(wanted)
        if not legal:
            raise ActionError(f"{wanted!r} is illegal: the game is over")
        names = " ".join(sorted(self.action_to_string(a) for a in legal))
        raise ActionError(f"{wanted!r} is not a legal action here; legal: {names}")

    def apply_sequence(self, text):
        """Play actions written in notation, separated by spaces or commas, in place; return self."""
        if not isinstance(text, str):
            raise ActionError(f"actions in notation are a string, got {text!r}")
        for word in re.split(r"[\s,]+", text.strip()):
            if word:
                self.apply(self.parse_action(word))
        return self

    def __eq__(self, other):
        return (isinstance(other, State) and self.game == other.game
                and np.array_equal(self._array, other._array))

    def __hash__(self):
        return hash((self.game, self._array.tobytes()))

    def __repr__(self):
        try:
            text = self.to_string()
        except ValueError:
            text = "choose phase"
        return f"<{type(self).__name__} {text}>"

    # Hooks a game implements: action_to_string, _check_notation, to_string, __str__, _repr_svg_,
    # _status (phrases of a caption: what happens next, or how the game ended),
    # and _END_PHRASES (Termination -> why the game ended, with {winner}, {loser}, its parameters).
    _END_PHRASES = {}

    def action_to_string(self, action):
        raise NotImplementedError

    def _check_notation(self, text):
        raise NotImplementedError
