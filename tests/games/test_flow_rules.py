"""Every Flow rule of the rule page on a concrete position, through the public State API."""
import numpy as np
import pytest

import ludo_flow
from ludo_flow.flow import kernels as K
from ludo_flow.render import parse_square


def position(text, **params):
    return ludo_flow.load_game("flow", **params).from_string(text)


def play(state, *moves):
    for m in moves:
        state.apply(state.parse_action(m))
    return state


def names(state):
    return sorted(state.action_to_string(a) for a in state.legal_actions())


def pieces(state):
    from ludo_flow.render import square_name
    return {square_name(sq): p for sq, p in state.pieces().items()}


def occupancy(*squares):
    return np.uint64(sum(1 << parse_square(s) for s in squares))


def candidates(width, height, *squares):
    mask = np.uint64(K.board_mask(width, height))
    from ludo_flow.render import square_name
    board = int(K.wash_candidates(occupancy(*squares), width, mask))
    return sorted(square_name(q) for q in range(64) if board >> q & 1)


# --- walls and candidates -------------------------------------------------------------------

@pytest.mark.parametrize("run, expected", [
    (["c4", "d4", "e4"], ["d4"]),                          # 3 in the middle: 1
    (["c4", "d4", "e4", "f4"], ["d4", "e4"]),              # 4 in the middle: 2
    (["b4", "c4", "d4", "e4", "f4"], ["c4", "d4", "e4"]),  # 5 in the middle: 3
    (["a4", "b4"], ["a4"]),                                # 2 at the left edge: 1
    (["g4", "h4"], ["h4"]),                                # 2 at the right edge: 1
    (["a4", "b4", "c4"], ["a4", "b4"]),                    # 3 at an edge: 2
    (["e4", "f4", "g4", "h4"], ["f4", "g4", "h4"]),        # 4 at an edge: 3
    (["c4", "d4"], []),                                    # 2 in the middle: no wall
    (["a4", "c4", "e4", "g4"], []),                        # gaps: no wall
    ([f"{f}4" for f in "abcdefgh"], [f"{f}4" for f in "abcdefgh"]),  # the whole rank
])
def test_wall_candidates_on_8x8(run, expected):
    assert candidates(8, 8, *run) == expected


def test_wall_edges_follow_a_narrow_board():
    # On a 5-file board e is the right edge; on 8 files it is not.
    assert candidates(5, 5, "d2", "e2") == ["e2"]
    assert candidates(8, 8, "d2", "e2") == []
    assert candidates(5, 5, "a1", "b1", "c1", "d1", "e1") == ["a1", "b1", "c1", "d1", "e1"]


def test_two_walls_form_one_candidate_set_and_the_stepper_chooses():
    s = play(position("8/1R6/7p/8/P1PP4/1P6/P7/8 w 1 - 0"), "b7-b4")
    assert names(s) == ["~a4", "~b4", "~c4"]          # four at the edge: three candidates
    play(s, "~a4")                                      # a4 floats to a3 (stops before a2)
    # now two walls at once: a3 b3 at the edge and b4 c4 d4 in the middle
    assert s.choosing and s.current_player() == 0
    assert names(s) == ["~a3", "~c4"]


def test_choose_phase_lists_every_candidate_and_keeps_the_player():
    s = play(position("1r1n1n1r/p1p1p1p1/1p1p1p1p/8/8/P1P1P1P1/1P1P1P1P/R1N1N1R1 w 1 - 0"), "b2-b3")
    assert s.choosing and s.current_player() == 0
    assert names(s) == ["~a3", "~b3"]
    with pytest.raises(ValueError):
        s.to_string()


# --- washing ----------------------------------------------------------------------------------

def test_float_stops_before_a_piece():
    s = play(position("8/8/8/2pP1R2/8/8/3P4/8 w 1 - 0"), "f5-e5")
    assert pieces(s) == {"c5": "p", "e5": "R", "d3": "P", "d2": "P"}


def test_float_falls_off_when_nothing_is_in_the_way():
    s = play(position("8/8/8/2pP1R2/8/8/8/8 w 1 - 0"), "f5-e5")
    assert pieces(s) == {"c5": "p", "e5": "R"}


def test_black_floats_towards_the_top_edge():
    s = play(position("8/8/8/2Pp1r2/8/8/8/4P3 b 1 - 0"), "f5-e5")
    assert pieces(s) == {"c5": "P", "e5": "r", "e1": "P"}   # d5 floated up and off


