"""Solved positions alpha-beta must win: forced wins in N turns on the solved small boards
(`experiments/solved/forced_wins.json.gz`, made by `forced_wins.py`), each with its proof.

Flow's turn is up to four decisions (two steps, each maybe followed by a wash choice), so N
turns are no fixed number of plies. Alpha-beta searches, in turn, as many plies as the shortest
forced win (`shortest_plies`: the least depth at which a win can be seen at all) and as the
longest line of the stored proof. At either depth some winning strategy ends in a win inside
the search, so alpha-beta must score a winning move as a win, and a move it scores as a win
must be one: its choice must keep the forced win, and df-pn checks that it does."""
import gzip
import json
from pathlib import Path

import pytest

import ludo_flow
from agents.registry import make_agent
from ludo_flow.solve import Prover, certificate, solve
from ludo_flow.solve.solver import shortest_win_plies

DATA = Path(__file__).resolve().parents[2] / "experiments" / "solved" / "forced_wins.json.gz"


def _positions():
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return json.load(f)["positions"]


POSITIONS = _positions()


def _state(row, max_turns=None):
    game = ludo_flow.load_game("flow", max_turns=max_turns or row["max_turns"])
    state = game.from_string(row["position"])
    for word in row["after"]:
        state.apply(state.parse_action(word))
    return state


def _name(row):
    return f"{row['board']}-N{row['turns']}-{row['plies']}plies"


def test_the_suite_covers_turns_boards_and_phases():
    assert len(POSITIONS) >= 30
    assert {r["turns"] for r in POSITIONS} >= {1, 2, 3, 4, 5}
    assert {r["board"] for r in POSITIONS} >= {"4x4", "6x4", "4x5"}
    assert any(r["after"] for r in POSITIONS)  # wash choices and second steps are in it
    assert all(r["losing"] for r in POSITIONS)  # every position can be thrown away
    assert max(r["shortest_plies"] for r in POSITIONS) >= 10


@pytest.fixture(scope="module")
def prover():
    return Prover(16 << 20)


@pytest.mark.parametrize("depth", ["shortest_plies", "plies"])
@pytest.mark.parametrize("row", POSITIONS, ids=[_name(r) for r in POSITIONS])
def test_alphabeta_at_a_matching_depth_keeps_the_win(row, depth, prover):
    state = _state(row)
    mover = state.current_player()
    agent = make_agent(f"alphabeta:depth={row[depth]}")
    agent.reset(seed=0)
    action = agent.select_action(state.clone())
    word = state.action_to_string(action)
    assert word not in row["losing"], f"alpha-beta played {word}, which throws the win away"
    child = state.child(action)
    value = solve(child, prover=prover)[0].value
    assert value == ("win" if child.current_player() == mover else "loss"), word


@pytest.mark.parametrize("row", POSITIONS, ids=[_name(r) for r in POSITIONS])
def test_the_stored_proofs_hold(row, prover):
    """The certificate passes the reference engine, its depth is the one stored, and N is the
    shortest win (one turn fewer is no win)."""
    cert = row["certificate"]
    assert (cert["position"], cert["after"], cert["max_turns"]) == (row["position"], row["after"],
                                                                      row["max_turns"])
    assert certificate.verify(cert)[0] == "win"
    assert certificate.claim_depth(certificate.root_position(cert), cert["claims"][0]) == row["plies"]
    state = _state(row)
    assert shortest_win_plies(state, row["plies"]) == row["shortest_plies"] <= row["plies"]
    assert state.turns + row["turns"] == row["max_turns"]
    if row["turns"] > 1:  # with N = 1 one turn fewer leaves no turn to play
        assert solve(_state(row, row["max_turns"] - 1), prover=prover)[0].value != "win"
