"""The random agent: a uniformly random legal action from a seeded generator."""
from ludo_flow.rng import new_rng, rand_below

from .base import BaseAgent, Setting, check_state


class RandomAgent(BaseAgent):
    """Plays a uniformly random legal action; the same seed gives the same game.

    `last_stats` has exactly the keys of `STATS_KEYS` after every move:

    - `legal_actions` (int): how many legal actions there were to choose from"""

    agent_name = "random"
    STATS_KEYS = ("legal_actions",)
    settings = {"seed": Setting(int, 0, "random seed", low=0)}

    def reset(self, seed=None):
        """Start a new game; reseed with `seed` (or the configured seed)."""
        self._rng = new_rng(self.options["seed"] if seed is None else seed)

    def select_action(self, state):
        """Return a uniformly random legal action of `state` (the state is not changed)."""
        check_state(state)
        legal = state.legal_actions()
        action = legal[int(rand_below(self._rng, len(legal)))]
        self.last_stats = {"legal_actions": len(legal)}
        return action
