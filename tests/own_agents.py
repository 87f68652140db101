"""Agents defined in a test module, as a user would write their own: importable by worker
processes and Ray (tests/ is on sys.path), entered as `py:own_agents:NAME` specs."""
import os
import random
import time

from agents.base import BaseAgent, Setting, check_state


class Greedy:
    """Plays the legal action whose child the game's evaluation likes best (from the mover's
    side), ties broken at random; reports a score, a depth and a principal variation."""

    def __init__(self, seed=0, depth=1):
        self.depth = depth
        self.reset(seed)

    def reset(self, seed=None):
        """Start a new game; reseed."""
        self.rng = random.Random(seed)
        self.last_stats = {}

    def select_action(self, state):
        """Return the action with the best evaluated child (the state is not changed)."""
        me = state.current_player()
        scored = []
        for action in state.legal_actions():
            child = state.child(action)
            if child.is_terminal():
                value = child.returns()[me]
            else:  # the evaluation is from White's side
                value = float(child.kernels.evaluate(child.array)) * (1 if me == 0 else -1)
            scored.append((value, self.rng.random(), action))
        score, _, action = max(scored)
        self.last_stats = {"score": score, "depth": self.depth, "nodes": len(scored), "pv": [action]}
        return action


def make_first(seed=0):
    """A factory: returns an agent playing the first legal action."""
    return First()


class First:
    """Plays the first legal action; reports nothing."""

    def reset(self, seed=None):
        """Nothing to reset."""

    def select_action(self, state):
        """Return the first legal action."""
        return state.legal_actions()[0]


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


class DiesOnce:
    """Plays a seeded random legal action; its process dies (`os._exit`) at the first move of
    its `game`-th game in that process, once in all: only if the file named by the environment
    variable LUDO_FLOW_TEST_DIES_ONCE does not exist yet (it is made first). A worker killed in
    the middle of a chunk of games, to test what the runner keeps and plays again."""

    played = 0  # games begun in this process

    def __init__(self, seed=0, game=30):
        self.game = game
        self.reset(seed)

    def reset(self, seed=None):
        """Start a new game; reseed."""
        self.rng = random.Random(seed)
        DiesOnce.played += 1
        self.fresh = True

    def select_action(self, state):
        """Return a random legal action (or end this process, see the class)."""
        marker = os.environ.get("LUDO_FLOW_TEST_DIES_ONCE")
        if self.fresh and DiesOnce.played == self.game and marker and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        self.fresh = False
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]
