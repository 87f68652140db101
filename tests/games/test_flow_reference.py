"""Tests of the pure-Python Flow reference engine against the Flow rules in RULES.md.

Every hand-built position below is described in its test: the squares, why the rule applies,
and what the page says must happen.
"""
import random

import pytest

from ludo_flow.flow import reference
from ludo_flow.flow.reference import (
    WASH_BASE, FlowRef, action_to_string, arrangement, square_index, wall_candidates,
)


def step(source, target):
    """Return the action int of a step between two named squares."""
    return square_index(source) * 64 + square_index(target)


def choose(square):
    """Return the action int of choosing the named square to wash."""
    return WASH_BASE + square_index(square)


def names(actions):
    """Return the page's notation of a list of actions."""
    return [action_to_string(action) for action in actions]


def board(**pieces):
    """Return a {square index: letter} dict from keyword arguments like b4='P'."""
    return {square_index(name): letter for name, letter in pieces.items()}


def occupied(state):
    """Return {square name: letter} of a state, for readable comparisons."""
    return {reference.square_name(square): letter for square, letter in state.pieces.items()}


# --- perft from the page -------------------------------------------------------------------

@pytest.mark.parametrize("preset, counts", [
    ("standard", [41, 1509, 58503]),
    ("stones", [16, 252, 3680]),
    ("fountain", [11, 111, 1242, 12524]),
])
def test_perft_matches_the_page(preset, counts):
    start = FlowRef.preset(preset)
    assert [start.perft(depth) for depth in range(1, len(counts) + 1)] == counts


def test_standard_divide_at_depth_two_matches_the_page():
    divide = FlowRef.preset("standard").divide(2)
    assert len(divide) == 41
    assert {move: divide[move] for move in ("b2-b3", "g1-g2", "e1-e2", "c1-c2", "a1-a2")} == {
        "b2-b3": 2, "g1-g2": 2, "e1-e2": 42, "c1-c2": 42, "a1-a2": 40}


def test_standard_b2_b3_makes_an_edge_wall_whose_two_candidates_white_chooses():
    after = FlowRef.preset("standard").apply(step("b2", "b3"))
    assert after.choosing and after.current_player() == 0 and after.step == 1
    assert names(after.legal_actions()) == ["~a3", "~b3"]


# --- walls and candidates --------------------------------------------------------------------

@pytest.mark.parametrize("files, expected", [
    ("cde", "d"),            # 3 in the middle
    ("cdef", "de"),          # 4 in the middle
    ("abc", "ab"),           # 3 at an edge
    ("bcdef", "cde"),        # 5 in the middle
    ("efgh", "fgh"),         # 4 at an edge: two inner squares and the edge square
    ("abcdefgh", "abcdefgh"),     # across the whole rank
    ("gh", "h"),             # 2 touching the right edge
    ("ab", "a"),             # 2 touching the left edge
    ("de", ""),              # 2 in the middle: no wall
    ("bc", ""),
])
def test_wall_candidates_follow_the_page(files, expected):
    pieces = {3 * 8 + "abcdefgh".index(f): "P" if i % 2 else "n" for i, f in enumerate(files)}
    assert wall_candidates(pieces, 8, 8) == sorted(3 * 8 + "abcdefgh".index(f) for f in expected)


def test_wall_edge_follows_the_board_width():
    # on a 5-wide board e is the right edge, so d4 e4 is a wall with candidate e4
    assert wall_candidates(board(d4="P", e4="p"), 5, 5) == [square_index("e4")]
    assert wall_candidates(board(d4="P", e4="p"), 6, 6) == []


def test_arrangement_tells_colour_and_pawn_from_dame_but_not_rook_from_knight():
    assert arrangement({5: "R"}) == arrangement({5: "N"})
    assert arrangement({5: "R"}) != arrangement({5: "P"})
    assert arrangement({5: "R"}) != arrangement({5: "r"})


# --- the loop rule --------------------------------------------------------------------------