def test_piece_on_its_home_edge_falls_at_once():
    s = play(position("8/8/4p3/8/8/3R4/8/2P1P3 w 1 - 0"), "d3-d1")
    assert pieces(s) == {"c1": "P", "e1": "P", "e6": "p"}   # d1 was the middle: off the board


def test_column_push_of_two_colours():
    s = play(position("8/8/8/2pP1R2/3p4/3P4/8/8 w 1 - 0"), "f5-e5")
    assert pieces(s) == {"c5": "p", "e5": "R", "d4": "P", "d3": "p", "d2": "P"}


def test_column_push_of_one_colour():
    s = play(position("8/8/8/2pP1R2/3P4/8/8/8 w 1 - 0"), "f5-e5")
    assert pieces(s) == {"c5": "p", "e5": "R", "d4": "P", "d3": "P"}


def test_column_push_throws_the_last_piece_off_the_edge():
    s = play(position("8/8/8/2pP1R2/3p4/3P4/3p4/3R4 w 1 - 0"), "f5-e5")
    assert pieces(s) == {"c5": "p", "e5": "R", "d4": "P", "d3": "p", "d2": "P", "d1": "p"}


def test_cascade_of_three_washes():
    # b5-b6 makes a6 b6 (edge wall): a6 floats to a4; a4 b4 (edge wall): a4 pushes the column
    # a4 a3 to a3 a2; a2 b2 (edge wall): a2 floats off the board.
    s = play(position("8/P7/P7/1P6/1p1P1P2/P7/1p6/8 w 1 - 0"), "b5-b6")
    assert pieces(s) == {"a7": "P", "b6": "P", "b4": "p", "d4": "P", "f4": "P", "a3": "P", "b2": "p"}
    assert s.step == 2 and not s.choosing


# --- the loop rule ----------------------------------------------------------------------------

def test_the_pages_loop_example_makes_the_step_illegal():
    s = position("8/8/8/8/1PP4R/2p5/1P1P4/8 w 1 - 0")
    legal = names(s)
    assert "h4-d4" not in legal        # washing c4 and then c2 brings back the same arrangement
    assert "h4-e4" in legal and "h4-g4" in legal
    with pytest.raises(ValueError):
        s.parse_action("h4-d4")
    # A search's candidate list still holds it; confirming it is what finds the loop.
    buf = np.empty(K.MAX_ACTIONS, dtype=np.int32)
    h4_d4 = parse_square("h4") * 64 + parse_square("d4")
    assert h4_d4 in buf[:K.candidate_actions(s.array, buf)]
    assert not K.is_legal_candidate(s.array, h4_d4)
    assert K.is_legal_candidate(s.array, parse_square("h4") * 64 + parse_square("e4"))


def test_a_wash_choice_that_loops_is_illegal_and_the_lone_legal_wash_remains():
    s = play(position("8/8/3R4/8/1PP1P3/2p5/1P1P4/8 w 1 - 0"), "d6-d4")
    assert s.choosing and sorted(s.action_to_string(K.WASH_BASE + q) for q in s.wash_candidates()) == ["~c4", "~d4"]
    assert names(s) == ["~d4"]         # ~c4 loops: c4 c3 down, then c2 c3 up again
    play(s, "~d4")                     # the rook floats to d3 and stops before d2
    assert pieces(s) == {"b4": "P", "c4": "P", "e4": "P", "c3": "p", "d3": "R", "b2": "P", "d2": "P"}


def test_cascade_cap_counts_as_a_loop():
    assert K.MAX_WASHES == 32


# --- the two steps of a turn -----------------------------------------------------------------

def test_first_moved_piece_carried_by_the_current_is_still_barred():
    s = play(position("8/8/8/2p1p3/3P4/8/3P4/8 w 1 - 0"), "d4-d5")
    assert pieces(s)["d3"] == "P" and s.first_moved == parse_square("d3")
    assert not [a for a in s.legal_actions() if a >> 6 == parse_square("d3")]
    assert s.to_string().split()[1:] == ["w", "2", "d3", "0"]


