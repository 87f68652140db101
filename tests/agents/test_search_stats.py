"""The per-move search data the records keep: `score` and `pv` in both searches' `last_stats`."""
import pytest

import ludo_flow
from agents import make_agent
from agents.base import PV_LENGTH
from walks import random_walk


def _playable_line(state, pv):
    line = state.clone()
    for a in pv:
        assert line.is_legal(a), (pv, a)
        line.apply(a)


@pytest.mark.parametrize("name, plies", [("flow", 12), ("tolkuchka", 30)])
def test_mcts_score_is_the_played_childs_mean_and_pv_its_most_visited_line(name, plies):
    game = ludo_flow.load_game(name)
    state = random_walk(game, seed=11, plies=plies)[-1]
    agent = make_agent("mcts:simulations=3000,seed=2", game)
    action = agent.select_action(state)
    stats = agent.last_stats
    means = {a: mean for a, _, mean in stats["visits"]}
    assert stats["score"] == means[action] and -1.0 <= stats["score"] <= 1.0
    pv = stats["pv"]
    assert pv[0] == action and 1 < len(pv) <= PV_LENGTH
    _playable_line(state, pv)
    # Each step of the line is its node's most visited child.
    tree, node = agent._tree, 0
    for a in pv:
        f, n = int(tree.first_child[node]), int(tree.n_children[node])
        children = range(f, f + n)
        chosen = next(c for c in children if tree.action[c] == a)
        if node != 0:
            assert tree.visits[chosen] == max(tree.visits[c] for c in children)
        node = chosen


def test_mcts_pv_is_cut_at_pv_length():
    game = ludo_flow.load_game("tolkuchka")
    state = random_walk(game, seed=3, plies=60)[-1]
    agent = make_agent("mcts:simulations=20000,seed=1", game)
    agent.select_action(state)
    assert agent.last_stats["depth"] > PV_LENGTH
    assert len(agent.last_stats["pv"]) == PV_LENGTH


def test_without_a_search_the_score_is_none_and_the_pv_the_only_move():
    game = ludo_flow.load_game("flow")
    state = game.from_string("5/3p1/1pP1P/1PP2/5 b 2 d4 7")  # one legal action
    for spec in ("mcts:simulations=50", "alphabeta:depth=2"):
        agent = make_agent(spec, game)
        action = agent.select_action(state)
        assert agent.last_stats["score"] is None and agent.last_stats["pv"] == [action]


def test_alphabeta_pv_is_playable_and_at_most_pv_length():
    game = ludo_flow.load_game("tolkuchka")
    state = random_walk(game, seed=5, plies=20)[-1]
    agent = make_agent("alphabeta:depth=4", game)
    action = agent.select_action(state)
    pv = agent.last_stats["pv"]
    assert pv[0] == action and len(pv) <= PV_LENGTH
    assert isinstance(agent.last_stats["score"], float)
    _playable_line(state, pv)
