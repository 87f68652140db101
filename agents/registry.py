"""Agent names and spec strings: `make_agent("mcts:simulations=2000,c=1.4,seed=7")`."""
from .alphabeta import AlphaBetaAgent
from . import own
from .base import AgentError, split_settings, unknown_setting
from .human import HumanAgent
from .mcts import MCTSAgent
from .openspiel_agent import OpenSpielAgent
from .random_agent import RandomAgent

AGENTS = {cls.agent_name: cls for cls in (RandomAgent, AlphaBetaAgent, MCTSAgent, HumanAgent, OpenSpielAgent)}


def parse_spec(spec):
    """Return (agent name, {setting: value string}) from `name:key=value,key=value`."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"an agent spec is a string like 'mcts:simulations=1000', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name == own.KIND:  # py:MODULE:NAME,key=value: the target is not a setting
        return name, own.split_spec(spec)[2]
    if name not in AGENTS:
        raise AgentError(f"unknown agent {name!r}; choose one of {', '.join(AGENTS)}, or "
                         f"{own.KIND}:MODULE:NAME for your own ({own.DOCS})")
    return name, split_settings(name, rest.split(","))


def make_agent(spec, game=None, **overrides):
    """Return a new agent from a spec string (`overrides` win over the spec's settings).

    `game` is accepted so callers can say which game the agent is for; agents read the
    game from each state they are given, so it is only checked to be a Game."""
    if game is not None and not hasattr(game, "game_id"):
        raise AgentError(f"make_agent: game must be a ludo_flow Game, got {game!r}")
    name, options = parse_spec(spec)
    if name == own.KIND:
        return own.make(spec, overrides)
    options.update(overrides)
    cls = AGENTS[name]
    unknown = sorted(set(options) - set(cls.settings))
    if unknown:
        raise AgentError(unknown_setting(name, unknown[0], cls.settings))
    return cls(**options)



def describe_agents():
    """Return a multi-line text listing every agent and its settings with defaults."""
    lines = []
    for name, cls in AGENTS.items():
        paragraph = " ".join(cls.__doc__.split("\n\n")[0].split())
        lines.append(f"{name}: {paragraph.split('. ')[0].rstrip('.')}.")
        for key, setting in cls.settings.items():
            lines.append(f"    {setting.describe(key)}")
        if cls.STATS_KEYS:
            lines.append(f"    reports after each move (last_stats): {', '.join(cls.STATS_KEYS)}")
    lines.extend(own.describe())
    return "\n".join(lines)
