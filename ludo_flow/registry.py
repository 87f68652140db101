"""The registry of games: every game is listed here once, and everything generic over games reads it.

Each game declares its own name and id on its `Game` class (`FlowGame.name = "flow"`,
`FlowGame.game_id = 0`) and its bounds in its kernel module; an entry collects them: the name,
the id (what the jitted dispatch in `ludo_flow.dispatch` branches on), the kernel module, the
`Game` class and the bounds a search sizes its buffers by. From the entries come
`ludo_flow.GAMES` and `load_game` and the dispatch constants (`FLOW`, `TOLKUCHKA`, `GAME_IDS`,
`MAX_ACTIONS`, `ACTION_SPACE`). Adding a game is one line in `GAME_CLASSES` plus its branches in
`ludo_flow.dispatch`: see docs/adding-a-game.md.
"""
import operator
from dataclasses import dataclass
from types import ModuleType

from .flow.game import FlowGame
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
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"registry entry {self.name!r}: a game's name is a non-empty string")
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


def entry_of_class(game_class):
    """Return the GameEntry a Game class declares (its name, id, kernels and their bounds)."""
    k = game_class.kernels
    return GameEntry(game_class.name, game_class.game_id, k, game_class, action_space=k.ACTION_SPACE,
                     max_actions=k.MAX_ACTIONS, state_size=k.STATE_SIZE,
                     observation_shape=game_class.observation_shape)


GAME_CLASSES = (FlowGame, TolkuchkaGame)  # every registered game, in the order of their ids
ENTRIES = tuple(entry_of_class(cls) for cls in GAME_CLASSES)

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
