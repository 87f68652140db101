"""Tests of the pure-Python Tolkuchka reference engine against the Tolkuchka rules in RULES.md."""

import os
import random

import pytest

from ludo_flow.tolkuchka.reference import (
    BLACK,
    WHITE,
    TolkRef,
    parse_square,
    singles,
    square_name,
)

STANDARD_STRING = "8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 0 0"

DIRECTION_INDEX = {"N": 0, "NE": 1, "E": 2, "SE": 3, "S": 4, "SW": 5, "W": 6, "NW": 7}


def squares(names: str) -> frozenset:
    """Return the square set named by a space-separated list such as 'a1 b2'."""
    return frozenset(parse_square(name) for name in names.split())


def action(tail: str, direction: str) -> int:
    """Return the action int of the row with this tail square moving in this direction."""
    return parse_square(tail) * 8 + DIRECTION_INDEX[direction]


def notations(state: TolkRef) -> list:
    """Return the notations of all legal moves of a position, sorted."""
    return sorted(state.action_to_string(a) for a in state.legal_actions())


def play(state: TolkRef, *moves: str) -> TolkRef:
    """Return the position after playing the given moves in notation."""
    for move in moves:
        state = state.apply(state.parse_action(move))
    return state


# --- setup, notation, position strings ----------------------------------------------------


def test_standard_setup_matches_page_string_and_diagram():
    state = TolkRef.standard()
    assert state.to_string() == STANDARD_STRING
    assert state.white == squares("d2 e2 f2 e3 d4 c5 b6 b4 a5")
    assert state.black == squares("c7 d7 e7 d6 e5 f4 g3 g5 h4")
    assert (state.side, state.ko, state.quiet, state.plies) == (WHITE, None, 0, 0)
    assert TolkRef.from_string(STANDARD_STRING) == state


def test_standard_setup_is_symmetric_under_half_turn():
    state = TolkRef.standard()
    assert frozenset(63 - s for s in state.white) == state.black


def test_action_encoding_and_notation():
    state = TolkRef.standard()
    b4_northeast = parse_square("b4") * 8 + 1
    assert b4_northeast == 25 * 8 + 1
    assert state.landing(b4_northeast) == parse_square("d6")
    assert state.action_to_string(b4_northeast) == "b4-d6"
    assert state.parse_action("b4-d6") == b4_northeast
    assert square_name(0) == "a1" and square_name(7) == "h1" and square_name(63) == "h8"


def test_position_string_round_trip_with_ko_and_counters():
    after = TolkRef.standard().apply(action("b4", "NE"))
    text = after.to_string()
    assert text == "5B2/2BBB3/1W1W4/W1W1B1B1/3W1B1B/4W1B1/3WWW2/8 b b4-d6 0 1"
    assert TolkRef.from_string(text) == after


@pytest.mark.parametrize(
    "bad",
    [
        "8/8/8/8/8/8/8/8 w - 0 0",  # nobody has checkers
        "8/8/8/8/8/8/3WW3/8 w - 0 0",  # Black has none
        "8/2BB4/8/8/8/8/3WW3/7W w - 0 0",  # h1 is single
        "8/2BB4/8/8/8/8/3WW3/8 w a1-b3 0 0",  # ko not along a line
        "8/2BB4/8/8/8/8/3WW3/8 x - 0 0",  # bad side to move
        "8/2BB4/8/8/8/8/3WW3/9 w - 0 0",  # rank 1 describes 9 squares
        "8/2BB4/8/8/8/8/3WW3 w - 0 0",  # only 7 ranks
        "8/2BB4/8/8/8/8/3WW3/8 w - 0",  # a field missing
    ],
)
def test_bad_position_strings_are_rejected(bad):
    with pytest.raises(ValueError):
        TolkRef.from_string(bad)


def test_from_position_rejects_singles_and_overlaps():
    with pytest.raises(ValueError):
        TolkRef.from_position(squares("a1 h8"), squares("d4 d5"))
    with pytest.raises(ValueError):
        TolkRef.from_position(squares("a1 a2"), squares("a2 a3"))


