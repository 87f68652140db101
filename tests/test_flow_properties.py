"""Property tests of the Flow State layer: strings round-trip, invariants hold, bad input is refused."""
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import ludo_flow
from ludo_flow.flow import kernels as K

GAME = ludo_flow.load_game("flow")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_walk(variant, seed, plies):
    """Return the states of a seeded random game, the start included."""
    rng = random.Random(seed)
    state = ludo_flow.load_game("flow", variant, max_turns=60).new_initial_state()
    states = [state.clone()]
    for _ in range(plies):
        legal = state.legal_actions()
        if not legal:
            break
        state.apply(rng.choice(legal))
        states.append(state.clone())
    return states


walks = st.tuples(st.sampled_from(["standard", "stones", "fountain"]), st.integers(0, 10**6))


@SETTINGS
@given(walks)
def test_position_strings_round_trip(walk):
    for state in random_walk(*walk, plies=80):
        if state.choosing or state.result_string() in ("1-0", "0-1"):
            continue  # a choose phase has no string; a won position is refused by design
        again = state.game.from_string(state.to_string())
        assert again.to_string() == state.to_string()
        assert np.array_equal(again.array, state.array) or again.is_terminal() == state.is_terminal()
        assert sorted(again.legal_actions()) == sorted(state.legal_actions())


@SETTINGS
@given(walks)
def test_settled_positions_have_no_wall_and_pieces_never_grow(walk):
    before = None
    for state in random_walk(*walk, plies=120):
        count = len(state.pieces())
        assert before is None or count <= before
        before = count
        assert bool(state.wash_candidates()) == state.choosing


@SETTINGS
@given(st.text(alphabet="12345678/PRNprnwb- 0abcdefghx~", max_size=60))
def test_fuzzed_position_strings_raise_only_position_errors(text):
    try:
        state = GAME.from_string(text)
    except ludo_flow.PositionError:
        return
    assert state.game.from_string(state.to_string()) == state


@SETTINGS
@given(st.text(max_size=12), walks)
def test_fuzzed_action_strings_raise_only_action_errors(text, walk):
    state = random_walk(*walk, plies=10)[-1]
    try:
        action = state.parse_action(text)
    except ludo_flow.ActionError:
        return
    assert action in state.legal_actions()


@pytest.mark.parametrize("text, words", [
    ("1r1n1n1r/p1p1p1p1/1p1p1p1p/8/8/PPP5/1P1P1P1P/R1N1N1R1 w 1 - 0", "wall"),
    ("8/8/8/8/8/8/8/PP6 w 1 - 0", "wall"),
    ("3P4/8/8/8/8/8/8/4p3 w 1 - 0", "far edge"),
    ("8/8/8/8/8/8/8/4p3 b 1 - 0", "far edge"),
    ("8/8/8/3p4/8/8/3P4/8 w 1 d2 0", "step 1"),
    ("8/8/8/3p4/8/8/3P4/8 w 2 e2 0", "first-moved"),
    ("8/8/8/3p4/8/8/3P4/8 w 2 d5 0", "first-moved"),
    ("8/8/8/3p4/8/8/3P4/8 w 2 d2 0", "legal step"),
    ("8/8/8 w 1 - 0", "ranks"),
    ("8/8/8/8/8/8/8/8/8 w 1 - 0", "ranks"),
    ("3/3/3/3 w 1 - 0", "files"),
    ("9/8/8/8 w 1 - 0", "unexpected character .9."),
    ("8/7/8/8 w 1 - 0", "squares"),
    ("8/8/8/8 x 1 - 0", "side"),
    ("8/8/8/8 w 3 - 0", "step"),
    ("8/8/8/8 w 1 - -1", "turns"),
    ("8/8/8/8 w 1 -", "5 fields"),
    ("8/8/8/8/8/8/8/8 w 1 - 0 extra", "5 fields"),
    ("8/8/8/3q4 w 1 - 0", "unexpected character"),
])
def test_every_kind_of_bad_position_string_is_rejected(text, words):
    with pytest.raises(ludo_flow.PositionError, match=words):
        GAME.from_string(text)


