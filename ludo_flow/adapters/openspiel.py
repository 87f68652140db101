"""Flow and Tolkuchka as OpenSpiel games.

Importing this module registers both games with pyspiel as Python games::

    import ludo_flow.adapters.openspiel
    import pyspiel
    game = pyspiel.load_game("ludo_flow_flow(variant=fountain,max_turns=60)")
    game = pyspiel.load_game("ludo_flow_tolkuchka", {"quiet_plies": 30})

Game parameters: `variant` and the game's own parameters (`max_turns`; `quiet_plies`,
`max_plies`), and `position` (a position string to start from; empty: the variant's start).
An OpenSpiel action id is our action id (`num_distinct_actions` is the game's ACTION_SPACE), an
action string is our notation, the observation tensor is our `State.observation()`
(docs/adapters.md). `state.serialize()` is text: the position string the state's history starts
from and that history in notation, which `game.deserialize_state(text)` parses and replays
through our State layer, never unpickling (OpenSpiel's own `pyspiel.serialize_game_and_state`,
`deserialize_game_and_state` and `pickle` of a state pickle its attributes, as for every Python
game: read those only from a source you trust).
`spiel_game(game)`, `spiel_state(state)` and `ludo_state(spiel_state)` convert games and
states. The bridges between OpenSpiel's bots and our agents stand above the engine, in
`agents.openspiel_bots`.
"""
try:
    import pyspiel
except ImportError as err:  # the optional extra is missing
    raise ImportError("ludo_flow.adapters.openspiel needs OpenSpiel: "
                      "pip install 'ludo_flow[openspiel]' (the open_spiel package)") from err

import numpy as np
from open_spiel.python.observation import IIGObserverForPublicInfoGame

import ludo_flow
from ludo_flow import registry
from ludo_flow.errors import ActionError, ParameterError, PositionError

from . import _common

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)  # read once: a pybind enum lookup costs microseconds a call
SHORT_NAMES = {entry.name: f"ludo_flow_{entry.name}" for entry in registry.ENTRIES}
_FROM_ARRAY = "<the array the state was made from>"  # see _SpielState._origin


def _parameter_specification(entry):
    """Return the OpenSpiel parameter specification of a game: its defaults by name."""
    cls = entry.game_class
    spec = {"variant": cls.default_variant, "position": ""}
    spec.update({key: default for key, (default, _, _) in cls.param_ranges.items()})
    return spec


def _game_type(entry):
    """Return the pyspiel.GameType of a registered game."""
    return pyspiel.GameType(
        short_name=SHORT_NAMES[entry.name],
        long_name=f"ludo_flow {entry.name.capitalize()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_specification(entry))


class _SpielGame(pyspiel.Game):
    """One of our games as an OpenSpiel game (a subclass per registered game sets `entry`)."""

    entry = None
    state_class = None

    def __init__(self, params=None):
        params = dict(_parameter_specification(self.entry), **(params or {}))
        self.ludo_game, start = _common.game_and_start(self.entry.name, params)
        self._start = start.array.copy()
        self._start_string = start.to_string()
        info = pyspiel.GameInfo(
            num_distinct_actions=self.entry.action_space,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_common.max_game_length(start))
        super().__init__(self.game_type, info, params)

    def new_initial_state(self, state=None):
        """Return the start state, or the state of a position string `state`."""
        if state is None:
            return self.state_class(self, self._start.copy())
        if isinstance(state, str):
            start = self.ludo_game.from_string(state)
            spiel = self.state_class(self, start.array.copy())
            spiel._origin = start.to_string()
            return spiel
        raise ParameterError(f"new_initial_state takes a position string or nothing, got {state!r}")

    def deserialize_state(self, text):
        """Return the state that `serialize()` wrote as `text`, its history replayed: its position
        string parsed and each action parsed in notation and played, by our State layer (never
        unpickled; a ParameterError, PositionError or ActionError, all ValueErrors, if it is bad)."""
        if not isinstance(text, str):
            raise ParameterError(f"a serialised {self.entry.name} state is a str, got {type(text).__name__}")
        lines = text.split("\n")
        if len(lines) != 2 or not lines[0].startswith("position=") or not lines[1].startswith("actions="):
            raise ParameterError(f"a serialised {self.entry.name} state is two lines, "
                                 f"'position=<position string>' and 'actions=<actions in notation>'; "
                                 f"got {text[:60]!r}{'...' if len(text) > 60 else ''}")
        state = self.new_initial_state(lines[0][len("position="):])
        game = self.ludo_game
        for word in lines[1][len("actions="):].split(" "):
            if word:
                state.apply_action(game.state_class(game, state.array).parse_action(word))
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        """Return the observer of the observation tensor and string (or of the history, for info states)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return _BoardObserver(self, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class _SpielState(pyspiel.State):
    """A state of one of our games for OpenSpiel: the kernel array, and the position string its
    history starts from when that is not the game's start.

    OpenSpiel clones a Python state by deep-copying its `__dict__` (and its own serialisation
    pickles it), so those are the only attributes; the Game is found through `get_game()`."""

    entry = None  # the registry entry of the game (set per game, like kernels)
    kernels = None
    # The position string the history starts from: None for the game's start, _FROM_ARRAY for
    # the array the state was made from (written at its first action: most such states are never
    # played on or serialised), "" for a choose phase, which has none.
    _origin = None

    def __init__(self, game, array):
        super().__init__(game)
        self._array = array

    @property
    def array(self):
        """Return the kernel state array (read it, never write it: copy first)."""
        return self._array

    def ludo_state(self):
        """Return our State of this position (an independent copy)."""
        game = self.get_game().ludo_game
        return game.state_class(game, self._array.copy())

    def current_player(self):
        """Return the player to decide (0 White, 1 Black), or pyspiel.PlayerId.TERMINAL."""
        if self.kernels.is_terminal(self._array):
            return _TERMINAL
        return int(self.kernels.current_player(self._array))

    def _legal_actions(self, player):
        """Return the legal actions in ascending order."""
        buf = _common.action_buffer(self.kernels.MAX_ACTIONS)
        n = self.kernels.legal_actions(self._array, buf)
        return sorted(buf[:n].tolist())

    def _apply_action(self, action):
        """Play a legal action in place (ActionError if it is not legal)."""
        if not _common.is_legal(self.entry, self._array, action):
            legal = " ".join(self._action_to_string(None, a) for a in self._legal_actions(None))
            raise ActionError(f"action {action} is illegal here; legal: {legal}" if legal
                              else f"action {action} is illegal: the game is over")
        if self._origin == _FROM_ARRAY:
            self._origin = self._position_string()
        self.kernels.apply(self._array, action, self._array)

    def _position_string(self):
        """Return this position's string, "" in a choose phase (which has none)."""
        try:
            return self.ludo_state().to_string()
        except PositionError:
            return ""

    def _action_to_string(self, player, action):
        """Return an action in our notation ('b2-b4', '~d4'); a number if it names nothing here."""
        game = self.get_game().ludo_game
        try:
            return game.state_class(game, self._array).action_to_string(action)
        except ActionError:
            return str(int(action))

    def is_terminal(self):
        """Return True if the game is over."""
        return bool(self.kernels.is_terminal(self._array))

    def returns(self):
        """Return [White's, Black's] result: +1 win, -1 loss, 0 draw (0, 0 while not over)."""
        r = float(self.kernels.returns(self._array))
        return [r, -r]

    def __str__(self):
        """Return our ASCII board with its status line."""
        game = self.get_game().ludo_game
        return str(game.state_class(game, self._array))

    def serialize(self):
        """Return this state as text for `deserialize_state`: 'position=' the position string its
        history starts from, a new line, 'actions=' that history in notation (PositionError for
        a state made by `spiel_state` from a choose phase, which has no position string)."""
        spiel = self.get_game()
        origin = spiel._start_string if self._origin is None else self._origin
        if origin == _FROM_ARRAY:  # nothing played since it was made
            origin = self._position_string()
        if not origin:
            raise PositionError("this state was made from a choose-phase State, which has no position "
                                "string; serialise a state made from the position before its step")
        state = spiel.ludo_game.from_string(origin)
        words = []
        for action in self.history():
            words.append(state.action_to_string(action))
            state.apply(action)
        return f"position={origin}\nactions={' '.join(words)}"


class _BoardObserver:
    """The OpenSpiel observer of our observation tensor (`State.observation()`) and board string."""

    def __init__(self, game, params):
        if params:
            raise ParameterError(f"the observation takes no parameters; got {params}")
        shape = game.entry.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}
        self._kernels = game.entry.kernels

    def set_from(self, state, player):
        """Write the observation of `state` into `tensor` (the same for both players: perfect information)."""
        self._kernels.observation(state.array, self.dict["observation"])

    def string_from(self, state, player):
        """Return our ASCII board of `state` with its status line."""
        return str(state)


