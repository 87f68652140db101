"""ludo_flow: exact, fast engines for the abstract games Flow and Tolkuchka.

    >>> import ludo_flow
    >>> game = ludo_flow.load_game("flow", "fountain", max_turns=100)
    >>> state = game.new_initial_state()
    >>> state.apply(state.parse_action("a2-b2"))
"""
from .cache import configure as _configure_cache

_configure_cache()  # first: numba reads its cache folder when each @njit function is defined

from .errors import ActionError, LudoFlowError, ParameterError, PositionError
from .flow.game import FlowGame, FlowState
from .outcome import Outcome, Termination
from .registry import ENTRIES
from .tolkuchka.game import TolkuchkaGame, TolkuchkaState

__version__ = "0.1.0"

GAMES = {entry.name: entry.game_class for entry in ENTRIES}  # name -> Game class, from ludo_flow.registry


def load_game(name, variant=None, **params):
    """Return the Game called `name` (a key of GAMES: 'flow', 'tolkuchka') with a variant and parameters."""
    if name not in GAMES:
        raise ParameterError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    return GAMES[name](variant, **params)


__all__ = ["load_game", "GAMES", "FlowGame", "FlowState", "TolkuchkaGame", "TolkuchkaState", "LudoFlowError", "PositionError",
           "ActionError", "ParameterError", "Outcome", "Termination"]