def test_illegal_action_raises_value_error():
    state = TolkRef.standard()
    with pytest.raises(ValueError):
        state.apply(action("b4", "SW"))  # b4 is a tail only towards NE
    with pytest.raises(ValueError):
        state.apply(action("c7", "E"))  # a Black row while White is to move
    with pytest.raises(ValueError):
        state.apply(9999)
    with pytest.raises(ValueError):
        state.apply("b4-d6")


def test_numpy_integer_actions_are_accepted():
    numpy = pytest.importorskip("numpy")
    state = TolkRef.standard()
    b4_northeast = numpy.int64(action("b4", "NE"))
    assert state.apply(b4_northeast) == state.apply(int(b4_northeast))
    assert state.action_to_string(b4_northeast) == "b4-d6"


# --- the page's worked examples -----------------------------------------------------------


def test_example_1_b4_d6_exact_result():
    after = TolkRef.standard().apply(action("b4", "NE"))
    assert after.white == squares("a5 b6 c5 d6 d4 e3 d2 e2 f2")
    assert after.black == squares("c7 d7 e7 f8 e5 f4 g3 g5 h4")
    assert after.side == BLACK
    assert after.ko == (parse_square("b4"), parse_square("d6"))
    assert (after.quiet, after.plies) == (0, 1)


def test_twelve_legal_first_moves():
    assert notations(TolkRef.standard()) == sorted(
        "a5-c3 a5-c7 b4-d6 b6-g1 c5-a3 d2-f4 d2-g2 e2-e4 e3-c1 e3-e1 f2-a7 f2-c2".split()
    )
    assert len(TolkRef.standard().legal_actions()) == 12


def test_blacks_five_replies_to_b4_d6():
    after = TolkRef.standard().apply(action("b4", "NE"))
    assert notations(after) == "c7-f7 e5-h2 g5-e3 h4-f2 h4-f6".split()
    assert after.legal_actions() == sorted(after.legal_actions())


def test_example_2_g3_d6_refused_by_rule_5_even_without_ko():
    after = TolkRef.standard().apply(action("b4", "NE"))
    g3_northwest = action("g3", "NW")
    assert after.action_to_string(g3_northwest) == "g3-d6"
    assert g3_northwest not in after.legal_actions()
    no_ko = TolkRef.from_position(after.white, after.black, side=BLACK, ko=None)
    assert g3_northwest not in no_ko.legal_actions()


def test_example_3_f8_d6_refused_by_ko_only():
    after = TolkRef.standard().apply(action("b4", "NE"))
    f8_southwest = action("f8", "SW")
    assert after.action_to_string(f8_southwest) == "f8-d6"
    assert f8_southwest not in after.legal_actions()
    no_ko = TolkRef.from_position(after.white, after.black, side=BLACK, ko=None)
    assert f8_southwest in no_ko.legal_actions()
    undone = no_ko.apply(f8_southwest)
    assert undone.white == TolkRef.standard().white  # d6 knocked back to b4
    assert undone.black == squares("c7 d7 d6 e7 e5 f4 g3 g5 h4")


def test_example_4_c5_e7_pushes_e7_off_and_removes_single_f8():
    after = TolkRef.standard().apply(action("b4", "NE"))
    white_again = TolkRef.from_position(after.white, after.black, side=WHITE)
    c5_northeast = action("c5", "NE")
    assert white_again.action_to_string(c5_northeast) == "c5-e7"
    result = white_again.apply(c5_northeast)
    assert result.white == squares("a5 b6 d6 e7 d4 e3 d2 e2 f2")
    assert result.black == squares("c7 d7 e5 f4 g3 g5 h4")


# --- perft --------------------------------------------------------------------------------


@pytest.mark.parametrize("depth, expected", [(0, 1), (1, 12), (2, 131), (3, 1201), (4, 10958)])
def test_perft_standard(depth, expected):
    assert TolkRef.standard().perft(depth) == expected