def test_page_loop_example_makes_its_step_illegal():
    # 5x5. White c4, Black c3 under it, c2 empty, White b2 and d2; Black d4 and b5.
    # Black b5-b4 makes b4 c4 d4 (one candidate, White c4): c4 pushes (c4, c3) down, then
    # b2 c2 d2 is a wall with Black c2 in the middle, which pushes (c2, c3) back up: the first
    # arrangement again, with no choice anywhere. So b5-b4 is illegal; b5-b3 is not.
    position = FlowRef.from_pieces(
        5, 5, board(c4="P", b2="P", d2="P", c3="p", d4="p", b5="p"), side=1)
    assert step("b5", "b4") not in position.legal_actions()
    assert step("b5", "b3") in position.legal_actions()
    with pytest.raises(ValueError):
        position.apply(step("b5", "b4"))


def test_wash_choice_leading_into_a_forced_loop_is_illegal_and_lone_legal_wash_remains():
    # 6x6. White rook c5-c4 completes b4 c4 d4 e4 (4 in the middle): candidates c4 and d4.
    # ~c4 pushes the rook and Black c3 down; b2 c2 d2 is then a wall whose middle (Black c2)
    # pushes them back up: the arrangement right after the step again, so ~c4 loops.
    # ~d4 (White pawn) slides down to d3 and stops above d2: the current rests.
    # The choose phase is still entered, with the single legal action ~d4.
    position = FlowRef.from_pieces(
        6, 6, board(c5="R", d4="P", b2="P", d2="P", c3="p", b4="p", e4="p"))
    phase = position.apply(step("c5", "c4"))
    assert phase.choosing and phase.current_player() == 0
    assert wall_candidates(phase.pieces, 6, 6) == [square_index("c4"), square_index("d4")]
    assert names(phase.legal_actions()) == ["~d4"]
    with pytest.raises(ValueError):
        phase.apply(choose("c4"))
    rested = phase.apply(choose("d4"))
    assert not rested.choosing and rested.step == 2 and rested.side == 0
    assert occupied(rested) == {"c4": "R", "d3": "P", "b2": "P", "d2": "P",
                                "c3": "p", "b4": "p", "e4": "p"}
    assert rested.first == square_index("c4")


def test_wash_choice_that_recreates_the_arrangement_after_the_step_is_illegal():
    # 6x6. Black b5-b4 makes b4 c4 d4 with one candidate, White c4: it is washed at once,
    # pushing (c4, c3) down. Now b2 c2 d2 e2 is a wall of 4 with candidates c2 and d2, so Black
    # chooses. ~c2 pushes (c2, c3) up and recreates the arrangement right after the step;
    # ~d2 (White) slides off the board and the current rests.
    position = FlowRef.from_pieces(
        6, 6, board(b5="p", c3="p", d4="p", e2="p", c4="P", b2="P", d2="P"), side=1)
    phase = position.apply(step("b5", "b4"))
    assert phase.choosing and phase.current_player() == 1
    assert len(phase.seen) == 2  # after the step, and after the forced wash of c4
    assert occupied(phase)["c2"] == "p" and occupied(phase)["c3"] == "P"
    assert names(phase.legal_actions()) == ["~d2"]
    rested = phase.apply(choose("d2"))
    assert "d2" not in occupied(rested)
    assert rested.side == 1 and rested.step == 2 and rested.first == square_index("b4")


def test_wash_choice_repeating_an_arrangement_is_illegal_even_if_the_current_could_rest():
    # 6x6. White rook c5-c4 completes b4 c4 d4 e4: candidates c4 and d4 (both legal here).
    # ~c4 pushes the rook and Black c3 down; b2 c2 d2 e2 is then a wall of 4 with candidates
    # c2 and d2. ~c2 pushes (c2, c3) back up to the arrangement right after the step: a loop,
    # although from that arrangement ~d4 would let the current rest. ~d2 (White) slides off.
    position = FlowRef.from_pieces(6, 6, board(
        c5="R", d4="P", b2="P", d2="P", e2="P", c3="p", b4="p", e4="p"))
    phase = position.apply(step("c5", "c4"))
    assert names(phase.legal_actions()) == ["~c4", "~d4"]
    second_phase = phase.apply(choose("c4"))
    assert second_phase.choosing and len(second_phase.seen) == 2
    assert occupied(second_phase)["c3"] == "R" and occupied(second_phase)["c2"] == "p"
    assert names(second_phase.legal_actions()) == ["~d2"]
    rested = second_phase.apply(choose("d2"))
    assert not rested.choosing and rested.step == 2 and rested.first == square_index("c3")


