"""State.outcome(): why a game ended, for every termination of both games on built positions,
and the kernels' `termination` against the reference engines over random games."""
import dataclasses
import random
from collections import Counter

import pytest

import ludo_flow
from ludo_flow import Outcome, Termination
from ludo_flow.flow import kernels as FK
from ludo_flow.flow.reference import FlowRef
from ludo_flow.tolkuchka import kernels as TK
from ludo_flow.tolkuchka.reference import TolkRef

FLOW_TERMINATIONS = {Termination.FAR_EDGE, Termination.OPPONENT_FAR_EDGE, Termination.NO_FIRST_STEP,
                     Termination.TURN_LIMIT}
TOLKUCHKA_TERMINATIONS = {Termination.NO_CHECKERS, Termination.NO_MOVE, Termination.QUIET_PLIES,
                          Termination.MAX_PLIES}


def position(game, text, **params):
    return ludo_flow.load_game(game, **params).from_string(text)


def play(state, *moves):
    for m in moves:
        state.apply(state.parse_action(m))
    return state


def assert_consistent(state):
    """Check outcome() against is_terminal(), returns() and result_string(); return it."""
    outcome = state.outcome()
    if outcome is None:
        assert not state.is_terminal() and state.result_string() == "*"
        assert state.returns() == [0.0, 0.0]
        return None
    assert state.is_terminal() and state.legal_actions() == []
    assert outcome.result == state.result_string()
    assert state.returns() == {0: [1.0, -1.0], 1: [-1.0, 1.0], None: [0.0, 0.0]}[outcome.winner]
    return outcome


def ended(state, termination, winner):
    outcome = assert_consistent(state)
    assert outcome == Outcome(termination, winner), state
    return outcome


# --- the API -----------------------------------------------------------------------------------

def test_termination_values_are_the_record_strings():
    assert [t.value for t in Termination] == [
        "far_edge", "opponent_far_edge", "no_first_step", "turn_limit",
        "no_checkers", "no_move", "quiet_plies", "max_plies"]
    with pytest.raises(ValueError):
        Termination("forfeit")  # a tournament's forfeit is not a way the rules end a game
    assert {"Outcome", "Termination"} <= set(ludo_flow.__all__)


def test_outcome_is_a_frozen_value_with_a_result_string():
    assert Outcome(Termination.FAR_EDGE, 0).result == "1-0"
    assert Outcome(Termination.NO_MOVE, 1).result == "0-1"
    assert Outcome(Termination.TURN_LIMIT, None).result == "1/2-1/2"
    outcome = Outcome(Termination.QUIET_PLIES, None)
    assert outcome == Outcome(Termination.QUIET_PLIES, None) and hash(outcome) == hash(Outcome(Termination.QUIET_PLIES, None))
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.winner = 0


@pytest.mark.parametrize("game, kernels, members", [
    (ludo_flow.FlowGame, FK, FLOW_TERMINATIONS), (ludo_flow.TolkuchkaGame, TK, TOLKUCHKA_TERMINATIONS)])
def test_each_game_maps_its_kernel_codes_one_to_one(game, kernels, members):
    assert set(game.terminations.values()) == members
    assert sorted(game.terminations) == [1, 2, 3, 4] and kernels.NOT_OVER == 0


# --- Flow --------------------------------------------------------------------------------------

def test_flow_ongoing_states_have_no_outcome():
    for variant in ("standard", "stones", "fountain"):
        assert assert_consistent(ludo_flow.load_game("flow", variant).new_initial_state()) is None
    s = play(ludo_flow.load_game("flow").new_initial_state(), "b2-b3")
    assert s.choosing and assert_consistent(s) is None
    assert FK.termination(s.array) == FK.NOT_OVER


def test_flow_far_edge():
    ended(play(position("flow", "8/3P4/8/4p3/8/8/8/8 w 1 - 0"), "d7-d8"), Termination.FAR_EDGE, 0)
    ended(play(position("flow", "8/8/8/8/4P3/8/3p4/8 b 1 - 0"), "d2-d1"), Termination.FAR_EDGE, 1)
    # after the first step of a turn, with a second step still available
    ended(play(position("flow", "8/3P4/8/4p3/8/8/8/R7 w 1 - 0"), "d7-d8"), Termination.FAR_EDGE, 0)