def test_perft_4_divide():
    expected = {
        "a5-c3": 1341, "a5-c7": 1180, "b4-d6": 306, "b6-g1": 837, "c5-a3": 858, "d2-f4": 385,
        "d2-g2": 926, "e2-e4": 1035, "e3-c1": 754, "e3-e1": 1063, "f2-a7": 1112, "f2-c2": 1161,
    }
    state = TolkRef.standard()
    divide = {state.action_to_string(a): state.apply(a).perft(3) for a in state.legal_actions()}
    assert divide == expected


@pytest.mark.slow
def test_perft_5_standard():
    assert TolkRef.standard().perft(5) == 97640


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("LUDO_SLOW") != "1", reason="about 90 s; set LUDO_SLOW=1")
def test_perft_6_standard():
    assert TolkRef.standard().perft(6) == 876241


# --- each rule on a small position --------------------------------------------------------


def test_move_into_empty_square_advances_the_row():
    state = TolkRef.from_position(squares("a1 b1"), squares("g7 h7"))
    result = state.apply(action("a1", "E"))
    assert result.white == squares("b1 c1")
    assert result.ko is None and result.quiet == 1 and result.plies == 1


def test_only_whole_maximal_rows_move():
    state = TolkRef.from_position(squares("a1 b1 c1 d1"), squares("g7 h7"))
    # b1 and c1 are inside the row of four, so no row has its tail there.
    assert action("b1", "E") not in state.legal_actions()
    assert action("c1", "W") not in state.legal_actions()
    assert notations(state) == ["a1-e1"]


def test_no_move_off_the_board():
    state = TolkRef.from_position(squares("a1 b1"), squares("g7 h7"))
    assert action("b1", "W") not in state.legal_actions()
    assert action("g7", "E") not in TolkRef.from_position(state.white, state.black, side=BLACK).legal_actions()


def test_knock_into_an_empty_square():
    state = TolkRef.from_position(squares("a1 b1"), squares("c1 c2"))
    result = state.apply(action("a1", "E"))
    assert result.white == squares("b1 c1")
    assert result.black == squares("c2 d1")
    assert result.ko == (parse_square("a1"), parse_square("c1"))
    assert result.quiet == 0


def test_knock_over_a_run_of_three():
    state = TolkRef.from_position(squares("a1 b1"), squares("c1 d1 e1"))
    result = state.apply(action("a1", "E"))
    assert result.white == squares("b1 c1")
    assert result.black == squares("d1 e1 f1")


def test_knock_off_the_board():
    state = TolkRef.from_position(squares("e1 f1"), squares("g1 h1 h2"))
    result = state.apply(action("e1", "E"))
    assert result.white == squares("f1 g1")
    assert result.black == squares("h1 h2")


def test_rule_5_bar_knocked_checker_would_land_on_own_checker():
    state = TolkRef.from_position(squares("a1 b1 e1 f1 g1 h1"), squares("c1 d1 c8 d8"))
    assert action("a1", "E") not in state.legal_actions()
    assert action("h1", "W") not in state.legal_actions()
    with pytest.raises(ValueError):
        state.apply(action("a1", "E"))


def test_several_enemy_singles_removed_at_once():
    # b1 links a2 and c2; knocking b1 off the board leaves both single.
    state = TolkRef.from_position(squares("b2 b3"), squares("a2 b1 c2 g7 h7"))
    result = state.apply(action("b3", "S"))
    assert result.white == squares("b1 b2")
    assert result.black == squares("g7 h7")


def test_move_refused_for_leaving_an_own_single():
    state = TolkRef.from_position(squares("a1 b1 c2"), squares("g7 h7"))
    # b1-c2 up-right would leave a1 alone.
    assert action("b1", "NE") not in state.legal_actions()
    assert notations(state) == ["a1-c1"]


def test_tail_jump_may_split_the_army_into_two_groups():
    state = TolkRef.from_position(squares("a3 b2 c1 d1"), squares("g7 h7"))
    result = state.apply(action("c1", "E"))
    assert result.white == squares("a3 b2 d1 e1")
    assert not singles(result.white)