def test_bad_parameters_and_actions_are_value_errors():
    with pytest.raises(ValueError, match="variant"):
        ludo_flow.load_game("flow", "huge")
    with pytest.raises(ValueError, match="max_turns"):
        ludo_flow.load_game("flow", max_turns=0)
    with pytest.raises(ValueError, match="unknown game"):
        ludo_flow.load_game("chess")
    state = GAME.new_initial_state()
    for bad in (-1, 4096 + 64, 10**9, 1.5, "b2-b3", None, True):
        with pytest.raises(ValueError):
            state.apply(bad)
    with pytest.raises(ValueError, match="not a legal action"):
        state.parse_action("b2-b5")
    assert state.to_string() == ludo_flow.FlowGame.variants["standard"]


def test_pictures_show_the_position():
    state = GAME.new_initial_state()
    text = str(state)
    assert text.splitlines()[0] == "8  . r . n . n . r" and "White to move" in text
    svg = state._repr_svg_()
    assert svg.startswith("<svg") and svg.count("<circle") == 24
    state.apply(state.parse_action("b2-b3"))
    assert state._repr_svg_().count("<circle") == 24 + 2   # the two candidates are ringed
    assert "chooses" in str(state)


def test_kernel_apply_in_place_equals_apply_into_a_new_array():
    for state in random_walk("standard", 5, 60)[:-1]:
        for a in state.legal_actions()[:5]:
            out = np.empty_like(state.array)
            K.apply(state.array, a, out)
            inplace = state.array.copy()
            K.apply(inplace, a, inplace)
            assert np.array_equal(out, inplace)



def test_from_array_round_trips_and_refuses_malformed_arrays():
    state = GAME.new_initial_state()
    state.apply(state.parse_action("b2-b3"))           # a choose phase survives the round trip
    assert GAME.from_array(state.array) == state
    for slot, value in ((K.NHIST, 40), (K.FIRST, 99), (K.STEP, 0), (K.WIDTH, 9), (K.SIDE, 2)):
        bad = state.array.copy()
        bad[slot] = value
        with pytest.raises(ludo_flow.PositionError):
            GAME.from_array(bad)
    bad = state.array.copy()
    bad[K.BLACK] |= bad[K.WHITE]
    with pytest.raises(ludo_flow.PositionError, match="piece boards"):
        GAME.from_array(bad)
    for junk in (state.array[:5], [1.5] * K.STATE_SIZE, "text", [-1] * K.STATE_SIZE):
        with pytest.raises(ValueError):
            GAME.from_array(junk)


@njit(cache=True)
def _wall_maker_mismatches(occs, widths, masks):
    """Count squares where _wall_makers disagrees with adding a piece and asking wash_candidates."""
    bad = 0
    for k in range(occs.size):
        occ, width, mask = occs[k], widths[k], masks[k]
        if K.wash_candidates(occ, width, mask) != 0:
            continue  # _wall_makers is asked only of positions at rest
        makers = K._wall_makers(occ, width, mask)
        for sq in range(64):
            b = np.uint64(1) << np.uint64(sq)
            if (mask & b) and not (occ & b):
                bad += (K.wash_candidates(occ | b, width, mask) != 0) != ((makers & b) != 0)
    return bad


def test_wall_makers_are_the_squares_where_an_arrival_makes_a_wall():
    rng = np.random.default_rng(3)
    count = 20000
    widths = rng.integers(1, 9, count)
    heights = rng.integers(1, 9, count)
    masks = np.array([K.board_mask(w, h) for w, h in zip(widths, heights)], dtype=np.uint64)
    density = rng.random((count, 1))
    bits = (rng.random((count, 64)) < density).astype(np.uint64) << np.arange(64, dtype=np.uint64)
    occs = np.bitwise_or.reduce(bits, axis=1) & masks
    assert _wall_maker_mismatches(occs, widths.astype(np.int64), masks) == 0
