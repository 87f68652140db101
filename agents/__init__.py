"""Agents for ludo_flow games: random, alpha-beta and MCTS behind one interface.

    >>> import ludo_flow, agents
    >>> game = ludo_flow.load_game("flow")
    >>> agent = agents.make_agent("mcts:simulations=2000,seed=7", game)
    >>> state = game.new_initial_state()
    >>> action = agent.select_action(state)     # the state is not changed
    >>> agent.last_stats["simulations"]
    2000

The names below are imported on first use, so a command that plays no agent (`ludo-flow
perft`, whose code lives in `agents.cli`) does not pay for importing the searches.
"""
import importlib

_HOMES = {"Agent": "base", "AgentError": "base", "BaseAgent": "base", "SearchInterrupted": "base",
          "Setting": "base", "AGENTS": "registry", "make_agent": "registry", "parse_spec": "registry",
          "describe_agents": "registry", "RandomAgent": "random_agent", "AlphaBetaAgent": "alphabeta",
          "MCTSAgent": "mcts", "HumanAgent": "human", "view": "viewer"}

__all__ = list(_HOMES)


def __getattr__(name):
    """Return one of the public names, importing the module that defines it."""
    if name not in _HOMES:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOMES))
