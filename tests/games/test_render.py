"""Board pictures: every state of random games on every board size from 4x4 to 8x8 renders
as well-formed SVG whose text fits inside the picture, with the last move marked.

The width of a text is estimated from its font size and length with a generous factor of our
own (not the renderer's): a sans-serif glyph's advance is at most about 0.62 em on our
captions (measured with DejaVu Sans, a wide font: 0.616 em for a list of wash candidates, 0.55
for ordinary words)."""
import random
import xml.etree.ElementTree as ET

import pytest

import ludo_flow
from ludo_flow.render import parse_square, wrap_text

CHAR_EM = 0.62
DESCENT = 0.25   # of the font size, below the baseline
SVG = "{http://www.w3.org/2000/svg}"
SIZES = [(w, h) for w in range(4, 9) for h in range(4, 9)]


def flow_start(width, height):
    """Return a Flow start on a width x height board: pawns on every other square of each side's
    two home ranks, a rook and a knight among White's."""
    white = {f: "R" if f == 0 else "N" if f == 2 else "P" for f in range(0, width, 2)}
    ranks = {0: white, 1: {f: "P" for f in range(1, width, 2)},
             height - 2: {f: "p" for f in range(0, width, 2)}, height - 1: {f: "p" for f in range(1, width, 2)}}
    field = "/".join("".join(ranks.get(r, {}).get(f, "1") for f in range(width)) for r in range(height - 1, -1, -1))
    return ludo_flow.load_game("flow").from_string(f"{field} w 1 - 0")


def random_game(start, seed, plies):
    """Return the states of a seeded random game of up to `plies` decisions (by `apply`, each
    state a clone), the start included."""
    rng = random.Random(seed)
    state, states = start.clone(), [start.clone()]
    while len(states) <= plies and not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


@pytest.fixture(scope="module")
def games():
    """Return lists of states: random games of every Flow variant, of Flow on every board size
    and of Tolkuchka (played to the end or cut at a few hundred decisions)."""
    out = []
    for seed in range(2):
        for variant in ludo_flow.FlowGame.variants:
            out.append(random_game(ludo_flow.load_game("flow", variant).new_initial_state(), seed, 300))
        out.append(random_game(ludo_flow.load_game("tolkuchka").new_initial_state(), seed, 300))
    for i, (w, h) in enumerate(SIZES):
        out.append(random_game(flow_start(w, h), i, 80))
    return out


def picture(state):
    """Return the parsed SVG of a state and its (width, height), checking the root agrees with itself."""
    root = ET.fromstring(state._repr_svg_())
    assert root.tag == SVG + "svg"
    w, h = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    return root, w, h


def marked(root, kind):
    """Return the squares of the picture's marks of one class ('last-move', 'changed', 'ring')."""
    return sorted(parse_square(e.get("data-square")) for e in root.iter() if e.get("class") == kind)


def expected_last_move(state):
    """Return (squares of the last decision, other squares it changed) worked out from the
    state before it, or None for a state with no last move."""
    before, action = state.previous_state(), state.last_action
    if action is None:
        return None
    if isinstance(state, ludo_flow.FlowState):
        text = state.action_to_string(action)
        squares = text[1:].split("-") if text.startswith("~") else text.split("-")
        old, new = before.pieces(), state.pieces()
    else:
        squares = before.action_to_string(action).split("-")
        old, new = before.checkers(), state.checkers()
    squares = sorted(parse_square(s) for s in squares)
    changed = sorted(sq for sq in set(old) | set(new) if old.get(sq) != new.get(sq) and sq not in squares)
    return squares, changed


def test_every_text_fits_inside_its_picture(games):
    for states in games:
        for state in states:
            root, w, h = picture(state)
            texts = list(root.iter(SVG + "text"))
            assert texts
            for t in texts:
                size, x, y = float(t.get("font-size")), float(t.get("x")), float(t.get("y"))
                width = len(t.text) * size * CHAR_EM
                left = {"middle": x - width / 2, "end": x - width}.get(t.get("text-anchor"), x)
                assert 0 <= left and left + width <= w, (t.text, state)
                assert 0 <= y - size and y + DESCENT * size <= h, (t.text, state)
            for r in root.iter(SVG + "rect"):
                x, y = float(r.get("x")), float(r.get("y"))
                assert 0 <= x and x + float(r.get("width")) <= w and 0 <= y and y + float(r.get("height")) <= h


def test_the_last_move_and_what_it_changed_are_marked(games):
    changed_seen = 0
    for states in games:
        assert marked(picture(states[0])[0], "last-move") == []   # a start made from a string
        for state in states[1:]:
            root, _, _ = picture(state)
            squares, changed = expected_last_move(state)
            assert marked(root, "last-move") == squares, state
            assert marked(root, "changed") == changed, state
            changed_seen += bool(changed)
            rings = state.wash_candidates() if isinstance(state, ludo_flow.FlowState) and state.choosing else []
            assert marked(root, "ring") == rings
    assert changed_seen > 20   # currents and knocks were met, so the check above was exercised


def test_the_caption_names_the_last_move_and_the_tolkuchka_ko_whole():
    tk = ludo_flow.load_game("tolkuchka").new_initial_state()
    tk.apply(tk.parse_action("b4-d6"))
    lines = [t.text for t in picture(tk)[0].iter(SVG + "text") if t.get("text-anchor") is None]
    assert lines[0].startswith("Last move b4-d6;")
    assert any(line.endswith("knock back along b4-d6") for line in lines)
    assert [e.get("class") for e in picture(tk)[0].iter() if e.get("class") == "barred"] == ["barred"]
    flow = ludo_flow.load_game("flow").new_initial_state()
    flow.apply(flow.parse_action("b2-b3"))
    root = picture(flow)[0]
    assert marked(root, "last-move") == [parse_square("b2"), parse_square("b3")]
    assert marked(root, "ring") == [parse_square("a3"), parse_square("b3")]   # the wash candidates


def test_a_state_remembers_its_last_move_without_changing_the_position():
    game = ludo_flow.load_game("flow", "fountain")
    start = game.new_initial_state()
    assert start.last_action is None and start.previous_state() is None
    a, b = start.legal_actions()[:2]
    child = start.child(a)
    start.apply(b)              # must not disturb the child's memory of the start
    assert child.last_action == a and child.previous_state() == game.new_initial_state()
    assert start.last_action == b and start.previous_state() == game.new_initial_state()
    assert start.previous_state().last_action is None
    again = game.from_string(child.to_string())
    assert again == child and hash(again) == hash(child) and again.last_action is None
    clone = child.clone()
    assert clone.last_action == a and clone.previous_state() == child.previous_state()
    assert marked(picture(clone)[0], "last-move") == sorted([a >> 6, a & 63])   # a step's from and to


@pytest.mark.parametrize("width", [160, 200, 320])
def test_wrap_text_keeps_phrases_whole_when_they_fit(width):
    per_line = int(width // (12 * CHAR_EM))
    phrases = ["White to move,", "step 2,", "first moved b3;", "turn 10/200", "x" * (per_line + 3)]
    lines = wrap_text(phrases, width, 12)
    assert all(len(line) <= per_line for line in lines)
    assert "".join(lines).replace(" ", "") == "".join(phrases).replace(" ", "")
    assert any("first moved b3;" in line for line in lines)
    assert wrap_text("a long paragraph of words " * 5, width, 12) == wrap_text(("a long paragraph of words " * 5).split(), width, 12)
