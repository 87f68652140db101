"""Flow kernels against the plain-Python reference engine, in lockstep, on random play.

Both engines start from the same position and take the same random actions; after every
action they must agree on the legal actions, the board, the side, the step, the phase, the
first-moved piece, the turn count and the result. At every position the kernels' candidate
actions, each confirmed by `is_legal_candidate`, must also give exactly the legal actions, and
`is_candidate` must pick out exactly the candidate steps among all 4096 step ids."""
import random

import numpy as np
import pytest
from numba import njit

import ludo_flow
from ludo_flow.flow import kernels
from ludo_flow.flow.reference import FlowRef
from ludo_flow.render import square_name


def reference_of(state):
    """Return the FlowRef of a settled FlowState."""
    return FlowRef.from_pieces(state.width, state.height, state.pieces(), side=state.current_player(),
                               step=state.step, first=state.first_moved, turns=state.turns,
                               max_turns=state.game.params["max_turns"])


def confirmed_candidates(state):
    """Return the sorted candidate actions of `state` that is_legal_candidate confirms."""
    buf = np.empty(kernels.MAX_ACTIONS, dtype=np.int32)
    n = kernels.candidate_actions(state.array, buf)
    assert len(set(buf[:n].tolist())) == n  # no candidate listed twice
    return sorted(int(a) for a in buf[:n] if kernels.is_legal_candidate(state.array, a))


@njit(cache=True)
def _single_action_mismatches(state, buf):
    """Return how many step ids (0..4095) is_candidate judges unlike candidate_actions."""
    n = kernels.candidate_actions(state, buf)
    listed = np.zeros(kernels.WASH_BASE, dtype=np.bool_)
    for i in range(n):
        if buf[i] < kernels.WASH_BASE:  # wash choices: is_candidate never reports them
            listed[buf[i]] = True
    bad = 0
    for a in range(kernels.WASH_BASE):
        bad += kernels.is_candidate(state, a) != listed[a]
    bad += kernels.is_candidate(state, kernels.WASH_BASE)  # nor any wash id
    return bad


def assert_same(state, ref, where):
    assert sorted(state.legal_actions()) == ref.legal_actions(), where
    assert confirmed_candidates(state) == ref.legal_actions(), where
    assert _single_action_mismatches(state.array, np.empty(kernels.MAX_ACTIONS, dtype=np.int32)) == 0, where
    assert state.pieces() == dict(ref.pieces), where
    assert state.current_player() == ref.current_player(), where
    assert state.choosing == ref.choosing, where
    assert state.turns == ref.turns, where
    if not state.choosing:
        assert state.step == ref.step, where
        if state.step == 2:  # at step 1 no piece is barred, whatever either engine remembers
            assert state.first_moved == ref.first, where
    assert state.returns()[0] == ref.returns(), where
    assert state.is_terminal() == ref.is_terminal(), where


def lockstep(state, rng, max_plies):
    """Play both engines together from `state`; return the number of positions compared."""
    ref = reference_of(state)
    compared = 0
    history = []
    for _ in range(max_plies):
        assert_same(state, ref, history)
        compared += 1
        legal = state.legal_actions()
        if not legal:
            break
        action = rng.choice(legal)
        history.append(state.action_to_string(action))
        state.apply(action)
        ref = ref.apply(action)
    return compared


def random_position(game, rng):
    """Return a random legal settled position (width, height, pieces drawn at random)."""
    width, height = rng.randint(4, 8), rng.randint(4, 8)
    while True:
        pieces = {}
        for r in range(1, height - 1):
            for f in range(width):
                if rng.random() < 0.3:
                    pieces[r * 8 + f] = rng.choice("PPPRNppprn")
        for f in range(width):  # home ranks may hold own pieces
            if rng.random() < 0.2:
                pieces[f] = rng.choice("PRN")
            if rng.random() < 0.2:
                pieces[(height - 1) * 8 + f] = rng.choice("prn")
        ranks = []
        for r in range(height - 1, -1, -1):
            ranks.append("".join(pieces.get(r * 8 + f, "1") for f in range(width)))
        text = "/".join(ranks) + f" {rng.choice('wb')} 1 - {rng.randint(0, 3)}"
        try:
            return game.from_string(text)
        except ludo_flow.PositionError:
            continue


@pytest.mark.parametrize("variant, games", [("standard", 40), ("stones", 80), ("fountain", 120)])
def test_presets_in_lockstep(variant, games):
    rng = random.Random(f"flow-{variant}")
    game = ludo_flow.load_game("flow", variant, max_turns=40)
    compared = sum(lockstep(game.new_initial_state(), rng, 200) for _ in range(games))
    assert compared >= 2000


def test_random_boards_in_lockstep():
    rng = random.Random("flow-random-boards")
    compared = 0
    for i in range(700):
        game = ludo_flow.load_game("flow", max_turns=rng.randint(3, 30))
        compared += lockstep(random_position(game, rng), rng, 60)
    assert compared >= 4000


def test_rare_rule_positions_in_lockstep():
    # The loop example, a choose phase with a looping choice, a three-wash cascade, two walls.
    rng = random.Random("flow-rare")
    game = ludo_flow.load_game("flow", max_turns=30)
    for text in ["8/8/8/8/1PP4R/2p5/1P1P4/8 w 1 - 0", "8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0",
                 "8/P7/P7/1P6/1p1P1P2/P7/1p6/8 w 1 - 0", "8/1R6/7p/8/P1PP4/1P6/P7/8 w 1 - 0",
                 "8/8/8/4p3/8/2PP3R/3p4/8 w 1 - 0"]:
        for _ in range(30):
            lockstep(game.from_string(text), rng, 40)
    start = game.from_string("8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0")
    step = start.parse_action("d6-d4")
    chosen = start.child(step)
    ref = reference_of(start).apply(step)
    assert ref.choosing and sorted(chosen.legal_actions()) == ref.legal_actions()
    assert [square_name(a - 4096) for a in ref.legal_actions()] == ["d4"]   # the lone legal wash
