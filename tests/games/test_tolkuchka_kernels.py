"""The Tolkuchka numba kernels against RULES.md ("Tolkuchka"): worked examples, perft, rule cases,
and a differential run against the pure-Python reference engine. What every game's kernels must do
(apply in place, bounded evaluation, seeded playouts that leave the state alone) is in
tests/test_contract.py."""
import math
import random

import numpy as np
import pytest
from numba import njit

from ludo_flow.rng import new_rng
from ludo_flow.tolkuchka import kernels as K
from ludo_flow.tolkuchka.reference import TolkRef

FILES = "abcdefgh"
RESULT_NAMES = {K.ONGOING: "ongoing", K.WHITE_WINS: "white", K.BLACK_WINS: "black", K.DRAW: "draw"}
STANDARD_STRING = "8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 0 0"


def sq(name):
    """Return the square index of a name like 'b4'."""
    return (int(name[1]) - 1) * 8 + FILES.index(name[0])


def name(square):
    """Return the name of a square index."""
    return FILES[square % 8] + str(square // 8 + 1)


def board(names):
    """Return the uint64 board with the named squares (space-separated) set."""
    b = 0
    for n in names.split():
        b |= 1 << sq(n)
    return np.uint64(b)


def names(b):
    """Return the sorted square names set in a board."""
    return sorted(name(s) for s in range(64) if int(b) >> s & 1)


def position(text, quiet_plies=50, max_plies=400):
    """Return the kernel state of a page-format position string."""
    placement, side, ko, quiet, plies = text.split()
    s = K.new_state(quiet_plies, max_plies)
    for row, rank_text in enumerate(placement.split("/")):
        f = 0
        for ch in rank_text:
            if ch.isdigit():
                f += int(ch)
                continue
            s[K.WHITE if ch == "W" else K.BLACK] |= np.uint64(1 << ((7 - row) * 8 + f))
            f += 1
    s[K.SIDE] = 0 if side == "w" else 1
    if ko != "-":
        tail, landing = ko.split("-")
        s[K.KO] = K.ko_word(sq(tail), sq(landing))
    s[K.QUIET] = int(quiet)
    s[K.PLIES] = int(plies)
    return s


def legal(state):
    """Return the sorted legal actions of a state."""
    buf = np.empty(K.MAX_ACTIONS, dtype=np.int32)
    n = K.legal_actions(state, buf)
    return sorted(int(a) for a in buf[:n])


def notation(state, action):
    """Return the page notation 'tail-landing' of an action."""
    return name(action >> 3) + "-" + name(int(K.landing_square(state, action)))


def legal_notations(state):
    """Return the sorted notations of the legal moves."""
    return sorted(notation(state, a) for a in legal(state))


def action_of(state, text):
    """Return the legal action written `text`; fail the test if there is none."""
    found = [a for a in legal(state) if notation(state, a) == text]
    assert len(found) == 1, f"{text} is not legal here: {legal_notations(state)}"
    return found[0]


def play(state, *moves):
    """Return a new state after the moves written in notation (each must be legal)."""
    s = state.copy()
    for text in moves:
        K.apply(s, action_of(s, text), s)
    return s


def move_action(tail, direction):
    """Return the action of the row with this tail (a name) moving in `direction` (index)."""
    return sq(tail) * 8 + direction


START = K.standard_state(50, 400)


# --- the page's standard setup and worked examples ---------------------------------------

def test_standard_setup_matches_the_page():
    assert names(START[K.WHITE]) == sorted("d2 e2 f2 e3 d4 c5 b6 b4 a5".split())
    assert names(START[K.BLACK]) == sorted("c7 d7 e7 d6 e5 f4 g3 g5 h4".split())
    assert np.array_equal(START, position(STANDARD_STRING))
    assert K.current_player(START) == 0
    assert K.result(START) == K.ONGOING


def test_the_twelve_first_moves_and_their_perft4_subtrees():
    divide = {
        "a5-c3": 1341, "a5-c7": 1180, "b4-d6": 306, "b6-g1": 837, "c5-a3": 858, "d2-f4": 385,
        "d2-g2": 926, "e2-e4": 1035, "e3-c1": 754, "e3-e1": 1063, "f2-a7": 1112, "f2-c2": 1161}
    assert legal_notations(START) == sorted(divide)
    child = np.empty_like(START)
    for action in legal(START):
        K.apply(START, action, child)
        assert K.perft(child, 3) == divide[notation(START, action)]


@pytest.mark.parametrize("depth,count", [(0, 1), (1, 12), (2, 131), (3, 1201), (4, 10958),
                                         (5, 97640), (6, 876241)])
def test_perft_from_the_standard_setup(depth, count):
    assert K.perft(START, depth) == count


def test_example_1_b4_d6_knocks_d6_to_f8():
    action = action_of(START, "b4-d6")
    assert action == move_action("b4", K.NE)
    assert K.is_knock(START, action)
    s = play(START, "b4-d6")
    assert names(s[K.WHITE]) == sorted("a5 b6 c5 d6 d4 e3 d2 e2 f2".split())
    assert names(s[K.BLACK]) == sorted("c7 d7 e7 f8 e5 f4 g3 g5 h4".split())
    assert np.array_equal(s, position("5B2/2BBB3/1W1W4/W1W1B1B1/3W1B1B/4W1B1/3WWW2/8 b b4-d6 0 1"))


def test_black_has_five_replies_after_b4_d6():
    s = play(START, "b4-d6")
    assert legal_notations(s) == ["c7-f7", "e5-h2", "g5-e3", "h4-f2", "h4-f6"]
    # g5-e3 and h4-f2 knock along diagonals parallel to White's knock: the ko allows them
    for text in ("g5-e3", "h4-f2"):
        a = action_of(s, text)
        assert a & 7 == K.SW and K.is_knock(s, a)


def test_example_2_rule_5_bars_g3_d6():
    s = play(START, "b4-d6")
    a = move_action("g3", K.NW)
    assert notation(s, a) == "g3-d6"  # the row g3-f4-e5 would knock d6 onto Black's own c7
    assert K.is_knock(s, a)
    assert a not in legal(s)
    s[K.KO] = K.NO_KO  # barred by the knock rule itself, not by the ko
    assert a not in legal(s)


def test_example_3_ko_bars_f8_d6_for_one_ply():
    s = play(START, "b4-d6")
    a = move_action("f8", K.SW)
    assert notation(s, a) == "f8-d6" and K.is_knock(s, a)
    assert a not in legal(s)
    s[K.KO] = K.NO_KO
    assert a in legal(s)


def test_example_4_c5_e7_pushes_e7_off_and_f8_goes_single():
    s = play(START, "b4-d6")
    s[K.SIDE] = 0  # "had White another move in the same direction"
    s[K.KO] = K.NO_KO
    after = play(s, "c5-e7")
    assert names(after[K.WHITE]) == sorted("a5 b6 d6 e7 d4 e3 d2 e2 f2".split())
    assert names(after[K.BLACK]) == sorted("c7 d7 e5 f4 g3 g5 h4".split())
    assert K.landing_square(s, move_action("c5", K.NE)) == sq("e7")


# --- rule positions ----------------------------------------------------------------------

def test_knock_into_an_empty_square():
    s = position("8/6BB/8/8/8/8/2B5/WWB5 w - 7 7")
    after = play(s, "a1-c1")  # c1 jumps over nothing (c2 is on another line) to d1
    assert names(after[K.WHITE]) == ["b1", "c1"]
    assert names(after[K.BLACK]) == sorted("c2 d1 g7 h7".split())
    assert after[K.QUIET] == 0 and after[K.PLIES] == 8
    assert after[K.KO] == K.ko_word(sq("a1"), sq("c1"))


def test_knock_over_a_run_of_three():
    s = position("8/6BB/8/8/8/8/8/WWBBB3 w - 0 0")
    after = play(s, "a1-c1")
    assert names(after[K.BLACK]) == sorted("d1 e1 f1 g7 h7".split())
    assert names(after[K.WHITE]) == ["b1", "c1"]


def test_knock_off_the_board():
    s = position("8/6BB/8/8/8/8/8/WWWBBBBB w - 0 0")
    after = play(s, "a1-d1")
    assert names(after[K.WHITE]) == ["b1", "c1", "d1"]
    assert names(after[K.BLACK]) == sorted("e1 f1 g1 h1 g7 h7".split())


def test_one_knock_removes_several_singles():
    s = position("8/8/6BB/8/8/3W4/3W4/2BBB3 w - 0 0")
    after = play(s, "d3-d1")  # d1 falls off; c1 and e1 are left single and go too
    assert names(after[K.WHITE]) == ["d1", "d2"]
    assert names(after[K.BLACK]) == ["g6", "h6"]


def test_a_move_that_leaves_an_own_single_is_refused():
    s = position("6BB/8/8/8/8/8/W7/1WW5 w - 0 0")
    bad = move_action("b1", K.E)  # a2's only neighbour is b1
    assert notation(s, bad) == "b1-d1"
    assert bad not in legal(s)
    without_hanger = position("6BB/8/8/8/8/8/8/1WW5 w - 0 0")
    assert bad in legal(without_hanger)


def test_the_army_may_split_into_groups():
    s = position("6BB/8/8/8/W7/W7/1WWW4/8 w - 0 0")
    after = play(s, "b2-e2")  # {a3, a4} and {c2, d2, e2} part ways
    assert names(after[K.WHITE]) == sorted("a3 a4 c2 d2 e2".split())


def test_ko_bars_the_knock_back_then_allows_it_two_plies_later():
    s = position("WW6/6BB/8/8/WWWB4/8/8/8 w - 0 0")
    s[K.BLACK] |= board("e4")
    s = play(s, "a4-d4")  # d4 jumps over e4 to f4
    assert names(s[K.BLACK]) == sorted("e4 f4 g7 h7".split())
    knock_back = move_action("f4", K.W)
    assert notation(s, knock_back) == "f4-d4" and K.is_knock(s, knock_back)
    assert knock_back not in legal(s)
    assert move_action("e4", K.E) in legal(s)  # the same row may still go the other way
    s = play(s, "h7-f7", "a8-c8")  # two quiet plies
    assert s[K.KO] == K.NO_KO
    assert knock_back in legal(s)
    after = play(s, "f4-d4")  # d4 jumps over c4 and b4 to a4
    assert names(after[K.WHITE]) == sorted("a4 b4 c4 b8 c8".split())


def test_no_ko_after_a_move_that_knocked_nothing():
    s = position("6BB/8/8/8/WW1BB3/8/8/8 w - 0 0")
    s = play(s, "a4-c4")
    assert s[K.KO] == K.NO_KO and s[K.QUIET] == 1
    assert "e4-c4" in legal_notations(s)


def test_ko_bars_only_the_same_line_not_a_parallel_one():
    s = position("6BB/8/8/8/WWWB4/WWWB4/8/8 w - 0 0")
    s[K.BLACK] |= board("e4 e3")
    s = play(s, "a4-d4")  # knocks d4 to f4 along rank 4
    assert "f4-d4" not in legal_notations(s)  # back along rank 4: ko
    assert "e3-c3" in legal_notations(s)  # the same direction on rank 3 is another line


# --- end of the game ---------------------------------------------------------------------

def test_no_checkers_is_a_loss_and_outranks_the_draw_limits():
    s = position("8/8/8/8/8/3W4/3W4/2BBB3 w - 0 0", quiet_plies=5, max_plies=1)
    after = play(s, "d3-d1")
    assert after[K.BLACK] == 0
    assert K.result(after) == K.WHITE_WINS  # max_plies is reached too, but no checkers comes first
    assert K.returns(after) == 1.0 and K.is_terminal(after)
    assert legal(after) == []


def test_no_legal_move_is_a_loss():
    s = position("B7/B7/W7/W7/W7/W7/B7/B7 b - 0 0")
    assert legal(s) == []
    assert K.result(s) == K.WHITE_WINS and K.returns(s) == 1.0
    assert K.result(position("B7/B7/W7/W7/W7/W7/B7/B7 w - 0 0")) == K.ONGOING


def test_draw_after_quiet_plies_without_a_knock():
    s = position("6BB/8/8/8/8/8/8/WW6 w - 0 0", quiet_plies=3)
    s = play(s, "a1-c1", "h8-f8")
    assert K.result(s) == K.ONGOING and s[K.QUIET] == 2
    s = play(s, "b1-d1")
    assert s[K.QUIET] == 3
    assert K.result(s) == K.DRAW and K.returns(s) == 0.0 and legal(s) == []
    # a knock resets the count
    k = position("6BB/8/8/8/8/8/8/WWBB4 w - 2 9", quiet_plies=3)
    k = play(k, "a1-c1")
    assert k[K.QUIET] == 0 and K.result(k) == K.ONGOING


def test_draw_at_max_plies_and_it_outranks_no_legal_move():
    s = position("6BB/8/8/8/8/8/8/WW6 w - 0 8", max_plies=9)
    assert K.result(s) == K.ONGOING
    s = play(s, "a1-c1")
    assert K.result(s) == K.DRAW and legal(s) == []
    stuck = position("B7/B7/W7/W7/W7/W7/B7/B7 b - 50 0")
    assert K.result(stuck) == K.DRAW


# --- kernel contracts --------------------------------------------------------------------

def test_hash_key_follows_what_decides_the_game():
    s = play(START, "b4-d6")
    key = K.hash_key(s)
    assert K.hash_key(s.copy()) == key
    for slot in (K.WHITE, K.BLACK, K.SIDE, K.QUIET, K.PLIES):
        t = s.copy()
        t[slot] ^= np.uint64(1)
        assert K.hash_key(t) != key
    t = s.copy()
    t[K.KO] = K.NO_KO
    assert K.hash_key(t) != key
    t[K.KO] = K.ko_word(sq("a3"), sq("c5"))  # another knock along the same line and direction
    assert K.hash_key(t) == key
    t[K.KO] = K.ko_word(sq("a4"), sq("c6"))  # a parallel line
    assert K.hash_key(t) != key


def _evaluation_by_hand(s):
    """Return evaluate's documented value, counted square by square in Python."""
    steps = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]

    def on(f, r):
        return 0 <= f < 8 and 0 <= r < 8

    def terms(own):
        squares = {(q % 8, q // 8) for q in range(64) if int(own) >> q & 1}
        # a row's head in direction (df, dr): own, with an own checker behind and none ahead
        fronts = sum(1 for f, r in squares for df, dr in steps
                     if (f - df, r - dr) in squares and (f + df, r + dr) not in squares
                     and on(f + df, r + dr))
        edge = sum(1 for f, r in squares if f in (0, 7) or r in (0, 7))
        return len(squares), fronts, edge

    (wm, wf, we), (bm, bf, be) = terms(s[K.WHITE]), terms(s[K.BLACK])
    x = (wm - bm) + 0.1 * (wf - bf) - 0.1 * (we - be)
    return min(max(math.tanh(x / 4), -K.EVALUATION_BOUND), K.EVALUATION_BOUND)


def test_evaluate_is_the_documented_formula_on_random_games():
    rng = random.Random(11)
    s = START.copy()
    for _ in range(2000):
        assert K.evaluate(s) == pytest.approx(_evaluation_by_hand(s), abs=1e-12)
        actions = legal(s)
        if not actions:
            s = START.copy()
            continue
        K.apply(s, rng.choice(actions), s)
    crushing = position("6BB/8/8/WWWWWWWW/WWWWWWWW/WWWWWWWW/WWWWWWWW/WWWWWWWW w - 0 0")
    assert K.evaluate(crushing) == pytest.approx(_evaluation_by_hand(crushing), abs=1e-12)
    huge = np.array(crushing)  # past the table's end: the clip
    huge[K.WHITE] = ~np.uint64(0) ^ np.uint64(1 << 63)
    huge[K.BLACK] = np.uint64(1 << 63)
    assert K.evaluate(huge) == K.EVALUATION_BOUND
    huge[K.WHITE], huge[K.BLACK] = huge[K.BLACK], huge[K.WHITE]
    assert K.evaluate(huge) == -K.EVALUATION_BOUND


def test_evaluate_is_symmetric_and_counts_material():
    assert K.evaluate(START) == 0.0  # the setup is symmetric under a half turn
    s = position("8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 0 0")
    s[K.BLACK] &= ~board("c7")
    assert K.evaluate(s) > 0.0
    crushing = position("6BB/8/8/WWWWWWWW/WWWWWWWW/WWWWWWWW/WWWWWWWW/WWWWWWWW w - 0 0")
    assert 0.99 < K.evaluate(crushing) < 1.0


def test_playouts_end_in_every_result_within_max_plies():
    rng = new_rng(11)
    outcomes = set()
    for _ in range(200):
        value, plies = K.playout_with_length(START, rng)
        assert 0 < plies <= 400
        outcomes.add(value)
    assert outcomes == {-1.0, 0.0, 1.0}


def test_has_legal_action_agrees_with_legal_actions():
    rng = random.Random(8)
    s = START.copy()
    for _ in range(300):
        actions = legal(s)
        unlimited = s.copy()  # has_legal_action ignores the draw limits
        unlimited[K.QUIET] = 0
        unlimited[K.PLIES] = 0
        assert K.has_legal_action(s) == bool(legal(unlimited))
        if not actions:
            s = START.copy()
            continue
        K.apply(s, rng.choice(actions), s)


@njit(cache=True)
def _single_action_mismatches(state, buf):
    """Return how many of the 512 action ids is_legal_action judges unlike legal_actions."""
    n = K.legal_actions(state, buf)
    listed = np.zeros(K.MAX_ACTIONS, dtype=np.bool_)
    for i in range(n):
        listed[buf[i]] = True
    bad = 0
    for a in range(K.MAX_ACTIONS):
        bad += K.is_legal_action(state, a) != listed[a]
    return bad


def test_is_legal_action_agrees_with_legal_actions_on_every_action_id():
    # Random play from the start and with low draw limits (knocks, kos, limits reached).
    rng = random.Random(9)
    buf = np.empty(K.MAX_ACTIONS, dtype=np.int32)
    checked = 0
    for limits in [(50, 400), (4, 30)]:
        s = K.standard_state(*limits)
        for _ in range(1500):
            assert _single_action_mismatches(s, buf) == 0, s
            checked += 1
            actions = legal(s)
            if not actions:
                s = K.standard_state(*limits)
                continue
            K.apply(s, rng.choice(actions), s)
    assert checked == 3000


# --- differential test against the reference engine --------------------------------------

def reference_of(state):
    """Return the TolkRef of a kernel state."""
    ko = None
    if state[K.KO] != K.NO_KO:
        code = int(state[K.KO]) - 1
        ko = (code >> 6, code & 63)
    return TolkRef.from_position(
        [s for s in range(64) if int(state[K.WHITE]) >> s & 1],
        [s for s in range(64) if int(state[K.BLACK]) >> s & 1],
        side=int(state[K.SIDE]), ko=ko, quiet=int(state[K.QUIET]), plies=int(state[K.PLIES]),
        quiet_plies=int(state[K.QUIET_PLIES]), max_plies=int(state[K.MAX_PLIES]))


def assert_same(state, ref):
    """Fail unless a kernel state and a reference position are the same position."""
    assert names(state[K.WHITE]) == sorted(name(s) for s in ref.white)
    assert names(state[K.BLACK]) == sorted(name(s) for s in ref.black)
    assert int(state[K.SIDE]) == ref.side
    ko = None if state[K.KO] == K.NO_KO else ((int(state[K.KO]) - 1) >> 6, (int(state[K.KO]) - 1) & 63)
    assert ko == ref.ko
    assert (int(state[K.QUIET]), int(state[K.PLIES])) == (ref.quiet, ref.plies)


def test_kernels_agree_with_the_reference_engine_on_10000_positions():
    rng = random.Random(20240607)
    limits = [(50, 400), (50, 400), (6, 400), (50, 400), (50, 30), (50, 400), (3, 25), (12, 120)]
    positions = 0
    finished = {"white": 0, "black": 0, "draw": 0}
    child = np.empty(K.STATE_SIZE, dtype=np.uint64)
    game = 0
    while positions < 10_000:
        quiet_plies, max_plies = limits[game % len(limits)]
        game += 1
        state = K.standard_state(quiet_plies, max_plies)
        ref = TolkRef.standard(quiet_plies, max_plies)
        while True:
            positions += 1
            actions = legal(state)
            assert actions == ref.legal_actions(), ref.to_string()
            outcome = RESULT_NAMES[K.result(state)]
            assert outcome == ref.result(), ref.to_string()
            assert K.returns(state) == ref.returns()
            if not actions:
                finished[outcome] += 1
                break
            for a in actions:
                assert K.landing_square(state, a) == ref.landing(a)
                K.apply(state, a, child)
                assert_same(child, ref.apply(a))
            a = rng.choice(actions)
            K.apply(state, a, state)
            ref = ref.apply(a)
    assert all(finished.values()), finished  # every kind of ending was exercised


def test_reference_agrees_on_rule_positions_built_from_kernel_states():
    for text in ("B7/B7/W7/W7/W7/W7/B7/B7 b - 0 0", "6BB/8/8/8/W7/W7/1WWW4/8 w - 0 0",
                 "8/8/6BB/8/8/3W4/3W4/2BBB3 w - 0 0", "5B2/2BBB3/1W1W4/W1W1B1B1/3W1B1B/4W1B1/3WWW2/8 b b4-d6 0 1"):
        s = position(text)
        ref = reference_of(s)
        assert ref.to_string() == text
        assert legal(s) == ref.legal_actions()
        assert RESULT_NAMES[K.result(s)] == ref.result()
