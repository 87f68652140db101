"""Property tests of Flow's own rules in the State layer: invariants hold, Flow's bad position strings
and malformed arrays are refused. What every game must do (round trips, bad input in general, apply
in place) is in tests/test_contract.py."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import ludo_flow
from ludo_flow.flow import kernels as K
from walks import random_walk as walk

GAME = ludo_flow.load_game("flow")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_walk(variant, seed, plies):
    """Return the states of a seeded random game, the start included."""
    return walk(ludo_flow.load_game("flow", variant, max_turns=60), seed, plies)


walks = st.tuples(st.sampled_from(["standard", "stones", "fountain"]), st.integers(0, 10**6))


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


def test_pictures_show_the_position():
    state = GAME.new_initial_state()
    text = str(state)
    assert text.splitlines()[0] == "8  . r . n . n . r" and "White to move" in text
    svg = state._repr_svg_()
    assert svg.startswith("<svg") and svg.count("<circle") == 24
    state.apply(state.parse_action("b2-b3"))
    assert state._repr_svg_().count("<circle") == 24 + 2   # the two candidates are ringed
    assert "chooses" in str(state)


def test_from_array_refuses_malformed_flow_arrays():
    state = GAME.new_initial_state()
    state.apply(state.parse_action("b2-b3"))           # a choose phase
    for slot, value in ((K.NHIST, 40), (K.FIRST, 99), (K.STEP, 0), (K.WIDTH, 9), (K.SIDE, 2)):
        bad = state.array.copy()
        bad[slot] = value
        with pytest.raises(ludo_flow.PositionError):
            GAME.from_array(bad)
    bad = state.array.copy()
    bad[K.BLACK] |= bad[K.WHITE]
    with pytest.raises(ludo_flow.PositionError, match="piece boards"):
        GAME.from_array(bad)


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
