"""Agents for ludo_flow games: random, alpha-beta and MCTS behind one interface.

    >>> import ludo_flow, agents
    >>> game = ludo_flow.load_game("flow")
    >>> agent = agents.make_agent("mcts:simulations=2000,seed=7", game)
    >>> state = game.new_initial_state()
    >>> action = agent.select_action(state)     # the state is not changed
    >>> agent.last_stats["simulations"]
    2000
"""
from .alphabeta import AlphaBetaAgent
from .base import Agent, AgentError, BaseAgent, SearchInterrupted, Setting
from .human import HumanAgent
from .mcts import MCTSAgent
from .random_agent import RandomAgent
from .registry import AGENTS, describe_agents, make_agent, parse_spec

__all__ = ["Agent", "AgentError", "BaseAgent", "SearchInterrupted", "Setting", "AGENTS", "make_agent", "parse_spec",
           "describe_agents", "RandomAgent", "AlphaBetaAgent", "MCTSAgent", "HumanAgent"]
