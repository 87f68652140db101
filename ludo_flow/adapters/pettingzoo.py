"""Flow and Tolkuchka as PettingZoo AEC environments.

    from ludo_flow.adapters.pettingzoo import env
    e = env("flow", variant="fountain", max_turns=60, render_mode="ansi")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents `player_0` (White) and `player_1` (Black); `agent_selection` follows the player who
decides, so Flow's two steps and its wash choices are consecutive turns of one agent. An
observation is `{"observation": State.observation() (float32, the game's observation_shape,
docs/adapters.md), "action_mask": int8 over the game's action space}` (the mask is all 0 for
the agent not to move). Rewards +1 / -1 at a win, 0 otherwise. A game that ends by a rule
(`far_edge`, `no_checkers`, ...) *terminates*; a draw by one of the limits (`turn_limit`,
`quiet_plies`, `max_plies`: `TRUNCATIONS`) *truncates*; `infos` then hold the `termination`
reason and the `result`. The games have no chance: `reset(seed)` only seeds the spaces'
`sample`, so a seeded environment sampled through its spaces replays the same game.
Render modes: `ansi` (our ASCII board, `str(state)`) and `rgb_array` (`ludo_flow.adapters.raster`).
"""
try:
    import gymnasium
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as err:  # the optional extra is missing
    raise ImportError("ludo_flow.adapters.pettingzoo needs PettingZoo: "
                      "pip install 'ludo_flow[pettingzoo]' (pettingzoo and gymnasium)") from err

import numpy as np

from ludo_flow import registry
from ludo_flow.errors import ParameterError
from ludo_flow.outcome import LIMIT_DRAWS

from . import _common
from .raster import board_rgb

TRUNCATIONS = LIMIT_DRAWS
AGENTS = ("player_0", "player_1")  # White, Black
RENDER_MODES = ("ansi", "rgb_array")


def env(game, variant=None, render_mode=None, position="", **params):
    """Return a game as a PettingZoo AEC environment (raw_env in PettingZoo's order-enforcing wrapper)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, variant, render_mode, position, **params))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped environment
    """One of our games (`game`: 'flow' or 'tolkuchka') as an AEC environment; see the module."""

    def __init__(self, game, variant=None, render_mode=None, position="", **params):
        super().__init__()
        if game not in registry.BY_NAME:
            raise ParameterError(f"unknown game {game!r}; choose one of {', '.join(registry.BY_NAME)}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ParameterError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, "
                                 f"got {render_mode!r}")
        self.game, self._start = _common.game_and_start(game, dict(params, variant=variant, position=position))
        self.render_mode = render_mode
        self.metadata = {"render_modes": list(RENDER_MODES), "name": f"ludo_flow_{game}_v0",
                         "is_parallelizable": False, "render_fps": 1}
        self.possible_agents = list(AGENTS)
        n = self.entry.action_space
        shape = self.entry.observation_shape
        self.action_spaces = {a: gymnasium.spaces.Discrete(n) for a in AGENTS}
        self.observation_spaces = {a: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, 1.0, shape, np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), np.int8)}) for a in AGENTS}
        self.game_state = None

    @property
    def entry(self):
        """Return the game's registry entry (looked up, not stored: it holds a module, which
        would stop the environment from pickling)."""
        return registry.BY_NAME[self.game.name]

    def observation_space(self, agent):
        """Return the observation space of an agent (the same object every time)."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """Return the action space of an agent: Discrete over the game's action ids."""
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """Start a new game from the start position; a seed seeds the spaces' sampling."""
        self.game_state = self._start.clone()
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.game_state.current_player()]
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
                self.observation_spaces[agent].seed(seed + i)

    def observe(self, agent):
        """Return {"observation": the observation tensor, "action_mask": the legal actions of `agent`}."""
        mask = np.zeros(self.entry.action_space, dtype=np.int8)
        if agent == self.agent_selection and not self.game_state.is_terminal():
            mask[self.game_state.legal_actions()] = 1
        return {"observation": self.game_state.observation(), "action_mask": mask}

    def state(self):
        """Return the observation tensor of the position (the game has perfect information)."""
        return self.game_state.observation()

    def step(self, action):
        """Play `action` for the agent to move (None for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        self.game_state.apply(action)  # ActionError (a ValueError) names the legal actions
        outcome = self.game_state.outcome()
        if outcome is not None:
            ended = self.truncations if outcome.termination in TRUNCATIONS else self.terminations
            for i, a in enumerate(self.agents):
                ended[a] = True
                self.rewards[a] = 0 if outcome.winner is None else (1 if outcome.winner == i else -1)
                self.infos[a] = {"termination": outcome.termination.value, "result": outcome.result}
        self.agent_selection = AGENTS[self.game_state.current_player()]
        self._accumulate_rewards()

    def render(self):
        """Return the board: text (`ansi`) or an RGB array (`rgb_array`); None without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (choose 'ansi' or 'rgb_array')")
            return None
        if self.render_mode == "ansi":
            return str(self.game_state)
        return board_rgb(self.game_state)

    def close(self):
        """Release nothing (no window is opened); present because render is."""