def test_ko_barred_then_allowed_two_plies_later():
    state = TolkRef.from_position(squares("a1 b1 a8 b8"), squares("c1 d1 g8 h8"))
    state = state.apply(action("a1", "E"))  # knocks c1 to e1 along rank 1, eastward
    assert state.white == squares("b1 c1 a8 b8") and state.black == squares("d1 e1 g8 h8")
    knock_back = action("e1", "W")
    assert knock_back not in state.legal_actions()
    state = state.apply(action("h8", "W"))  # quiet Black move
    assert state.ko is None
    state = state.apply(action("a8", "E"))  # quiet White move
    assert knock_back in state.legal_actions()
    result = state.apply(knock_back)
    assert result.white == squares("a1 b1 b8 c8")
    assert result.black == squares("c1 d1 f8 g8")


def test_ko_does_not_apply_after_a_non_knocking_approach():
    state = TolkRef.from_position(squares("a1 b1"), squares("d1 e1"))
    state = state.apply(action("a1", "E"))  # b1-c1 now touches d1 but knocked nothing
    assert state.ko is None
    result = state.apply(action("e1", "W"))
    assert result.white == squares("a1 b1")
    assert result.black == squares("c1 d1")


def test_ko_allows_non_knocking_move_along_the_same_line():
    state = TolkRef.from_position(squares("c1 d1"), squares("a1 a2 b1 e1 f1 f2"))
    state = state.apply(action("d1", "W"))  # knocks b1 over a1 off the board, westward
    assert state.ko == (parse_square("d1"), parse_square("b1"))
    assert state.black == squares("a1 a2 e1 f1 f2")
    assert action("e1", "E") in state.legal_actions()  # e1-g1 eastward on rank 1, knocks nothing


def test_ko_allows_knocking_move_on_a_parallel_line():
    state = TolkRef.from_position(squares("a1 b1 a2 b2"), squares("c1 d1 c2 d2"))
    state = state.apply(action("a1", "E"))
    assert state.white == squares("b1 c1 a2 b2") and state.black == squares("d1 e1 c2 d2")
    assert action("e1", "W") not in state.legal_actions()  # same line, opposite way: ko
    assert action("d2", "W") in state.legal_actions()  # rank 2 is parallel: allowed
    result = state.apply(action("d2", "W"))
    assert result.white == squares("b1 c1 a2")
    assert result.black == squares("b2 c2 d1 e1")


def test_ko_allows_knocking_along_the_same_line_in_the_same_direction():
    state = TolkRef.from_position(squares("a1 b1 f1 g1"), squares("c1 d1"))
    state = state.apply(action("a1", "E"))  # knocks c1 over d1 to e1, eastward
    assert state.black == squares("d1 e1")
    assert action("e1", "W") not in state.legal_actions()  # back along rank 1: ko
    assert action("d1", "E") in state.legal_actions()  # onward along rank 1: allowed
    result = state.apply(action("d1", "E"))  # knocks f1 over g1 to h1
    assert result.white == squares("b1 c1 g1 h1")
    assert result.black == squares("e1 f1")


# --- end of the game ----------------------------------------------------------------------


def test_loss_when_no_checkers_left():
    state = TolkRef.from_position(squares("e1 f1"), squares("g1 h1"))
    result = state.apply(action("e1", "E"))  # g1 pushed off, h1 left single
    assert result.black == frozenset()
    assert result.result() == "white" and result.is_terminal() and result.returns() == 1.0
    assert result.legal_actions() == [] and result.perft(1) == 0


def test_loss_when_no_legal_move():
    board = (squares("a1 b1 e1 f1 g1 h1"), squares("c1 d1 c8 d8"))
    white_to_move = TolkRef.from_position(*board, side=WHITE)
    assert white_to_move.legal_actions() == []
    assert white_to_move.result() == "black" and white_to_move.returns() == -1.0
    assert TolkRef.from_position(*board, side=BLACK).result() == "ongoing"


