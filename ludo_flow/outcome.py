"""How a finished game ended: `Termination` (the reason) and `Outcome` (the reason and the winner).

Modelled on python-chess's `Outcome` / `Termination`. `State.outcome()` returns an `Outcome`
once the game is over; game records store `termination.value`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Termination(enum.Enum):
    """Why a game ended; the value is the string game records store."""

    FAR_EDGE = "far_edge"                    # Flow: the stepping player reached their far edge
    OPPONENT_FAR_EDGE = "opponent_far_edge"  # Flow: a push carried the opponent to the opponent's far edge
    NO_FIRST_STEP = "no_first_step"          # Flow: the player to move has no legal first step (a loss)
    TURN_LIMIT = "turn_limit"                # Flow: max_turns turns are complete (a draw)
    NO_CHECKERS = "no_checkers"              # Tolkuchka: the player to move has no checkers (a loss)
    NO_MOVE = "no_move"                      # Tolkuchka: the player to move has no legal move (a loss)
    QUIET_PLIES = "quiet_plies"              # Tolkuchka: quiet_plies plies in a row knocked nothing (a draw)
    MAX_PLIES = "max_plies"                  # Tolkuchka: max_plies plies were played (a draw)


# The draws by a limit on a game's length: an environment reports them as truncations (PettingZoo,
# `ludo_flow.batch`), every other end as a termination.
LIMIT_DRAWS = frozenset({Termination.TURN_LIMIT, Termination.QUIET_PLIES, Termination.MAX_PLIES})

_RESULTS = {0: "1-0", 1: "0-1", None: "1/2-1/2"}


@dataclass(frozen=True)
class Outcome:
    """The end of a game: its termination and its winner (0 White, 1 Black, None for a draw)."""

    termination: Termination
    winner: int | None

    @property
    def result(self):
        """Return the result string: '1-0' (White won), '0-1' (Black won) or '1/2-1/2' (a draw)."""
        return _RESULTS[self.winner]