def test_flow_far_edge_by_a_push_of_the_steppers_own_piece():
    # White's rook makes the wall c6 d6 e6: d6 (Black) is washed up and pushes White's d7 to d8.
    s = play(position("flow", "8/3P4/2Pp4/8/8/8/8/4R3 w 1 - 0"), "e1-e6")
    assert s.pieces()[59] == "P"  # d8
    ended(s, Termination.FAR_EDGE, 0)


def test_flow_opponent_far_edge():
    # White's step washes d3 down, and the push carries Black's d2 to d1: Black wins.
    s = play(position("flow", "8/8/8/4p3/8/2PP3R/3p4/8 w 1 - 0"), "h3-e3")
    ended(s, Termination.OPPONENT_FAR_EDGE, 1)
    assert FK.termination(s.array) == FK.OPPONENT_FAR_EDGE
    # The same push with the colours swapped: Black steps and White's d7 reaches d8.
    s = play(position("flow", "8/3P4/2pp3r/8/4P3/8/8/8 b 1 - 0"), "h6-e6")
    ended(s, Termination.OPPONENT_FAR_EDGE, 0)


def test_flow_no_first_step():
    ended(position("flow", "8/8/8/3p4/8/8/8/8 w 1 - 0"), Termination.NO_FIRST_STEP, 1)
    ended(position("flow", "8/8/8/3P4/8/8/8/8 b 1 - 3"), Termination.NO_FIRST_STEP, 0)


def test_flow_no_first_step_in_a_playout_state():
    # random_ply marks a loss for no first step in the RESULT word (result() reads it): the
    # termination must still be told from the board, not from the side to move.
    s = position("flow", "8/8/8/3p4/8/8/8/8 w 1 - 0").array.copy()
    s[FK.RESULT] = FK.BLACK_WINS
    assert FK.termination(s) == FK.NO_FIRST_STEP


def test_flow_turn_limit():
    s = play(ludo_flow.load_game("flow", "fountain", max_turns=1).new_initial_state(), "a2-b2", "c1-d1")
    ended(s, Termination.TURN_LIMIT, None)
    # the draw is checked before the loss for having no first step
    ended(position("flow", "8/8/8/3p4/8/8/8/8 w 1 - 5", max_turns=5), Termination.TURN_LIMIT, None)


# --- Tolkuchka ---------------------------------------------------------------------------------

def test_tolkuchka_ongoing_states_have_no_outcome():
    assert assert_consistent(ludo_flow.load_game("tolkuchka").new_initial_state()) is None
    assert assert_consistent(position("tolkuchka", "B7/B7/W7/W7/W7/W7/B7/B7 w - 0 0")) is None


def test_tolkuchka_no_checkers_outranks_the_draw_limits():
    s = play(position("tolkuchka", "8/8/8/8/8/3W4/3W4/2BBB3 w - 0 0", quiet_plies=5, max_plies=1), "d3-d1")
    assert s.plies == 1  # max_plies is reached too
    ended(s, Termination.NO_CHECKERS, 0)


def test_tolkuchka_no_move():
    ended(position("tolkuchka", "B7/B7/W7/W7/W7/W7/B7/B7 b - 0 0"), Termination.NO_MOVE, 0)
    ended(position("tolkuchka", "W7/W7/B7/B7/B7/B7/W7/W7 w - 0 0"), Termination.NO_MOVE, 1)


def test_tolkuchka_quiet_plies():
    s = play(position("tolkuchka", "6BB/8/8/8/8/8/8/WW6 w - 0 0", quiet_plies=3), "a1-c1", "h8-f8")
    assert assert_consistent(s) is None
    ended(play(s, "b1-d1"), Termination.QUIET_PLIES, None)


def test_tolkuchka_max_plies():
    s = play(position("tolkuchka", "6BB/8/8/8/8/8/8/WW6 w - 0 8", max_plies=9), "a1-c1")
    ended(s, Termination.MAX_PLIES, None)
    # a knock resets the quiet count, not the ply count
    s = play(position("tolkuchka", "6BB/8/8/8/8/8/8/WWBB4 w - 2 8", quiet_plies=3, max_plies=9), "a1-c1")
    assert s.quiet == 0
    ended(s, Termination.MAX_PLIES, None)


