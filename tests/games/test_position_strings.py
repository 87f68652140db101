"""Position strings from anywhere: any text given to `Game.from_string` parses to a state whose
`to_string()` reads back to the same state, or raises PositionError; no other exception escapes
(both games, every variant, default and small limits)."""
import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ludo_flow
from ludo_flow import registry
from ludo_flow.game import MAX_POSITION_LENGTH
from walks import random_walk

# (game, variant, parameters): every registered game and variant, and each game once with small limits.
CASES = ([(entry.name, variant, ()) for entry in registry.ENTRIES for variant in entry.game_class.variants]
         + [("flow", "fountain", (("max_turns", 2),)),
            ("tolkuchka", "standard", (("quiet_plies", 1), ("max_plies", 3)))])
IDS = [f"{name}-{variant}" + "".join(f"-{k}={v}" for k, v in params) for name, variant, params in CASES]

# Characters str.isdigit() or str.split() accept that no position string writes, and other traps.
UNICODE_DIGITS = "²³¹٣۳߃०১੧૧୧௧౧೧൧๑໑༡၁႑០᠑᥇０𝟙"
ODD_PIECES = ["\u00a0", "\u3000", "\u2028", "\x00", "\x1b", "\x1c", "\x1f", "\x85", "\ufeff", "-1", "+1",
              "1_0", "0x10", "1e3", "١٢", "٣", "--", "~", "/", "//", "a9", "i1", "d²", "𝟙𝟚"]
HUGE_NUMBERS = st.one_of(st.integers(2**16 - 2, 2**16 + 2), st.integers(2**32 - 2, 2**32 + 2),
                         st.integers(2**63 - 2, 2**64 + 2), st.integers(0, 10**240),
                         st.sampled_from(["9" * 300, "1" * 5000, "0" * 250 + "1"])).map(str)
PIECES = st.one_of(st.sampled_from(ODD_PIECES), st.sampled_from(UNICODE_DIGITS), HUGE_NUMBERS,
                   st.integers(0, 70).map(str), st.text(max_size=6))


def _game(case):
    name, variant, params = case
    return ludo_flow.load_game(name, variant, **dict(params))


@functools.lru_cache(maxsize=None)
def _valid_strings(case):
    """Return position strings of the case's start and of states met on seeded random walks."""
    game = _game(case)
    texts = {game.variants[game.variant]}
    for seed in range(4):
        for state in random_walk(game, seed, 150):
            try:
                texts.add(state.to_string())
            except ludo_flow.PositionError:
                pass  # a Flow choose phase has no position string
    return sorted(texts)


@st.composite
def mutated(draw, texts):
    """Return one of `texts` after one to four edits: a field replaced, swapped, dropped or
    doubled; a character replaced, inserted or deleted; odd text glued on; the whole repeated."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 4))):
        fields = text.split(" ")
        kind = draw(st.sampled_from(["field", "swap", "drop", "double", "char", "insert", "delete",
                                     "glue", "repeat", "separator"]))
        i = draw(st.integers(0, max(len(fields) - 1, 0)))
        j = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "field":
            fields[i] = draw(PIECES)
        elif kind == "swap":
            k = draw(st.integers(0, max(len(fields) - 1, 0)))
            fields[i], fields[k] = fields[k], fields[i]
        elif kind == "drop":
            del fields[i:i + 1]
        elif kind == "double":
            fields.insert(i, fields[i] if fields else "")
        if kind in ("field", "swap", "drop", "double"):
            text = " ".join(fields)
        elif kind == "char":
            text = text[:j] + draw(st.characters()) + text[j + 1:]
        elif kind == "insert":
            text = text[:j] + draw(PIECES) + text[j:]
        elif kind == "delete":
            text = text[:j] + text[j + draw(st.integers(1, 8)):]
        elif kind == "glue":
            text = draw(PIECES) + text if draw(st.booleans()) else text + draw(PIECES)
        elif kind == "repeat":
            text = " ".join([text] * draw(st.integers(2, 400)))
        else:
            text = text.replace(" ", draw(st.sampled_from(["\t", "  ", "\n", "\u00a0", "\x1c", "\u3000", ""])))
    return text


def _parses_and_reads_back_or_is_a_position_error(game, text):
    """Check the property on one text: PositionError, or a state whose string reads back to it."""
    try:
        state = game.from_string(text)
    except ludo_flow.PositionError:
        return False
    again = state.to_string()
    reread = game.from_string(again)
    assert reread == state and reread.to_string() == again, (text, again)
    return True


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_text_parses_and_reads_back_or_is_a_position_error(case, data):
    game = _game(case)
    text = data.draw(st.one_of(st.text(), st.text(alphabet="12345678/PRNprnWBwb- 0abcdefgh~\t", max_size=80),
                               mutated(_valid_strings(case))))
    _parses_and_reads_back_or_is_a_position_error(game, text)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_valid_strings_read_back(case):
    """The mutations start from strings that parse (a finished Flow game's string may not)."""
    game = _game(case)
    assert sum(_parses_and_reads_back_or_is_a_position_error(game, t) for t in _valid_strings(case)) > 1


def _numeric_fields(game):
    """Return the start position's fields and the indices of its number fields."""
    fields = game.variants[game.variant].split()
    return fields, [i for i, f in enumerate(fields) if f.isdigit()]


@pytest.mark.parametrize("name", list(ludo_flow.GAMES))
def test_unicode_digit_in_position_is_position_error(name):
    """A digit outside ASCII ('²' passes str.isdigit(), int() refuses it) is refused in every field."""
    game = ludo_flow.load_game(name)
    fields, numbers = _numeric_fields(game)
    assert numbers
    for i in numbers:
        for digit in ("²", "٣", "0²", "１"):
            text = " ".join(fields[:i] + [digit] + fields[i + 1:])
            with pytest.raises(ludo_flow.PositionError, match="ASCII"):
                game.from_string(text)
    if name == "flow":  # the first-moved square
        with pytest.raises(ludo_flow.PositionError):
            game.from_string("8/8/8/3p4/8/8/3P4/8 w 2 d² 0")


@pytest.mark.parametrize("name", list(ludo_flow.GAMES))
def test_huge_numbers_and_long_strings_are_position_errors(name):
    """A number of any size is bounded (a 5,000-digit one passes int()'s digit limit), a text too
    long for a position is refused before it is read, and padding counts towards that length."""
    game = ludo_flow.load_game(name)
    fields, numbers = _numeric_fields(game)
    for i in numbers:
        for number in ("1" * 5000, "9" * 100, str(2**64), str(2**32)):
            with pytest.raises(ludo_flow.PositionError):
                game.from_string(" ".join(fields[:i] + [number] + fields[i + 1:]))
    start = game.variants[game.variant]
    with pytest.raises(ludo_flow.PositionError, match=str(MAX_POSITION_LENGTH)):
        game.from_string(start + " " * 10**6)
    game.from_string(start + " " * (MAX_POSITION_LENGTH - len(start)))


@pytest.mark.parametrize("name", list(ludo_flow.GAMES))
def test_control_characters_and_unicode_spaces_are_refused(name):
    """Fields are separated by ASCII spaces (tabs and line ends pass); str.split() also splits on
    '\\x1c' and on a no-break space, which a position string never holds."""
    game = ludo_flow.load_game(name)
    start = game.variants[game.variant]
    for sep in ("\x1c", "\u00a0", "\u3000", "\x85"):
        with pytest.raises(ludo_flow.PositionError, match="ASCII"):
            game.from_string(start.replace(" ", sep, 1))
    assert game.from_string("\t" + start.replace(" ", "\t") + "\r\n") == game.new_initial_state()
