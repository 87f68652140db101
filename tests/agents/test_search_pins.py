"""The searches' moves and statistics, pinned: the same seeds give the same moves and the same
search figures (simulations, nodes, depths, visit counts, values) as the code they were recorded
from. A change to MCTS or alpha-beta that should not change what they compute must keep this
passing; one that should, records the new figures (`observe()` returns them; they are kept in
search_pins.json)."""
import json
from pathlib import Path

import pytest

import ludo_flow
from agents import make_agent
from walks import random_walk

# Each search is compiled again here with the `hand` evaluation (about 40 s of compiling on a
# fresh cache): outside the fast lane, in the full suite.
pytestmark = pytest.mark.slow

# Keys of `last_stats` that depend on the clock, not on the search.
CLOCK_KEYS = {"time", "simulations_per_second", "nodes_per_second"}

# (game, walk seed, plies into the walk): the searched positions.
POSITIONS = [("flow", 1, 0), ("flow", 2, 17), ("flow", 3, 40), ("tolkuchka", 1, 0),
             ("tolkuchka", 2, 30), ("tolkuchka", 3, 60)]
SPECS = ["mcts:simulations=300,seed=3",
         "mcts:simulations=200,policy=uct,seed=4",
         "mcts:simulations=200,cutoff=4,minimax=0,expand=0,solver=0,turn_order=0,seed=5",
         "mcts:simulations=200,priors=0,eval=hand,seed=6",
         "alphabeta:depth=3,seed=1",
         "alphabeta:depth=4,nodes=3000,tt=0,eval=hand,seed=2"]
# Games played on by a kept tree (`reuse=1`) against alpha-beta: (game, plies, specs).
GAMES = [("flow", 8, ("mcts:simulations=400,reuse=1,seed=7", "alphabeta:depth=2,seed=3")),
         ("tolkuchka", 8, ("mcts:simulations=400,reuse=1,seed=8", "alphabeta:depth=2,seed=4"))]


def _position(game, seed, plies):
    walk = random_walk(game, seed, plies)
    state = walk[-1]
    assert not state.is_terminal()
    return state


def _stats(agent):
    return json.loads(json.dumps({k: v for k, v in agent.last_stats.items()
                                  if k not in CLOCK_KEYS}))


def observe_position(index, spec):
    """Return (action, stats) of the agent of `spec` at position `POSITIONS[index]`."""
    name, seed, plies = POSITIONS[index]
    game = ludo_flow.load_game(name)
    agent = make_agent(spec, game)
    action = agent.select_action(_position(game, seed, plies))
    return int(action), _stats(agent)


def observe_game(index):
    """Return [(action, stats)] of the moves of game `GAMES[index]`."""
    name, plies, specs = GAMES[index]
    game = ludo_flow.load_game(name)
    agents = [make_agent(spec, game) for spec in specs]
    state = game.new_initial_state()
    moves = []
    for _ in range(plies):
        if state.is_terminal():
            break
        agent = agents[state.current_player()]
        action = agent.select_action(state)
        moves.append((int(action), _stats(agent)))
        state.apply(action)
    return json.loads(json.dumps(moves))


def observe():
    """Return the figures this file pins, as PINNED holds them."""
    return {"positions": {f"{i} {spec}": observe_position(i, spec)
                          for i in range(len(POSITIONS)) for spec in SPECS},
            "games": [observe_game(i) for i in range(len(GAMES))]}


def _same(pinned, got):
    """Compare the pinned keys only (a statistic added later is not pinned)."""
    action, stats = got
    assert action == pinned[0]
    assert {k: stats.get(k) for k in pinned[1]} == pinned[1]


@pytest.mark.parametrize("index", range(len(POSITIONS)))
@pytest.mark.parametrize("spec", SPECS)
def test_a_search_chooses_and_counts_as_pinned(index, spec):
    _same(PINNED["positions"][f"{index} {spec}"], observe_position(index, spec))


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_a_kept_tree_plays_as_pinned(index):
    got = observe_game(index)
    pinned = PINNED["games"][index]
    assert len(got) == len(pinned)
    for p, g in zip(pinned, got):
        _same(p, g)


# Recorded by `observe()` from the reference code.
PINNED = json.loads((Path(__file__).with_name("search_pins.json")).read_text())