def _make_classes(entry):
    """Return the (Game, State) classes of a registered game and register the Game with pyspiel."""
    title = entry.name.capitalize()
    state_class = type(f"{title}SpielState", (_SpielState,),
                       {"entry": entry, "kernels": entry.kernels, "__module__": __name__,
                        "__doc__": f"A {entry.name} state for OpenSpiel."})
    game_class = type(f"{title}SpielGame", (_SpielGame,),
                      {"entry": entry, "state_class": state_class, "game_type": _game_type(entry),
                       "__module__": __name__, "__doc__": f"{entry.name} as an OpenSpiel game."})
    pyspiel.register_game(game_class.game_type, game_class)
    return game_class, state_class


_CLASSES = {entry.name: _make_classes(entry) for entry in registry.ENTRIES}
FlowSpielGame, FlowSpielState = _CLASSES["flow"]
TolkuchkaSpielGame, TolkuchkaSpielState = _CLASSES["tolkuchka"]

_spiel_games = {}


def spiel_game(game):
    """Return the pyspiel game of one of our Games (a ludo_flow Game, or a name with defaults)."""
    if isinstance(game, str):
        game = ludo_flow.load_game(game)
    spiel = _spiel_games.get(game)  # Games are equal and hash alike by name, variant and parameters
    if spiel is None:
        spiel = _spiel_games[game] = pyspiel.load_game(SHORT_NAMES[game.name],
                                                      {"variant": game.variant, **game.params})
    return spiel


def spiel_state(state):
    """Return an OpenSpiel state of our State's position (a copy; its history is empty)."""
    game = spiel_game(state.game)
    spiel = game.state_class(game, state.array.copy())
    spiel._origin = _FROM_ARRAY
    return spiel


def ludo_state(state):
    """Return our State of an OpenSpiel state of this adapter (a copy)."""
    if not isinstance(state, _SpielState):
        raise ParameterError(f"not a ludo_flow OpenSpiel state: {type(state).__name__}")
    return state.ludo_state()


# The bridges between OpenSpiel's bots and our agents lived here before the layers were split.
_MOVED = {
    "AgentBot": "agents.openspiel_bots:AgentBot",
    "BotAgent": "agents.openspiel_bots:BotAgent",
    "CppBotStepper": "agents.openspiel_bots:CppBotStepper",
    "BOT_KINDS": "agents.openspiel_bots:BOT_KINDS",
    "make_bot": "agents.openspiel_bots:make_bot",
}


def __getattr__(name):
    """Answer a name that moved away (ludo_flow.moved)."""
    from ..moved import moved
    return moved(__name__, _MOVED, name)
