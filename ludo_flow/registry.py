"""The registry of games: every game is listed here once, and everything generic over games reads it.

An entry names the game, its id (what the jitted dispatch in `ludo_flow.dispatch` branches on),
its kernel module, its `Game` class and the bounds a search sizes its buffers by. From it come
`ludo_flow.GAMES` and `load_game`, the dispatch constants (`FLOW`, `TOLKUCHKA`, `GAME_IDS`,
`MAX_ACTIONS`, `ACTION_SPACE`), and each Game class's `name` and `game_id`. Adding a game is one
entry here plus its branches in `ludo_flow.dispatch`: see docs/adding-a-game.md.
"""
import operator
from dataclasses import dataclass
from types import ModuleType

from .flow import kernels as flow_kernels
from .flow.game import FlowGame
from .tolkuchka import kernels as tolkuchka_kernels
from .tolkuchka.game import TolkuchkaGame


@dataclass(frozen=True)
class GameEntry:
    """One registered game: its name, id, kernel module, Game class and bounds."""

    name: str              # what `load_game`, the CLI and the records call it
    game_id: int           # the id the jitted dispatch branches on (`Game.game_id`)
    kernels: ModuleType    # the numba kernel module (legal_actions, apply, result, ...)
    game_class: type       # the `ludo_flow.game.Game` subclass that makes its states
    action_space: int      # every action id is in range(action_space)
    max_actions: int       # an action buffer of this length holds any position's legal actions
    state_size: int        # the largest state array (Flow's and Tolkuchka's are one fixed size)
    observation_shape: tuple = ()  # the float32 observation tensor's shape (`observation` kernel)

    def __post_init__(self):
        if getattr(self.game_class, "kernels", None) is not self.kernels:
            raise TypeError(f"registry entry {self.name!r}: {self.game_class.__name__}.kernels is not "
                            f"{self.kernels.__name__}")
        for field in ("game_id", "action_space", "max_actions", "state_size"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TypeError(f"registry entry {self.name!r}: {field} must be an int >= 0, got {value!r}")
        if not (isinstance(self.observation_shape, tuple) and self.observation_shape
                and all(isinstance(n, int) and n > 0 for n in self.observation_shape)):
            raise TypeError(f"registry entry {self.name!r}: observation_shape must be a tuple of ints > 0, "
                            f"got {self.observation_shape!r}")


ENTRIES = (
    GameEntry("flow", 0, flow_kernels, FlowGame, action_space=flow_kernels.ACTION_SPACE,
              max_actions=flow_kernels.MAX_ACTIONS, state_size=flow_kernels.STATE_SIZE,
              observation_shape=flow_kernels.OBSERVATION_SHAPE),
    GameEntry("tolkuchka", 1, tolkuchka_kernels, TolkuchkaGame, action_space=tolkuchka_kernels.ACTION_SPACE,
              max_actions=tolkuchka_kernels.MAX_ACTIONS, state_size=tolkuchka_kernels.STATE_SIZE,
              observation_shape=tolkuchka_kernels.OBSERVATION_SHAPE),
)

BY_NAME = {e.name: e for e in ENTRIES}
BY_ID = {e.game_id: e for e in ENTRIES}
BY_CLASS = {e.game_class: e for e in ENTRIES}
if not len(BY_NAME) == len(BY_ID) == len(BY_CLASS) == len(ENTRIES):
    raise TypeError("the registry lists a game name, id or class twice")


def entry_of(key):
    """Return the GameEntry of a game name, game id or Game class (ValueError if none is registered)."""
    if isinstance(key, type):
        for cls in key.__mro__:
            if cls in BY_CLASS:
                return BY_CLASS[cls]
    elif isinstance(key, str):
        if key in BY_NAME:
            return BY_NAME[key]
    elif not isinstance(key, bool):
        try:
            game_id = operator.index(key)  # an int or a numpy integer
        except TypeError:
            game_id = None
        if game_id in BY_ID:
            return BY_ID[game_id]
    known = ", ".join(f"{e.name} ({e.game_id})" for e in ENTRIES)
    raise ValueError(f"no registered game {key!r}; registered: {known}")