def test_another_piece_carried_by_the_current_may_still_step():
    s = play(position("8/8/8/2pP1R2/8/8/3P4/8 w 1 - 0"), "f5-e5")
    legal = names(s)
    assert "d3-d4" in legal                   # carried from d5 to d3, it has not spent its move
    assert not [m for m in legal if m.startswith("e5")]


def test_first_moved_piece_that_fell_off_frees_every_piece():
    s = play(position("8/8/8/2p1p3/3P4/8/8/6P1 w 1 - 0"), "d4-d5")
    assert s.step == 2 and s.first_moved is None and "g1-g2" in names(s)


def test_turn_ends_after_the_first_step_when_no_second_exists():
    s = play(position("8/4p3/8/8/3P4/8/8/8 w 1 - 0"), "d4-d5")
    assert s.current_player() == 1 and s.step == 1 and s.turns == 1


def test_second_step_must_use_another_piece():
    s = play(position("8/4p3/8/8/3P4/8/8/P7 w 1 - 0"), "d4-d5")
    assert s.step == 2 and all(m.startswith("a1") for m in names(s))


# --- one order of a quiet turn (what a search may drop) ---------------------------------------

def _dropped(before, action):
    """Return the names of the second steps after `action` that drop_transposed_steps drops."""
    after = before.child(action)
    legal = after.legal_actions()
    buf = np.zeros(K.MAX_ACTIONS, dtype=np.int32)
    buf[:len(legal)] = legal
    kept = K.drop_transposed_steps(before.array, after.array, action, buf, len(legal))
    assert list(buf[:kept]) == [a for a in legal if a in set(buf[:kept].tolist())]  # in order
    return sorted(after.action_to_string(a) for a in set(legal) - set(buf[:kept].tolist()))


def test_a_quiet_turn_is_kept_in_the_order_of_its_lower_first_step():
    start = ludo_flow.load_game("flow").new_initial_state()
    e3e4, c3c4 = start.parse_action("e3-e4"), start.parse_action("c3-c4")
    assert c3c4 < e3e4
    after_e3e4 = _dropped(start, e3e4)
    assert "c3-c4" in after_e3e4           # start, c3-c4, e3-e4 is the same turn
    assert "c3-c4" not in _dropped(start, c3c4) and "e3-e4" not in _dropped(start, c3c4)
    assert play(start.clone(), "c3-c4", "e3-e4").to_string() == play(start.clone(), "e3-e4", "c3-c4").to_string()
    # Landing on the first step's origin: illegal in the other order, so kept.
    assert "e1-e3" in names(start.child(e3e4)) and "e1-e3" not in after_e3e4
    # Nothing of a higher id than the first step is dropped.
    assert all(start.parse_action(m) < e3e4 for m in after_e3e4)


def test_steps_that_make_a_wall_in_either_order_are_kept():
    # After e2-e3, the rook's b2-b5 lands between a5 and c5 and makes a wall at the edge: kept.
    # Its b2-b4 is quiet in either order: dropped.
    s = position("8/8/8/p1p5/8/8/1R2P3/8 w 1 - 0")
    dropped = _dropped(s, s.parse_action("e2-e3"))
    assert "b2-b5" in names(s.child(s.parse_action("e2-e3")))
    assert "b2-b5" not in dropped and "b2-b4" in dropped


def test_a_first_step_that_started_a_current_drops_nothing():
    # d4-d5 makes the wall c5 d5 e5, whose middle (d5) is washed back to d3.
    # a1-a2 would be dropped after a quiet first step.
    s = position("8/8/8/2p1p3/3P4/8/3P4/P7 w 1 - 0")
    d4d5 = s.parse_action("d4-d5")
    assert pieces(s.child(d4d5))["d3"] == "P" and "a1-a2" in names(s.child(d4d5))
    assert _dropped(s, d4d5) == []
    assert "a1-a2" in _dropped(s, s.parse_action("d2-e2"))


