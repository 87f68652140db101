"""Bridges between OpenSpiel's bots and our agents (needs the `openspiel` extra).

`AgentBot(agent)` is one of our agents as a `pyspiel.Bot`, for OpenSpiel's tools;
`BotAgent(make_bot)` is any OpenSpiel bot as one of our agents; `make_bot(kind, game, player)`
builds OpenSpiel's random and MCTS bots (`agents.make_agent("openspiel:bot=mcts,...")` plays
them by spec, so they can enter our tournaments). The games themselves are OpenSpiel games
through `ludo_flow.adapters.openspiel` (docs/adapters.md).
"""
import time

import numpy as np

from ludo_flow.adapters.openspiel import ludo_state, pyspiel, spiel_game, spiel_state
from ludo_flow.errors import ParameterError

from .base import AgentError, check_state


class AgentBot(pyspiel.Bot):
    """One of our agents (`agents.make_agent(...)`) as a pyspiel.Bot, for OpenSpiel's tools.

    `restart_at` starts a new game for the agent (`agent.reset()`: its own seed again, its
    tree or table cleared); `step` returns the agent's action on a copy of the state."""

    def __init__(self, agent):
        pyspiel.Bot.__init__(self)
        self.agent = agent

    def restart_at(self, state):
        """Start a new game: reset the agent."""
        self.agent.reset()

    def inform_action(self, state, player, action):
        """Ignore another player's action (our agents read the whole state at each step)."""

    def provides_policy(self):
        """Return False: our agents give an action, not a policy."""
        return False

    def step(self, state):
        """Return our agent's action for the player to move in the OpenSpiel `state`."""
        return int(self.agent.select_action(ludo_state(state)))


class BotAgent:
    """Any OpenSpiel bot as one of our agents (`select_action(state)`, `reset(seed)`, `name`).

    `make_bot(game, player, seed)` builds the bot for a pyspiel game of ours (`spiel_game`)
    and a player (0 White, 1 Black); it is called again after each `reset` and for each game and
    side the agent meets, so the same seed gives the same moves. The bot sees each position
    afresh (a new OpenSpiel state with an empty history; `inform_action` is never called), which
    suits bots that search from the state they are given, as OpenSpiel's random and MCTS bots do."""

    STATS_KEYS = ("legal_actions", "time")

    def __init__(self, make_bot, name="openspiel", seed=0):
        self.make_bot = make_bot
        self.name = name
        self.last_stats = {}
        self.reset(seed)

    def reset(self, seed=None):
        """Start a new game: drop the bots; with a seed, build the next ones with it."""
        if seed is not None:
            self.seed = int(seed)
        self._bots = {}

    def select_action(self, state):
        """Return the OpenSpiel bot's action for the player to move in our `state` (unchanged)."""
        check_state(state)
        game = spiel_game(state.game)
        player = state.current_player()
        bot = self._bots.get((state.game, player))  # keyed by our Game: pyspiel games are unhashable
        if bot is None:
            bot = self._bots[state.game, player] = self.make_bot(game, player, self.seed)
        theirs = spiel_state(state)
        legal = len(theirs.legal_actions())
        start = time.perf_counter()
        action = int(bot.step(theirs))
        self.last_stats = {"legal_actions": legal, "time": time.perf_counter() - start}
        if not state.is_legal(action):
            raise AgentError(f"{self.name}: the OpenSpiel bot returned the illegal action {action}")
        return action

    def __repr__(self):
        return f"<BotAgent {self.name}>"


class CppBotStepper(pyspiel.Bot):
    """A C++ pyspiel bot whose `step` goes through `step_with_policy`.

    With open_spiel 2.0.2, `pyspiel.MCTSBot.step` on any Python game (OpenSpiel's own
    `python_tic_tac_toe` too) crashes the process with a segmentation fault, while
    `step_with_policy` returns the same action safely; OpenSpiel's `evaluate_bots` calls `step`."""

    def __init__(self, bot):
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def restart_at(self, state):
        """Restart the wrapped bot at `state`."""
        self.bot.restart_at(state)

    def inform_action(self, state, player, action):
        """Tell the wrapped bot of another player's action."""
        self.bot.inform_action(state, player, action)

    def provides_policy(self):
        """Return True: the wrapped bot's policy is available through `step_with_policy`."""
        return True

    def step_with_policy(self, state):
        """Return the wrapped bot's (policy, action)."""
        return self.bot.step_with_policy(state)

    def step(self, state):
        """Return the wrapped bot's action (through its `step_with_policy`)."""
        return self.bot.step_with_policy(state)[1]


BOT_KINDS = ("random", "mcts", "mcts_cpp")


def make_bot(kind, game, player, seed=0, simulations=1000, rollouts=1, c=2.0, solve=True):
    """Return an OpenSpiel bot for a pyspiel game and player: 'random' (its UniformRandomBot),
    'mcts' (its Python MCTSBot with random rollouts) or 'mcts_cpp' (its C++ MCTSBot, ditto)."""
    if kind == "random":
        from open_spiel.python.bots.uniform_random import UniformRandomBot
        return UniformRandomBot(player, np.random.RandomState(seed))
    if kind == "mcts":
        from open_spiel.python.algorithms import mcts
        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rng)
        return mcts.MCTSBot(game, c, simulations, evaluator, solve=solve, random_state=rng)
    if kind == "mcts_cpp":
        evaluator = pyspiel.RandomRolloutEvaluator(rollouts, seed)
        return CppBotStepper(pyspiel.MCTSBot(game, evaluator, c, simulations, 1000, solve, seed, False))
    raise ParameterError(f"unknown OpenSpiel bot {kind!r}; choose one of {', '.join(BOT_KINDS)}")