def test_tolkuchka_both_draw_limits_at_once_report_quiet_plies():
    s = play(position("tolkuchka", "6BB/8/8/8/8/8/8/WW6 w - 2 8", quiet_plies=3, max_plies=9), "a1-c1")
    assert (s.quiet, s.plies) == (3, 9)
    ended(s, Termination.QUIET_PLIES, None)


def test_tolkuchka_draw_limits_outrank_no_move():
    ended(position("tolkuchka", "B7/B7/W7/W7/W7/W7/B7/B7 b - 50 0"), Termination.QUIET_PLIES, None)
    ended(position("tolkuchka", "B7/B7/W7/W7/W7/W7/B7/B7 b - 0 400"), Termination.MAX_PLIES, None)


# --- the kernels against the reference engines, over random games --------------------------------

def flow_reference(state):
    """Return the FlowRef of a settled FlowState."""
    return FlowRef.from_pieces(state.width, state.height, state.pieces(), side=state.current_player(),
                               step=state.step, first=state.first_moved, turns=state.turns,
                               max_turns=state.game.params["max_turns"])


def random_flow_board(game, rng):
    """Return a settled position on a random board size with random sparse pieces."""
    width, height, density = rng.randint(4, 8), rng.randint(4, 8), rng.choice((0.15, 0.25, 0.35))
    while True:
        pieces = {}
        for r in range(height):
            for f in range(width):
                letter = rng.choice("PPRNppprn")
                on_far_edge = r == (height - 1 if letter.isupper() else 0)
                if rng.random() < density and not on_far_edge:
                    pieces[r * 8 + f] = letter
        board = "/".join("".join(pieces.get(r * 8 + f, "1") for f in range(width))
                         for r in range(height - 1, -1, -1))
        try:
            return game.from_string(f"{board} {rng.choice('wb')} 1 - 0")
        except ludo_flow.PositionError:
            continue  # a wall


def lockstep_to_the_end(state, ref, rng, value_of):
    """Play random actions in both engines, comparing whether the game is over at every
    position and why it ended at the end; return the state's outcome."""
    while True:
        outcome = assert_consistent(state)
        reason = ref.termination()
        assert (outcome is None) == (reason is None), ref
        if outcome is not None:
            assert outcome.termination.value == reason, ref
            assert value_of(outcome) == ref.result()
            return outcome
        action = rng.choice(state.legal_actions())
        state.apply(action)
        ref = ref.apply(action)


def ref_result(outcome):
    return {0: "white", 1: "black", None: "draw"}[outcome.winner]


@pytest.mark.parametrize("variant, games", [("standard", 60), ("stones", 150), ("fountain", 200)])
def test_flow_termination_equals_the_reference_on_random_games(variant, games):
    rng = random.Random(f"outcome-flow-{variant}")
    seen = Counter()
    for _ in range(games):
        game = ludo_flow.load_game("flow", variant, max_turns=rng.randint(3, 40))
        state = game.new_initial_state()
        outcome = lockstep_to_the_end(state, flow_reference(state), rng, ref_result)
        seen[outcome.termination] += 1
    assert {Termination.FAR_EDGE, Termination.TURN_LIMIT} <= set(seen), seen


def test_flow_termination_equals_the_reference_on_random_boards():
    rng = random.Random("outcome-flow-boards")
    seen = Counter()
    for _ in range(300):
        game = ludo_flow.load_game("flow", max_turns=rng.randint(2, 30))
        state = random_flow_board(game, rng)
        outcome = lockstep_to_the_end(state, flow_reference(state), rng, ref_result)
        seen[outcome.termination] += 1
    assert set(seen) >= FLOW_TERMINATIONS - {Termination.OPPONENT_FAR_EDGE}, seen


def test_tolkuchka_termination_equals_the_reference_on_random_games():
    rng = random.Random("outcome-tolkuchka")
    limits = [(50, 400), (6, 400), (50, 30), (3, 25), (12, 120), (4, 12)]
    seen = Counter()
    for i in range(300):
        quiet_plies, max_plies = limits[i % len(limits)]
        state = ludo_flow.load_game("tolkuchka", quiet_plies=quiet_plies, max_plies=max_plies).new_initial_state()
        outcome = lockstep_to_the_end(state, TolkRef.standard(quiet_plies, max_plies), rng, ref_result)
        seen[outcome.termination] += 1
    assert set(seen) == TOLKUCHKA_TERMINATIONS, seen