def test_quiet_plies_draw_and_knock_resets_quiet_counter():
    state = TolkRef.from_position(squares("a1 b1"), squares("c1 c2 g7 h7"), quiet=49)
    knocked = state.apply(action("a1", "E"))
    assert knocked.quiet == 0 and knocked.result() == "ongoing"
    calm = TolkRef.from_position(squares("a1 b1"), squares("g7 h7"), quiet=49)
    drawn = calm.apply(action("a1", "E"))
    assert drawn.quiet == 50 and drawn.result() == "draw" and drawn.returns() == 0.0
    assert drawn.legal_actions() == []
    assert not TolkRef.from_position(squares("a1 b1"), squares("g7 h7"), quiet=9, quiet_plies=10).is_terminal()
    assert TolkRef.from_position(squares("a1 b1"), squares("g7 h7"), quiet=10, quiet_plies=10).is_terminal()


def test_max_plies_draw_even_after_a_knock():
    state = TolkRef.from_position(squares("a1 b1"), squares("c1 c2 g7 h7"), plies=399)
    result = state.apply(action("a1", "E"))
    assert result.quiet == 0 and result.plies == 400
    assert result.result() == "draw"
    short = TolkRef.from_position(squares("a1 b1"), squares("g7 h7"), max_plies=3)
    assert play(short, "a1-c1", "h7-f7", "b1-d1").result() == "draw"


def test_end_checks_in_page_order():
    # No checkers beats the draw limits.
    empty_side = TolkRef.from_position(squares("a1 b1"), frozenset(), side=BLACK, quiet=80)
    assert empty_side.result() == "white"
    # A draw limit beats having no legal move.
    stuck = TolkRef.from_position(squares("a1 b1 e1 f1 g1 h1"), squares("c1 d1 c8 d8"), quiet=50)
    assert stuck.result() == "draw"
    stuck = TolkRef.from_position(squares("a1 b1 e1 f1 g1 h1"), squares("c1 d1 c8 d8"), plies=400)
    assert stuck.result() == "draw"


# --- invariants over random games -------------------------------------------------------------


def transform_square(square: int, symmetry: int) -> int:
    """Return the image of a square under one of the 8 symmetries of the square board."""
    f, r = square % 8, square // 8
    for _ in range(symmetry % 4):
        f, r = r, 7 - f
    if symmetry >= 4:
        f = 7 - f
    return r * 8 + f


def transform_state(state: TolkRef, symmetry: int) -> TolkRef:
    """Return the position mapped by a board symmetry (the rules do not prefer any direction)."""
    ko = None if state.ko is None else tuple(transform_square(s, symmetry) for s in state.ko)
    return TolkRef.from_position(
        {transform_square(s, symmetry) for s in state.white},
        {transform_square(s, symmetry) for s in state.black},
        state.side, ko, state.quiet, state.plies, state.quiet_plies, state.max_plies,
    )


def random_positions(games: int, seed: int):
    """Yield the positions of random games from the standard setup."""
    rng = random.Random(seed)
    for _ in range(games):
        state = TolkRef.standard(max_plies=120)
        while True:
            yield state
            actions = state.legal_actions()
            if not actions:
                break
            state = state.apply(rng.choice(actions))


def test_random_games_keep_invariants():
    for state in random_positions(games=10, seed=7):
        assert not state.white & state.black
        assert not singles(state.white) and not singles(state.black)
        assert state.legal_actions() == sorted(set(state.legal_actions()))
        for move in state.legal_actions():
            child = state.apply(move)
            assert child.plies == state.plies + 1 and child.side == 1 - state.side
            knocked = (child.ko is not None)
            assert child.quiet == (0 if knocked else state.quiet + 1)
            own_before = state.white if state.side == WHITE else state.black
            own_after = child.white if state.side == WHITE else child.black
            assert own_after == (own_before - {move // 8}) | {state.landing(move)}
            if knocked:
                assert child.ko == (move // 8, state.landing(move))


def test_rules_commute_with_board_symmetries():
    checked = 0
    for index, state in enumerate(random_positions(games=4, seed=11)):
        if index % 5:
            continue
        original = notations(state)
        for symmetry in range(1, 8):
            image = transform_state(state, symmetry)
            mapped = sorted(
                f"{square_name(transform_square(parse_square(m[:2]), symmetry))}-"
                f"{square_name(transform_square(parse_square(m[3:]), symmetry))}"
                for m in original
            )
            assert notations(image) == mapped
            assert image.result() == state.result()
        checked += 1
    assert checked > 5