def test_dropped_second_steps_reach_the_position_of_the_other_order():
    # Over seeded random games of every setup: each dropped second step c after a first step
    # a is a legal first step whose second step a reaches the same state (every field), and
    # a, of the higher id, is not dropped after c; at the root of a search nothing is dropped
    # (there the first step is played), and the call drops nothing but second steps.
    import random
    dropped_any = 0
    for variant in ("standard", "stones", "fountain"):
        game = ludo_flow.load_game("flow", variant)
        for seed in range(5):
            rng = random.Random(seed)
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.step == 1 and s.array[K.PHASE] == K.PHASE_STEP:
                    for a in s.legal_actions():
                        after = s.child(a)
                        if after.is_terminal() or after.current_player() != s.current_player():
                            continue
                        for name in _dropped(s, a):
                            c = after.parse_action(name)
                            assert c < a
                            other = s.child(c)
                            assert not other.is_terminal() and a in other.legal_actions()
                            assert np.array_equal(other.child(a).array[:K.HIST],
                                                  after.child(c).array[:K.HIST])
                            dropped_any += 1
                elif s.step == 2 and s.array[K.PHASE] == K.PHASE_STEP:
                    legal = s.legal_actions()
                    buf = np.zeros(K.MAX_ACTIONS, dtype=np.int32)
                    buf[:len(legal)] = legal
                    # `before` at step 2 is no turn's start: nothing is dropped
                    assert K.drop_transposed_steps(s.array, s.array, legal[0], buf, len(legal)) == len(legal)
                s.apply(rng.choice(s.legal_actions()))
    assert dropped_any > 1000


# --- winning, losing, drawing ----------------------------------------------------------------

def test_mover_wins_on_reaching_the_far_edge():
    s = play(position("8/3P4/8/4p3/8/8/8/8 w 1 - 0"), "d7-d8")
    assert s.is_terminal() and s.returns() == [1.0, -1.0] and s.result_string() == "1-0"
    assert s.legal_actions() == []


def test_game_ends_even_after_the_first_step():
    s = play(position("8/3P4/8/4p3/8/8/8/R7 w 1 - 0"), "d7-d8")
    assert s.is_terminal()


def test_opponent_wins_when_a_push_carries_their_piece_to_their_far_edge():
    s = play(position("8/8/8/4p3/8/2PP3R/3p4/8 w 1 - 0"), "h3-e3")
    assert pieces(s)["d1"] == "p"
    assert s.is_terminal() and s.result_string() == "0-1"


def test_loss_with_no_first_step():
    s = position("8/8/8/3p4/8/8/8/8 w 1 - 0")
    assert s.legal_actions() == [] and s.is_terminal() and s.result_string() == "0-1"


def test_draw_at_max_turns():
    s = ludo_flow.load_game("flow", "fountain", max_turns=1).new_initial_state()
    play(s, "a2-b2", "c1-d1")
    assert s.turns == 1 and s.is_terminal() and s.result_string() == "1/2-1/2"
    assert s.returns() == [0.0, 0.0]


def test_draw_is_checked_before_the_loss_without_a_first_step():
    s = position("8/8/8/3p4/8/8/8/8 w 1 - 5", max_turns=5)
    assert s.is_terminal() and s.result_string() == "1/2-1/2"


def test_child_outcome_meets_every_ending_as_apply_does():
    # dispatch.child_outcome scores a child without writing it when its step makes no wall:
    # held to apply + result + evaluation over every child of seeded random games short enough
    # (max_turns=12) to meet each way a game ends, the rare ones included.
    from ludo_flow import dispatch
    import random
    game_id = ludo_flow.load_game("flow").game_id
    scratch = np.empty(K.STATE_SIZE, dtype=np.uint64)
    endings = set()
    for variant in ("standard", "stones", "fountain"):
        game = ludo_flow.load_game("flow", variant, max_turns=12)
        for seed in range(60):
            rng = random.Random(seed)
            s = game.new_initial_state()
            while not s.is_terminal():
                for a in s.legal_actions():
                    child = s.child(a).array
                    code = int(K.result(child))
                    endings.add(int(K.termination(child)))
                    for evaluation, kernel in ((dispatch.HAND, K.evaluate),
                                               (dispatch.TUNED, K.evaluate_tuned)):
                        value = {K.WHITE_WINS: 1.0, K.BLACK_WINS: -1.0}.get(code)
                        expected = (code, kernel(child) if value is None else value)
                        got = dispatch.child_outcome(game_id, s.array, a, evaluation, scratch)
                        assert (int(got[0]), float(got[1])) == expected, (s.to_string(), a)
                s.apply(rng.choice(s.legal_actions()))
    assert endings == {K.NOT_OVER, K.FAR_EDGE, K.OPPONENT_FAR_EDGE, K.NO_FIRST_STEP, K.TURN_LIMIT}
