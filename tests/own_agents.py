"""Small agent classes that tests enter in games and tournaments (importable by worker processes)."""
import time

from agents.base import BaseAgent, Setting, check_state


class SleepyAgent(BaseAgent):
    """Sleeps `sleep` seconds, then plays the first legal action: a player too slow for its clock."""

    agent_name = "sleepy"
    STATS_KEYS = ()
    settings = {"sleep": Setting(float, 0.05, "seconds to sleep before each move", low=0.0)}

    def reset(self, seed=None):
        """Nothing to forget between games."""

    def select_action(self, state):
        """Return the first legal action after sleeping."""
        check_state(state)
        time.sleep(self.options["sleep"])
        self.last_stats = {}
        return state.legal_actions()[0]
