"""OpenSpiel's own bots as one of our agents, by spec: `openspiel:bot=mcts,simulations=1000`.

Needs the `openspiel` extra (pip install "ludo_flow[openspiel]"); without it, building the agent
raises AgentError. The bot plays through `agents.openspiel_bots` (docs/adapters.md)."""
import functools
import time

from .base import AgentError, BaseAgent, SearchInterrupted, Setting

BOTS = ("random", "mcts", "mcts_cpp")


class OpenSpielAgent(BaseAgent):
    """Plays one of OpenSpiel's bots: its uniform random bot, or its MCTS with random rollouts.

    `bot=mcts` is OpenSpiel's Python MCTSBot, `bot=mcts_cpp` its C++ MCTSBot (through the
    adapter, so the game's steps still run in Python); `simulations`, `rollouts`, `c` and
    `solve` are the bots' own settings. A spec builds it in any process, so it can enter
    tournaments. `last_stats` has exactly the keys of `STATS_KEYS` after every move:

    - `legal_actions` (int): how many legal actions there were to choose from
    - `time` (float): seconds the bot took"""

    agent_name = "openspiel"
    STATS_KEYS = ("legal_actions", "time")
    settings = {
        "bot": Setting(str, "mcts", "OpenSpiel bot: random, mcts (Python MCTSBot), mcts_cpp (C++ MCTSBot)",
                       choices=BOTS),
        "simulations": Setting(int, 1000, "MCTS simulations per move", low=1, high=10 ** 8),
        "rollouts": Setting(int, 1, "random rollouts per MCTS leaf", low=1, high=10 ** 4),
        "c": Setting(float, 2.0, "UCT exploration constant", low=0.0),
        "solve": Setting(int, 1, "MCTS backs up proven wins and losses (1) or not (0)", choices=(0, 1)),
        "seed": Setting(int, 0, "random seed", low=0, high=2 ** 32 - 1),
    }

    def reset(self, seed=None):
        """Start a new game; reseed with `seed` (or the configured seed)."""
        if not hasattr(self, "_bot_agent"):
            try:
                from . import openspiel_bots as openspiel  # the optional extra, only when used
            except ImportError as err:
                raise AgentError(f"openspiel: {err}") from None
            o = self.options
            make_bot = functools.partial(openspiel.make_bot, o["bot"], simulations=o["simulations"],
                                         rollouts=o["rollouts"], c=o["c"], solve=bool(o["solve"]))
            self._bot_agent = openspiel.BotAgent(make_bot, name=self.spec())
        self._bot_agent.reset(self.options["seed"] if seed is None else seed)

    def select_action(self, state):
        """Return the OpenSpiel bot's action for the player to move (the state is not changed).

        Ctrl-C raises SearchInterrupted without an action (OpenSpiel's bots keep no best move
        so far)."""
        start = time.perf_counter()
        try:
            action = self._bot_agent.select_action(state)
        except KeyboardInterrupt:
            self.last_stats = {"legal_actions": len(state.legal_actions()), "time": time.perf_counter() - start}
            raise SearchInterrupted("openspiel: the bot was interrupted", None, dict(self.last_stats)) from None
        self.last_stats = dict(self._bot_agent.last_stats)
        return action
