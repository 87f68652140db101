"""The Tolkuchka State layer: notation, position strings, pictures, its own bad input, CLI. What every
game must do (round trips, bad input in general) is in tests/test_contract.py."""
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ludo_flow
from walks import random_walk as walk

GAME = ludo_flow.load_game("tolkuchka")
START = "8/2BBB3/1W1B4/W1W1B1B1/1W1W1B1B/4W1B1/3WWW2/8 w - 0 0"
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_walk(seed, plies, **params):
    """Return the states of a seeded random game from the standard setup."""
    return walk(ludo_flow.load_game("tolkuchka", **params), seed, plies)


def test_start_string_and_first_moves_in_notation():
    state = GAME.new_initial_state()
    assert state.to_string() == START
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == [
        "a5-c3", "a5-c7", "b4-d6", "b6-g1", "c5-a3", "d2-f4", "d2-g2", "e2-e4", "e3-c1", "e3-e1",
        "f2-a7", "f2-c2"]


def test_worked_example_through_the_state_layer():
    state = GAME.new_initial_state()
    state.apply(state.parse_action("b4-d6"))
    assert state.to_string() == "5B2/2BBB3/1W1W4/W1W1B1B1/3W1B1B/4W1B1/3WWW2/8 b b4-d6 0 1"
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == [
        "c7-f7", "e5-h2", "g5-e3", "h4-f2", "h4-f6"]
    with pytest.raises(ValueError, match="not a legal action"):
        state.parse_action("f8-d6")      # ko
    with pytest.raises(ValueError, match="not a legal action"):
        state.parse_action("g3-d6")      # rule 5: Black's own c7 stands behind d6


@SETTINGS
@given(st.integers(0, 10**6))
def test_no_settled_position_has_a_single_and_checkers_never_grow(seed):
    from ludo_flow.tolkuchka import kernels as K
    before = None
    for state in random_walk(seed, 120):
        assert K.singles(state.array[K.WHITE]) == 0 and K.singles(state.array[K.BLACK]) == 0
        count = len(state.checkers())
        assert before is None or count <= before
        before = count


@SETTINGS
@given(st.text(alphabet="12345678/WBwb- 0abcdefgh", max_size=60))
def test_fuzzed_position_strings_raise_only_position_errors(text):
    try:
        state = GAME.from_string(text)
    except ludo_flow.PositionError:
        return
    assert GAME.from_string(state.to_string()) == state


@pytest.mark.parametrize("text, words", [
    ("8/8/8/8/8/8/3WWW2/8 w - 0 0", "Black has no checkers"),
    ("8/2BBB3/8/8/8/8/8/8 w - 0 0", "White has no checkers"),
    ("8/2BBB3/8/8/8/8/3WWW2/7W w - 0 0", "single"),
    ("B7/2BBB3/8/8/8/8/3WWW2/8 w - 0 0", "single"),
    ("8/2BBB3/8/8/8/8/3WWW2/8 w b4-c6 0 0", "not a move along a line"),
    ("8/2BBB3/8/8/8/8/3WWW2/8 w b4 0 0", "tail-landing"),
    ("8/2BBB3/8/8/8/8/3WWW2 w - 0 0", "8 ranks"),
    ("8/2BBB3/8/8/8/8/3WWW2/9 w - 0 0", "unexpected character .9."),
    ("8/2BBB3/8/8/8/8/3WWW3/8 w - 0 0", "squares"),
    ("7/2BBB2/7/7/7/7/3WWW1/7 w - 0 0", "8 files"),
    ("8/2BBB3/8/8/8/8/3WWW2/8 x - 0 0", "side"),
    ("8/2BBB3/8/8/8/8/3WWW2/8 w - -1 0", "quiet"),
    ("8/2BBB3/8/8/8/8/3WWW2/8 w - 0", "5 fields"),
    ("8/2BBB3/8/8/8/8/3wWW2/8 w - 0 0", "unexpected character"),
])
def test_every_kind_of_bad_position_string_is_rejected(text, words):
    with pytest.raises(ludo_flow.PositionError, match=words):
        GAME.from_string(text)


def test_max_plies_draws_through_the_state_layer():
    last = random_walk(3, 10, max_plies=4)[-1]
    assert last.plies == 4 and last.is_terminal() and last.result_string() == "1/2-1/2"


