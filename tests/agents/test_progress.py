"""Searches that report while they run: `select_action(state, on_progress=callback)` calls back
with `SearchProgress` figures that grow as the search goes on (alpha-beta after each finished
depth, MCTS after each slice of time), and changes nothing the search computes."""
import gzip
import json
from pathlib import Path

import pytest

import ludo_flow
from agents import make_agent
from agents.base import PV_LENGTH, SearchProgress, report_progress
from agents.mcts import agent as mcts_agent
from walks import random_walk

CLOCK_KEYS = {"time", "simulations_per_second", "nodes_per_second"}
POSITIONS = [("flow", 1, 0), ("flow", 2, 17), ("tolkuchka", 1, 0), ("tolkuchka", 6, 30)]


def _position(name, seed, plies):
    game = ludo_flow.load_game(name)
    state = random_walk(game, seed, plies)[-1]
    assert not state.is_terminal() and len(state.legal_actions()) > 1
    return game, state


def _searched(spec, game, state, report):
    """Return (action, last_stats without clock figures) of a fresh agent of `spec`."""
    agent = make_agent(spec, game)
    before = state.to_string()
    action = agent.select_action(state, on_progress=report) if report else agent.select_action(state)
    assert state.to_string() == before
    return action, {k: v for k, v in agent.last_stats.items() if k not in CLOCK_KEYS}


def _check_common(reports, state):
    legal = set(state.legal_actions())
    for info in reports:
        assert isinstance(info, SearchProgress)
        assert info.best in legal and info.pv and info.pv[0] == info.best
        assert len(info.pv) <= PV_LENGTH and info.elapsed >= 0 and info.nodes > 0
    assert [r.elapsed for r in reports] == sorted(r.elapsed for r in reports)
    assert [r.nodes for r in reports] == sorted(r.nodes for r in reports)


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("spec", ["alphabeta:depth=4,seed=1", "alphabeta:depth=9,nodes=4000,seed=2"])
def test_alphabeta_reports_each_finished_depth_and_plays_the_same(position, spec):
    game, state = _position(*position)
    reports = []
    action, stats = _searched(spec, game, state, reports.append)
    assert (action, stats) == _searched(spec, game, state, None)
    _check_common(reports, state)
    assert all(r.agent == "alphabeta" and r.simulations == 0 and r.share is None for r in reports)
    # One report a finished depth, in order (a forced result may end the deepening early).
    assert [r.depth for r in reports] == list(range(1, stats["depth"] + 1))
    last = reports[-1]
    if stats["stopped"] in ("depth", "forced result"):
        assert (last.best, last.score, list(last.pv)) == (action, stats["score"], stats["pv"])
    else:  # stopped inside a depth: the report is that of the last finished depth
        assert stats["stopped"] == "nodes" and last.nodes <= stats["nodes"]


def test_alphabeta_reports_a_forced_win_and_stops_there():
    data = Path(__file__).resolve().parents[2] / "experiments" / "solved" / "forced_wins.json.gz"
    with gzip.open(data, "rt", encoding="utf-8") as f:
        rows = [r for r in json.load(f)["positions"] if r["shortest_plies"] >= 3][:3]
    assert rows
    for row in rows:
        game = ludo_flow.load_game("flow", max_turns=row["max_turns"])
        state = game.from_string(row["position"])
        for word in row["after"]:
            state.apply(state.parse_action(word))
        reports = []
        spec = "alphabeta:depth=12,seed=1"
        action, stats = _searched(spec, game, state, reports.append)
        assert (action, stats) == _searched(spec, game, state, None)
        assert stats["stopped"] == "forced result" and stats["depth"] < 12
        assert [r.depth for r in reports] == list(range(1, stats["depth"] + 1))
        assert reports[-1].score == stats["score"] > 500 and reports[-1].best == action


@pytest.mark.parametrize("position", POSITIONS)
def test_mcts_reports_by_slices_and_plays_the_same(position, monkeypatch):
    monkeypatch.setattr(mcts_agent, "PROGRESS_INTERVAL", 0.001)  # many slices in a short search
    spec = "mcts:simulations=10000,seed=3"
    game, state = _position(*position)
    reports = []
    action, stats = _searched(spec, game, state, reports.append)
    assert (action, stats) == _searched(spec, game, state, None)
    if stats["stopped"] == "root proven" and not reports:
        pytest.skip("proven before the first slice ended")
    assert len(reports) >= 2, stats
    _check_common(reports, state)
    sims = [r.simulations for r in reports]
    assert sims == sorted(set(sims)) and 0 < sims[0] and sims[-1] <= stats["simulations"]
    for r in reports:
        assert r.agent == "mcts" and 0.0 < r.share <= 1.0 and -1.0 <= r.score <= 1.0
        assert 1 <= r.depth <= stats["depth"]


def test_mcts_with_a_time_budget_reports_and_ends_on_time():
    game, state = _position("flow", 2, 17)
    make_agent("mcts:simulations=50,seed=1", game).select_action(state)  # compiled before the
    # clock starts: from a fresh cache compiling alone took the whole 0.6 s (one report)
    reports = []
    agent = make_agent("mcts:time=1.0,simulations=0,seed=1", game)
    action = agent.select_action(state, on_progress=reports.append)
    assert agent.last_stats["stopped"] == "time" and action in state.legal_actions()
    assert len(reports) >= 2  # slices of 0.15 s; a slice that grows the tree takes longer
    assert all(r.elapsed < 1.0 for r in reports)


def test_a_single_legal_action_is_not_reported_and_other_agents_do_not_report():
    game = ludo_flow.load_game("tolkuchka")
    assert report_progress(make_agent("alphabeta", game)) and report_progress(make_agent("mcts", game))
    assert not report_progress(make_agent("random", game))
    state = random_walk(game, 0, 119)[-1]  # a position with one legal action
    assert len(state.legal_actions()) == 1
    reports = []
    for spec in ("alphabeta", "mcts:simulations=50"):
        make_agent(spec, game).select_action(state, on_progress=reports.append)
    assert reports == []