def test_cascade_cap_counts_an_extra_wash_as_a_loop(monkeypatch):
    # The position above needs two washes (c4 forced, then ~d2). With the cap lowered to one
    # wash per step the second is a loop and b5-b4 becomes illegal; with two it is legal.
    position = board(b5="p", c3="p", d4="p", e2="p", c4="P", b2="P", d2="P")
    monkeypatch.setattr(reference, "MAX_WASHES_PER_STEP", 1)
    assert step("b5", "b4") not in FlowRef.from_pieces(6, 6, position, side=1).legal_actions()
    monkeypatch.setattr(reference, "MAX_WASHES_PER_STEP", 2)
    assert step("b5", "b4") in FlowRef.from_pieces(6, 6, position, side=1).legal_actions()


# --- washing: slides and pushes -------------------------------------------------------------

def test_slide_stops_before_a_piece_and_the_carried_piece_may_still_move():
    # 5x5. White a3-b3 makes b3 c3 d3; the candidate c3 (White) slides down over c2 and stops
    # above White c1. It is not the piece that stepped, so it may make the second step.
    position = FlowRef.from_pieces(
        5, 5, board(a3="P", c3="P", d3="p", c1="P", e5="p"))
    after = position.apply(step("a3", "b3"))
    assert occupied(after) == {"b3": "P", "c2": "P", "d3": "p", "c1": "P", "e5": "p"}
    assert after.step == 2 and after.first == square_index("b3")
    assert step("c2", "d2") in after.legal_actions()
    assert not any(action // 64 == square_index("b3") for action in after.legal_actions())


def test_slide_with_nothing_in_the_way_falls_off_the_board():
    # Same as above without c1: c3 slides over c2 and c1 and leaves the board.
    position = FlowRef.from_pieces(5, 5, board(a3="P", c3="P", d3="p", e5="p"))
    after = position.apply(step("a3", "b3"))
    assert occupied(after) == {"b3": "P", "d3": "p", "e5": "p"}


def test_black_piece_washes_towards_the_top_rank():
    # 5x5. White a3-b3 makes b3 c3 d3 with Black c3 in the middle: it slides up and stops
    # under Black c5.
    position = FlowRef.from_pieces(5, 5, board(a3="P", c3="p", d3="P", c5="p"))
    after = position.apply(step("a3", "b3"))
    assert occupied(after) == {"b3": "P", "c4": "p", "d3": "P", "c5": "p"}


def test_column_of_two_colours_is_pushed_and_its_edge_piece_falls_off():
    # 5x5. White a4-b4 makes b4 c4 d4; White c4 is washed down into the unbroken column
    # c3 (Black), c2 (White), c1 (White). All move one square down and c1 is pushed off.
    position = FlowRef.from_pieces(
        5, 5, board(a4="P", c4="P", d4="p", c3="p", c2="P", c1="N"))
    after = position.apply(step("a4", "b4"))
    assert occupied(after) == {"b4": "P", "d4": "p", "c3": "P", "c2": "p", "c1": "P"}
    assert after.result() == "ongoing" and after.step == 2


# --- the first-moved piece ------------------------------------------------------------------

def test_first_moved_piece_carried_by_the_current_is_still_barred():
    # 5x5. White c2-c3 makes b3 c3 d3; the mover c3 is the candidate and slides back down to
    # c2 (c1 is occupied). It is still the first-moved piece, now on c2, and may not step again.
    position = FlowRef.from_pieces(5, 5, board(c2="P", b3="p", d3="p", c1="P", e5="p"))
    after = position.apply(step("c2", "c3"))
    assert occupied(after)["c2"] == "P" and "c3" not in occupied(after)
    assert after.step == 2 and after.first == square_index("c2")
    assert after.legal_actions()
    assert not any(action // 64 == square_index("c2") for action in after.legal_actions())
    assert step("c1", "b1") in after.legal_actions()


def test_first_moved_piece_carried_by_a_column_push_is_still_barred():
    # 5x5. White rook c4-c3 makes b3 c3 d3; the rook is the candidate and pushes the column
    # (c3, c2) down: the rook lands on c2, White pawn c2 on c1. The rook stays barred; the pawn
    # it pushed did not step and may move.
    position = FlowRef.from_pieces(5, 5, board(c4="R", b3="p", d3="p", c2="P"))
    after = position.apply(step("c4", "c3"))
    assert occupied(after) == {"c2": "R", "c1": "P", "b3": "p", "d3": "p"}
    assert after.step == 2 and after.first == square_index("c2")
    assert names(after.legal_actions()) == ["c1-a1", "c1-b1", "c1-d1", "c1-e1"]


def test_first_moved_piece_that_fell_off_frees_every_piece():
    # 5x5. White c2-c3 makes b3 c3 d3; the mover c3 slides down over the emptied c2 and c1
    # and falls off. No first-moved piece is left, so White's other piece makes the second step.
    position = FlowRef.from_pieces(5, 5, board(c2="P", b3="p", d3="p", a1="P", e5="p"))
    after = position.apply(step("c2", "c3"))
    assert "c3" not in occupied(after) and "c2" not in occupied(after)
    assert after.step == 2 and after.first is None and after.side == 0
    assert step("a1", "b1") in after.legal_actions()


def test_turn_ends_after_the_first_step_when_no_second_step_exists():
    # 5x5. White has a single pawn: after its step the turn passes to Black.
    position = FlowRef.from_pieces(5, 5, board(c2="P", c4="p"))
    after = position.apply(step("c2", "b2"))
    assert after.side == 1 and after.step == 1 and after.first is None and after.turns == 1


def test_second_step_may_not_move_the_first_piece_and_ends_the_turn():
    position = FlowRef.preset("fountain")
    after_first = position.apply(step("a2", "b2"))
    assert after_first.side == 0 and after_first.step == 2
    assert after_first.first == square_index("b2")
    assert not any(action // 64 == square_index("b2") for action in after_first.legal_actions())
    after_turn = after_first.apply(step("c2", "c3"))
    assert after_turn.side == 1 and after_turn.step == 1 and after_turn.turns == 1


# --- winning, losing, drawing ---------------------------------------------------------------

def test_mover_wins_by_stepping_onto_the_far_edge_even_on_the_first_step():
    position = FlowRef.from_pieces(5, 5, board(c4="P", a1="P", e4="p"))
    after = position.apply(step("c4", "c5"))
    assert after.result() == "white" and after.is_terminal()
    assert after.returns() == 1.0 and after.legal_actions() == []
    black = FlowRef.from_pieces(5, 5, board(c2="p", e4="P"), side=1).apply(step("c2", "c1"))
    assert black.result() == "black" and black.returns() == -1.0


def test_opponent_wins_when_a_push_carries_their_piece_to_their_far_edge():
    # 5x5. White a3-b3 makes b3 c3 d3; White c3 is washed down into Black c2 and White c1:
    # c1 is pushed off and Black lands on c1, Black's far edge. White has nothing on rank 5.
    position = FlowRef.from_pieces(
        5, 5, board(a3="P", c3="P", d3="P", c2="p", c1="P", e5="p"))
    after = position.apply(step("a3", "b3"))
    assert occupied(after)["c1"] == "p"
    assert after.result() == "black" and after.returns() == -1.0 and after.legal_actions() == []


def test_mover_wins_when_both_sides_reach_their_far_edges():
    # 7x5. White rook d4-d3 completes b3 c3 d3 e3 f3: candidates c3, d3, e3. ~c3 (Black)
    # pushes White c4 up to c5; the rest d3 e3 f3 is a wall whose candidate e3 (White) pushes
    # Black e2 down to e1. Both sides stand on their far edges; the mover, White, wins.
    position = FlowRef.from_pieces(
        7, 5, board(b3="P", c3="p", d4="R", e3="P", f3="p", c4="P", e2="p"))
    phase = position.apply(step("d4", "d3"))
    assert names(phase.legal_actions()) == ["~c3", "~d3", "~e3"]
    for first_choice in ("c3", "e3"):
        end = phase.apply(choose(first_choice))
        assert occupied(end)["c5"] == "P" and occupied(end)["e1"] == "p"
        assert end.result() == "white" and end.legal_actions() == []


def test_player_without_pieces_loses_at_the_start_of_the_turn():
    position = FlowRef.from_pieces(5, 5, board(c4="p"))
    assert position.result() == "black" and position.legal_actions() == []
    assert position.returns() == -1.0


def test_current_that_washes_away_the_last_black_piece_loses_black_the_game():
    # 5x5. White a3-b3 makes b3 c3 d3 with Black c3 (Black's only piece) in the middle: it
    # slides up off the board. White makes its second step; then Black has no first step.
    position = FlowRef.from_pieces(5, 5, board(a3="P", c3="p", d3="P"))
    after_first = position.apply(step("a3", "b3"))
    assert after_first.result() == "ongoing" and after_first.step == 2
    after_turn = after_first.apply(step("d3", "d4"))
    assert after_turn.side == 1 and after_turn.result() == "white"


def test_draw_at_max_turns_is_checked_before_the_loss_without_a_first_step():
    assert FlowRef.from_pieces(5, 5, board(c4="p"), turns=3, max_turns=3).result() == "draw"
    playing = FlowRef.preset("fountain", max_turns=1)
    after_turn = playing.apply(step("a2", "b2")).apply(step("c2", "c3"))
    assert after_turn.turns == 1 and after_turn.result() == "draw"
    assert after_turn.legal_actions() == [] and after_turn.returns() == 0.0


# --- position checks and immutability -------------------------------------------------------

@pytest.mark.parametrize("pieces, options", [
    ({"b3": "P", "c3": "p", "d3": "P"}, {}),                 # a wall
    ({"c5": "P", "a2": "p"}, {}),                            # White on its far edge
    ({"c4": "P", "a1": "p"}, {}),                            # Black on its far edge
    ({"c2": "P"}, {"step": 1, "first": "c2"}),               # first-moved piece at step 1
    ({"c2": "P", "c4": "p"}, {"step": 2, "first": "c4"}),    # first-moved piece not the mover's
    ({"c2": "P", "c4": "p"}, {"step": 2, "first": "c2"}),    # step 2 with no legal step
])
def test_invalid_positions_are_rejected(pieces, options):
    with pytest.raises(ValueError):
        FlowRef.from_pieces(5, 5, pieces, **options)


def test_apply_returns_a_new_object_and_leaves_the_old_one_unchanged():
    start = FlowRef.preset("fountain")
    before = dict(start.pieces)
    child = start.apply(step("a2", "b2"))
    assert child is not start and start.pieces == before and start.step == 1
    with pytest.raises(ValueError):
        start.apply(step("a2", "a5"))


@pytest.mark.parametrize("preset", ["fountain", "stones", "standard"])
def test_random_games_keep_the_invariants_of_the_page(preset):
    # A resting position has no wall; a choose phase has two or more candidates and offers only
    # some of them; a game that is not over always has an action; steps alternate sides.
    rng = random.Random(20240607)
    for _ in range(6):
        state = FlowRef.preset(preset, max_turns=30)
        while not state.is_terminal():
            candidates = wall_candidates(state.pieces, state.width, state.height)
            actions = state.legal_actions()
            assert actions
            if state.choosing:
                assert len(candidates) >= 2
                assert {action - WASH_BASE for action in actions} <= set(candidates)
            else:
                assert candidates == []
                assert all(action < WASH_BASE for action in actions)
                if state.step == 2 and state.first is not None:
                    assert reference.colour_of(state.pieces[state.first]) == state.side
            child = state.apply(rng.choice(actions))
            if not child.is_terminal() and not child.choosing and child.step == 1:
                assert child.side != state.side and child.turns == state.turns + 1
            state = child
        assert state.legal_actions() == [] and state.result() in ("white", "black", "draw")