def test_pictures():
    state = GAME.new_initial_state()
    assert str(state).splitlines()[1] == "7  . . B B B . . ."
    assert state._repr_svg_().count("<circle") == 18
    state.apply(state.parse_action("b4-d6"))
    svg = state._repr_svg_()
    assert svg.count("<circle") == 18 and svg.count('class="barred"') == 1   # the ko's line is dashed


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "agents.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_cli_perft_and_divide():
    out = run_cli("perft", "tolkuchka", "--depth", "3")
    assert out.returncode == 0 and out.stdout.split()[-1] == "1201"
    out = run_cli("perft", "tolkuchka", "--after", "b4-d6", "--depth", "1", "--divide")
    assert out.stdout.split() == ["c7-f7", "1", "e5-h2", "1", "g5-e3", "1", "h4-f2", "1", "h4-f6", "1", "5"]
    out = run_cli("perft", "tolkuchka", "--position", "8/8 w - 0 0", "--depth", "1")
    assert out.returncode == 2 and "8 ranks" in out.stderr and "Traceback" not in out.stderr


def test_rules_md_carries_the_perft_table():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "RULES.md").read_text()
    row = text[text.index("## Tolkuchka perft"):].split("| perft |")[1].splitlines()[0]
    table = [int(c.strip().replace(",", "")) for c in row.split("|") if c.strip()]
    assert table == [12, 131, 1201, 10958, 97640, 876241]
    start = GAME.new_initial_state()
    assert [int(start.kernels.perft(start.array, d)) for d in range(1, 6)] == table[:5]


def test_action_to_string_refuses_actions_that_name_no_row():
    state = GAME.new_initial_state()
    assert state.action_to_string(11 * 8 + 2) == "d2-g2"     # d2 is the tail of d2-e2-f2 going east
    for action in (50 * 8 + 2,       # c7 is Black's: not the side to move
                   12 * 8 + 2,       # e2 is the middle of d2-e2-f2: no tail
                   0 * 8 + 0,        # a1 is empty
                   512, -1):
        with pytest.raises(ValueError):
            state.action_to_string(action)


def _position(white, black="a8 b8", side="w"):
    """Return a state from square names (no validation beyond the State layer's)."""
    from ludo_flow.render import board_field, parse_square
    chars = {parse_square(s): "W" for s in white.split()}
    chars.update({parse_square(s): "B" for s in black.split()})
    return GAME.from_string(f"{board_field(8, 8, chars)} {side} - 0 0")


@pytest.mark.parametrize("length", [2, 3, 4, 5])
@pytest.mark.parametrize("start, step", [((2, 3), (1, 0)), ((3, 1), (0, 1)), ((1, 1), (1, 1)), ((6, 1), (-1, 1))])
def test_a_lone_row_moves_whole_both_ways_along_its_line(length, start, step):
    from ludo_flow.render import square_name
    cells = [(start[0] + i * step[0], start[1] + i * step[1]) for i in range(length)]
    name = lambda f, r: square_name(r * 8 + f)  # noqa: E731
    state = _position(" ".join(name(f, r) for f, r in cells))
    first, last = cells[0], cells[-1]
    ahead = (last[0] + step[0], last[1] + step[1])
    behind = (first[0] - step[0], first[1] - step[1])
    expected = {f"{name(*first)}-{name(*ahead)}", f"{name(*last)}-{name(*behind)}"}
    assert {state.action_to_string(a) for a in state.legal_actions()} == expected


def test_a_row_at_the_edge_cannot_advance_off_the_board():
    state = _position("a1 a2 a3")
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["a1-a4"]
    state = _position("f8 g8 h8", black="a1 b1")
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["h8-e8"]


def test_from_array_refuses_malformed_tolkuchka_arrays():
    from ludo_flow.tolkuchka import kernels as K
    state = GAME.new_initial_state()
    state.apply(state.parse_action("b4-d6"))
    for slot, value in ((K.SIDE, 3), (K.KO, int(K.ko_word(1, 20)))):   # ko b1-e3: not on a line
        bad = state.array.copy()
        bad[slot] = value
        with pytest.raises(ludo_flow.PositionError):
            GAME.from_array(bad)
